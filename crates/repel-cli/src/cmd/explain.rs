//! `repel explain POD`: the pod against every node, by the taint rules.

use std::collections::BTreeMap;

use clap::Args;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodSpec, Toleration};
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, admit_pod};
use repel_core::advice::{Advice, advise};
use repel_core::affinity::RequiredNodeAffinity;
use repel_core::explain::{Explanation, NodeVerdict, explain};
use repel_core::taint::{NoExecuteOutcome, taint_to_string};
use repel_core::toleration::describe_toleration;
use repel_core::validation::{ValidationOptions, validate_pod_spec_tolerations};
use repel_core::workload::{Workload, namespace_of, representative_pod};
use serde::Serialize;

use crate::input::Inventory;
use crate::output::{print_machine, render, table, tolerations_yaml, warn_all};
use crate::{CliError, Format, Inputs};

/// Arguments of `repel explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The pod: `ns/name`, `name` (in the namespace of -n), or `kind/name` of a workload
    /// (`deployment/web`, `ds/agent`, `sts/db`, `job/x`, `cronjob/x`, `rs/x`, `pod/x`).
    pub pod: String,
    #[command(flatten)]
    pub inputs: Inputs,
    /// Namespace for a pod or workload named without one.
    #[arg(short = 'n', long = "namespace", default_value = "default")]
    pub namespace: String,
    /// Output format (default: a table).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    /// Seed for the generated parts of workload pod names.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// The kinds `kind/name` accepts, with kubectl's plural and short names.
fn workload_kind(s: &str) -> Option<&'static str> {
    Some(match s.to_ascii_lowercase().as_str() {
        "pod" | "pods" | "po" => "Pod",
        "deployment" | "deployments" | "deploy" => "Deployment",
        "replicaset" | "replicasets" | "rs" => "ReplicaSet",
        "statefulset" | "statefulsets" | "sts" => "StatefulSet",
        "daemonset" | "daemonsets" | "ds" => "DaemonSet",
        "job" | "jobs" => "Job",
        "cronjob" | "cronjobs" | "cj" => "CronJob",
        _ => return None,
    })
}

/// A pod chosen on the command line, before admission.
pub struct Target<'a> {
    /// The pod (a workload's representative pod).
    pub pod: Pod,
    /// Its namespace object, when one was given.
    pub namespace: Option<&'a Namespace>,
    /// What was asked for, e.g. `Deployment default/web`.
    pub origin: Option<String>,
}

/// Finds the pod `arg` names in the inventory, as kubectl resolves `get` arguments.
pub fn resolve<'a>(
    inv: &'a Inventory,
    arg: &str,
    ns: &str,
    seed: u64,
) -> Result<Target<'a>, CliError> {
    let (kind, namespace, name) = match arg.split_once('/') {
        Some((k, n)) if workload_kind(k).is_some() => (workload_kind(k).unwrap_or("Pod"), ns, n),
        Some((namespace, n)) => ("Pod", namespace, n),
        None => ("Pod", ns, arg),
    };
    let not_found = || {
        let resource = match kind {
            "Pod" => "pods".to_string(),
            k => format!("{}s.apps", k.to_ascii_lowercase()),
        };
        let resource = resource
            .replace("jobs.apps", "jobs.batch")
            .replace("cronjobs.apps", "cronjobs.batch");
        CliError::Usage(format!(
            "Error from server (NotFound): {resource} {name:?} not found in the given files (namespace {namespace:?})"
        ))
    };
    if kind == "Pod" {
        let pod = inv
            .pods
            .iter()
            .map(|p| &p.obj)
            .find(|p| {
                p.metadata.name.as_deref() == Some(name) && namespace_of(&p.metadata) == namespace
            })
            .ok_or_else(not_found)?;
        return Ok(Target {
            pod: pod.clone(),
            namespace: inv.namespace(namespace),
            origin: None,
        });
    }
    let w: &Workload = inv
        .workloads
        .iter()
        .map(|w| &w.obj)
        .find(|w| w.kind() == kind && w.name() == name && w.namespace() == namespace)
        .ok_or_else(not_found)?;
    let pod = representative_pod(w, seed)
        .ok_or_else(|| CliError::Usage(format!("{kind} {namespace}/{name} has no pod template")))?;
    Ok(Target {
        pod,
        namespace: inv.namespace(namespace),
        origin: Some(format!("{kind} {namespace}/{name}")),
    })
}

/// `noExecute` of the JSON contract.
#[derive(Debug, Serialize)]
pub struct NoExecuteRow {
    /// `never`, `immediately` or `after`.
    pub evict: &'static str,
    /// Seconds, with `after`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<i64>,
}

