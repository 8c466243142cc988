//! kube-scheduler's scheduling cycle with the default profile (upstream v1.35): queue order,
//! PreFilter/Filter over the nodes (with `percentageOfNodesToScore` and a round-robin start),
//! PreScore/Score/NormalizeScore with the profile's weights, host selection among the best
//! (ties broken at random from a seeded generator), and DefaultPreemption as PostFilter.
//!
//! Upstream runs Filter on 16 goroutines and stops when enough feasible nodes are found; repel
//! checks nodes one by one in the same round-robin order, so which nodes are found first is
//! deterministic where upstream's is not.

pub mod fast;
mod filter;
pub mod framework;
pub mod plugins;
pub mod preemption;

use std::collections::BTreeSet;

use repel_core::FeatureGates;
use repel_core::fit_error::{NO_NODES_AVAILABLE, fit_error_counted};

use crate::cluster::{Cluster, NodeId, PodId, PodInfo};
use crate::rng::Rng;
use framework::{Code, CycleState, MAX_NODE_SCORE, Plugin, Status};
use plugins::{
    balanced_allocation, image_locality, inter_pod_affinity, node_affinity, node_name, node_ports,
    node_resources_fit, node_unschedulable, pod_topology_spread, taint_toleration,
};

/// Upstream `minFeasibleNodesToFind`.
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// Upstream `minFeasibleNodesPercentageToFind`.
pub const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;

/// One plugin in a profile: whether it filters, and its score weight if it scores.
pub struct Entry {
    /// The plugin.
    pub plugin: Box<dyn Plugin>,
    /// Runs at PreFilter/Filter.
    pub filter: bool,
    /// Runs at PreScore/Score with this weight.
    pub weight: Option<i64>,
}

/// A scheduling profile: plugins in upstream's Filter order.
pub struct Profile {
    /// The plugins.
    pub entries: Vec<Entry>,
}

impl Profile {
    /// Upstream's default profile (v1.35), the plugins repel models, in Filter order:
    /// NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit,
    /// PodTopologySpread, InterPodAffinity; scores TaintToleration 3, NodeAffinity 2,
    /// PodTopologySpread 2, InterPodAffinity 2, NodeResourcesFit 1,
    /// NodeResourcesBalancedAllocation 1, ImageLocality 1. (Volume plugins and DynamicResources
    /// have nothing to act on in repel's inputs.)
    pub fn default_profile(gates: FeatureGates) -> Self {
        let e = |plugin: Box<dyn Plugin>, filter: bool, weight: Option<i64>| Entry {
            plugin,
            filter,
            weight,
        };
        Profile {
            entries: vec![
                e(
                    Box::new(node_unschedulable::NodeUnschedulable { gates }),
                    true,
                    None,
                ),
                e(Box::new(node_name::NodeName), true, None),
                e(
                    Box::new(taint_toleration::TaintToleration { gates }),
                    true,
                    Some(taint_toleration::WEIGHT),
                ),
                e(
                    Box::new(node_affinity::NodeAffinity),
                    true,
                    Some(node_affinity::WEIGHT),
                ),
                e(Box::new(node_ports::NodePorts), true, None),
                e(
                    Box::<node_resources_fit::NodeResourcesFit>::default(),
                    true,
                    Some(node_resources_fit::WEIGHT),
                ),
                e(
                    Box::new(pod_topology_spread::PodTopologySpread { gates }),
                    true,
                    Some(pod_topology_spread::WEIGHT),
                ),
                e(
                    Box::<inter_pod_affinity::InterPodAffinity>::default(),
                    true,
                    Some(inter_pod_affinity::WEIGHT),
                ),
                e(
                    Box::<balanced_allocation::BalancedAllocation>::default(),
                    false,
                    Some(balanced_allocation::WEIGHT),
                ),
                e(
                    Box::new(image_locality::ImageLocality),
                    false,
                    Some(image_locality::WEIGHT),
                ),
            ],
        }
    }

    fn filters(&self) -> impl Iterator<Item = &dyn Plugin> {
        self.entries
            .iter()
            .filter(|e| e.filter)
            .map(|e| e.plugin.as_ref())
    }
}

/// A plugin's score weight in the default profile (TaintToleration 3; NodeAffinity,
/// PodTopologySpread, InterPodAffinity 2; NodeResourcesFit, NodeResourcesBalancedAllocation,
/// ImageLocality 1).
pub fn default_weight(plugin: &str) -> Option<i64> {
    Profile::default_profile(FeatureGates::default())
        .entries
        .iter()
        .find(|e| e.plugin.name() == plugin)
        .and_then(|e| e.weight)
}

