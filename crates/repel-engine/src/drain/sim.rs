//! What a drain what-if needs besides the cluster, shared by the deciders that place pods by
//! first fit (cluster-autoscaler, Karpenter): the compiled first fit, kept in step with the
//! what-if's binds and with the nodes removed, built again after a node's taints change; the
//! reference scheduler, for the
//! pods the compiled path does not cover and for their FitError texts; and the pods on each
//! node.
//!
//! The node being drained changes while it is judged (cluster-autoscaler taints it
//! `ToBeDeletedByClusterAutoscaler`, Karpenter `karpenter.sh/disrupted`), and the compiled
//! state must keep seeing every node as its class was compiled (a class's representative may
//! be that node). So the node is never changed in the cluster: the compiled path skips it,
//! and only where a filter must read it (the reference's first fit, a FitError) is its changed
//! copy — the *ghost* — given apart or swapped in for the call.

use super::{PodsOn, Undo, fit_error};
use crate::cluster::{Cluster, NodeId, NodeInfo, PodId};
use crate::scheduler::Scheduler;
use crate::scheduler::fast::first_fit::FirstFit;
use crate::scheduler::plugins::pod_topology_spread::common::{DO_NOT_SCHEDULE, LABEL_HOSTNAME};

/// See the module documentation.
pub struct Sim {
    gates: repel_core::FeatureGates,
    seed: u64,
    ff: Option<FirstFit>,
    /// The pods' label keys of a compiled state dropped after a node's taints changed (pods
    /// keep their ids and labels), for the next one.
    label_keys: Vec<u128>,
    sched: Option<Scheduler>,
    pods_on: PodsOn,
    /// Whether the compiled first fit answers (else the reference, for every pod).
    pub(crate) compiled: bool,
    /// First fits and FitErrors answered by the compiled path, and by the reference.
    pub(crate) answered: (usize, usize),
    /// Whether a pod that fits nowhere gets its FitError text ([`Sim::pending_message`]);
    /// a what-if that prints none (consolidation) leaves it off.
    pub(crate) messages: bool,
    /// Nodes gone from the what-if but still in its cluster (see [`Sim::bury`]).
    buried: Buried,
}

/// Nodes removed from a what-if and left in its cluster until a judgement needs them gone
/// ([`Sim::bury`]): their ids ascending, and a flag per node; the nodes not buried of each
/// node class of the compiled state, and how many classes have none left (`None`: a node
/// was buried without a compiled state to tell its class).
#[derive(Default)]
struct Buried {
    ids: Vec<NodeId>,
    is: Vec<bool>,
    class_live: Vec<usize>,
    emptied: Option<usize>,
}

impl Buried {
    fn contains(&self, node: NodeId) -> bool {
        self.is.get(node).copied().unwrap_or(false)
    }

    /// How many buried nodes come before `node`.
    fn before(&self, node: NodeId) -> usize {
        self.ids.partition_point(|b| *b < node)
    }
}

impl Sim {
    /// For what-ifs on `c` with these feature gates and the scheduler's seed.
    pub fn new(c: &Cluster, gates: repel_core::FeatureGates, seed: u64) -> Sim {
        Sim {
            gates,
            seed,
            ff: None,
            label_keys: Vec::new(),
            sched: None,
            pods_on: PodsOn::new(c),
            compiled: true,
            answered: (0, 0),
            messages: true,
            buried: Buried::default(),
        }
    }

    /// Starts from `ff` (the compiled state of the cluster as it is now), when given.
    pub fn with_first_fit(mut self, ff: Option<FirstFit>) -> Sim {
        self.ff = ff;
        self
    }

    /// The compiled state, if built (for another what-if on the same cluster, when this
    /// one put everything back).
    pub fn take_first_fit(&mut self) -> Option<FirstFit> {
        self.ff.take()
    }

    /// The compiled state, built from `c` on first use.
    fn ff(&mut self, c: &Cluster) -> &mut FirstFit {
        let (gates, keys) = (self.gates, &mut self.label_keys);
        self.ff
            .get_or_insert_with(|| FirstFit::with_label_keys(gates, c, std::mem::take(keys)))
    }

