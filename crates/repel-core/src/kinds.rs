//! The built-in kinds' names, one table: kind, resource (plural), singular, API group and
//! version, scope and kubectl's short names, as a Kubernetes v1.35 API server's discovery
//! lists them (`kubectl api-resources`: `po`, `no`, `deploy`, `ds`, `rs`, `sts`, `cj`, `pdb`,
//! `pc`…; each from its `pkg/registry/<group>/<resource>/storage/storage.go` `ShortNames`).
//! kube-rs keeps such shared names in `kube-core`; here every place that maps a kind to its
//! resource or group (the server's discovery and OpenAPI, its writer, the simulation, the
//! manifest and live-cluster readers, the generator) reads this table, and the server's tests
//! hold each row against its own discovery output.

/// One built-in kind and its resource's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceKind {
    /// The kind (`ReplicaSet`).
    pub kind: &'static str,
    /// The resource: the plural, lowercase (`replicasets`).
    pub plural: &'static str,
    /// The singular, lowercase (`replicaset`).
    pub singular: &'static str,
    /// The API group (`apps`; `""` for the core group).
    pub group: &'static str,
    /// The version served (`v1`; `v2` for HorizontalPodAutoscalers).
    pub version: &'static str,
    /// `apiVersion` of its objects: `group/version`, or the version alone in the core group.
    pub api_version: &'static str,
    /// Whether its objects live in a namespace.
    pub namespaced: bool,
    /// kubectl's short names (`rs`).
    pub short_names: &'static [&'static str],
}

impl ResourceKind {
    /// The resource as upstream names it in messages and RBAC: `pods`, `deployments.apps`.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The singular with its group, as kubectl names an object's resource in messages: `pod`,
    /// `deployment.apps` (`deployment.apps/web scaled`).
    pub fn singular_qualified(&self) -> String {
        if self.group.is_empty() {
            self.singular.to_string()
        } else {
            format!("{}.{}", self.singular, self.group)
        }
    }

    /// The path of its list across namespaces: `/api/v1/pods`, `/apis/apps/v1/deployments`.
    pub fn list_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}/{}", self.version, self.plural)
        } else {
            format!("/apis/{}/{}/{}", self.group, self.version, self.plural)
        }
    }
}

/// `Node`: `nodes`.
pub const NODE: ResourceKind = ResourceKind {
    kind: "Node",
    plural: "nodes",
    singular: "node",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: false,
    short_names: &["no"],
};

/// `Pod`: `pods`.
pub const POD: ResourceKind = ResourceKind {
    kind: "Pod",
    plural: "pods",
    singular: "pod",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["po"],
};

/// `Namespace`: `namespaces`.
pub const NAMESPACE: ResourceKind = ResourceKind {
    kind: "Namespace",
    plural: "namespaces",
    singular: "namespace",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: false,
    short_names: &["ns"],
};

/// `Event`: `events`.
pub const EVENT: ResourceKind = ResourceKind {
    kind: "Event",
    plural: "events",
    singular: "event",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["ev"],
};

/// `ReplicationController`: `replicationcontrollers`.
pub const REPLICATION_CONTROLLER: ResourceKind = ResourceKind {
    kind: "ReplicationController",
    plural: "replicationcontrollers",
    singular: "replicationcontroller",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["rc"],
};

/// `Deployment`: `deployments`.apps.
pub const DEPLOYMENT: ResourceKind = ResourceKind {
    kind: "Deployment",
    plural: "deployments",
    singular: "deployment",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["deploy"],
};

/// `ReplicaSet`: `replicasets`.apps.
pub const REPLICA_SET: ResourceKind = ResourceKind {
    kind: "ReplicaSet",
    plural: "replicasets",
    singular: "replicaset",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["rs"],
};

/// `StatefulSet`: `statefulsets`.apps.
pub const STATEFUL_SET: ResourceKind = ResourceKind {
    kind: "StatefulSet",
    plural: "statefulsets",
    singular: "statefulset",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["sts"],
};

/// `DaemonSet`: `daemonsets`.apps.
pub const DAEMON_SET: ResourceKind = ResourceKind {
    kind: "DaemonSet",
    plural: "daemonsets",
    singular: "daemonset",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["ds"],
};

/// `ControllerRevision`: `controllerrevisions`.apps.
pub const CONTROLLER_REVISION: ResourceKind = ResourceKind {
    kind: "ControllerRevision",
    plural: "controllerrevisions",
    singular: "controllerrevision",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &[],
};

/// `Job`: `jobs`.batch.
pub const JOB: ResourceKind = ResourceKind {
    kind: "Job",
    plural: "jobs",
    singular: "job",
    group: "batch",
    version: "v1",
    api_version: "batch/v1",
    namespaced: true,
    short_names: &[],
};

/// `PodDisruptionBudget`: `poddisruptionbudgets`.policy.
pub const POD_DISRUPTION_BUDGET: ResourceKind = ResourceKind {
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    singular: "poddisruptionbudget",
    group: "policy",
    version: "v1",
    api_version: "policy/v1",
    namespaced: true,
    short_names: &["pdb"],
};

