//! What the API server's defaulting (`SetDefaults_*`, pkg/apis/core/v1/defaults.go, v1.35) sets
//! on the objects repel reads, where it changes what the scheduler or a controller sees. Applied
//! to every object before anything looks at it; pods' own defaults are
//! [`crate::admission::set_defaults_pod`].

use k8s_openapi::api::core::v1::{Namespace, Node};

/// The label the API server puts on every namespace (upstream `SetDefaults_Namespace`), which
/// `namespaceSelector`s match.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// Upstream `SetDefaults_NodeStatus`: a node status with `capacity` and no `allocatable` gets
/// `allocatable` equal to `capacity`. Returns whether it set it.
pub fn set_defaults_node_status(node: &mut Node) -> bool {
    let Some(status) = node.status.as_mut() else {
        return false;
    };
    if status.allocatable.is_some() {
        return false;
    }
    let Some(capacity) = status.capacity.clone() else {
        return false;
    };
    status.allocatable = Some(capacity);
    true
}

/// Upstream `SetDefaults_Namespace`: the label `kubernetes.io/metadata.name` is the namespace's
/// name (set, or corrected, on every create and update).
pub fn set_defaults_namespace(ns: &mut Namespace) {
    let Some(name) = ns.metadata.name.clone().filter(|n| !n.is_empty()) else {
        return;
    };
    ns.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(NAMESPACE_NAME_LABEL.to_string(), name);
}

#[cfg(test)]
mod tests;
