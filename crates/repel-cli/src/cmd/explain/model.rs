//! `repel explain`'s JSON model: a row per node (taints, NoExecute outcome, filters, scores),
//! near misses, the cluster scheduler's own verdict and preemption, built from the scheduler's
//! evaluation (`kube-scheduler`'s filter and score plugins, as [`Evaluation`] holds them).

use super::*;

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
pub(super) fn near_miss_rows(
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
pub(super) fn base_row(
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
pub(super) fn status_row(v: &NodeVerdict, id: usize, eval: &Evaluation) -> NodeRow {
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