    /// Builds the compiled state now, from `c` as it is before the what-if changes it.
    pub(crate) fn prepare(&mut self, c: &Cluster) {
        if self.compiled {
            self.ff(c);
        }
    }

    /// A node was drained in a sequence and stays cordoned (the caller cordons it in the
    /// cluster): the compiled state keeps it out ([`FirstFit::cordon`]).
    pub(crate) fn cordoned(&mut self, node: NodeId) {
        if let Some(ff) = self.ff.as_mut() {
            ff.cordon(node);
        }
    }

    /// Pod `pod` was bound to (`delta` 1) or taken off (-1) node `node` of `c`.
    pub(crate) fn moved(&mut self, c: &Cluster, pod: PodId, node: NodeId, delta: i32) {
        if let Some(ff) = self.ff.as_mut() {
            ff.moved(c, pod, node, delta);
        }
    }

    /// Nodes `gone` (their ids before) were removed from the cluster together, now `c`
    /// ([`Cluster::delete_nodes`]): the compiled state follows in one pass
    /// ([`FirstFit::nodes_removed`]).
    pub(crate) fn nodes_removed(&mut self, c: &Cluster, gone: &[NodeId]) {
        if let Some(ff) = self.ff.as_mut() {
            ff.nodes_removed(self.gates, c, gone);
        }
    }

    /// Node `node` of `c` goes from the what-if (its pods gone, none bound to it any more)
    /// but stays in the cluster, for [`Cluster::delete_nodes`] to remove later with the
    /// others buried ([`Sim::buried`]): until then the first fits leave it out and count node
    /// positions without it ([`Sim::live`], [`Sim::position`], [`Sim::node_at`]), so that they
    /// answer as on the cluster without it. Removing a node this way costs a few numbers;
    /// removing it from the cluster renumbers every later node in every structure.
    pub(crate) fn bury(&mut self, c: &Cluster, node: NodeId) {
        if node >= c.nodes.len() || self.buried.contains(node) {
            return;
        }
        let b = &mut self.buried;
        if b.ids.is_empty() {
            b.class_live = self
                .ff
                .as_ref()
                .map(FirstFit::node_class_sizes)
                .unwrap_or_default();
            b.emptied = Some(0);
        }
        let class = self.ff.as_ref().and_then(|ff| ff.node_class_of(node));
        match class.and_then(|k| b.class_live.get_mut(k)) {
            Some(live) => {
                *live = live.saturating_sub(1);
                if *live == 0 {
                    b.emptied = b.emptied.map(|e| e + 1);
                }
            }
            None => b.emptied = None,
        }
        b.is.resize(c.nodes.len(), false);
        b.is[node] = true;
        let at = b.before(node);
        b.ids.insert(at, node);
    }

    /// The nodes buried ([`Sim::bury`]) and not removed since, ids ascending.
    pub(crate) fn buried(&self) -> &[NodeId] {
        &self.buried.ids
    }

    /// The buried nodes were removed from the cluster, now `c` ([`Cluster::delete_nodes`] of
    /// [`Sim::buried`]): the compiled state follows ([`Sim::nodes_removed`]), and node
    /// positions are node ids again.
    pub(crate) fn buried_removed(&mut self, c: &Cluster) {
        let gone = std::mem::take(&mut self.buried.ids);
        self.buried.is.clear();
        self.nodes_removed(c, &gone);
    }

    /// How many nodes of `c` the what-if has: the buried ones left out.
    pub(crate) fn live(&self, c: &Cluster) -> usize {
        c.nodes.len() - self.buried.ids.len()
    }

    /// Node `node`'s position among the nodes the what-if has (its id once the buried nodes
    /// are removed).
    pub(crate) fn position(&self, node: NodeId) -> usize {
        node - self.buried.before(node)
    }

