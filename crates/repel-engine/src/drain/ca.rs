//! cluster-autoscaler's scale-down drain simulation (`kubernetes-sigs/cluster-autoscaler`:
//! `pkg/simulator/drainability/rules`, `pkg/utils/drain`, `pkg/simulator/cluster.go`,
//! `pkg/simulator/scheduling/hinting_simulator.go`).
//!
//! # The rules, in their order (the first decisive outcome wins)
//! mirror (SkipDrain), long-terminating (SkipDrain), replica count (`ControllerNotFound`, its
//! listers' lookups — ReplicationController, `apps` DaemonSet, Job, ReplicaSet, `apps`
//! StatefulSet — only with `--skip-nodes-with-custom-controller-pods`, the default), DaemonSet
//! (DrainOk),
//! `safe-to-evict: "true"` (DrainOk), terminal (DrainOk), `safe-to-evict: "on-completion"`
//! (WaitForCompletion), replicated (`NotReplicated`), system (`UnmovableKubeSystemPod`, with
//! `--skip-nodes-with-system-pods`), `safe-to-evict: "false"` (`NotSafeToEvictAnnotation`),
//! local storage (`LocalStorageRequested`, with `--skip-nodes-with-local-storage`), PDB
//! (`NotEnoughPdb`). The texts are upstream's `fmt.Errorf`s. Before the rules, a node tainted
//! `ToBeDeletedByClusterAutoscaler` less than 5 minutes ago is `CurrentlyBeingDeleted` and one
//! annotated `scale-down-disabled: "true"` is `ScaleDownDisabledAnnotation` (eligibility).
//!
//! # The simulation
//! The node is kept as a copy without pods, tainted `ToBeDeletedByClusterAutoscaler=<unix
//! seconds>:NoSchedule`; the pods to move (not DaemonSet, mirror or finished ones) go highest
//! priority first (stable otherwise), each onto the first node, in a rotating order that starts
//! after the node chosen last, whose PreFilter and Filter plugins pass (no scores; cordoned
//! nodes skipped); the first pod that fits nowhere ends it (`NoPlaceToMovePods`, "can
//! reschedule only N out of M pods"). A node drained in a sequence is then removed, its pods
//! charged to their budgets.

use std::collections::HashMap;

use k8s_openapi::api::core::v1::Taint;

use super::sim::{Sim, with_taint};
use super::{
    DrainConfig, DrainVerdict, PodAction, PodVerdict, Undo, annotation, key, not_drained,
    selecting_pdbs, sort, unschedule,
};
use crate::cluster::{Cluster, NodeId, PodId, PodInfo, PodPhase};

/// Every pod's controller, `(kind, namespace, name)`: the workload objects of a cluster whose
/// pods all have their controllers (a generated one), for [`Options::controllers`].
pub fn pod_controllers(c: &Cluster) -> std::collections::BTreeSet<(String, String, String)> {
    c.pods
        .iter()
        .filter_map(|p| {
            p.controller()
                .map(|(k, n)| (k.to_string(), p.namespace.clone(), n.to_string()))
        })
        .collect()
}

/// `PodSafeToEvictKey`.
pub const SAFE_TO_EVICT: &str = "cluster-autoscaler.kubernetes.io/safe-to-evict";
/// `SafeToEvictLocalVolumesKey`.
pub const SAFE_TO_EVICT_LOCAL_VOLUMES: &str =
    "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";
/// `ToBeDeletedTaint`.
pub const TO_BE_DELETED_TAINT: &str = "ToBeDeletedByClusterAutoscaler";
/// The node annotation that keeps a node (`ScaleDownDisabledAnnotation`).
pub const SCALE_DOWN_DISABLED: &str = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
/// `PodLongTerminatingExtraThreshold`, seconds.
const LONG_TERMINATING_EXTRA: i64 = 30;
/// `DaemonSetPodAnnotationKey` (`utils/pod`): a pod annotated `"true"` counts as a DaemonSet's.
pub const DAEMONSET_POD: &str = "cluster-autoscaler.kubernetes.io/daemonset-pod";
/// `MaxCloudProviderNodeDeletionTime`, seconds (`core/scaledown/actuation`).
const MAX_CLOUD_PROVIDER_NODE_DELETION: i64 = 5 * 60;
/// `MaxKubernetesEmptyNodeDeletionTime`, seconds (`core/scaledown/actuation`).
const MAX_KUBERNETES_EMPTY_NODE_DELETION: i64 = 3 * 60;