impl From<NoExecuteOutcome> for NoExecuteRow {
    fn from(o: NoExecuteOutcome) -> Self {
        match o {
            NoExecuteOutcome::Never => NoExecuteRow {
                evict: "never",
                seconds: None,
            },
            NoExecuteOutcome::Immediately => NoExecuteRow {
                evict: "immediately",
                seconds: None,
            },
            NoExecuteOutcome::After(s) => NoExecuteRow {
                evict: "after",
                seconds: Some(s),
            },
        }
    }
}

/// One taint row of the JSON contract.
#[derive(Debug, Serialize)]
pub struct TaintRow {
    /// Key.
    pub key: String,
    /// Value (`""` when none).
    pub value: String,
    /// Effect.
    pub effect: String,
    /// Whether a toleration tolerates it.
    pub tolerated: bool,
    /// Index into the pod's tolerations of the first one that does.
    pub toleration: Option<usize>,
}

/// One node row of the JSON contract.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRow {
    /// Node name.
    pub name: String,
    /// Whether every filter passed.
    pub feasible: bool,
    /// Upstream's reason strings for an infeasible node.
    pub reasons: Vec<String>,
    /// Whether the node is cordoned.
    pub cordoned: bool,
    /// The node's taints.
    pub taints: Vec<TaintRow>,
    /// Normalised per-plugin scores (feasible nodes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<BTreeMap<&'static str, i64>>,
    /// Weighted total (feasible nodes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    /// The NoExecute outcome.
    pub no_execute: NoExecuteRow,
    /// Tolerations that would let the pod in (beyond upstream).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggested_tolerations: Vec<Toleration>,
}

/// `repel explain -o json`.
#[derive(Debug, Serialize)]
pub struct ExplainReport {
    /// `ns/name`.
    pub pod: String,
    /// The FitError text, `""` when the pod fits somewhere.
    pub message: String,
    /// The pod's tolerations after admission (what `toleration` indexes).
    pub tolerations: Vec<Toleration>,
    /// One row per node.
    pub nodes: Vec<NodeRow>,
    /// The classic mistakes found (beyond upstream), one sentence each.
    pub advice: Vec<String>,
}

fn node_row(v: &NodeVerdict) -> NodeRow {
    NodeRow {
        name: v.name.clone(),
        feasible: v.feasible(),
        reasons: v.rejection.iter().map(|r| r.reason.to_string()).collect(),
        cordoned: v.cordoned,
        taints: v
            .taints
            .iter()
            .map(|t| TaintRow {
                key: t.taint.key.clone(),
                value: t.taint.value.clone().unwrap_or_default(),
                effect: t.taint.effect.clone(),
                tolerated: t.tolerated,
                toleration: t.toleration,
            })
            .collect(),
        scores: v
            .taint_score
            .map(|s| BTreeMap::from([(repel_core::explain::TAINT_TOLERATION, s)])),
        score: v.score(),
        no_execute: v.no_execute.into(),
        suggested_tolerations: v.suggestions.clone(),
    }
}

/// The JSON report of an explanation.
pub fn report(
    pod_id: &str,
    tolerations: &[Toleration],
    e: &Explanation,
    advice: &[Advice],
) -> ExplainReport {
    ExplainReport {
        pod: pod_id.to_string(),
        message: e.message.clone(),
        tolerations: tolerations.to_vec(),
        nodes: e.nodes.iter().map(node_row).collect(),
        advice: advice.iter().map(ToString::to_string).collect(),
    }
}

/// The human words for a NoExecute outcome.
pub fn outcome_words(o: NoExecuteOutcome) -> String {
    match o {
        NoExecuteOutcome::Never => "stays".to_string(),
        NoExecuteOutcome::Immediately => "evicted at once".to_string(),
        NoExecuteOutcome::After(s) => format!("evicted after {s}s"),
    }
}

