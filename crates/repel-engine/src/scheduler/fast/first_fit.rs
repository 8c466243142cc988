//! cluster-autoscaler's first fit on the compiled state.
//!
//! cluster-autoscaler's scale-down simulation asks, for each pod to move, for the first node in
//! its rotating order whose PreFilter and Filter plugins pass — no scores. [`FirstFit`] answers
//! that from the compiled scheduler's state, built once for a whole what-if: node and pod
//! classes answer the static filters once per class (the nodes they let through, in node
//! order), requests are compared with each node's free figures, hard spread constraints with
//! the matching pods per domain — all kept in step with the binds and unbinds the simulation
//! makes ([`FirstFit::moved`]). A pod the compiled path does not cover (host ports, inter-pod
//! affinity anywhere in the cluster, a pod naming nodes, a hard spread constraint honouring
//! taints) gets `None`, and the caller asks the reference ([`Scheduler::first_fit`]).
//!
//! Nodes' labels, taints and `unschedulable` must not change while one is in use, except on
//! nodes the caller skips; a node removed from the cluster is told to
//! [`FirstFit::node_removed`].

use super::{
    FastScheduler, MAX_SPREADS, PodClass, Run, SpecKeys, Statics, class_key, fits_free,
    hard_counts, hard_failure, has_pod_affinity,
};
use crate::cluster::{Cluster, NodeId, PodId};
use repel_core::FeatureGates;

use super::{Outcome, Scheduler};
use repel_core::explain::unschedulable_taint;
use repel_core::taint::tolerations_tolerate_taint;

/// The compiled first fit. See the module documentation.
pub struct FirstFit {
    sched: FastScheduler,
    run: Run,
    affinity_anywhere: bool,
    /// Spec keys by the address of a spec shared by pods (the cluster keeps them alive).
    specs: SpecKeys,
}

impl FirstFit {
    /// The compiled state of `cluster` as it is now.
    pub fn new(gates: FeatureGates, cluster: &Cluster) -> Self {
        FirstFit {
            sched: FastScheduler::new(gates, Some(100), 0),
            run: Run::new(cluster),
            affinity_anywhere: cluster.pods.iter().any(has_pod_affinity),
            specs: SpecKeys::of_cluster(cluster),
        }
    }

    /// [`FirstFit::new`] with the label keys of `cluster`'s pods known already (from
    /// [`FirstFit::take_label_keys`] of a state of the same pods, whose labels and ids have not
    /// changed since): they are not hashed again.
    pub fn with_label_keys(gates: FeatureGates, cluster: &Cluster, label_keys: Vec<u128>) -> Self {
        FirstFit {
            sched: FastScheduler::new(gates, Some(100), 0),
            run: Run::with_label_keys(cluster, label_keys),
            affinity_anywhere: cluster.pods.iter().any(has_pod_affinity),
            specs: SpecKeys::of_cluster(cluster),
        }
    }

    /// The pods' label keys this state computed (by pod id; 0 where not computed).
    pub fn take_label_keys(&mut self) -> Vec<u128> {
        std::mem::take(&mut self.run.sel.lc_keys)
    }

    /// The compiled state `sched` kept of its last run on `cluster` (see
    /// [`FastScheduler::keep_state`]): its node classes, counts and compiled pod classes are
    /// reused — a pod taken off its node and pending again is of the class it was scheduled
    /// with. Without a kept state (or one of another cluster size), a new one.
    pub fn from_scheduler(mut sched: FastScheduler, cluster: &Cluster) -> Self {
        let run = sched
            .kept
            .take()
            .filter(|r| r.res.len() == cluster.nodes.len())
            .unwrap_or_else(|| Run::new(cluster));
        FirstFit {
            sched,
            run,
            affinity_anywhere: cluster.pods.iter().any(has_pod_affinity),
            specs: SpecKeys::of_cluster(cluster),
        }
    }

    /// Pod `pod` was bound to (`delta` 1) or taken off (-1) node `node` of `cluster`: the
    /// counts follow. Call it after the change.
    pub fn moved(&mut self, cluster: &Cluster, pod: PodId, node: NodeId, delta: i32) {
        if pod >= cluster.pods.len() || node >= cluster.nodes.len() {
            return;
        }
        self.run.sel.moved(cluster, pod, node, delta);
        // Logged: a placement's resource scores catch up from the log.
        self.run.touched(cluster, node);
    }