/// `Lease`: `leases`.coordination.k8s.io.
pub const LEASE: ResourceKind = ResourceKind {
    kind: "Lease",
    plural: "leases",
    singular: "lease",
    group: "coordination.k8s.io",
    version: "v1",
    api_version: "coordination.k8s.io/v1",
    namespaced: true,
    short_names: &[],
};

/// `PriorityClass`: `priorityclasses`.scheduling.k8s.io.
pub const PRIORITY_CLASS: ResourceKind = ResourceKind {
    kind: "PriorityClass",
    plural: "priorityclasses",
    singular: "priorityclass",
    group: "scheduling.k8s.io",
    version: "v1",
    api_version: "scheduling.k8s.io/v1",
    namespaced: false,
    short_names: &["pc"],
};

/// `CronJob`: `cronjobs`.batch.
pub const CRON_JOB: ResourceKind = ResourceKind {
    kind: "CronJob",
    plural: "cronjobs",
    singular: "cronjob",
    group: "batch",
    version: "v1",
    api_version: "batch/v1",
    namespaced: true,
    short_names: &["cj"],
};

/// `Service`: `services`.
pub const SERVICE: ResourceKind = ResourceKind {
    kind: "Service",
    plural: "services",
    singular: "service",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["svc"],
};

/// `ConfigMap`: `configmaps`.
pub const CONFIG_MAP: ResourceKind = ResourceKind {
    kind: "ConfigMap",
    plural: "configmaps",
    singular: "configmap",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["cm"],
};

/// `Secret`: `secrets`.
pub const SECRET: ResourceKind = ResourceKind {
    kind: "Secret",
    plural: "secrets",
    singular: "secret",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &[],
};

/// `ResourceQuota`: `resourcequotas`.
pub const RESOURCE_QUOTA: ResourceKind = ResourceKind {
    kind: "ResourceQuota",
    plural: "resourcequotas",
    singular: "resourcequota",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["quota"],
};

/// `LimitRange`: `limitranges`.
pub const LIMIT_RANGE: ResourceKind = ResourceKind {
    kind: "LimitRange",
    plural: "limitranges",
    singular: "limitrange",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["limits"],
};

/// `ServiceAccount`: `serviceaccounts`.
pub const SERVICE_ACCOUNT: ResourceKind = ResourceKind {
    kind: "ServiceAccount",
    plural: "serviceaccounts",
    singular: "serviceaccount",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["sa"],
};

/// `PersistentVolumeClaim`: `persistentvolumeclaims`.
pub const PERSISTENT_VOLUME_CLAIM: ResourceKind = ResourceKind {
    kind: "PersistentVolumeClaim",
    plural: "persistentvolumeclaims",
    singular: "persistentvolumeclaim",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["pvc"],
};

/// `StorageClass`: `storageclasses`.storage.k8s.io.
pub const STORAGE_CLASS: ResourceKind = ResourceKind {
    kind: "StorageClass",
    plural: "storageclasses",
    singular: "storageclass",
    group: "storage.k8s.io",
    version: "v1",
    api_version: "storage.k8s.io/v1",
    namespaced: false,
    short_names: &["sc"],
};

/// `Ingress`: `ingresses`.networking.k8s.io.
pub const INGRESS: ResourceKind = ResourceKind {
    kind: "Ingress",
    plural: "ingresses",
    singular: "ingress",
    group: "networking.k8s.io",
    version: "v1",
    api_version: "networking.k8s.io/v1",
    namespaced: true,
    short_names: &["ing"],
};

/// `HorizontalPodAutoscaler`: `horizontalpodautoscalers`.autoscaling.
pub const HORIZONTAL_POD_AUTOSCALER: ResourceKind = ResourceKind {
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    group: "autoscaling",
    version: "v2",
    api_version: "autoscaling/v2",
    namespaced: true,
    short_names: &["hpa"],
};

/// `Role`: `roles`.rbac.authorization.k8s.io.
pub const ROLE: ResourceKind = ResourceKind {
    kind: "Role",
    plural: "roles",
    singular: "role",
    group: "rbac.authorization.k8s.io",
    version: "v1",
    api_version: "rbac.authorization.k8s.io/v1",
    namespaced: true,
    short_names: &[],
};

/// `RoleBinding`: `rolebindings`.rbac.authorization.k8s.io.
pub const ROLE_BINDING: ResourceKind = ResourceKind {
    kind: "RoleBinding",
    plural: "rolebindings",
    singular: "rolebinding",
    group: "rbac.authorization.k8s.io",
    version: "v1",
    api_version: "rbac.authorization.k8s.io/v1",
    namespaced: true,
    short_names: &[],
};

