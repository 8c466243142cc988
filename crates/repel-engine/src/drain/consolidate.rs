//! Consolidation what-ifs: which nodes could be removed together, and where their
//! pods go — as cluster-autoscaler's scale-down would find them (`pkg/core/scaledown`:
//! eligibility, then the planner's removal simulation).
//!
//! 1. **Eligibility**: a node tainted `ToBeDeletedByClusterAutoscaler` less than 5 minutes
//!    ago is kept (`CurrentlyBeingDeleted`: cluster-autoscaler is deleting it); one annotated
//!    `cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"` is kept
//!    (`ScaleDownDisabledAnnotation`); so is one whose utilisation — the larger
//!    of its pods' CPU and memory requests over its allocatable, DaemonSet and mirror pods
//!    included (`--ignore-daemonsets-utilization` false) — is above
//!    `--scale-down-utilization-threshold` (0.5; exactly 0.5 is eligible): `NotUnderutilized`.
//!    A GPU node ([`node_gpu`]) is judged by its GPU's utilisation alone, against
//!    `--scale-down-gpu-utilization-threshold` (0.5).
//! 2. **Removal**: the eligible nodes, empty ones first (no pod to move), then the others, in
//!    input order within each group; each is judged as [`super::ca`] judges a drain, on the
//!    cluster with the earlier removals done (their pods where they moved, their budgets
//!    charged). A node that cannot be drained is kept with its reason.

use serde::Serialize;

use super::ca::{self, State};
use super::{DrainConfig, PodAction, PodsOn, Undo};
use crate::cluster::{Cluster, NodeId};

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

/// `GPUVendorResourceNames` (cluster-autoscaler `utils/gpu/gpu.go`), in its order.
pub const GPU_VENDOR_RESOURCE_NAMES: [&str; 5] = [
    "nvidia.com/gpu",
    "habana.ai/gaudi",
    "gpu.intel.com/xe",
    "amd.com/gpu",
    "microsoft.com/directx",
];

/// The cloud providers' `GPULabel`s repel knows (cluster-autoscaler reads only its own
/// provider's): GCE's (`cloudprovider/gce`) and AWS's (`cloudprovider/aws`).
pub const GPU_LABELS: [&str; 2] = [
    "cloud.google.com/gke-accelerator",
    "k8s.amazonaws.com/accelerator",
];

/// A node's GPU resource when it is a GPU node (cluster-autoscaler `utils/gpu/gpu.go`,
/// `GetNodeGPUFromCloudProvider`, release 1.37):
/// 1. `NodeHasGpu`: the node carries a GPU label ([`GPU_LABELS`]), or a non-zero allocatable
///    of one of [`GPU_VENDOR_RESOURCE_NAMES`] — GPU hardware, ready or not.
/// 2. `DetectNodeGPUResourceName`: the first of those resources with a non-zero
///    allocatable, else `nvidia.com/gpu`.
pub fn node_gpu(c: &Cluster, node: usize) -> Option<&'static str> {
    let n = &c.nodes[node];
    let allocated = GPU_VENDOR_RESOURCE_NAMES
        .into_iter()
        .find(|r| n.allocatable.scalar.get(*r).is_some_and(|v| *v != 0));
    let labelled = n
        .node
        .metadata
        .labels
        .as_ref()
        .is_some_and(|l| GPU_LABELS.iter().any(|k| l.contains_key(*k)));
    match allocated {
        Some(r) => Some(r),
        None if labelled => Some(GPU_VENDOR_RESOURCE_NAMES[0]),
        None => None,
    }
}

/// A node's utilisation as cluster-autoscaler computes it (`simulator/utilization/info.go`,
/// `Calculate`, release 1.37): requests over allocatable, per resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Utilization {
    /// CPU (0 on a GPU node, which is judged by its GPUs alone).
    pub cpu: f64,
    /// Memory (0 on a GPU node).
    pub memory: f64,
    /// The GPU resource and its utilisation, on a GPU node ([`node_gpu`]).
    pub gpu: Option<(&'static str, f64)>,
    /// The figure compared with the threshold: the GPU's on a GPU node, else the larger of
    /// CPU and memory.
    pub utilization: f64,
}

