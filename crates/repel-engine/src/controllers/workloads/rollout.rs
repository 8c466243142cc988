//! A tracked Deployment's ReplicaSets on the cluster: one pass of upstream's `syncDeployment`
//! ([`super::deployment`] decides), then each ReplicaSet's pods reconciled by the ReplicaSet
//! controller, then the statuses.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus, ReplicaSet, ReplicaSetSpec};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use repel_core::workload::{Workload, fnv32a, pod_template_hash};
use serde_json::Value;

use super::deployment::{
    DESIRED_REPLICAS_ANNOTATION, POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION, ReplicaSetState,
    RsStatus, Strategy, Sync, equal_ignore_hash, new_rs_new_replicas, reason,
};
use crate::actions::ObjectWrite;
use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodPhase};
use crate::events::Event;

/// What the controller keeps of a Deployment between passes.
#[derive(Debug, Clone, Default)]
pub struct Rollout {
    /// Its ReplicaSets, in creation order.
    pub replica_sets: Vec<ReplicaSetState>,
    /// The next ReplicaSet's creation number.
    pub next_created: u64,
    /// `status.conditions`: (type, status, reason, message).
    pub conditions: Vec<(String, String, String, String)>,
    /// The status last computed.
    pub status: DeploymentStatus,
    /// The status last written (when recording).
    pub written: Option<Value>,
    /// Each ReplicaSet's status last written (when recording).
    pub rs_written: HashMap<String, Value>,
}

/// The template a Deployment's ReplicaSet of `hash` carries: the Deployment's, labelled.
pub fn labelled_template(template: &PodTemplateSpec, hash: &str) -> PodTemplateSpec {
    let mut t = template.clone();
    t.metadata
        .get_or_insert_with(Default::default)
        .labels
        .get_or_insert_with(Default::default)
        .insert(POD_TEMPLATE_HASH_LABEL.to_string(), hash.to_string());
    t
}

/// The Deployment's uid, or the stand-in its pods' owners use for objects without one.
fn deployment_uid(d: &Deployment) -> String {
    d.metadata
        .uid
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| {
            let ns = d.metadata.namespace.as_deref().unwrap_or("default");
            let name = d.metadata.name.as_deref().unwrap_or_default();
            format!(
                "repel-{:08x}",
                fnv32a(format!("Deployment/{ns}/{name}").as_bytes())
            )
        })
}

