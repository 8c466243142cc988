//! `repel generate`: a realistic cluster as ordinary manifests (the same seed, the same files).

use std::path::{Path, PathBuf};

use clap::Args;
use repel_engine::generate::{ClusterShape, GenerateOptions};

use crate::CliError;
use crate::generated::{manifests, shape_parser, write_manifests};

/// Arguments of `repel generate`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel generate --nodes 50 --pods 1000 --seed 7
  repel generate --nodes 5000 --pods 150000 --seed 7 > cluster.yaml")]
pub struct GenerateArgs {
    /// Nodes.
    #[arg(long, default_value_t = 100)]
    pub nodes: usize,
    /// Pods (workload replicas and DaemonSet pods included).
    #[arg(long, default_value_t = 3000)]
    pub pods: usize,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Extra taints per node, tolerated by most pods.
    #[arg(long = "taints-per-node", default_value_t = 0)]
    pub taints_per_node: usize,
    /// The cluster's shape: `default` (many small workloads over ten pools) or
    /// `large-workloads` (tens of Deployments of 100-3,000 replicas, node agents, GPU, spot
    /// and system pools).
    #[arg(long, default_value = "default", value_parser = shape_parser())]
    pub shape: ClusterShape,
    /// A directory to write `nodes.yaml`, `priorityclasses.yaml` and `workloads.yaml` into, or
    /// `-` for one multi-document YAML stream on stdout.
    #[arg(short = 'o', long = "output", default_value = "-")]
    pub output: PathBuf,
}

/// Runs `repel generate`.
pub fn run(args: GenerateArgs) -> Result<u8, CliError> {
    let g = args.shape.generate(&GenerateOptions {
        nodes: args.nodes,
        pods: args.pods,
        seed: args.seed,
        taints_per_node: args.taints_per_node,
    });
    if args.output == Path::new("-") {
        let all: String = manifests(&g)?.into_iter().map(|(_, text)| text).collect();
        out!("{all}");
        return Ok(0);
    }
    write_manifests(&g, &args.output)?;
    eprintln!(
        "wrote {} nodes, {} workloads and {} pods to {}",
        g.nodes.len(),
        g.workloads.len(),
        g.pods.len(),
        args.output.display()
    );
    Ok(0)
}
