//! Drain what-ifs: which nodes can go, what blocks them, and where every pod would
//! land — judged as `kubectl drain`, cluster-autoscaler or Karpenter would, each node's changes
//! put back ([`Undo`]) unless a sequence keeps them. The way in is [`crate::whatif`]: a session
//! on the scheduled cluster, [`crate::whatif::drain`] and [`crate::whatif::consolidate`].
//!
//! # Deciders
//! - **kubectl** ([`Decider::Kubectl`]): `kubectl drain`'s filters and messages
//!   ([`crate::kubectl::drain`]: DaemonSet and mirror pods, local storage, pods without
//!   a controller), then the evictions in order, each budget allowing what its
//!   `disruptionsAllowed` allows, and the replacement of every evicted pod with a controller
//!   placed by the default profile (filters and scores, as kube-scheduler) on the cluster with
//!   the node cordoned; refused evictions are retried, as kubectl retries them, once the
//!   replacements run and the budgets are recomputed, until a round moves nothing (then the
//!   node is not drainable, with kubectl's message). A pod without a controller that `--force`
//!   deletes is gone.
//! - **cluster-autoscaler** ([`Decider::ClusterAutoscaler`], [`ca`]): its drainability rules in
//!   their order, with its reasons and texts; then its simulation: the node kept as a pod-less
//!   copy tainted `ToBeDeletedByClusterAutoscaler=<unix seconds>:NoSchedule`, the pods to move
//!   by priority (highest first), each on the first node in a rotating order whose filters
//!   pass (no scores), stopping at the first that fits nowhere.
//!
//! - **karpenter** ([`Decider::Karpenter`], [`karpenter`]): `karpenter.sh/do-not-disrupt` on
//!   the node and its pods, budgets, pods tolerating `karpenter.sh/disrupted:NoSchedule` left
//!   alone, and Karpenter's own scheduling (every taint hard, `Gt`/`Lt` always on).
//!
//! # Several nodes
//! In the order given, each drain's outcome carried into the next — pods moved where they
//! went, the node cordoned (kubectl) or removed (cluster-autoscaler) — as a person draining
//! one by one; a node that cannot be drained leaves the cluster as it was. With `independent`
//! every node is judged against the unchanged cluster.
//!
//! # Outcome
//! Per node ([`DrainVerdict`]): drainable or not, with a reason (`BlockedByPod`,
//! `NoPlaceToMovePods`, `BlockedByOnCompletionPod`, or for kubectl `EvictionRefused`) and
//! message, and per pod what happens ([`PodAction`]): it moves (to a node), stays (DaemonSet
//! and mirror pods), is blocked (with its reason), stays pending (its replacement fits
//! nowhere: the FitError message), or is gone (deleted for good).

pub mod ca;
pub mod consolidate;
pub mod karpenter;
mod kubectl;
pub mod sim;

pub(crate) use kubectl::drain_kubectl_on;

use serde::Serialize;

use crate::cluster::{Cluster, NodeId, PodId, PodPhase};
use crate::kubectl::drain::DrainOptions;
use crate::scheduler::Scheduler;
use crate::scheduler::fast::first_fit::FirstFit;

/// Who judges the drain.
#[derive(Debug, Clone)]
pub enum Decider {
    /// `kubectl drain` with these flags.
    Kubectl(DrainOptions),
    /// cluster-autoscaler's scale-down simulation.
    ClusterAutoscaler(ca::Options),
    /// Karpenter's disruption rules and scheduling.
    Karpenter,
}

impl Decider {
    /// The decider's name in the output (`kubectl`, `cluster-autoscaler`).
    pub fn name(&self) -> &'static str {
        match self {
            Decider::Kubectl(_) => "kubectl",
            Decider::ClusterAutoscaler(_) => "cluster-autoscaler",
            Decider::Karpenter => "karpenter",
        }
    }
}

/// What happens to one pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum PodAction {
    /// It (its replacement) is scheduled on `to`.
    Move {
        /// The node.
        to: String,
    },
    /// It stays on the node.
    Stays {
        /// Why.
        why: String,
    },
    /// It blocks the drain.
    Blocked {
        /// The decider's identifier.
        reason: String,
        /// The decider's text.
        message: String,
    },
    /// Its replacement fits nowhere.
    Pending {
        /// The scheduler's FitError text.
        message: String,
    },
    /// It is deleted for good.
    Gone {
        /// Why.
        why: String,
    },
}

