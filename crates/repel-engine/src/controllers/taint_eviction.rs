//! The taint-eviction controller (upstream `pkg/controller/tainteviction/taint_eviction.go` and
//! `timed_workers.go`, v1.35): deletes pods bound to nodes with `NoExecute` taints they do not
//! tolerate, at once or after the smallest `tolerationSeconds` of the tolerations it used.
//!
//! Upstream reacts to informer events: a node whose `NoExecute` taint list changed (or that was
//! added or deleted), a pod that was added, deleted, or whose tolerations or `nodeName` changed.
//! [`TaintEvictionController::reconcile`] rebuilds exactly those events by comparing the cluster
//! with what it saw on its previous pass, so a pass in which nothing changed does nothing but fire
//! deadlines that are due. The queue of timed deletions (upstream's `TimedWorkerQueue`) lives
//! across passes.
//!
//! Deletion, not eviction: the pod gets the `DisruptionTarget` condition and is deleted; no
//! PodDisruptionBudget is consulted, as upstream.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use k8s_openapi::api::core::v1::{PodCondition, PodStatus, Taint, Toleration};
use repel_core::FeatureGates;
use repel_core::taint::{NO_EXECUTE, taint_to_string};
use repel_core::toleration::tolerates;

use crate::clock::Millis;
use crate::cluster::{Cluster, PodId};
use crate::controllers::Controller;
use crate::events::{Event, pod_object};

/// The controller's name, as kube-controller-manager registers it.
pub const NAME: &str = "taint-eviction-controller";
/// The reason of both events this controller records.
pub const REASON_TAINT_MANAGER_EVICTION: &str = "TaintManagerEviction";
/// The pod condition type set before deletion (`v1.DisruptionTarget`).
pub const CONDITION_DISRUPTION_TARGET: &str = "DisruptionTarget";
/// The `DisruptionTarget` condition's reason.
pub const REASON_DELETION_BY_TAINT_MANAGER: &str = "DeletionByTaintManager";
/// The `DisruptionTarget` condition's message.
pub const MESSAGE_DELETION_BY_TAINT_MANAGER: &str =
    "Taint manager: deleting due to NoExecute taint";

/// Upstream `emitPodDeletionEvent`'s message: `Marking for deletion Pod ns/name`.
pub fn marking_for_deletion_message(namespace: &str, name: &str) -> String {
    format!("Marking for deletion Pod {namespace}/{name}")
}

/// Upstream `emitCancelPodDeletionEvent`'s message: `Cancelling deletion of Pod ns/name`.
pub fn cancelling_deletion_message(namespace: &str, name: &str) -> String {
    format!("Cancelling deletion of Pod {namespace}/{name}")
}

/// Upstream `getNoExecuteTaints` (v1.35): the taints whose effect is `NoExecute`, in node order.
pub fn get_no_execute_taints(taints: &[Taint]) -> Vec<Taint> {
    taints
        .iter()
        .filter(|t| t.effect == NO_EXECUTE)
        .cloned()
        .collect()
}

/// Upstream `v1helper.GetMatchingTolerations` (v1.35), with the comparison-operator gate:
///
/// 1. No taints: all tolerated, no toleration used.
/// 2. Taints but no tolerations: not all tolerated.
/// 3. Each taint, in node order, uses the **first** toleration (pod order) that tolerates it.
/// 4. A taint no toleration tolerates: not all tolerated (`None`).
///
/// Returns the used tolerations (one per taint) when every taint is tolerated.
pub fn get_matching_tolerations<'a>(
    taints: &[Taint],
    tolerations: &'a [Toleration],
    gates: &FeatureGates,
) -> Option<Vec<&'a Toleration>> {
    taints
        .iter()
        .map(|taint| tolerations.iter().find(|t| tolerates(t, taint, gates)))
        .collect()
}

