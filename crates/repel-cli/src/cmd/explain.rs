//! `repel explain POD`: the pod against every node, by the taint rules.

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

/// The kinds `kind/name` accepts.
const TARGET_KINDS: &[&str] = &[
    "Pod",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
];

/// The kind of `kind/name`'s `kind`, by kubectl's singular, plural or short names
/// ([`repel_core::kinds`]), when it is one `explain` accepts.
fn workload_kind(s: &str) -> Option<&'static str> {
    let k = repel_core::kinds::by_name(&s.to_ascii_lowercase())?;
    TARGET_KINDS.contains(&k.kind).then_some(k.kind)
}

/// The API group of a kind `kind/name` accepts (`""`: the core group).
fn kind_group(kind: &str) -> &'static str {
    repel_core::kinds::by_kind(kind).map_or("apps", |k| k.group)
}

/// The kind of a `TYPE[.VERSION][.GROUP]` argument, as kubectl reads it (`deploy`,
/// `deployment.apps`, `deployments.v1.apps`, `cronjob.batch`); `Err` with kubectl's message for a
/// type with a group repel does not know (`deployment.batch`). `Ok(None)`: not a type at all —
/// then the part before `/` is a namespace (a namespace is a DNS label and has no dot, so a
/// dotted word is always a type).
fn type_arg(s: &str) -> Result<Option<&'static str>, CliError> {
    let unknown = || {
        CliError::Usage(format!(
            "error: the server doesn't have a resource type \"{s}\""
        ))
    };
    let Some((resource, rest)) = s.split_once('.') else {
        return Ok(workload_kind(s));
    };
    let kind = workload_kind(resource).ok_or_else(unknown)?;
    // VERSION.GROUP or GROUP; the core group's pods are `pods` (kubectl also takes `pods.v1`).
    let group = match rest.split_once('.') {
        Some(("v1", group)) => group,
        Some(_) => return Err(unknown()),
        None if rest == "v1" => "",
        None => rest,
    };
    if group.eq_ignore_ascii_case(kind_group(kind)) {
        Ok(Some(kind))
    } else {
        Err(unknown())
    }
}