/// The human table: one row per node, its taints one per line.
pub fn human(
    spec: &PodSpec,
    pod_id: &str,
    original: &[Toleration],
    tolerations: &[Toleration],
    e: &Explanation,
    advice: &[Advice],
) -> Result<String, CliError> {
    let mut out = format!("Pod {pod_id}\n");
    if tolerations.is_empty() {
        out.push_str("Tolerations: none\n");
    } else {
        out.push_str("Tolerations:\n");
        for (i, t) in tolerations.iter().enumerate() {
            let added = if original.contains(t) {
                ""
            } else {
                "   (added by admission)"
            };
            out.push_str(&format!("  #{i}  {}{added}\n", describe_toleration(t)));
        }
    }
    out.push('\n');
    let mut t = table(&[
        "NODE",
        "FITS",
        "SCORE",
        "TAINTS",
        "IF RUNNING THERE",
        "WHY NOT",
    ]);
    for v in &e.nodes {
        let mut taints: Vec<String> = v
            .taints
            .iter()
            .map(|t| match t.toleration {
                Some(i) => format!("{} tolerated by #{i}", taint_to_string(&t.taint)),
                None => format!("{} NOT tolerated", taint_to_string(&t.taint)),
            })
            .collect();
        if v.cordoned {
            taints.push("(cordoned)".to_string());
        }
        if taints.is_empty() {
            taints.push("<none>".to_string());
        }
        t.add_row(vec![
            v.name.clone(),
            if v.feasible() { "yes" } else { "no" }.to_string(),
            v.score().map_or("-".to_string(), |s| s.to_string()),
            taints.join("\n"),
            outcome_words(v.no_execute),
            v.rejection
                .as_ref()
                .map_or(String::new(), |r| r.reason.to_string()),
        ]);
    }
    out.push_str(&render(&t));
    out.push('\n');
    if e.message.is_empty() {
        let feasible: Vec<&NodeVerdict> = e.nodes.iter().filter(|v| v.feasible()).collect();
        let best = feasible.iter().filter_map(|v| v.score()).max().unwrap_or(0);
        let top: Vec<&str> = feasible
            .iter()
            .filter(|v| v.score() == Some(best))
            .map(|v| v.name.as_str())
            .collect();
        out.push_str(&format!(
            "May go to {} of {} node(s); by taints the scheduler prefers: {}.\n",
            feasible.len(),
            e.nodes.len(),
            top.join(", ")
        ));
    } else {
        out.push_str(&e.message);
        out.push('\n');
    }
    for a in advice {
        out.push_str(&format!("\nNote: {a}.\n"));
    }
    // Every tainted node has its toleration in `-o json`; the table shows them where they matter:
    // when the pod fits nowhere, or when its own affinity picks the node.
    let fits_nowhere = !e.message.is_empty();
    let with_affinity = !RequiredNodeAffinity::from_pod_spec(spec).is_empty();
    let shown: Vec<&NodeVerdict> = e
        .nodes
        .iter()
        .filter(|v| !v.suggestions.is_empty() && (fits_nowhere || with_affinity))
        .collect();
    let hidden: Vec<&str> = e
        .nodes
        .iter()
        .filter(|v| !v.suggestions.is_empty() && !shown.iter().any(|s| s.name == v.name))
        .map(|v| v.name.as_str())
        .collect();
    if !hidden.is_empty() {
        out.push_str(&format!(
            "\nThe tolerations that would open {} are in -o json (suggestedTolerations).\n",
            hidden.join(", ")
        ));
    }
    for v in shown {
        out.push_str(&format!(
            "\nTo let the pod onto {}, add to its tolerations:\n",
            v.name
        ));
        let yaml = tolerations_yaml(&v.suggestions)?;
        for line in yaml.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// Admits the target pod and explains it; with `warn`, prints invalid tolerations as warnings first.
pub fn evaluate(
    target: &Target,
    nodes: &[Node],
    gates: &FeatureGates,
    warn: bool,
) -> Result<(String, Vec<Toleration>, Vec<Toleration>, Explanation), CliError> {
    let mut pod = target.pod.clone();
    let original = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.clone())
        .unwrap_or_default();
    let pod_id = format!(
        "{}/{}",
        namespace_of(&pod.metadata),
        pod.metadata.name.as_deref().unwrap_or_default()
    );
    if let Some(spec) = pod.spec.as_ref().filter(|_| warn) {
        let opts = ValidationOptions::from_gates(gates);
        for e in validate_pod_spec_tolerations(spec, "spec", &opts) {
            eprintln!("warning: Pod {pod_id}: {e} (evaluated anyway, as upstream's matcher would)");
        }
    }
    admit_pod(&mut pod, target.namespace, &AdmissionConfig::default())
        .map_err(|e| CliError::Usage(format!("Pod {pod_id}: {e}")))?;
    let spec = pod.spec.clone().unwrap_or_default();
    let tolerations = spec.tolerations.clone().unwrap_or_default();
    let e = explain(&spec, nodes, gates);
    Ok((pod_id, original, tolerations, e))
}

/// Runs `repel explain`.
pub fn run(args: ExplainArgs) -> Result<u8, CliError> {
    let inv = Inventory::load(&args.inputs.files)?;
    warn_all(&inv.warnings);
    let target = resolve(&inv, &args.pod, &args.namespace, args.seed)?;
    if let Some(origin) = &target.origin {
        eprintln!("explaining a pod of {origin}");
    }
    let nodes: Vec<Node> = inv.nodes.iter().map(|n| n.obj.clone()).collect();
    let (pod_id, original, tolerations, e) =
        evaluate(&target, &nodes, &args.inputs.feature_gates, true)?;
    let mut spec = target.pod.spec.clone().unwrap_or_default();
    spec.tolerations = Some(tolerations.clone());
    let advice = advise(&spec, &nodes, &e);
    match args.output {
        Some(f) => print_machine(&report(&pod_id, &tolerations, &e, &advice), f)?,
        None => print!(
            "{}",
            human(&spec, &pod_id, &original, &tolerations, &e, &advice)?
        ),
    }
    Ok(0)
}