    /// Node `node` was removed from the cluster, now `cluster` ([`Cluster::delete_node`]: the
    /// ids after it moved down by one): the state follows in place (see `remove_node`),
    /// without counting every bound pod again, and answers from now on as a state built anew
    /// on `cluster` with `gates` would, its reference scheduler new as well.
    pub fn node_removed(&mut self, gates: FeatureGates, cluster: &Cluster, node: NodeId) {
        self.nodes_removed(gates, cluster, &[node]);
    }

    /// Nodes `gone` (their ids before) were removed from the cluster together, now `cluster`
    /// ([`Cluster::delete_nodes`]): the state follows in one pass, as
    /// [`FirstFit::node_removed`] of each in turn leaves it.
    pub fn nodes_removed(&mut self, gates: FeatureGates, cluster: &Cluster, gone: &[NodeId]) {
        self.sched = FastScheduler::new(gates, Some(100), 0);
        self.run.remove_nodes(cluster, gone);
    }

    /// Node `node`'s node class (labels but the hostname, taints, `unschedulable`).
    pub fn node_class_of(&self, node: NodeId) -> Option<usize> {
        self.run.node_class.get(node).map(|&c| c as usize)
    }

    /// How many nodes each node class has.
    pub fn node_class_sizes(&self) -> Vec<usize> {
        self.run.class_nodes.iter().map(Vec::len).collect()
    }

    /// The compiled state, for the tests.
    #[cfg(test)]
    pub(super) fn run_mut(&mut self) -> &mut Run {
        &mut self.run
    }

    /// A what-if begins whose changes will all be put back (each bind and unbind told to
    /// [`FirstFit::moved`]) before [`FirstFit::end`]: the resource-score caches keep what the
    /// next what-if can use.
    pub fn begin(&mut self) {
        self.run.what_if_begins();
    }

    /// The what-if begun by [`FirstFit::begin`] was put back.
    pub fn end(&mut self) {
        self.run.what_if_ends();
    }

    /// Node `node` stays cordoned from now on (a what-if sequence drained it; the caller
    /// cordons it in the cluster too): [`FirstFit::place`] leaves it out as it leaves out the
    /// node being drained, and a node class it represented gets another representative, so
    /// that the pod classes compiled from now on see the class as compiled; a FitError's
    /// diagnosis filters it on its own. The what-if begun is not put back.
    pub fn cordon(&mut self, node: NodeId) {
        let n = self.run.node_class.len();
        if node >= n {
            return;
        }
        self.run.cordoned.resize(n, false);
        self.run.cordoned[node] = true;
        let class = self.run.node_class[node];
        if self.run.reps.get(class as usize) == Some(&node)
            && let Some(other) =
                (0..n).find(|&m| self.run.node_class[m] == class && !self.run.cordoned[m])
        {
            self.run.reps[class as usize] = other;
        }
        self.run.base_log = None;
        self.run.sel.journal = None;
    }

    /// A what-if's placements: answered from the cluster before it, entries built, handed to
    /// the full path (see `what_if`).
    pub fn what_if_stats(&self) -> (usize, usize, usize) {
        let l = &self.run.levels;
        (l.placed, l.built, l.full)
    }

    /// The reference scheduler the compiled placements share their round-robin index and
    /// tie-break generator with, for the pods [`FirstFit::place`] does not cover.
    pub fn reference(&mut self) -> &mut Scheduler {
        &mut self.sched.reference
    }

    /// kube-scheduler's placement of pending pod `pod` by the default profile — filters,
    /// scores, the seeded tie-break of [`FirstFit::reference`] — every node scored, from the
    /// first node. Node `cordoned` (cordoned in the what-if, not in `cluster`: the node
    /// classes must keep seeing it as compiled) and the nodes [`FirstFit::cordon`]ed are left
    /// out unless the pod tolerates `node.kubernetes.io/unschedulable`. Nothing is bound:
    /// `Some(Some(node))` is where the pod goes (the caller binds it and calls
    /// [`FirstFit::moved`]), `Some(None)` that no node fits ([`FirstFit::fit_error`] says why),
    /// `None` that the compiled path does not cover the pod.
    pub fn place(
        &mut self,
        cluster: &mut Cluster,
        pod: PodId,
        cordoned: NodeId,
    ) -> Option<Option<NodeId>> {
        let (class, key) = self.class(cluster, pod)?;
        let tolerates = tolerations_tolerate_taint(
            cluster.pods.get(pod)?.tolerations(),
            &unschedulable_taint(),
            &self.sched.gates,
        );
        self.run.what_if = true;
        self.run.skip = (!tolerates).then_some(cordoned);
        self.run.chain = None;
        self.sched.reference.next_start_node_index = 0;
        // Every node scored, whatever the state was scheduled with (the reference's
        // `evaluate` filters every node too).
        self.sched.reference.percentage_of_nodes_to_score = Some(100);
        if let Some((node, _)) = self.sched.what_if_place(&mut self.run, cluster, &class) {
            self.run.what_if = false;
            self.run.skip = None;
            return Some(Some(node));
        }
        let outcome = self
            .sched
            .compiled(&mut self.run, cluster, pod, key, &class);
        self.run.what_if = false;
        self.run.skip = None;
        self.run.chain = None;
        match outcome? {
            Outcome::Scheduled { node, .. } => Some(Some(node)),
            Outcome::Unschedulable { .. } => Some(None),
        }
    }

