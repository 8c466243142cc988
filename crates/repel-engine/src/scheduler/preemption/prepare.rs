//! Upstream `Evaluator.prepareCandidate` and `PreemptPod` (v1.35,
//! `pkg/scheduler/framework/preemption/preemption.go`): what the scheduler does once it has
//! chosen a node to preempt on, in the over-time drivers (a one-shot batch removes the victims
//! at once instead: see [`crate::scheduler::Scheduler::graceful_preemption`]).

use crate::clock::Millis;
use crate::cluster::{Cluster, NodeId, PodId};
use crate::control_plane::DEFAULT_SCHEDULER;
use crate::controllers::taint_eviction::{CONDITION_DISRUPTION_TARGET, update_pod_condition};
use crate::events::{Event, pod_object};
use k8s_openapi::api::core::v1::PodCondition;

use super::REASON_PREEMPTION_BY_SCHEDULER;

/// The victim's event reason (upstream `"Preempted"`, action `"Preempting"`).
pub const REASON_PREEMPTED: &str = "Preempted";
/// What follows the preemptor's scheduler name in the victim's `DisruptionTarget` message
/// (upstream `"%s: preempting to accommodate a higher priority pod"`).
pub const PREEMPTING_MESSAGE_SUFFIX: &str = ": preempting to accommodate a higher priority pod";
/// The API server's default `spec.terminationGracePeriodSeconds`
/// (`DefaultTerminationGracePeriodSeconds`).
pub const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS: i64 = 30;

/// The `Preempted` event's message (upstream `"Preempted by pod %v on node %v"` with the
/// preemptor's UID): `preemptor` is its `metadata.uid`, or, for a pod that has none (a
/// simulation's pods are not stored by an API server), its `namespace/name`.
pub fn preempted_message(preemptor: &str, node: &str) -> String {
    format!("Preempted by pod {preemptor} on node {node}")
}

/// Upstream `Evaluator.prepareCandidate` with the default `PreemptPod` (v1.35), at `now`:
///
/// 1. Each victim already being deleted (`deletionTimestamp` set) is skipped: "graceful pod
///    deletion has already started".
/// 2. Every other victim gets the condition `DisruptionTarget=True`, reason
///    `PreemptionByScheduler`, message `<preemptor's schedulerName>: preempting to accommodate a
///    higher priority pod`; is deleted with its own grace period
///    (`spec.terminationGracePeriodSeconds`, the API server's default 30 s when unset:
///    [`Cluster::delete_pod_gracefully`]); and gets the `Preempted` event
///    ([`preempted_message`]) about the node.
/// 3. Pods of lower priority than the preemptor nominated for the node lose their nomination
///    (`getLowerPriorityNominatedPods`, `clearNominatedNodeName`): they may no longer fit there.
///
/// Upstream deletes the victims on 16 goroutines (and, with async preemption, after the
/// cycle); here in the victims' order, most important first.
pub fn prepare_candidate(
    cluster: &mut Cluster,
    now: Millis,
    preemptor: PodId,
    node: NodeId,
    victims: &[PodId],
    events: &mut Vec<Event>,
) {
    let Some(p) = cluster.pods.get(preemptor) else {
        return;
    };
    let priority = p.priority;
    let who = p
        .meta
        .uid
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| p.key());
    let scheduler = p
        .spec()
        .scheduler_name
        .clone()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| DEFAULT_SCHEDULER.to_string());
    let node_name = cluster
        .nodes
        .get(node)
        .map(|n| n.name.clone())
        .unwrap_or_default();
    for &v in victims {
        let Some(victim) = cluster.pods.get_mut(v) else {
            continue;
        };
        if victim.deleted || victim.meta.deletion_timestamp.is_some() {
            continue;
        }
        let grace = victim
            .spec()
            .termination_grace_period_seconds
            .unwrap_or(DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
        update_pod_condition(
            victim.status_mut(),
            PodCondition {
                type_: CONDITION_DISRUPTION_TARGET.to_string(),
                status: "True".to_string(),
                reason: Some(REASON_PREEMPTION_BY_SCHEDULER.to_string()),
                message: Some(format!("{scheduler}{PREEMPTING_MESSAGE_SUFFIX}")),
                ..Default::default()
            },
        );
        let object = pod_object(&victim.namespace, &victim.name);
        cluster.touch_pod(v);
        cluster.delete_pod_gracefully(v, now, grace);
        events.push(Event::normal(
            now,
            REASON_PREEMPTED,
            object,
            Some(node_name.clone()),
            preempted_message(&who, &node_name),
        ));
    }
    for other in cluster.nominated_pods(node) {
        if cluster
            .pods
            .get(other)
            .is_some_and(|o| o.priority < priority)
        {
            cluster.set_nominated(other, None);
        }
    }
}
