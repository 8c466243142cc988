//! `repel generate`: a realistic cluster as ordinary manifests (the same seed, the same files).

use std::path::{Path, PathBuf};

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use repel_engine::generate::{ClusterShape, GenerateOptions, Generated};
use serde::Serialize;
use serde_json::{Value, json};

use crate::CliError;
use crate::output::to_yaml;

/// Arguments of `repel generate`.
#[derive(Debug, Args)]
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

fn with_kind<T: Serialize>(obj: &T, api_version: &str, kind: &str) -> Result<Value, CliError> {
    let mut v = serde_json::to_value(obj).map_err(|e| CliError::Output(e.to_string()))?;
    if let Some(m) = v.as_object_mut() {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(kind));
    }
    Ok(v)
}

fn documents(values: &[Value]) -> Result<String, CliError> {
    let mut out = String::new();
    for v in values {
        out.push_str("---\n");
        out.push_str(&to_yaml(v)?);
    }
    Ok(out)
}

/// `--shape`: one of [`ClusterShape::ALL`] by name.
pub fn shape_parser() -> impl TypedValueParser<Value = ClusterShape> {
    PossibleValuesParser::new(ClusterShape::ALL.map(ClusterShape::name))
        .try_map(|s| s.parse::<ClusterShape>())
}

/// The files `repel generate -o DIR` writes, with their text: `priorityclasses.yaml`,
/// `nodes.yaml` and `workloads.yaml` (workloads, then bare pods). Their concatenation is what
/// `-o -` prints.
pub fn manifests(g: &Generated) -> Result<Vec<(&'static str, String)>, CliError> {
    let nodes: Vec<Value> = g
        .nodes
        .iter()
        .map(|n| with_kind(n, "v1", "Node"))
        .collect::<Result<_, _>>()?;
    let classes: Vec<Value> = g
        .priority_classes
        .iter()
        .map(|c| with_kind(c, "scheduling.k8s.io/v1", "PriorityClass"))
        .collect::<Result<_, _>>()?;
    let mut workloads: Vec<Value> = Vec::new();
    for w in &g.workloads {
        use repel_core::workload::Workload;
        workloads.push(match w {
            Workload::Deployment(o) => with_kind(o, "apps/v1", "Deployment")?,
            Workload::ReplicaSet(o) => with_kind(o, "apps/v1", "ReplicaSet")?,
            Workload::StatefulSet(o) => with_kind(o, "apps/v1", "StatefulSet")?,
            Workload::DaemonSet(o) => with_kind(o, "apps/v1", "DaemonSet")?,
            Workload::Job(o) => with_kind(o, "batch/v1", "Job")?,
            Workload::CronJob(o) => with_kind(o, "batch/v1", "CronJob")?,
            Workload::ReplicationController(o) => with_kind(o, "v1", "ReplicationController")?,
        });
    }
    for p in &g.pods {
        workloads.push(with_kind(p, "v1", "Pod")?);
    }
    Ok(vec![
        ("priorityclasses.yaml", documents(&classes)?),
        ("nodes.yaml", documents(&nodes)?),
        ("workloads.yaml", documents(&workloads)?),
    ])
}

/// Writes [`manifests`] into `dir`, creating it.
pub fn write_manifests(g: &Generated, dir: &Path) -> Result<(), CliError> {
    let io =
        |path: &Path, err: std::io::Error| CliError::Usage(format!("{}: {err}", path.display()));
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for (file, text) in manifests(g)? {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    Ok(())
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
