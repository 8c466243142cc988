//! Node conditions → taints: the node-lifecycle controller's tainting passes.
//!
//! Upstream `pkg/controller/nodelifecycle/node_lifecycle_controller.go` (v1.35):
//! `nodeConditionToTaintKeyStatusMap`, `doNoScheduleTaintingPass`, `processTaintBaseEviction`,
//! `doNoExecuteTaintingPass`, `markNodeAsReachable`, and `SwapNodeControllerTaint`
//! (`pkg/controller/util/node`) with the taint helpers of `pkg/util/taints`.

use k8s_openapi::api::core::v1::{Node, NodeCondition, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use crate::taint::{
    NO_EXECUTE, NO_SCHEDULE, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY, TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE, match_taint, new_taint,
};

/// The `Ready` node condition type.
pub const CONDITION_READY: &str = "Ready";
/// The `MemoryPressure` node condition type.
pub const CONDITION_MEMORY_PRESSURE: &str = "MemoryPressure";
/// The `DiskPressure` node condition type.
pub const CONDITION_DISK_PRESSURE: &str = "DiskPressure";
/// The `NetworkUnavailable` node condition type.
pub const CONDITION_NETWORK_UNAVAILABLE: &str = "NetworkUnavailable";
/// The `PIDPressure` node condition type.
pub const CONDITION_PID_PRESSURE: &str = "PIDPressure";
/// What [`CONDITION_TAINTS`] names in its `condition` column for `spec.unschedulable: true`.
pub const SPEC_UNSCHEDULABLE: &str = "spec.unschedulable";

/// One row of the controller's condition → taint table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConditionTaint {
    /// The node condition type, or [`SPEC_UNSCHEDULABLE`].
    pub condition: &'static str,
    /// The condition status that triggers the taint (`"true"` for `spec.unschedulable`).
    pub status: &'static str,
    /// The taint key.
    pub key: &'static str,
    /// The taint effect.
    pub effect: &'static str,
}

const fn row(
    condition: &'static str,
    status: &'static str,
    key: &'static str,
    effect: &'static str,
) -> ConditionTaint {
    ConditionTaint {
        condition,
        status,
        key,
        effect,
    }
}

/// Every taint the node-lifecycle controller owns, with what triggers it: first the
/// `NoSchedule` ones of `doNoScheduleTaintingPass` (upstream's map plus `spec.unschedulable`),
/// then the two mutually exclusive `NoExecute` ones. Printable as a table.
pub const CONDITION_TAINTS: &[ConditionTaint] = &[
    row(CONDITION_READY, "False", TAINT_NODE_NOT_READY, NO_SCHEDULE),
    row(
        CONDITION_READY,
        "Unknown",
        TAINT_NODE_UNREACHABLE,
        NO_SCHEDULE,
    ),
    row(
        CONDITION_MEMORY_PRESSURE,
        "True",
        TAINT_NODE_MEMORY_PRESSURE,
        NO_SCHEDULE,
    ),
    row(
        CONDITION_DISK_PRESSURE,
        "True",
        TAINT_NODE_DISK_PRESSURE,
        NO_SCHEDULE,
    ),
    row(
        CONDITION_NETWORK_UNAVAILABLE,
        "True",
        TAINT_NODE_NETWORK_UNAVAILABLE,
        NO_SCHEDULE,
    ),
    row(
        CONDITION_PID_PRESSURE,
        "True",
        TAINT_NODE_PID_PRESSURE,
        NO_SCHEDULE,
    ),
    row(
        SPEC_UNSCHEDULABLE,
        "true",
        TAINT_NODE_UNSCHEDULABLE,
        NO_SCHEDULE,
    ),
    row(CONDITION_READY, "False", TAINT_NODE_NOT_READY, NO_EXECUTE),
    row(
        CONDITION_READY,
        "Unknown",
        TAINT_NODE_UNREACHABLE,
        NO_EXECUTE,
    ),
];

/// The `NoSchedule` rows: upstream's `nodeConditionToTaintKeyStatusMap`.
fn condition_map() -> impl Iterator<Item = &'static ConditionTaint> {
    CONDITION_TAINTS
        .iter()
        .filter(|r| r.effect == NO_SCHEDULE && r.condition != SPEC_UNSCHEDULABLE)
}

fn conditions(node: &Node) -> &[NodeCondition] {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default()
}

fn taints(node: &Node) -> &[Taint] {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
}

/// Whether `key` is a `NoSchedule` taint key the controller reconciles (upstream's
/// `taintKeyToNodeConditionMap` keys plus `node.kubernetes.io/unschedulable`).
pub fn is_controller_no_schedule_key(key: &str) -> bool {
    // Every such key is under `node.kubernetes.io/`: a user's taint is told apart by its prefix
    // alone (the controller asks this of every taint of every node, at every pass).
    key.starts_with(CONTROLLER_KEY_PREFIX)
        && (key == TAINT_NODE_UNSCHEDULABLE || condition_map().any(|r| r.key == key))
}

/// The prefix of every taint key the node-lifecycle controller reconciles.
const CONTROLLER_KEY_PREFIX: &str = "node.kubernetes.io/";