/// One plugin's part of a node's score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginScore {
    /// The plugin.
    pub plugin: &'static str,
    /// Normalised score `0..=100`, before the weight.
    pub score: i64,
    /// The plugin's weight.
    pub weight: i64,
}

/// A feasible node's scores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeScore {
    /// The node.
    pub node: NodeId,
    /// Per plugin.
    pub plugins: Vec<PluginScore>,
    /// The weighted sum.
    pub total: i64,
}

/// What the filters said, node by node.
///
/// Rejections are kept as a table of statuses and, per node, an index into it: the reference
/// path adds one entry per rejected node ([`Diagnosis::reject`]); the compiled scheduler (`FastScheduler`) adds
/// each distinct status once and points many nodes at it ([`Diagnosis::intern`],
/// [`Diagnosis::reject_as`]), so a pod no node fits costs no allocation per node.
#[derive(Debug, Clone, Default)]
pub struct Diagnosis {
    /// Statuses of rejected nodes (see [`Diagnosis::status`]).
    table: Vec<Status>,
    /// Per node: its status's index in `table`, [`Diagnosis::NONE`] when not rejected.
    of_node: Vec<u32>,
    /// The status of nodes not examined because PreFilter narrowed the nodes (or rejected the pod).
    pub absent: Option<Status>,
    /// A PreFilter rejection's message.
    pub pre_filter_msg: Option<String>,
    /// An internal error (a plugin's Error status): the cycle fails with it, no PostFilter runs.
    pub error: Option<String>,
}

impl Diagnosis {
    const NONE: u32 = u32::MAX;

    /// A node's status: its own, the absent status, or success.
    pub fn status(&self, node: NodeId) -> Option<&Status> {
        self.own(node).or(self.absent.as_ref())
    }

    /// The node's own status (it was examined and rejected).
    fn own(&self, node: NodeId) -> Option<&Status> {
        match self.of_node.get(node) {
            Some(&i) if i != Self::NONE => self.table.get(i as usize),
            _ => None,
        }
    }

    /// Records `node`'s rejection.
    pub fn reject(&mut self, node: NodeId, status: Status) {
        let i = self.intern(status);
        self.reject_as(node, i);
    }

    /// Adds a status to the table; returns its index for [`Diagnosis::reject_as`].
    pub fn intern(&mut self, status: Status) -> u32 {
        self.table.push(status);
        (self.table.len() - 1) as u32
    }

    /// Records `node`'s rejection with the status at `index` (from [`Diagnosis::intern`]).
    pub fn reject_as(&mut self, node: NodeId, index: u32) {
        if self.of_node.len() <= node {
            self.of_node.resize(node + 1, Self::NONE);
        }
        self.of_node[node] = index;
    }

    /// The rejected nodes and their statuses, in node order.
    pub fn rejected(&self) -> impl Iterator<Item = (NodeId, &Status)> {
        (0..self.of_node.len()).filter_map(|n| self.own(n).map(|s| (n, s)))
    }

    /// Every reason of the first `n` nodes' statuses, each with how many times it occurs.
    fn reason_counts(&self, n: usize) -> Vec<(&str, usize)> {
        let mut per_entry = vec![0usize; self.table.len()];
        let mut absent = 0usize;
        for node in 0..n {
            match self.of_node.get(node) {
                Some(&i) if i != Self::NONE => {
                    if let Some(c) = per_entry.get_mut(i as usize) {
                        *c += 1;
                    }
                }
                _ => absent += 1,
            }
        }
        let entries = self.table.iter().zip(per_entry);
        let absent = self.absent.iter().map(|st| (st, absent));
        entries
            .chain(absent)
            .filter(|(_, k)| *k > 0)
            .flat_map(|(st, k)| st.reasons.iter().map(move |r| (r.as_str(), k)))
            .collect()
    }
}

/// A full evaluation of one pod against every node (what `explain` shows).
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// Rejections.
    pub diagnosis: Diagnosis,
    /// Feasible nodes in node order.
    pub feasible: Vec<NodeId>,
    /// Scores of the feasible nodes (empty when fewer than two, as upstream does not score then).
    pub scores: Vec<NodeScore>,
    /// The FitError text when nothing is feasible (with the PostFilter suffix), else empty.
    pub message: String,
    /// When nothing is feasible and preemption would help: the node it would nominate and the
    /// pods it would remove.
    pub preemption: Option<(NodeId, Vec<PodId>)>,
}

