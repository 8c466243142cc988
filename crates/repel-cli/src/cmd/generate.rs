//! `repel generate`: a realistic cluster as ordinary manifests (the same seed, the same files).

use std::path::PathBuf;

use clap::Args;
use repel_engine::generate::{GenerateOptions, generate};
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

/// Runs `repel generate`.
pub fn run(args: GenerateArgs) -> Result<u8, CliError> {
    let g = generate(&GenerateOptions {
        nodes: args.nodes,
        pods: args.pods,
        seed: args.seed,
        taints_per_node: args.taints_per_node,
    });
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
        });
    }
    for p in &g.pods {
        workloads.push(with_kind(p, "v1", "Pod")?);
    }
    if args.output == std::path::Path::new("-") {
        let mut all = classes;
        all.extend(nodes);
        all.extend(workloads);
        out!("{}", documents(&all)?);
        return Ok(0);
    }
    let io =
        |path: &PathBuf, err: std::io::Error| CliError::Usage(format!("{}: {err}", path.display()));
    std::fs::create_dir_all(&args.output).map_err(|e| io(&args.output, e))?;
    for (file, values) in [
        ("priorityclasses.yaml", &classes),
        ("nodes.yaml", &nodes),
        ("workloads.yaml", &workloads),
    ] {
        let path = args.output.join(file);
        std::fs::write(&path, documents(values)?).map_err(|e| io(&path, e))?;
    }
    eprintln!(
        "wrote {} nodes, {} workloads and {} pods to {}",
        g.nodes.len(),
        g.workloads.len(),
        g.pods.len(),
        args.output.display()
    );
    Ok(0)
}
