//! Taints: effects, well-known keys, upstream's `ToString`, and the set helpers the scheduler,
//! the kubelet and the taint-eviction controller call.

use k8s_openapi::api::core::v1::{Taint, Toleration};

use crate::gates::FeatureGates;
use crate::toleration::tolerates;

/// Effect `NoSchedule`: no new pod lands without a matching toleration.
pub const NO_SCHEDULE: &str = "NoSchedule";
/// Effect `PreferNoSchedule`: the scheduler scores the node lower.
pub const PREFER_NO_SCHEDULE: &str = "PreferNoSchedule";
/// Effect `NoExecute`: running pods that do not tolerate it are evicted.
pub const NO_EXECUTE: &str = "NoExecute";
/// The three effects, in upstream's order of its "supported values" lists.
pub const EFFECTS: [&str; 3] = [NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE];

/// `node.kubernetes.io/not-ready` (well_known_taints.go).
pub const TAINT_NODE_NOT_READY: &str = "node.kubernetes.io/not-ready";
/// `node.kubernetes.io/unreachable`.
pub const TAINT_NODE_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `node.kubernetes.io/unschedulable`.
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
/// `node.kubernetes.io/memory-pressure`.
pub const TAINT_NODE_MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
/// `node.kubernetes.io/disk-pressure`.
pub const TAINT_NODE_DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
/// `node.kubernetes.io/network-unavailable`.
pub const TAINT_NODE_NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";
/// `node.kubernetes.io/pid-pressure`.
pub const TAINT_NODE_PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";
/// `node.kubernetes.io/out-of-service`.
pub const TAINT_NODE_OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";

/// A taint with no value and no `timeAdded`.
pub fn new_taint(key: &str, value: &str, effect: &str) -> Taint {
    Taint {
        key: key.to_string(),
        value: (!value.is_empty()).then(|| value.to_string()),
        effect: effect.to_string(),
        time_added: None,
    }
}

/// Upstream `Taint.ToString`: `key=value:effect`, `key:effect` without a value, `key=value:`
/// without an effect, `key` with neither.
pub fn taint_to_string(taint: &Taint) -> String {
    let value = taint.value.as_deref().unwrap_or_default();
    match (value.is_empty(), taint.effect.is_empty()) {
        (true, true) => taint.key.clone(),
        (true, false) => format!("{}:{}", taint.key, taint.effect),
        (false, _) => format!("{}={}:{}", taint.key, value, taint.effect),
    }
}

/// Upstream `Taint.MatchTaint`: the same key and effect (the value is ignored). Taints are unique
/// on a node by this identity.
pub fn match_taint(a: &Taint, b: &Taint) -> bool {
    a.key == b.key && a.effect == b.effect
}

/// Upstream `TolerationsTolerateTaint`: whether any toleration tolerates the taint.
pub fn tolerations_tolerate_taint(
    tolerations: &[Toleration],
    taint: &Taint,
    gates: &FeatureGates,
) -> bool {
    tolerations.iter().any(|t| tolerates(t, taint, gates))
}

/// The index of the first toleration (in pod order) that tolerates the taint.
pub fn first_tolerating(
    tolerations: &[Toleration],
    taint: &Taint,
    gates: &FeatureGates,
) -> Option<usize> {
    tolerations.iter().position(|t| tolerates(t, taint, gates))
}

/// Whether a taint blocks scheduling: upstream `DoNotScheduleTaintsFilterFunc`, effect
/// `NoSchedule` or `NoExecute`.
pub fn is_do_not_schedule(taint: &Taint) -> bool {
    taint.effect == NO_SCHEDULE || taint.effect == NO_EXECUTE
}

/// Upstream `FindMatchingUntoleratedTaint` (component-helpers, v1.35):
///
/// 1. Keep the taints for which `filter` is true.
/// 2. Return the first kept taint, in node order, that no toleration tolerates.
/// 3. `None` when every kept taint is tolerated.
pub fn find_matching_untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    filter: impl Fn(&Taint) -> bool,
    gates: &FeatureGates,
) -> Option<&'a Taint> {
    taints
        .iter()
        .filter(|t| filter(t))
        .find(|t| !tolerations_tolerate_taint(tolerations, t, gates))
}

