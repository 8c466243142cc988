//! `repel drain NODE... | --all | -l SELECTOR`: a drain what-if. Never changes
//! anything: reads the manifests, runs the cluster's pending pods through the scheduler (the
//! cluster as it would run), then judges each node as `kubectl drain` or cluster-autoscaler
//! would ([`repel_engine::drain`]).

use clap::{Args, ValueEnum};
use repel_core::labels::LabelSelector;
use repel_engine::drain::{Decider, DrainReport, PodAction, resolve};
use repel_engine::kubectl::drain::DrainOptions;
use repel_engine::whatif::{self, Judge};

use crate::cluster_args::{CaFlags, ClusterArgs};
use crate::output::{leave_at_exit, print_machine, render, table};
use crate::{CliError, Format};

/// Who judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum As {
    /// `kubectl drain`'s filters, evictions and the default scheduler.
    Kubectl,
    /// cluster-autoscaler's drainability rules and scale-down simulation.
    ClusterAutoscaler,
    /// Karpenter's disruption rules (do-not-disrupt, budgets) and its scheduling.
    Karpenter,
}

/// Arguments of `repel drain`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel drain -f examples/demo/cluster.yaml general-1
  repel drain -f examples/demo/cluster.yaml --all --independent --as cluster-autoscaler
  repel drain --kubeconfig ~/.kube/config -l agentpool=spot --as karpenter")]
pub struct DrainArgs {
    /// The nodes, in the order to drain them.
    pub nodes: Vec<String>,
    /// Every node, in input order.
    #[arg(long, conflicts_with = "selector")]
    pub all: bool,
    /// The nodes whose labels match this selector (kubectl's syntax), in input order.
    #[arg(short = 'l', long = "selector")]
    pub selector: Option<String>,
    /// Who judges: kubectl (default), cluster-autoscaler or karpenter.
    #[arg(long = "as", value_enum, default_value = "kubectl")]
    pub as_: As,
    /// Judge every node against the unchanged cluster (default: one after another, each
    /// drain's outcome carried into the next).
    #[arg(long)]
    pub independent: bool,
    /// kubectl: drain even with DaemonSet-managed pods on the node (they stay).
    #[arg(long = "ignore-daemonsets")]
    pub ignore_daemonsets: bool,
    /// kubectl: delete pods with emptyDir volumes (their data is lost).
    #[arg(long = "delete-emptydir-data")]
    pub delete_emptydir_data: bool,
    /// kubectl: delete pods without a controller (they are gone for good).
    #[arg(long)]
    pub force: bool,
    /// kubectl: delete instead of evicting (PodDisruptionBudgets are not consulted).
    #[arg(long = "disable-eviction")]
    pub disable_eviction: bool,
    /// kubectl: only the pods matching this label selector are drained.
    #[arg(long = "pod-selector")]
    pub pod_selector: Option<String>,
    #[command(flatten)]
    pub ca: CaFlags,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Output format (default: a table per node).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
}

fn selector(s: &str, flag: &str) -> Result<LabelSelector, CliError> {
    s.parse::<LabelSelector>()
        .map_err(|_| CliError::Usage(format!("{flag}={s:?} must be a valid label selector")))
}

/// Runs `repel drain`: exit 0 when every node judged is drainable, 1 when one is not.
pub fn run(args: DrainArgs) -> Result<u8, CliError> {
    if args.nodes.is_empty() && !args.all && args.selector.is_none() {
        return Err(CliError::Usage(
            "USAGE: repel drain NODE... | --all | -l SELECTOR [-f FILE]".to_string(),
        ));
    }
    let judge = match args.as_ {
        As::Kubectl => Judge::Kubectl,
        As::ClusterAutoscaler => Judge::ClusterAutoscaler,
        As::Karpenter => Judge::Karpenter,
    };
    let loaded = args.cluster.load("drain")?;
    let mut session = args.cluster.session(
        loaded.inventory.into_cluster_input(),
        &loaded.admission,
        judge,
    );
    let c = session.cluster();
    let names: Vec<String> = if args.all {
        c.nodes.iter().map(|n| n.name.clone()).collect()
    } else if let Some(s) = &args.selector {
        let sel = selector(s, "--selector")?;
        c.nodes
            .iter()
            .filter(|n| {
                n.node
                    .metadata
                    .labels
                    .as_ref()
                    .is_some_and(|l| sel.matches(l))
            })
            .map(|n| n.name.clone())
            .collect::<Vec<_>>()
    } else {
        args.nodes.clone()
    };
    if names.is_empty() {
        // kubectl drain says nothing then; a what-if that judged nothing says why.
        match &args.selector {
            Some(s) => eprintln!("warning: no node matches the selector {s:?}"),
            None => eprintln!("warning: the input holds no nodes"),
        }
    }
    let nodes = resolve(c, &names).map_err(|n| {
        CliError::Usage(format!(
            "Error from server (NotFound): nodes {n:?} not found"
        ))
    })?;
    let decider = match args.as_ {
        As::Kubectl => Decider::Kubectl(DrainOptions {
            force: args.force,
            ignore_daemonsets: args.ignore_daemonsets,
            delete_emptydir_data: args.delete_emptydir_data,
            disable_eviction: args.disable_eviction,
            timeout: None,
            pod_selector: args
                .pod_selector
                .as_deref()
                .map(|s| selector(s, "--pod-selector"))
                .transpose()?,
            // daemonSetFilter's lookup: the DaemonSets read.
            daemon_sets: Some(std::sync::Arc::new(
                session
                    .workloads
                    .iter()
                    .filter(|(kind, _, _)| kind == "DaemonSet")
                    .map(|(_, ns, name)| (ns.clone(), name.clone()))
                    .collect(),
            )),
        }),
        As::ClusterAutoscaler => Decider::ClusterAutoscaler(args.ca.options(&session.workloads)),
        As::Karpenter => Decider::Karpenter,
    };
    let report = whatif::drain(&mut session, &nodes, decider, args.independent);
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => print_human(&report),
    }
    let failed = report.nodes.iter().any(|n| !n.drainable);
    leave_at_exit((session, report));
    Ok(u8::from(failed))
}

fn print_human(r: &DrainReport) {
    for (i, n) in r.nodes.iter().enumerate() {
        if i > 0 {
            outln!("");
        }
        let verdict = if n.drainable {
            format!("node {}: drainable ({})", n.node, r.as_)
        } else {
            format!(
                "node {}: NOT drainable ({}): {}: {}",
                n.node,
                r.as_,
                n.reason.as_deref().unwrap_or(""),
                n.message.as_deref().unwrap_or("")
            )
        };
        outln!("{verdict}");
        if n.pods.is_empty() {
            outln!("  no pods");
            continue;
        }
        let mut t = table(&["POD", "ACTION", "WHERE / WHY"]);
        for p in &n.pods {
            let (action, detail) = match &p.action {
                PodAction::Move { to } => ("move", format!("to {to}")),
                PodAction::Stays { why } => ("stays", why.clone()),
                PodAction::Blocked { reason, message } => {
                    ("blocked", format!("{reason}: {message}"))
                }
                PodAction::Pending { message } => ("pending", message.clone()),
                PodAction::Gone { why } => ("gone", why.clone()),
            };
            t.add_row(vec![p.pod.clone(), action.to_string(), detail]);
        }
        out!("{}", render(&t));
    }
    let ok = r.nodes.iter().filter(|n| n.drainable).count();
    outln!("\n{ok} of {} node(s) drainable.", r.nodes.len());
}
