//! `repel explain POD`: the pod against every node, by the taint rules.
//!
//! # Layout
//! - this module: the arguments and the run (read, resolve, evaluate, print).
//! - `target`: `TYPE/name` as kubectl reads it, and the pod a target names.
//! - `model`: the JSON model (rows per node, near misses, the cluster's own verdict).
//! - `human`: the human output.
//! - `daemon`: a DaemonSet's pods, one per node it would run on.

use std::collections::{BTreeMap, BTreeSet};

use clap::Args;
use k8s_openapi::api::core::v1::{Node, Pod, Toleration};
use repel_core::FeatureGates;
use repel_core::advice::{Advice, advise};
use repel_core::affinity::RequiredNodeAffinity;
use repel_core::explain::{Explanation, NodeVerdict, daemon_verdicts};
use repel_core::taint::{NoExecuteOutcome, taint_to_string};
use repel_core::toleration::describe_toleration;
use repel_core::workload::claim::{claim_pods, taken_names};
use repel_core::workload::{
    Workload, for_each_planned_part, namespace_of, pin_to_node, representative_pod,
};
use serde::Serialize;

mod daemon;
mod human;
mod model;
mod target;

use crate::cluster_args::{ClusterArgs, Loaded};
use crate::output::{leave_at_exit, print_machine, render, table, tolerations_yaml};
use crate::pod_target::{Target, evaluate};
use crate::{AdmissionFlags, CliError, Format, Inputs, SchedulerFlags};
use repel_core::explain::{NODE_UNSCHEDULABLE, TAINT_TOLERATION};
use repel_core::near_miss::near_misses;
use repel_engine::PodInfo;
use repel_engine::cluster::Cluster;
use repel_engine::scheduler::{Evaluation, Scheduler, default_weight, schedule_pods};
use repel_manifest::Inventory;

/// Arguments of `repel explain`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel explain -f examples/demo/cluster.yaml pod/gpu-trainer
  repel explain -f examples/demo/cluster.yaml pod/web -o json
  repel explain --kubeconfig ~/.kube/config -n team-a pod/api-7d9f")]
pub struct ExplainArgs {
    /// The pod: `ns/name`, `name` (in the namespace of -n), or `TYPE/name` of a workload as
    /// kubectl takes it (`deployment/web`, `deployment.apps/web`, `deployments.v1.apps/web`,
    /// `ds/agent`, `sts/db`, `job.batch/x`, `cronjob/x`, `rs/x`, `pod/x`).
    pub pod: String,
    #[command(flatten)]
    pub inputs: Inputs,
    /// Namespace for a pod or workload named without one.
    #[arg(short = 'n', long = "namespace", default_value = "default")]
    pub namespace: String,
    /// Output format (default: a table).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    #[command(flatten)]
    pub scheduler: SchedulerFlags,
    #[command(flatten)]
    pub admission: AdmissionFlags,
}

pub use human::human;
pub use model::*;
pub use target::resolve;

