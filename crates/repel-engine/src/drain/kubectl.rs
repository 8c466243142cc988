//! The drain what-if as `kubectl drain` judges it: filters, evictions (refused ones retried
//! once the replacement runs) and the node cordoned, after upstream
//! `staging/src/k8s.io/kubectl/pkg/drain/{drain,filters}.go`.

use super::{
    DrainConfig, DrainReport, DrainVerdict, PodAction, PodVerdict, Undo, each_node, key, sim, sort,
    unschedule,
};
use crate::cluster::{Cluster, NodeId, PodId, PodPhase};
use crate::kubectl::drain::{DrainOptions, PodDeleteStatus, pods_for_deletion_of};
use crate::scheduler::Scheduler;
use crate::scheduler::fast::first_fit::FirstFit;

/// The what-if as `kubectl drain` on `work` (left as the sequence leaves it: unchanged when
/// `independent`): one working cluster, each judgement put back ([`Undo`]) unless the node is
/// drained in a sequence (then it stays cordoned, in the compiled state too), the
/// replacements placed by the compiled scheduler (`FastScheduler`) ([`sim::Sim::place`]; `compiled`, else built
/// on first use) kept from node to node, each node's placements from the seed's start.
/// `compiled` false asks the reference for every placement (tests compare both).
/// Returns the report and how many placements the compiled path and the reference answered.
pub(crate) fn drain_kubectl_on(
    work: &mut Cluster,
    nodes: &[&str],
    opts: &DrainOptions,
    cfg: &DrainConfig,
    ff: &mut Option<FirstFit>,
    compiled: bool,
) -> (DrainReport, (usize, usize)) {
    let mut sim = sim::Sim::new(work, cfg.gates, cfg.seed).with_first_fit(ff.take());
    sim.compiled = compiled;
    each_node(work, nodes, cfg, sim, Some(ff), |work, node, sim| {
        let mut undo = Undo::default();
        let verdict = kubectl(work, node, opts, sim, &mut undo);
        if verdict.drainable && !cfg.independent {
            // Drained: the node stays cordoned.
            work.set_unschedulable(node, true);
            sim.cordoned(node);
        } else {
            sim.undo(work, undo);
        }
        verdict
    })
}

/// The node as `kubectl cordon` leaves it: `spec.unschedulable`.
fn cordoned(c: &Cluster, node: NodeId) -> crate::cluster::NodeInfo {
    let mut g = c.nodes[node].clone();
    g.unschedulable = true;
    std::sync::Arc::make_mut(&mut g.node)
        .spec
        .get_or_insert_with(Default::default)
        .unschedulable = Some(true);
    g
}

