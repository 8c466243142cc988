//! Karpenter's view of draining a node (`kubernetes-sigs/karpenter`: `pkg/utils/pod`,
//! `pkg/utils/pdb`, `pkg/controllers/disruption/helpers.go`).
//!
//! # What blocks
//! - The node annotated `karpenter.sh/do-not-disrupt` (`"true"` or a positive Go duration):
//!   `DoNotDisrupt`, "disruption is blocked through the "karpenter.sh/do-not-disrupt"
//!   annotation".
//! - An active pod (neither finished nor terminating) annotated `karpenter.sh/do-not-disrupt`,
//!   `"true"`, or a positive duration not yet past since the pod started (an invalid value is
//!   ignored) — DaemonSet and mirror pods included: `DoNotDisrupt`, `pod has
//!   "karpenter.sh/do-not-disrupt" annotation (Pod=ns/name)`. Checked on every pod before any
//!   budget, so such a pod is the node's message.
//! - An evictable pod (active, not tolerating `karpenter.sh/disrupted:NoSchedule`, not a
//!   mirror pod — a DaemonSet's counts) whose budgets allow no eviction: `PDBViolation`, "pdb
//!   prevents pod evictions (PodDisruptionBudget=[ns/name])" (or "eviction does not support
//!   multiple PDBs (PodDisruptionBudget(s)=[ns/a ns/b])" for a pod two budgets select). The
//!   values after the texts are Karpenter's structured errors (operatorpkg `serrors.Wrap`,
//!   whose `Error()` prints `message (key=value)`).
//!
//! # What moves
//! Every pod but DaemonSet, mirror, finished and terminating pods (a StatefulSet's
//! terminating pod moves: its replacement waits for it) and pods that tolerate
//! `karpenter.sh/disrupted:NoSchedule` (neither evicted nor waited for); a pod without a
//! controller is evicted and gone. The others are placed as Karpenter's own scheduler places
//! them on the remaining nodes: every taint hard (PreferNoSchedule included), the `Gt`/`Lt`
//! toleration operators always on, the pods by CPU then memory requests, largest first, each on
//! the first node (in input order) whose constraints it meets. repel reads no NodePool here:
//! a pod that fits on no remaining node is `pending` (`NoPlaceToMovePods`), where Karpenter
//! would launch a node for it if a NodePool allowed.

use k8s_openapi::api::core::v1::Taint;

use super::sim::{Sim, with_taint};
use super::{
    DrainConfig, DrainVerdict, PodAction, PodVerdict, PodsOn, Undo, annotation, fit_error, key,
    not_drained, selecting_pdbs, sort, unschedule,
};
use crate::cluster::{Cluster, NodeId, PodId, PodInfo, PodPhase};
use crate::scheduler::Scheduler;

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

/// Karpenter's `ValidatePodsDisruptable` text for a pod with an active do-not-disrupt
/// annotation: `pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ns/name)` — its
/// structured error (operatorpkg's `serrors.Wrap`) prints its values after the message.
pub(crate) fn pod_blocks_message(pod_key: &str) -> String {
    format!("pod has {DO_NOT_DISRUPT:?} annotation (Pod={pod_key})")
}

