//! `repel report -f …|--kubeconfig … [--scenario S.yaml] [-o FILE.html|json|yaml]`: one
//! self-contained page of the cluster's pools, taints, the pools × workloads matrix, DaemonSet
//! coverage, drain readiness, lint findings and a scenario's timeline — or its model as JSON.
//! The model and the page are [`repel_report`]'s; this reads the cluster through
//! [`ClusterArgs`] and writes what it returns.

use std::path::PathBuf;

use clap::Args;
use repel_engine::sim::run_scenario;

use crate::cluster_args::{ClusterArgs, now_unix};
use crate::output::{print_machine, warn_all};
use crate::scenario_file::load_with_flags;
use crate::{CliError, Format};

/// Arguments of `repel report`.
#[derive(Debug, Args)]
#[command(
    mut_arg("files", |a| a.required_unless_present_any(["kubeconfig", "context", "scenario"])),
    after_help = "Examples:
  repel report -f examples/demo/cluster.yaml -o report.html
  repel report -f examples/demo/cluster.yaml -o json
  repel report --scenario examples/noexecute-toleration-seconds.yaml -o timeline.html
  repel report --kubeconfig ~/.kube/config -o cluster.html"
)]
pub struct ReportArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Play this scenario (`kind: Scenario`) on the simulated clock and add its timeline; without
    /// -f or --kubeconfig, the report is of the scenario's cluster.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// `json` or `yaml` for the model, else the file the page is written to (default: the page
    /// on stdout).
    #[arg(short = 'o', long = "output", value_name = "json|yaml|FILE.html")]
    pub output: Option<String>,
}

/// Runs `repel report`.
pub fn run(args: ReportArgs) -> Result<u8, CliError> {
    let started = std::time::Instant::now();
    let inputs = &args.cluster.inputs;
    let has_cluster = !inputs.files.is_empty() || inputs.live_target().is_some();
    let scenario = match &args.scenario {
        Some(path) => {
            let v = inputs
                .validate
                .unwrap_or(repel_manifest::strict::Validate::Warn);
            Some(load_with_flags(path, &args.cluster.admission, v)?)
        }
        None => None,
    };
    let admission = args.cluster.admission.config()?;
    let (input, mut source) = if has_cluster {
        let loaded = args.cluster.load("report")?;
        let source = match inputs.live_target() {
            Some(t) => format!(
                "cluster {}",
                t.context
                    .clone()
                    .unwrap_or_else(|| "(current context)".into())
            ),
            None => inputs
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        };
        // The pool objects, read by their providers' rules (the cluster input leaves them out).
        let pools = loaded.inventory.pools()?;
        let mut input = loaded.inventory.into_cluster_input();
        input.pools = pools;
        (input, source)
    } else if let Some((_, input)) = &scenario {
        (input.clone(), String::new())
    } else {
        return Err(CliError::Usage("no objects passed to report".into()));
    };
    let mut timeline = None;
    if let (Some((sc, sinput)), Some(path)) = (&scenario, &args.scenario) {
        let nodes: Vec<String> = sinput
            .nodes
            .iter()
            .filter_map(|n| n.metadata.name.clone())
            .collect();
        let run = run_scenario(sc, sinput.clone());
        warn_all(&run.warnings);
        timeline = Some(repel_report::timeline::entries(&run, &nodes));
        if source.is_empty() {
            source = format!("scenario {}", path.display());
        } else {
            source = format!("{source}; scenario {}", path.display());
        }
    }
    let opts = repel_report::Options {
        gates: inputs.feature_gates,
        admission,
        seed: args.cluster.scheduler.seed,
        now_unix: now_unix(),
        source,
    };
    let mut report = repel_report::build(input, &opts);
    if let Some((entries, end)) = timeline {
        report.timeline = entries;
        report.timeline_end = Some(end);
    }
    report.summary.compute_seconds = started.elapsed().as_secs_f64();
    match args.output.as_deref() {
        Some("json") => print_machine(&repel_report::JsonReport::new(&report), Format::Json)?,
        Some("yaml") => print_machine(&repel_report::JsonReport::new(&report), Format::Yaml)?,
        Some(path) => {
            let page = repel_report::html::page(&report);
            std::fs::write(path, page)
                .map_err(|e| CliError::Output(format!("error: writing {path}: {e}")))?;
            eprintln!(
                "wrote {path}: {} pools, {} workloads, {} nodes",
                report.pools.len(),
                report.workloads.len(),
                report.summary.nodes
            );
        }
        None => out!("{}", repel_report::html::page(&report)),
    }
    Ok(0)
}
