//! repel-engine: cluster state and kube-scheduler's default profile, on repel-core's semantics.
//!
//! Start with [`cluster::Cluster`] (nodes, pods, what runs where) and [`scheduler::Scheduler`]
//! (one scheduling cycle, [`scheduler::schedule_all`] for a queue). Everything is synchronous and
//! seeded: the same input and seed give the same placements.
//!
//! # Layout
//! - [`clock`]: simulated time and Go's duration syntax.
//! - [`events`]: events as controllers record them.
//! - [`controllers`]: taint eviction, node lifecycle, … as state machines on the clock.
//! - [`disruption`]: PodDisruptionBudget allowances, computed when a budget has no status.
//! - [`resources`]: resource amounts, pod requests, node allocatable.
//! - [`cluster`]: the object store and its indexes; `NodeInfo`, `PodInfo`.
//! - [`load`]: a cluster from manifests' objects, admitted as the API server would.
//! - [`scheduler`]: the framework, the default profile's plugins, preemption, the cycle.
//! - [`sim`]: the simulation loop and the scenario runner.
//! - [`plan`]: what-if plans (the eviction plan of a NoExecute taint).
//! - [`rng`]: the seeded generator.
//! - [`generate`]: seeded realistic clusters (node pools, workloads) for `generate` and `bench`.
//! - [`scenario`]: the `kind: Scenario` file format: steps, flags, expectations.
//! - [`kubectl`]: kubectl's client-side drain rules and the eviction API, for steps and what-ifs.
//! - [`kubectl_steps`]: a scenario's `kubectl:` lines (taint, cordon, drain, label, delete, scale).
//! - [`actions`]: what the control plane did, as actions a driver applies.
//! - [`control_plane`]: every controller once, run together on a cluster view at a time.
//! - [`event_correlator`]: client-go's event spam filter and aggregation.
//! - [`pool_steps`]: a scenario's `az:` and `aws:` lines for node pools.
//! - [`drain`]: the drain and consolidation deciders (kubectl, cluster-autoscaler, Karpenter).
//! - [`whatif`]: a scheduled cluster's session, and the drain and consolidation what-ifs on it.

pub mod actions;
pub mod clock;
pub mod cluster;
pub mod control_plane;
pub mod controllers;
pub mod disruption;
pub mod drain;
pub mod event_correlator;
pub mod events;
pub mod generate;
pub mod kubectl;
pub mod kubectl_steps;
pub mod load;
pub mod plan;
pub mod pool_steps;
pub mod resources;
pub mod rng;
pub mod scenario;
pub mod scheduler;
pub mod sim;
pub mod whatif;

pub use cluster::{Cluster, NodeId, NodeInfo, PodId, PodInfo};
pub use scheduler::{Outcome, Scheduler, schedule_all};

/// Drops `value` on a thread of its own, which nothing waits for: a big structure (a run's
/// compiled state, a build's input) is freed while the caller goes on. If no thread can be
/// started, `value` is dropped here.
pub(crate) fn drop_elsewhere<T: Send + 'static>(value: T) {
    // (`spawn` drops the closure, and `value` with it, when the thread cannot start.)
    let _ = std::thread::Builder::new()
        .name("repel-free".to_string())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod layout_tests {
    #[test]
    fn every_public_module_is_in_the_crate_layout() {
        assert_eq!(
            repel_core::doc_layout::unlisted_modules(include_str!("lib.rs")),
            Vec::<String>::new()
        );
    }
}