/// `ClusterRole`: `clusterroles`.rbac.authorization.k8s.io.
pub const CLUSTER_ROLE: ResourceKind = ResourceKind {
    kind: "ClusterRole",
    plural: "clusterroles",
    singular: "clusterrole",
    group: "rbac.authorization.k8s.io",
    version: "v1",
    api_version: "rbac.authorization.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `ClusterRoleBinding`: `clusterrolebindings`.rbac.authorization.k8s.io.
pub const CLUSTER_ROLE_BINDING: ResourceKind = ResourceKind {
    kind: "ClusterRoleBinding",
    plural: "clusterrolebindings",
    singular: "clusterrolebinding",
    group: "rbac.authorization.k8s.io",
    version: "v1",
    api_version: "rbac.authorization.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `IngressClass`: `ingressclasses`.networking.k8s.io.
pub const INGRESS_CLASS: ResourceKind = ResourceKind {
    kind: "IngressClass",
    plural: "ingressclasses",
    singular: "ingressclass",
    group: "networking.k8s.io",
    version: "v1",
    api_version: "networking.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `ValidatingWebhookConfiguration`: `validatingwebhookconfigurations`.admissionregistration.k8s.io.
pub const VALIDATING_WEBHOOK_CONFIGURATION: ResourceKind = ResourceKind {
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    singular: "validatingwebhookconfiguration",
    group: "admissionregistration.k8s.io",
    version: "v1",
    api_version: "admissionregistration.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `MutatingWebhookConfiguration`: `mutatingwebhookconfigurations`.admissionregistration.k8s.io.
pub const MUTATING_WEBHOOK_CONFIGURATION: ResourceKind = ResourceKind {
    kind: "MutatingWebhookConfiguration",
    plural: "mutatingwebhookconfigurations",
    singular: "mutatingwebhookconfiguration",
    group: "admissionregistration.k8s.io",
    version: "v1",
    api_version: "admissionregistration.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `ValidatingAdmissionPolicy`: `validatingadmissionpolicies`.admissionregistration.k8s.io.
pub const VALIDATING_ADMISSION_POLICY: ResourceKind = ResourceKind {
    kind: "ValidatingAdmissionPolicy",
    plural: "validatingadmissionpolicies",
    singular: "validatingadmissionpolicy",
    group: "admissionregistration.k8s.io",
    version: "v1",
    api_version: "admissionregistration.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `ValidatingAdmissionPolicyBinding`: `validatingadmissionpolicybindings`.admissionregistration.k8s.io.
pub const VALIDATING_ADMISSION_POLICY_BINDING: ResourceKind = ResourceKind {
    kind: "ValidatingAdmissionPolicyBinding",
    plural: "validatingadmissionpolicybindings",
    singular: "validatingadmissionpolicybinding",
    group: "admissionregistration.k8s.io",
    version: "v1",
    api_version: "admissionregistration.k8s.io/v1",
    namespaced: false,
    short_names: &[],
};

/// `CustomResourceDefinition`: `customresourcedefinitions`.apiextensions.k8s.io.
pub const CUSTOM_RESOURCE_DEFINITION: ResourceKind = ResourceKind {
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    singular: "customresourcedefinition",
    group: "apiextensions.k8s.io",
    version: "v1",
    api_version: "apiextensions.k8s.io/v1",
    namespaced: false,
    short_names: &["crd", "crds"],
};

/// Every built-in kind, in the order the server's discovery lists them.
pub const KINDS: &[ResourceKind] = &[
    NODE,
    POD,
    NAMESPACE,
    EVENT,
    REPLICATION_CONTROLLER,
    DEPLOYMENT,
    REPLICA_SET,
    STATEFUL_SET,
    DAEMON_SET,
    CONTROLLER_REVISION,
    JOB,
    POD_DISRUPTION_BUDGET,
    LEASE,
    PRIORITY_CLASS,
    CRON_JOB,
    SERVICE,
    CONFIG_MAP,
    SECRET,
    RESOURCE_QUOTA,
    LIMIT_RANGE,
    SERVICE_ACCOUNT,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    INGRESS,
    HORIZONTAL_POD_AUTOSCALER,
    ROLE,
    ROLE_BINDING,
    CLUSTER_ROLE,
    CLUSTER_ROLE_BINDING,
    INGRESS_CLASS,
    VALIDATING_WEBHOOK_CONFIGURATION,
    MUTATING_WEBHOOK_CONFIGURATION,
    VALIDATING_ADMISSION_POLICY,
    VALIDATING_ADMISSION_POLICY_BINDING,
    CUSTOM_RESOURCE_DEFINITION,
];

/// The built-in kind named `kind` (`ReplicaSet`).
pub fn by_kind(kind: &str) -> Option<&'static ResourceKind> {
    KINDS.iter().find(|k| k.kind == kind)
}

/// The built-in kind whose resource is `plural` (`replicasets`), in any group.
pub fn by_plural(plural: &str) -> Option<&'static ResourceKind> {
    KINDS.iter().find(|k| k.plural == plural)
}

/// The built-in kind whose singular is `singular` (`replicaset`).
pub fn by_singular(singular: &str) -> Option<&'static ResourceKind> {
    KINDS.iter().find(|k| k.singular == singular)
}

/// The built-in kind a kubectl resource argument names: its singular, its plural or one of its
/// short names (`replicaset`, `replicasets`, `rs`), lowercase.
pub fn by_name(name: &str) -> Option<&'static ResourceKind> {
    KINDS
        .iter()
        .find(|k| k.singular == name || k.plural == name || k.short_names.contains(&name))
}

#[cfg(test)]
mod tests;
