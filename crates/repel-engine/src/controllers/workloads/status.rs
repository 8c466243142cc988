//! Each workload's `status`, as its upstream controller writes it (v1.35), from the pods the
//! view holds: what [`super::WorkloadControllers`] records as [`crate::actions::ObjectWrite`]
//! `Status` when it changed. Fields Go leaves out when zero (`omitempty`) are left out; a pod
//! is ready and available once Running (no `minReadySeconds`). Timestamps (a Job's
//! `startTime`, conditions' times) are left out.

use k8s_openapi::api::apps::v1::{
    DaemonSetStatus, Deployment, DeploymentCondition, DeploymentStatus, ReplicaSetStatus,
    StatefulSetStatus,
};
use k8s_openapi::api::batch::v1::{JobCondition, JobStatus};
use k8s_openapi::api::core::v1::Node;
use repel_core::FeatureGates;
use repel_core::workload::revision::CONTROLLER_REVISION_HASH;
use repel_core::workload::{Workload, controller_pod, node_should_run_daemon_pod};
use serde_json::Value;

use super::deployment::{RsStatus, Strategy, max_unavailable, reason};
use super::rollout::{Rollout, complete, find_new, progressing, set_condition};
use super::{Tracked, WorkloadControllers, owned, owned_including};
use crate::cluster::{Cluster, PodPhase};

