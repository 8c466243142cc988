//! Karpenter's view of draining a node (`kubernetes-sigs/karpenter`: `pkg/utils/pod`,
//! `pkg/utils/pdb`, `pkg/controllers/disruption/helpers.go`; see
//! `../shared/reference/drain-and-pools.md` §2).
//!
//! # What blocks
//! - The node annotated `karpenter.sh/do-not-disrupt` (`"true"` or a positive Go duration):
//!   `DoNotDisrupt`, "disruption is blocked through the "karpenter.sh/do-not-disrupt"
//!   annotation".
//! - A pod annotated `karpenter.sh/do-not-disrupt`, `"true"`, or a positive duration not yet
//!   past since the pod started (an invalid value is ignored): `DoNotDisrupt`, `pod has
//!   "karpenter.sh/do-not-disrupt" annotation`.
//! - A pod whose budgets allow no eviction: `PDBViolation`, "pdb prevents pod evictions" (or
//!   "eviction does not support multiple PDBs" for a pod two budgets select).
//!
//! # What moves
//! Every pod but DaemonSet, mirror, finished pods and pods that tolerate
//! `karpenter.sh/disrupted:NoSchedule` (neither evicted nor waited for); a pod without a
//! controller is evicted and gone. The others are placed as Karpenter's own scheduler places
//! them on the remaining nodes: every taint hard (PreferNoSchedule included), the `Gt`/`Lt`
//! toleration operators always on, the pods by CPU then memory requests, largest first, each on
//! the first node (in input order) whose constraints it meets. repel reads no NodePool here:
//! a pod that fits on no remaining node is `pending` (`NoPlaceToMovePods`), where Karpenter
//! would launch a node for it if a NodePool allowed.

use k8s_openapi::api::core::v1::Taint;

use super::{
    DrainConfig, NodeVerdict, PodAction, PodVerdict, annotation, controller, fit_error, key,
    not_drained, pods_on, selecting_pdbs, sort, unschedule,
};
use crate::cluster::{Cluster, NodeId, PodId, PodInfo, PodPhase};
use crate::scheduler::Scheduler;
use crate::scheduler::framework::CycleState;

/// `DoNotDisruptAnnotationKey`.
pub const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";
/// `DisruptedNoScheduleTaint`'s key.
pub const DISRUPTED_TAINT: &str = "karpenter.sh/disrupted";

/// `IsDoNotDisruptActive`: `"true"`, or a positive duration not yet past since `started`
/// (Unix seconds; active while unknown).
pub(crate) fn do_not_disrupt(value: Option<&str>, started: Option<i64>, now: i64) -> bool {
    match value {
        None => false,
        Some("true") => true,
        Some(v) => match crate::clock::parse_duration(v) {
            Ok(d) if d > 0 => started.is_none_or(|s| (now - s) * 1000 < d),
            _ => false,
        },
    }
}

/// `karpenter.sh/disrupted:NoSchedule`, the taint Karpenter puts on a node it disrupts.
pub fn disrupted_taint() -> Taint {
    Taint {
        key: DISRUPTED_TAINT.to_string(),
        value: None,
        effect: "NoSchedule".to_string(),
        time_added: None,
    }
}

/// Taints node `node` of `c` `karpenter.sh/disrupted:NoSchedule` (once).
pub(crate) fn taint_disrupted(c: &mut Cluster, node: NodeId) {
    let mut taints = c.nodes[node].taints.clone();
    if !taints.iter().any(|t| t.key == DISRUPTED_TAINT) {
        taints.push(disrupted_taint());
        c.set_node_taints(node, taints);
    }
}

/// Whether the pod tolerates `karpenter.sh/disrupted:NoSchedule`.
fn tolerates_disrupted(p: &PodInfo, gates: &repel_core::FeatureGates) -> bool {
    let taint = disrupted_taint();
    p.tolerations()
        .iter()
        .any(|t| repel_core::toleration::tolerates(t, &taint, gates))
}