/// cluster-autoscaler's flags that change the judgement.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--skip-nodes-with-system-pods` (default true).
    pub skip_nodes_with_system_pods: bool,
    /// `--skip-nodes-with-local-storage` (default true).
    pub skip_nodes_with_local_storage: bool,
    /// `--skip-nodes-with-custom-controller-pods` (default true).
    pub skip_nodes_with_custom_controller_pods: bool,
    /// `--blocking-system-pod-distruption-timeout` (sic), seconds (default 1 h).
    pub bsp_disruption_timeout: i64,
    /// The workload objects the cluster holds, `(kind, namespace, name)`: the controllers
    /// cluster-autoscaler's listers find.
    pub controllers: std::collections::BTreeSet<(String, String, String)>,
    /// `--scale-down-gpu-utilization-threshold` (default 0.5): a GPU node's threshold in
    /// consolidation ([`super::consolidate::utilization`]).
    pub scale_down_gpu_utilization_threshold: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            skip_nodes_with_system_pods: true,
            skip_nodes_with_local_storage: true,
            skip_nodes_with_custom_controller_pods: true,
            bsp_disruption_timeout: 3600,
            controllers: Default::default(),
            scale_down_gpu_utilization_threshold: 0.5,
        }
    }
}

/// A rule's outcome: upstream's `drainability.Status` (named for its package here, beside the
/// scheduler framework's `Status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drainability {
    /// `UndefinedOutcome`: the next rule decides.
    Undefined,
    /// `DrainOk`.
    DrainOk,
    /// `SkipDrain`: stays, does not block.
    SkipDrain,
    /// `WaitForCompletion`.
    WaitForCompletion,
    /// `BlockDrain` with the `BlockingPodReason` and the error text.
    Block(&'static str, String),
}

/// What a sequence of drains carries: the budgets' remaining disruptions
/// (`RemainingPdbTracker`), by budget index, and the rotating start of the first-fit search.
#[derive(Debug, Clone)]
pub struct State {
    remaining: Vec<i32>,
    last_index: usize,
}

impl State {
    /// The budgets as the cluster's pods make them now.
    pub fn new(c: &Cluster) -> State {
        State {
            remaining: c
                .pdbs
                .iter()
                .map(|p| {
                    p.status
                        .as_ref()
                        .and_then(|s| s.disruptions_allowed)
                        .unwrap_or_else(|| crate::disruption::disruptions_allowed(p, c))
                })
                .collect(),
            last_index: 0,
        }
    }
}

fn pod_annotation<'a>(p: &'a PodInfo, key: &str) -> Option<&'a str> {
    annotation(&p.meta, key)
}

/// `IsDaemonSetPod` (cluster-autoscaler `utils/pod/pod.go`): the pod's controller is of kind
/// `DaemonSet` (any group), or it is annotated `cluster-autoscaler.kubernetes.io/daemonset-pod:
/// "true"`.
pub fn is_daemon_set_pod(p: &PodInfo) -> bool {
    p.controller().is_some_and(|(k, _)| k == "DaemonSet")
        || pod_annotation(p, DAEMONSET_POD) == Some("true")
}

/// The pod's controller reference (`drain.ControllerRef`).
fn controller_ref(
    p: &PodInfo,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    p.meta
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
}

/// The group of an `apiVersion` (`schema.ParseGroupVersion`): `""` for `v1`, `apps` for
/// `apps/v1`; `None` for a string with more than one `/`, which upstream refuses.
fn api_group(api_version: &str) -> Option<&str> {
    match api_version.matches('/').count() {
        0 => Some(""),
        1 => api_version.split_once('/').map(|(g, _)| g),
        _ if api_version == "/" => Some(""),
        _ => None,
    }
}

/// `IsNodeBeingDeleted` (cluster-autoscaler `core/scaledown/actuation`, release 1.37): the
/// node's `ToBeDeletedByClusterAutoscaler` taint (the first, its value Unix seconds as
/// `GetToBeDeletedTime` parses it; an unparsable value is none) set less than
/// `max(MaxCloudProviderNodeDeletionTime, MaxKubernetesEmptyNodeDeletionTime)` (5 min) before
/// `now`. Returns how many seconds ago.
pub fn being_deleted(c: &Cluster, node: NodeId, now: i64) -> Option<i64> {
    let taint = c.nodes[node]
        .taints
        .iter()
        .find(|t| t.key == TO_BE_DELETED_TAINT)?;
    let at: i64 = taint.value.as_deref().unwrap_or("").parse().ok()?;
    let ago = now.saturating_sub(at);
    (ago < MAX_CLOUD_PROVIDER_NODE_DELETION || ago < MAX_KUBERNETES_EMPTY_NODE_DELETION)
        .then_some(ago)
}

