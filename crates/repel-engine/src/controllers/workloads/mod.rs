//! The workload controllers that bring back what was deleted (upstream ReplicaSet, Deployment,
//! StatefulSet, DaemonSet and Job controllers, v1.35), reduced to what taints make them do:
//! count a workload's live pods, create the missing ones (which go through admission and the
//! scheduler again), and for a DaemonSet follow the nodes it should run on.
//!
//! A ReplicaSet with more active pods than replicas deletes the excess in upstream's order
//! (`replica_set`'s `pods_to_delete`), with `SuccessfulDelete` "Deleted pod: NAME". A
//! StatefulSet creates its ordinals in order and deletes those at or above `replicas` from the
//! highest, one at a time behind a pod that is not Running and Ready under `OrderedReady`
//! (the default), all at once under `Parallel`. A DaemonSet and a StatefulSet keep a
//! ControllerRevision per template ([`history`]); a StatefulSet's new template rolls from the
//! highest ordinal down to `partition`, one pod at a time (`stateful_set`).
//!
//! A Deployment keeps ReplicaSets, one per pod template it has had (`NAME-<pod-template-hash>`,
//! revisions in `deployment.kubernetes.io/revision`), and rolls out a changed template as
//! upstream's Deployment controller does ([`deployment`] decides, [`rollout`] applies): a
//! rolling update within `maxSurge`/`maxUnavailable` (default 25% each) or Recreate, each
//! scaling a `ScalingReplicaSet` event on the Deployment; a template equal to an old
//! ReplicaSet's (a rollback) makes that one new again with the next revision; old ReplicaSets
//! at 0 beyond `revisionHistoryLimit` (default 10) are deleted. Each ReplicaSet's pods are
//! reconciled as a standalone ReplicaSet's. A Deployment given with its pods (an export, a
//! scenario's objects) takes the ReplicaSet they belong to as its new one, so a Deployment that
//! never changes makes the same pods, with the same names, as before.
//!
//! When recording ([`WorkloadControllers::record`]) the controllers also return their writes to
//! workload objects ([`ObjectWrite`]): a Deployment's ReplicaSets created, scaled, annotated and
//! deleted, its revision, and every workload's `status` when it changed (the `status`
//! module's fields, as `kubectl rollout status` and `kubectl get` read them).
//!
//! Simplifications, each as upstream where it matters for taints: a pod is available once it
//! runs (`minReadySeconds` is taken as 0), `progressDeadlineSeconds` never times out, no
//! backoff delays (a replacement is created at once). Jobs (NonIndexed) keep `parallelism` pods
//! active until `completions` pods succeeded (a pod succeeds after the run time its
//! `repel.dev/run-seconds` annotation gives, see [`crate::controllers::kubelet`]; without it,
//! it runs until deleted), then record `Completed` "Job completed"; they stop being replaced
//! after `backoffLimit` (default 6) failed pods.
//!
//! # Layout
//! - [`deployment`]: the Deployment controller's decisions, ported from upstream.
//! - [`rollout`]: a Deployment's ReplicaSets on the cluster, one sync at a time.
//! - `replica_set`: a ReplicaSet's pods (upstream `manageReplicas`).
//! - [`scale_down`]: which of them go first when there are too many (upstream
//!   `getPodsToDelete`, `ActivePodsWithRanks`).
//! - `status`: each workload's status (a Deployment's too).
//! - [`history`]: a DaemonSet's or StatefulSet's ControllerRevisions.
//! - `stateful_set`: revisions made, read back and truncated; a StatefulSet's rolling update.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::Node;
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, create_pod};
use repel_core::workload::{
    NameRng, Workload, controller_of, controller_pod, node_should_run_daemon_pod, pod_template_hash,
};

mod daemon_set;
pub mod deployment;
pub mod history;
mod pods;
use pods::*;
mod replica_set;
pub mod rollout;
pub mod scale_down;
mod stateful_set;
mod status;
#[cfg(test)]
mod tests;

pub use replica_set::BURST_REPLICAS;
use rollout::Rollout;
pub use scale_down::POD_DELETION_COST;

use crate::actions::ObjectWrite;
use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodPhase};
use crate::controllers::Controller;
use crate::events::Event;

