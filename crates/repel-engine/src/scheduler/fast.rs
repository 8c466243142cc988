//! The compiled scheduler ([`FastScheduler`]): the decisions of [`Scheduler`], pod by pod, computed from classes.
//!
//! [`Scheduler`] runs every plugin of the profile on every node for every pod, as upstream's
//! framework does. [`FastScheduler`] reaches the same placements with far less work:
//!
//! 1. **Node classes.** Nodes with the same labels (the hostname label aside), taints and
//!    `unschedulable` get the same answer from every static plugin (NodeUnschedulable,
//!    TaintToleration, NodeAffinity) and the same node-inclusion policies, so each is asked once
//!    per class, on a representative node.
//! 2. **Pod classes.** Pods with the same namespace, labels, owner and spec share their compiled
//!    form: the static filter and score per node class, the list of nodes the static filters
//!    let through, requests, topology-spread constraints.
//! 3. **Counts kept up to date.** Matching pods per node for every spread selector in use are
//!    counted once (through an index of label classes) and then moved by each bind.
//! 4. **Flat per-node numbers.** Each node's allocatable and requested resources are kept in a
//!    flat array; the resource scores (LeastAllocated + BalancedAllocation) of a request are
//!    kept per node and recomputed only for the nodes a bind changed.
//! 5. Only the nodes the static filters let through are visited, in the reference's
//!    round-robin order, so `nextStartNodeIndex` advances exactly as it does there; the
//!    filter compares the request with each node's free figures and counts the feasible
//!    nodes per node class.
//! 6. **Scores per node class.** For the usual spread shape (at most one hostname and one
//!    other constraint), every score but the resource scores is the same for all nodes of a
//!    class, except the hostname term of nodes holding matching pods: those are computed per
//!    class (and per such node), and one pass over the feasible nodes adds the cached
//!    resource scores and keeps the best in filter order.
//!
//! 7. **ImageLocality per node.** It reads only the nodes' images, which scheduling does not
//!    change: a class whose images some node holds keeps its per-node scores (computed once)
//!    and is scored node by node; in a cluster whose nodes report no images it is not read.
//!
//! 8. **FitErrors per reason.** A compiled pod no node fits gets its diagnosis from node
//!    classes and from the reason each other node failed (see `unschedulable`), then the
//!    reference's own PostFilter (preemption) and FitError text.
//!
//! The plugins' arithmetic is repeated inline, in the same order and with the same integer and
//! floating-point operations. The seeded tie-break is the reference scheduler's own generator,
//! called the same way. A pod the compiled path does not cover — host ports, inter-pod
//! (anti-)affinity anywhere in the cluster, a pod nominated by preemption anywhere, a plugin error, a node-naming pod with spread
//! constraints, a PreFilter that narrows the nodes — goes to [`Scheduler::schedule_one`]
//! itself. Tests compare both on generated clusters, pod by pod.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::PodSpec;

use repel_core::FeatureGates;
use repel_core::labels::LabelSelector;

use super::framework::{Code, CycleState, MAX_NODE_SCORE, Plugin, Status};
use super::plugins::pod_topology_spread::common::{
    DO_NOT_SCHEDULE, LABEL_HOSTNAME, NodeInclusionPolicy, SCHEDULE_ANYWAY,
    TopologySpreadConstraint, default_selector, filter_topology_spread_constraints,
    system_default_constraints,
};
use super::plugins::pod_topology_spread::scoring::{score_for_count, topology_normalizing_weight};
use super::plugins::{
    balanced_allocation, image_locality, node_affinity, node_resources_fit, pod_topology_spread,
    taint_toleration,
};
use super::{Outcome, Placement, Scheduler};
use crate::cluster::{Cluster, NodeId, NodeInfo, PodId, PodInfo};
use crate::resources::{CPU, MEMORY, Resources, pod_score_requests};
use node_class::*;
use pod_class::*;
use score_cache::*;
use selectors::*;
use spread::*;

/// A hash map keyed by numbers the compiled scheduler makes itself (ids, keys, addresses):
/// no need for a DoS-resistant hasher.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Spread constraints of each kind a compiled pod may have (more go to the reference path).
const MAX_SPREADS: usize = 8;

/// How many pods took which path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FastStats {
    /// Placed by the compiled path.
    pub compiled: usize,
    /// Of those, placed by the repeat path (a pod like the one before, see `by_class`).
    pub repeated: usize,
    /// Found unschedulable by the compiled path (see `unschedulable`).
    pub compiled_unschedulable: usize,
    /// Of those and of the reference's, answered as the like pod just before them was,
    /// nothing having changed since (unschedulable, no nomination).
    pub repeated_unschedulable: usize,
    /// Handed to the reference scheduler (a shape the compiled path does not cover).
    pub reference: usize,
    /// Distinct node classes.
    pub node_classes: usize,
    /// Distinct pod classes compiled.
    pub pod_classes: usize,
}

/// The compiled scheduler ("compiled" in docs and flags). See the module documentation.
pub struct FastScheduler {
    /// The reference scheduler: profile, round-robin index, tie-break generator, and the path
    /// for every pod the compiled one does not take.
    pub reference: Scheduler,
    gates: FeatureGates,
    /// Counters of the last runs.
    pub stats: FastStats,
    /// Keep the compiled state of the last run ([`FastScheduler::keep_state`]).
    keep: bool,
    kept: Option<Run>,
}

/// The last pod found unschedulable without a nomination (nothing changed then), to answer a
/// like pod at once while nothing else has changed either.
struct LastUnschedulable {
    key: u128,
    /// The change log's length and the epoch after it.
    log_len: usize,
    epoch: u64,
    /// How far its cycle moved the round-robin start.
    advance: usize,
    message: String,
}

