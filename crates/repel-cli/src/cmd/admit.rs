//! `repel admit`: pods as the control plane would store them.

use clap::Args;
use k8s_openapi::api::core::v1::{Node, Pod};
use repel_core::admission::{AdmissionConfig, CreatePodError, create_pod, is_stored};
use repel_core::defaults::DefaultTolerationSecondsConfig;
use repel_core::workload::claim::{claim_pods, taken_names};
use repel_core::workload::{Workload, for_each_planned_pod, namespace_of};
use serde_json::json;

use crate::output::{ListWriter, warn_all};
use crate::{AdmissionFlags, CliError, Format, Inputs};

/// Arguments of `repel admit`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel admit -f examples/demo/cluster.yaml
  repel admit -f examples/demo/cluster.yaml -o json")]
pub struct AdmitArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Output format (default yaml).
    #[arg(short = 'o', long = "output", default_value = "yaml")]
    pub output: Format,
    #[command(flatten)]
    pub admission: AdmissionFlags,
    /// kube-apiserver's `--default-not-ready-toleration-seconds`.
    #[arg(long = "default-not-ready-toleration-seconds", default_value_t = 300)]
    pub not_ready_seconds: i64,
    /// kube-apiserver's `--default-unreachable-toleration-seconds`.
    #[arg(long = "default-unreachable-toleration-seconds", default_value_t = 300)]
    pub unreachable_seconds: i64,
    /// Seed for the generated parts of workload pod names.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// The admission configuration the flags describe.
pub fn config(args: &AdmitArgs) -> Result<AdmissionConfig, CliError> {
    let mut cfg = args.admission.config()?;
    if let Some(dts) = cfg.default_toleration_seconds.as_mut() {
        *dts = DefaultTolerationSecondsConfig {
            not_ready_seconds: args.not_ready_seconds,
            unreachable_seconds: args.unreachable_seconds,
        };
    }
    Ok(cfg)
}

/// Runs `repel admit`. Pods are admitted and printed one at a time (a workload's pods as its
/// controller makes them), so the output of a million-replica Deployment is never held whole.
pub fn run(args: AdmitArgs) -> Result<u8, CliError> {
    let inv = args.inputs.load_seeded("admit", args.seed)?;
    warn_all(&inv.warnings);
    let cfg = config(&args)?;
    let nodes: Vec<Node> = inv.nodes.iter().map(|n| n.obj.clone()).collect();
    let mut pods: Vec<Pod> = inv.pods.iter().map(|p| p.obj.clone()).collect();
    // Workloads create only the pods they do not already have (their own, and orphans they
    // adopt).
    let workloads: Vec<Workload> = inv.workloads.iter().map(|w| w.obj.clone()).collect();
    let plan = claim_pods(&workloads, &mut pods, &nodes, &args.inputs.feature_gates);
    let taken = taken_names(&pods);
    let mut list = ListWriter::stdout(args.output);
    let mut failed = false;
    let mut admit = |mut pod: Pod| -> Result<(), CliError> {
        let ns = namespace_of(&pod.metadata).to_string();
        let name = pod.metadata.name.clone().unwrap_or_default();
        // A pod the API server already stored (a dump, a snapshot) is printed as it is:
        // admission ran when it was created.
        let created = if is_stored(&pod) {
            Ok(())
        } else {
            create_pod(
                &mut pod,
                inv.namespace(&ns),
                &cfg,
                &args.inputs.feature_gates,
            )
        };
        match created {
            Ok(()) => {
                let mut v =
                    serde_json::to_value(&pod).map_err(|e| CliError::Output(e.to_string()))?;
                if let Some(obj) = v.as_object_mut() {
                    obj.insert("apiVersion".into(), json!("v1"));
                    obj.insert("kind".into(), json!("Pod"));
                }
                list.push(&v)?;
            }
            Err(e @ CreatePodError::Invalid { .. }) => {
                failed = true;
                eprintln!("{e}");
            }
            Err(e) => {
                failed = true;
                eprintln!("Error from server: error when creating pod {ns}/{name}: {e}");
            }
        }
        Ok(())
    };
    for pod in pods {
        admit(pod)?;
    }
    for (w, wp) in workloads.iter().zip(&plan.workloads) {
        let ns = w.namespace();
        let mut result = Ok(());
        for_each_planned_pod(
            w,
            wp,
            args.seed,
            |name| taken.contains(&format!("{ns}/{name}")),
            |pod| {
                if result.is_ok() {
                    result = admit(pod);
                }
            },
        );
        result?;
    }
    list.finish()?;
    Ok(if failed { 1 } else { 0 })
}