/// The apps/v1 ReplicaSet object of `rs`, owned by `d`.
pub fn replica_set_object(d: &Deployment, rs: &ReplicaSetState) -> ReplicaSet {
    let ns = d
        .metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".into());
    let mut selector: LabelSelector = d.spec.selector.clone();
    selector
        .match_labels
        .get_or_insert_with(Default::default)
        .insert(POD_TEMPLATE_HASH_LABEL.to_string(), rs.hash.clone());
    ReplicaSet {
        metadata: ObjectMeta {
            name: Some(rs.name.clone()),
            namespace: Some(ns),
            uid: rs.uid.clone(),
            labels: rs.template.metadata.as_ref().and_then(|m| m.labels.clone()),
            annotations: (!rs.annotations.is_empty()).then(|| rs.annotations.clone()),
            owner_references: Some(vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: d.metadata.name.clone().unwrap_or_default(),
                uid: deployment_uid(d),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..Default::default()
        },
        spec: ReplicaSetSpec {
            replicas: Some(rs.replicas),
            min_ready_seconds: d.spec.min_ready_seconds.filter(|s| *s != 0),
            selector,
            template: Some(rs.template.clone()),
        },
        status: None,
    }
}

impl Rollout {
    /// A Deployment whose pods already belong to ReplicaSet `name` (as the claim found them):
    /// that ReplicaSet, taken as created by the controller with the Deployment's replicas.
    pub fn existing(d: &Deployment, name: &str) -> Self {
        let dname = d.metadata.name.as_deref().unwrap_or_default();
        let hash = name
            .strip_prefix(dname)
            .and_then(|r| r.strip_prefix('-'))
            .map(str::to_string)
            .unwrap_or_else(|| pod_template_hash(&d.spec.template));
        let strategy = Strategy::of(d);
        let mut rs = ReplicaSetState {
            name: name.to_string(),
            template: labelled_template(&d.spec.template, &hash),
            hash,
            replicas: strategy.replicas,
            annotations: BTreeMap::new(),
            created: 0,
            uid: None,
            generation: 1,
            status: RsStatus::default(),
        };
        let revision = d
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(REVISION_ANNOTATION))
            .and_then(|r| r.parse::<i64>().ok())
            .unwrap_or(1);
        let mut none = None;
        let mut events = Vec::new();
        let sync = Sync {
            strategy,
            namespace: String::new(),
            name: String::new(),
            now: 0,
            events: &mut events,
            writes: &mut none,
        };
        sync.set_new_replica_set_annotations(
            d.metadata.annotations.as_ref().unwrap_or(&BTreeMap::new()),
            &mut rs,
            revision,
            false,
        );
        Rollout {
            replica_sets: vec![rs],
            next_created: 1,
            ..Default::default()
        }
    }

    /// Adopts the ReplicaSet object `rs` (an input's, a store's): a new entry, or the one of
    /// its name updated from it.
    pub fn adopt(&mut self, rs: &ReplicaSet) {
        let name = rs.metadata.name.clone().unwrap_or_default();
        let template = rs.spec.template.clone().unwrap_or_default();
        let hash = rs
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(POD_TEMPLATE_HASH_LABEL))
            .cloned()
            .unwrap_or_else(|| pod_template_hash(&template));
        let state = ReplicaSetState {
            template: if template
                .metadata
                .as_ref()
                .and_then(|m| m.labels.as_ref())
                .is_some_and(|l| l.contains_key(POD_TEMPLATE_HASH_LABEL))
            {
                template
            } else {
                labelled_template(&template, &hash)
            },
            hash,
            replicas: rs.spec.replicas.unwrap_or(1),
            annotations: rs.metadata.annotations.clone().unwrap_or_default(),
            created: 0,
            uid: rs.metadata.uid.clone(),
            generation: rs.metadata.generation.unwrap_or(1),
            status: RsStatus::default(),
            name,
        };
        match self.replica_sets.iter_mut().find(|r| r.name == state.name) {
            Some(r) => {
                let created = r.created;
                *r = ReplicaSetState { created, ..state };
            }
            None => {
                let created = self.next_created;
                self.next_created += 1;
                self.replica_sets.push(ReplicaSetState { created, ..state });
                self.replica_sets.sort_by_key(|r| r.created);
            }
        }
    }
}

/// The live (not deleted) pods of each of the named ReplicaSets of `namespace`, by ReplicaSet
/// (from the cluster's owner index).
pub fn pods_by_replica_set(
    cluster: &Cluster,
    namespace: &str,
    names: &[&str],
) -> HashMap<String, Vec<PodId>> {
    let mut out: HashMap<String, Vec<PodId>> = HashMap::new();
    for name in names {
        let live: Vec<PodId> = cluster
            .pods_owned_by(namespace, "ReplicaSet", name)
            .iter()
            .copied()
            .filter(|p| !cluster.pods[*p].deleted)
            .collect();
        if !live.is_empty() {
            out.insert(name.to_string(), live);
        }
    }
    out
}

/// Upstream `calculateStatus` of the ReplicaSet controller, from its live pods.
pub fn replica_set_status(
    cluster: &Cluster,
    template: &PodTemplateSpec,
    pods: &[PodId],
) -> RsStatus {
    let labels = template.metadata.as_ref().and_then(|m| m.labels.as_ref());
    let mut s = RsStatus::default();
    for p in pods {
        let info = &cluster.pods[*p];
        if info.terminating || matches!(info.phase, PodPhase::Failed | PodPhase::Succeeded) {
            continue;
        }
        s.replicas += 1;
        let own = Some(info.labels());
        if labels.is_none_or(|want| {
            want.iter()
                .all(|(k, v)| own.and_then(|o| o.get(k)) == Some(v))
        }) {
            s.fully_labeled += 1;
        }
        if info.phase == PodPhase::Running {
            s.ready += 1;
            s.available += 1;
        }
    }
    s
}