fn nz(v: i32) -> Option<i32> {
    (v != 0).then_some(v)
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Upstream `calculateStatus` and `syncRolloutStatus` (v1.35) over the ReplicaSets' fresh
/// statuses: counts, `Available` (at least `replicas − maxUnavailable` available), and
/// `Progressing` (`NewReplicaSetAvailable` once complete, `ReplicaSetUpdated` while pods
/// move). Stored in `r.status`.
pub fn deployment(d: &Deployment, r: &mut Rollout) {
    let rss = &r.replica_sets;
    let available: i32 = rss.iter().map(|x| x.status.available).sum();
    let total: i32 = rss.iter().map(|x| x.replicas).sum();
    let new = find_new(d, r);
    let nz = |v: i32| (v != 0).then_some(v);
    let mut s = DeploymentStatus {
        observed_generation: Some(d.metadata.generation.unwrap_or(1)),
        replicas: nz(rss.iter().map(|x| x.status.replicas).sum()),
        updated_replicas: nz(new.map(|n| rss[n].status.replicas).unwrap_or(0)),
        ready_replicas: nz(rss.iter().map(|x| x.status.ready).sum()),
        available_replicas: nz(available),
        unavailable_replicas: nz((total - available).max(0)),
        ..Default::default()
    };
    let strategy = Strategy::of(d);
    if available >= strategy.replicas - max_unavailable(&strategy) {
        set_condition(
            r,
            "Available",
            "True",
            reason::MINIMUM_REPLICAS_AVAILABLE,
            reason::MINIMUM_AVAILABILITY.into(),
        );
    } else {
        set_condition(
            r,
            "Available",
            "False",
            reason::MINIMUM_REPLICAS_UNAVAILABLE,
            reason::NO_MINIMUM_AVAILABILITY.into(),
        );
    }
    let done = s.replicas == s.updated_replicas
        && progressing(r).is_some_and(|c| c.2 == reason::NEW_REPLICA_SET_AVAILABLE);
    let new_name = new.map(|n| r.replica_sets[n].name.clone());
    if !done {
        let old = &r.status;
        let old_olds = old.replicas.unwrap_or(0) - old.updated_replicas.unwrap_or(0);
        let new_olds = s.replicas.unwrap_or(0) - s.updated_replicas.unwrap_or(0);
        let moved = s.updated_replicas > old.updated_replicas
            || new_olds < old_olds
            || s.ready_replicas.unwrap_or(0) > old.ready_replicas.unwrap_or(0)
            || s.available_replicas.unwrap_or(0) > old.available_replicas.unwrap_or(0);
        let dname = d.metadata.name.as_deref().unwrap_or_default();
        if complete(d, &s) {
            let msg = match &new_name {
                Some(n) => format!("ReplicaSet {n:?} has successfully progressed."),
                None => format!("Deployment {dname:?} has successfully progressed."),
            };
            set_condition(
                r,
                "Progressing",
                "True",
                reason::NEW_REPLICA_SET_AVAILABLE,
                msg,
            );
        } else if moved {
            let msg = match &new_name {
                Some(n) => format!("ReplicaSet {n:?} is progressing."),
                None => format!("Deployment {dname:?} is progressing."),
            };
            r.conditions.retain(|c| c.0 != "Progressing");
            set_condition(r, "Progressing", "True", reason::REPLICA_SET_UPDATED, msg);
        }
    }
    s.conditions = Some(
        r.conditions
            .iter()
            .map(|(t, st, why, msg)| DeploymentCondition {
                type_: Some(t.clone()),
                status: Some(st.clone()),
                reason: Some(why.clone()),
                message: Some(msg.clone()),
                ..Default::default()
            })
            .collect(),
    );
    r.status = s;
}

/// A ReplicaSet's status (upstream `calculateStatus` of the ReplicaSet controller).
pub fn replica_set(s: &RsStatus, generation: i64) -> Value {
    serde_json::to_value(ReplicaSetStatus {
        replicas: s.replicas,
        fully_labeled_replicas: nz(s.fully_labeled),
        ready_replicas: nz(s.ready),
        available_replicas: nz(s.available),
        observed_generation: Some(generation),
        ..Default::default()
    })
    .unwrap_or_default()
}

/// The status of tracked workload `t` other than a Deployment (whose status is the Deployment
/// controller's, [`deployment`]).
pub fn of(t: &Tracked, cluster: &Cluster, gates: &FeatureGates) -> Option<Value> {
    let w = &t.workload;
    let generation = w.metadata().generation.unwrap_or(1);
    let (okind, oname) = (&t.owner.0, &t.owner.1);
    let pods = owned(cluster, w, okind, oname);
    let running = |p: &usize| {
        let i = &cluster.pods[*p];
        i.phase == PodPhase::Running && !i.terminating
    };
    let value = match w {
        Workload::Deployment(_) => return None,
        // A ReplicationController's status has a ReplicaSet's fields (upstream converts it).
        Workload::ReplicaSet(_) | Workload::ReplicationController(_) => {
            let template = w.template().map(|(t, _)| t.clone()).unwrap_or_default();
            let s = super::rollout::replica_set_status(cluster, &template, &pods);
            return Some(replica_set(&s, generation));
        }
        Workload::StatefulSet(_) => {
            let replicas = count(pods.len());
            let ready = count(pods.iter().filter(|p| running(p)).count());
            // Upstream's revisions: the pods of the current and of the update revision, and
            // `collisionCount` 0 (the controller always writes it).
            let revisions = WorkloadControllers::stateful_set_revisions(t, cluster, &pods);
            let (update, current, updated, at_current) = match revisions {
                Some((u, c, n, m)) => (Some(u), Some(c), count(n), count(m)),
                None => (None, None, replicas, replicas),
            };
            serde_json::to_value(StatefulSetStatus {
                replicas,
                ready_replicas: nz(ready),
                current_replicas: nz(at_current),
                updated_replicas: nz(updated),
                available_replicas: Some(ready),
                observed_generation: Some(generation),
                current_revision: current,
                update_revision: update,
                collision_count: Some(0),
                ..Default::default()
            })
        }
        Workload::DaemonSet(_) => {
            let template = controller_pod(w, String::new(), "DaemonSet", oname, None)?;
            let spec = template.spec.unwrap_or_default();
            let (mut desired, mut current, mut mis, mut ready, mut updated) = (0, 0, 0, 0, 0);
            // The DaemonSet's pods by the node they are bound to and the node they are pinned
            // to (once: a pass over every node for every pod grew with nodes × pods).
            let mut by_node: std::collections::HashMap<String, Vec<&usize>> =
                std::collections::HashMap::new();
            for p in &pods {
                let info = &cluster.pods[*p];
                let bound = info
                    .node
                    .and_then(|x| cluster.nodes.get(x))
                    .map(|x| x.name.clone());
                let pinned = repel_core::workload::claim::pinned_node(info.spec());
                if let Some(b) = &bound {
                    by_node.entry(b.clone()).or_default().push(p);
                }
                if let Some(pn) = pinned
                    && bound.as_ref() != Some(&pn)
                {
                    by_node.entry(pn).or_default().push(p);
                }
            }
            for n in &cluster.nodes {
                let node: &Node = &n.node;
                let (should_run, _) = node_should_run_daemon_pod(&spec, node, gates);
                let on: &[&usize] = by_node.get(&n.name).map_or(&[], Vec::as_slice);
                desired += i32::from(should_run);
                if !on.is_empty() {
                    if should_run {
                        current += 1;
                        ready += i32::from(on.iter().any(|p| running(p)));
                        // A node whose pod is of an earlier template is not updated yet.
                        updated += i32::from(on.iter().any(|p| {
                            !cluster.pods[**p]
                                .labels()
                                .get(CONTROLLER_REVISION_HASH)
                                .is_some_and(|h| t.old_hashes.contains(h))
                        }));
                    } else {
                        mis += 1;
                    }
                }
            }
            serde_json::to_value(DaemonSetStatus {
                current_number_scheduled: current,
                desired_number_scheduled: desired,
                number_misscheduled: mis,
                number_ready: ready,
                number_available: nz(ready),
                number_unavailable: nz(desired - ready),
                updated_number_scheduled: nz(updated),
                observed_generation: Some(generation),
                ..Default::default()
            })
        }
        Workload::Job(_) | Workload::CronJob(_) => {
            let all = owned_including(cluster, w, okind, oname, true);
            let phase = |ph: PodPhase| all.iter().filter(|p| cluster.pods[**p].phase == ph).count();
            let failed = all
                .iter()
                .filter(|p| {
                    let p = &cluster.pods[**p];
                    p.phase == PodPhase::Failed || (p.deleted && p.phase != PodPhase::Succeeded)
                })
                .count();
            let active = pods
                .iter()
                .filter(|p| super::is_active(cluster, **p))
                .count();
            let ready = pods.iter().filter(|p| running(p)).count();
            // v1.32's job controller (JobPodReplacementPolicy on) first records the interim
            // condition, `SuccessCriteriaMet` or `FailureTarget`, then the terminal one with
            // the same reason and message, both kept.
            let condition = |type_: &str, reason: &str, message: &str| JobCondition {
                type_: type_.into(),
                status: "True".into(),
                reason: Some(reason.into()),
                message: Some(message.into()),
                ..Default::default()
            };
            let mut conditions = Vec::new();
            if t.complete {
                const REACHED: &str = "Reached expected number of succeeded pods";
                conditions.push(condition(
                    "SuccessCriteriaMet",
                    "CompletionsReached",
                    REACHED,
                ));
                conditions.push(condition("Complete", "CompletionsReached", REACHED));
            } else if t.exhausted {
                const LIMIT: &str = "Job has reached the specified backoff limit";
                conditions.push(condition("FailureTarget", "BackoffLimitExceeded", LIMIT));
                conditions.push(condition("Failed", "BackoffLimitExceeded", LIMIT));
            }
            serde_json::to_value(JobStatus {
                active: nz(count(active)),
                succeeded: nz(count(phase(PodPhase::Succeeded))),
                failed: nz(count(failed)),
                ready: Some(count(ready)),
                conditions: (!conditions.is_empty()).then_some(conditions),
                ..Default::default()
            })
        }
    };
    value.ok()
}