    /// The node at position `pos` among the nodes the what-if has ([`Sim::position`]'s
    /// inverse); past the last, the number of nodes.
    pub(crate) fn node_at(&self, c: &Cluster, pos: usize) -> NodeId {
        if self.buried.ids.is_empty() {
            return pos;
        }
        // The least id whose live nodes up to it number `pos + 1`.
        let (mut lo, mut hi) = (pos, (pos + self.buried.ids.len()).min(c.nodes.len()));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let live_through = mid + 1 - self.buried.ids.partition_point(|b| *b <= mid);
            if live_through > pos {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Whether the first fits of pod `id` of `c` answer with the buried nodes in the cluster
    /// as they would with them removed. They do when none is buried; else the buried nodes
    /// hold no pods, and the filters of a pod read other nodes only for PodTopologySpread's
    /// hard constraints (DoNotSchedule), whose domains a buried node would keep present.
    /// Those are safe on a key other than the hostname when every buried node's node class
    /// (its labels but the hostname, its taints, `unschedulable`) keeps a node that is not
    /// buried: its domains, and whether the inclusion policies admit them, stay.
    pub(crate) fn buried_unseen_by(&self, c: &Cluster, id: PodId) -> bool {
        if self.buried.ids.is_empty() {
            return true;
        }
        let Some(p) = c.pods.get(id) else {
            return true;
        };
        let hard = p
            .spec()
            .topology_spread_constraints
            .iter()
            .flatten()
            .filter(|t| t.when_unsatisfiable == DO_NOT_SCHEDULE)
            .collect::<Vec<_>>();
        if hard.is_empty() {
            return true;
        }
        if hard.iter().any(|t| t.topology_key == LABEL_HOSTNAME) {
            return false;
        }
        self.buried.emptied == Some(0)
    }

    /// A node's taints changed (Karpenter's `karpenter.sh/disrupted` on a node drained in a
    /// sequence): its node class changed, the compiled state is built again when next needed.
    pub(crate) fn node_changed(&mut self) {
        if let Some(mut ff) = self.ff.take() {
            self.label_keys = ff.take_label_keys();
        }
    }

    /// The live pods on node `node` of `c`, in the API's list order.
    pub(crate) fn pods_on(&self, c: &Cluster, node: NodeId) -> Vec<PodId> {
        self.pods_on.on(c, node)
    }

    /// Puts back what a judgement changed.
    pub fn undo(&mut self, c: &mut Cluster, undo: Undo) {
        undo.restore(c, self.ff.as_mut());
        if let Some(ff) = self.ff.as_mut() {
            ff.end();
        }
    }

    /// The first node from `start` in node order (wrapping), other than `removed` and not
    /// cordoned, whose PreFilter and Filter plugins pass for pending pod `id`: the compiled
    /// first fit, or the reference's with `removed` as its `ghost` for a pod it does not
    /// cover.
    pub(crate) fn first_fit(
        &mut self,
        c: &mut Cluster,
        id: PodId,
        start: usize,
        removed: NodeId,
        ghost: &dyn Fn(&Cluster) -> NodeInfo,
    ) -> Option<NodeId> {
        if c.nodes.is_empty() {
            return None;
        }
        let compiled = if self.compiled {
            let c: &Cluster = c;
            let buried = &self.buried;
            let skip = |f: NodeId| f == removed || c.nodes[f].unschedulable || buried.contains(f);
            let (gates, keys) = (self.gates, &mut self.label_keys);
            self.ff
                .get_or_insert_with(|| FirstFit::with_label_keys(gates, c, std::mem::take(keys)))
                .first_fit(c, id, start, skip)
        } else {
            None
        };
        if let Some(found) = compiled {
            self.answered.0 += 1;
            return found;
        }
        self.answered.1 += 1;
        let sched = reference(&mut self.sched, self.gates, self.seed);
        let buried = &self.buried;
        with_node(c, removed, ghost, |c| {
            let skip = |f: NodeId| f == removed || c.nodes[f].unschedulable || buried.contains(f);
            sched.first_fit(&c.pods[id], c, start, skip)
        })
    }

    /// A node's what-if begins that places pods by score ([`Sim::place`]): the schedulers'
    /// round-robin index and tie-break generator start again from the seed (each node's
    /// what-if is placed as if by a fresh scheduler), and the compiled state (built from `c`
    /// as it is before the what-if changes it) keeps its score caches for the next what-if
    /// once this one is put back ([`Sim::undo`]).
    pub(crate) fn begin_placing(&mut self, c: &Cluster) {
        let seed = self.seed;
        if self.compiled {
            let ff = self.ff(c);
            ff.reference().reseed(seed);
            ff.begin();
        }
        if let Some(s) = self.sched.as_mut() {
            s.reseed(seed);
        }
    }

    /// Where kube-scheduler's default profile places pending pod `id` — filters, scores, the
    /// seeded tie-break, from the first node — with node `cordoned` cordoned (`ghost`, its
    /// cordoned copy, swapped in for the reference): bound there (the node recorded in
    /// `undo` first), or the FitError text. As upstream's `schedulePod`, a single feasible
    /// node is taken without scores or a draw.
    pub(crate) fn place(
        &mut self,
        c: &mut Cluster,
        id: PodId,
        cordoned: NodeId,
        ghost: &dyn Fn(&Cluster) -> NodeInfo,
        undo: &mut Undo,
    ) -> Result<NodeId, String> {
        let compiled = if self.compiled {
            match self.ff(c).place(c, id, cordoned) {
                Some(Some(n)) => Some(Ok(n)),
                Some(None) => {
                    let g = ghost(c);
                    self.ff(c).fit_error(c, id, cordoned, &g).map(Err)
                }
                None => None,
            }
        } else {
            None
        };
        let chosen = match compiled {
            Some(chosen) => {
                self.answered.0 += 1;
                chosen
            }
            None => {
                self.answered.1 += 1;
                let sched = if self.compiled {
                    self.ff(c).reference()
                } else {
                    reference(&mut self.sched, self.gates, self.seed)
                };
                let pod = c.pods[id].clone();
                with_node(c, cordoned, ghost, |c| {
                    let eval = sched.evaluate(c, &pod);
                    let node = match eval.feasible.as_slice() {
                        [one] => Some(*one),
                        _ if eval.scores.is_empty() => eval.feasible.first().copied(),
                        _ => sched.select_host(&eval.scores),
                    };
                    node.ok_or(eval.message)
                })
            }
        };
        if let Ok(n) = chosen {
            undo.node(c, n);
            c.bind(id, n);
            self.moved(c, id, n, 1);
        }
        chosen
    }

    /// The FitError text of pod `id`, which fits on no node, with node `removed` as its
    /// `ghost`: from the compiled state when it covers the pod, else from the reference.
    pub(crate) fn pending_message(
        &mut self,
        c: &mut Cluster,
        id: PodId,
        removed: NodeId,
        ghost: &dyn Fn(&Cluster) -> NodeInfo,
    ) -> String {
        if !self.messages {
            return String::new();
        }
        if self.compiled {
            let g = ghost(c);
            if let Some(m) = self.ff(c).fit_error(c, id, removed, &g) {
                self.answered.0 += 1;
                return m;
            }
        }
        self.answered.1 += 1;
        let sched = reference(&mut self.sched, self.gates, self.seed);
        with_node(c, removed, ghost, |c| fit_error(sched, c, id))
    }
}

/// A [`Sim`]'s reference scheduler, made on first use (a free function: the caller holds the
/// cluster mutably at the same time).
fn reference(
    slot: &mut Option<Scheduler>,
    gates: repel_core::FeatureGates,
    seed: u64,
) -> &mut Scheduler {
    slot.get_or_insert_with(|| Scheduler::new(gates, Some(100), seed))
}

/// Node `node` of `c` with `taint` added (once per key), in [`NodeInfo::taints`] and in the
/// object's `spec.taints` alike.
pub(crate) fn with_taint(
    c: &Cluster,
    node: NodeId,
    taint: k8s_openapi::api::core::v1::Taint,
) -> NodeInfo {
    let mut g = c.nodes[node].clone();
    if !g.taints.iter().any(|t| t.key == taint.key) {
        g.taints.push(taint);
        std::sync::Arc::make_mut(&mut g.node)
            .spec
            .get_or_insert_with(Default::default)
            .taints = Some(g.taints.clone());
    }
    g
}

/// Runs `f` on `c` with node `node` swapped for `stand_in(c)`; the node is put back after.
fn with_node<T>(
    c: &mut Cluster,
    node: NodeId,
    stand_in: &dyn Fn(&Cluster) -> NodeInfo,
    f: impl FnOnce(&Cluster) -> T,
) -> T {
    let g = stand_in(c);
    let saved = std::mem::replace(&mut c.nodes[node], g);
    let out = f(c);
    c.nodes[node] = saved;
    out
}