/// One `syncDeployment` of `d` over `r`'s ReplicaSets (their statuses fresh). Returns the
/// ReplicaSets deleted (beyond the revision history), whose pods the caller deletes.
#[allow(clippy::too_many_arguments)]
pub fn sync_deployment(
    d: &mut Deployment,
    r: &mut Rollout,
    now: Millis,
    cluster: &mut Cluster,
    events: &mut Vec<Event>,
    writes: &mut Option<Vec<ObjectWrite>>,
) -> Vec<ReplicaSetState> {
    let strategy = Strategy::of(d);
    let dname = d.metadata.name.clone().unwrap_or_default();
    let ns = d
        .metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".into());
    let mut sync = Sync {
        strategy: strategy.clone(),
        namespace: ns,
        name: dname,
        now,
        events,
        writes,
    };
    // Upstream `isScalingEvent`: an active ReplicaSet last scaled for other replicas.
    let new_exists = find_new(d, r).is_some();
    let scaling_event = new_exists
        && r.replica_sets.iter().any(|rs| {
            rs.replicas > 0
                && rs
                    .annotations
                    .get(DESIRED_REPLICAS_ANNOTATION)
                    .and_then(|v| v.parse::<i32>().ok())
                    .is_some_and(|v| v != strategy.replicas)
        });
    let mut deleted = Vec::new();
    if strategy.paused || scaling_event {
        let new = sync_revision(d, r, &mut sync, cluster, false);
        let old: Vec<usize> = olds(r, new);
        let status_replicas = r.status.replicas.unwrap_or(0);
        sync.scale(&mut r.replica_sets, new, status_replicas);
        deleted = sync.cleanup_deployment(&r.replica_sets, &old);
    } else if strategy.recreate {
        let mut new = sync_revision(d, r, &mut sync, cluster, false);
        let old = olds(r, new);
        if sync.scale_down_old_for_recreate(&mut r.replica_sets, &old) {
            return Vec::new();
        }
        // Upstream `oldPodsRunning`: old pods not finished, terminating ones included.
        let names: Vec<&str> = old
            .iter()
            .map(|i| r.replica_sets[*i].name.as_str())
            .collect();
        let running = pods_by_replica_set(cluster, &sync.namespace, &names)
            .values()
            .flatten()
            .any(|p| {
                !matches!(
                    cluster.pods[*p].phase,
                    PodPhase::Failed | PodPhase::Succeeded
                )
            });
        if running {
            return Vec::new();
        }
        if new.is_none() {
            new = sync_revision(d, r, &mut sync, cluster, true);
        }
        if let Some(n) = new {
            sync.scale_and_record(&mut r.replica_sets[n], strategy.replicas);
            let s = &r.status;
            if complete(d, s) {
                let old = olds(r, new);
                deleted = sync.cleanup_deployment(&r.replica_sets, &old);
            }
        }
    } else {
        let Some(new) = sync_revision(d, r, &mut sync, cluster, true) else {
            return Vec::new();
        };
        if sync.reconcile_new_replica_set(&mut r.replica_sets, new) {
            return Vec::new();
        }
        let old = olds(r, Some(new));
        let active: Vec<usize> = old
            .iter()
            .copied()
            .filter(|i| r.replica_sets[*i].replicas > 0)
            .collect();
        if sync.reconcile_old_replica_sets(&mut r.replica_sets, &active, new) {
            return Vec::new();
        }
        deleted = sync.cleanup_deployment(&r.replica_sets, &old);
    }
    deleted
        .into_iter()
        .map(|i| r.replica_sets.remove(i))
        .collect()
}

/// Upstream `FindNewReplicaSet`: the oldest ReplicaSet whose template is the Deployment's.
pub(super) fn find_new(d: &Deployment, r: &Rollout) -> Option<usize> {
    r.replica_sets
        .iter()
        .position(|rs| equal_ignore_hash(&rs.template, &d.spec.template))
}

fn olds(r: &Rollout, new: Option<usize>) -> Vec<usize> {
    (0..r.replica_sets.len())
        .filter(|i| Some(*i) != new)
        .collect()
}

/// Upstream `DeploymentComplete`.
pub fn complete(d: &Deployment, s: &DeploymentStatus) -> bool {
    let want = d.spec.replicas.unwrap_or(1);
    s.updated_replicas.unwrap_or(0) == want
        && s.replicas.unwrap_or(0) == want
        && s.available_replicas.unwrap_or(0) == want
        && s.observed_generation.unwrap_or(0) >= d.metadata.generation.unwrap_or(1)
}

