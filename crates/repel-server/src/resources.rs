//! The resources this server serves: names, kinds, groups, scopes, as discovery lists them.

/// One served resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    /// API group ("" for core).
    pub group: &'static str,
    /// Version (`v1`; `v2` for HorizontalPodAutoscalers).
    pub version: &'static str,
    /// Plural name (`pods`).
    pub name: &'static str,
    /// Singular name (`pod`).
    pub singular: &'static str,
    /// Kind (`Pod`).
    pub kind: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// kubectl's short names.
    pub short_names: &'static [&'static str],
    /// Subresources (`status`, `binding`, `eviction`).
    pub subresources: &'static [&'static str],
    /// Whether the resource is in the `all` category.
    pub in_all: bool,
}

impl Resource {
    /// `apiVersion` of its objects: `v1` or `group/v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The resource as upstream names it in messages: `pods`, `deployments.apps`.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.name.to_string()
        } else {
            format!("{}.{}", self.name, self.group)
        }
    }

    /// The kind as upstream names it in 422 messages: `Pod`, `Deployment.apps`.
    pub fn qualified_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.to_string()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }

    /// `<Kind>List`.
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }
}

#[allow(clippy::too_many_arguments)]
const fn r(
    group: &'static str,
    name: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    subresources: &'static [&'static str],
    in_all: bool,
) -> Resource {
    Resource {
        group,
        version: "v1",
        name,
        singular,
        kind,
        namespaced,
        short_names,
        subresources,
        in_all,
    }
}

/// [`r`] at another version than `v1`.
#[allow(clippy::too_many_arguments)]
const fn rv(
    group: &'static str,
    version: &'static str,
    name: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    subresources: &'static [&'static str],
    in_all: bool,
) -> Resource {
    let mut res = r(
        group,
        name,
        singular,
        kind,
        namespaced,
        short_names,
        subresources,
        in_all,
    );
    res.version = version;
    res
}

/// Every served resource.
pub const RESOURCES: &[Resource] = &[
    r(
        "",
        "nodes",
        "node",
        "Node",
        false,
        &["no"],
        &["status"],
        false,
    ),
    r(
        "",
        "pods",
        "pod",
        "Pod",
        true,
        &["po"],
        &["binding", "eviction", "status"],
        true,
    ),
    r(
        "",
        "namespaces",
        "namespace",
        "Namespace",
        false,
        &["ns"],
        &["status"],
        false,
    ),
    r("", "events", "event", "Event", true, &["ev"], &[], false),
    r(
        "apps",
        "deployments",
        "deployment",
        "Deployment",
        true,
        &["deploy"],
        &["scale", "status"],
        true,
    ),
    r(
        "apps",
        "replicasets",
        "replicaset",
        "ReplicaSet",
        true,
        &["rs"],
        &["scale", "status"],
        true,
    ),
    r(
        "apps",
        "statefulsets",
        "statefulset",
        "StatefulSet",
        true,
        &["sts"],
        &["scale", "status"],
        true,
    ),
    r(
        "apps",
        "daemonsets",
        "daemonset",
        "DaemonSet",
        true,
        &["ds"],
        &["status"],
        true,
    ),
    r("batch", "jobs", "job", "Job", true, &[], &["status"], true),
    r(
        "policy",
        "poddisruptionbudgets",
        "poddisruptionbudget",
        "PodDisruptionBudget",
        true,
        &["pdb"],
        &["status"],
        false,
    ),
    r(
        "coordination.k8s.io",
        "leases",
        "lease",
        "Lease",
        true,
        &[],
        &[],
        false,
    ),
    r(
        "scheduling.k8s.io",
        "priorityclasses",
        "priorityclass",
        "PriorityClass",
        false,
        &["pc"],
        &[],
        false,
    ),
    r(
        "batch",
        "cronjobs",
        "cronjob",
        "CronJob",
        true,
        &["cj"],
        &["status"],
        true,
    ),
    // Kinds a real manifest holds, stored and listed with kubectl's columns; nothing acts on
    // them beyond what taints and scheduling need.
    r(
        "",
        "services",
        "service",
        "Service",
        true,
        &["svc"],
        &["status"],
        true,
    ),
    r(
        "",
        "configmaps",
        "configmap",
        "ConfigMap",
        true,
        &["cm"],
        &[],
        false,
    ),
    r("", "secrets", "secret", "Secret", true, &[], &[], false),
    r(
        "",
        "serviceaccounts",
        "serviceaccount",
        "ServiceAccount",
        true,
        &["sa"],
        &[],
        false,
    ),
    r(
        "",
        "persistentvolumeclaims",
        "persistentvolumeclaim",
        "PersistentVolumeClaim",
        true,
        &["pvc"],
        &["status"],
        false,
    ),
    r(
        "storage.k8s.io",
        "storageclasses",
        "storageclass",
        "StorageClass",
        false,
        &["sc"],
        &[],
        false,
    ),
    r(
        "networking.k8s.io",
        "ingresses",
        "ingress",
        "Ingress",
        true,
        &["ing"],
        &["status"],
        false,
    ),
    rv(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "horizontalpodautoscaler",
        "HorizontalPodAutoscaler",
        true,
        &["hpa"],
        &["status"],
        true,
    ),
    r(
        "rbac.authorization.k8s.io",
        "roles",
        "role",
        "Role",
        true,
        &[],
        &[],
        false,
    ),
    r(
        "rbac.authorization.k8s.io",
        "rolebindings",
        "rolebinding",
        "RoleBinding",
        true,
        &[],
        &[],
        false,
    ),
    r(
        "rbac.authorization.k8s.io",
        "clusterroles",
        "clusterrole",
        "ClusterRole",
        false,
        &[],
        &[],
        false,
    ),
    r(
        "rbac.authorization.k8s.io",
        "clusterrolebindings",
        "clusterrolebinding",
        "ClusterRoleBinding",
        false,
        &[],
        &[],
        false,
    ),
];

/// The groups served besides core, in discovery order, each at its one version.
pub const GROUPS: &[(&str, &str)] = &[
    ("apps", "v1"),
    ("batch", "v1"),
    ("policy", "v1"),
    ("coordination.k8s.io", "v1"),
    ("scheduling.k8s.io", "v1"),
    ("autoscaling", "v2"),
    ("networking.k8s.io", "v1"),
    ("storage.k8s.io", "v1"),
    ("rbac.authorization.k8s.io", "v1"),
];

/// The version a group is served at (`None`: not served).
pub fn group_version(group: &str) -> Option<&'static str> {
    if group.is_empty() {
        return Some("v1");
    }
    GROUPS.iter().find(|(g, _)| *g == group).map(|(_, v)| *v)
}

/// The verbs of every top-level resource.
pub const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// Finds a resource by group and plural name.
pub fn find(group: &str, name: &str) -> Option<&'static Resource> {
    RESOURCES
        .iter()
        .find(|r| r.group == group && r.name == name)
}

/// Finds a resource by kind (for seeding from manifests): its group and version.
pub fn by_kind(api_version: &str, kind: &str) -> Option<&'static Resource> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    RESOURCES
        .iter()
        .find(|r| r.kind == kind && r.group == group && r.version == version)
}