/// Judges node `node` of `work` as Karpenter would (changed on success: the pods where they
/// moved; the node tainted `karpenter.sh/disrupted:NoSchedule`).
pub fn judge(work: &mut Cluster, node: NodeId, cfg: &DrainConfig) -> NodeVerdict {
    let name = work.nodes[node].name.clone();
    let now = cfg.now_unix;
    let mut gates = cfg.gates;
    gates.taint_toleration_comparison_operators = true;
    if do_not_disrupt(
        annotation(&work.nodes[node].node.metadata, DO_NOT_DISRUPT),
        None,
        now,
    ) {
        return NodeVerdict {
            node: name,
            drainable: false,
            reason: Some("DoNotDisrupt".to_string()),
            message: Some(format!(
                "disruption is blocked through the {DO_NOT_DISRUPT:?} annotation"
            )),
            pods: Vec::new(),
        };
    }
    let mut pods = Vec::new();
    let mut to_move: Vec<PodId> = Vec::new();
    let mut blocking: Option<String> = None;
    for id in pods_on(work, node) {
        let k = key(work, id);
        let p = &work.pods[id];
        let ctrl = controller(p).map(|(kind, _)| kind);
        let action = if ctrl == Some("DaemonSet") {
            PodAction::Stays {
                why: "DaemonSet pod".to_string(),
            }
        } else if ctrl == Some("Node")
            || annotation(&p.meta, crate::kubectl_steps::drain::MIRROR_POD_ANNOTATION).is_some()
        {
            PodAction::Stays {
                why: "mirror pod".to_string(),
            }
        } else if matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed) {
            PodAction::Gone {
                why: "finished: nothing to move".to_string(),
            }
        } else if tolerates_disrupted(p, &gates) {
            PodAction::Stays {
                why: format!(
                    "tolerates {DISRUPTED_TAINT}:NoSchedule: neither evicted nor waited for"
                ),
            }
        } else {
            let started = p
                .status
                .as_ref()
                .and_then(|s| s.start_time.as_ref())
                .map(|t| t.0.as_second());
            let pdbs = selecting_pdbs(work, p);
            let allowed = |i: usize| {
                work.pdbs[i]
                    .status
                    .as_ref()
                    .and_then(|s| s.disruptions_allowed)
                    .unwrap_or_else(|| crate::disruption::disruptions_allowed(&work.pdbs[i], work))
            };
            let refusal = if do_not_disrupt(annotation(&p.meta, DO_NOT_DISRUPT), started, now) {
                Some((
                    "DoNotDisrupt",
                    format!("pod has {DO_NOT_DISRUPT:?} annotation"),
                ))
            } else if pdbs.len() > 1 {
                Some((
                    "PDBViolation",
                    "eviction does not support multiple PDBs".to_string(),
                ))
            } else if pdbs.first().is_some_and(|i| allowed(*i) < 1) {
                Some(("PDBViolation", "pdb prevents pod evictions".to_string()))
            } else {
                None
            };
            match refusal {
                Some((reason, message)) => {
                    blocking.get_or_insert_with(|| message.clone());
                    PodAction::Blocked {
                        reason: reason.to_string(),
                        message,
                    }
                }
                None if ctrl.is_none() => PodAction::Gone {
                    why: "no controller: evicted, nothing recreates it".to_string(),
                },
                None => {
                    to_move.push(id);
                    continue;
                }
            }
        };
        pods.push(PodVerdict { pod: k, action });
    }
    if let Some(message) = blocking {
        return not_drained(
            work,
            name,
            ("BlockedByPod", message),
            pods,
            &to_move,
            "not simulated: another pod blocks the node",
        );
    }
    // The candidate leaves the scheduler's nodes (tainted as Karpenter taints it); every other
    // node's PreferNoSchedule taints are hard for Karpenter's scheduler.
    for n in 0..work.nodes.len() {
        if work.nodes[n]
            .taints
            .iter()
            .any(|t| t.effect == "PreferNoSchedule")
        {
            let mut taints = work.nodes[n].taints.clone();
            for t in taints.iter_mut().filter(|t| t.effect == "PreferNoSchedule") {
                t.effect = "NoSchedule".to_string();
            }
            work.set_node_taints(n, taints);
        }
    }
    taint_disrupted(work, node);
    to_move.sort_by_key(|id| {
        let r = &work.pods[*id].requests;
        std::cmp::Reverse((r.milli_cpu, r.memory))
    });
    for id in &to_move {
        unschedule(work, *id);
    }
    let mut sched = Scheduler::new(gates, Some(100), cfg.seed);
    let mut pending = 0;
    for id in &to_move {
        let k = key(work, *id);
        let pod = work.pods[*id].clone();
        let mut state = CycleState::default();
        let (feasible, _) = sched.find_nodes_that_fit(&mut state, &pod, work, true);
        let action = match feasible
            .into_iter()
            .find(|n| *n != node && !work.nodes[*n].unschedulable)
        {
            Some(n) => {
                work.bind(*id, n);
                work.pods[*id].phase = PodPhase::Running;
                PodAction::Move {
                    to: work.nodes[n].name.clone(),
                }
            }
            None => {
                pending += 1;
                PodAction::Pending {
                    message: fit_error(&mut sched, work, *id),
                }
            }
        };
        pods.push(PodVerdict { pod: k, action });
    }
    sort(&mut pods);
    if pending > 0 {
        return NodeVerdict {
            node: name,
            drainable: false,
            reason: Some("NoPlaceToMovePods".to_string()),
            message: Some(format!(
                "{pending} pod(s) would schedule on no remaining node (no NodePool read to launch one)"
            )),
            pods,
        };
    }
    NodeVerdict {
        node: name,
        drainable: true,
        reason: None,
        message: None,
        pods,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn do_not_disrupt_values() {
        assert!(do_not_disrupt(Some("true"), None, 100));
        assert!(!do_not_disrupt(None, None, 100));
        assert!(!do_not_disrupt(Some("false"), None, 100));
        assert!(!do_not_disrupt(Some("bogus"), None, 100));
        assert!(!do_not_disrupt(Some("0s"), None, 100));
        assert!(do_not_disrupt(Some("5m"), Some(100), 100 + 299));
        assert!(!do_not_disrupt(Some("5m"), Some(100), 100 + 300));
        assert!(
            do_not_disrupt(Some("5m"), None, 100),
            "no start time: active"
        );
    }
}