/// Upstream `SetDeploymentCondition`: unchanged when one of the type has the same status and
/// reason; otherwise replaces it (at the end).
pub(super) fn set_condition(
    r: &mut Rollout,
    type_: &str,
    status: &str,
    why: &str,
    message: String,
) {
    if r.conditions
        .iter()
        .any(|c| c.0 == type_ && c.1 == status && c.2 == why)
    {
        return;
    }
    r.conditions.retain(|c| c.0 != type_);
    r.conditions
        .push((type_.into(), status.into(), why.into(), message));
}

pub(super) fn progressing(r: &Rollout) -> Option<&(String, String, String, String)> {
    r.conditions.iter().find(|c| c.0 == "Progressing")
}

/// Upstream `getAllReplicaSetsAndSyncRevision` / `getNewReplicaSet` (v1.35): the new
/// ReplicaSet, its annotations synced and its revision raised to the old ones' highest + 1
/// (which the Deployment's revision annotation follows); with `create`, one is created when
/// none has the Deployment's template.
fn sync_revision(
    d: &mut Deployment,
    r: &mut Rollout,
    sync: &mut Sync<'_>,
    cluster: &mut Cluster,
    create: bool,
) -> Option<usize> {
    let existing = find_new(d, r);
    let max_old = r
        .replica_sets
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != existing)
        .map(|(_, rs)| rs.revision())
        .max()
        .unwrap_or(0);
    let revision = max_old + 1;
    let d_annotations = d.metadata.annotations.clone().unwrap_or_default();
    let new = match existing {
        Some(n) => {
            let changed = sync.set_new_replica_set_annotations(
                &d_annotations,
                &mut r.replica_sets[n],
                revision,
                true,
            );
            if !changed.is_empty()
                && let Some(w) = sync.writes.as_mut()
            {
                w.push(ObjectWrite::Update {
                    resource: "replicasets",
                    namespace: sync.namespace.clone(),
                    name: r.replica_sets[n].name.clone(),
                    replicas: None,
                    annotations: changed,
                });
            }
            if progressing(r).is_none() {
                let msg = format!("Found new replica set {:?}", r.replica_sets[n].name);
                set_condition(r, "Progressing", "True", reason::FOUND_NEW_REPLICA_SET, msg);
            }
            n
        }
        None if create => {
            let hash = pod_template_hash(&d.spec.template);
            let mut rs = ReplicaSetState {
                name: format!("{}-{hash}", sync.name),
                template: labelled_template(&d.spec.template, &hash),
                hash,
                replicas: 0,
                annotations: BTreeMap::new(),
                created: r.next_created,
                uid: None,
                generation: 1,
                status: RsStatus::default(),
            };
            r.next_created += 1;
            let current: i32 = r.replica_sets.iter().map(|x| x.replicas).sum();
            let count = new_rs_new_replicas(&sync.strategy, current, 0).unwrap_or(0);
            sync.set_new_replica_set_annotations(&d_annotations, &mut rs, revision, false);
            rs.replicas = count;
            if let Some(w) = sync.writes.as_mut()
                && let Ok(object) = serde_json::to_value(replica_set_object(d, &rs))
            {
                let mut object = object;
                object["apiVersion"] = "apps/v1".into();
                object["kind"] = "ReplicaSet".into();
                w.push(ObjectWrite::Create {
                    resource: "replicasets",
                    object,
                });
            }
            if count > 0 {
                sync.events.push(Event::normal(
                    sync.now,
                    super::deployment::SCALING_REPLICA_SET,
                    format!("Deployment/{}/{}", sync.namespace, sync.name),
                    None,
                    format!("Scaled up replica set {} from 0 to {count}", rs.name),
                ));
            }
            cluster.register_workload(&Workload::from(d.clone()), &rs.name);
            let msg = format!("Created new replica set {:?}", rs.name);
            r.replica_sets.push(rs);
            set_condition(
                r,
                "Progressing",
                "True",
                reason::NEW_REPLICA_SET_CREATED,
                msg,
            );
            r.replica_sets.len() - 1
        }
        None => return None,
    };
    // Upstream `SetDeploymentRevision`, from the new ReplicaSet's annotation.
    if let Some(rev) = r.replica_sets[new]
        .annotations
        .get(REVISION_ANNOTATION)
        .cloned()
    {
        let annotations = d.metadata.annotations.get_or_insert_with(Default::default);
        if annotations.get(REVISION_ANNOTATION) != Some(&rev) {
            annotations.insert(REVISION_ANNOTATION.to_string(), rev.clone());
            if let Some(w) = sync.writes.as_mut() {
                w.push(ObjectWrite::Update {
                    resource: "deployments",
                    namespace: sync.namespace.clone(),
                    name: sync.name.clone(),
                    replicas: None,
                    annotations: [(REVISION_ANNOTATION.to_string(), Some(rev))].into(),
                });
            }
        }
    }
    Some(new)
}

