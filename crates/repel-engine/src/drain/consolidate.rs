//! Consolidation what-ifs (issue 15): which nodes could be removed together, and where their
//! pods go — as cluster-autoscaler's scale-down would find them (`pkg/core/scaledown`:
//! eligibility, then the planner's removal simulation).
//!
//! 1. **Eligibility**: a node annotated `cluster-autoscaler.kubernetes.io/scale-down-disabled:
//!    "true"` is kept (`ScaleDownDisabledAnnotation`); so is one whose utilisation — the larger
//!    of its pods' CPU and memory requests over its allocatable, DaemonSet and mirror pods
//!    included (`--ignore-daemonsets-utilization` false) — is above
//!    `--scale-down-utilization-threshold` (0.5; exactly 0.5 is eligible): `NotUnderutilized`.
//! 2. **Removal**: the eligible nodes, empty ones first (no pod to move), then the others, in
//!    input order within each group; each is judged as [`super::ca`] judges a drain, on the
//!    cluster with the earlier removals done (their pods where they moved, their budgets
//!    charged). A node that cannot be drained is kept with its reason.

use serde::Serialize;

use super::ca::{self, State};
use super::{DrainConfig, PodAction, pods_on};
use crate::cluster::Cluster;

/// A pod of a removable node, and where it goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Moved {
    /// `namespace/name`.
    pub pod: String,
    /// The node it moves to.
    pub to: String,
}

/// A node that can go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removable {
    /// The node.
    pub node: String,
    /// Its pods that move (DaemonSet and mirror pods go with the node).
    pub pods: Vec<Moved>,
}

/// A node that stays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kept {
    /// The node.
    pub node: String,
    /// cluster-autoscaler's `UnremovableReason`.
    pub reason: String,
    /// What it found.
    pub message: String,
}

/// The whole what-if.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsolidateReport {
    /// The decider.
    #[serde(rename = "as")]
    pub as_: &'static str,
    /// The nodes that can go, in the order removed.
    pub removable: Vec<Removable>,
    /// The nodes that stay, in input order.
    pub kept: Vec<Kept>,
}

/// A node's utilisation: (cpu, memory) requests over allocatable.
pub fn utilization(c: &Cluster, node: usize) -> (f64, f64) {
    let n = &c.nodes[node];
    let ratio = |used: i64, total: i64| {
        if total <= 0 {
            0.0
        } else {
            used as f64 / total as f64
        }
    };
    (
        ratio(n.requested.milli_cpu, n.allocatable.milli_cpu),
        ratio(n.requested.memory, n.allocatable.memory),
    )
}

/// Consolidation as cluster-autoscaler finds it (see the module documentation); `threshold`
/// is `--scale-down-utilization-threshold`.
pub fn cluster_autoscaler(
    c: &Cluster,
    opts: &ca::Options,
    threshold: f64,
    cfg: &DrainConfig,
) -> ConsolidateReport {
    let mut kept: Vec<(usize, Kept)> = Vec::new();
    let mut empty: Vec<String> = Vec::new();
    let mut busy: Vec<String> = Vec::new();
    let state0 = State::new(c);
    for (i, n) in c.nodes.iter().enumerate() {
        let disabled = n
            .node
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(ca::SCALE_DOWN_DISABLED))
            .is_some_and(|v| v == "true");
        if disabled {
            kept.push((
                i,
                Kept {
                    node: n.name.clone(),
                    reason: "ScaleDownDisabledAnnotation".to_string(),
                    message: format!("{}: \"true\"", ca::SCALE_DOWN_DISABLED),
                },
            ));
            continue;
        }
        let (cpu, mem) = utilization(c, i);
        let u = cpu.max(mem);
        if u > threshold {
            kept.push((
                i,
                Kept {
                    node: n.name.clone(),
                    reason: "NotUnderutilized".to_string(),
                    message: format!(
                        "utilization {u:.2} (cpu {cpu:.2}, memory {mem:.2}) is above the threshold {threshold}"
                    ),
                },
            ));
            continue;
        }
        let movable = pods_on(c, i).into_iter().any(|id| {
            matches!(
                ca::drainable(c, id, opts, &state0, cfg.now_unix),
                ca::Status::DrainOk | ca::Status::Undefined | ca::Status::Block(..)
            ) && !ca::is_daemon_set_pod(&c.pods[id])
        });
        if movable {
            busy.push(n.name.clone());
        } else {
            empty.push(n.name.clone());
        }
    }
    let mut work = c.clone();
    let mut state = State::new(c);
    let mut removable = Vec::new();
    for name in empty.iter().chain(busy.iter()) {
        let Some(node) = work.node_id(name) else {
            continue;
        };
        let mut trial = work.clone();
        let mut trial_state = state.clone();
        let v = ca::judge(&mut trial, node, opts, cfg, &mut trial_state, true);
        if v.drainable {
            work = trial;
            state = trial_state;
            removable.push(Removable {
                node: v.node,
                pods: v
                    .pods
                    .into_iter()
                    .filter_map(|p| match p.action {
                        PodAction::Move { to } => Some(Moved { pod: p.pod, to }),
                        _ => None,
                    })
                    .collect(),
            });
        } else if let Some(i) = c.node_id(name) {
            kept.push((
                i,
                Kept {
                    node: v.node,
                    reason: v.reason.unwrap_or_default(),
                    message: v.message.unwrap_or_default(),
                },
            ));
        }
    }
    kept.sort_by_key(|(i, _)| *i);
    ConsolidateReport {
        as_: "cluster-autoscaler",
        removable,
        kept: kept.into_iter().map(|(_, k)| k).collect(),
    }
}