/// Upstream's event reason for a created pod.
pub const SUCCESSFUL_CREATE: &str = "SuccessfulCreate";
/// Upstream's event reason for a deleted pod.
pub const SUCCESSFUL_DELETE: &str = "SuccessfulDelete";
/// A Job's default `backoffLimit` (the claim rules' own).
pub use repel_core::workload::claim::DEFAULT_BACKOFF_LIMIT;

/// One workload and its name generator.
#[derive(Debug, Clone)]
struct Tracked {
    workload: Workload,
    rng: NameRng,
    /// A Job past its backoffLimit: no more pods.
    exhausted: bool,
    /// A Job whose completions are reached: no more pods.
    complete: bool,
    /// The controller kind and name its pods name (a Deployment's: its new ReplicaSet).
    owner: (String, String),
    /// A Deployment's ReplicaSets.
    rollout: Option<Rollout>,
    /// The status last written (when recording), for workloads other than Deployments.
    written: Option<serde_json::Value>,
    /// A DaemonSet's earlier templates' hashes: its pods labelled with one of them are rolled
    /// (a pod with a hash this controller never made — an exported cluster's — is left).
    old_hashes: BTreeSet<String>,
    /// A DaemonSet's or StatefulSet's ControllerRevisions.
    history: history::History,
    /// A StatefulSet's update revision (its current template's) and current revision (the
    /// one its pods had before the rolling update under way; the update revision once done).
    revisions: Option<(String, String)>,
}

/// The workload controllers.
#[derive(Debug)]
pub struct WorkloadControllers {
    tracked: Vec<Tracked>,
    gates: FeatureGates,
    admission: AdmissionConfig,
    seed: u64,
    /// The object writes since the driver last took them, when recording.
    writes: Option<Vec<ObjectWrite>>,
}

impl WorkloadControllers {
    /// Controllers for no workload yet.
    pub fn new(gates: FeatureGates, admission: AdmissionConfig, seed: u64) -> Self {
        WorkloadControllers {
            tracked: Vec::new(),
            gates,
            admission,
            seed,
            writes: None,
        }
    }

    /// The admission configuration the pods they create go through (a server's stored
    /// PriorityClasses change while it runs: `serve` hands them in when they do).
    pub fn set_admission(&mut self, admission: AdmissionConfig) {
        self.admission = admission;
    }

    /// Starts (or stops) recording the controllers' writes to workload objects (a Deployment's
    /// ReplicaSets, every workload's status) for a driver that keeps them elsewhere (`serve`'s
    /// store). Off by default.
    pub fn record(&mut self, on: bool) {
        self.writes = on.then(|| self.writes.take().unwrap_or_default());
    }

    /// The object writes recorded since the last call, in the order they were made.
    pub fn take_writes(&mut self) -> Vec<ObjectWrite> {
        self.writes.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Records `write` when recording.
    fn note(&mut self, write: impl FnOnce() -> ObjectWrite) {
        if let Some(w) = self.writes.as_mut() {
            w.push(write());
        }
    }

    /// A name for a new pod of tracked workload `i`: `PREFIX-xxxxx` from its name stream, one no
    /// live pod of its namespace has. (Upstream's API server refuses a generated name already
    /// taken, and the controller tries again with another; with 5 characters that happens
    /// about once per 3,000 pods of one ReplicaSet.)
    fn free_name(&mut self, i: usize, cluster: &Cluster, prefix: &str) -> String {
        let ns = self.tracked[i].workload.namespace().to_string();
        let mut name = format!("{prefix}-{}", self.tracked[i].rng.suffix(5));
        for _ in 0..64 {
            if cluster.pod_id(&ns, &name).is_none() {
                break;
            }
            name = format!("{prefix}-{}", self.tracked[i].rng.suffix(5));
        }
        name
    }

    /// Whether the workload `kind`/`namespace`/`name` is managed.
    pub fn manages(&self, kind: &str, namespace: &str, name: &str) -> bool {
        self.tracked.iter().any(|t| {
            t.workload.kind() == kind
                && t.workload.namespace() == namespace
                && t.workload.name() == name
        })
    }

    /// Every managed workload as (kind, namespace, name).
    pub fn objects(&self) -> impl Iterator<Item = (String, String, String)> + '_ {
        self.tracked.iter().map(|t| {
            (
                t.workload.kind().to_string(),
                t.workload.namespace().to_string(),
                t.workload.name().to_string(),
            )
        })
    }