/// `kubectl drain` of `node` on `work`: evictions and replacements done (each change recorded
/// in `undo`), the node cordoned for the placements only ([`sim::Sim::place`]'s ghost: the
/// compiled state must keep seeing it as it was compiled).
fn kubectl(
    work: &mut Cluster,
    node: NodeId,
    opts: &DrainOptions,
    sim: &mut sim::Sim,
    undo: &mut Undo,
) -> DrainVerdict {
    let name = work.nodes[node].name.clone();
    sim.begin_placing(work);
    let list = pods_for_deletion_of(work, sim.pods_on(work, node), opts);
    let errors = list.errors();
    let mut pods: Vec<PodVerdict> = Vec::new();
    if !errors.is_empty() {
        for (_, k, status) in &list.items {
            let action = match status {
                PodDeleteStatus::Error(m) => PodAction::Blocked {
                    reason: kubectl_reason(m).to_string(),
                    // kubectl's error line, for this pod alone.
                    message: if m.to_lowercase().starts_with("cannot delete") {
                        format!("{m}: {k}")
                    } else {
                        format!("cannot delete {m}: {k}")
                    },
                },
                PodDeleteStatus::Skip => PodAction::Stays {
                    why: "mirror pod".to_string(),
                },
                PodDeleteStatus::Warning { delete: false, .. } => PodAction::Stays {
                    why: "DaemonSet pod".to_string(),
                },
                _ => PodAction::Stays {
                    why: "not evicted: the drain stops before evicting".to_string(),
                },
            };
            pods.push(PodVerdict {
                pod: k.clone(),
                action,
            });
        }
        return DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("BlockedByPod".to_string()),
            message: Some(errors.join("\n")),
            pods,
        };
    }
    // Evictions (or deletions), in list order; then the replacements placed. kubectl retries a
    // refused eviction every 5 s: once the replacements run, the disruption controller gives
    // the budgets their allowance back, and the refused pods are tried again — rounds until
    // every pod went or a round moves nothing.
    let mut todo: Vec<(PodId, String)> = Vec::new();
    for (id, k, status) in &list.items {
        if status.delete() {
            todo.push((*id, k.clone()));
            continue;
        }
        let why = match status {
            PodDeleteStatus::Skip => "mirror pod",
            _ => "DaemonSet pod",
        };
        pods.push(PodVerdict {
            pod: k.clone(),
            action: PodAction::Stays {
                why: why.to_string(),
            },
        });
    }
    let ghost = |c: &Cluster| cordoned(c, node);
    let mut pending = 0;
    let mut refused: Vec<(String, String)> = Vec::new();
    let mut first_round = true;
    while !todo.is_empty() {
        if !first_round {
            // The disruption controller catches up with the replacements now running.
            for i in 0..work.pdbs.len() {
                let Some(b) = crate::disruption::budget_status(&work.pdbs[i], work) else {
                    continue;
                };
                undo.pdb(work, i);
                if let Some(st) = work.pdbs[i].status.as_mut() {
                    st.disruptions_allowed = Some(i32::try_from(b.allowed).unwrap_or(i32::MAX));
                }
            }
        }
        first_round = false;
        refused.clear();
        let mut again: Vec<(PodId, String)> = Vec::new();
        let mut replaced: Vec<PodId> = Vec::new();
        for (id, k) in std::mem::take(&mut todo) {
            if !opts.disable_eviction {
                for i in crate::kubectl::eviction::matching_budgets(work, id) {
                    undo.pdb(work, i);
                }
            }
            if !opts.disable_eviction
                && let Err(e) = crate::kubectl::eviction::admit_eviction(work, id)
            {
                let p = &work.pods[id];
                let message = format!(
                    "error when evicting pods/{:?} -n {:?} (will retry after 5s): {e}",
                    p.name, p.namespace
                );
                refused.push((k.clone(), message));
                again.push((id, k));
                continue;
            }
            let p = &work.pods[id];
            let ctrl = p.controller().map(|(kind, _)| kind);
            let finished = matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed);
            // An unfinished DaemonSet pod passes the filters only when its DaemonSet is not
            // found and --force deletes it: nothing recreates it.
            let orphan = ctrl == Some("DaemonSet");
            if finished || ctrl.is_none() || orphan {
                let why = if finished {
                    "finished: deleted, nothing replaces it"
                } else if orphan {
                    "its DaemonSet is not found: deleted for good (--force)"
                } else {
                    "no controller: deleted for good (--force)"
                };
                pods.push(PodVerdict {
                    pod: k,
                    action: PodAction::Gone {
                        why: why.to_string(),
                    },
                });
                undo.pod(work, id);
                let on = work.pods[id].node;
                delete_for_good(work, id);
                if let Some(n) = on {
                    sim.moved(work, id, n, -1);
                }
            } else {
                // Evicted: its controller's replacement is a pending pod like it.
                undo.pod(work, id);
                let on = work.pods[id].node;
                unschedule(work, id);
                if let Some(n) = on {
                    sim.moved(work, id, n, -1);
                }
                replaced.push(id);
            }
        }
        // The replacements, in the scheduler's queue order; each runs where it lands.
        Scheduler::queue_order(work, &mut replaced);
        for id in &replaced {
            let k = key(work, *id);
            let action = match sim.place(work, *id, node, &ghost, undo) {
                Ok(n) => {
                    work.pods[*id].phase = PodPhase::Running;
                    PodAction::Move {
                        to: work.nodes[n].name.clone(),
                    }
                }
                Err(message) => {
                    pending += 1;
                    PodAction::Pending { message }
                }
            };
            pods.push(PodVerdict { pod: k, action });
        }
        if again.len() == refused.len() && replaced.is_empty() && !again.is_empty() {
            // Nothing went this round: the refusals stand.
            todo.clear();
            break;
        }
        todo = again;
        if todo.is_empty() {
            refused.clear();
        }
    }
    for (k, message) in &refused {
        pods.push(PodVerdict {
            pod: k.clone(),
            action: PodAction::Blocked {
                reason: "EvictionRefused".to_string(),
                message: message.clone(),
            },
        });
    }
    sort(&mut pods);
    if let Some((_, message)) = refused.first() {
        // kubectl keeps retrying until --timeout: the node is not drained.
        return DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("EvictionRefused".to_string()),
            message: Some(message.clone()),
            pods,
        };
    }
    if pending > 0 {
        return DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("NoPlaceToMovePods".to_string()),
            message: Some(format!(
                "{pending} of the evicted pods' replacements fit on no node"
            )),
            pods,
        };
    }
    DrainVerdict::drainable(name, pods)
}

/// kubectl's filter errors have no identifiers: repel names them after the filter.
fn kubectl_reason(message: &str) -> &'static str {
    if message.contains("DaemonSet-managed Pods") {
        "DaemonSetPod"
    } else if message.starts_with("daemonsets.apps ") && message.ends_with(" not found") {
        "DaemonSetNotFound"
    } else if message.contains("Pods with local storage") {
        "LocalStorage"
    } else if message.contains("Pods that declare no controller") {
        "NotReplicated"
    } else {
        "Refused"
    }
}

/// Deletes pod `id` for good, wherever it is.
fn delete_for_good(c: &mut Cluster, id: PodId) {
    c.force_delete_pod(id);
}