/// The `NoSchedule` taints `doNoScheduleTaintingPass` wants on `node` (Kubernetes v1.35),
/// without `timeAdded`, in upstream's order:
///
/// 1. for each of `status.conditions`, in the node's own order, the taint mapped from its type
///    and status: `Ready` `False` → `not-ready`, `Ready` `Unknown` → `unreachable`,
///    `MemoryPressure`/`DiskPressure`/`NetworkUnavailable`/`PIDPressure` `True` → the matching
///    pressure taint (other statuses, including `Ready` `True`, give nothing);
/// 2. then `node.kubernetes.io/unschedulable` if `spec.unschedulable` is true.
pub fn no_schedule_taints_for(node: &Node) -> Vec<Taint> {
    let mut out: Vec<Taint> = conditions(node)
        .iter()
        .filter_map(|c| {
            condition_map()
                .find(|r| r.condition == c.type_ && r.status == c.status)
                .map(|r| new_taint(r.key, "", NO_SCHEDULE))
        })
        .collect();
    if node.spec.as_ref().and_then(|s| s.unschedulable) == Some(true) {
        out.push(new_taint(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE));
    }
    out
}

/// The first `Ready` condition's status (upstream `GetNodeCondition`), if any.
fn ready_status(node: &Node) -> Option<&str> {
    conditions(node)
        .iter()
        .find(|c| c.type_ == CONDITION_READY)
        .map(|c| c.status.as_str())
}

/// The `NoExecute` taint the controller wants on `node` (`processTaintBaseEviction`,
/// `doNoExecuteTaintingPass`, v1.35), without `timeAdded`:
///
/// 1. `Ready` `False` → `node.kubernetes.io/not-ready:NoExecute`;
/// 2. `Ready` `Unknown` → `node.kubernetes.io/unreachable:NoExecute`;
/// 3. anything else (`True`, another status, no `Ready` condition) → none.
///
/// The two are mutually exclusive: each one's presence means the other is removed.
pub fn no_execute_taint_for(node: &Node) -> Option<Taint> {
    match ready_status(node)? {
        "False" => Some(new_taint(TAINT_NODE_NOT_READY, "", NO_EXECUTE)),
        "Unknown" => Some(new_taint(TAINT_NODE_UNREACHABLE, "", NO_EXECUTE)),
        _ => None,
    }
}

/// `SwapNodeControllerTaint`: `add` (given `timeAdded = now`, through upstream `AddOrUpdateTaint`:
/// replace in place the taint with the same key and effect, else append), then `remove`
/// (through `RemoveTaint`: drop every taint with the same key and effect).
fn swap(taints: &mut Vec<Taint>, add: &[Taint], remove: &[Taint], now: Timestamp) {
    for t in add {
        let t = Taint {
            time_added: Some(Time(now)),
            ..t.clone()
        };
        match taints.iter_mut().find(|e| match_taint(e, &t)) {
            Some(existing) => *existing = t,
            None => taints.push(t),
        }
    }
    taints.retain(|e| !remove.iter().any(|r| match_taint(e, r)));
}

/// The node's whole taint list once the node-lifecycle controller has caught up with its
/// conditions (Kubernetes v1.35): the `NoSchedule` pass, then the `NoExecute` pass.
///
/// `NoSchedule` pass (`doNoScheduleTaintingPass`):
/// 1. wanted = [`no_schedule_taints_for`]; owned = the node's `NoSchedule` taints whose key is a
///    controller key ([`is_controller_no_schedule_key`]);
/// 2. taints are compared by key and effect only (`TaintSetDiff`): wanted ones missing are
///    appended with `timeAdded = now`, owned ones not wanted are removed; present ones (even with
///    a value or an old `timeAdded`) are left alone. User taints and other effects are never touched.
///
/// `NoExecute` pass (`processTaintBaseEviction`, `doNoExecuteTaintingPass`, `markNodeAsReachable`):
/// 3. `Ready` `False`: `not-ready:NoExecute` is added with `timeAdded = now` unless present, and
///    `unreachable:NoExecute` removed; `Ready` `Unknown`: the reverse;
/// 4. `Ready` `True`: both are removed; no `Ready` condition or another status: untouched.
///
/// Added taints go to the end, removed ones leave the rest in order. Not modelled: the grace
/// periods and per-zone rate limiting before the first `NoExecute` taint (the conditions are taken
/// as already observed), and the `timeAdded` refresh a restarted controller gives an existing
/// `NoExecute` taint when it re-queues the node.
pub fn reconcile_condition_taints(node: &Node, now: Timestamp) -> Vec<Taint> {
    let mut out = taints(node).to_vec();

    let wanted = no_schedule_taints_for(node);
    let owned: Vec<Taint> = out
        .iter()
        .filter(|t| t.effect == NO_SCHEDULE && is_controller_no_schedule_key(&t.key))
        .cloned()
        .collect();
    let to_add: Vec<Taint> = wanted
        .iter()
        .filter(|w| !owned.iter().any(|o| match_taint(o, w)))
        .cloned()
        .collect();
    let to_remove: Vec<Taint> = owned
        .iter()
        .filter(|o| !wanted.iter().any(|w| match_taint(o, w)))
        .cloned()
        .collect();
    swap(&mut out, &to_add, &to_remove, now);

    let not_ready = new_taint(TAINT_NODE_NOT_READY, "", NO_EXECUTE);
    let unreachable = new_taint(TAINT_NODE_UNREACHABLE, "", NO_EXECUTE);
    let (add, remove) = match ready_status(node) {
        Some("False") => (Some(not_ready), vec![unreachable]),
        Some("Unknown") => (Some(unreachable), vec![not_ready]),
        Some("True") => (None, vec![not_ready, unreachable]),
        _ => (None, Vec::new()),
    };
    let add: Vec<Taint> = add
        .into_iter()
        .filter(|a| !out.iter().any(|e| match_taint(e, a)))
        .collect();
    swap(&mut out, &add, &remove, now);
    out
}

#[cfg(test)]
mod tests;