/// Finds the pod `arg` names in the inventory, as kubectl resolves `get` arguments.
/// A pod may also be named as its workload's controller names it (`db-0`, `web-<hash>-<suffix>`
/// with the same `--seed`). `looked_in` says where, for kubectl's NotFound line (`the given
/// files`, `the cluster`, …).
pub fn resolve<'a>(
    inv: &'a Inventory,
    arg: &str,
    ns: &str,
    seed: u64,
    gates: &FeatureGates,
    looked_in: &str,
) -> Result<Target<'a>, CliError> {
    let (kind, namespace, name) = match arg.split_once('/') {
        Some((t, n)) => match type_arg(t)? {
            Some(kind) => (kind, ns, n),
            None => ("Pod", t, n),
        },
        None => ("Pod", ns, arg),
    };
    let not_found = || {
        let resource = match kind_group(kind) {
            "" => format!("{}s", kind.to_ascii_lowercase()),
            group => format!("{}s.{group}", kind.to_ascii_lowercase()),
        };
        CliError::Usage(format!(
            "Error from server (NotFound): {resource} {name:?} not found in {looked_in} (namespace {namespace:?})"
        ))
    };
    if kind == "Pod" {
        let is_it = |p: &Pod| {
            p.metadata.name.as_deref() == Some(name) && namespace_of(&p.metadata) == namespace
        };
        if let Some(pod) = inv.pods.iter().map(|p| &p.obj).find(|p| is_it(p)) {
            return Ok(Target {
                pod: pod.clone(),
                namespace: inv.namespace(namespace),
                origin: None,
                daemonset: false,
            });
        }
        // A workload's pod as `schedule` names it: only the pods its workload is missing, as
        // the claim plan finds them (the same plan `build_cluster` follows).
        let nodes: Vec<Node> = inv.nodes.iter().map(|n| n.obj.clone()).collect();
        let workloads: Vec<Workload> = inv.workloads.iter().map(|w| w.obj.clone()).collect();
        let mut pods: Vec<Pod> = inv.pods.iter().map(|p| p.obj.clone()).collect();
        let plan = claim_pods(&workloads, &mut pods, &nodes, gates);
        let taken = taken_names(&pods);
        for (w, wp) in workloads.iter().zip(&plan.workloads) {
            let ns = w.namespace();
            // Looked for as the controller makes them, not all held (a million replicas).
            let mut found = None;
            for_each_planned_part(
                w,
                wp,
                seed,
                |n| taken.contains(&format!("{ns}/{n}")),
                |spec, metadata, pin| {
                    if found.is_some()
                        || metadata.name.as_deref() != Some(name)
                        || namespace_of(&metadata) != namespace
                    {
                        return;
                    }
                    let mut spec = spec.clone();
                    if let Some(node) = pin {
                        pin_to_node(&mut spec, &node);
                    }
                    found = Some(Pod {
                        metadata,
                        spec: Some(spec),
                        status: None,
                    });
                },
            );
            if let Some(pod) = found {
                return Ok(Target {
                    pod,
                    namespace: inv.namespace(namespace),
                    origin: Some(format!("{} {}/{}", w.kind(), w.namespace(), w.name())),
                    daemonset: false,
                });
            }
        }
        return Err(not_found());
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
        daemonset: kind == "DaemonSet",
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
    /// The first failing filter plugin's reasons (upstream's strings).
    pub reasons: Vec<String>,
    /// The first failing filter plugin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<&'static str>,
    /// Whether the node is cordoned.
    pub cordoned: bool,
    /// The node's taints.
    pub taints: Vec<TaintRow>,
    /// Normalised per-plugin scores `0..=100`, before weights (feasible nodes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<BTreeMap<&'static str, i64>>,
    /// Weighted total (feasible nodes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    /// The NoExecute outcome.
    pub no_execute: NoExecuteRow,
    /// Tolerations that would let the pod in, when taints or cordoning are what keep it out
    /// (beyond upstream).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggested_tolerations: Vec<Toleration>,
    /// For a DaemonSet: whether its controller creates a pod for this node
    /// (`NodeShouldRunDaemonPod`); when not, `plugin` and `reasons` say which check refused it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon_pod: Option<bool>,
    /// For a DaemonSet: its pod for this node, `ns/name`, pinned here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    /// For a DaemonSet: the FitError text of its pod for this node when that pod does not fit
    /// (or the API server's refusal of it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `repel explain -o json`.
#[derive(Debug, Serialize)]
pub struct ExplainReport {
    /// `ns/name`.
    pub pod: String,
    /// The FitError text, `""` when the pod fits somewhere (and for a DaemonSet's pods, whose
    /// nodes the DaemonSet controller picks).
    pub message: String,
    /// The pod's tolerations after admission (what `toleration` indexes).
    pub tolerations: Vec<Toleration>,
    /// For each of `tolerations`, the admission plugin that added it (`null`: the pod's own, or
    /// for a DaemonSet's pod, its controller's).
    #[serde(rename = "addedBy")]
    pub added_by: Vec<Option<&'static str>>,
    /// One row per node.
    pub nodes: Vec<NodeRow>,
    /// The classic mistakes found (beyond upstream), one sentence each.
    pub advice: Vec<String>,
    /// Tolerations evidently written for a taint of some node that do not match it, and why
    /// (each pair once, whatever the number of nodes).
    #[serde(rename = "nearMisses", skip_serializing_if = "Vec::is_empty")]
    pub near_misses: Vec<NearMissRow>,
    /// When nothing fits and preemption would make room: where, and whom it would remove.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionRow>,
    /// When nothing fits and the input holds Karpenter NodePools: what each would do for the
    /// pod, in the order Karpenter tries them (the first that takes it launches a node).
    #[serde(rename = "nodePools", skip_serializing_if = "Vec::is_empty")]
    pub node_pools: Vec<repel_engine::controllers::karpenter::PoolVerdict>,
    /// For a pod the cluster's own scheduler could not place (its `PodScheduled` condition is
    /// `False`, as a live cluster or its snapshot records it): what that scheduler wrote, and
    /// whether repel's message is the same.
    #[serde(rename = "clusterScheduler", skip_serializing_if = "Option::is_none")]
    pub cluster_scheduler: Option<ClusterScheduler>,
}

/// A toleration that misses a taint it was evidently written for.
#[derive(Debug, Serialize)]
pub struct NearMissRow {
    /// Index into the pod's tolerations.
    pub toleration: usize,
    /// The taint, `key=value:Effect`.
    pub taint: String,
    /// Why it does not match.
    pub message: String,
}

/// The near misses of `tolerations` against every node's untolerated taints, each pair once.
fn near_miss_rows(
    tolerations: &[Toleration],
    core: &Explanation,
    gates: &FeatureGates,
) -> Vec<NearMissRow> {
    let mut rows: Vec<NearMissRow> = Vec::new();
    for v in &core.nodes {
        let untolerated: Vec<&k8s_openapi::api::core::v1::Taint> = v
            .taints
            .iter()
            .filter(|t| !t.tolerated)
            .map(|t| &t.taint)
            .collect();
        for (toleration, taint, why) in near_misses(tolerations, &untolerated, gates) {
            if !rows
                .iter()
                .any(|r| r.toleration == toleration && r.taint == taint)
            {
                rows.push(NearMissRow {
                    toleration,
                    taint,
                    message: why.to_string(),
                });
            }
        }
    }
    rows
}

/// The cluster's scheduler's verdict on a pending pod, beside repel's.
#[derive(Debug, Serialize)]
pub struct ClusterScheduler {
    /// The condition's reason (`Unschedulable`, `SchedulerError`, …).
    pub reason: String,
    /// The condition's message (kube-scheduler's FitError text).
    pub message: String,
    /// When the condition last changed, if recorded: the cluster may have changed since.
    #[serde(rename = "lastTransitionTime", skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
    /// Whether repel's message is the same text.
    pub agrees: bool,
}

/// The pod's `PodScheduled=False` condition, beside repel's `message` (empty when repel finds
/// nodes for it).
pub fn cluster_scheduler(pod: &Pod, message: &str) -> Option<ClusterScheduler> {
    let c = pod
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "PodScheduled" && c.status == "False")?;
    let theirs = c.message.clone().unwrap_or_default();
    Some(ClusterScheduler {
        reason: c.reason.clone().unwrap_or_default(),
        agrees: !message.is_empty() && theirs.trim_end() == message.trim_end(),
        message: theirs,
        last_transition_time: c.last_transition_time.as_ref().map(|t| t.0.to_string()),
    })
}