/// Runs `repel explain`.
pub fn run(args: ExplainArgs) -> Result<u8, CliError> {
    // The cluster's flags, read as every command that reads a cluster reads them (not
    // flattened into one group here: `--help` lists -n and -o between them).
    let cluster = ClusterArgs {
        inputs: args.inputs.clone(),
        scheduler: args.scheduler.clone(),
        admission: args.admission.clone(),
    };
    let Loaded {
        inventory: inv,
        admission,
    } = cluster.load("explain")?;
    let gates = args.inputs.feature_gates;
    let live = args.inputs.live_target().is_some();
    let looked_in = match (live, args.inputs.files.is_empty()) {
        (false, _) => "the given files",
        (true, true) => "the cluster",
        (true, false) => "the cluster or the given files",
    };
    let target = resolve(
        &inv,
        &args.pod,
        &args.namespace,
        args.scheduler.seed,
        &gates,
        looked_in,
    )?;
    if let Some(origin) = &target.origin {
        eprintln!("explaining a pod of {origin}");
    }
    let nodes: Vec<Node> = inv.nodes.iter().map(|n| n.obj.clone()).collect();
    let pools = inv.pools()?;
    let (pod_id, sources, tolerations, core) = evaluate(&target, &nodes, &gates, true, &admission)?;
    let mut spec = target.pod.spec.clone().unwrap_or_default();
    spec.tolerations = Some(tolerations.clone());
    let advice = advise(&spec, &nodes, &core);
    // The scheduler's view: the cluster as stored, with this pod (not yet bound) evaluated
    // against every node.
    let built = cluster.build(inv.cluster_input(), &admission);
    let mut cluster = built.cluster;
    let mut sched = Scheduler::new(
        gates,
        args.scheduler.percentage_of_nodes_to_score,
        args.scheduler.seed,
    );
    if target.daemonset {
        // The controller judges the template with the DaemonSet tolerations, before admission.
        let template = target.pod.spec.clone().unwrap_or_default();
        let verdicts = daemon_verdicts(&template, &nodes, &gates);
        let pods = daemon::evaluate_daemon_pods(
            &mut sched,
            &mut cluster,
            &target,
            &verdicts,
            &gates,
            &admission,
        );
        let near_misses = near_miss_rows(&tolerations, &core, &gates);
        let r = ExplainReport {
            pod: pod_id,
            message: String::new(),
            added_by: sources.clone(),
            tolerations,
            nodes: daemon::rows(&core, &verdicts, &pods, &cluster),
            // A DaemonSet's pods do not land on one of the nodes they tolerate: one is pinned
            // to each, so "a toleration does not attract" is no advice for them.
            advice: advice
                .iter()
                .filter(|a| !matches!(a, Advice::ToleratesWithoutAffinity { .. }))
                .map(ToString::to_string)
                .collect(),
            near_misses,
            preemption: None,
            node_pools: Vec::new(),
            cluster_scheduler: None,
        };
        match args.output {
            Some(f) => print_machine(&r, f)?,
            None => out!("{}", human(&r, &sources, None, true)?),
        }
        return Ok(0);
    }
    // The pods the queue puts before this one are placed first, as `repel schedule` would place
    // them; the pod itself is judged against that cluster.
    let existing = cluster
        .pods
        .iter()
        .position(|p| !p.deleted && p.key() == pod_id);
    let mut queue = cluster.pending();
    Scheduler::queue_order(&cluster, &mut queue);
    let before: Vec<usize> = match existing {
        Some(ex) => queue.iter().copied().take_while(|id| *id != ex).collect(),
        None => queue.clone(),
    };
    schedule_pods(&mut sched, &mut cluster, &before);
    let info = match existing {
        Some(ex) => {
            cluster.unbind(ex);
            let mut info = cluster.pods[ex].clone();
            if info.shared_spec().is_some() {
                info.set_spec_node_name(target.pod.spec.as_ref().and_then(|t| t.node_name.clone()));
                info.spec_mut().tolerations = Some(tolerations.clone());
            }
            info
        }
        None => {
            let mut pod = target.pod.clone();
            let _ =
                repel_core::admission::create_pod(&mut pod, target.namespace, &admission, &gates);
            if let Some(s) = pod.spec.as_mut() {
                s.tolerations = Some(tolerations.clone());
            }
            PodInfo::new(pod, cluster.pods.len())
        }
    };
    let eval = sched.evaluate(&cluster, &info);
    let preemption = eval
        .preemption
        .as_ref()
        .map(|(node, victims)| PreemptionRow {
            node: cluster.nodes[*node].name.clone(),
            victims: victims.iter().map(|v| cluster.pods[*v].key()).collect(),
        });
    let mut r = report(
        &pod_id,
        &tolerations,
        &core,
        &eval,
        &cluster,
        &advice,
        preemption,
    );
    r.added_by = sources.clone();
    r.near_misses = near_miss_rows(&tolerations, &core, &gates);
    if existing.is_some() {
        r.cluster_scheduler = cluster_scheduler(&target.pod, &r.message);
    }
    if !r.message.is_empty() {
        r.node_pools = repel_engine::controllers::karpenter::judge_pools(
            &pools,
            &inv.daemon_set_specs(),
            &info,
        );
    }
    match args.output {
        Some(f) => print_machine(&r, f)?,
        None => {
            let affinity = RequiredNodeAffinity::from_pod_spec(&spec);
            let picked: Option<BTreeSet<String>> = (!affinity.is_empty()).then(|| {
                nodes
                    .iter()
                    .filter(|n| affinity.matches(n).unwrap_or(false))
                    .filter_map(|n| n.metadata.name.clone())
                    .collect()
            });
            out!("{}", human(&r, &sources, picked.as_ref(), false)?)
        }
    }
    leave_at_exit((inv, cluster, sched));
    Ok(0)
}
