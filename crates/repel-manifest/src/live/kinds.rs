//! The kinds repel reads from a cluster, in the order their objects are added and their
//! snapshot files are named, with kubectl's page size (client-go's pager,
//! `k8s.io/client-go/tools/pager/pager.go`, `defaultPageSize`).

/// Objects per page, as kubectl's (client-go's pager's default page size).
pub const PAGE_SIZE: u32 = 500;

/// A kind repel reads from a cluster.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// The resource and its group, as RBAC and kubectl name it (`poddisruptionbudgets.policy`).
    pub resource: &'static str,
    /// The list's path.
    pub path: &'static str,
    /// The items' `apiVersion` (lists leave it out of their items).
    pub api_version: &'static str,
    /// The items' `kind`.
    pub kind: &'static str,
    /// The snapshot's file for it.
    pub file: &'static str,
    /// Karpenter's: absent without a word when the API does not serve it.
    pub optional: bool,
    /// What cannot be judged without it, for the warning when it cannot be read.
    pub without: &'static str,
}

/// The kinds read, in the order their objects are added (and the snapshot's files are named).
pub const KINDS: &[Kind] = &[
    Kind {
        resource: "namespaces",
        path: "/api/v1/namespaces",
        api_version: "v1",
        kind: "Namespace",
        file: "01-namespaces.yaml",
        optional: false,
        without: "namespace labels (namespace selectors of affinity and spread) are taken as empty",
    },
    Kind {
        resource: "priorityclasses.scheduling.k8s.io",
        path: "/apis/scheduling.k8s.io/v1/priorityclasses",
        api_version: "scheduling.k8s.io/v1",
        kind: "PriorityClass",
        file: "02-priorityclasses.yaml",
        optional: false,
        without: "pods' priorities come only from their spec.priority",
    },
    Kind {
        resource: "nodes",
        path: "/api/v1/nodes",
        api_version: "v1",
        kind: "Node",
        file: "03-nodes.yaml",
        optional: false,
        without: "no node can be judged",
    },
    Kind {
        resource: "poddisruptionbudgets.policy",
        path: "/apis/policy/v1/poddisruptionbudgets",
        api_version: "policy/v1",
        kind: "PodDisruptionBudget",
        file: "04-poddisruptionbudgets.yaml",
        optional: false,
        without: "evictions and drains are judged as if no PodDisruptionBudget existed",
    },
    Kind {
        resource: "deployments.apps",
        path: "/apis/apps/v1/deployments",
        api_version: "apps/v1",
        kind: "Deployment",
        file: "05-deployments.yaml",
        optional: false,
        without: "pods owned by Deployments are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "replicasets.apps",
        path: "/apis/apps/v1/replicasets",
        api_version: "apps/v1",
        kind: "ReplicaSet",
        file: "06-replicasets.yaml",
        optional: false,
        without: "pods owned by ReplicaSets are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "statefulsets.apps",
        path: "/apis/apps/v1/statefulsets",
        api_version: "apps/v1",
        kind: "StatefulSet",
        file: "07-statefulsets.yaml",
        optional: false,
        without: "pods owned by StatefulSets are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "daemonsets.apps",
        path: "/apis/apps/v1/daemonsets",
        api_version: "apps/v1",
        kind: "DaemonSet",
        file: "08-daemonsets.yaml",
        optional: false,
        without: "DaemonSet pods are judged without their DaemonSet (drains do not skip them; new nodes get none)",
    },
    Kind {
        resource: "jobs.batch",
        path: "/apis/batch/v1/jobs",
        api_version: "batch/v1",
        kind: "Job",
        file: "09-jobs.yaml",
        optional: false,
        without: "pods owned by Jobs are judged without them",
    },
    Kind {
        resource: "cronjobs.batch",
        path: "/apis/batch/v1/cronjobs",
        api_version: "batch/v1",
        kind: "CronJob",
        file: "10-cronjobs.yaml",
        optional: false,
        without: "CronJobs' next runs are not judged",
    },
    Kind {
        resource: "replicationcontrollers",
        path: "/api/v1/replicationcontrollers",
        api_version: "v1",
        kind: "ReplicationController",
        file: "11-replicationcontrollers.yaml",
        optional: false,
        without: "pods owned by ReplicationControllers are judged without them (not replicated, not recreated)",
    },
    Kind {
        resource: "pods",
        path: "/api/v1/pods",
        api_version: "v1",
        kind: "Pod",
        file: "12-pods.yaml",
        optional: false,
        without: "no pod can be judged: workloads stand for the pods they would create",
    },
    Kind {
        resource: "nodepools.karpenter.sh",
        path: "/apis/karpenter.sh/v1/nodepools",
        api_version: "karpenter.sh/v1",
        kind: "NodePool",
        file: "13-nodepools.yaml",
        optional: true,
        without: "Karpenter's NodePools are not judged",
    },
    Kind {
        resource: "nodeclaims.karpenter.sh",
        path: "/apis/karpenter.sh/v1/nodeclaims",
        api_version: "karpenter.sh/v1",
        kind: "NodeClaim",
        file: "14-nodeclaims.yaml",
        optional: true,
        without: "Karpenter's NodeClaims are not judged",
    },
];