/// Per-run compiled state.
struct Run {
    node_class: Vec<u32>,
    reps: Vec<NodeId>,
    /// Per node class, its nodes in node order.
    class_nodes: Vec<Vec<NodeId>>,
    res: Vec<NodeRes>,
    free: Vec<Free>,
    domains: Vec<Domains>,
    domain_index: HashMap<String, usize>,
    classes: FastMap<u128, Option<Arc<PodClass>>>,
    statics: FastMap<u128, StaticFacts>,
    /// What compiling reads of a spec, by the address of a spec shared by pods (see
    /// [`SpecMemo`]).
    specs: FastMap<usize, SpecMemo>,
    /// Node-inclusion answers per node class, by static key and (affinity, taints) policy.
    includes: FastMap<(u128, bool, bool), Arc<Vec<bool>>>,
    /// Per static key, per node class: the static filters' rejection (see `unschedulable`).
    rejections: FastMap<u128, Arc<Vec<Option<Status>>>>,
    /// Per list of topology keys (domain ids): whether each node class has them all.
    keys: FastMap<Vec<usize>, Arc<[bool]>>,
    sel: Selectors,
    /// Nodes whose resources changed, in order; caches catch up from it.
    log: Vec<NodeId>,
    epoch: u64,
    caches: Vec<ScoreCache>,
    tick: u64,
    /// Scratch.
    feasible: Vec<NodeId>,
    stat: Vec<i64>,
    raw: Vec<i64>,
    dom_cnt: Vec<Vec<i64>>,
    soft_present: Vec<Vec<bool>>,
    /// Per node class: feasible nodes of the pod being scheduled (a by-class pod's, counted
    /// in the filter pass `feasible_pass`; `pass` counts pods).
    class_feasible: Vec<u32>,
    pass: u64,
    feasible_pass: u64,
    /// The pod just placed, for a like pod next (see [`by_class`]).
    chain: Option<by_class::Chain>,
    unschedulable: Option<LastUnschedulable>,
    buckets: by_class::Buckets,
    /// Per node: the pod (`stamp`) for which it is feasible / has its own score.
    feasible_mark: Vec<u64>,
    own_mark: Vec<u64>,
    own_score: Vec<i64>,
    /// Per node class: the score of its nodes without matching pods; the best nodes.
    class_score: Vec<i64>,
    ties: Vec<NodeId>,
    /// The repeat path's tied nodes, as a bit set (all clear between draws).
    tie_bits: Vec<u64>,
    /// Scratch of `select_by_class`: nodes with their own raw spread score, how many per
    /// class, and each class's raw spread score.
    own: Vec<(NodeId, i64)>,
    own_in_class: Vec<u32>,
    class_raw: Vec<i64>,
    /// Scratch of `class_scores`: raw spread scores by zone slot, hostname label and count.
    raw_memo: Vec<i64>,
    /// Scratch of `score_and_select`: ImageLocality's score per node (all 0 between pods).
    image_scratch: Vec<i64>,
    /// Per pod, the class key it was scheduled with (0: none), kept for a what-if that starts
    /// from this state ([`FastScheduler::keep_state`]).
    class_keys: Vec<u128>,
    /// A what-if's placement ([`first_fit::FirstFit::place`]): no repeat path, nothing bound
    /// (the caller binds), nothing done when no node fits (an empty message), and `skip` (a
    /// cordoned node the node classes do not know of) left out of the filter pass.
    what_if: bool,
    skip: Option<NodeId>,
    /// Nodes a what-if sequence left cordoned ([`first_fit::FirstFit::cordon`]; empty: none),
    /// left out of the filter pass with `skip`.
    cordoned: Vec<bool>,
    /// Cache slots by key (when there are more than a handful), how many may be kept, and
    /// where the change log stood when the current what-if began.
    cache_index: FastMap<ScoreKey, usize>,
    max_caches: usize,
    base_log: Option<usize>,
    /// The figures of the nodes the current what-if changed, as they were before it (in the
    /// order first changed), and each node's place there plus one (0: unchanged).
    saved: Vec<(NodeId, NodeRes, Free)>,
    saved_at: Vec<u32>,
    /// A what-if's placements from the cluster before it ([`what_if`]).
    levels: what_if::Levels,
}

/// Whether a pod's node selection names particular nodes: `spec.nodeName`, `matchFields`, or
/// the hostname label in a nodeSelector or a node-affinity term.
fn names_nodes(pod: &PodInfo) -> bool {
    let spec = pod.spec();
    if pod.spec_node_name().is_some() {
        return true;
    }
    if spec
        .node_selector
        .as_ref()
        .is_some_and(|s| s.contains_key(LABEL_HOSTNAME))
    {
        return true;
    }
    let Some(na) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
    else {
        return false;
    };
    let term_names = |t: &k8s_openapi::api::core::v1::NodeSelectorTerm| {
        t.match_fields.as_ref().is_some_and(|f| !f.is_empty())
            || t.match_expressions
                .iter()
                .flatten()
                .any(|e| e.key == LABEL_HOSTNAME)
    };
    na.required_during_scheduling_ignored_during_execution
        .as_ref()
        .is_some_and(|r| r.node_selector_terms.iter().any(term_names))
        || na
            .preferred_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .any(|p| term_names(&p.preference))
}

fn has_pod_affinity(pod: &PodInfo) -> bool {
    pod.spec()
        .affinity
        .as_ref()
        .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
}

impl Run {
    fn new(cluster: &Cluster) -> Self {
        Run::with_label_keys(cluster, Vec::new())
    }

