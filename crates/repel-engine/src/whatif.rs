//! What-ifs on a cluster as it would run: a [`Session`] builds the cluster from its objects,
//! schedules its pending pods with the compiled scheduler (`FastScheduler`), and keeps the scheduler's compiled
//! state when the judge of the what-ifs starts from it; [`drain`] and [`consolidate`] then judge
//! on it (see [`crate::drain`] for the rules of each decider). Never changes anything outside the
//! session.
//!
//! Start with [`Session::new`], then [`drain`] or [`consolidate`].

use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;

use crate::cluster::Cluster;
use crate::drain::consolidate::{self, ConsolidateReport, KarpenterPool};
use crate::drain::{Decider, DrainConfig, DrainReport, ca};
use crate::load::{Built, ClusterInput, build_cluster};
use crate::scheduler::fast::FastScheduler;
use crate::scheduler::fast::first_fit::FirstFit;

/// Who judges a session's what-ifs, known before the decider's options are (they name the
/// workload objects the session reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    /// `kubectl drain` ([`Decider::Kubectl`]).
    Kubectl,
    /// cluster-autoscaler ([`Decider::ClusterAutoscaler`]).
    ClusterAutoscaler,
    /// Karpenter ([`Decider::Karpenter`]).
    Karpenter,
}

impl Judge {
    /// Whether the judge's first fits start from the compiled state of the run that scheduled
    /// the cluster. Karpenter's do not: it makes every taint hard first, so its node classes
    /// differ from the scheduling run's, and it compiles its own.
    pub fn starts_from_schedule(self) -> bool {
        !matches!(self, Judge::Karpenter)
    }
}

impl Decider {
    /// The judge this decider is.
    pub fn judge(&self) -> Judge {
        match self {
            Decider::Kubectl(_) => Judge::Kubectl,
            Decider::ClusterAutoscaler(_) => Judge::ClusterAutoscaler,
            Decider::Karpenter => Judge::Karpenter,
        }
    }
}

/// How a session builds and schedules its cluster, and the time of its what-ifs.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// Feature gates.
    pub gates: FeatureGates,
    /// The admission plugins the pods pass.
    pub admission: AdmissionConfig,
    /// The seed of generated names and of the scheduler's ties.
    pub seed: u64,
    /// kube-scheduler's percentageOfNodesToScore (`None`: upstream's adaptive default).
    pub percentage_of_nodes_to_score: Option<i64>,
    /// The time of the what-ifs, Unix seconds (cluster-autoscaler's taint value; pods being
    /// deleted for longer than their grace period are long-terminating).
    pub now_unix: i64,
}

/// A workload object: `(kind, namespace, name)`.
pub type Workload = (String, String, String);

/// A cluster as it would run, for what-ifs: built, its pending pods placed by the compiled
/// scheduler, and the compiled state kept when the judge starts from it.
pub struct Session {
    /// The cluster as scheduled, with what did not make it in.
    pub built: Built,
    /// The workload objects cluster-autoscaler's listers would find: the input's, and those
    /// the cluster's pods are owned through (the ReplicaSets its Deployments make).
    pub workloads: Vec<Workload>,
    compiled: Option<FirstFit>,
    gates: FeatureGates,
    seed: u64,
    now_unix: i64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("built", &self.built)
            .field("workloads", &self.workloads)
            .field("compiled", &self.compiled.is_some())
            .field("now_unix", &self.now_unix)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Builds `input` ([`build_cluster`]: defaulting, admission, workload pods, indexes),
    /// schedules its pending pods with the compiled scheduler, and keeps the compiled state when
    /// `judge` starts from it ([`Judge::starts_from_schedule`]).
    pub fn new(input: ClusterInput, opts: &SessionOptions, judge: Judge) -> Session {
        let mut workloads: Vec<Workload> = input
            .workloads
            .iter()
            .map(|w| {
                (
                    w.kind().to_string(),
                    w.namespace().to_string(),
                    w.name().to_string(),
                )
            })
            .collect();
        let mut built = build_cluster(input, &opts.gates, &opts.admission, opts.seed);
        let keep = judge.starts_from_schedule();
        let mut fast = FastScheduler::new(opts.gates, opts.percentage_of_nodes_to_score, opts.seed);
        if keep {
            fast.keep_state();
        }
        fast.schedule_all(&mut built.cluster);
        let compiled = keep.then(|| FirstFit::from_scheduler(fast, &built.cluster));
        workloads.extend(built.cluster.owner_selectors.keys().cloned());
        Session {
            built,
            workloads,
            compiled,
            gates: opts.gates,
            seed: opts.seed,
            now_unix: opts.now_unix,
        }
    }