    /// Every managed DaemonSet's pod template spec (what Karpenter counts as its NodePools'
    /// DaemonSet overhead).
    pub fn daemon_set_specs(&self) -> Vec<k8s_openapi::api::core::v1::PodSpec> {
        self.tracked
            .iter()
            .filter(|t| matches!(t.workload, Workload::DaemonSet(_)))
            .filter_map(|t| t.workload.template().and_then(|(tpl, _)| tpl.spec.clone()))
            .collect()
    }

    /// The managed workload `kind`/`namespace`/`name`, as last given.
    pub fn get(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.tracked
            .iter()
            .find(|t| {
                t.workload.kind() == kind
                    && t.workload.namespace() == namespace
                    && t.workload.name() == name
            })
            .map(|t| &t.workload)
    }

    /// `kubectl scale`: sets the managed Deployment's, ReplicaSet's, StatefulSet's or
    /// ReplicationController's
    /// `spec.replicas` (through its scale subresource upstream; the generation moves on, as
    /// for any spec change) and, when recording, writes it; returns the count it had, or
    /// `None` when no such workload is managed.
    pub fn scale(&mut self, kind: &str, namespace: &str, name: &str, replicas: i32) -> Option<i32> {
        let mut w = self.get(kind, namespace, name)?.clone();
        let (was, resource) = match &mut w {
            Workload::Deployment(d) => (d.spec.replicas.replace(replicas), "deployments"),
            Workload::ReplicaSet(r) => (r.spec.replicas.replace(replicas), "replicasets"),
            Workload::StatefulSet(s) => (s.spec.replicas.replace(replicas), "statefulsets"),
            Workload::ReplicationController(r) => (
                r.spec
                    .get_or_insert_with(Default::default)
                    .replicas
                    .replace(replicas),
                "replicationcontrollers",
            ),
            _ => return None,
        };
        let was = was.unwrap_or(1);
        if was != replicas {
            let meta = match &mut w {
                Workload::Deployment(d) => &mut d.metadata,
                Workload::ReplicaSet(r) => &mut r.metadata,
                Workload::StatefulSet(s) => &mut s.metadata,
                Workload::ReplicationController(r) => &mut r.metadata,
                _ => return None,
            };
            meta.generation = Some(meta.generation.unwrap_or(1) + 1);
            self.replace(w);
            self.note(|| ObjectWrite::Update {
                resource,
                namespace: namespace.to_string(),
                name: name.to_string(),
                replicas: Some(replicas),
                annotations: Default::default(),
            });
        }
        Some(was)
    }

    /// The ReplicaSets of the managed Deployment `namespace`/`name`, in creation order (empty
    /// when it is not managed).
    pub fn replica_sets(&self, namespace: &str, name: &str) -> &[deployment::ReplicaSetState] {
        self.tracked
            .iter()
            .find(|t| {
                matches!(t.workload, Workload::Deployment(_))
                    && t.workload.namespace() == namespace
                    && t.workload.name() == name
            })
            .and_then(|t| t.rollout.as_ref())
            .map(|r| r.replica_sets.as_slice())
            .unwrap_or_default()
    }

    /// A ReplicaSet object seen in the cluster (a driver's store, an input file): when its
    /// controller ownerReference names a managed Deployment, the Deployment takes it as one of
    /// its revisions and `true` is returned (the driver does not manage it as a ReplicaSet of
    /// its own); otherwise `false`.
    pub fn observe_replica_set(&mut self, rs: &k8s_openapi::api::apps::v1::ReplicaSet) -> bool {
        let ns = repel_core::workload::namespace_of(&rs.metadata);
        let controller = controller_of(&rs.metadata);
        let Some((_, name)) = controller.filter(|(kind, _)| kind == "Deployment") else {
            // Orphaned (its Deployment deleted with `--cascade=orphan`) or never a
            // Deployment's: released from any Deployment's revisions, so that deleting that
            // Deployment leaves it; it is managed as a ReplicaSet of its own.
            let rs_name = rs.metadata.name.as_deref().unwrap_or("");
            for t in &mut self.tracked {
                if t.workload.namespace() == ns
                    && let Some(r) = t.rollout.as_mut()
                {
                    r.replica_sets.retain(|x| x.name != rs_name);
                }
            }
            return false;
        };
        let Some(t) = self.tracked.iter_mut().find(|t| {
            matches!(t.workload, Workload::Deployment(_))
                && t.workload.namespace() == ns
                && t.workload.name() == name
        }) else {
            return false;
        };
        let r = t.rollout.get_or_insert_with(Rollout::default);
        r.adopt(rs);
        if let Workload::Deployment(d) = &t.workload
            && let Some(n) = r
                .replica_sets
                .iter()
                .find(|x| deployment::equal_ignore_hash(&x.template, &d.spec.template))
        {
            t.owner = ("ReplicaSet".into(), n.name.clone());
        }
        true
    }

