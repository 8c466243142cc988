//! What the API server adds to an object and repel does not read, dropped: an object as it
//! would be written by hand (kubectl's `last-applied-configuration` and the server's
//! metadata noise gone), plus what repel reads of its status.

use crate::tree::Tree;

/// Metadata noise: what the API server adds and no manifest holds.
const METADATA_NOISE: &[&str] = &["managedFields", "resourceVersion", "generation", "selfLink"];

/// kubectl's record of the last applied manifest: a copy of the object, noise here.
pub(super) const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A node's status fields repel does not read (large and changing). Its `images` are read
/// (ImageLocality scores the nodes holding a pod's images) and kept.
const NODE_STATUS_NOISE: &[&str] = &[
    "volumesInUse",
    "volumesAttached",
    "daemonEndpoints",
    "nodeInfo",
    "config",
    "runtimeHandlers",
    "features",
];

/// A pod's status fields repel reads; the rest (container statuses, IPs) is dropped.
const POD_STATUS_KEPT: &[&str] = &[
    "phase",
    "conditions",
    "reason",
    "message",
    "nominatedNodeName",
    "qosClass",
    "startTime",
];

/// Drops what the API server adds and repel does not read (see the module's docs).
pub fn strip(kind: &str, obj: &mut Tree) {
    if let Some(meta) = obj.get_mut("metadata") {
        if let Some(m) = meta.entries_mut() {
            m.retain(|(k, _)| !METADATA_NOISE.contains(&k.as_ref()));
        }
        let empty = match meta.get_mut("annotations") {
            Some(a) => {
                a.remove(LAST_APPLIED);
                matches!(a, Tree::Map(m) if m.is_empty())
            }
            None => false,
        };
        if empty {
            meta.remove("annotations");
        }
    }
    let status = obj.get_mut("status").and_then(Tree::entries_mut);
    match (kind, status) {
        ("Node", Some(status)) => status.retain(|(k, _)| !NODE_STATUS_NOISE.contains(&k.as_ref())),
        ("Pod", Some(status)) => status.retain(|(k, _)| POD_STATUS_KEPT.contains(&k.as_ref())),
        _ => {}
    }
}