    /// A state of `cluster` with these node classes and representatives and these counts, the
    /// rest as a build starts it.
    fn from_parts(
        cluster: &Cluster,
        node_class: Vec<u32>,
        reps: Vec<NodeId>,
        sel: Selectors,
    ) -> Self {
        let classes = reps.len();
        let mut class_nodes = vec![Vec::new(); classes];
        for (n, &c) in node_class.iter().enumerate() {
            if let Some(nodes) = class_nodes.get_mut(c as usize) {
                nodes.push(n);
            }
        }
        Run {
            node_class,
            reps,
            class_nodes,
            res: cluster.nodes.iter().map(NodeRes::of).collect(),
            free: cluster
                .nodes
                .iter()
                .map(|n| Free::of(&NodeRes::of(n)))
                .collect(),
            class_feasible: vec![0; classes],
            pass: 0,
            feasible_pass: 0,
            chain: None,
            unschedulable: None,
            buckets: by_class::Buckets::default(),
            feasible_mark: vec![0; cluster.nodes.len()],
            own_mark: vec![0; cluster.nodes.len()],
            own_score: vec![0; cluster.nodes.len()],
            class_score: vec![0; classes],
            ties: Vec::new(),
            tie_bits: Vec::new(),
            own: Vec::new(),
            own_in_class: vec![0; classes],
            class_raw: vec![0; classes],
            raw_memo: Vec::new(),
            image_scratch: Vec::new(),
            class_keys: Vec::new(),
            what_if: false,
            skip: None,
            cordoned: Vec::new(),
            cache_index: FastMap::default(),
            max_caches: max_caches(cluster.nodes.len()),
            base_log: None,
            saved: Vec::new(),
            saved_at: Vec::new(),
            levels: what_if::Levels::default(),
            domains: Vec::new(),
            domain_index: HashMap::new(),
            classes: FastMap::default(),
            statics: FastMap::default(),
            includes: FastMap::default(),
            rejections: FastMap::default(),
            keys: FastMap::default(),
            specs: FastMap::default(),
            sel,
            log: Vec::new(),
            epoch: 0,
            caches: Vec::new(),
            tick: 0,
            feasible: Vec::new(),
            stat: Vec::new(),
            raw: Vec::new(),
            dom_cnt: Vec::new(),
            soft_present: Vec::new(),
        }
    }

    /// The pod's [`SpecMemo`].
    fn spec_memo(&mut self, info: &PodInfo) -> Option<SpecMemo> {
        match info.shared_spec() {
            Some(arc) => {
                let ptr = Arc::as_ptr(arc) as usize;
                if let Some(m) = self.specs.get(&ptr) {
                    return Some(*m);
                }
                let m = SpecMemo::of(static_key_of(arc), arc)?;
                self.specs.insert(ptr, m);
                Some(m)
            }
            None => SpecMemo::of(static_key_of(info.spec()), info.spec()),
        }
    }

    /// A node's resources changed: refresh its numbers and log it.
    fn touched(&mut self, cluster: &Cluster, node: NodeId) {
        if self.refresh(cluster, node) {
            self.log.push(node);
        }
    }

    /// Reads a node's numbers again (false: no such node).
    fn refresh(&mut self, cluster: &Cluster, node: NodeId) -> bool {
        let Some(n) = cluster.nodes.get(node) else {
            return false;
        };
        if self.base_log.is_some() {
            self.save(node);
        }
        self.res[node] = NodeRes::of(n);
        self.free[node] = Free::of(&self.res[node]);
        true
    }

    /// Inside a what-if: keeps `node`'s figures as they were before it, the first time it
    /// changes.
    fn save(&mut self, node: NodeId) {
        if self.saved_at.len() < self.res.len() {
            self.saved_at.resize(self.res.len(), 0);
        }
        if let Some(at) = self.saved_at.get_mut(node)
            && *at == 0
            && let (Some(res), Some(free)) = (self.res.get(node), self.free.get(node))
        {
            self.saved.push((node, *res, *free));
            *at = self.saved.len() as u32;
        }
    }

    /// Forgets the saved figures.
    fn unsave(&mut self) {
        for &(node, _, _) in &self.saved {
            if let Some(at) = self.saved_at.get_mut(node) {
                *at = 0;
            }
        }
        self.saved.clear();
    }

    /// Pods were removed somewhere (preemption): refresh everything.
    fn reset(&mut self, cluster: &Cluster) {
        self.res = cluster.nodes.iter().map(NodeRes::of).collect();
        self.free = self.res.iter().map(Free::of).collect();
        self.epoch += 1;
        let keys = std::mem::take(&mut self.sel.lc_keys);
        self.sel = Selectors::of_bound_pods(cluster, &self.node_class, keys);
        self.classes.clear();
    }

    /// A what-if starts ([`first_fit::FirstFit::begin`]): what it changes is put back before
    /// the next one, so the resource-score caches need only forget the nodes it changed, and
    /// may be many (one per distinct request, within 64 MiB).
    fn what_if_begins(&mut self) {
        self.max_caches = max_caches(self.res.len());
        self.base_log = Some(self.log.len());
        self.unsave();
        self.sel.journal = Some(Vec::new());
    }

    /// The what-if's changes were put back: every cache forgets the nodes it changed (so it
    /// holds the scores of the cluster as it was when the what-if began) and the change log
    /// is cut back to where it began.
    fn what_if_ends(&mut self) {
        self.unsave();
        self.sel.journal = None;
        let Some(base) = self.base_log.take() else {
            return;
        };
        let base = base.min(self.log.len());
        for c in &mut self.caches {
            if c.synced > base {
                for &node in &self.log[base..c.synced.min(self.log.len())] {
                    if let Some(s) = c.scores.get_mut(node) {
                        *s = UNKNOWN;
                    }
                    if let Some(&class) = self.node_class.get(node) {
                        c.fresh.forget(node, class);
                    }
                }
                c.synced = base;
            }
        }
        self.log.truncate(base);
    }
}

