//! `repel drain NODE... | --all | -l SELECTOR`: a drain what-if (issue 15). Never changes
//! anything: reads the manifests, runs the cluster's pending pods through the scheduler (the
//! cluster as it would run), then judges each node as `kubectl drain` or cluster-autoscaler
//! would ([`repel_engine::drain`]).

use clap::{Args, ValueEnum};
use repel_core::labels::LabelSelector;
use repel_engine::drain::{
    Decider, DrainConfig, DrainReport, PodAction, ca, drain_in_place, resolve,
};
use repel_engine::kubectl::drain::DrainOptions;
use repel_engine::load::{Built, build_cluster};
use repel_engine::scheduler::fast::FastScheduler;
use repel_engine::scheduler::fast::first_fit::FirstFit;

use crate::output::{leave_at_exit, print_machine, render, table, warn_all};
use crate::{AdmissionFlags, CliError, Format, Inputs, SchedulerFlags};

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
    pub inputs: Inputs,
    #[command(flatten)]
    pub scheduler: SchedulerFlags,
    #[command(flatten)]
    pub admission: AdmissionFlags,
    /// Output format (default: a table per node).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
}

/// cluster-autoscaler's flags that change a drain's judgement (`drain`, `consolidate`).
#[derive(Debug, Args)]
pub struct CaFlags {
    /// cluster-autoscaler: --skip-nodes-with-system-pods (default true).
    #[arg(long = "skip-nodes-with-system-pods", default_value_t = true, action = clap::ArgAction::Set)]
    pub skip_nodes_with_system_pods: bool,
    /// cluster-autoscaler: --skip-nodes-with-local-storage (default true).
    #[arg(long = "skip-nodes-with-local-storage", default_value_t = true, action = clap::ArgAction::Set)]
    pub skip_nodes_with_local_storage: bool,
    /// cluster-autoscaler: --skip-nodes-with-custom-controller-pods (default true).
    #[arg(long = "skip-nodes-with-custom-controller-pods", default_value_t = true, action = clap::ArgAction::Set)]
    pub skip_nodes_with_custom_controller_pods: bool,
}

impl CaFlags {
    /// cluster-autoscaler's options, with the workload objects its listers find.
    pub fn options(&self, controllers: Vec<Controller>) -> ca::Options {
        ca::Options {
            skip_nodes_with_system_pods: self.skip_nodes_with_system_pods,
            skip_nodes_with_local_storage: self.skip_nodes_with_local_storage,
            skip_nodes_with_custom_controller_pods: self.skip_nodes_with_custom_controller_pods,
            controllers: controllers.into_iter().collect(),
            ..Default::default()
        }
    }
}

/// A workload object: (kind, namespace, name).
pub type Controller = (String, String, String);

/// What a what-if reads: the cluster, the workload objects cluster-autoscaler's listers find,
/// and the node pools as written.
pub type Loaded = (
    Built,
    Vec<Controller>,
    Vec<serde_json::Value>,
    Option<FirstFit>,
);

/// The cluster as it would run (its pending pods placed by the compiled scheduler) and the
/// workload objects cluster-autoscaler's listers would find: the input's, and the
/// ReplicaSets its Deployments make.
pub fn load(
    inputs: &Inputs,
    scheduler: &SchedulerFlags,
    admission: &AdmissionFlags,
    command: &str,
    keep_compiled: bool,
) -> Result<Loaded, CliError> {
    let admission = admission.config()?;
    let inv = inputs.load_seeded(command, scheduler.seed)?;
    warn_all(&inv.warnings);
    let gates = inputs.feature_gates;
    let pools: Vec<serde_json::Value> = inv.node_pools.iter().map(|p| p.obj.clone()).collect();
    let input = inv.into_cluster_input();
    let mut controllers: Vec<Controller> = input
        .workloads
        .iter()
        .map(|w| {
            (
                w.kind().to_string(),
                w.namespace().to_string(),
                w.name().to_string(),
            )
        })
        .collect();
    let mut built = build_cluster(input, &gates, &admission, scheduler.seed);
    warn_all(&built.warnings);
    let pct = scheduler.percentage_of_nodes_to_score;
    let mut fast = FastScheduler::new(gates, pct, scheduler.seed);
    if keep_compiled {
        fast.keep_state();
    }
    fast.schedule_all(&mut built.cluster);
    let compiled = keep_compiled.then(|| FirstFit::from_scheduler(fast, &built.cluster));
    controllers.extend(built.cluster.owner_selectors.keys().cloned());
    Ok((built, controllers, pools, compiled))
}

/// The time of a what-if, Unix seconds.
pub fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
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
    let (mut built, controllers, _, compiled) = load(
        &args.inputs,
        &args.scheduler,
        &args.admission,
        "drain",
        // Karpenter hardens every taint first: its classes differ from the scheduling run's.
        !matches!(args.as_, As::Karpenter),
    )?;
    let gates = args.inputs.feature_gates;
    let c = &built.cluster;
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
                controllers
                    .iter()
                    .filter(|(kind, _, _)| kind == "DaemonSet")
                    .map(|(_, ns, name)| (ns.clone(), name.clone()))
                    .collect(),
            )),
        }),
        As::ClusterAutoscaler => Decider::ClusterAutoscaler(args.ca.options(controllers)),
        As::Karpenter => Decider::Karpenter,
    };
    let cfg = DrainConfig {
        decider,
        independent: args.independent,
        now_unix: now_unix(),
        gates,
        seed: args.scheduler.seed,
    };
    let report = drain_in_place(&mut built.cluster, &nodes, &cfg, compiled);
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => print_human(&report),
    }
    let failed = report.nodes.iter().any(|n| !n.drainable);
    leave_at_exit((built, report));
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