/// The `CurrentlyBeingDeleted` text for a node tainted `ago` seconds ago (upstream only logs
/// "Skipping node from delete consideration - it is currently being deleted").
pub fn being_deleted_message(ago: i64) -> String {
    format!("tainted {TO_BE_DELETED_TAINT} {ago}s ago: it is currently being deleted")
}

fn restart_policy(p: &PodInfo) -> &str {
    p.spec().restart_policy.as_deref().unwrap_or("Always")
}

/// `IsPodTerminal`.
fn terminal(p: &PodInfo) -> bool {
    match restart_policy(p) {
        "Never" => matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed),
        "OnFailure" => p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed,
        _ => p.phase == PodPhase::Failed,
    }
}

/// `IsPodLongTerminating`: being deleted for longer than its grace period plus 30 s.
fn long_terminating(p: &PodInfo, now: i64) -> bool {
    let Some(t) = p.meta.deletion_timestamp.as_ref() else {
        return false;
    };
    let grace = p.spec().termination_grace_period_seconds.unwrap_or(30);
    t.0.as_second() + grace + LONG_TERMINATING_EXTRA < now
}

/// The lister's NotFound text for a controller kind (`replicaset.apps "web" not found`).
fn not_found(kind: &str, name: &str) -> String {
    let resource = match kind {
        "ReplicationController" => "replicationcontroller".to_string(),
        "Job" => "job.batch".to_string(),
        other => format!("{}.apps", other.to_lowercase()),
    };
    format!("{resource} {name:?} not found")
}

/// The rules for one pod, in upstream's order.
pub fn drainable(c: &Cluster, id: PodId, opts: &Options, state: &State, now: i64) -> Drainability {
    let p = &c.pods[id];
    let ns = &p.namespace;
    let name = &p.name;
    // mirror
    if pod_annotation(p, crate::kubectl::drain::MIRROR_POD_ANNOTATION).is_some() {
        return Drainability::SkipDrain;
    }
    // longterminating
    let long = long_terminating(p, now);
    if long {
        return Drainability::SkipDrain;
    }
    let ctrl = p.controller();
    let is_ds = is_daemon_set_pod(p);
    // replicacount (the listers)
    if opts.skip_nodes_with_custom_controller_pods
        && let Some(r) = controller_ref(p)
        && let Some(group) = api_group(&r.api_version)
    {
        let (kind, cname) = (r.kind.as_str(), r.name.as_str());
        let found = |k: &str| {
            opts.controllers
                .contains(&(k.to_string(), ns.to_string(), cname.to_string()))
        };
        // upstream's texts: "replication controller … is not available, err:", "daemonset …
        // is not present, err:", the others "…: err:". A DaemonSet or StatefulSet of
        // another group has no lister: undecided.
        let lister = match kind {
            "ReplicationController" => Some(("replication controller", "is not available,")),
            _ if is_ds => {
                (group == "apps" && kind == "DaemonSet").then_some(("daemonset", "is not present,"))
            }
            "Job" => Some(("job", "is not available:")),
            "ReplicaSet" => Some(("replication controller", "is not available,")),
            "StatefulSet" => (group == "apps").then_some(("statefulset", "is not available:")),
            _ => None,
        };
        if let Some((what, missing)) = lister
            && !found(kind)
        {
            return Drainability::Block(
                "ControllerNotFound",
                format!(
                    "{what} for {ns}/{name} {missing} err: {}",
                    not_found(kind, cname)
                ),
            );
        }
    }
    // daemonset
    if is_ds {
        return Drainability::DrainOk;
    }
    // safetoevict
    let safe = pod_annotation(p, SAFE_TO_EVICT);
    if safe == Some("true") {
        return Drainability::DrainOk;
    }
    // terminal
    if terminal(p) {
        return Drainability::DrainOk;
    }
    // oncompletion
    if safe == Some("on-completion") {
        return Drainability::WaitForCompletion;
    }
    // replicated
    let mut replicated = ctrl.is_some();
    if opts.skip_nodes_with_custom_controller_pods {
        replicated = replicated
            && ctrl.is_some_and(|(k, _)| {
                matches!(
                    k,
                    "ReplicationController" | "Job" | "ReplicaSet" | "StatefulSet"
                )
            });
    }
    if !replicated {
        return Drainability::Block("NotReplicated", format!("{ns}/{name} is not replicated"));
    }
    // system
    if opts.skip_nodes_with_system_pods && ns == "kube-system" && selecting_pdbs(c, p).is_empty() {
        let old = p
            .meta
            .creation_timestamp
            .as_ref()
            .is_some_and(|t| t.0.as_second() + opts.bsp_disruption_timeout < now);
        if !old {
            return Drainability::Block(
                "UnmovableKubeSystemPod",
                format!(
                    "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: {name}"
                ),
            );
        }
    }
    // notsafetoevict
    if safe == Some("false") {
        return Drainability::Block(
            "NotSafeToEvictAnnotation",
            format!("pod annotated as not safe to evict present: {name}"),
        );
    }
    // localstorage
    if opts.skip_nodes_with_local_storage && has_blocking_local_volume(p) {
        return Drainability::Block(
            "LocalStorageRequested",
            format!("pod with local storage present: {name}"),
        );
    }
    // pdb
    for i in selecting_pdbs(c, p) {
        if state.remaining.get(i).copied().unwrap_or(0) < 1 {
            return Drainability::Block(
                "NotEnoughPdb",
                format!("not enough pod disruption budget to move {ns}/{name}"),
            );
        }
    }
    Drainability::Undefined
}