/// Requests over allocatable: 0 where nothing is allocatable (cluster-autoscaler's error
/// for a missing or zero allocatable; on a GPU node it means an unready GPU: 0, "so we can
/// still scale down a node with unready GPU").
fn ratio(used: i64, total: i64) -> f64 {
    if total <= 0 {
        0.0
    } else {
        used as f64 / total as f64
    }
}

/// Node `node`'s utilisation (`Calculate`): on a GPU node ([`node_gpu`]) its GPU's alone,
/// CPU and memory skipped; otherwise the larger of CPU and memory. DaemonSet and mirror pods
/// count (`--ignore-daemonsets-utilization` and `--ignore-mirror-pods-utilization` false).
pub fn utilization(c: &Cluster, node: usize) -> Utilization {
    let n = &c.nodes[node];
    if let Some(gpu) = node_gpu(c, node) {
        let used = n.requested.scalar.get(gpu).copied().unwrap_or(0);
        let total = n.allocatable.scalar.get(gpu).copied().unwrap_or(0);
        let u = ratio(used, total);
        return Utilization {
            cpu: 0.0,
            memory: 0.0,
            gpu: Some((gpu, u)),
            utilization: u,
        };
    }
    let cpu = ratio(n.requested.milli_cpu, n.allocatable.milli_cpu);
    let memory = ratio(n.requested.memory, n.allocatable.memory);
    Utilization {
        cpu,
        memory,
        gpu: None,
        utilization: cpu.max(memory),
    }
}

/// Consolidation as cluster-autoscaler finds it (see the module documentation); `threshold`
/// is `--scale-down-utilization-threshold`.
#[cfg(test)]
pub(crate) fn cluster_autoscaler(
    c: &Cluster,
    opts: &ca::Options,
    threshold: f64,
    cfg: &DrainConfig,
) -> ConsolidateReport {
    cluster_autoscaler_with(c, opts, threshold, cfg, None)
}

/// Consolidation as cluster-autoscaler finds it (see the module documentation), starting from
/// `compiled`, the compiled state of the run that scheduled `c` (else compiling `c` anew);
/// `threshold` is `--scale-down-utilization-threshold`.
pub(crate) fn cluster_autoscaler_with(
    c: &Cluster,
    opts: &ca::Options,
    threshold: f64,
    cfg: &DrainConfig,
    compiled: Option<crate::scheduler::fast::first_fit::FirstFit>,
) -> ConsolidateReport {
    cluster_autoscaler_in(c, opts, threshold, cfg, compiled, true)
}