/// The result of scheduling one pod.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Bound to a node.
    Scheduled {
        /// The node.
        node: NodeId,
        /// The winning node's weighted score (`None` when it was the only feasible node and
        /// upstream skips scoring). Only the winner's is kept: a batch of 30,000 pods over 1,000
        /// nodes would otherwise hold 30 million node scores.
        score: Option<i64>,
    },
    /// No node fits.
    Unschedulable {
        /// Upstream's FitError text.
        message: String,
        /// Node nominated by preemption, with the victims removed for it.
        nominated: Option<(NodeId, Vec<PodId>)>,
    },
}

/// The scheduler: a profile, `percentageOfNodesToScore`, the round-robin start, the seeded
/// generator for ties.
pub struct Scheduler {
    /// The profile.
    pub profile: Profile,
    /// `percentageOfNodesToScore`: `None` (or 0) for upstream's adaptive default.
    pub percentage_of_nodes_to_score: Option<i64>,
    /// Upstream `nextStartNodeIndex`.
    pub next_start_node_index: usize,
    /// Whether preemption leaves its victims to the caller, which deletes them gracefully
    /// (the over-time drivers: [`crate::control_plane`], through
    /// [`preemption::prepare_candidate`]); otherwise (a one-shot batch, which has no clock)
    /// the victims are removed from the cluster at once.
    pub graceful_preemption: bool,
    rng: Rng,
}

impl Scheduler {
    /// A scheduler with the default profile.
    pub fn new(gates: FeatureGates, percentage_of_nodes_to_score: Option<i64>, seed: u64) -> Self {
        Scheduler {
            profile: Profile::default_profile(gates),
            percentage_of_nodes_to_score,
            next_start_node_index: 0,
            graceful_preemption: false,
            rng: Rng::new(seed),
        }
    }

    /// Starts again as [`Scheduler::new`] with `seed` left it: the round-robin index at the
    /// first node, the tie-break generator seeded anew (a what-if judges each node from the
    /// same start).
    pub fn reseed(&mut self, seed: u64) {
        self.next_start_node_index = 0;
        self.rng = Rng::new(seed);
    }

    /// Upstream `numFeasibleNodesToFind`:
    ///
    /// 1. Fewer than 100 nodes: all of them.
    /// 2. The percentage, or when unset `50 - nodes/125`, at least 5.
    /// 3. `nodes * percentage / 100`, at least 100.
    pub fn num_feasible_nodes_to_find(&self, num_all_nodes: usize) -> usize {
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND {
            return num_all_nodes;
        }
        let mut percentage = self.percentage_of_nodes_to_score.unwrap_or(0);
        if percentage <= 0 {
            percentage =
                (50 - num_all_nodes as i64 / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
        }
        let n = (num_all_nodes as i64 * percentage.min(100) / 100) as usize;
        n.max(MIN_FEASIBLE_NODES_TO_FIND)
    }

    /// PreScore, Score and NormalizeScore over the feasible nodes, weighted and summed
    /// (upstream `prioritizeNodes`).
    pub fn score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        feasible: &[NodeId],
        cluster: &Cluster,
    ) -> Vec<NodeScore> {
        let nodes: Vec<&crate::cluster::NodeInfo> =
            feasible.iter().map(|i| &cluster.nodes[*i]).collect();
        let mut out: Vec<NodeScore> = feasible
            .iter()
            .map(|n| NodeScore {
                node: *n,
                plugins: Vec::new(),
                total: 0,
            })
            .collect();
        for entry in self.profile.entries.iter().filter(|e| e.weight.is_some()) {
            let pl = entry.plugin.as_ref();
            let weight = entry.weight.unwrap_or(0);
            let st = pl.pre_score(state, pod, &nodes, cluster);
            if st.code == Code::Skip {
                continue;
            }
            let mut raw: Vec<i64> = nodes
                .iter()
                .map(|n| pl.score(state, pod, n, cluster).unwrap_or(0))
                .collect();
            pl.normalize_score(state, pod, &mut raw);
            for (ns, s) in out.iter_mut().zip(raw) {
                let s = s.clamp(0, MAX_NODE_SCORE);
                ns.plugins.push(PluginScore {
                    plugin: pl.name(),
                    score: s,
                    weight,
                });
                ns.total += s * weight;
            }
        }
        out
    }

    /// Upstream `selectHost`: the highest total; among equals, each is chosen with equal
    /// probability (reservoir sampling in node order), from the seeded generator.
    pub(crate) fn select_host(&mut self, scores: &[NodeScore]) -> Option<NodeId> {
        let best = scores.iter().map(|s| s.total).max()?;
        let mut chosen = None;
        let mut count = 0u64;
        for s in scores.iter().filter(|s| s.total == best) {
            count += 1;
            if self.rng.below(count) == 0 {
                chosen = Some(s.node);
            }
        }
        chosen
    }

