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
//!
//! # Layout
//! This file keeps the public API ([`FastScheduler`], [`FastStats`]); each part of the
//! compiled path has its own file:
//! - [`node_class`]: node classes, each node's resources and free figures, topology domains.
//! - [`pod_class`]: pod classes, their keys ([`pod_class::KeyHasher`]) and compiled form.
//! - [`selectors`]: spread selectors' matching pods per node, moved by each bind.
//! - [`spread`]: PodTopologySpread's constraints, counts, filter and scores.
//! - [`score_cache`]: the resource scores (LeastAllocated, BalancedAllocation) and their caches.
//! - [`run`]: the per-run state ([`run::Run`]) and the loop over a queue.
//! - [`compile`]: compiling a pod's class (the static plugins per node class).
//! - [`place`]: the filter pass, the scores and the draw for a compiled pod.
//! - [`by_class`]: scores per node class and the repeat path for a like pod.
//! - [`unschedulable`]: the FitError and PostFilter of a pod no node fits.
//! - [`first_fit`]: cluster-autoscaler's first fit on the compiled state.
//! - [`what_if`]: a drain what-if's placements from the cluster before it.
//! - [`remove_node`]: a node removed under a compiled state, the state following in place.

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
use super::{Outcome, Placement, Scheduler, push_with_retry};
use crate::cluster::{Cluster, NodeId, NodeInfo, PodId, PodInfo};
use crate::resources::{CPU, MEMORY, Resources, pod_score_requests};
use compile::*;
use node_class::*;
use pod_class::*;
use run::*;
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
}

mod by_class;
mod compile;
pub mod first_fit;
mod node_class;
mod place;
mod pod_class;
mod remove_node;
mod run;
mod score_cache;
mod selectors;
mod spread;
#[cfg(test)]
mod tests;
mod unschedulable;
mod what_if;
