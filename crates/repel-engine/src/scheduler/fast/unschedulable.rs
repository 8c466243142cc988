//! A pod of a compiled class that no node fits, answered without the reference's per-node
//! filter runs: the same FitError, the same PostFilter (preemption), the same round-robin
//! index.
//!
//! The reference runs every filter plugin on every node and keeps each rejected node's status.
//! Here the diagnosis is built from what the compiled filter pass already knows:
//!
//! 1. PreFilter runs as in the reference (its cycle state is what PostFilter's dry runs read);
//!    a PreFilter that rejects the pod or narrows the nodes hands the pod back.
//! 2. Nodes the static filters reject (NodeUnschedulable, NodeName, TaintToleration,
//!    NodeAffinity, NodePorts: the profile's first filters) get their node class's status,
//!    computed once per static key on the class's first node.
//! 3. Every other node was rejected by NodeResourcesFit or PodTopologySpread (the only filters
//!    after them the compiled path admits pods for). Their statuses carry no figures: the
//!    resources that are short (and whether beyond allocatable), or the kind of spread
//!    failure, decide them. The reference's filters run on the first node of each such
//!    reason and that status stands for the others; a pod with extended-resource requests
//!    runs them on each of those nodes.
//!
//! Every node was visited, so the round-robin index moves by the number of nodes, i.e. not at
//! all; the tie-break generator is not drawn. A pod like the last unschedulable one on an
//! unchanged cluster gets its answer at once, as in the reference path (`LastUnschedulable`).

use std::sync::Arc;

use super::{
    FastScheduler, PodClass, Run, STATIC_FILTERS, Statics, compiled_unschedulable_key, hard_failure,
};
use crate::cluster::{Cluster, NodeId, NodeInfo, PodId, PodInfo};
use crate::scheduler::framework::{CycleState, Status};
use crate::scheduler::{Diagnosis, Outcome};

/// What decides an allowed node's status.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    /// NodeResourcesFit: bit 0 too many pods; bits 1, 3, 5 cpu, memory, ephemeral storage
    /// short; bits 2, 4, 6 the same beyond allocatable.
    Resources(u8),
    /// PodTopologySpread: the node lacks a constraint's topology key.
    SpreadLabel,
    /// PodTopologySpread: a constraint's skew is exceeded.
    SpreadSkew,
    /// Not decided by the above: the node's own filter run.
    Own,
}

impl FastScheduler {
    /// The outcome of a cycle in which the compiled filter pass found no feasible node among
    /// all nodes (`key`: the pod's class key); `None` hands the pod to the reference (nothing
    /// changed then).
    pub(super) fn compiled_unschedulable(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        key: u128,
        class: &PodClass,
        hard_min: &[i64],
    ) -> Option<Outcome> {
        if !matches!(&*class.statics, Statics::ByClass { .. }) {
            return None;
        }
        let n_all = cluster.nodes.len();
        let like = cluster
            .pods
            .get(pod)
            .map(|p| compiled_unschedulable_key(p, key));
        if let Some(outcome) = self.like_last_unschedulable(run, like, n_all) {
            return Some(outcome);
        }
        let info = cluster.pods.get(pod)?;
        let (state, d) = self.diagnose(run, class, hard_min, info, cluster, None)?;
        let before = self.reference.next_start_node_index;
        self.reference.next_start_node_index = (before + n_all) % n_all.max(1);
        let outcome = self.reference.unschedulable(cluster, pod, &state, &d);
        self.remember_unschedulable(run, &outcome, like, before, n_all);
        Some(outcome)
    }

