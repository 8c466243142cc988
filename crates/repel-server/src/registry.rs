//! The resources this server serves: names, kinds, groups, scopes, as discovery lists them.
//!
//! The built-in ones are a fixed table; those that CustomResourceDefinitions define live in a
//! [`Registry`] (one per server, in [`crate::App`]) that is rebuilt from the stored CRDs after
//! every CRD write ([`crate::crd`]).
//!
//! # Layout
//! - this file: [`ApiResource`] and the built-in table (each row's names from
//!   [`repel_core::kinds`], what is served of it here).
//! - `tests`: the kinds table held against discovery.
//! - `served`: the [`Registry`] of every served resource, built in and custom; version
//!   priority.

mod served;

use std::sync::{Arc, LazyLock};

use repel_core::kinds::{self, ResourceKind};
use serde_json::Value;

pub use served::{Registry, compare_versions};

/// One served resource at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiResource {
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

impl ApiResource {
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

/// A built-in resource: its names (one row of [`kinds::KINDS`]) and what this server serves of
/// it.
#[derive(Debug, Clone, Copy)]
struct Builtin {
    names: &'static ResourceKind,
    subresources: &'static [&'static str],
    in_all: bool,
    categories: &'static [&'static str],
}

impl Builtin {
    const fn with_categories(mut self, categories: &'static [&'static str]) -> Builtin {
        self.categories = categories;
        self
    }

    fn resource(&self) -> ApiResource {
        let mut categories = strings(self.categories);
        if self.in_all {
            categories.insert(0, "all".to_string());
        }
        let n = self.names;
        ApiResource {
            group: n.group.to_string(),
            version: n.version.to_string(),
            name: n.plural.to_string(),
            singular: n.singular.to_string(),
            kind: n.kind.to_string(),
            namespaced: n.namespaced,
            short_names: strings(n.short_names),
            subresources: strings(self.subresources),
            categories,
            custom: None,
        }
    }
}

/// The built-in resource `names` with its subresources, in the `all` category or not.
const fn r(
    names: &'static ResourceKind,
    subresources: &'static [&'static str],
    in_all: bool,
) -> Builtin {
    Builtin {
        names,
        subresources,
        in_all,
        categories: &[],
    }
}

/// Every built-in resource, in discovery order ([`kinds::KINDS`]' order).
const RESOURCES: &[Builtin] = &[
    r(&kinds::NODE, &["status"], false),
    r(&kinds::POD, &["binding", "eviction", "status"], true),
    r(&kinds::NAMESPACE, &["status"], false),
    r(&kinds::EVENT, &[], false),
    r(&kinds::REPLICATION_CONTROLLER, &["scale", "status"], true),
    r(&kinds::DEPLOYMENT, &["scale", "status"], true),
    r(&kinds::REPLICA_SET, &["scale", "status"], true),
    r(&kinds::STATEFUL_SET, &["scale", "status"], true),
    r(&kinds::DAEMON_SET, &["status"], true),
    r(&kinds::CONTROLLER_REVISION, &[], false),
    r(&kinds::JOB, &["status"], true),
    r(&kinds::POD_DISRUPTION_BUDGET, &["status"], false),
    r(&kinds::LEASE, &[], false),
    r(&kinds::PRIORITY_CLASS, &[], false),
    r(&kinds::CRON_JOB, &["status"], true),
    // Kinds a real manifest holds, stored and listed with kubectl's columns; nothing acts on
    // them beyond what taints and scheduling need.
    r(&kinds::SERVICE, &["status"], true),
    r(&kinds::CONFIG_MAP, &[], false),
    r(&kinds::SECRET, &[], false),
    r(&kinds::RESOURCE_QUOTA, &["status"], false),
    r(&kinds::LIMIT_RANGE, &[], false),
    r(&kinds::SERVICE_ACCOUNT, &[], false),
    r(&kinds::PERSISTENT_VOLUME_CLAIM, &["status"], false),
    r(&kinds::STORAGE_CLASS, &[], false),
    r(&kinds::INGRESS, &["status"], false),
    r(&kinds::HORIZONTAL_POD_AUTOSCALER, &["status"], true),
    r(&kinds::ROLE, &[], false),
    r(&kinds::ROLE_BINDING, &[], false),
    r(&kinds::CLUSTER_ROLE, &[], false),
    r(&kinds::CLUSTER_ROLE_BINDING, &[], false),
    r(&kinds::INGRESS_CLASS, &[], false),
    // Stored only: no webhook is ever called.
    r(&kinds::VALIDATING_WEBHOOK_CONFIGURATION, &[], false).with_categories(&["api-extensions"]),
    r(&kinds::MUTATING_WEBHOOK_CONFIGURATION, &[], false).with_categories(&["api-extensions"]),
    // Served and enforced (crate::policy): CEL validation of every write they match.
    r(&kinds::VALIDATING_ADMISSION_POLICY, &["status"], false).with_categories(&["api-extensions"]),
    r(&kinds::VALIDATING_ADMISSION_POLICY_BINDING, &[], false).with_categories(&["api-extensions"]),
    r(&kinds::CUSTOM_RESOURCE_DEFINITION, &["status"], false).with_categories(&["api-extensions"]),
];

/// The built-in resources, as served.
static BUILTIN: LazyLock<Vec<Arc<ApiResource>>> =
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
pub fn builtins() -> &'static [Arc<ApiResource>] {
    &BUILTIN
}

/// Finds a built-in resource by group and plural name.
pub fn find(group: &str, name: &str) -> Option<Arc<ApiResource>> {
    BUILTIN
        .iter()
        .find(|r| r.group == group && r.name == name)
        .cloned()
}

#[cfg(test)]
mod tests;