    /// Starts managing a workload (its existing pods are recognised by their ownerReference),
    /// whose pods name the controller [`owner`] computes.
    ///
    /// A Deployment added this way has no ReplicaSet yet (but those
    /// [`WorkloadControllers::observe_replica_set`] gives it): its first sync creates one.
    pub fn add(&mut self, workload: Workload) {
        let (kind, name) = owner(&workload);
        self.add_owned(workload, &kind, &name);
        if let Some(t) = self.tracked.last_mut() {
            t.rollout = t.rollout.take().map(|_| Rollout::default());
        }
    }

    /// Starts managing a workload whose pods name the controller `kind`/`name` (as the claim
    /// found it: a Deployment's ReplicaSet from the input, which the Deployment takes as its
    /// existing new ReplicaSet, scaled to its replicas).
    pub fn add_owned(&mut self, workload: Workload, kind: &str, name: &str) {
        let stream = format!(
            "replacements/{}/{}/{}",
            workload.kind(),
            workload.namespace(),
            workload.name()
        );
        self.tracked.push(Tracked {
            rng: NameRng::new(self.seed, &stream),
            rollout: match &workload {
                Workload::Deployment(d) => Some(Rollout::existing(d, name)),
                _ => None,
            },
            workload,
            exhausted: false,
            complete: false,
            owner: (kind.to_string(), name.to_string()),
            written: None,
            old_hashes: BTreeSet::new(),
            history: history::History::default(),
            revisions: None,
        });
    }

    /// The name of the controller a managed workload's pods name.
    pub fn owner_name(&self, workload: &Workload) -> Option<String> {
        self.tracked
            .iter()
            .find(|t| {
                t.workload.kind() == workload.kind()
                    && t.workload.namespace() == workload.namespace()
                    && t.workload.name() == workload.name()
            })
            .map(|t| t.owner.1.clone())
    }

    /// Replaces a managed workload's object (`kubectl apply` of a changed manifest); returns
    /// whether it was managed. A Deployment with a changed template rolls out to a new
    /// ReplicaSet at its next sync (it keeps the revision annotation the controller set); a
    /// DaemonSet and a StatefulSet roll their pods under `RollingUpdate`; other workloads keep
    /// their pods, and new pods use the new template.
    pub fn replace(&mut self, workload: Workload) -> bool {
        let mut workload = workload;
        let Some(t) = self.tracked.iter_mut().find(|t| {
            t.workload.kind() == workload.kind()
                && t.workload.namespace() == workload.namespace()
                && t.workload.name() == workload.name()
        }) else {
            return false;
        };
        // Pods named after the computed owner (a Deployment's template hash) follow the new
        // template's; an owner found in the input stays.
        if let (Workload::Deployment(old), Workload::Deployment(new)) = (&t.workload, &mut workload)
            && let Some(rev) = old
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(deployment::REVISION_ANNOTATION))
        {
            new.metadata
                .annotations
                .get_or_insert_with(Default::default)
                .entry(deployment::REVISION_ANNOTATION.to_string())
                .or_insert_with(|| rev.clone());
        }
        if let (Workload::DaemonSet(_), Some((old, _)), Some((new, _))) =
            (&t.workload, t.workload.template(), workload.template())
        {
            let (old, new) = (pod_template_hash(old), pod_template_hash(new));
            if old != new {
                t.old_hashes.insert(old);
                t.old_hashes.remove(&new);
            }
        }
        if let Workload::Deployment(d) = &workload {
            // Its pods name the ReplicaSet of its template: an existing one, or the one its
            // next sync creates.
            let existing = t.rollout.as_ref().and_then(|r| {
                r.replica_sets
                    .iter()
                    .find(|x| deployment::equal_ignore_hash(&x.template, &d.spec.template))
            });
            t.owner = match existing {
                Some(x) => ("ReplicaSet".into(), x.name.clone()),
                None => owner(&workload),
            };
        } else if t.owner == owner(&t.workload) {
            t.owner = owner(&workload);
        }
        t.workload = workload;
        true
    }

    /// Stops managing the workload `kind`/`namespace`/`name` (deleted, or being deleted);
    /// returns, when it was managed, the owners that went with it: the workload itself, and
    /// the ReplicaSets a Deployment kept as its revisions (or took from the input) — in
    /// `repel simulate` those exist only inside the Deployment. The garbage collector
    /// ([`crate::controllers::garbage_collector`]) deletes their dependents; this deletes
    /// nothing.
    pub fn remove(
        &mut self,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<Vec<(String, String)>> {
        let i = self.tracked.iter().position(|t| {
            t.workload.kind().eq_ignore_ascii_case(kind)
                && t.workload.namespace() == namespace
                && t.workload.name() == name
        })?;
        let t = self.tracked.remove(i);
        let mut gone = vec![(t.workload.kind().to_string(), t.workload.name().to_string())];
        if let Some(r) = &t.rollout {
            gone.extend(
                r.replica_sets
                    .iter()
                    .map(|x| ("ReplicaSet".to_string(), x.name.clone())),
            );
        }
        if !gone.contains(&t.owner) {
            gone.push(t.owner.clone());
        }
        Some(gone)
    }
}