/// A hostPath volume, or an emptyDir not in memory, not listed in
/// `safe-to-evict-local-volumes` (split on ",", no trimming).
fn has_blocking_local_volume(p: &PodInfo) -> bool {
    let allowed: Vec<&str> = pod_annotation(p, SAFE_TO_EVICT_LOCAL_VOLUMES)
        .map(|v| v.split(',').collect())
        .unwrap_or_default();
    p.spec().volumes.iter().flatten().any(|v| {
        let local = v.host_path.is_some()
            || v.empty_dir
                .as_ref()
                .is_some_and(|e| e.medium.as_deref() != Some("Memory"));
        local && !allowed.contains(&v.name.as_str())
    })
}

/// A judgement: the verdict, what it changed on the cluster (the moved pods where they went,
/// the node a pod-less tainted copy) and the pods moved.
pub struct Judged {
    /// The verdict.
    pub verdict: DrainVerdict,
    /// The changes, to put back ([`Sim::undo`]) unless the node goes ([`commit`]).
    pub undo: Undo,
    moved: Vec<PodId>,
}

/// Judges node `node` of `work`. On return `work` holds the simulation's changes (see
/// [`Judged`]); the rotating start in `state` has moved past the nodes chosen.
pub fn judge(
    work: &mut Cluster,
    node: NodeId,
    opts: &Options,
    cfg: &DrainConfig,
    state: &mut State,
    sim: &mut Sim,
) -> Judged {
    let mut undo = Undo::default();
    let verdict = judge_inner(work, node, opts, cfg, state, sim, &mut undo);
    let moved = match &verdict {
        Ok((_, moved)) => moved.clone(),
        Err(_) => Vec::new(),
    };
    Judged {
        verdict: verdict.map_or_else(|v| v, |(v, _)| v),
        undo,
        moved,
    }
}

/// The node goes after a drainable judgement: the budgets pay for the pods moved, the node's
/// remaining pods are deleted and the node removed.
pub fn commit(work: &mut Cluster, node: NodeId, judged: Judged, state: &mut State, sim: &mut Sim) {
    retire(work, node, judged, state, sim);
    remove_retired(work, &mut vec![node], state, sim);
}

/// [`commit`] but for the node's removal, left to [`bury`] or [`remove_retired`]: the
/// budgets pay for the pods moved, the node's remaining pods are deleted.
pub(crate) fn retire(
    work: &mut Cluster,
    node: NodeId,
    judged: Judged,
    state: &mut State,
    sim: &mut Sim,
) {
    let mut charged: HashMap<usize, i32> = HashMap::new();
    for id in &judged.moved {
        for i in selecting_pdbs(work, &work.pods[*id]) {
            *charged.entry(i).or_default() += 1;
        }
    }
    for (i, n) in charged {
        if let Some(r) = state.remaining.get_mut(i) {
            *r -= n;
        }
    }
    for id in sim.pods_on(work, node) {
        work.force_delete_pod(id);
    }
}