/// From how many queued pods a run's compiled state is freed on another thread.
const FREE_ELSEWHERE_FROM: usize = 20_000;

/// Frees a run's compiled state. A big run's (tens of thousands of pod and label classes:
/// 15 ms at 75,000 pods, 50 ms at 150,000) is freed on another thread, which the placements
/// need not wait for; if no thread can be started it is freed here.
fn free(run: Run, queued: usize) {
    if queued >= FREE_ELSEWHERE_FROM {
        crate::drop_elsewhere(run);
    }
}

impl FastScheduler {
    /// A compiled scheduler around a reference one with the same arguments.
    pub fn new(gates: FeatureGates, percentage_of_nodes_to_score: Option<i64>, seed: u64) -> Self {
        FastScheduler {
            reference: Scheduler::new(gates, percentage_of_nodes_to_score, seed),
            gates,
            stats: FastStats::default(),
            keep: false,
            kept: None,
        }
    }

    /// Keeps the compiled state of the runs that follow, the last one for a what-if to start
    /// from ([`first_fit::FirstFit::from_scheduler`]), instead of freeing it.
    pub fn keep_state(&mut self) {
        self.keep = true;
    }

    /// Schedules every pending pod in queue order, as [`super::schedule_all`] does.
    pub fn schedule_all(&mut self, cluster: &mut Cluster) -> Vec<Placement> {
        let mut queue = cluster.pending();
        Scheduler::queue_order(cluster, &mut queue);
        self.schedule_pods(cluster, &queue)
    }

    /// Schedules `queue` in the order given, as [`super::schedule_pods`] does (a pod that
    /// preemption nominates a node for is tried again at once).
    pub fn schedule_pods(&mut self, cluster: &mut Cluster, queue: &[PodId]) -> Vec<Placement> {
        self.run(cluster, queue, true)
    }

    /// One scheduling cycle per pod of `queue`, in order, one placement each: a pod that
    /// preemption nominates a node for is not retried (a live scheduler waits for its victims
    /// to go), as [`Scheduler::schedule_one`] in a loop.
    pub fn schedule_each(&mut self, cluster: &mut Cluster, queue: &[PodId]) -> Vec<Placement> {
        self.run(cluster, queue, false)
    }

    fn run(&mut self, cluster: &mut Cluster, queue: &[PodId], retry: bool) -> Vec<Placement> {
        let mut run = Run::new(cluster);
        self.stats.node_classes = run.reps.len();
        let affinity_anywhere = cluster.pods.iter().any(has_pod_affinity);
        let mut out = Vec::with_capacity(queue.len());
        let ClassKeys {
            keys,
            mut drafts,
            specs,
        } = class_keys(cluster, queue, !affinity_anywhere);
        for (ptr, (_, memo)) in specs.into_iter().flat_map(|s| s.by_address) {
            if let Some(memo) = memo {
                run.specs.insert(ptr, memo);
            }
        }
        run.sel.lc_keys.resize(cluster.pods.len(), 0);
        for (&pod, &(_, label)) in queue.iter().zip(&keys) {
            if let Some(k) = run.sel.lc_keys.get_mut(pod) {
                *k = label;
            }
        }
        if self.keep {
            run.class_keys.resize(cluster.pods.len(), 0);
            for (&pod, &(key, _)) in queue.iter().zip(&keys) {
                if let Some(k) = run.class_keys.get_mut(pod) {
                    *k = key;
                }
            }
        }
        for (i, (&pod, &(key, _))) in queue.iter().zip(&keys).enumerate() {
            let draft = drafts.get_mut(i).and_then(Option::take);
            let outcome = self.schedule_one(&mut run, cluster, pod, key, affinity_anywhere, draft);
            super::push_with_retry(&mut out, pod, outcome, || {
                retry.then(|| {
                    self.schedule_one(&mut run, cluster, pod, key, affinity_anywhere, None)
                })
            });
        }
        self.stats.pod_classes = run.classes.values().filter(|c| c.is_some()).count();
        if self.keep {
            self.kept = Some(run);
        } else {
            free(run, queue.len());
        }
        out
    }

    fn schedule_one(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        key: u128,
        affinity_anywhere: bool,
        draft: Option<Box<Draft>>,
    ) -> Outcome {
        // Pods nominated by preemption hold room on their nodes (the reference's filters add
        // them, `RunFilterPluginsWithNominatedPods`): while any exists, the reference decides.
        let class = if affinity_anywhere || cluster.has_nominations() {
            None
        } else {
            self.class_of(run, cluster, pod, key, draft)
        };
        if let Some(class) = class
            && let Some(outcome) = self.compiled(run, cluster, pod, key, &class)
        {
            match &outcome {
                Outcome::Scheduled { .. } => self.stats.compiled += 1,
                Outcome::Unschedulable { nominated, .. } => {
                    self.stats.compiled_unschedulable += 1;
                    if nominated.is_some() {
                        run.reset(cluster);
                    }
                }
            }
            return outcome;
        }
        self.stats.reference += 1;
        run.chain = None;
        let n_all = cluster.nodes.len();
        let like = cluster.pods.get(pod).map(unschedulable_key);
        if let Some(outcome) = self.like_last_unschedulable(run, like, n_all) {
            return outcome;
        }
        let before = self.reference.next_start_node_index;
        let outcome = self.reference.schedule_one(cluster, pod);
        self.remember_unschedulable(run, &outcome, like, before, n_all);
        match &outcome {
            Outcome::Scheduled { node, .. } => {
                run.sel.moved(cluster, pod, *node, 1);
                run.touched(cluster, *node);
            }
            Outcome::Unschedulable {
                nominated: Some(_), ..
            } => run.reset(cluster),
            Outcome::Unschedulable { .. } => {}
        }
        outcome
    }