/// The scheduler's TaintToleration score input (upstream `countIntolerableTaintsPreferNoSchedule`
/// after PreScore's `getAllTolerationPreferNoSchedule`, v1.35):
///
/// 1. Keep only the pod's tolerations whose effect is empty or `PreferNoSchedule`.
/// 2. Count the node's `PreferNoSchedule` taints none of those tolerates.
///
/// A `NoSchedule` toleration matching key and value does not reduce the count.
pub fn count_intolerable_prefer_no_schedule(
    taints: &[Taint],
    tolerations: &[Toleration],
    gates: &FeatureGates,
) -> usize {
    let soft: Vec<&Toleration> = tolerations
        .iter()
        .filter(|t| {
            matches!(
                t.effect.as_deref(),
                None | Some("") | Some(PREFER_NO_SCHEDULE)
            )
        })
        .collect();
    taints
        .iter()
        .filter(|t| t.effect == PREFER_NO_SCHEDULE)
        .filter(|t| !soft.iter().any(|tol| tolerates(tol, t, gates)))
        .count()
}

/// Upstream `DefaultNormalizeScore(maxPriority, reverse)`: scale raw scores to `0..=max_priority`
/// by the largest raw score; integer arithmetic as upstream. With `reverse` the scale is flipped.
/// When every raw score is 0, every node gets `max_priority` if `reverse`, else 0.
pub fn default_normalize_score(max_priority: i64, reverse: bool, scores: &mut [i64]) {
    let max = scores.iter().copied().max().unwrap_or(0);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = max_priority);
        }
        return;
    }
    for s in scores.iter_mut() {
        let scaled = max_priority * *s / max;
        *s = if reverse {
            max_priority - scaled
        } else {
            scaled
        };
    }
}

/// What the taint-eviction controller does with a pod on a node, given the node's taints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoExecuteOutcome {
    /// No untolerated NoExecute taint and no finite toleration: the pod stays (also when the
    /// node has no NoExecute taint).
    Never,
    /// Deleted at once: an untolerated NoExecute taint, or a first-matching toleration with
    /// `tolerationSeconds <= 0`.
    Immediately,
    /// Deleted this many seconds after the controller sees the taint.
    After(i64),
}

/// The NoExecute outcome for a pod with `tolerations` on a node with `taints`, as the
/// taint-eviction controller computes it (upstream `processPodOnNode` with
/// `GetMatchingTolerations` and `getMinTolerationTime`, v1.35):
///
/// 1. Only `NoExecute` taints count; with none, the pod stays.
/// 2. Each taint takes its **first** tolerating toleration in pod order; if one taint has none,
///    the pod is deleted immediately.
/// 3. Over those used tolerations: nil `tolerationSeconds` is forever; the minimum of the rest is
///    the delay; any value ≤ 0 means immediately. All forever means never.
pub fn no_execute_outcome(
    taints: &[Taint],
    tolerations: &[Toleration],
    gates: &FeatureGates,
) -> NoExecuteOutcome {
    let mut min: Option<i64> = None;
    for taint in taints.iter().filter(|t| t.effect == NO_EXECUTE) {
        let Some(used) = tolerations.iter().find(|t| tolerates(t, taint, gates)) else {
            return NoExecuteOutcome::Immediately;
        };
        if let Some(secs) = used.toleration_seconds {
            if secs <= 0 {
                return NoExecuteOutcome::Immediately;
            }
            min = Some(min.map_or(secs, |m| m.min(secs)));
        }
    }
    match min {
        None => NoExecuteOutcome::Never,
        Some(secs) => NoExecuteOutcome::After(secs),
    }
}

#[cfg(test)]
mod tests;