/// Refreshes every ReplicaSet's status from its pods.
fn refresh(r: &mut Rollout, cluster: &Cluster, namespace: &str) -> HashMap<String, Vec<PodId>> {
    let names: Vec<&str> = r.replica_sets.iter().map(|x| x.name.as_str()).collect();
    let pods = pods_by_replica_set(cluster, namespace, &names);
    for rs in &mut r.replica_sets {
        let mine = pods.get(&rs.name).map(Vec::as_slice).unwrap_or_default();
        rs.status = replica_set_status(cluster, &rs.template, mine);
    }
    pods
}

impl super::WorkloadControllers {
    /// One pass of the Deployment controller and of its ReplicaSets' controller for tracked
    /// Deployment `i`: the sync ([`sync_deployment`]), each ReplicaSet's pods, the statuses.
    pub(super) fn reconcile_deployment(
        &mut self,
        i: usize,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let Workload::Deployment(mut d) = self.tracked[i].workload.clone() else {
            return;
        };
        let mut r = self.tracked[i].rollout.take().unwrap_or_default();
        let ns = repel_core::workload::namespace_of(&d.metadata).to_string();
        let pods = refresh(&mut r, cluster, &ns);
        let deleted = sync_deployment(&mut d, &mut r, now, cluster, events, &mut self.writes);
        // Whether pods were created or deleted (the statuses are to be computed again).
        let mut touched = !deleted.is_empty();
        if !deleted.is_empty() {
            let names: Vec<&str> = deleted.iter().map(|x| x.name.as_str()).collect();
            for id in pods_by_replica_set(cluster, &ns, &names)
                .into_values()
                .flatten()
            {
                cluster.delete_pod(id);
            }
        }
        // Every ReplicaSet's pods rank by the pods of all the Deployment's ReplicaSets
        // (upstream `getIndirectlyRelatedPods`); those deleted meanwhile no longer count.
        let related: Vec<PodId> = pods.values().flatten().copied().collect();
        for rs in &r.replica_sets {
            let mine = pods.get(&rs.name).map(Vec::as_slice).unwrap_or_default();
            let want = usize::try_from(rs.replicas).unwrap_or(0);
            let active = mine
                .iter()
                .filter(|p| super::is_active(cluster, **p))
                .count();
            if active == want {
                continue;
            }
            touched = true;
            let w = Workload::from(replica_set_object(&d, rs));
            let object = format!("ReplicaSet/{ns}/{}", rs.name);
            self.reconcile_replicas(
                i, &w, &rs.name, &object, mine, &related, want, now, cluster, events,
            );
        }
        if touched {
            refresh(&mut r, cluster, &ns);
        }
        super::status::deployment(&d, &mut r);
        if self.writes.is_some() {
            for rs in &r.replica_sets {
                let status = super::status::replica_set(&rs.status, rs.generation);
                if r.rs_written.get(&rs.name) != Some(&status) {
                    r.rs_written.insert(rs.name.clone(), status.clone());
                    self.note(|| ObjectWrite::Status {
                        resource: "replicasets",
                        namespace: ns.clone(),
                        name: rs.name.clone(),
                        status,
                    });
                }
            }
            r.rs_written
                .retain(|name, _| r.replica_sets.iter().any(|x| &x.name == name));
            if let Ok(status) = serde_json::to_value(&r.status)
                && r.written.as_ref() != Some(&status)
            {
                r.written = Some(status.clone());
                let name = d.metadata.name.clone().unwrap_or_default();
                self.note(|| ObjectWrite::Status {
                    resource: "deployments",
                    namespace: ns.clone(),
                    name,
                    status,
                });
            }
        }
        if let Some(n) = find_new(&d, &r) {
            self.tracked[i].owner = ("ReplicaSet".into(), r.replica_sets[n].name.clone());
        }
        self.tracked[i].workload = Workload::Deployment(d);
        self.tracked[i].rollout = Some(r);
    }
}