    /// The FitError text for a diagnosis, with the default profile's PostFilter message.
    pub fn fit_error_message(
        cluster: &Cluster,
        diagnosis: &Diagnosis,
        post_filter: &str,
    ) -> String {
        let n = cluster.nodes.len();
        if let Some(msg) = &diagnosis.pre_filter_msg {
            let mut s = format!("0/{n} nodes are available: {msg}.");
            if !post_filter.is_empty() {
                s.push(' ');
                s.push_str(post_filter);
            }
            return s;
        }
        fit_error_counted(n, diagnosis.reason_counts(n), Some(post_filter))
    }

    /// Evaluates `pod` against every node, as `explain` shows it: every node filtered, the
    /// feasible ones scored, and the FitError text (with preemption's what-if message) when none fits.
    /// The filtering is [`Scheduler::evaluate_filters`]'s; the scores are added to it.
    pub fn evaluate(&mut self, cluster: &Cluster, pod: &PodInfo) -> Evaluation {
        let mut state = CycleState::default();
        let mut eval = self.filter_stage(&mut state, cluster, pod);
        if !eval.feasible.is_empty() {
            eval.scores = self.score(&mut state, pod, &eval.feasible, cluster);
        }
        eval
    }

    /// [`Scheduler::evaluate`] without the scores (`scores` is empty): PreFilter and Filter on
    /// every node, and when none passes, PostFilter (DefaultPreemption's what-if) and the
    /// FitError text as [`Scheduler::schedule_one`] builds it (upstream `schedulePod`'s
    /// `findNodesThatFitPod` and `ScheduleOne`'s PostFilter, v1.35). For callers that read
    /// the verdicts, not the ranking: PreScore and Score are most of an evaluation's cost.
    pub fn evaluate_filters(&mut self, cluster: &Cluster, pod: &PodInfo) -> Evaluation {
        self.filter_stage(&mut CycleState::default(), cluster, pod)
    }

    /// The filter stage both evaluations share: every node filtered (`find_all`), then the
    /// diagnosis's error, or PostFilter and the FitError text when no node passed. `state` is
    /// left as PreFilter set it, for scoring.
    fn filter_stage(
        &mut self,
        state: &mut CycleState,
        cluster: &Cluster,
        pod: &PodInfo,
    ) -> Evaluation {
        if cluster.nodes.is_empty() {
            return Evaluation {
                diagnosis: Diagnosis::default(),
                feasible: Vec::new(),
                scores: Vec::new(),
                message: NO_NODES_AVAILABLE.to_string(),
                preemption: None,
            };
        }
        let (feasible, diagnosis) = self.find_nodes_that_fit(state, pod, cluster, true);
        let mut preemption = None;
        let message = if let Some(err) = &diagnosis.error {
            err.clone()
        } else if feasible.is_empty() {
            let post = preemption::post_filter(self, cluster, state, pod, &diagnosis);
            preemption = post.nominated.map(|n| (n, post.victims.clone()));
            Self::fit_error_message(cluster, &diagnosis, &post.message)
        } else {
            String::new()
        };
        Evaluation {
            diagnosis,
            feasible,
            scores: Vec::new(),
            message,
            preemption,
        }
    }

    /// One scheduling cycle for `pod` (upstream `schedulePod` + PostFilter): binds it on
    /// success; on failure runs DefaultPreemption, which may remove victims and nominate a node.
    pub fn schedule_one(&mut self, cluster: &mut Cluster, pod: PodId) -> Outcome {
        let Some(info) = cluster.pods.get(pod).cloned() else {
            return Outcome::Unschedulable {
                message: String::new(),
                nominated: None,
            };
        };
        if cluster.nodes.is_empty() {
            return Outcome::Unschedulable {
                message: NO_NODES_AVAILABLE.to_string(),
                nominated: None,
            };
        }
        let mut state = CycleState::default();
        let (feasible, diagnosis) = self.find_nodes_that_fit(&mut state, &info, cluster, false);
        if feasible.len() == 1 {
            cluster.bind(pod, feasible[0]);
            return Outcome::Scheduled {
                node: feasible[0],
                score: None,
            };
        }
        if !feasible.is_empty() {
            let scores = self.score(&mut state, &info, &feasible, cluster);
            if let Some(node) = self.select_host(&scores) {
                cluster.bind(pod, node);
                let score = scores.iter().find(|s| s.node == node).map(|s| s.total);
                return Outcome::Scheduled { node, score };
            }
        }
        self.unschedulable(cluster, pod, &state, &diagnosis)
    }