/// The human lines for [`ClusterScheduler`].
fn cluster_scheduler_words(c: &ClusterScheduler, repel_message: &str) -> String {
    let since = c
        .last_transition_time
        .as_deref()
        .map(|t| format!(", since {t}"))
        .unwrap_or_default();
    let condition = format!(
        "PodScheduled=False, {}{since}",
        if c.reason.is_empty() {
            "no reason"
        } else {
            &c.reason
        }
    );
    if c.agrees {
        return format!(
            "\nThe cluster's scheduler wrote the same message ({condition}): repel agrees.\n"
        );
    }
    format!(
        "\nThe cluster's scheduler wrote ({condition}):\n  {}\n{}\n",
        c.message,
        if repel_message.is_empty() {
            "repel disagrees: it finds nodes for the pod in the cluster as it is now (the cluster may have changed since)."
        } else {
            "repel's message differs (above): the cluster may have changed since, or runs another version or configuration of the scheduler."
        }
    )
}

/// What DefaultPreemption would do for the pod.
#[derive(Debug, Serialize)]
pub struct PreemptionRow {
    /// The node it would nominate.
    pub node: String,
    /// The pods it would remove, `ns/name`.
    pub victims: Vec<String>,
}

/// A node's row from the taint view (repel-core), with the filter verdict given: the taints,
/// the NoExecute outcome, and the tolerations that would open the node when taints or
/// cordoning are what keep the pod out. No scores.
fn base_row(
    v: &NodeVerdict,
    feasible: bool,
    plugin: Option<&'static str>,
    reasons: Vec<String>,
) -> NodeRow {
    let by_taints = plugin.is_some_and(|p| p == TAINT_TOLERATION || p == NODE_UNSCHEDULABLE);
    NodeRow {
        name: v.name.clone(),
        feasible,
        reasons,
        plugin,
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
        scores: None,
        score: None,
        no_execute: v.no_execute.into(),
        suggested_tolerations: if by_taints {
            v.suggestions.clone()
        } else {
            Vec::new()
        },
        daemon_pod: None,
        pod: None,
        message: None,
    }
}

