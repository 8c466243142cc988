//! Changes [`Cluster`] has no method for yet — a node's labels, a node's deletion — done by
//! rebuilding the node list and its indexes from the node objects (ids of pods stay valid).

use std::collections::BTreeMap;

use crate::cluster::{Cluster, NodeId, PodId};

/// Rebuilds `cluster`'s nodes and indexes from each node's object, leaving out `drop`.
///
/// Node ids after the dropped one shift down by one; pods follow their node. Pods bound to the
/// dropped node are deleted (what the pod garbage collector does to pods of a node that no
/// longer exists) and returned.
fn rebuild(cluster: &mut Cluster, drop: Option<NodeId>) -> Vec<PodId> {
    let old = std::mem::take(cluster);
    let mut new = Cluster::new();
    new.namespaces = old.namespaces;
    new.pdbs = old.pdbs;
    let mut map: Vec<Option<NodeId>> = vec![None; old.nodes.len()];
    for (id, info) in old.nodes.into_iter().enumerate() {
        if Some(id) == drop {
            continue;
        }
        let nid = new.add_node(std::sync::Arc::unwrap_or_clone(info.node));
        if let Some(n) = new.nodes.get_mut(nid) {
            n.pods = info.pods;
            n.requested = info.requested;
            n.non_zero_requested = info.non_zero_requested;
            n.used_ports = info.used_ports;
        }
        map[id] = Some(nid);
    }
    new.pods = old.pods;
    let mut gone = Vec::new();
    for (pid, p) in new.pods.iter_mut().enumerate() {
        p.nominated = p.nominated.and_then(|n| map.get(n).copied().flatten());
        if let Some(n) = p.node {
            match map.get(n).copied().flatten() {
                Some(nn) => p.node = Some(nn),
                None => {
                    p.node = None;
                    if !p.deleted {
                        p.deleted = true;
                        gone.push(pid);
                    }
                }
            }
        }
    }
    *cluster = new;
    gone
}

/// Replaces a node's labels (object and label index).
pub(super) fn set_node_labels(
    cluster: &mut Cluster,
    node: NodeId,
    labels: BTreeMap<String, String>,
) {
    let Some(n) = cluster.nodes.get_mut(node) else {
        return;
    };
    std::sync::Arc::make_mut(&mut n.node).metadata.labels = (!labels.is_empty()).then_some(labels);
    rebuild(cluster, None);
}

/// Deletes a node; returns the pods that were bound to it, now deleted.
pub(super) fn delete_node(cluster: &mut Cluster, node: NodeId) -> Vec<PodId> {
    rebuild(cluster, Some(node))
}
