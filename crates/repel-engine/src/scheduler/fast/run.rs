//! One run of the compiled scheduler over a queue (upstream `pkg/scheduler/schedule_one.go`
//! `ScheduleOne` and `schedulingCycle`, v1.35): the per-run state ([`Run`]) and the loop.
//!
//! [`FastScheduler::run`] schedules a queue pod by pod ([`FastScheduler::schedule_one`]):
//! the pod's class is compiled (`compile`) or the pod goes to the reference scheduler, then
//! placed (`place`). [`Run`] holds the node and pod classes, the counts, the per-node figures
//! and their change log (a node a bind changed is [`Run::touched`]), the score caches, the
//! repeat path's chain, a what-if's saved figures, and the scratch of every stage. A pod found
//! unschedulable with nothing changed since answers a like pod at once ([`LastUnschedulable`]).

use super::*;

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
pub(super) struct Run {
    pub(super) node_class: Vec<u32>,
    pub(super) reps: Vec<NodeId>,
    /// Per node class, its nodes in node order.
    pub(super) class_nodes: Vec<Vec<NodeId>>,
    pub(super) res: Vec<NodeRes>,
    pub(super) free: Vec<Free>,
    pub(super) domains: Vec<Domains>,
    pub(super) domain_index: HashMap<String, usize>,
    pub(super) classes: FastMap<u128, Option<Arc<PodClass>>>,
    pub(super) statics: FastMap<u128, StaticFacts>,
    /// What compiling reads of a spec, by the address of a spec shared by pods (see
    /// [`SpecMemo`]).
    pub(super) specs: FastMap<usize, SpecMemo>,
    /// Node-inclusion answers per node class, by static key and (affinity, taints) policy.
    pub(super) includes: FastMap<(u128, bool, bool), Arc<Vec<bool>>>,
    /// Per static key, per node class: the static filters' rejection (see `unschedulable`).
    pub(super) rejections: FastMap<u128, Arc<Vec<Option<Status>>>>,
    /// Per list of topology keys (domain ids): whether each node class has them all.
    pub(super) keys: FastMap<Vec<usize>, Arc<[bool]>>,
    pub(super) sel: Selectors,
    /// Nodes whose resources changed, in order; caches catch up from it.
    pub(super) log: Vec<NodeId>,
    pub(super) epoch: u64,
    pub(super) caches: Vec<ScoreCache>,
    pub(super) tick: u64,
    /// Scratch.
    pub(super) feasible: Vec<NodeId>,
    pub(super) stat: Vec<i64>,
    pub(super) raw: Vec<i64>,
    pub(super) dom_cnt: Vec<Vec<i64>>,
    pub(super) soft_present: Vec<Vec<bool>>,
    /// Per node class: feasible nodes of the pod being scheduled (a by-class pod's, counted
    /// in the filter pass `feasible_pass`; `pass` counts pods).
    pub(super) class_feasible: Vec<u32>,
    pub(super) pass: u64,
    pub(super) feasible_pass: u64,
    /// The pod just placed, for a like pod next (see [`by_class`]).
    pub(super) chain: Option<by_class::Chain>,
    unschedulable: Option<LastUnschedulable>,
    pub(super) buckets: by_class::Buckets,
    /// Per node: the pod (`stamp`) for which it is feasible / has its own score.
    pub(super) feasible_mark: Vec<u64>,
    pub(super) own_mark: Vec<u64>,
    pub(super) own_score: Vec<i64>,
    /// Per node class: the score of its nodes without matching pods; the best nodes.
    pub(super) class_score: Vec<i64>,
    pub(super) ties: Vec<NodeId>,
    /// The repeat path's tied nodes, as a bit set (all clear between draws).
    pub(super) tie_bits: Vec<u64>,
    /// Scratch of `select_by_class`: nodes with their own raw spread score, how many per
    /// class, and each class's raw spread score.
    pub(super) own: Vec<(NodeId, i64)>,
    pub(super) own_in_class: Vec<u32>,
    pub(super) class_raw: Vec<i64>,
    /// Scratch of `class_scores`: raw spread scores by zone slot, hostname label and count.
    pub(super) raw_memo: Vec<i64>,
    /// Scratch of `score_and_select`: ImageLocality's score per node (all 0 between pods).
    pub(super) image_scratch: Vec<i64>,
    /// Per pod, the class key it was scheduled with (0: none), kept for a what-if that starts
    /// from this state ([`FastScheduler::keep_state`]).
    pub(super) class_keys: Vec<u128>,
    /// A what-if's placement ([`first_fit::FirstFit::place`]): no repeat path, nothing bound
    /// (the caller binds), nothing done when no node fits (an empty message), and `skip` (a
    /// cordoned node the node classes do not know of) left out of the filter pass.
    pub(super) what_if: bool,
    pub(super) skip: Option<NodeId>,
    /// Nodes a what-if sequence left cordoned ([`first_fit::FirstFit::cordon`]; empty: none),
    /// left out of the filter pass with `skip`.
    pub(super) cordoned: Vec<bool>,
    /// Cache slots by key (when there are more than a handful), how many may be kept, and
    /// where the change log stood when the current what-if began.
    pub(super) cache_index: FastMap<ScoreKey, usize>,
    pub(super) max_caches: usize,
    pub(super) base_log: Option<usize>,
    /// The figures of the nodes the current what-if changed, as they were before it (in the
    /// order first changed), and each node's place there plus one (0: unchanged).
    pub(super) saved: Vec<(NodeId, NodeRes, Free)>,
    pub(super) saved_at: Vec<u32>,
    /// A what-if's placements from the cluster before it ([`what_if`]).
    pub(super) levels: what_if::Levels,
}

impl Run {
    pub(super) fn new(cluster: &Cluster) -> Self {
        Run::with_label_keys(cluster, Vec::new())
    }

    /// A state of `cluster` with these node classes and representatives and these counts, the
    /// rest as a build starts it.
    pub(super) fn from_parts(
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
    pub(super) fn spec_memo(&mut self, info: &PodInfo) -> Option<SpecMemo> {
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
    pub(super) fn touched(&mut self, cluster: &Cluster, node: NodeId) {
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
    pub(super) fn what_if_begins(&mut self) {
        self.max_caches = max_caches(self.res.len());
        self.base_log = Some(self.log.len());
        self.unsave();
        self.sel.journal = Some(Vec::new());
    }

    /// The what-if's changes were put back: every cache forgets the nodes it changed (so it
    /// holds the scores of the cluster as it was when the what-if began) and the change log
    /// is cut back to where it began.
    pub(super) fn what_if_ends(&mut self) {
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
    pub(super) fn run(
        &mut self,
        cluster: &mut Cluster,
        queue: &[PodId],
        retry: bool,
    ) -> Vec<Placement> {
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
    pub(super) fn like_last_unschedulable(
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
    pub(super) fn remember_unschedulable(
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
}