/// Upstream `getMinTolerationTime` (v1.35) with its caller's `< 0` check, in milliseconds;
/// `None` means "tolerated forever":
///
/// 1. No used tolerations: 0 (delete now).
/// 2. Any `tolerationSeconds <= 0`: 0.
/// 3. Otherwise the smallest `tolerationSeconds`; nil ones count as forever.
/// 4. All nil: forever.
/// 5. The seconds become Go's `time.Duration(s) * time.Second`, an int64 of nanoseconds that
///    wraps silently: a value past ~292 years wraps, and a negative result reads as forever at
///    the caller (`minTolerationTime < 0`). Rounded up to whole milliseconds.
pub fn get_min_toleration_time(used: &[&Toleration]) -> Option<Millis> {
    if used.is_empty() {
        return Some(0);
    }
    let mut min: Option<i64> = None;
    for secs in used.iter().filter_map(|t| t.toleration_seconds) {
        if secs <= 0 {
            return Some(0);
        }
        min = Some(min.map_or(secs, |m| m.min(secs)));
    }
    let nanos = min?.wrapping_mul(1_000_000_000);
    if nanos < 0 {
        return None;
    }
    Some(nanos / 1_000_000 + Millis::from(nanos % 1_000_000 != 0))
}

/// Why a deletion was queued: what the timeline prints after "evicted:".
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// A `NoExecute` taint no toleration tolerates: deleted at once.
    Untolerated {
        /// The node.
        node: String,
        /// The first untolerated taint, in node order.
        taint: Taint,
    },
    /// Every taint is tolerated; the first one whose used toleration has the smallest
    /// `tolerationSeconds` sets the deadline.
    Expired {
        /// The node.
        node: String,
        /// The taint.
        taint: Taint,
        /// The used toleration's `tolerationSeconds`.
        seconds: i64,
    },
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Untolerated { node, taint } => {
                write!(f, "{node} has {}, not tolerated", taint_to_string(taint))
            }
            Cause::Expired {
                node,
                taint,
                seconds,
            } => write!(
                f,
                "{node} has {}, tolerated for {seconds}s",
                taint_to_string(taint)
            ),
        }
    }
}

/// A queued deletion (upstream `TimedWorker`).
#[derive(Debug, Clone, PartialEq)]
pub struct Work {
    /// When it was queued.
    pub created_at: Millis,
    /// When it fires (no earlier than this).
    pub fire_at: Millis,
    /// Why.
    pub cause: Cause,
}

impl Work {
    /// Upstream runs work whose delay is ≤ 0 at once, without a timer: it cannot be cancelled.
    fn running(&self) -> bool {
        self.fire_at <= self.created_at
    }
}

/// A deletion the controller carried out.
#[derive(Debug, Clone, PartialEq)]
pub struct Eviction {
    /// The pod.
    pub pod: PodId,
    /// When.
    pub at: Millis,
    /// The work that fired.
    pub work: Work,
}

/// What the controller last saw of a bound pod (what upstream's `PodUpdated` compares).
#[derive(Debug, Clone)]
struct SeenPod {
    node: String,
    tolerations: Vec<Toleration>,
}

/// The taint-eviction controller: a queue of timed deletions plus what it last saw of nodes
/// and pods.
#[derive(Debug, Clone, Default)]
pub struct TaintEvictionController {
    /// Feature gates (`TaintTolerationComparisonOperators` decides `Gt`/`Lt` matching).
    pub gates: FeatureGates,
    /// Queued deletions per pod (upstream `taintEvictionQueue`).
    work: BTreeMap<PodId, Work>,
    /// Every node seen, by name, with its `NoExecute` taints; upstream's `taintedNodes` is the
    /// non-empty entries.
    nodes: BTreeMap<String, Vec<Taint>>,
    /// Every bound pod seen, indexed by pod id.
    pods: Vec<Option<SeenPod>>,
    /// Deletions carried out, in order.
    evictions: Vec<Eviction>,
}

impl TaintEvictionController {
    /// A controller that has seen nothing yet.
    pub fn new(gates: FeatureGates) -> Self {
        TaintEvictionController {
            gates,
            ..Default::default()
        }
    }

    /// Queued deletions as `(pod, fire_at)`, by fire time, then pod id.
    pub fn queued(&self) -> Vec<(PodId, Millis)> {
        let mut out: Vec<_> = self.work.iter().map(|(p, w)| (*p, w.fire_at)).collect();
        out.sort_by_key(|(p, at)| (*at, *p));
        out
    }