/// One pod's fate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodVerdict {
    /// `namespace/name`.
    pub pod: String,
    /// What happens to it.
    #[serde(flatten)]
    pub action: PodAction,
}

/// One node's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DrainVerdict {
    /// The node.
    pub node: String,
    /// Whether it can be drained.
    pub drainable: bool,
    /// Why not (`None` when drainable).
    pub reason: Option<String>,
    /// The decider's text (`None` when drainable).
    pub message: Option<String>,
    /// Every pod on the node.
    pub pods: Vec<PodVerdict>,
}

impl DrainVerdict {
    /// Node `node` can be drained; what happens to each of its pods.
    pub(crate) fn drainable(node: String, pods: Vec<PodVerdict>) -> Self {
        DrainVerdict {
            node,
            drainable: true,
            reason: None,
            message: None,
            pods,
        }
    }
}

/// The whole what-if.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DrainReport {
    /// The decider (`kubectl`, `cluster-autoscaler`).
    #[serde(rename = "as")]
    pub as_: &'static str,
    /// The nodes, in the order judged.
    pub nodes: Vec<DrainVerdict>,
}

/// Options of a what-if.
#[derive(Debug, Clone)]
pub struct DrainConfig {
    /// The decider.
    pub decider: Decider,
    /// Judge every node against the unchanged cluster.
    pub independent: bool,
    /// The time of the what-if, Unix seconds (cluster-autoscaler's taint value; pods being
    /// deleted for longer than their grace period are long-terminating).
    pub now_unix: i64,
    /// Feature gates.
    pub gates: repel_core::FeatureGates,
    /// The scheduler's seed (ties between equal scores).
    pub seed: u64,
}

/// An annotation of an object.
pub(crate) fn annotation<'a>(
    meta: &'a k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    key: &str,
) -> Option<&'a str> {
    meta.annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// The budgets cluster-autoscaler's tracker (`MatchingPdbs`) and Karpenter match to a pod: its
/// namespace's whose selector (an empty one selects everything, unlike the eviction API's)
/// matches its labels.
pub(crate) fn selecting_pdbs(c: &Cluster, p: &crate::cluster::PodInfo) -> Vec<usize> {
    c.pdbs
        .iter()
        .enumerate()
        .filter(|(_, pdb)| repel_core::workload::namespace_of(&pdb.metadata) == p.namespace)
        .filter(|(_, pdb)| {
            pdb.spec
                .as_ref()
                .and_then(|s| s.selector.as_ref())
                .and_then(|s| repel_core::labels::label_selector_from_api(s).ok())
                .is_some_and(|s| s.matches(p.labels()))
        })
        .map(|(i, _)| i)
        .collect()
}

/// A node that is not drained before any simulation: `pods` judged so far, the pods that
/// would have moved listed as staying (`why`), sorted.
pub(crate) fn not_drained(
    c: &Cluster,
    node: String,
    (reason, message): (&str, String),
    mut pods: Vec<PodVerdict>,
    unsimulated: &[PodId],
    why: &str,
) -> DrainVerdict {
    for id in unsimulated {
        pods.push(PodVerdict {
            pod: key(c, *id),
            action: PodAction::Stays {
                why: why.to_string(),
            },
        });
    }
    sort(&mut pods);
    DrainVerdict {
        node,
        drainable: false,
        reason: Some(reason.to_string()),
        message: Some(message),
        pods,
    }
}

/// `namespace/name` of a pod.
pub(crate) fn key(c: &Cluster, id: PodId) -> String {
    c.pods[id].key()
}

/// The pods on each node, read from the nodes' own lists plus one scan for the pods that name
/// a node without being bound to it: a what-if over thousands of nodes asks it per node. Pods
/// naming a node unbound do not appear during a what-if (replacements are bound, or pending
/// without a node name), so the scan stays valid; stale entries are filtered when read.
#[derive(Debug, Default)]
pub(crate) struct PodsOn {
    naming: std::collections::HashMap<String, Vec<PodId>>,
}

