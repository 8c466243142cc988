//! Why a pod may or may not go to each node, by the taint rules and the node-placement filters
//! that run before resources are considered: what `repel explain` prints.
//!
//! The filters run in the order of upstream's default profile (v1.35) and stop at the first
//! failure on a node, as the scheduler's `RunFilterPlugins` does: NodeUnschedulable, NodeName,
//! TaintToleration, NodeAffinity. Scores are TaintToleration's, normalised over the feasible
//! nodes and weighted as in the default profile.
//!
//! A DaemonSet's pods are placed by its controller, node by node: see [`daemon`].

use k8s_openapi::api::core::v1::{Node, PodSpec, Taint, Toleration};

use crate::affinity::RequiredNodeAffinity;
use crate::fit_error::{PREEMPTION_NOT_HELPFUL, default_post_filter, fit_error};
use crate::gates::FeatureGates;
use crate::taint::{
    NO_EXECUTE, NO_SCHEDULE, NoExecuteOutcome, TAINT_NODE_UNSCHEDULABLE,
    count_intolerable_prefer_no_schedule, default_normalize_score, first_tolerating,
    is_do_not_schedule, new_taint, no_execute_outcome, tolerations_tolerate_taint,
};

pub mod daemon;
pub use daemon::{DaemonVerdict, daemon_verdicts};

/// NodeUnschedulable's plugin name.
pub const NODE_UNSCHEDULABLE: &str = "NodeUnschedulable";
/// NodeUnschedulable's reason (`ErrReasonUnschedulable`).
pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
/// NodeName's plugin name.
pub const NODE_NAME: &str = "NodeName";
/// NodeName's reason (`ErrReason`, v1.2x+).
pub const ERR_REASON_NODE_NAME: &str = "node(s) didn't match the requested node name";
/// TaintToleration's plugin name.
pub const TAINT_TOLERATION: &str = "TaintToleration";
/// TaintToleration's Filter reason since v1.35 (PR #134740): taint details go only to the log.
pub const ERR_REASON_UNTOLERATED: &str = "node(s) had untolerated taint(s)";
/// TaintToleration's weight in the default profile.
pub const TAINT_TOLERATION_WEIGHT: i64 = 3;
/// NodeAffinity's plugin name.
pub const NODE_AFFINITY: &str = "NodeAffinity";
/// NodeAffinity's reason for a pod's own affinity/selector (`ErrReasonPod`).
pub const ERR_REASON_NODE_AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
/// The most a normalised score can be (`MaxNodeScore`).
pub const MAX_NODE_SCORE: i64 = 100;

/// One taint of a node, judged against the pod's tolerations.
#[derive(Debug, Clone, PartialEq)]
pub struct TaintVerdict {
    /// The node's taint.
    pub taint: Taint,
    /// Whether some toleration tolerates it.
    pub tolerated: bool,
    /// The index of the first toleration that tolerates it (the one eviction uses).
    pub toleration: Option<usize>,
}

/// The first filter that turned a node down.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// The plugin's name.
    pub plugin: &'static str,
    /// Upstream's reason string.
    pub reason: &'static str,
}

/// The pod against one node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeVerdict {
    /// The node's name.
    pub name: String,
    /// Every taint of the node, in node order, cordoning excluded.
    pub taints: Vec<TaintVerdict>,
    /// Whether `spec.unschedulable` is set (kubectl cordon).
    pub cordoned: bool,
    /// The first failing filter; `None` when the node is feasible.
    pub rejection: Option<Rejection>,
    /// TaintToleration's raw score (untolerated PreferNoSchedule taints), feasible nodes only.
    pub raw_taint_score: Option<i64>,
    /// TaintToleration's normalised score `0..=100`, feasible nodes only.
    pub taint_score: Option<i64>,
    /// What the taint-eviction controller would do with the pod on this node.
    pub no_execute: NoExecuteOutcome,
    /// Tolerations that would let the pod past this node's taints (and cordon), when taints
    /// or cordoning are what rejects it and the node passes the pod's node name and affinity.
    pub suggestions: Vec<Toleration>,
}

impl NodeVerdict {
    /// Whether every filter passed.
    pub fn feasible(&self) -> bool {
        self.rejection.is_none()
    }

    /// The weighted sum of this node's scores (feasible nodes only).
    pub fn score(&self) -> Option<i64> {
        self.taint_score.map(|s| s * TAINT_TOLERATION_WEIGHT)
    }
}

/// The pod against every node.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// One verdict per node, in input order.
    pub nodes: Vec<NodeVerdict>,
    /// The scheduler's FitError text; empty when some node is feasible.
    pub message: String,
}

/// The synthetic taint NodeUnschedulable checks a cordoned node with.
pub fn unschedulable_taint() -> Taint {
    new_taint(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE)
}

/// The narrowest toleration that tolerates `taint`: `Equal` with its value, or `Exists` when the
/// taint has none.
pub fn toleration_for(taint: &Taint) -> Toleration {
    let value = taint.value.clone().filter(|v| !v.is_empty());
    Toleration {
        key: Some(taint.key.clone()),
        operator: Some(if value.is_some() { "Equal" } else { "Exists" }.to_string()),
        value,
        effect: Some(taint.effect.clone()),
        toleration_seconds: None,
    }
}

