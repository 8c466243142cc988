//! Reading and writing a node's conditions and controller taints: the `not-ready` and
//! `unreachable` taints swapped in one update, and the `NoSchedule` condition taints (after
//! upstream `pkg/controller/nodelifecycle/node_lifecycle_controller.go` `doNoScheduleTaintingPass`
//! and `markNodeForTainting`/`swapNodeControllerTaint`, v1.35).

use super::*;

/// Simulated time as a Kubernetes timestamp: `now` milliseconds after the Unix epoch.
pub fn sim_timestamp(now: Millis) -> Timestamp {
    Timestamp::from_millisecond(now).unwrap_or(Timestamp::UNIX_EPOCH)
}

pub(super) fn conditions(cluster: &Cluster, node: NodeId) -> &[NodeCondition] {
    cluster
        .nodes
        .get(node)
        .and_then(|n| n.node.status.as_ref())
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default()
}

/// The node's conditions, to change: the change is recorded ([`Cluster::touch_node`]).
pub(super) fn conditions_mut(
    cluster: &mut Cluster,
    node: NodeId,
) -> Option<&mut Vec<NodeCondition>> {
    cluster.touch_node(node);
    let n = cluster.nodes.get_mut(node)?;
    Some(
        std::sync::Arc::make_mut(&mut n.node)
            .status
            .get_or_insert_with(Default::default)
            .conditions
            .get_or_insert_with(Vec::new),
    )
}

/// The first `Ready` condition's status (`GetNodeCondition`).
pub(super) fn ready_status(cluster: &Cluster, node: NodeId) -> Option<String> {
    conditions(cluster, node)
        .iter()
        .find(|c| c.type_ == CONDITION_READY)
        .map(|c| c.status.clone())
}

pub(super) fn has_taint(cluster: &Cluster, node: NodeId, key: &str, effect: &str) -> bool {
    cluster
        .nodes
        .get(node)
        .is_some_and(|n| n.taints.iter().any(|t| t.key == key && t.effect == effect))
}

/// `SwapNodeControllerTaint` (`pkg/controller/util/node`, v1.35):
/// 1. `add` gets `timeAdded = now` and goes through `AddOrUpdateTaint` (in place, else appended);
/// 2. every taint with the key and effect of one in `remove` is dropped.
pub(super) fn swap_taints(
    cluster: &mut Cluster,
    node: NodeId,
    add: &[Taint],
    remove: &[Taint],
    now: Millis,
) {
    let Some(info) = cluster.nodes.get(node) else {
        return;
    };
    let removes = |t: &Taint| remove.iter().any(|r| match_taint(t, r));
    // Most passes change nothing: the list is copied only when it changes.
    let added = if add.is_empty() {
        None
    } else {
        add_controller_taints(&info.taints, add, sim_timestamp(now))
    };
    let mut taints = match added {
        Some(taints) => taints,
        None if info.taints.iter().any(removes) => info.taints.clone(),
        None => return,
    };
    taints.retain(|t| !removes(t));
    if taints != info.taints {
        cluster.set_node_taints(node, taints);
    }
}

/// `doNoScheduleTaintingPass`'s diff for one node: (to add, to remove).
pub(super) fn no_schedule_diff(cluster: &Cluster, node: NodeId) -> (Vec<Taint>, Vec<Taint>) {
    let Some(info) = cluster.nodes.get(node) else {
        return (Vec::new(), Vec::new());
    };
    let wanted = no_schedule_taints_for(&info.node);
    let owned: Vec<&Taint> = info
        .taints
        .iter()
        .filter(|t| t.effect == NO_SCHEDULE && is_controller_no_schedule_key(&t.key))
        .collect();
    let add = wanted
        .iter()
        .filter(|w| !owned.iter().any(|o| match_taint(o, w)))
        .cloned()
        .collect();
    let remove = owned
        .into_iter()
        .filter(|o| !wanted.iter().any(|w| match_taint(o, w)))
        .cloned()
        .collect();
    (add, remove)
}

pub(super) fn not_ready_taint() -> Taint {
    new_taint(TAINT_NODE_NOT_READY, "", NO_EXECUTE)
}

pub(super) fn unreachable_taint() -> Taint {
    new_taint(TAINT_NODE_UNREACHABLE, "", NO_EXECUTE)
}

pub(super) fn node_object(cluster: &Cluster, node: NodeId) -> (String, String) {
    let name = cluster
        .nodes
        .get(node)
        .map(|n| n.name.clone())
        .unwrap_or_default();
    (format!("Node/{name}"), name)
}