    /// The end of a cycle no node passed: the diagnosis's error, or PostFilter (preemption,
    /// whose victims are removed and whose node is nominated) and the FitError text.
    pub(crate) fn unschedulable(
        &self,
        cluster: &mut Cluster,
        pod: PodId,
        state: &CycleState,
        diagnosis: &Diagnosis,
    ) -> Outcome {
        if let Some(err) = &diagnosis.error {
            return Outcome::Unschedulable {
                message: err.clone(),
                nominated: None,
            };
        }
        let Some(info) = cluster.pods.get(pod) else {
            return Outcome::Unschedulable {
                message: String::new(),
                nominated: None,
            };
        };
        let post = preemption::post_filter(self, cluster, state, info, diagnosis);
        let message = Self::fit_error_message(cluster, diagnosis, &post.message);
        if post.clear_nomination {
            cluster.set_nominated(pod, None);
        }
        let nominated = post.nominated.map(|node| {
            if !self.graceful_preemption {
                for v in &post.victims {
                    cluster.unbind(*v);
                }
            }
            cluster.set_nominated(pod, Some(node));
            (node, post.victims.clone())
        });
        Outcome::Unschedulable { message, nominated }
    }

    /// Upstream PrioritySort: higher `priority` first, then earlier creation.
    pub fn queue_order(cluster: &Cluster, pods: &mut [PodId]) {
        // A stable sort by (priority, seq), on a compact array of the keys and the pods'
        // places (unique: an unstable sort gives the stable order) rather than reading the
        // pods' records at every comparison.
        let mut keyed: Vec<(std::cmp::Reverse<i32>, u64, usize)> = pods
            .iter()
            .enumerate()
            .map(|(i, id)| {
                cluster
                    .pods
                    .get(*id)
                    .map_or((std::cmp::Reverse(i32::MIN), u64::MAX, i), |p| {
                        (std::cmp::Reverse(p.priority), p.seq as u64, i)
                    })
            })
            .collect();
        keyed.sort_unstable();
        let order: Vec<PodId> = keyed.iter().map(|k| pods[k.2]).collect();
        pods.copy_from_slice(&order);
    }
}

/// The node a pod was nominated for by an earlier preemption: its `nominated`, else its
/// `status.nominatedNodeName` when that names a node.
pub fn nominated_node(cluster: &Cluster, pod: &PodInfo) -> Option<NodeId> {
    pod.nominated.or_else(|| {
        let name = pod.status.as_ref()?.nominated_node_name.as_deref()?;
        cluster.node_id(name)
    })
}

/// One pod's result in a batch run.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The pod.
    pub pod: PodId,
    /// Where it went, or why it could not.
    pub outcome: Outcome,
}

/// Schedules every pending pod in queue order, one at a time, each binding changing what the
/// next pod sees. A pod that preemption nominates a node for is tried once more right away
/// (its victims are gone at once in this batch); pods it evicted are reported, not requeued.
pub fn schedule_all(scheduler: &mut Scheduler, cluster: &mut Cluster) -> Vec<Placement> {
    let mut queue = cluster.pending();
    Scheduler::queue_order(cluster, &mut queue);
    schedule_pods(scheduler, cluster, &queue)
}

/// Schedules `queue` in the order given, as [`schedule_all`] does.
pub fn schedule_pods(
    scheduler: &mut Scheduler,
    cluster: &mut Cluster,
    queue: &[PodId],
) -> Vec<Placement> {
    let mut out = Vec::new();
    for &pod in queue {
        let outcome = scheduler.schedule_one(cluster, pod);
        push_with_retry(&mut out, pod, outcome, || {
            Some(scheduler.schedule_one(cluster, pod))
        });
    }
    out
}

/// Records a pod's outcome. When preemption nominated a node for it, `retry` runs its cycle
/// again (`None`: not retried); if that places it, both are recorded, the nomination first.
pub(crate) fn push_with_retry(
    out: &mut Vec<Placement>,
    pod: PodId,
    outcome: Outcome,
    retry: impl FnOnce() -> Option<Outcome>,
) {
    if let Outcome::Unschedulable {
        nominated: Some(_), ..
    } = &outcome
        && let Some(again @ Outcome::Scheduled { .. }) = retry()
    {
        out.push(Placement { pod, outcome });
        out.push(Placement {
            pod,
            outcome: again,
        });
        return;
    }
    out.push(Placement { pod, outcome });
}
