//! `repel schedule`: every pending pod through kube-scheduler's default profile.

use clap::Args;

use crate::cluster_args::ClusterArgs;
use crate::output::{leave_at_exit, print_machine, render, table};
use crate::schedule_pipeline::{self, NoObserver, ScheduleReport};
use crate::{CliError, Format};

/// Arguments of `repel schedule`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel schedule -f examples/demo/cluster.yaml
  repel schedule -f examples/demo/cluster.yaml -o json
  repel schedule --kubeconfig ~/.kube/config")]
pub struct ScheduleArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
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

/// Runs `repel schedule`.
pub fn run(args: ScheduleArgs) -> Result<u8, CliError> {
    let mut failed = false;
    let printer = |r: ScheduleReport<'_>| {
        failed = !r.rejected.is_empty() || (args.fail_unschedulable && !r.unschedulable.is_empty());
        print(&r, args.output)?;
        leave_at_exit(r);
        Ok(())
    };
    let scheduled = schedule_pipeline::run(
        &args.cluster,
        "schedule",
        args.reference,
        &mut NoObserver,
        printer,
    )?;
    leave_at_exit((scheduled.built, scheduled.placements));
    Ok(if failed { 1 } else { 0 })
}

/// Prints the report: `-o json|yaml`, else tables.
fn print(r: &ScheduleReport<'_>, output: Option<Format>) -> Result<(), CliError> {
    match output {
        Some(f) => print_machine(r, f)?,
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
    Ok(())
}