impl WorkloadControllers {
    /// Workload objects a scenario step deleted (the workload and the ReplicaSets that went
    /// with it, as [`WorkloadControllers::remove`] returned them), written as deletions when
    /// recording: `repel serve --scenario` deletes them from its store, as kubectl's delete and
    /// the garbage collector would.
    pub fn note_deleted(&mut self, namespace: &str, gone: &[(String, String)]) {
        for (kind, name) in gone {
            const WORKLOADS: &[&str] = &[
                "Deployment",
                "ReplicaSet",
                "StatefulSet",
                "DaemonSet",
                "Job",
                "CronJob",
                "ReplicationController",
            ];
            if !WORKLOADS.contains(&kind.as_str()) {
                continue;
            }
            let Some(resource) = repel_core::kinds::by_kind(kind).map(|k| k.plural) else {
                continue;
            };
            self.note(|| ObjectWrite::Delete {
                resource,
                namespace: namespace.to_string(),
                name: name.clone(),
            });
        }
    }
}

impl WorkloadControllers {
    fn reconcile_one(
        &mut self,
        i: usize,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        if matches!(self.tracked[i].workload, Workload::Deployment(_)) {
            self.reconcile_deployment(i, now, cluster, events);
            return;
        }
        let w = self.tracked[i].workload.clone();
        let (okind, oname) = self.tracked[i].owner.clone();
        let object = format!("{okind}/{}/{oname}", w.namespace());
        let pods = owned(cluster, &w, &okind, &oname);
        match &w {
            Workload::Deployment(_) => {}
            Workload::ReplicaSet(_) | Workload::ReplicationController(_) => {
                let want = w.pod_count();
                // Upstream ranks by the pods of every ReplicaSet with the same controller
                // (`getIndirectlyRelatedPods`): a ReplicaSet without one ranks by none. Repel
                // tracks a controlled ReplicaSet's siblings only as a Deployment's (see
                // `rollout`): here, its own pods.
                let related: &[PodId] = if controller_of(w.metadata()).is_some() {
                    &pods
                } else {
                    &[]
                };
                self.reconcile_replicas(
                    i, &w, &oname, &object, &pods, related, want, now, cluster, events,
                );
            }
            Workload::StatefulSet(_) => {
                // Failed pods are deleted and recreated; a terminating one keeps its name taken.
                let finished: Vec<PodId> = pods
                    .iter()
                    .copied()
                    .filter(|p| {
                        let p = &cluster.pods[*p];
                        !p.terminating && matches!(p.phase, PodPhase::Failed | PodPhase::Succeeded)
                    })
                    .collect();
                for p in finished.iter() {
                    let name = cluster.pods[*p].name.clone();
                    cluster.delete_pod(*p);
                    events.push(Event::normal(
                        now,
                        SUCCESSFUL_DELETE,
                        object.clone(),
                        None,
                        format!("delete Pod {name} in StatefulSet {oname} successful"),
                    ));
                }
                let update = self.sync_history(i);
                if self.reconcile_ordinals(&w, &okind, &oname, &object, now, cluster, events)
                    && let Some(update) = &update
                {
                    self.roll_stateful_set(i, &w, update, &object, now, cluster, events);
                }
                self.complete_stateful_set_rollout(i, cluster);
                self.truncate_history(i, update.as_deref(), cluster);
            }
            Workload::DaemonSet(_) => {
                let update = self.sync_history(i);
                self.reconcile_daemonset(i, &w, &oname, &object, now, cluster, events);
                self.truncate_history(i, update.as_deref(), cluster);
            }
            Workload::Job(_) | Workload::CronJob(_) => {
                // Upstream `isPodFailed`: a Failed pod, or one deleted before it succeeded, counts
                // against backoffLimit; past it the Job stops (BackoffLimitExceeded).
                let failed = owned_including(cluster, &w, &okind, &oname, true)
                    .into_iter()
                    .filter(|p| {
                        let p = &cluster.pods[*p];
                        p.phase == PodPhase::Failed || (p.deleted && p.phase != PodPhase::Succeeded)
                    })
                    .count();
                let limit = match &w {
                    Workload::Job(j) => j.spec.as_ref().and_then(|s| s.backoff_limit),
                    Workload::CronJob(c) => c
                        .spec
                        .job_template
                        .spec
                        .as_ref()
                        .and_then(|s| s.backoff_limit),
                    _ => None,
                }
                .unwrap_or(DEFAULT_BACKOFF_LIMIT);
                if failed as i64 > i64::from(limit) {
                    if !self.tracked[i].exhausted {
                        self.tracked[i].exhausted = true;
                        events.push(Event::warning(
                            now,
                            "BackoffLimitExceeded",
                            format!("Job/{}/{oname}", w.namespace()),
                            None,
                            "Job has reached the specified backoff limit".to_string(),
                        ));
                    }
                    return;
                }
                let job_name = pods
                    .first()
                    .and_then(|p| controller_of(&cluster.pods[*p].meta))
                    .map(|(_, n)| n)
                    .unwrap_or(oname.clone());
                let object = format!("Job/{}/{job_name}", w.namespace());
                let active = pods.iter().filter(|p| is_active(cluster, **p)).count();
                if self.tracked[i].complete {
                    return;
                }
                // Upstream's job controller (NonIndexed): succeeded pods count towards
                // `completions`; without `completions` the Job is done when one pod succeeded
                // and none is active (the work-queue pattern).
                let succeeded = owned_including(cluster, &w, &okind, &oname, true)
                    .into_iter()
                    .filter(|p| cluster.pods[*p].phase == PodPhase::Succeeded)
                    .count();
                let (parallelism, completions) = job_parallelism_completions(&w);
                let done = match completions {
                    Some(c) => succeeded >= c,
                    None => succeeded > 0 && active == 0,
                };
                if done {
                    self.tracked[i].complete = true;
                    events.push(Event::normal(
                        now,
                        "Completed",
                        object,
                        None,
                        "Job completed".to_string(),
                    ));
                    return;
                }
                let want = match completions {
                    Some(c) => parallelism.min(c - succeeded),
                    None if succeeded > 0 => 0,
                    None => parallelism,
                };
                for _ in active..want {
                    let name = self.free_name(i, cluster, &job_name);
                    let pod = controller_pod(&w, name.clone(), "Job", &job_name, None);
                    self.create(
                        cluster,
                        events,
                        now,
                        &w,
                        &object,
                        pod,
                        format!("Created pod: {name}"),
                    );
                }
            }
        }
    }
}

impl Controller for WorkloadControllers {
    fn name(&self) -> &'static str {
        "workload-controllers"
    }

    fn reconcile(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        for i in 0..self.tracked.len() {
            self.reconcile_one(i, now, cluster, events);
            if self.writes.is_some()
                && let Some(status) = status::of(&self.tracked[i], cluster, &self.gates)
                && self.tracked[i].written.as_ref() != Some(&status)
            {
                self.tracked[i].written = Some(status.clone());
                let w = &self.tracked[i].workload;
                let resource = match w {
                    Workload::ReplicaSet(_) => "replicasets",
                    Workload::StatefulSet(_) => "statefulsets",
                    Workload::DaemonSet(_) => "daemonsets",
                    Workload::ReplicationController(_) => "replicationcontrollers",
                    _ => "jobs",
                };
                let (namespace, name) = (w.namespace().to_string(), w.name().to_string());
                self.note(|| ObjectWrite::Status {
                    resource,
                    namespace,
                    name,
                    status,
                });
            }
        }
    }

    fn next_wake(&self, _: Millis, _: &Cluster) -> Option<Millis> {
        None
    }
}
