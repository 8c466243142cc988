//! The resources this server serves: names, kinds, groups, scopes, as discovery lists them.
//!
//! The built-in ones are a fixed table; those that CustomResourceDefinitions define live in a
//! [`Registry`] (one per server, in [`crate::App`]) that is rebuilt from the stored CRDs after
//! every CRD write ([`crate::crd`]).
//!
//! # Layout
//! - `mod.rs`: [`Resource`] and the built-in table.
//! - `registry`: the [`Registry`] of every served resource, built in and custom; version
//!   priority.

mod registry;

use std::sync::{Arc, LazyLock};

use serde_json::Value;

pub use registry::{Registry, compare_versions};

/// One served resource at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// API group ("" for core).
    pub group: String,
    /// Version (`v1`; `v2` for HorizontalPodAutoscalers).
    pub version: String,
    /// Plural name (`pods`).
    pub name: String,
    /// Singular name (`pod`).
    pub singular: String,
    /// Kind (`Pod`).
    pub kind: String,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// kubectl's short names.
    pub short_names: Vec<String>,
    /// Subresources (`status`, `binding`, `eviction`).
    pub subresources: Vec<String>,
    /// Categories (`all`: what `kubectl get all` lists).
    pub categories: Vec<String>,
    /// What a CustomResourceDefinition says of a custom resource (`None`: built in).
    pub custom: Option<Custom>,
}

/// A custom resource's definition beyond its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Custom {
    /// The CRD's name (`ippools.crd.projectcalico.org`), also the store's key for its objects
    /// (every served version shares them).
    pub crd: String,
    /// `spec.names.listKind`.
    pub list_kind: String,
    /// The version objects are stored at (`storage: true`).
    pub storage_version: String,
    /// This version's `additionalPrinterColumns`.
    pub columns: Vec<repel_api::table::PrinterColumn>,
    /// This version's `schema.openAPIV3Schema` (published in OpenAPI v3; objects are not
    /// validated against it).
    pub schema: Value,
    /// This version's `scale` subresource: where the replicas and the selector are.
    pub scale: Option<ScalePaths>,
    /// This version's `selectableFields` (`spec.color`): what a field selector may name
    /// besides `metadata.name` and `metadata.namespace`.
    pub selectable: Vec<String>,
}

/// A custom resource's `subresources.scale`: simple JSONPaths, split at the dots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalePaths {
    /// `specReplicasPath` (`.spec.replicas`).
    pub spec: Vec<String>,
    /// `statusReplicasPath` (`.status.replicas`).
    pub status: Vec<String>,
    /// `labelSelectorPath`, when given (`.status.selector`).
    pub selector: Option<Vec<String>>,
}

impl ScalePaths {
    /// The paths of a CRD version's `subresources.scale`.
    pub fn from_crd(scale: &Value) -> ScalePaths {
        let split = |key: &str| -> Option<Vec<String>> {
            scale.get(key).and_then(Value::as_str).map(|p| {
                p.trim_start_matches('.')
                    .split('.')
                    .map(str::to_string)
                    .collect()
            })
        };
        ScalePaths {
            spec: split("specReplicasPath").unwrap_or_default(),
            status: split("statusReplicasPath").unwrap_or_default(),
            selector: split("labelSelectorPath"),
        }
    }
}

/// The value at `path` in `obj`.
pub fn value_at<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, k| v.get(k.as_str()))
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

    /// `<Kind>List` (a custom resource's `listKind`).
    pub fn list_kind(&self) -> String {
        match &self.custom {
            Some(c) => c.list_kind.clone(),
            None => format!("{}List", self.kind),
        }
    }

    /// Where its objects are stored: the plural for a built-in resource, the CRD's name for a
    /// custom one (two CRDs may share a plural; every version of one shares its objects).
    pub fn key(&self) -> &str {
        match &self.custom {
            Some(c) => &c.crd,
            None => &self.name,
        }
    }

    /// Whether it has subresource `sub`.
    pub fn has_sub(&self, sub: &str) -> bool {
        self.subresources.iter().any(|s| s == sub)
    }

    /// Whether it is in the `all` category.
    pub fn in_all(&self) -> bool {
        self.categories.iter().any(|c| c == "all")
    }

    /// Whether a CustomResourceDefinition defines it.
    pub fn is_custom(&self) -> bool {
        self.custom.is_some()
    }
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// A built-in resource as the table below writes it.
#[derive(Debug, Clone, Copy)]
struct Builtin {
    group: &'static str,
    version: &'static str,
    name: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    subresources: &'static [&'static str],
    in_all: bool,
    categories: &'static [&'static str],
}