    /// The queued deletion of `pod`, if any.
    pub fn work(&self, pod: PodId) -> Option<&Work> {
        self.work.get(&pod)
    }

    /// Deletions carried out so far, in the order they happened.
    pub fn evictions(&self) -> &[Eviction] {
        &self.evictions
    }

    /// The `NoExecute` taints known for `node` (upstream `taintedNodes[node]`).
    fn tainted(&self, node: &str) -> Option<&Vec<Taint>> {
        self.nodes.get(node).filter(|t| !t.is_empty())
    }

    /// Upstream `TimedWorkerQueue.AddWork`: an existing item for the pod is kept as it is.
    fn add_work(&mut self, pod: PodId, work: Work) {
        self.work.entry(pod).or_insert(work);
    }

    /// Upstream `cancelWorkWithEvent` over `TimedWorkerQueue.CancelWork`:
    ///
    /// 1. Queued timed work is removed, and a Normal `TaintManagerEviction` "Cancelling deletion
    ///    of Pod ns/name" event is recorded.
    /// 2. Work already running (queued with no delay) is not stopped and records no event.
    /// 3. No work: nothing.
    fn cancel_work_with_event(
        &mut self,
        now: Millis,
        cluster: &Cluster,
        pod: PodId,
        node: &str,
        events: &mut Vec<Event>,
    ) {
        if self.work.get(&pod).is_none_or(|w| w.running()) {
            return;
        }
        self.work.remove(&pod);
        if let Some(info) = cluster.pods.get(pod) {
            events.push(Event::normal(
                now,
                REASON_TAINT_MANAGER_EVICTION,
                pod_object(&info.namespace, &info.name),
                Some(node.to_string()),
                cancelling_deletion_message(&info.namespace, &info.name),
            ));
        }
    }

    /// Upstream `processPodOnNode` (v1.35):
    ///
    /// 1. No taints: cancel queued work (with event).
    /// 2. `GetMatchingTolerations`; a taint left untolerated: cancel queued work (with event)
    ///    and queue deletion now.
    /// 3. `getMinTolerationTime` over the used tolerations; forever: cancel (with event).
    /// 4. Otherwise, work already queued for the pod is kept unchanged, its deadline included.
    ///    Upstream keeps it when `createdAt + min` is before `now + min`, which holds for every
    ///    later update on a real clock (a simulated update at the very instant the work was
    ///    queued is taken as later, not as upstream's cancel-and-requeue).
    /// 5. Else queue deletion at `now + min`.
    #[allow(clippy::too_many_arguments)]
    fn process_pod_on_node(
        &mut self,
        now: Millis,
        cluster: &Cluster,
        pod: PodId,
        node: &str,
        tolerations: &[Toleration],
        taints: &[Taint],
        events: &mut Vec<Event>,
    ) {
        if taints.is_empty() {
            self.cancel_work_with_event(now, cluster, pod, node, events);
        }
        let Some(used) = get_matching_tolerations(taints, tolerations, &self.gates) else {
            self.cancel_work_with_event(now, cluster, pod, node, events);
            let taint = taints
                .iter()
                .find(|t| !tolerations.iter().any(|tol| tolerates(tol, t, &self.gates)))
                .or(taints.first())
                .cloned()
                .unwrap_or_default();
            let cause = Cause::Untolerated {
                node: node.to_string(),
                taint,
            };
            self.add_work(
                pod,
                Work {
                    created_at: now,
                    fire_at: now,
                    cause,
                },
            );
            return;
        };
        let Some(min) = get_min_toleration_time(&used) else {
            self.cancel_work_with_event(now, cluster, pod, node, events);
            return;
        };
        if self.work.contains_key(&pod) {
            return;
        }
        let (taint, seconds) = taints
            .iter()
            .zip(&used)
            .filter_map(|(t, u)| u.toleration_seconds.map(|s| (t, s)))
            .min_by_key(|(_, s)| *s)
            .map(|(t, s)| (t.clone(), s))
            .unwrap_or_default();
        let cause = Cause::Expired {
            node: node.to_string(),
            taint,
            seconds,
        };
        self.add_work(
            pod,
            Work {
                created_at: now,
                fire_at: now.saturating_add(min),
                cause,
            },
        );
    }