/// [`cluster_autoscaler_with`]; `together` leaves the nodes that go in the working cluster,
/// buried (`ca::bury`), and removes them together when a judgement would see them, else
/// each when it goes (the tests compare both).
pub(crate) fn cluster_autoscaler_in(
    c: &Cluster,
    opts: &ca::Options,
    threshold: f64,
    cfg: &DrainConfig,
    compiled: Option<crate::scheduler::fast::first_fit::FirstFit>,
    together: bool,
) -> ConsolidateReport {
    let mut kept: Vec<(usize, Kept)> = Vec::new();
    let mut empty: Vec<String> = Vec::new();
    let mut busy: Vec<String> = Vec::new();
    let state0 = State::new(c);
    let on = super::PodsOn::new(c);
    for (i, n) in c.nodes.iter().enumerate() {
        if let Some(ago) = ca::being_deleted(c, i, cfg.now_unix) {
            kept.push((
                i,
                Kept {
                    node: n.name.clone(),
                    reason: "CurrentlyBeingDeleted".to_string(),
                    message: ca::being_deleted_message(ago),
                },
            ));
            continue;
        }
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
        let util = utilization(c, i);
        let u = util.utilization;
        // isNodeAtOrBelowUtilizationThreshold: a GPU node against the GPU threshold.
        let limit = match util.gpu {
            Some(_) => opts.scale_down_gpu_utilization_threshold,
            None => threshold,
        };
        if u > limit {
            let message = match util.gpu {
                Some((gpu, g)) => format!(
                    "utilization {u:.2} ({gpu} {g:.2}: a GPU node, judged by its GPUs alone) is above the GPU threshold {limit}"
                ),
                None => format!(
                    "utilization {u:.2} (cpu {:.2}, memory {:.2}) is above the threshold {limit}",
                    util.cpu, util.memory
                ),
            };
            kept.push((
                i,
                Kept {
                    node: n.name.clone(),
                    reason: "NotUnderutilized".to_string(),
                    message,
                },
            ));
            continue;
        }
        let movable = on.on(c, i).into_iter().any(|id| {
            matches!(
                ca::drainable(c, id, opts, &state0, cfg.now_unix),
                ca::Drainability::DrainOk
                    | ca::Drainability::Undefined
                    | ca::Drainability::Block(..)
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
    let mut sim = super::sim::Sim::new(c, cfg.gates, cfg.seed).with_first_fit(compiled);
    // The pods' FitError texts are not reported.
    sim.messages = false;
    let mut removable = Vec::new();
    for name in empty.iter().chain(busy.iter()) {
        let Some(node) = work.node_id(name) else {
            continue;
        };
        // Nodes gone stay in `work`, buried, until a judgement would see them (see
        // `ca::bury`).
        let node = if ca::buried_unseen(&work, node, opts, &state, cfg.now_unix, &sim) {
            node
        } else {
            ca::remove_buried(&mut work, &mut sim);
            match work.node_id(name) {
                Some(n) => n,
                None => continue,
            }
        };
        // A trial: its rotating start is kept only when the node goes.
        let mut trial_state = state.clone();
        let judged = ca::judge(&mut work, node, opts, cfg, &mut trial_state, &mut sim);
        let v = judged.verdict.clone();
        if v.drainable {
            if together {
                ca::retire(&mut work, node, judged, &mut trial_state, &mut sim);
                ca::bury(&work, node, &mut trial_state, &mut sim);
            } else {
                ca::commit(&mut work, node, judged, &mut trial_state, &mut sim);
            }
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
        } else {
            sim.undo(&mut work, judged.undo);
            if let Some(i) = c.node_id(name) {
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
    }
    kept.sort_by_key(|(i, _)| *i);
    ConsolidateReport {
        as_: "cluster-autoscaler",
        removable,
        kept: kept.into_iter().map(|(_, k)| k).collect(),
    }
}

/// A NodePool as Karpenter's consolidation reads it.
#[derive(Debug, Clone)]
pub struct KarpenterPool {
    /// Its name.
    pub name: String,
    /// `spec.disruption.consolidationPolicy` (default `WhenEmptyOrUnderutilized`).
    pub policy: Option<String>,
    /// `spec.disruption.consolidateAfter` as Karpenter holds it
    /// ([`repel_core::pools::consolidate_after`]: `0s` when unset); `None` is `Never`, which
    /// disables consolidation.
    pub consolidate_after: Option<String>,
}

/// Karpenter's multi-node batch cap (`maxParallel`).
const MAX_PARALLEL: usize = 100;

/// Removes the nodes `names` of `work` together, as Karpenter's consolidation simulates a
/// command (every candidate tainted `karpenter.sh/disrupted:NoSchedule` first, so no pod lands
/// on another candidate): the verdicts, or the first node that cannot go. The trial works on
/// `work` itself and puts every change back ([`Undo`]) when a node cannot go, or when it is
/// not to `commit`; committed, the nodes and the pods left on them are deleted. `on` lists the
/// pods on each node ([`PodsOn`], built once for the whole consolidation).
pub(super) fn remove_together(
    work: &mut Cluster,
    names: &[String],
    cfg: &DrainConfig,
    on: &PodsOn,
    commit: bool,
) -> Result<Vec<super::DrainVerdict>, super::DrainVerdict> {
    let mut undo = Undo::default();
    for name in names {
        if let Some(n) = work.node_id(name) {
            undo.node(work, n);
            super::karpenter::taint_disrupted(work, n);
        }
    }
    let mut verdicts = Vec::new();
    for name in names {
        let Some(n) = work.node_id(name) else {
            continue;
        };
        let v = super::karpenter::judge(work, n, cfg, on, &mut undo);
        if !v.drainable {
            undo.restore(work, None);
            return Err(v);
        }
        verdicts.push(v);
    }
    if !commit {
        undo.restore(work, None);
        return Ok(verdicts);
    }
    let gone: Vec<NodeId> = names.iter().filter_map(|n| work.node_id(n)).collect();
    for &n in &gone {
        for id in on.on(work, n) {
            work.force_delete_pod(id);
        }
    }
    work.delete_nodes(&gone);
    Ok(verdicts)
}

fn moved(v: super::DrainVerdict) -> Removable {
    Removable {
        node: v.node,
        pods: v
            .pods
            .into_iter()
            .filter_map(|p| match p.action {
                PodAction::Move { to } => Some(Moved { pod: p.pod, to }),
                _ => None,
            })
            .collect(),
    }
}

/// Consolidation as Karpenter finds it, deletion only (repel has no prices, so no replacement
/// by a cheaper node): nodes of a known NodePool (`karpenter.sh/nodepool`) whose pool has
/// consolidation on (`consolidateAfter` other than `Never`) and that
/// `karpenter.sh/do-not-disrupt` does not protect are candidates; then, as Karpenter's methods run pass after pass: **emptiness** (every
/// empty candidate at once), **multi-node** (the candidates of `WhenEmptyOrUnderutilized` pools,
/// fewest pods first, at most 100: the largest prefix of two or more that can all go together,
/// by binary search), **single-node** (the first that can go alone), until no method finds one.
pub(crate) fn karpenter(
    c: &Cluster,
    pools: &[KarpenterPool],
    cfg: &DrainConfig,
) -> ConsolidateReport {
    let mut kept: Vec<(usize, Kept)> = Vec::new();
    let mut candidates: Vec<(usize, String, bool)> = Vec::new(); // (index, name, underutilized ok)
    // A candidate node's NodePool, for the texts.
    let mut pool_of: std::collections::HashMap<String, String> = Default::default();
    for (i, n) in c.nodes.iter().enumerate() {
        let keep = |reason: &str, message: String| {
            (
                i,
                Kept {
                    node: n.name.clone(),
                    reason: reason.to_string(),
                    message,
                },
            )
        };
        let label = n
            .node
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(repel_core::pools::NODEPOOL_LABEL));
        let Some(pool) = label.and_then(|l| pools.iter().find(|p| &p.name == l)) else {
            kept.push(keep(
                "NotManaged",
                "node isn't managed by karpenter".to_string(),
            ));
            continue;
        };
        if pool.consolidate_after.is_none() {
            kept.push(keep(
                "ConsolidationDisabled",
                format!("NodePool {:?} has consolidation disabled", pool.name),
            ));
            continue;
        }
        if super::karpenter::do_not_disrupt(
            super::annotation(&n.node.metadata, super::karpenter::DO_NOT_DISRUPT),
            None,
            cfg.now_unix,
        ) {
            kept.push(keep(
                "DoNotDisrupt",
                format!(
                    "disruption is blocked through the {:?} annotation",
                    super::karpenter::DO_NOT_DISRUPT
                ),
            ));
            continue;
        }
        let underutilized = pool.policy.as_deref() != Some("WhenEmpty");
        pool_of.insert(n.name.clone(), pool.name.clone());
        candidates.push((i, n.name.clone(), underutilized));
    }
    // The pods on each node, for every cluster derived from `c` below (pods are only bound,
    // unbound and deleted there, which PodsOn follows).
    let on = PodsOn::new(c);
    // Reschedulable pods per candidate (Karpenter's disruption cost, simplified to their count).
    let reschedulable = |work: &Cluster, name: &str| -> usize {
        let Some(n) = work.node_id(name) else {
            return 0;
        };
        on.on(work, n)
            .into_iter()
            .filter(|id| {
                let p = &work.pods[*id];
                !ca::is_daemon_set_pod(p)
                    && !matches!(
                        p.phase,
                        crate::cluster::PodPhase::Succeeded | crate::cluster::PodPhase::Failed
                    )
            })
            .count()
    };
    let mut work = c.clone();
    let mut removable: Vec<Removable> = Vec::new();
    let mut last_refusal: std::collections::HashMap<String, super::DrainVerdict> =
        std::collections::HashMap::new();
    loop {
        let left: Vec<&(usize, String, bool)> = candidates
            .iter()
            .filter(|(_, name, _)| work.node_id(name).is_some())
            .collect();
        // Emptiness.
        let empty: Vec<String> = left
            .iter()
            .filter(|(_, name, _)| reschedulable(&work, name) == 0)
            .map(|(_, name, _)| name.clone())
            .collect();
        if !empty.is_empty()
            && let Ok(verdicts) = remove_together(&mut work, &empty, cfg, &on, true)
        {
            removable.extend(verdicts.into_iter().map(moved));
            continue;
        }
        let mut ordered: Vec<String> = left
            .iter()
            .filter(|(_, _, u)| *u)
            .map(|(_, name, _)| name.clone())
            .collect();
        ordered.sort_by_cached_key(|name| (reschedulable(&work, name), name.clone()));
        ordered.truncate(MAX_PARALLEL);
        // Multi-node: the largest prefix of two or more that goes together (each trial put
        // back; the largest then removed for good).
        let mut best: Option<usize> = None;
        if ordered.len() >= 2 {
            let (mut lo, mut hi) = (1usize, ordered.len() - 1);
            while lo <= hi {
                let mid = (lo + hi) / 2;
                match remove_together(&mut work, &ordered[..=mid], cfg, &on, false) {
                    Ok(_) => {
                        best = Some(mid);
                        lo = mid + 1;
                    }
                    Err(_) => {
                        if mid == 0 {
                            break;
                        }
                        hi = mid - 1;
                    }
                }
            }
        }
        if let Some(mid) = best
            && let Ok(verdicts) = remove_together(&mut work, &ordered[..=mid], cfg, &on, true)
        {
            removable.extend(verdicts.into_iter().map(moved));
            continue;
        }
        // Single-node.
        let mut done = false;
        for name in &ordered {
            match remove_together(&mut work, std::slice::from_ref(name), cfg, &on, true) {
                Ok(verdicts) => {
                    removable.extend(verdicts.into_iter().map(moved));
                    done = true;
                    break;
                }
                Err(v) => {
                    last_refusal.insert(name.clone(), v);
                }
            }
        }
        if !done {
            break;
        }
    }
    for (i, name, underutilized) in &candidates {
        if work.node_id(name).is_none() {
            continue;
        }
        let k = if !underutilized {
            // consolidation.go ShouldDisrupt's Unconsolidatable event.
            Kept {
                node: name.clone(),
                reason: "WhenEmpty".to_string(),
                message: format!(
                    "NodePool {:?} has non-empty consolidation disabled",
                    pool_of.get(name).map(String::as_str).unwrap_or_default()
                ),
            }
        } else if let Some(v) = last_refusal.remove(name) {
            Kept {
                node: name.clone(),
                reason: v.reason.unwrap_or_default(),
                message: v.message.unwrap_or_default(),
            }
        } else {
            Kept {
                node: name.clone(),
                reason: "NoPlaceToMovePods".to_string(),
                message: "its pods fit on no remaining node".to_string(),
            }
        };
        kept.push((*i, k));
    }
    kept.sort_by_key(|(i, _)| *i);
    ConsolidateReport {
        as_: "karpenter",
        removable,
        kept: kept.into_iter().map(|(_, k)| k).collect(),
    }
}