/// Joins the taint view (repel-core) and the scheduler's verdict (repel-engine) for one node:
/// feasible when the scheduler found it so (then with its scores), else the node's status (its
/// own rejection, or the one PreFilter gave the nodes it ruled out).
fn status_row(v: &NodeVerdict, id: usize, eval: &Evaluation) -> NodeRow {
    let feasible = eval.feasible.contains(&id);
    let status = if feasible {
        None
    } else {
        eval.diagnosis.status(id)
    };
    let mut row = base_row(
        v,
        feasible,
        status.map(|s| s.plugin),
        status.map(|s| s.reasons.clone()).unwrap_or_default(),
    );
    if let Some(scored) = eval
        .scores
        .iter()
        .find(|s| s.node == id)
        .filter(|_| feasible)
    {
        row.scores = Some(scored.plugins.iter().map(|p| (p.plugin, p.score)).collect());
        row.score = Some(scored.total);
    }
    row
}

/// The JSON report of one pod: taints from `core`, filters and scores from `eval` (node `i` of
/// `core` is the cluster's node of the same name).
pub fn report(
    pod_id: &str,
    tolerations: &[Toleration],
    core: &Explanation,
    eval: &Evaluation,
    cluster: &Cluster,
    advice: &[Advice],
    preemption: Option<PreemptionRow>,
) -> ExplainReport {
    ExplainReport {
        preemption,
        pod: pod_id.to_string(),
        message: eval.message.clone(),
        tolerations: tolerations.to_vec(),
        added_by: vec![None; tolerations.len()],
        nodes: core
            .nodes
            .iter()
            .enumerate()
            .map(|(i, v)| status_row(v, cluster.node_id(&v.name).unwrap_or(i), eval))
            .collect(),
        advice: advice.iter().map(ToString::to_string).collect(),
        near_misses: Vec::new(),
        node_pools: Vec::new(),
        cluster_scheduler: None,
    }
}

fn outcome_row_words(r: &NoExecuteRow) -> String {
    match (r.evict, r.seconds) {
        ("after", Some(s)) => format!("evicted after {s}s"),
        ("immediately", _) => "evicted at once".to_string(),
        _ => "stays".to_string(),
    }
}