impl PodsOn {
    pub(crate) fn new(c: &Cluster) -> Self {
        let mut naming: std::collections::HashMap<String, Vec<PodId>> = Default::default();
        for (id, p) in c.pods.iter().enumerate() {
            if !p.deleted
                && p.node.is_none()
                && let Some(name) = p.spec_node_name()
            {
                naming.entry(name.to_string()).or_default().push(id);
            }
        }
        PodsOn { naming }
    }

    /// The live pods on node `node` (bound to it, or naming it), in the API's list order
    /// (namespace, then name).
    pub(crate) fn on(&self, c: &Cluster, node: NodeId) -> Vec<PodId> {
        let Some(n) = c.nodes.get(node) else {
            return Vec::new();
        };
        let mut ids: Vec<PodId> = n
            .pods
            .iter()
            .copied()
            .filter(|i| c.pods.get(*i).is_some_and(|p| !p.deleted))
            .collect();
        for &i in self.naming.get(&n.name).into_iter().flatten() {
            let p = &c.pods[i];
            if !p.deleted && p.node.is_none() && p.spec_node_name() == Some(n.name.as_str()) {
                ids.push(i);
            }
        }
        ids.sort_by(|a, b| {
            let (pa, pb) = (&c.pods[*a], &c.pods[*b]);
            (&pa.namespace, &pa.name).cmp(&(&pb.namespace, &pb.name))
        });
        ids.dedup();
        ids
    }
}

/// What a what-if changed on a cluster, to put it back afterwards instead of working on a copy
/// per node: each pod's node, phase, nomination, `spec.nodeName` and deletion, each node's
/// object, taints, `unschedulable` and the order of its lists, and each budget's status, as
/// they were before the first change.
#[derive(Debug, Default)]
pub struct Undo {
    pods: Vec<SavedPod>,
    nodes: Vec<SavedNode>,
    pdbs: Vec<(usize, Option<PdbStatus>)>,
    seen_pods: std::collections::HashSet<PodId>,
    seen_nodes: std::collections::HashSet<NodeId>,
    seen_pdbs: std::collections::HashSet<usize>,
}

type PdbStatus = k8s_openapi::api::policy::v1::PodDisruptionBudgetStatus;

#[derive(Debug)]
struct SavedPod {
    id: PodId,
    node: Option<NodeId>,
    phase: PodPhase,
    nominated: Option<NodeId>,
    node_name: Option<String>,
    deleted: bool,
    terminating: bool,
}

#[derive(Debug)]
struct SavedNode {
    id: NodeId,
    node: std::sync::Arc<k8s_openapi::api::core::v1::Node>,
    taints: Vec<k8s_openapi::api::core::v1::Taint>,
    unschedulable: bool,
    pods: Vec<PodId>,
    anti: Vec<PodId>,
    ports: Vec<crate::cluster::HostPort>,
}

impl Undo {
    /// Records pod `id` (and the node it is on) before it changes.
    pub(crate) fn pod(&mut self, c: &Cluster, id: PodId) {
        let Some(p) = c.pods.get(id) else {
            return;
        };
        if let Some(n) = p.node {
            self.node(c, n);
        }
        if self.seen_pods.insert(id) {
            self.pods.push(SavedPod {
                id,
                node: p.node,
                phase: p.phase,
                nominated: p.nominated,
                node_name: p.spec_node_name().map(str::to_string),
                deleted: p.deleted,
                terminating: p.terminating,
            });
        }
    }

    /// Records budget `index`'s status before it changes.
    pub(crate) fn pdb(&mut self, c: &Cluster, index: usize) {
        if let Some(b) = c.pdbs.get(index)
            && self.seen_pdbs.insert(index)
        {
            self.pdbs.push((index, b.status.clone()));
        }
    }

    /// Records node `id` before a pod is bound to it or it changes.
    pub(crate) fn node(&mut self, c: &Cluster, id: NodeId) {
        let Some(n) = c.nodes.get(id) else {
            return;
        };
        if self.seen_nodes.insert(id) {
            self.nodes.push(SavedNode {
                id,
                node: n.node.clone(),
                taints: n.taints.clone(),
                unschedulable: n.unschedulable,
                pods: n.pods.clone(),
                anti: n.pods_with_required_anti_affinity.clone(),
                ports: n.used_ports.clone(),
            });
        }
    }

