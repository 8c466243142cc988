//! `repel schedule`'s pipeline — read, build, schedule, report and print — once, for the
//! command and for `repel bench`, which times it through a [`PhaseObserver`] (the command
//! passes [`NoObserver`]) as cargo's `--timings` is fed by the real job queue: the benchmark
//! measures the code a user runs.

use repel_engine::load::Built;
use repel_engine::scheduler::fast::{FastScheduler, FastStats};
use repel_engine::scheduler::{Outcome, Placement, Scheduler, schedule_all};
use serde::Serialize;

use crate::CliError;
use crate::cluster_args::ClusterArgs;

/// A stage of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Reading the manifests (or the live cluster) into objects.
    Parse,
    /// Defaulting, admission, workload pods and the cluster's indexes.
    Build,
    /// Scheduling every pending pod.
    Schedule,
    /// The report of the placements, printed.
    Output,
}

/// Told when each phase starts and ends.
pub trait PhaseObserver {
    /// `phase` starts.
    fn started(&mut self, phase: Phase);
    /// `phase` has ended.
    fn finished(&mut self, phase: Phase);
}

/// The observer of a run nobody times.
#[derive(Debug, Default)]
pub struct NoObserver;

impl PhaseObserver for NoObserver {
    fn started(&mut self, _: Phase) {}
    fn finished(&mut self, _: Phase) {}
}

/// What a run of the pipeline leaves.
#[derive(Debug)]
pub struct Scheduled {
    /// The cluster, scheduled.
    pub built: Built,
    /// The placements, in queue order.
    pub placements: Vec<Placement>,
    /// Which path the pods took (all zero for the reference engine).
    pub stats: FastStats,
    /// Pods the report lists as placed.
    pub placed: usize,
    /// Pods the report lists as unschedulable.
    pub unschedulable: usize,
}

/// Runs the pipeline: the cluster `args` read for `command` ([`ClusterArgs::load`]), built,
/// its pending pods scheduled by the compiled engine (or the reference one), and the report
/// handed to `print`; `observer` is told of each phase.
pub fn run(
    args: &ClusterArgs,
    command: &str,
    reference: bool,
    observer: &mut dyn PhaseObserver,
    print: impl FnOnce(ScheduleReport<'_>) -> Result<(), CliError>,
) -> Result<Scheduled, CliError> {
    observer.started(Phase::Parse);
    let loaded = args.load(command)?;
    observer.finished(Phase::Parse);
    observer.started(Phase::Build);
    let mut built = args.build(loaded.inventory.into_cluster_input(), &loaded.admission);
    observer.finished(Phase::Build);
    observer.started(Phase::Schedule);
    let gates = args.inputs.feature_gates;
    let (pct, seed) = (
        args.scheduler.percentage_of_nodes_to_score,
        args.scheduler.seed,
    );
    let (placements, stats) = if reference {
        let placements = schedule_all(&mut Scheduler::new(gates, pct, seed), &mut built.cluster);
        (placements, FastStats::default())
    } else {
        let mut s = FastScheduler::new(gates, pct, seed);
        let placements = s.schedule_all(&mut built.cluster);
        (placements, s.stats)
    };
    observer.finished(Phase::Schedule);
    observer.started(Phase::Output);
    let r = report(&built, &placements);
    let (placed, unschedulable) = (r.placements.len(), r.unschedulable.len());
    print(r)?;
    observer.finished(Phase::Output);
    Ok(Scheduled {
        built,
        placements,
        stats,
        placed,
        unschedulable,
    })
}

/// One placement of the JSON contract.
#[derive(Debug, Serialize)]
pub struct PlacementRow<'a> {
    /// `ns/name`.
    pub pod: PodName<'a>,
    /// The node.
    pub node: &'a str,
}

/// A pod's `namespace/name`, printed without a string of its own: a report lists up to
/// hundreds of thousands of placements, each read from the cluster.
#[derive(Debug, Clone, Copy)]
pub struct PodName<'a> {
    /// The namespace.
    pub namespace: &'a str,
    /// The name.
    pub name: &'a str,
}

impl std::fmt::Display for PodName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

impl Serialize for PodName<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One unschedulable pod of the JSON contract.
#[derive(Debug, Serialize)]
pub struct UnschedulableRow {
    /// `ns/name`.
    pub pod: String,
    /// Upstream's FitError text.
    pub message: String,
}

/// A pod removed by preemption.
#[derive(Debug, Serialize)]
pub struct PreemptedRow {
    /// `ns/name` of the victim.
    pub pod: String,
    /// The node it ran on.
    pub node: String,
    /// `ns/name` of the pod that preempted it.
    pub by: String,
}

/// `repel schedule -o json`.
#[derive(Debug, Serialize)]
pub struct ScheduleReport<'a> {
    /// Pods bound, in queue order.
    pub placements: Vec<PlacementRow<'a>>,
    /// Pods no node fits, with upstream's message.
    pub unschedulable: Vec<UnschedulableRow>,
    /// Pods preemption removed.
    pub preempted: Vec<PreemptedRow>,
    /// Pods admission refused.
    pub rejected: Vec<UnschedulableRow>,
}

/// Builds the report from a batch's placements.
pub fn report<'a>(built: &'a Built, placements: &[Placement]) -> ScheduleReport<'a> {
    let c = &built.cluster;
    let key = |id: usize| c.pods.get(id).map(|p| p.key()).unwrap_or_default();
    let name = |id: usize| match c.pods.get(id) {
        Some(p) => PodName {
            namespace: &p.namespace,
            name: &p.name,
        },
        None => PodName {
            namespace: "",
            name: "",
        },
    };
    let node = |id: usize| c.nodes.get(id).map(|n| n.name.clone()).unwrap_or_default();
    let mut r = ScheduleReport {
        placements: Vec::new(),
        unschedulable: Vec::new(),
        preempted: Vec::new(),
        rejected: Vec::new(),
    };
    // A pod tried twice (once more after preemption) is unschedulable only when no try placed
    // it: the placed pods, looked up by id, so the report stays linear in the placements.
    let mut placed = vec![false; c.pods.len()];
    for p in placements {
        if matches!(p.outcome, Outcome::Scheduled { .. })
            && let Some(slot) = placed.get_mut(p.pod)
        {
            *slot = true;
        }
    }
    for p in placements {
        match &p.outcome {
            Outcome::Scheduled { node: n, .. } => r.placements.push(PlacementRow {
                pod: name(p.pod),
                node: c.nodes.get(*n).map_or("", |n| n.name.as_str()),
            }),
            Outcome::Unschedulable { message, nominated } => {
                if let Some((n, victims)) = nominated {
                    r.preempted.extend(victims.iter().map(|v| PreemptedRow {
                        pod: key(*v),
                        node: node(*n),
                        by: key(p.pod),
                    }));
                }
                if !placed.get(p.pod).copied().unwrap_or(false) {
                    r.unschedulable.push(UnschedulableRow {
                        pod: key(p.pod),
                        message: message.clone(),
                    });
                }
            }
        }
    }
    r.rejected = built
        .rejected
        .iter()
        .map(|(pod, message)| UnschedulableRow {
            pod: pod.clone(),
            message: message.clone(),
        })
        .collect();
    r
}