/// The budgets' keys as Go prints a `[]client.ObjectKey`: `ns/name`, space-separated.
fn pdb_keys(c: &Cluster, pdbs: &[usize]) -> String {
    pdbs.iter()
        .map(|i| {
            let m = &c.pdbs[*i].metadata;
            format!(
                "{}/{}",
                m.namespace.as_deref().unwrap_or("default"),
                m.name.as_deref().unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
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
pub(crate) fn tolerates_disrupted(p: &PodInfo, gates: &repel_core::FeatureGates) -> bool {
    let taint = disrupted_taint();
    p.tolerations()
        .iter()
        .any(|t| repel_core::toleration::tolerates(t, &taint, gates))
}

/// The feature gates of Karpenter's scheduling: `Gt`/`Lt` tolerations always on.
pub(crate) fn gates(cfg: &DrainConfig) -> repel_core::FeatureGates {
    let mut gates = cfg.gates;
    gates.taint_toleration_comparison_operators = true;
    gates
}

/// Every node's PreferNoSchedule taints made NoSchedule: every taint is hard for Karpenter's
/// scheduler. Each node changed is recorded in `undo` first, when given.
pub(crate) fn harden_taints(work: &mut Cluster, mut undo: Option<&mut Undo>) {
    for n in 0..work.nodes.len() {
        if work.nodes[n]
            .taints
            .iter()
            .any(|t| t.effect == "PreferNoSchedule")
        {
            if let Some(undo) = undo.as_deref_mut() {
                undo.node(work, n);
            }
            let mut taints = work.nodes[n].taints.clone();
            for t in taints.iter_mut().filter(|t| t.effect == "PreferNoSchedule") {
                t.effect = "NoSchedule".to_string();
            }
            work.set_node_taints(n, taints);
        }
    }
}

/// `IsTerminating`: the pod has a `deletionTimestamp` (or is being deleted on a node whose
/// kubelet is away).
fn is_terminating(p: &PodInfo) -> bool {
    p.meta.deletion_timestamp.is_some() || p.terminating
}

/// `IsOwnedBy` (karpenter `pkg/utils/pod/scheduling.go`): any owner reference (controller or
/// not) of this `apiVersion` and kind.
fn owned_by(p: &PodInfo, api_version: &str, kind: &str) -> bool {
    p.meta
        .owner_references
        .iter()
        .flatten()
        .any(|o| o.api_version == api_version && o.kind == kind)
}

/// The budgets' refusal of an evictable pod (karpenter `pkg/utils/pdb/pdb.go`,
/// `isEvictable` with `zeroDisruptions`): two budgets or more select it ("eviction does not
/// support multiple PDBs"), or its one budget allows no disruption — unless the budget's
/// `unhealthyPodEvictionPolicy` is `AlwaysAllow` and the pod is not ready.
fn pdb_refusal(work: &Cluster, p: &PodInfo) -> Option<(&'static str, String)> {
    let pdbs = selecting_pdbs(work, p);
    if pdbs.len() > 1 {
        return Some((
            "PDBViolation",
            format!(
                "eviction does not support multiple PDBs (PodDisruptionBudget(s)=[{}])",
                pdb_keys(work, &pdbs)
            ),
        ));
    }
    let i = *pdbs.first()?;
    let budget = &work.pdbs[i];
    let always_allow = budget
        .spec
        .as_ref()
        .and_then(|s| s.unhealthy_pod_eviction_policy.as_deref())
        == Some("AlwaysAllow");
    let unready = p
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "False"));
    if always_allow && unready {
        return None;
    }
    let allowed = budget
        .status
        .as_ref()
        .and_then(|s| s.disruptions_allowed)
        .unwrap_or_else(|| crate::disruption::disruptions_allowed(budget, work));
    (allowed < 1).then(|| {
        (
            "PDBViolation",
            format!(
                "pdb prevents pod evictions (PodDisruptionBudget=[{}])",
                pdb_keys(work, &pdbs)
            ),
        )
    })
}

/// Karpenter's rules for node `node` and its pods (karpenter `pkg/controllers/state/
/// statenode.go` `ValidatePodsDisruptable`, `pkg/utils/pod/scheduling.go`, v1.x): `Err` with
/// the verdict when the node is not simulated, else the pods judged so far and those to move.
/// 1. `karpenter.sh/do-not-disrupt` on the node blocks it.
/// 2. An active pod's (neither terminal nor terminating) do-not-disrupt blocks it, whatever
///    the pod: "we will allow Mirror Pods and DaemonSets to block disruption using this
///    annotation"; the first such pod is the node's message.
/// 3. Else the budgets of every evictable pod (active, not tolerating
///    `karpenter.sh/disrupted:NoSchedule`, not a mirror pod): DaemonSet pods count.
/// 4. The reschedulable pods move (`IsReschedulable`: active, or a StatefulSet's terminating
///    pod; not a DaemonSet's, not a mirror pod).
fn rules(
    work: &Cluster,
    node: NodeId,
    cfg: &DrainConfig,
    on_node: Vec<PodId>,
) -> Result<(Vec<PodVerdict>, Vec<PodId>), DrainVerdict> {
    let name = work.nodes[node].name.clone();
    let now = cfg.now_unix;
    let gates = gates(cfg);
    if do_not_disrupt(
        annotation(&work.nodes[node].node.metadata, DO_NOT_DISRUPT),
        None,
        now,
    ) {
        return Err(DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("DoNotDisrupt".to_string()),
            message: Some(format!(
                "disruption is blocked through the {DO_NOT_DISRUPT:?} annotation"
            )),
            pods: Vec::new(),
        });
    }
    let mut pods = Vec::new();
    let mut to_move: Vec<PodId> = Vec::new();
    // ValidatePodsDisruptable: every pod's do-not-disrupt first, then the budgets.
    let mut blocking_dnd: Option<String> = None;
    let mut blocking_pdb: Option<String> = None;
    for id in on_node {
        let k = key(work, id);
        let p = &work.pods[id];
        let ctrl = p.controller().map(|(kind, _)| kind);
        let terminal = matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed);
        let terminating = is_terminating(p);
        // IsActive: neither terminal nor terminating.
        let active = !terminal && !terminating;
        let mirror = owned_by(p, "v1", "Node")
            || annotation(&p.meta, crate::kubectl::drain::MIRROR_POD_ANNOTATION).is_some();
        let daemon = owned_by(p, "apps/v1", "DaemonSet");
        let tolerates = tolerates_disrupted(p, &gates);
        let started = p
            .status
            .as_ref()
            .and_then(|s| s.start_time.as_ref())
            .map(|t| t.0.as_second());
        // IsDisruptable: an active pod's do-not-disrupt blocks, a DaemonSet's or a mirror
        // pod's too.
        let dnd = active && do_not_disrupt(annotation(&p.meta, DO_NOT_DISRUPT), started, now);
        // IsEvictable: only the pods Karpenter would evict answer to their budgets.
        let evictable = active && !tolerates && !mirror && !dnd;
        let refusal = if dnd {
            Some(("DoNotDisrupt", pod_blocks_message(&k)))
        } else if evictable {
            pdb_refusal(work, p)
        } else {
            None
        };
        let action = if let Some((reason, message)) = refusal {
            let first = if dnd {
                &mut blocking_dnd
            } else {
                &mut blocking_pdb
            };
            first.get_or_insert_with(|| message.clone());
            PodAction::Blocked {
                reason: reason.to_string(),
                message,
            }
        } else if mirror {
            PodAction::Stays {
                why: "mirror pod".to_string(),
            }
        } else if daemon {
            PodAction::Stays {
                why: "DaemonSet pod".to_string(),
            }
        } else if terminal {
            PodAction::Gone {
                why: "finished: nothing to move".to_string(),
            }
        } else if terminating && !owned_by(p, "apps/v1", "StatefulSet") {
            // IsReschedulable: only a StatefulSet's terminating pod is rescheduled (its
            // replacement waits for it to go).
            PodAction::Gone {
                why: "terminating: already being deleted, not rescheduled".to_string(),
            }
        } else if tolerates {
            PodAction::Stays {
                why: format!(
                    "tolerates {DISRUPTED_TAINT}:NoSchedule: neither evicted nor waited for"
                ),
            }
        } else if ctrl.is_none() && !terminating {
            PodAction::Gone {
                why: "no controller: evicted, nothing recreates it".to_string(),
            }
        } else {
            to_move.push(id);
            continue;
        };
        pods.push(PodVerdict { pod: k, action });
    }
    let blocking = blocking_dnd.or(blocking_pdb);
    if let Some(message) = blocking {
        return Err(not_drained(
            work,
            name,
            ("BlockedByPod", message),
            pods,
            &to_move,
            "not simulated: another pod blocks the node",
        ));
    }
    // Largest first: CPU, then memory requests.
    to_move.sort_by_key(|id| {
        let r = &work.pods[*id].requests;
        std::cmp::Reverse((r.milli_cpu, r.memory))
    });
    Ok((pods, to_move))
}

