//! Which pods a workload owns (by controller reference, by ordinal) and how the controllers
//! create them (after upstream `pkg/controller/controller_utils.go` `PodControlInterface` and
//! `pkg/controller/statefulset/stateful_set_control.go`, v1.35).

use super::*;

/// A Job's (or a CronJob's job template's) `parallelism` (default 1) and `completions`.
pub(super) fn job_parallelism_completions(w: &Workload) -> (usize, Option<usize>) {
    let spec = match w {
        Workload::Job(j) => j.spec.as_ref(),
        Workload::CronJob(c) => c.spec.job_template.spec.as_ref(),
        _ => None,
    };
    let n = |v: Option<i32>| v.map(|v| usize::try_from(v).unwrap_or(0));
    (
        n(spec.and_then(|s| s.parallelism)).unwrap_or(1),
        n(spec.and_then(|s| s.completions)),
    )
}

/// The controller kind and name that own the workload's pods.
pub(super) fn owner(w: &Workload) -> (String, String) {
    match w {
        Workload::Deployment(_) => {
            let hash = w
                .template()
                .map(|(t, _)| pod_template_hash(t))
                .unwrap_or_default();
            ("ReplicaSet".into(), format!("{}-{hash}", w.name()))
        }
        Workload::CronJob(_) | Workload::Job(_) => ("Job".into(), w.name().to_string()),
        other => (other.kind().to_string(), other.name().to_string()),
    }
}

/// Live (not deleted) pods owned by the workload.
/// A StatefulSet's owned pods by ordinal (`<name>-<ordinal>`; other names are left out).
pub(super) fn by_ordinal(
    cluster: &Cluster,
    w: &Workload,
    kind: &str,
    name: &str,
) -> BTreeMap<usize, PodId> {
    let prefix = format!("{name}-");
    owned(cluster, w, kind, name)
        .into_iter()
        .filter_map(|id| {
            let ordinal = cluster.pods[id]
                .name
                .strip_prefix(&prefix)?
                .parse::<usize>()
                .ok()?;
            Some((ordinal, id))
        })
        .collect()
}

pub(super) fn owned(cluster: &Cluster, w: &Workload, kind: &str, name: &str) -> Vec<PodId> {
    owned_including(cluster, w, kind, name, false)
}

/// The workload's pods, deleted ones too when `deleted`: from the cluster's owner index (this
/// runs on every settling pass); a CronJob's, owned by its Jobs, by comparing each pod's
/// controller ownerReference in place.
pub(super) fn owned_including(
    cluster: &Cluster,
    w: &Workload,
    kind: &str,
    name: &str,
    deleted: bool,
) -> Vec<PodId> {
    let cronjob = matches!(w, Workload::CronJob(_));
    let prefix = w.name();
    let ns = w.namespace();
    if !cronjob {
        return cluster
            .pods_owned_by(ns, kind, name)
            .iter()
            .copied()
            .filter(|p| deleted || !cluster.pods[*p].deleted)
            .collect();
    }
    (0..cluster.pods.len())
        .filter(|i| {
            let p = &cluster.pods[*i];
            if (p.deleted && !deleted) || p.namespace != ns {
                return false;
            }
            let Some(owner) = p
                .meta
                .owner_references
                .as_ref()
                .and_then(|o| o.iter().find(|o| o.controller == Some(true)))
            else {
                return false;
            };
            owner.kind == "Job"
                && owner
                    .name
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('-'))
        })
        .collect()
}

pub(super) fn is_active(cluster: &Cluster, id: PodId) -> bool {
    let p = &cluster.pods[id];
    !p.terminating && !matches!(p.phase, PodPhase::Failed | PodPhase::Succeeded)
}

impl WorkloadControllers {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn create(
        &self,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
        now: Millis,
        w: &Workload,
        object: &str,
        pod: Option<k8s_openapi::api::core::v1::Pod>,
        message: String,
    ) {
        let Some(mut pod) = pod else { return };
        match create_pod(
            &mut pod,
            cluster.namespace(w.namespace()),
            &self.admission,
            &self.gates,
        ) {
            Ok(()) => {
                let id = cluster.add_pod(pod);
                // Created now, on the cluster's clock (the API server sets
                // `creationTimestamp` on create).
                cluster.pods[id].created = Some(now);
                events.push(Event::normal(
                    now,
                    SUCCESSFUL_CREATE,
                    object.to_string(),
                    None,
                    message,
                ));
            }
            Err(e) => events.push(Event::warning(
                now,
                "FailedCreate",
                object.to_string(),
                None,
                format!("Error creating: {e}"),
            )),
        }
    }

    /// A StatefulSet's ordinals (upstream `updateStatefulSet`): ordinals below `replicas`
    /// are created in order, those at or above it (condemned) deleted from the highest. Under
    /// `OrderedReady` (the default, upstream's monotonic mode) one pod at a time: a pod is
    /// created only once every lower ordinal is Running and Ready, nothing is deleted while a
    /// replica is not, and a condemned pod only once the one above it is gone; under
    /// `Parallel`, all at once. A terminating pod keeps its name taken. Returns whether it went
    /// through every ordinal (under `OrderedReady`: every replica is Running and Ready).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reconcile_ordinals(
        &mut self,
        w: &Workload,
        okind: &str,
        oname: &str,
        object: &str,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) -> bool {
        let Workload::StatefulSet(set) = w else {
            return false;
        };
        let monotonic = set.spec.pod_management_policy.as_deref() != Some("Parallel");
        let by_ordinal = by_ordinal(cluster, w, okind, oname);
        let healthy = |c: &Cluster, id: PodId| {
            let p = &c.pods[id];
            p.phase == PodPhase::Running && !p.terminating && p.condition("Ready") != Some("False")
        };
        let replicas = w.pod_count();
        for ordinal in 0..replicas {
            match by_ordinal.get(&ordinal) {
                Some(id) => {
                    if monotonic && !healthy(cluster, *id) {
                        return false;
                    }
                }
                None => {
                    let name = format!("{oname}-{ordinal}");
                    let pod = controller_pod(w, name.clone(), okind, oname, None);
                    self.create(
                        cluster,
                        events,
                        now,
                        w,
                        object,
                        pod,
                        format!("create Pod {name} in StatefulSet {oname} successful"),
                    );
                    if monotonic {
                        return false;
                    }
                }
            }
        }
        for (_, id) in by_ordinal.range(replicas..).rev() {
            if cluster.pods[*id].terminating {
                if monotonic {
                    return false;
                }
                continue;
            }
            let name = cluster.pods[*id].name.clone();
            cluster.delete_pod(*id);
            events.push(Event::normal(
                now,
                SUCCESSFUL_DELETE,
                object.to_string(),
                None,
                format!("delete Pod {name} in StatefulSet {oname} successful"),
            ));
            if monotonic {
                return false;
            }
        }
        true
    }
}
