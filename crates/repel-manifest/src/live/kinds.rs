//! The kinds repel reads from a cluster, in the order their objects are added and their
//! snapshot files are named, with kubectl's page size (client-go's pager,
//! `k8s.io/client-go/tools/pager/pager.go`, `defaultPageSize`).

use repel_core::kinds::{self, ResourceKind};

/// Objects per page, as kubectl's (client-go's pager's default page size).
pub const PAGE_SIZE: u32 = 500;

/// A kind repel reads from a cluster.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// Its names: kind, resource, group, version ([`repel_core::kinds`]; Karpenter's here).
    pub names: &'static ResourceKind,
    /// The snapshot's file for it.
    pub file: &'static str,
    /// Karpenter's: absent without a word when the API does not serve it.
    pub optional: bool,
    /// What cannot be judged without it, for the warning when it cannot be read.
    pub without: &'static str,
}

impl Kind {
    /// The resource and its group, as RBAC and kubectl name it (`poddisruptionbudgets.policy`).
    pub fn resource(&self) -> String {
        self.names.qualified()
    }

    /// The list's path (`/apis/policy/v1/poddisruptionbudgets`).
    pub fn path(&self) -> String {
        self.names.list_path()
    }

    /// The items' `apiVersion` (lists leave it out of their items).
    pub fn api_version(&self) -> &'static str {
        self.names.api_version
    }

    /// The items' `kind`.
    pub fn kind(&self) -> &'static str {
        self.names.kind
    }
}

/// Karpenter's NodePool (`karpenter.sh/v1`, a CustomResourceDefinition's).
const NODE_POOL: ResourceKind = ResourceKind {
    kind: "NodePool",
    plural: "nodepools",
    singular: "nodepool",
    group: "karpenter.sh",
    version: "v1",
    api_version: "karpenter.sh/v1",
    namespaced: false,
    short_names: &[],
};

/// Karpenter's NodeClaim (`karpenter.sh/v1`, a CustomResourceDefinition's).
const NODE_CLAIM: ResourceKind = ResourceKind {
    kind: "NodeClaim",
    plural: "nodeclaims",
    singular: "nodeclaim",
    group: "karpenter.sh",
    version: "v1",
    api_version: "karpenter.sh/v1",
    namespaced: false,
    short_names: &[],
};

/// The kinds read, in the order their objects are added (and the snapshot's files are named).
pub const KINDS: &[Kind] = &[
    Kind {
        names: &kinds::NAMESPACE,
        file: "01-namespaces.yaml",
        optional: false,
        without: "namespace labels (namespace selectors of affinity and spread) are taken as empty",
    },
    Kind {
        names: &kinds::PRIORITY_CLASS,
        file: "02-priorityclasses.yaml",
        optional: false,
        without: "pods' priorities come only from their spec.priority",
    },
    Kind {
        names: &kinds::NODE,
        file: "03-nodes.yaml",
        optional: false,
        without: "no node can be judged",
    },
    Kind {
        names: &kinds::POD_DISRUPTION_BUDGET,
        file: "04-poddisruptionbudgets.yaml",
        optional: false,
        without: "evictions and drains are judged as if no PodDisruptionBudget existed",
    },
    Kind {
        names: &kinds::DEPLOYMENT,
        file: "05-deployments.yaml",
        optional: false,
        without: "pods owned by Deployments are judged without them (not replicated, not recreated)",
    },
    Kind {
        names: &kinds::REPLICA_SET,
        file: "06-replicasets.yaml",
        optional: false,
        without: "pods owned by ReplicaSets are judged without them (not replicated, not recreated)",
    },
    Kind {
        names: &kinds::STATEFUL_SET,
        file: "07-statefulsets.yaml",
        optional: false,
        without: "pods owned by StatefulSets are judged without them (not replicated, not recreated)",
    },
    Kind {
        names: &kinds::DAEMON_SET,
        file: "08-daemonsets.yaml",
        optional: false,
        without: "DaemonSet pods are judged without their DaemonSet (drains do not skip them; new nodes get none)",
    },
    Kind {
        names: &kinds::JOB,
        file: "09-jobs.yaml",
        optional: false,
        without: "pods owned by Jobs are judged without them",
    },
    Kind {
        names: &kinds::CRON_JOB,
        file: "10-cronjobs.yaml",
        optional: false,
        without: "CronJobs' next runs are not judged",
    },
    Kind {
        names: &kinds::REPLICATION_CONTROLLER,
        file: "11-replicationcontrollers.yaml",
        optional: false,
        without: "pods owned by ReplicationControllers are judged without them (not replicated, not recreated)",
    },
    Kind {
        names: &kinds::POD,
        file: "12-pods.yaml",
        optional: false,
        without: "no pod can be judged: workloads stand for the pods they would create",
    },
    Kind {
        names: &NODE_POOL,
        file: "13-nodepools.yaml",
        optional: true,
        without: "Karpenter's NodePools are not judged",
    },
    Kind {
        names: &NODE_CLAIM,
        file: "14-nodeclaims.yaml",
        optional: true,
        without: "Karpenter's NodeClaims are not judged",
    },
];
