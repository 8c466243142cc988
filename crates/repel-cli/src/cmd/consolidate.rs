//! `repel consolidate`: which nodes could be removed together, and where their pods go, as
//! cluster-autoscaler's scale-down finds them
//! ([`repel_engine::drain::consolidate`]). Never changes anything.

use clap::{Args, ValueEnum};
use repel_engine::drain::consolidate::{ConsolidateReport, KarpenterPool};
use repel_engine::whatif::{self, Consolidator, Judge};

use crate::cluster_args::{CaFlags, ClusterArgs};
use crate::output::{leave_at_exit, print_machine, render, table};
use crate::{CliError, Format};

/// Who consolidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum As {
    /// cluster-autoscaler's scale-down: utilisation, then its removal simulation.
    ClusterAutoscaler,
    /// Karpenter's consolidation, deletion only: emptiness, multi-node, single-node.
    Karpenter,
}

/// Arguments of `repel consolidate`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel consolidate -f examples/demo/cluster.yaml
  repel consolidate -f examples/demo/cluster.yaml --as karpenter -o json")]
pub struct ConsolidateArgs {
    /// Who consolidates: cluster-autoscaler (default) or karpenter.
    #[arg(long = "as", value_enum, default_value = "cluster-autoscaler")]
    pub as_: As,
    /// cluster-autoscaler: --scale-down-utilization-threshold (0-1; default 0.5).
    #[arg(long = "scale-down-utilization-threshold", default_value_t = 0.5)]
    pub threshold: f64,
    /// cluster-autoscaler: --scale-down-gpu-utilization-threshold (0-1; default 0.5): a GPU
    /// node's threshold, against its GPU utilisation alone.
    #[arg(long = "scale-down-gpu-utilization-threshold", default_value_t = 0.5)]
    pub gpu_threshold: f64,
    #[command(flatten)]
    pub ca: CaFlags,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Output format (default: tables).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
}

/// Runs `repel consolidate`: exit 0 (a what-if finds what it finds).
pub fn run(args: ConsolidateArgs) -> Result<u8, CliError> {
    for (flag, value) in [
        ("--scale-down-utilization-threshold", args.threshold),
        ("--scale-down-gpu-utilization-threshold", args.gpu_threshold),
    ] {
        if !(0.0..=1.0).contains(&value) {
            return Err(CliError::Usage(format!(
                "{flag} must be between 0 and 1, not {value}"
            )));
        }
    }
    let loaded = args.cluster.load("consolidate")?;
    let node_pools: Vec<serde_json::Value> = loaded
        .inventory
        .node_pools
        .iter()
        .map(|p| p.obj.clone())
        .collect();
    let judge = match args.as_ {
        As::ClusterAutoscaler => Judge::ClusterAutoscaler,
        As::Karpenter => Judge::Karpenter,
    };
    let mut session = args.cluster.session(
        loaded.inventory.into_cluster_input(),
        &loaded.admission,
        judge,
    );
    let by = match args.as_ {
        As::ClusterAutoscaler => {
            let mut options = args.ca.options(&session.workloads);
            options.scale_down_gpu_utilization_threshold = args.gpu_threshold;
            Consolidator::ClusterAutoscaler {
                options,
                threshold: args.threshold,
            }
        }
        As::Karpenter => {
            let mut pools = Vec::new();
            for v in node_pools.iter().filter(|v| v["kind"] == "NodePool") {
                let p = repel_core::pools::karpenter_pool(v).map_err(|e| {
                    CliError::Usage(format!(
                        "NodePool {}: {e}",
                        v["metadata"]["name"].as_str().unwrap_or_default()
                    ))
                })?;
                pools.push(KarpenterPool {
                    name: p.name,
                    policy: p.consolidation_policy,
                    consolidate_after: p.consolidate_after,
                });
            }
            Consolidator::Karpenter { pools }
        }
    };
    let report = whatif::consolidate(&mut session, by);
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => print_human(&report),
    }
    leave_at_exit((session, report));
    Ok(0)
}

fn print_human(r: &ConsolidateReport) {
    if r.removable.is_empty() {
        outln!("No node can be removed ({}).", r.as_);
    } else {
        outln!("Removable ({}), in the order removed:", r.as_);
        let mut t = table(&["NODE", "POD", "MOVES TO"]);
        for n in &r.removable {
            if n.pods.is_empty() {
                t.add_row(vec![n.node.clone(), "-".into(), "-".into()]);
            }
            for p in &n.pods {
                t.add_row(vec![n.node.clone(), p.pod.clone(), p.to.clone()]);
            }
        }
        out!("{}", render(&t));
    }
    if !r.kept.is_empty() {
        outln!("\nKept:");
        let mut t = table(&["NODE", "REASON", "MESSAGE"]);
        for k in &r.kept {
            t.add_row(vec![k.node.clone(), k.reason.clone(), k.message.clone()]);
        }
        out!("{}", render(&t));
    }
    outln!(
        "\n{} of {} node(s) removable.",
        r.removable.len(),
        r.removable.len() + r.kept.len()
    );
}