    /// Upstream `handleNodeUpdate` (v1.35) for a node that exists:
    ///
    /// 1. Record its `NoExecute` taints (none: forget the node's taints).
    /// 2. No pods on it: done.
    /// 3. No `NoExecute` taints: cancel every pod's queued work (with event).
    /// 4. Otherwise `processPodOnNode` for each pod, all at the same `now`.
    fn handle_node_update(
        &mut self,
        now: Millis,
        cluster: &Cluster,
        node: usize,
        taints: Vec<Taint>,
        events: &mut Vec<Event>,
    ) {
        let Some(info) = cluster.nodes.get(node) else {
            return;
        };
        self.nodes.insert(info.name.clone(), taints.clone());
        let mut pods = cluster.pods_on_node(node);
        pods.sort_unstable();
        for pod in pods {
            if taints.is_empty() {
                self.cancel_work_with_event(now, cluster, pod, &info.name, events);
            } else if let Some(p) = cluster.pods.get(pod) {
                let tolerations = p.tolerations();
                self.process_pod_on_node(
                    now,
                    cluster,
                    pod,
                    &info.name,
                    tolerations,
                    &taints,
                    events,
                );
            }
        }
    }

    /// Upstream `NodeUpdated` + `handleNodeUpdate`: nodes added, nodes whose `NoExecute` taints
    /// changed (semantic deep-equal, `timeAdded` included), in node order; then nodes gone, whose
    /// taints are forgotten (upstream cancels nothing for them: their pods' deletion does).
    fn observe_nodes(&mut self, now: Millis, cluster: &Cluster, events: &mut Vec<Event>) {
        for (id, info) in cluster.nodes.iter().enumerate() {
            let no_execute = info.taints.iter().filter(|t| t.effect == NO_EXECUTE);
            if self
                .nodes
                .get(&info.name)
                .is_some_and(|old| old.iter().eq(no_execute))
            {
                continue;
            }
            let taints = get_no_execute_taints(&info.taints);
            self.handle_node_update(now, cluster, id, taints, events);
        }
        let present: BTreeSet<&str> = cluster.nodes.iter().map(|n| n.name.as_str()).collect();
        self.nodes.retain(|name, _| present.contains(name.as_str()));
    }

    /// Upstream `PodUpdated` + `handlePodUpdate` (v1.35), in pod id order:
    ///
    /// 1. A pod seen bound that is now deleted or unbound (`nodeName` cannot change upstream, so
    ///    unbinding is a deletion here): cancel its queued work (with event).
    /// 2. A bound pod not seen before, or whose tolerations or node changed: if its node has
    ///    known `NoExecute` taints, `processPodOnNode`.
    /// 3. Unbound pods are ignored; unchanged pods are not looked at again.
    fn observe_pods(&mut self, now: Millis, cluster: &Cluster, events: &mut Vec<Event>) {
        for (id, info) in cluster.pods.iter().enumerate() {
            // Already being deleted (on a node whose kubelet is down): nothing left to do, and
            // upstream's pod handler sees no toleration or node change in it.
            if info.terminating {
                continue;
            }
            let node = (!info.deleted)
                .then_some(info.node)
                .flatten()
                .and_then(|n| cluster.nodes.get(n))
                .map(|n| n.name.as_str());
            let Some(node) = node else {
                if let Some(seen) = self.pods.get_mut(id).and_then(Option::take) {
                    self.cancel_work_with_event(now, cluster, id, &seen.node, events);
                    // A pod already gone cannot be deleted again, even by work already running.
                    self.work.remove(&id);
                }
                continue;
            };
            let tolerations = info.tolerations();
            if let Some(Some(seen)) = self.pods.get(id)
                && seen.node == node
                && seen.tolerations == tolerations
            {
                continue;
            }
            if self.pods.len() <= id {
                self.pods.resize(id + 1, None);
            }
            self.pods[id] = Some(SeenPod {
                node: node.to_string(),
                tolerations: tolerations.to_vec(),
            });
            if let Some(taints) = self.tainted(node).cloned() {
                self.process_pod_on_node(now, cluster, id, node, tolerations, &taints, events);
            }
        }
    }