/// Removes the nodes [`retire`]d (`gone`, ids of now) together, leaving `work`, `state` and
/// `sim` as [`commit`] of each in turn leaves them: one pass over the cluster's pods and the
/// compiled state's counts for all of them.
pub(crate) fn remove_retired(
    work: &mut Cluster,
    gone: &mut Vec<NodeId>,
    state: &mut State,
    sim: &mut Sim,
) {
    if gone.is_empty() {
        return;
    }
    work.delete_nodes(gone);
    // `commit`'s step past each node gone before the start, whatever the order they went in.
    state.last_index -= gone.iter().filter(|g| **g < state.last_index).count();
    sim.nodes_removed(work, gone);
    gone.clear();
}

/// The node [`retire`]d goes from the what-if but stays in `work` ([`Sim::bury`]) until a
/// judgement needs it gone ([`remove_buried`]): `state` and the first fits from now on are
/// as [`commit`] leaves them (the rotating start steps past it when it came before), and
/// removing it costs nothing per pod or per node.
pub(crate) fn bury(work: &Cluster, node: NodeId, state: &mut State, sim: &mut Sim) {
    if sim.position(node) < state.last_index {
        state.last_index -= 1;
    }
    sim.bury(work, node);
}

/// Removes the nodes buried ([`bury`]) from `work`, in one pass over its pods and the
/// compiled state (the rotating start counts positions without them already).
pub(crate) fn remove_buried(work: &mut Cluster, sim: &mut Sim) {
    if sim.buried().is_empty() {
        return;
    }
    work.delete_nodes(sim.buried());
    sim.buried_removed(work);
}

/// Whether judging node `node` of `work` answers with the buried nodes ([`bury`]) in it as
/// it would with them removed: every pod the judgement may move is one whose first fits
/// they do not change ([`Sim::buried_unseen_by`]).
pub(crate) fn buried_unseen(
    work: &Cluster,
    node: NodeId,
    opts: &Options,
    state: &State,
    now: i64,
    sim: &Sim,
) -> bool {
    sim.buried().is_empty()
        || sim.pods_on(work, node).into_iter().all(|id| {
            !matches!(
                drainable(work, id, opts, state, now),
                Drainability::DrainOk | Drainability::Undefined
            ) || is_daemon_set_pod(&work.pods[id])
                || sim.buried_unseen_by(work, id)
        })
}