impl Builtin {
    const fn with_categories(mut self, categories: &'static [&'static str]) -> Builtin {
        self.categories = categories;
        self
    }

    fn resource(&self) -> Resource {
        let mut categories = strings(self.categories);
        if self.in_all {
            categories.insert(0, "all".to_string());
        }
        Resource {
            group: self.group.to_string(),
            version: self.version.to_string(),
            name: self.name.to_string(),
            singular: self.singular.to_string(),
            kind: self.kind.to_string(),
            namespaced: self.namespaced,
            short_names: strings(self.short_names),
            subresources: strings(self.subresources),
            categories,
            custom: None,
        }
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
) -> Builtin {
    Builtin {
        group,
        version: "v1",
        name,
        singular,
        kind,
        namespaced,
        short_names,
        subresources,
        in_all,
        categories: &[],
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
) -> Builtin {
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

/// Every built-in resource, in discovery order.
const RESOURCES: &[Builtin] = &[
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
        "",
        "replicationcontrollers",
        "replicationcontroller",
        "ReplicationController",
        true,
        &["rc"],
        &["scale", "status"],
        true,
    ),
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
    r(
        "apps",
        "controllerrevisions",
        "controllerrevision",
        "ControllerRevision",
        true,
        &[],
        &[],
        false,
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
        "resourcequotas",
        "resourcequota",
        "ResourceQuota",
        true,
        &["quota"],
        &["status"],
        false,
    ),
    r(
        "",
        "limitranges",
        "limitrange",
        "LimitRange",
        true,
        &["limits"],
        &[],
        false,
    ),
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
    r(
        "networking.k8s.io",
        "ingressclasses",
        "ingressclass",
        "IngressClass",
        false,
        &[],
        &[],
        false,
    ),
    // Stored only: no webhook is ever called.
    r(
        "admissionregistration.k8s.io",
        "validatingwebhookconfigurations",
        "validatingwebhookconfiguration",
        "ValidatingWebhookConfiguration",
        false,
        &[],
        &[],
        false,
    )
    .with_categories(&["api-extensions"]),
    r(
        "admissionregistration.k8s.io",
        "mutatingwebhookconfigurations",
        "mutatingwebhookconfiguration",
        "MutatingWebhookConfiguration",
        false,
        &[],
        &[],
        false,
    )
    .with_categories(&["api-extensions"]),
    // Served and enforced (crate::policy): CEL validation of every write they match.
    r(
        "admissionregistration.k8s.io",
        "validatingadmissionpolicies",
        "validatingadmissionpolicy",
        "ValidatingAdmissionPolicy",
        false,
        &[],
        &["status"],
        false,
    )
    .with_categories(&["api-extensions"]),
    r(
        "admissionregistration.k8s.io",
        "validatingadmissionpolicybindings",
        "validatingadmissionpolicybinding",
        "ValidatingAdmissionPolicyBinding",
        false,
        &[],
        &[],
        false,
    )
    .with_categories(&["api-extensions"]),
    r(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "customresourcedefinition",
        "CustomResourceDefinition",
        false,
        &["crd", "crds"],
        &["status"],
        false,
    )
    .with_categories(&["api-extensions"]),
];

/// The built-in resources, as served.
static BUILTIN: LazyLock<Vec<Arc<Resource>>> =
    LazyLock::new(|| RESOURCES.iter().map(|b| Arc::new(b.resource())).collect());

/// The groups built in besides core, in discovery order, each at its one version.
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
    ("admissionregistration.k8s.io", "v1"),
    ("apiextensions.k8s.io", "v1"),
];

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

/// The built-in resources.
pub fn builtins() -> &'static [Arc<Resource>] {
    &BUILTIN
}

/// Finds a built-in resource by group and plural name.
pub fn find(group: &str, name: &str) -> Option<Arc<Resource>> {
    BUILTIN
        .iter()
        .find(|r| r.group == group && r.name == name)
        .cloned()
}
