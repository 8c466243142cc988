//! A generated cluster as ordinary manifests: what `repel generate` prints or writes, and
//! what `repel bench` writes to read back through the real pipeline.

use std::path::Path;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use repel_core::kinds::{self, ResourceKind};
use repel_engine::generate::{ClusterShape, Generated};
use serde::Serialize;
use serde_json::{Value, json};

use crate::CliError;
use crate::output::to_yaml;

/// `obj` with the `apiVersion` and `kind` of `names`.
fn with_kind<T: Serialize>(obj: &T, names: &ResourceKind) -> Result<Value, CliError> {
    let mut v = serde_json::to_value(obj).map_err(|e| CliError::Output(e.to_string()))?;
    if let Some(m) = v.as_object_mut() {
        m.insert("apiVersion".into(), json!(names.api_version));
        m.insert("kind".into(), json!(names.kind));
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
        .map(|n| with_kind(n, &kinds::NODE))
        .collect::<Result<_, _>>()?;
    let classes: Vec<Value> = g
        .priority_classes
        .iter()
        .map(|c| with_kind(c, &kinds::PRIORITY_CLASS))
        .collect::<Result<_, _>>()?;
    let mut workloads: Vec<Value> = Vec::new();
    for w in &g.workloads {
        use repel_core::workload::Workload;
        workloads.push(match w {
            Workload::Deployment(o) => with_kind(o, &kinds::DEPLOYMENT)?,
            Workload::ReplicaSet(o) => with_kind(o, &kinds::REPLICA_SET)?,
            Workload::StatefulSet(o) => with_kind(o, &kinds::STATEFUL_SET)?,
            Workload::DaemonSet(o) => with_kind(o, &kinds::DAEMON_SET)?,
            Workload::Job(o) => with_kind(o, &kinds::JOB)?,
            Workload::CronJob(o) => with_kind(o, &kinds::CRON_JOB)?,
            Workload::ReplicationController(o) => with_kind(o, &kinds::REPLICATION_CONTROLLER)?,
        });
    }
    for p in &g.pods {
        workloads.push(with_kind(p, &kinds::POD)?);
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