    /// The FitError text of pending pod `pod`, which no node fits, as
    /// [`Scheduler::evaluate`] gives it on `cluster` with node `ghost` replaced by `stand_in`
    /// (the node as the what-if changed it: cluster-autoscaler's tainted copy): the diagnosis
    /// from node classes and reasons, then preemption's dry run. `None` when the compiled
    /// path does not cover the pod (or finds a node that fits): ask the reference.
    pub fn fit_error(
        &mut self,
        cluster: &Cluster,
        pod: PodId,
        ghost: NodeId,
        stand_in: &crate::cluster::NodeInfo,
    ) -> Option<String> {
        let (class, _) = self.class(cluster, pod)?;
        let hard_min = if class.hard.is_empty() {
            [0; MAX_SPREADS]
        } else {
            hard_counts(&mut self.run, &class)
        };
        let info = cluster.pods.get(pod)?;
        let (state, d) = self.sched.diagnose(
            &mut self.run,
            &class,
            &hard_min,
            info,
            cluster,
            Some((ghost, stand_in)),
        )?;
        let reference = &self.sched.reference;
        let post =
            crate::scheduler::preemption::post_filter_message(reference, cluster, &state, info, &d);
        Some(Scheduler::fit_error_message(cluster, &d, &post))
    }

    /// The compiled class of pod `pod` when the compiled path covers it here: judged by node
    /// class, no pod affinity anywhere, no hard spread constraint that honours taints (the
    /// classes do not see a what-if's taints). With its class key.
    fn class(&mut self, cluster: &Cluster, pod: PodId) -> Option<(std::sync::Arc<PodClass>, u128)> {
        if self.affinity_anywhere {
            return None;
        }
        let info = cluster.pods.get(pod)?;
        // The key it was scheduled with when this state scheduled it: a pod taken off its node
        // reads as it did pending (no `spec.nodeName`), and nothing else of it changed.
        let key = match self.run.class_keys.get(pod) {
            Some(&k) if k != 0 && info.spec_node_name().is_none() => k,
            _ => class_key(info, &mut self.specs),
        };
        let class = self
            .sched
            .class_of(&mut self.run, cluster, pod, key, None)?;
        let by_class = matches!(&*class.statics, Statics::ByClass { .. });
        (by_class && !class.hard.iter().any(|s| s.honor_taints)).then_some((class, key))
    }

    /// The first node from `start` in node order (wrapping), `skip`ped nodes left out, whose
    /// filters pass for pending pod `pod`: `Some(Some(node))`, `Some(None)` when no node
    /// passes, `None` when the compiled path does not cover the pod.
    pub fn first_fit(
        &mut self,
        cluster: &Cluster,
        pod: PodId,
        start: usize,
        skip: impl Fn(NodeId) -> bool,
    ) -> Option<Option<NodeId>> {
        let (class, _) = self.class(cluster, pod)?;
        let Statics::ByClass { allowed, .. } = &*class.statics else {
            return None;
        };
        let n_all = cluster.nodes.len();
        if n_all == 0 {
            return Some(None);
        }
        let hard_min = if class.hard.is_empty() {
            [0; MAX_SPREADS]
        } else {
            hard_counts(&mut self.run, &class)
        };
        let run = &self.run;
        let start = start % n_all;
        let split = allowed.partition_point(|n| *n < start);
        Some(
            allowed[split..]
                .iter()
                .chain(&allowed[..split])
                .copied()
                .find(|&n| {
                    !skip(n)
                        && fits_free(&class, &run.free[n], &cluster.nodes[n])
                        && (class.hard.is_empty()
                            || hard_failure(run, &class, &hard_min, n).is_none())
                }),
        )
    }
}
