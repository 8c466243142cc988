//! `repel schedule`: every pending pod through kube-scheduler's default profile.

use clap::Args;
use repel_engine::load::{Built, build_cluster};
use repel_engine::scheduler::fast::FastScheduler;
use repel_engine::scheduler::{Outcome, Placement, Scheduler, schedule_all};
use serde::Serialize;

use crate::output::{leave_at_exit, print_machine, render, table, warn_all};
use crate::{AdmissionFlags, CliError, Format, Inputs, SchedulerFlags};

/// Arguments of `repel schedule`.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub scheduler: SchedulerFlags,
    #[command(flatten)]
    pub admission: AdmissionFlags,
    /// Output format (default: tables).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    /// Exit 1 when some pod cannot be scheduled.
    #[arg(long = "fail-unschedulable")]
    pub fail_unschedulable: bool,
    /// Use the reference engine (every plugin on every node, as upstream's framework runs
    /// them) instead of the compiled one. The placements are the same; for comparison.
    #[arg(long)]
    pub reference: bool,
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

/// Runs `repel schedule`.
pub fn run(args: ScheduleArgs) -> Result<u8, CliError> {
    let admission = args.admission.config()?;
    let inv = args.inputs.load_seeded("schedule", args.scheduler.seed)?;
    warn_all(&inv.warnings);
    let gates = args.inputs.feature_gates;
    let mut built = build_cluster(
        inv.into_cluster_input(),
        &gates,
        &admission,
        args.scheduler.seed,
    );
    warn_all(&built.warnings);
    let (pct, seed) = (
        args.scheduler.percentage_of_nodes_to_score,
        args.scheduler.seed,
    );
    let placements = if args.reference {
        schedule_all(&mut Scheduler::new(gates, pct, seed), &mut built.cluster)
    } else {
        FastScheduler::new(gates, pct, seed).schedule_all(&mut built.cluster)
    };
    let r = report(&built, &placements);
    match args.output {
        Some(f) => print_machine(&r, f)?,
        None => {
            if r.placements.is_empty() {
                outln!("No pod was placed.");
            } else {
                let mut t = table(&["POD", "NODE"]);
                for p in &r.placements {
                    t.add_row(vec![p.pod.to_string(), p.node.to_string()]);
                }
                out!("{}", render(&t));
            }
            if !r.preempted.is_empty() {
                outln!("\nPreempted (deleted to make room):");
                let mut t = table(&["POD", "NODE", "FOR"]);
                for p in &r.preempted {
                    t.add_row(vec![p.pod.clone(), p.node.clone(), p.by.clone()]);
                }
                out!("{}", render(&t));
            }
            if !r.unschedulable.is_empty() {
                outln!("\nUnschedulable:");
                for u in &r.unschedulable {
                    outln!("{}: {}", u.pod, u.message);
                }
            }
            if !r.rejected.is_empty() {
                outln!("\nRefused by admission:");
                for u in &r.rejected {
                    outln!("{}: {}", u.pod, u.message);
                }
            }
            outln!(
                "\n{} placed, {} unschedulable{}.",
                r.placements.len(),
                r.unschedulable.len(),
                if r.preempted.is_empty() {
                    String::new()
                } else {
                    format!(", {} preempted", r.preempted.len())
                }
            );
        }
    }
    let failed = !r.rejected.is_empty() || (args.fail_unschedulable && !r.unschedulable.is_empty());
    leave_at_exit(r);
    leave_at_exit((built, placements));
    Ok(if failed { 1 } else { 0 })
}