    /// Puts everything recorded back; `ff`, when given, follows every bind and unbind.
    pub fn restore(
        self,
        c: &mut Cluster,
        mut ff: Option<&mut crate::scheduler::fast::first_fit::FirstFit>,
    ) {
        for saved in self.pods.iter().rev() {
            let id = saved.id;
            let now = c.pods[id].node;
            if now != saved.node {
                if let Some(n) = now {
                    c.unbind(id);
                    if let Some(ff) = ff.as_deref_mut() {
                        ff.moved(c, id, n, -1);
                    }
                }
                if let Some(n) = saved.node {
                    c.bind(id, n);
                    if let Some(ff) = ff.as_deref_mut() {
                        ff.moved(c, id, n, 1);
                    }
                }
            }
            let p = &mut c.pods[id];
            p.phase = saved.phase;
            p.nominated = None;
            p.set_spec_node_name(saved.node_name.clone());
            p.terminating = saved.terminating;
            if p.deleted != saved.deleted {
                p.deleted = saved.deleted;
                c.index_pod(id);
            }
            if saved.nominated.is_some() {
                c.set_nominated(id, saved.nominated);
            }
        }
        for (index, status) in self.pdbs {
            if let Some(b) = c.pdbs.get_mut(index) {
                b.status = status;
            }
        }
        for saved in self.nodes {
            let n = &mut c.nodes[saved.id];
            n.node = saved.node;
            n.taints = saved.taints;
            n.unschedulable = saved.unschedulable;
            n.pods = saved.pods;
            n.pods_with_required_anti_affinity = saved.anti;
            n.used_ports = saved.ports;
        }
    }
}

/// Takes pod `id` off its node and makes it a pending pod with no node (its replacement, as
/// the controller would create it).
pub(crate) fn unschedule(c: &mut Cluster, id: PodId) {
    c.unbind(id);
    let p = &mut c.pods[id];
    p.set_spec_node_name(None);
    p.phase = PodPhase::Pending;
    p.nominated = None;
}

/// The FitError text of pod `id` on `c` (every node filtered).
pub(crate) fn fit_error(sched: &mut Scheduler, c: &Cluster, id: PodId) -> String {
    let pod = c.pods[id].clone();
    sched.evaluate(c, &pod).message
}

/// The nodes among `names` that `c` holds, or the first unknown name.
pub fn resolve<'a>(c: &Cluster, names: &'a [String]) -> Result<Vec<&'a str>, &'a str> {
    names
        .iter()
        .map(|n| c.node_id(n).map(|_| n.as_str()).ok_or(n.as_str()))
        .collect()
}

/// Judges draining `nodes` (names `c` holds) of a copy of `c` (see the module documentation),
/// compiling the copy anew: what a scenario's `drainable:` expectation asks at an instant.
/// [`crate::whatif::drain`] is the what-if on a scheduled [`crate::whatif::Session`].
pub(crate) fn on_copy(c: &Cluster, nodes: &[&str], cfg: &DrainConfig) -> DrainReport {
    match &cfg.decider {
        Decider::Karpenter => drain_karpenter_on(&mut c.clone(), nodes, cfg, true).0,
        _ => in_place(&mut c.clone(), nodes, cfg, &mut None),
    }
}

/// The what-if as Karpenter on `work`: every taint made hard once, then each node judged with
/// the compiled first fit ([`karpenter::judge_in`]) and put back ([`Undo`]) unless it is
/// drained in a sequence (then it is tainted `karpenter.sh/disrupted` and the compiled state
/// built again). `compiled` false asks the reference for every first fit (tests compare both).
/// Returns the report and how many first fits and FitErrors each path answered.
pub(crate) fn drain_karpenter_on(
    work: &mut Cluster,
    nodes: &[&str],
    cfg: &DrainConfig,
    compiled: bool,
) -> (DrainReport, (usize, usize)) {
    karpenter::harden_taints(work, None);
    let mut sim = sim::Sim::new(work, karpenter::gates(cfg), cfg.seed);
    sim.compiled = compiled;
    each_node(work, nodes, cfg, sim, None, |work, node, sim| {
        let mut undo = Undo::default();
        let verdict = karpenter::judge_in(work, node, cfg, sim, &mut undo);
        if verdict.drainable && !cfg.independent {
            karpenter::taint_disrupted(work, node);
            sim.node_changed();
        } else {
            sim.undo(work, undo);
        }
        verdict
    })
}