    /// Fires queued work whose deadline passes `due`, by fire time then pod id. Work of a pod
    /// already gone stays queued for [`Self::observe_pods`] to cancel.
    fn fire_due(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
        due: impl Fn(Millis) -> bool,
    ) {
        let mut ready: Vec<(Millis, PodId)> = self
            .work
            .iter()
            .filter(|(_, w)| due(w.fire_at))
            .map(|(p, w)| (w.fire_at, *p))
            .collect();
        ready.sort_unstable();
        for (_, pod) in ready {
            let Some(info) = cluster.pods.get(pod).filter(|p| !p.deleted) else {
                continue;
            };
            let Some(node) = info.node.and_then(|n| cluster.nodes.get(n)) else {
                continue;
            };
            let node = node.name.clone();
            let Some(work) = self.work.remove(&pod) else {
                continue;
            };
            self.delete_pod_handler(now, cluster, pod, node, events);
            if let Some(seen) = self.pods.get_mut(pod) {
                *seen = None;
            }
            self.evictions.push(Eviction { pod, at: now, work });
        }
    }

    /// Upstream `deletePodHandler` + `addConditionAndDeletePod` (v1.35):
    ///
    /// 1. Record a Normal `TaintManagerEviction` "Marking for deletion Pod ns/name" event.
    /// 2. Set the pod's `DisruptionTarget` condition (True, `DeletionByTaintManager`, "Taint
    ///    manager: deleting due to NoExecute taint").
    /// 3. Delete the pod (a plain delete: no PodDisruptionBudget is consulted).
    fn delete_pod_handler(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        pod: PodId,
        node: String,
        events: &mut Vec<Event>,
    ) {
        let Some(info) = cluster.pods.get_mut(pod) else {
            return;
        };
        events.push(Event::normal(
            now,
            REASON_TAINT_MANAGER_EVICTION,
            pod_object(&info.namespace, &info.name),
            Some(node),
            marking_for_deletion_message(&info.namespace, &info.name),
        ));
        update_pod_condition(
            info.status_mut(),
            PodCondition {
                type_: CONDITION_DISRUPTION_TARGET.to_string(),
                status: "True".to_string(),
                reason: Some(REASON_DELETION_BY_TAINT_MANAGER.to_string()),
                message: Some(MESSAGE_DELETION_BY_TAINT_MANAGER.to_string()),
                ..Default::default()
            },
        );
        cluster.touch_pod(pod);
        cluster.delete_pod(pod);
    }
}

/// Upstream `apipod.UpdatePodCondition` (v1.35), without wall-clock timestamps:
///
/// 1. No condition of the type: append it; changed.
/// 2. Otherwise replace it, keeping the old `lastTransitionTime` when the status is the same;
///    changed unless status, reason, message and probe time are all equal.
pub fn update_pod_condition(status: &mut PodStatus, mut condition: PodCondition) -> bool {
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let Some(old) = conditions.iter_mut().find(|c| c.type_ == condition.type_) else {
        conditions.push(condition);
        return true;
    };
    if condition.status == old.status {
        condition.last_transition_time = old.last_transition_time.clone();
    }
    let equal = condition.status == old.status
        && condition.reason == old.reason
        && condition.message == old.message
        && condition.last_probe_time == old.last_probe_time
        && condition.last_transition_time == old.last_transition_time;
    *old = condition;
    !equal
}

impl Controller for TaintEvictionController {
    fn name(&self) -> &'static str {
        NAME
    }

    /// One pass at `now`:
    ///
    /// 1. Fire work whose deadline passed before `now` (it came before any change seen now).
    /// 2. Node changes (upstream handles node updates before pod updates).
    /// 3. Pod changes.
    /// 4. Fire work due at `now`, including deletions queued "now" in steps 2–3.
    fn reconcile(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        self.fire_due(now, cluster, events, |at| at < now);
        self.observe_nodes(now, cluster, events);
        self.observe_pods(now, cluster, events);
        self.fire_due(now, cluster, events, |at| at <= now);
    }

    /// The earliest queued deadline.
    fn next_wake(&self, _now: Millis, _cluster: &Cluster) -> Option<Millis> {
        self.work.values().map(|w| w.fire_at).min()
    }
}

#[cfg(test)]
mod tests;