    /// A session on a cluster already scheduled by `scheduler` (its state kept with
    /// [`FastScheduler::keep_state`], else `None`), for a caller that ran the scheduler itself
    /// (`repel bench` times it). `workloads` are the workload objects the listers find.
    pub fn scheduled(
        built: Built,
        scheduler: Option<FastScheduler>,
        workloads: Vec<Workload>,
        opts: &SessionOptions,
    ) -> Session {
        let compiled = scheduler.map(|s| FirstFit::from_scheduler(s, &built.cluster));
        Session {
            built,
            workloads,
            compiled,
            gates: opts.gates,
            seed: opts.seed,
            now_unix: opts.now_unix,
        }
    }

    /// The cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.built.cluster
    }

    /// Whether the session holds the compiled state its next what-if starts from.
    pub fn has_compiled_state(&self) -> bool {
        self.compiled.is_some()
    }

    /// The options of a what-if by `decider`.
    fn config(&self, decider: Decider, independent: bool) -> DrainConfig {
        DrainConfig {
            decider,
            independent,
            now_unix: self.now_unix,
            gates: self.gates,
            seed: self.seed,
        }
    }
}

/// Judges draining `nodes` (names the session's cluster holds) as `decider` would (see
/// [`crate::drain`]): one after another, each drain's outcome carried into the next, or with
/// `independent` each against the unchanged cluster. kubectl and cluster-autoscaler work on the
/// session's cluster itself, from its compiled state, and leave it as the sequence leaves it
/// (unchanged when `independent`, the compiled state kept for the next what-if); Karpenter's
/// works on a copy and leaves the session unchanged.
pub fn drain(
    session: &mut Session,
    nodes: &[&str],
    decider: Decider,
    independent: bool,
) -> DrainReport {
    let cfg = session.config(decider, independent);
    crate::drain::in_place(
        &mut session.built.cluster,
        nodes,
        &cfg,
        &mut session.compiled,
    )
}

/// Who consolidates, and with what.
#[derive(Debug, Clone)]
pub enum Consolidator {
    /// cluster-autoscaler's scale-down: utilisation, then its removal simulation.
    ClusterAutoscaler {
        /// Its drainability options.
        options: ca::Options,
        /// `--scale-down-utilization-threshold`.
        threshold: f64,
    },
    /// Karpenter's consolidation, deletion only: emptiness, multi-node, single-node.
    Karpenter {
        /// The NodePools, with their consolidation policies.
        pools: Vec<KarpenterPool>,
    },
}

/// Which nodes of the session's cluster could be removed together, and where their pods go
/// (see [`crate::drain::consolidate`]). cluster-autoscaler's starts from the session's
/// compiled state (and uses it up); the session's cluster is left unchanged.
pub fn consolidate(session: &mut Session, by: Consolidator) -> ConsolidateReport {
    match by {
        Consolidator::ClusterAutoscaler { options, threshold } => {
            let cfg = session.config(Decider::ClusterAutoscaler(options.clone()), false);
            let compiled = session.compiled.take();
            consolidate::cluster_autoscaler_with(
                &session.built.cluster,
                &options,
                threshold,
                &cfg,
                compiled,
            )
        }
        Consolidator::Karpenter { pools } => {
            let cfg = session.config(Decider::Karpenter, false);
            consolidate::karpenter(&session.built.cluster, &pools, &cfg)
        }
    }
}

#[cfg(test)]
mod tests;