/// [`judge`]'s body: `Ok` with the verdict and the pods moved when the node is drainable.
#[allow(clippy::too_many_arguments)]
fn judge_inner(
    work: &mut Cluster,
    node: NodeId,
    opts: &Options,
    cfg: &DrainConfig,
    state: &mut State,
    sim: &mut Sim,
    undo: &mut Undo,
) -> Result<(DrainVerdict, Vec<PodId>), DrainVerdict> {
    let name = work.nodes[node].name.clone();
    if let Some(ago) = being_deleted(work, node, cfg.now_unix) {
        return Err(DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("CurrentlyBeingDeleted".to_string()),
            message: Some(being_deleted_message(ago)),
            pods: Vec::new(),
        });
    }
    if work.nodes[node]
        .node
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(SCALE_DOWN_DISABLED))
        .is_some_and(|v| v == "true")
    {
        return Err(DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("ScaleDownDisabledAnnotation".to_string()),
            message: Some(format!("{SCALE_DOWN_DISABLED}: \"true\"")),
            pods: Vec::new(),
        });
    }
    let on_node = sim.pods_on(work, node);
    let mut pods = Vec::new();
    let mut to_move: Vec<PodId> = Vec::new();
    let mut blocking: Option<(String, String, &'static str)> = None;
    let mut waiting: Option<String> = None;
    for id in &on_node {
        let k = key(work, *id);
        let p = &work.pods[*id];
        let is_ds = is_daemon_set_pod(p);
        let action = match drainable(work, *id, opts, state, cfg.now_unix) {
            Drainability::Block(reason, message) => {
                if blocking.is_none() {
                    blocking = Some((k.clone(), message.clone(), reason));
                }
                PodAction::Blocked {
                    reason: reason.to_string(),
                    message,
                }
            }
            Drainability::SkipDrain => PodAction::Stays {
                why: if pod_annotation(p, crate::kubectl::drain::MIRROR_POD_ANNOTATION).is_some() {
                    "mirror pod".to_string()
                } else {
                    "terminating for longer than its grace period".to_string()
                },
            },
            Drainability::WaitForCompletion => {
                waiting.get_or_insert_with(|| k.clone());
                PodAction::Stays {
                    why: format!("{SAFE_TO_EVICT}: on-completion: waits for it to finish"),
                }
            }
            Drainability::DrainOk | Drainability::Undefined => {
                if is_ds {
                    PodAction::Stays {
                        why: "DaemonSet pod".to_string(),
                    }
                } else if terminal(p) {
                    PodAction::Gone {
                        why: "finished: nothing to move".to_string(),
                    }
                } else {
                    to_move.push(*id);
                    continue;
                }
            }
        };
        pods.push(PodVerdict { pod: k, action });
    }
    if let Some((_, message, _)) = blocking {
        // GetPodsToMove stops at the first blocking pod: nothing is simulated.
        return Err(not_drained(
            work,
            name,
            ("BlockedByPod", message),
            pods,
            &to_move,
            "not simulated: another pod blocks the node",
        ));
    }
    if let Some(pod) = waiting {
        // A pod cluster-autoscaler waits for: the node is not removed until it finishes.
        return Err(not_drained(
            work,
            name,
            (
                "BlockedByOnCompletionPod",
                format!("{pod} is annotated {SAFE_TO_EVICT}: on-completion and has not finished"),
            ),
            pods,
            &to_move,
            "not simulated: the node waits for a pod to finish",
        ));
    }
    // The tainted ghost: the node without pods, tainted ToBeDeletedByClusterAutoscaler.
    sim.prepare(work);
    undo.node(work, node);
    for id in &on_node {
        undo.pod(work, *id);
        if !to_move.contains(id) && work.pods[*id].node == Some(node) {
            work.unbind(*id);
            sim.moved(work, *id, node, -1);
        }
    }
    // Highest priority first, stable otherwise.
    to_move.sort_by_key(|id| std::cmp::Reverse(work.pods[*id].priority));
    for id in &to_move {
        let was = work.pods[*id].node;
        unschedule(work, *id);
        if let Some(n) = was {
            sim.moved(work, *id, n, -1);
        }
    }
    let total = to_move.len();
    let mut placed = 0;
    let mut failed = false;
    for id in &to_move {
        let k = key(work, *id);
        if failed {
            pods.push(PodVerdict {
                pod: k,
                action: PodAction::Stays {
                    why: "not simulated: an earlier pod fits nowhere".to_string(),
                },
            });
            continue;
        }
        match first_fit(sim, work, *id, node, cfg.now_unix, state) {
            Some(n) => {
                undo.node(work, n);
                work.bind(*id, n);
                sim.moved(work, *id, n, 1);
                placed += 1;
                pods.push(PodVerdict {
                    pod: k,
                    action: PodAction::Move {
                        to: work.nodes[n].name.clone(),
                    },
                });
            }
            None => {
                failed = true;
                let message =
                    sim.pending_message(work, *id, node, &|c| ghost(c, node, cfg.now_unix));
                pods.push(PodVerdict {
                    pod: k,
                    action: PodAction::Pending { message },
                });
            }
        }
    }
    sort(&mut pods);
    if failed {
        return Err(DrainVerdict {
            node: name,
            drainable: false,
            reason: Some("NoPlaceToMovePods".to_string()),
            message: Some(format!("can reschedule only {placed} out of {total} pods")),
            pods,
        });
    }
    Ok((DrainVerdict::drainable(name, pods), to_move))
}

/// Node `node` of `c` as cluster-autoscaler's snapshot holds the node being removed: tainted
/// `ToBeDeletedByClusterAutoscaler=<now>:NoSchedule`.
fn ghost(c: &Cluster, node: NodeId, now: i64) -> crate::cluster::NodeInfo {
    let taint = Taint {
        key: TO_BE_DELETED_TAINT.to_string(),
        value: Some(now.to_string()),
        effect: "NoSchedule".to_string(),
        time_added: None,
    };
    with_taint(c, node, taint)
}

/// The first node, from the rotating start, other than `removed` and not cordoned, whose
/// PreFilter and Filter plugins pass for pod `id` (see [`Sim::first_fit`]); the start moves
/// past it. The start is a position among the nodes of the what-if, buried ones left out
/// ([`Sim::position`]).
fn first_fit(
    sim: &mut Sim,
    c: &mut Cluster,
    id: PodId,
    removed: NodeId,
    now: i64,
    state: &mut State,
) -> Option<NodeId> {
    let n = sim.live(c);
    let start = sim.node_at(c, state.last_index % n.max(1));
    let chosen = sim.first_fit(c, id, start, removed, &|c| ghost(c, removed, now))?;
    state.last_index = (sim.position(chosen) + 1) % n;
    Some(chosen)
}