    /// The outcome of a pod like the last one found unschedulable without a nomination
    /// (`like`: its [`unschedulable_key`]) while nothing has changed since: the same message,
    /// the round-robin index advanced as that pod's cycle advanced it.
    fn like_last_unschedulable(
        &mut self,
        run: &Run,
        like: Option<u128>,
        n_all: usize,
    ) -> Option<Outcome> {
        let u = run.unschedulable.as_ref()?;
        if Some(u.key) != like || u.log_len != run.log.len() || u.epoch != run.epoch || n_all == 0 {
            return None;
        }
        self.stats.repeated_unschedulable += 1;
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + u.advance) % n_all;
        Some(Outcome::Unschedulable {
            message: u.message.clone(),
            nominated: None,
        })
    }

    /// Remembers `outcome` for [`Self::like_last_unschedulable`] when it is unschedulable
    /// without a nomination (`before`: the round-robin index before the pod's cycle).
    fn remember_unschedulable(
        &self,
        run: &mut Run,
        outcome: &Outcome,
        like: Option<u128>,
        before: usize,
        n_all: usize,
    ) {
        run.unschedulable = match (outcome, like) {
            (
                Outcome::Unschedulable {
                    message,
                    nominated: None,
                },
                Some(key),
            ) if n_all > 0 => Some(LastUnschedulable {
                key,
                log_len: run.log.len(),
                epoch: run.epoch,
                advance: (self.reference.next_start_node_index + n_all - before % n_all) % n_all,
                message: message.clone(),
            }),
            _ => None,
        };
    }

    /// The pod's compiled class, compiling it on first sight; `None` when the compiled path does
    /// not cover the pod.
    fn class_of(
        &self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        key: u128,
        draft: Option<Box<Draft>>,
    ) -> Option<Arc<PodClass>> {
        if let Some(c) = run.classes.get(&key) {
            return c.clone();
        }
        let compiled = self.compile(run, cluster, pod, draft).map(Arc::new);
        run.classes.insert(key, compiled.clone());
        compiled
    }

    fn plugin(&self, name: &str) -> Option<&dyn Plugin> {
        self.reference
            .profile
            .entries
            .iter()
            .find(|e| e.plugin.name() == name)
            .map(|e| e.plugin.as_ref())
    }

    /// Compiles the class of pod `pod` (`draft`: its [`Draft`] when found ahead). The static
    /// plugins' PreFilter and PreScore run once per static key: every class of the key shares
    /// their answers ([`StaticFacts`]).
    fn compile(
        &self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        draft: Option<Box<Draft>>,
    ) -> Option<PodClass> {
        let info = &cluster.pods[pod];
        let draft = match draft {
            Some(d) => *d,
            None => Draft::of(info, cluster),
        };
        let DraftSpreads {
            hard: hard_c,
            soft: soft_c,
            explicit,
        } = draft.spreads?;
        // The static plugins read tolerations, nodeSelector, affinity and nodeName (host ports
        // are excluded above): pod classes that share them share these tables, and the
        // node-inclusion answers of their spread constraints.
        let memo = run.spec_memo(info)?;
        let static_key = match info.spec_node_name() {
            None => memo.static_key,
            Some(name) => {
                let mut h = KeyHasher::new();
                h.feed(&memo.static_key.to_le_bytes());
                h.str(name);
                h.finish()
            }
        };
        // PreFilter of the static plugins, unless a class of the key compiled before.
        let known = run.statics.get(&static_key).cloned();
        let mut state = CycleState::default();
        let mut skip_filters = SkipSet::default();
        let mut names: Option<BTreeSet<String>> = None;
        let per_node = match &known {
            Some(f) => {
                skip_filters = f.skip_filters;
                f.per_node
            }
            None => {
                for (i, name) in STATIC_FILTERS.iter().enumerate() {
                    let pl = self.plugin(name)?;
                    let (st, res) = pl.pre_filter(&mut state, info, cluster);
                    match st.code {
                        Code::Skip => skip_filters.insert(i),
                        Code::Success => {
                            if let Some(r) = res {
                                names = Some(match names {
                                    None => r,
                                    Some(n) => n.intersection(&r).cloned().collect(),
                                });
                            }
                        }
                        _ => return None,
                    }
                }
                names.is_some() || names_nodes(info)
            }
        };
        if per_node && (!hard_c.is_empty() || !soft_c.is_empty())
            || hard_c.len() > MAX_SPREADS
            || soft_c.len() > MAX_SPREADS
        {
            return None;
        }
        // Read only when a constraint's node-inclusion answers are not known yet.
        let required = std::cell::OnceCell::new();
        let compile_spreads = |cs: Vec<DraftSpread>, run: &mut Run| {
            cs.into_iter()
                .map(|DraftSpread { c, self_match, sel_key }| {
                    let dom = run.domains(cluster, &c.topology_key);
                    let policies = (
                        static_key,
                        c.node_affinity_policy == NodeInclusionPolicy::Honor,
                        c.node_taints_policy == NodeInclusionPolicy::Honor,
                    );
                    let include = match run.includes.get(&policies) {
                        Some(i) => i.clone(),
                        None => {
                            let i: Arc<Vec<bool>> = Arc::new(
                                run.reps
                                    .iter()
                                    .map(|&r| {
                                        c.match_node_inclusion_policies(
                                            info,
                                            &cluster.nodes[r],
                                            required.get_or_init(|| {
                                                repel_core::affinity::RequiredNodeAffinity::from_pod_spec(
                                                    info.spec(),
                                                )
                                            }),
                                            &self.gates,
                                        )
                                    })
                                    .collect(),
                            );
                            run.includes.insert(policies, i.clone());
                            i
                        }
                    };
                    let honor_taints = c.node_taints_policy == NodeInclusionPolicy::Honor;
                    let hostname = c.topology_key == LABEL_HOSTNAME;
                    let (max_skew, min_domains) = (c.max_skew, c.min_domains);
                    // The selector moves into the counts when it is new (not copied).
                    let selector = std::borrow::Cow::Owned(c.selector);
                    let sel = run.sel.selector(cluster, &info.namespace, sel_key, selector);
                    Spread {
                        honor_taints,
                        hostname,
                        self_match,
                        sel,
                        dom,
                        include,
                        max_skew,
                        min_domains,
                    }
                })
                .collect::<Vec<_>>()
        };
        let hard = compile_spreads(hard_c, run);
        let soft = compile_spreads(soft_c, run);
        let mut keys_of = |spreads: &[Spread]| -> Arc<[bool]> {
            let doms: Vec<usize> = spreads.iter().map(|s| s.dom).collect();
            if let Some(k) = run.keys.get(&doms) {
                return k.clone();
            }
            let k: Arc<[bool]> = run
                .reps
                .iter()
                .map(|&r| spreads.iter().all(|s| run.domains[s.dom].has[r]))
                .collect();
            run.keys.insert(doms, k.clone());
            k
        };
        let hard_keys = keys_of(&hard);
        let soft_keys = keys_of(&soft);
        // The eligible domains of each hard constraint: nodes with every key that the
        // node-inclusion policies admit, with or without matching pods.
        let mut hard_present = Vec::with_capacity(hard.len());
        let mut hard_domains = Vec::with_capacity(hard.len());
        for s in &hard {
            let d = &run.domains[s.dom];
            let mut present = vec![false; d.count];
            for (n, &c) in run.node_class.iter().enumerate() {
                let c = c as usize;
                if hard_keys[c] && s.include[c] {
                    present[d.of_node[n] as usize] = true;
                }
            }
            hard_domains.push(present.iter().filter(|p| **p).count());
            hard_present.push(present);
        }

        // Scoring: which plugins score (PreScore, once per static key), and the pod's requests.
        let (la_req, ba_req) = memo.score_key;
        let facts = match known {
            Some(f) => f,
            None => {
                let tt = self.plugin(taint_toleration::NAME)?;
                let na = self.plugin(node_affinity::NAME)?;
                let mut score_state = CycleState::default();
                let tt_scores =
                    tt.pre_score(&mut score_state, info, &[], cluster).code != Code::Skip;
                let na_st = na.pre_score(&mut score_state, info, &[], cluster);
                if na_st.code == Code::Error {
                    return None;
                }
                let na_scores = na_st.code != Code::Skip;
                let statics = Arc::new(self.compile_statics(
                    run,
                    cluster,
                    info,
                    (&state, skip_filters, &score_state),
                    (tt_scores, na_scores, per_node),
                    names,
                )?);
                let f = StaticFacts {
                    statics,
                    skip_filters,
                    per_node,
                    tt_scores,
                    na_scores,
                };
                run.statics.insert(static_key, f.clone());
                f
            }
        };
        // ImageLocality: the nodes holding the pod's images (none when no node reports any).
        let index = cluster.image_index();
        let images = (!index.is_empty())
            .then(|| {
                index
                    .scores(info.spec())
                    .into_iter()
                    .map(|(n, s)| (n, s.clamp(0, MAX_NODE_SCORE) * image_locality::WEIGHT))
                    .collect::<Arc<[(NodeId, i64)]>>()
            })
            .filter(|s| !s.is_empty());
        Some(PodClass {
            images,
            static_key,
            statics: facts.statics,
            skip_filters,
            need: needs(&info.requests),
            requests: info.requests.clone(),
            score_key: (la_req, ba_req),
            tt_scores: facts.tt_scores,
            na_scores: facts.na_scores,
            soft_require_all: explicit,
            hard,
            soft,
            hard_keys,
            soft_keys,
            hard_present,
            hard_domains,
        })
    }

    /// The static plugins' answers for a new static key: per node for a node-naming pod, else
    /// per node class with the nodes they let through.
    fn compile_statics(
        &self,
        run: &Run,
        cluster: &Cluster,
        info: &PodInfo,
        (state, skip_filters, score_state): (&CycleState, SkipSet, &CycleState),
        (tt_scores, na_scores, per_node): (bool, bool, bool),
        names: Option<BTreeSet<String>>,
    ) -> Option<Statics> {
        let tt = self.plugin(taint_toleration::NAME)?;
        let na = self.plugin(node_affinity::NAME)?;
        let statics = if per_node {
            Statics::PerNode {
                // In node order, as the reference visits them.
                candidates: names.map(|names| {
                    let mut ids: Vec<NodeId> =
                        names.iter().filter_map(|n| cluster.node_id(n)).collect();
                    ids.sort_unstable();
                    ids
                }),
            }
        } else {
            let nc = run.reps.len();
            let mut ok = Vec::with_capacity(nc);
            let mut tt_raw = Vec::with_capacity(nc);
            let mut na_raw = Vec::with_capacity(nc);
            for &r in &run.reps {
                let node = &cluster.nodes[r];
                ok.push(self.static_ok(state, skip_filters, info, node, cluster));
                tt_raw.push(if tt_scores {
                    tt.score(score_state, info, node, cluster).ok()?
                } else {
                    0
                });
                na_raw.push(if na_scores {
                    na.score(score_state, info, node, cluster).ok()?
                } else {
                    0
                });
            }
            let allowed = (0..cluster.nodes.len())
                .filter(|n| ok[run.node_class[*n] as usize])
                .collect();
            Statics::ByClass {
                tt_raw,
                na_raw,
                allowed,
                class_ok: ok,
            }
        };
        Some(statics)
    }

    fn static_ok(
        &self,
        state: &CycleState,
        skip: SkipSet,
        pod: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) -> bool {
        STATIC_FILTERS.iter().enumerate().all(|(i, name)| {
            skip.contains(i)
                || self
                    .plugin(name)
                    .is_some_and(|pl| pl.filter(state, pod, node, cluster).is_success())
        })
    }

    /// The compiled scheduling cycle; `None` hands the pod to the reference scheduler (nothing
    /// has changed then).
    fn compiled(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        key: u128,
        class: &PodClass,
    ) -> Option<Outcome> {
        if let Some(chain) = run.chain.take()
            && !run.what_if
            && let Some(outcome) = self.compiled_repeat(run, cluster, pod, class, chain)
        {
            return Some(outcome);
        }
        if !run.what_if
            && let Some(chain) = self.fresh_chain(run, class)
            && let Some(outcome) = self.compiled_repeat(run, cluster, pod, class, chain)
        {
            return Some(outcome);
        }
        let n_all = cluster.nodes.len();
        if n_all == 0 {
            return None;
        }
        // The candidates (all nodes, or PreFilter's) and, for a per-node class, the static
        // plugins' PreFilter state for this pod.
        let mut per_node: Option<(CycleState, Vec<NodeId>)> = None;
        if let Statics::PerNode { candidates } = &*class.statics {
            let mut state = CycleState::default();
            for (i, name) in STATIC_FILTERS.iter().enumerate() {
                if !class.skip_filters.contains(i) {
                    self.plugin(name)?
                        .pre_filter(&mut state, &cluster.pods[pod], cluster);
                }
            }
            let cands = candidates.clone().unwrap_or_else(|| (0..n_all).collect());
            per_node = Some((state, cands));
        }
        let m = per_node.as_ref().map_or(n_all, |(_, c)| c.len());
        if m == 0 {
            return None;
        }

        // PodTopologySpread PreFilter: matching pods per eligible domain, and the minimum.
        let hard_min = hard_counts(run, class);

        // Filter, from the round-robin start, until enough feasible nodes are found. Nodes
        // the static filters reject are skipped without a visit; `processed` counts them as
        // the reference does.
        let to_find = self.reference.num_feasible_nodes_to_find(m);
        let start = self.reference.next_start_node_index % m;
        let mut feasible = std::mem::take(&mut run.feasible);
        feasible.clear();
        let mut stopped_at: Option<usize> = None;
        // Per node class, how many nodes are feasible, and which nodes (for the class-level
        // selection in `select_by_class`).
        run.pass += 1;
        let pass = run.pass;
        run.feasible_pass = pass;
        let mut class_feasible = std::mem::take(&mut run.class_feasible);
        class_feasible.iter_mut().for_each(|c| *c = 0);
        let mut feasible_mark = std::mem::take(&mut run.feasible_mark);
        {
            let info = &cluster.pods[pod];
            // Hard constraints on keys of the node class are judged once per class.
            let per_class_hard: Option<Vec<bool>> =
                (!class.hard.is_empty() && by_class::chain_shape(class)).then(|| {
                    let mut ok = Vec::new();
                    hard_ok_per_class(run, class, &hard_min, &mut ok);
                    ok
                });
            let hard_ok = |n: NodeId| match &per_class_hard {
                Some(ok) => ok[run.node_class[n] as usize],
                None => hard_failure(run, class, &hard_min, n).is_none(),
            };
            let skip = run.skip;
            let cordoned: &[bool] = if skip.is_some() { &run.cordoned } else { &[] };
            let skipped = |n: NodeId| skip == Some(n) || cordoned.get(n) == Some(&true);
            let mut visit = |pos: usize, n: NodeId, feasible: &mut Vec<NodeId>| -> bool {
                if skipped(n) {
                    return false;
                }
                let static_ok = match &per_node {
                    Some((state, _)) => {
                        self.static_ok(state, class.skip_filters, info, &cluster.nodes[n], cluster)
                    }
                    None => true,
                };
                if static_ok
                    && fits_free(class, &run.free[n], &cluster.nodes[n])
                    && (class.hard.is_empty() || hard_ok(n))
                {
                    feasible.push(n);
                    if feasible.len() >= to_find {
                        stopped_at = Some(pos);
                        return true;
                    }
                }
                false
            };
            match (&*class.statics, &per_node) {
                (Statics::ByClass { allowed, .. }, _) => {
                    // Positions are node indexes (the candidates are all nodes).
                    let split = allowed.partition_point(|n| *n < start);
                    for &n in allowed[split..].iter().chain(&allowed[..split]) {
                        if !skipped(n)
                            && fits_free(class, &run.free[n], &cluster.nodes[n])
                            && (class.hard.is_empty() || hard_ok(n))
                        {
                            feasible.push(n);
                            class_feasible[run.node_class[n] as usize] += 1;
                            feasible_mark[n] = pass;
                            if feasible.len() >= to_find {
                                stopped_at = Some(n);
                                break;
                            }
                        }
                    }
                }
                (_, Some((_, cands))) => {
                    for i in 0..m {
                        let pos = (start + i) % m;
                        if visit(pos, cands[pos], &mut feasible) {
                            break;
                        }
                    }
                }
                // (A per-node class always has its PreFilter state.)
                _ => {}
            }
        }
        run.class_feasible = class_feasible;
        run.feasible_mark = feasible_mark;
        if feasible.is_empty() {
            run.feasible = feasible;
            if run.what_if {
                return Some(Outcome::Unschedulable {
                    message: String::new(),
                    nominated: None,
                });
            }
            return self.compiled_unschedulable(run, cluster, pod, key, class, &hard_min);
        }
        let processed = match stopped_at {
            Some(pos) => (pos + m - start) % m + 1,
            None => m,
        };
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + processed) % n_all;
        let chosen = if feasible.len() == 1 {
            Some((feasible[0], None))
        } else {
            self.score_and_select(run, cluster, pod, class, &feasible)
                .map(|(n, s)| (n, Some(s)))
        };
        run.feasible = feasible;
        let (node, score) = chosen?;
        if run.what_if {
            return Some(Outcome::Scheduled { node, score });
        }
        cluster.bind(pod, node);
        run.sel.moved(cluster, pod, node, 1);
        run.touched(cluster, node);
        if score.is_some() && by_class::by_class_shape(class) {
            self.start_chain(run, class, node);
        }
        Some(Outcome::Scheduled { node, score })
    }

    /// PreScore, Score, NormalizeScore and selectHost over `feasible` (in filter order).
    fn score_and_select(
        &mut self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        class: &PodClass,
        feasible: &[NodeId],
    ) -> Option<(NodeId, i64)> {
        if let Statics::ByClass { tt_raw, na_raw, .. } = &*class.statics
            && by_class::by_class_shape(class)
        {
            return self.select_by_class(run, class, feasible, tt_raw, na_raw);
        }
        let info = &cluster.pods[pod];
        let mut stat = std::mem::take(&mut run.stat);
        stat.clear();
        // TaintToleration (3) and NodeAffinity (2): static raw scores normalised by their
        // maximum over the feasible nodes.
        match &*class.statics {
            Statics::ByClass { tt_raw, na_raw, .. } => {
                // The filter pass counted the feasible nodes per class.
                let mut per_class = std::mem::take(&mut run.class_score);
                by_class::static_class_scores(
                    &run.class_feasible,
                    class,
                    tt_raw,
                    na_raw,
                    &mut per_class,
                );
                stat.extend(
                    feasible
                        .iter()
                        .map(|n| per_class[run.node_class[*n] as usize]),
                );
                run.class_score = per_class;
            }
            Statics::PerNode { .. } => {
                stat.resize(feasible.len(), 0);
                for (name, on, reverse, weight) in [
                    (
                        taint_toleration::NAME,
                        class.tt_scores,
                        true,
                        taint_toleration::WEIGHT,
                    ),
                    (
                        node_affinity::NAME,
                        class.na_scores,
                        false,
                        node_affinity::WEIGHT,
                    ),
                ] {
                    if !on {
                        continue;
                    }
                    let pl = self.plugin(name)?;
                    let mut st = CycleState::default();
                    pl.pre_score(&mut st, info, &[], cluster);
                    let raw: Vec<i64> = feasible
                        .iter()
                        .map(|n| pl.score(&st, info, &cluster.nodes[*n], cluster).ok())
                        .collect::<Option<_>>()?;
                    let max = raw.iter().copied().max().unwrap_or(0);
                    for (s, r) in stat.iter_mut().zip(&raw) {
                        *s += normalized(*r, max, reverse, weight);
                    }
                }
            }
        }
        // PodTopologySpread (2).
        let mut raw = std::mem::take(&mut run.raw);
        if !class.soft.is_empty() {
            self.spread_scores(run, class, feasible, &mut raw);
            for (s, r) in stat.iter_mut().zip(&raw) {
                *s += (*r).clamp(0, MAX_NODE_SCORE) * pod_topology_spread::WEIGHT;
            }
        }
        run.raw = raw;
        // ImageLocality (1): the nodes holding the pod's images, read through a per-node
        // scratch left all zero.
        if let Some(images) = &class.images {
            let dense = &mut run.image_scratch;
            if dense.len() < run.res.len() {
                dense.resize(run.res.len(), 0);
            }
            for &(n, s) in images.iter() {
                if let Some(d) = dense.get_mut(n) {
                    *d = s;
                }
            }
            for (s, n) in stat.iter_mut().zip(feasible) {
                *s += dense.get(*n).copied().unwrap_or(0);
            }
            for &(n, _) in images.iter() {
                if let Some(d) = dense.get_mut(n) {
                    *d = 0;
                }
            }
        }
        // InterPodAffinity: no pod in the cluster has affinity terms, so PreScore skips.
        // NodeResourcesFit (LeastAllocated, 1) and BalancedAllocation (1, skipped for
        // BestEffort pods): kept per node for the request.
        let cache = run.scores(&class.score_key);
        let resource = &mut run.caches[cache].scores;
        let mut best = i64::MIN;
        for (s, n) in stat.iter_mut().zip(feasible) {
            let r = &mut resource[*n];
            if *r == UNKNOWN {
                *r = resource_scores(&run.res[*n], &class.score_key);
            }
            *s += *r;
            best = best.max(*s);
        }
        // selectHost: reservoir sampling among the best, in filter order.
        let mut ties = std::mem::take(&mut run.ties);
        ties.clear();
        ties.extend(
            stat.iter()
                .zip(feasible)
                .filter(|(t, _)| **t == best)
                .map(|(_, n)| *n),
        );
        let chosen = self.draw(&ties);
        run.ties = ties;
        run.stat = stat;
        chosen.map(|n| (n, best))
    }
}

mod by_class;
pub mod first_fit;
mod node_class;
mod pod_class;
mod remove_node;
mod score_cache;
mod selectors;
mod spread;
#[cfg(test)]
mod tests;
mod unschedulable;
mod what_if;