fn node_taints(node: &Node) -> &[Taint] {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
}

fn verdict(spec: &PodSpec, node: &Node, gates: &FeatureGates) -> NodeVerdict {
    let tolerations = spec.tolerations.as_deref().unwrap_or_default();
    let name = node.metadata.name.clone().unwrap_or_default();
    let taints = node_taints(node);
    let cordoned = node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false);
    let verdicts: Vec<TaintVerdict> = taints
        .iter()
        .map(|t| {
            let toleration = first_tolerating(tolerations, t, gates);
            TaintVerdict {
                taint: t.clone(),
                tolerated: toleration.is_some(),
                toleration,
            }
        })
        .collect();
    let untolerated_unschedulable =
        cordoned && !tolerations_tolerate_taint(tolerations, &unschedulable_taint(), gates);
    let untolerated_taint = verdicts
        .iter()
        .any(|v| !v.tolerated && is_do_not_schedule(&v.taint));
    let node_name_ok = spec
        .node_name
        .as_deref()
        .is_none_or(|n| n.is_empty() || Some(n) == node.metadata.name.as_deref());
    // Upstream ignores affinity parse errors here too: a term that cannot be parsed matches nothing.
    let affinity_ok = RequiredNodeAffinity::from_pod_spec(spec)
        .matches(node)
        .unwrap_or(false);
    let rejection = if untolerated_unschedulable {
        Some((NODE_UNSCHEDULABLE, ERR_REASON_UNSCHEDULABLE))
    } else if !node_name_ok {
        Some((NODE_NAME, ERR_REASON_NODE_NAME))
    } else if untolerated_taint {
        Some((TAINT_TOLERATION, ERR_REASON_UNTOLERATED))
    } else if !affinity_ok {
        Some((NODE_AFFINITY, ERR_REASON_NODE_AFFINITY))
    } else {
        None
    };
    // A suggestion only where tolerations are all the pod lacks: no use tolerating the taints of
    // a node its node name or affinity rules out anyway.
    let mut suggestions = Vec::new();
    let only_taints_block = node_name_ok && affinity_ok;
    if untolerated_unschedulable && only_taints_block {
        suggestions.push(toleration_for(&unschedulable_taint()));
    }
    if (untolerated_unschedulable || untolerated_taint) && only_taints_block {
        suggestions.extend(
            verdicts
                .iter()
                .filter(|v| !v.tolerated && is_do_not_schedule(&v.taint))
                .map(|v| toleration_for(&v.taint)),
        );
    }
    let feasible = rejection.is_none();
    NodeVerdict {
        name,
        taints: verdicts,
        cordoned,
        rejection: rejection.map(|(plugin, reason)| Rejection { plugin, reason }),
        raw_taint_score: feasible
            .then(|| count_intolerable_prefer_no_schedule(taints, tolerations, gates) as i64),
        taint_score: None,
        no_execute: no_execute_outcome(taints, tolerations, gates),
        suggestions,
    }
}

/// Judges the pod (`spec`, as admitted) against every node. Feasible nodes get TaintToleration's
/// score normalised across them (`DefaultNormalizeScore(100, reverse)`); when none is feasible,
/// `message` is upstream's FitError text with the default profile's PostFilter suffix (every
/// filter here is UnschedulableAndUnresolvable, so preemption is "not helpful" on every node).
pub fn explain(spec: &PodSpec, nodes: &[Node], gates: &FeatureGates) -> Explanation {
    let mut verdicts: Vec<NodeVerdict> = nodes.iter().map(|n| verdict(spec, n, gates)).collect();
    let mut raw: Vec<i64> = verdicts.iter().filter_map(|v| v.raw_taint_score).collect();
    default_normalize_score(MAX_NODE_SCORE, true, &mut raw);
    let mut scores = raw.into_iter();
    for v in verdicts.iter_mut().filter(|v| v.feasible()) {
        v.taint_score = scores.next();
    }
    let message = if nodes.is_empty() {
        crate::fit_error::NO_NODES_AVAILABLE.to_string()
    } else if verdicts.iter().any(NodeVerdict::feasible) {
        String::new()
    } else {
        let never = spec.preemption_policy.as_deref() == Some("Never");
        let post = default_post_filter(
            nodes.len(),
            std::iter::repeat_n(PREEMPTION_NOT_HELPFUL, nodes.len()),
            never,
        );
        fit_error(
            nodes.len(),
            verdicts
                .iter()
                .filter_map(|v| v.rejection.as_ref().map(|r| r.reason)),
            Some(&post),
        )
    };
    Explanation {
        nodes: verdicts,
        message,
    }
}

/// Whether an outcome means the pod would be evicted at some point.
pub fn evicts(outcome: NoExecuteOutcome) -> bool {
    !matches!(outcome, NoExecuteOutcome::Never)
}

/// The NoExecute taints of a node.
pub fn no_execute_taints(node: &Node) -> impl Iterator<Item = &Taint> {
    node_taints(node).iter().filter(|t| t.effect == NO_EXECUTE)
}

#[cfg(test)]
mod tests;