    /// PreFilter and the diagnosis of pod `info` of compiled class `class`, which no node
    /// fits, built from node classes and reasons (see the module documentation); `special`, a
    /// node of the cluster and what stands for it (its labels or taints changed without the
    /// cluster's node classes knowing), gets its own filter run on the latter, and so does
    /// each node left cordoned by a what-if sequence. `None` when PreFilter rejects the pod or
    /// narrows the nodes, when a node fits after all, or when the class is not judged by node
    /// class: the reference answers then.
    pub(super) fn diagnose(
        &self,
        run: &mut Run,
        class: &PodClass,
        hard_min: &[i64],
        info: &PodInfo,
        cluster: &Cluster,
        special: Option<(NodeId, &NodeInfo)>,
    ) -> Option<(CycleState, Diagnosis)> {
        if !matches!(&*class.statics, Statics::ByClass { .. }) {
            return None;
        }
        let mut state = CycleState::default();
        if !matches!(
            self.reference.pre_filter(&mut state, info, cluster),
            Ok((None, _))
        ) {
            return None;
        }
        let by_class = self.static_rejections(run, class, &state, info, cluster);
        let mut d = Diagnosis::default();
        let class_entry: Vec<Option<u32>> = by_class
            .iter()
            .map(|st| st.as_ref().map(|st| d.intern(st.clone())))
            .collect();
        let mut seen: Vec<(Why, u32)> = Vec::new();
        for (n, node) in cluster.nodes.iter().enumerate() {
            // The special node as its stand-in; a node a what-if sequence left cordoned
            // ([`super::first_fit::FirstFit::cordon`]) as it is now, not as its class.
            let own = match special.filter(|(s, _)| *s == n) {
                Some((_, stand_in)) => Some(stand_in),
                None => (run.cordoned.get(n) == Some(&true)).then_some(node),
            };
            if let Some(stand_in) = own {
                let st = self.reference.run_filters(&state, info, stand_in, cluster);
                if st.is_success() {
                    return None;
                }
                let i = d.intern(st);
                d.reject_as(n, i);
                continue;
            }
            if let Some(i) = class_entry[run.node_class[n] as usize] {
                d.reject_as(n, i);
                continue;
            }
            let why = why(run, class, hard_min, n);
            let i = match seen.iter().find(|(w, _)| *w == why) {
                Some(&(_, i)) => i,
                None => {
                    let st = self.reference.run_filters(&state, info, node, cluster);
                    if st.is_success() {
                        return None;
                    }
                    let i = d.intern(st);
                    if why != Why::Own {
                        seen.push((why, i));
                    }
                    i
                }
            };
            d.reject_as(n, i);
        }
        Some((state, d))
    }

    /// Per node class, the static filters' rejection (`None`: they pass), kept per static key.
    fn static_rejections(
        &self,
        run: &mut Run,
        class: &PodClass,
        state: &CycleState,
        info: &PodInfo,
        cluster: &Cluster,
    ) -> Arc<Vec<Option<Status>>> {
        if let Some(r) = run.rejections.get(&class.static_key) {
            return r.clone();
        }
        let r: Arc<Vec<Option<Status>>> = Arc::new(
            run.reps
                .iter()
                .map(|&rep| self.static_status(state, info, &cluster.nodes[rep], cluster))
                .collect(),
        );
        run.rejections.insert(class.static_key, r.clone());
        r
    }

    /// The first static filter (in profile order) that rejects the pod on `node`, as
    /// `run_filters` reports it.
    fn static_status(
        &self,
        state: &CycleState,
        info: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) -> Option<Status> {
        for name in STATIC_FILTERS {
            if state.skip_filter.contains(name) {
                continue;
            }
            let pl = self.plugin(name)?;
            let mut st = pl.filter(state, info, node, cluster);
            if !st.is_success() {
                st.plugin = pl.name();
                return Some(st);
            }
        }
        None
    }
}

/// What decides the status of node `n`, which the static filters pass.
fn why(run: &Run, class: &PodClass, hard_min: &[i64], n: NodeId) -> Why {
    if !class.requests.scalar.is_empty() {
        return Why::Own;
    }
    let (f, r) = (&run.free[n], &run.res[n]);
    let [cpu, mem, eph] = class.need;
    let mut mask = u8::from(f.pods < 1);
    for (k, (need, free, alloc)) in [
        (cpu, f.cpu, r.alloc_cpu),
        (mem, f.mem, r.alloc_mem),
        (eph, f.eph, r.alloc_eph),
    ]
    .into_iter()
    .enumerate()
    {
        if need > free {
            mask |= 2 << (2 * k);
            if need > alloc {
                mask |= 4 << (2 * k);
            }
        }
    }
    if mask != 0 {
        return Why::Resources(mask);
    }
    match hard_failure(run, class, hard_min, n) {
        Some(true) => Why::SpreadLabel,
        Some(false) => Why::SpreadSkew,
        None => Why::Own,
    }
}