/// The human form: the tolerations, a table with one row per node (the first failing plugin
/// and its reason, or the score), why the best node wins, upstream's message, notes, and the
/// tolerations to paste.
pub fn human(
    r: &ExplainReport,
    sources: &[Option<&'static str>],
    picked: Option<&BTreeSet<String>>,
    daemonset: bool,
) -> Result<String, CliError> {
    let mut out = format!("Pod {}\n", r.pod);
    if r.tolerations.is_empty() {
        out.push_str("Tolerations: none\n");
    } else {
        out.push_str("Tolerations:\n");
        for (i, t) in r.tolerations.iter().enumerate() {
            let added = match sources.get(i).copied().flatten() {
                Some(plugin) => format!("   (added by {plugin})"),
                None => String::new(),
            };
            out.push_str(&format!("  #{i}  {}{added}\n", describe_toleration(t)));
        }
    }
    out.push('\n');
    // A DaemonSet's rows carry no score (each pod is feasible on its own node only); they name
    // the pod its controller creates for the node instead.
    let mut t = table(&[
        "NODE",
        "FITS",
        if daemonset { "POD" } else { "SCORE" },
        "TAINTS",
        "IF RUNNING THERE",
        "WHY NOT",
    ]);
    for n in &r.nodes {
        let mut taints: Vec<String> = n
            .taints
            .iter()
            .map(|t| {
                let s = taint_to_string(&repel_core::taint::new_taint(&t.key, &t.value, &t.effect));
                match t.toleration {
                    Some(i) => format!("{s} tolerated by #{i}"),
                    None => format!("{s} NOT tolerated"),
                }
            })
            .collect();
        if n.cordoned {
            taints.push("(cordoned)".to_string());
        }
        if taints.is_empty() {
            taints.push("<none>".to_string());
        }
        let why = match (n.plugin, n.reasons.is_empty(), &n.message) {
            (Some(p), false, _) => format!("{p}: {}", n.reasons.join(", ")),
            (_, _, Some(m)) => m.clone(),
            _ => String::new(),
        };
        let third = if daemonset {
            match (&n.pod, n.daemon_pod) {
                (Some(p), _) => p.rsplit('/').next().unwrap_or(p).to_string(),
                (None, Some(true)) => "(not created)".to_string(),
                (None, _) => "-".to_string(),
            }
        } else {
            n.score.map_or("-".to_string(), |s| s.to_string())
        };
        t.add_row(vec![
            n.name.clone(),
            if n.feasible { "yes" } else { "no" }.to_string(),
            third,
            taints.join("\n"),
            outcome_row_words(&n.no_execute),
            why,
        ]);
    }
    out.push_str(&render(&t));
    out.push('\n');
    let feasible: Vec<&NodeRow> = r.nodes.iter().filter(|n| n.feasible).collect();
    if daemonset {
        out.push_str(&daemon_summary(r));
    } else if feasible.is_empty() {
        out.push_str(&r.message);
        out.push('\n');
        if let Some(p) = &r.preemption {
            out.push_str(&format!(
                "Preemption would make room on {} by deleting {}.\n",
                p.node,
                p.victims.join(", ")
            ));
        }
    } else {
        let best = feasible.iter().filter_map(|n| n.score).max();
        let top: Vec<&&NodeRow> = feasible.iter().filter(|n| n.score == best).collect();
        let names: Vec<&str> = top.iter().map(|n| n.name.as_str()).collect();
        out.push_str(&format!(
            "Fits {} of {} node(s). Best: {}",
            feasible.len(),
            r.nodes.len(),
            names.join(", ")
        ));
        if let (Some(b), Some(first)) = (best, top.first()) {
            let parts: Vec<String> = first
                .scores
                .iter()
                .flatten()
                .map(|(p, s)| match default_weight(p) {
                    Some(w) if w != 1 => format!("{p} {s}×{w}"),
                    _ => format!("{p} {s}"),
                })
                .collect();
            out.push_str(&format!(" (score {b}: {})", parts.join(", ")));
        }
        out.push_str(if names.len() > 1 {
            "; the scheduler picks one of them at random.\n"
        } else {
            ".\n"
        });
    }
    if let Some(c) = &r.cluster_scheduler {
        out.push_str(&cluster_scheduler_words(c, &r.message));
    }
    for a in &r.advice {
        out.push_str(&format!("\nNote: {a}.\n"));
    }
    for m in &r.near_misses {
        out.push_str(&format!(
            "\nNear miss: toleration #{} does not match {}: {}.\n",
            m.toleration, m.taint, m.message
        ));
    }
    if let Some(launch) = r.node_pools.iter().find(|p| p.reason.is_none()) {
        out.push_str(&format!(
            "\nKarpenter would launch a node for it from NodePool {}{}{}.\n",
            launch.pool,
            launch
                .instance_type
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default(),
            launch
                .relaxed
                .as_deref()
                .map(|r| format!(", once it relaxes the pod ({r})"))
                .unwrap_or_default()
        ));
    } else if !r.node_pools.is_empty() {
        out.push_str("\nNo Karpenter NodePool would launch a node for it.\n");
    }
    for p in r.node_pools.iter().filter(|p| p.reason.is_some()) {
        out.push_str(&format!(
            "  NodePool {}: {}\n",
            p.pool,
            p.reason.as_deref().unwrap_or_default()
        ));
    }
    // Every tainted node's toleration is in -o json; the text shows them where they matter:
    // when the pod fits nowhere, for the nodes its own required affinity picks (tolerating a
    // node the affinity refuses opens nothing), each set of tolerations once with the nodes it
    // opens.
    let with_sugg: Vec<&NodeRow> = r
        .nodes
        .iter()
        .filter(|n| !n.suggested_tolerations.is_empty())
        .filter(|n| picked.is_none_or(|p| p.contains(&n.name)))
        .collect();
    if !feasible.is_empty() && !with_sugg.is_empty() {
        let names: Vec<&str> = with_sugg.iter().map(|n| n.name.as_str()).collect();
        out.push_str(&format!(
            "\nThe tolerations that would open {} are in -o json (suggestedTolerations).\n",
            names.join(", ")
        ));
    } else {
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for n in &with_sugg {
            let yaml = tolerations_yaml(&n.suggested_tolerations)?;
            match groups.iter_mut().find(|(y, _)| *y == yaml) {
                Some((_, names)) => names.push(&n.name),
                None => groups.push((yaml, vec![&n.name])),
            }
        }
        for (yaml, names) in groups {
            out.push_str(&format!(
                "\nTo let the pod onto {}, add to its tolerations:\n",
                names.join(", ")
            ));
            for line in yaml.lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The summary of a DaemonSet's rows: the nodes its controller creates a pod for, those the pod
/// runs on, and the FitError of each pod left Pending.
fn daemon_summary(r: &ExplainReport) -> String {
    let created: Vec<&NodeRow> = r
        .nodes
        .iter()
        .filter(|n| n.daemon_pod == Some(true))
        .collect();
    if created.is_empty() {
        return "The DaemonSet controller creates this pod on no node.\n".to_string();
    }
    let runs: Vec<&str> = created
        .iter()
        .filter(|n| n.feasible)
        .map(|n| n.name.as_str())
        .collect();
    let mut out = format!(
        "The DaemonSet controller creates a pod for {} of {} node(s), each pinned to its node (matchFields metadata.name); it runs on {}.\n",
        created.len(),
        r.nodes.len(),
        if runs.is_empty() {
            "no node".to_string()
        } else {
            runs.join(", ")
        }
    );
    for n in created.iter().filter(|n| !n.feasible) {
        out.push_str(&format!(
            "Its pod for {} stays Pending: {}\n",
            n.name,
            n.message.as_deref().unwrap_or_default()
        ));
    }
    out
}

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
    let live = args.inputs.kubeconfig.is_some() || args.inputs.context.is_some();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_type_forms_name_a_kind_and_a_dotless_word_a_namespace() {
        let kind = |s: &str| type_arg(s).map_err(|e| e.to_string());
        for (arg, want) in [
            ("deployment", Some("Deployment")),
            ("deploy", Some("Deployment")),
            ("deployment.apps", Some("Deployment")),
            ("deployments.v1.apps", Some("Deployment")),
            ("DaemonSet.apps", Some("DaemonSet")),
            ("job.batch", Some("Job")),
            ("cronjobs.v1.batch", Some("CronJob")),
            ("pod", Some("Pod")),
            ("pods.v1", Some("Pod")),
            ("rc", Some("ReplicationController")),
            ("replicationcontrollers.v1", Some("ReplicationController")),
            // A namespace: a DNS label, which has no dot.
            ("default", None),
            ("kube-system", None),
        ] {
            assert_eq!(kind(arg), Ok(want), "{arg}");
        }
        for arg in [
            "deployment.batch",
            "job.apps",
            "deployments.v2.apps",
            "web.example",
        ] {
            assert_eq!(
                kind(arg),
                Err(format!(
                    "error: the server doesn't have a resource type \"{arg}\""
                )),
                "{arg}"
            );
        }
    }
}
