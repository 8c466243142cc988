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
            let skip = |f: NodeId| f == removed || c.nodes[f].unschedulable;
            self.ff(c).first_fit(c, id, start, skip)
        } else {
            None
        };
        if let Some(found) = compiled {
            self.answered.0 += 1;
            return found;
        }
        self.answered.1 += 1;
        let sched = reference(&mut self.sched, self.gates, self.seed);
        with_node(c, removed, ghost, |c| {
            let skip = |f: NodeId| f == removed || c.nodes[f].unschedulable;
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
