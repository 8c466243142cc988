//! Where the DaemonSet controller creates a DaemonSet's pods, and why not elsewhere.
//!
//! A DaemonSet's pods do not go where the scheduler likes: the controller creates one pod per
//! node that [`node_should_run_daemon_pod`] accepts, each pinned to its node by a required
//! `matchFields metadata.name In [node]` term ([`crate::workload::pin_to_node`]), and the
//! scheduler then only decides whether that pod fits *its* node (resources, ports…).

use k8s_openapi::api::core::v1::{Node, PodSpec};

use super::{
    ERR_REASON_NODE_AFFINITY, ERR_REASON_NODE_NAME, ERR_REASON_UNTOLERATED, NODE_AFFINITY,
    NODE_NAME, Rejection, TAINT_TOLERATION,
};
use crate::gates::FeatureGates;
use crate::workload::{DaemonPredicate, daemon_pod_refusal, node_should_run_daemon_pod};

/// What the DaemonSet controller decides for one node.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonVerdict {
    /// The node's name.
    pub name: String,
    /// Whether the controller creates a pod for this node.
    pub should_run: bool,
    /// Whether a daemon pod already running there is left running (no untolerated
    /// `NoExecute` taint).
    pub should_continue_running: bool,
    /// Why no pod is created there, as the scheduler plugin that makes the same check words it;
    /// `None` when one is.
    pub rejection: Option<Rejection>,
}

/// Upstream `NodeShouldRunDaemonPod` (pkg/controller/daemon, v1.35) for every node, with the
/// check that turned each refused node down. `spec` is the DaemonSet's pod template spec with
/// the DaemonSet tolerations, not pinned to a node. Upstream's `predicates` check, in order:
///
/// 1. the template's `nodeName`, when set, names the node (NodeName's reason);
/// 2. the template's required node affinity and nodeSelector match the node (NodeAffinity's
///    reason);
/// 3. no `NoSchedule`/`NoExecute` taint is untolerated (TaintToleration's reason).
///
/// The controller reports no reason of its own; the first failing check is given with the
/// scheduler plugin's reason for the same check.
pub fn daemon_verdicts(spec: &PodSpec, nodes: &[Node], gates: &FeatureGates) -> Vec<DaemonVerdict> {
    nodes
        .iter()
        .map(|node| {
            let (should_run, should_continue_running) =
                node_should_run_daemon_pod(spec, node, gates);
            DaemonVerdict {
                name: node.metadata.name.clone().unwrap_or_default(),
                should_run,
                should_continue_running,
                rejection: (!should_run).then(|| refusal(spec, node, gates)),
            }
        })
        .collect()
}

/// The first of upstream's `predicates` that fails for `node`.
fn refusal(spec: &PodSpec, node: &Node, gates: &FeatureGates) -> Rejection {
    let (plugin, reason) = match daemon_pod_refusal(spec, node, gates) {
        Some(DaemonPredicate::NodeName) => (NODE_NAME, ERR_REASON_NODE_NAME),
        Some(DaemonPredicate::Taints) => (TAINT_TOLERATION, ERR_REASON_UNTOLERATED),
        // `None` cannot follow a refusal; name the affinity check, the one the pod's pinning
        // stands in for.
        Some(DaemonPredicate::NodeAffinity) | None => (NODE_AFFINITY, ERR_REASON_NODE_AFFINITY),
    };
    Rejection { plugin, reason }
}

#[cfg(test)]
mod tests;