/// Judges node `node` of `work` as Karpenter would, with the reference scheduler on `work`
/// itself (changed: every PreferNoSchedule taint hard, the node tainted
/// `karpenter.sh/disrupted:NoSchedule`, the pods where they moved). Consolidation's
/// multi-node commands use it, their candidates tainted beforehand.
/// `on` lists the pods on each node of `work` (built once for the clusters a consolidation
/// derives from one another: [`PodsOn`] stays valid while pods are only bound, unbound and
/// deleted); every change is recorded in `undo`, to be put back ([`Undo::restore`]).
pub(crate) fn judge(
    work: &mut Cluster,
    node: NodeId,
    cfg: &DrainConfig,
    on: &PodsOn,
    undo: &mut Undo,
) -> DrainVerdict {
    let name = work.nodes[node].name.clone();
    let gates = gates(cfg);
    let (mut pods, to_move) = match rules(work, node, cfg, on.on(work, node)) {
        Ok(judged) => judged,
        Err(v) => return v,
    };
    harden_taints(work, Some(&mut *undo));
    undo.node(work, node);
    taint_disrupted(work, node);
    for id in &to_move {
        undo.pod(work, *id);
        unschedule(work, *id);
    }
    let mut sched = Scheduler::new(gates, Some(100), cfg.seed);
    let mut pending = 0;
    for id in &to_move {
        let k = key(work, *id);
        let found = sched.first_feasible(&work.pods[*id], work, |n| {
            n == node || work.nodes[n].unschedulable
        });
        let action = match found {
            Some(n) => {
                undo.node(work, n);
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
    verdict(name, pods, pending)
}

/// The verdict once the pods are placed (`pending` of them on no node).
fn verdict(node: String, mut pods: Vec<PodVerdict>, pending: usize) -> DrainVerdict {
    sort(&mut pods);
    if pending > 0 {
        return DrainVerdict {
            node,
            drainable: false,
            reason: Some("NoPlaceToMovePods".to_string()),
            message: Some(format!(
                "{pending} pod(s) would schedule on no remaining node (the what-if launches no replacement node, whatever NodePools were read)"
            )),
            pods,
        };
    }
    DrainVerdict::drainable(node, pods)
}

/// [`judge`] on a cluster whose taints are already hard ([`harden_taints`]) with the compiled
/// first fit of `sim` (built with [`gates`]): each pod on the first node in input order, the
/// node itself never changed (its `karpenter.sh/disrupted` copy stands in where the reference
/// reads it). The changes are recorded in `undo`.
pub fn judge_in(
    work: &mut Cluster,
    node: NodeId,
    cfg: &DrainConfig,
    sim: &mut Sim,
    undo: &mut Undo,
) -> DrainVerdict {
    let name = work.nodes[node].name.clone();
    let (mut pods, to_move) = match rules(work, node, cfg, sim.pods_on(work, node)) {
        Ok(judged) => judged,
        Err(v) => return v,
    };
    sim.prepare(work);
    for id in &to_move {
        undo.pod(work, *id);
        let was = work.pods[*id].node;
        unschedule(work, *id);
        if let Some(n) = was {
            sim.moved(work, *id, n, -1);
        }
    }
    let ghost = |c: &Cluster| with_taint(c, node, disrupted_taint());
    let mut pending = 0;
    for id in &to_move {
        let k = key(work, *id);
        let action = match sim.first_fit(work, *id, 0, node, &ghost) {
            Some(n) => {
                undo.node(work, n);
                work.bind(*id, n);
                work.pods[*id].phase = PodPhase::Running;
                sim.moved(work, *id, n, 1);
                PodAction::Move {
                    to: work.nodes[n].name.clone(),
                }
            }
            None => {
                pending += 1;
                PodAction::Pending {
                    message: sim.pending_message(work, *id, node, &ghost),
                }
            }
        };
        pods.push(PodVerdict { pod: k, action });
    }
    verdict(name, pods, pending)
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