/// Judges `nodes` of `work` in order with `judge` (which keeps a drainable node's changes in
/// a sequence and puts the others back), names `work` no longer holds skipped (a node given
/// twice and removed by its first drain); when `independent`, the compiled state is handed
/// back in `ff`, the cluster being as it was. Returns the report and `sim`'s answer counts.
fn each_node(
    work: &mut Cluster,
    nodes: &[&str],
    cfg: &DrainConfig,
    mut sim: sim::Sim,
    ff: Option<&mut Option<FirstFit>>,
    mut judge: impl FnMut(&mut Cluster, NodeId, &mut sim::Sim) -> DrainVerdict,
) -> (DrainReport, (usize, usize)) {
    let mut out = Vec::new();
    for name in nodes {
        if let Some(node) = work.node_id(name) {
            out.push(judge(work, node, &mut sim));
        }
    }
    if let Some(ff) = ff
        && cfg.independent
    {
        *ff = sim.take_first_fit();
    }
    (
        DrainReport {
            as_: cfg.decider.name(),
            nodes: out,
        },
        sim.answered,
    )
}

/// Judges `nodes` of `c` itself as kubectl or cluster-autoscaler, starting from the compiled
/// state in `compiled` (else compiling `c` on first use), leaving `c` as the sequence leaves it
/// (unchanged when `independent`) and handing the compiled state back in `compiled` when the
/// what-ifs left `c` as it was: another what-if on the same cluster starts from it. Karpenter's
/// works on a copy (it hardens every taint first) and leaves `c` unchanged.
pub(crate) fn in_place(
    c: &mut Cluster,
    nodes: &[&str],
    cfg: &DrainConfig,
    compiled: &mut Option<FirstFit>,
) -> DrainReport {
    match &cfg.decider {
        Decider::ClusterAutoscaler(opts) => drain_ca_on(c, nodes, opts, cfg, compiled, true).0,
        Decider::Kubectl(opts) => drain_kubectl_on(c, nodes, opts, cfg, compiled, true).0,
        Decider::Karpenter => drain_karpenter_on(&mut c.clone(), nodes, cfg, true).0,
    }
}

/// The what-if as cluster-autoscaler on `work` (left as the sequence leaves it: unchanged when
/// `independent`): one working cluster, each judgement put back ([`Undo`]) unless the node
/// goes, and the compiled first fit (`compiled`, else built on first use) kept from node to
/// node.
/// `compiled` false asks the reference scheduler for every first fit (tests compare both).
/// Returns the report and how many first fits the compiled path and the reference answered.
pub(crate) fn drain_ca_on(
    work: &mut Cluster,
    nodes: &[&str],
    opts: &ca::Options,
    cfg: &DrainConfig,
    ff: &mut Option<FirstFit>,
    compiled: bool,
) -> (DrainReport, (usize, usize)) {
    let mut state = ca::State::new(work);
    let mut sim = sim::Sim::new(work, cfg.gates, cfg.seed).with_first_fit(ff.take());
    sim.compiled = compiled;
    each_node(work, nodes, cfg, sim, Some(ff), |work, node, sim| {
        let judged = ca::judge(work, node, opts, cfg, &mut state, sim);
        let verdict = judged.verdict.clone();
        if verdict.drainable && !cfg.independent {
            ca::commit(work, node, judged, &mut state, sim);
        } else {
            sim.undo(work, judged.undo);
        }
        verdict
    })
}

/// Pods in the API's order (namespace, then name).
pub(crate) fn sort(pods: &mut [PodVerdict]) {
    pods.sort_by(|a, b| a.pod.cmp(&b.pod));
}

#[cfg(test)]
mod tests;
