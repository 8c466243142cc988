//! The garbage collector (upstream `pkg/controller/garbagecollector`): an object whose owners
//! are gone goes too, and an owner deleted with `propagationPolicy: Orphan` or `Foreground`
//! first lets go of, or waits for, its dependents.
//!
//! # What it reads
//! - **Pods** from the cluster view: a pod's owner is its controller (the ownerReference with
//!   `controller: true`), found through [`Cluster::pods_owned_by`]. A pod's other
//!   ownerReferences are not followed.
//! - **Every other object with ownerReferences** (ReplicaSets, Leases, custom resources, …)
//!   and every object being deleted with the `orphan` or `foregroundDeletion` finalizer, which
//!   its driver hands it ([`GarbageCollector::observe`]); objects that went are told with
//!   [`GarbageCollector::forget`]. `repel serve` hands it every object of every kind from the
//!   store's change stream; `repel simulate` the workloads it deletes.
//!
//! # What it does (upstream's `attemptToDeleteItem`, `orphanDependents`,
//! `processDeletingDependentsItem`)
//! - **An owner went** (background deletion, the default of `kubectl delete`): each dependent
//!   naming it (same kind and name, in its namespace or cluster-scoped; the same uid where both
//!   have one) loses that reference; a dependent left with no owner is deleted (a pod as the
//!   API deletes it, gracefully; another object through an [`ObjectWrite::Collect`], its own
//!   dependents following in the same pass). Owners the collector never saw go are taken to
//!   exist: upstream looks a dangling owner up and deletes its dependents, repel leaves them
//!   (manifests are often part of a cluster, and their owners elsewhere).
//! - **An owner being deleted with the `orphan` finalizer**: every dependent loses its
//!   reference to it ([`ObjectWrite::RemoveOwnerReference`]), then the finalizer is removed
//!   ([`ObjectWrite::RemoveFinalizer`]), which lets the API server finish the deletion.
//! - **An owner being deleted with the `foregroundDeletion` finalizer**: its dependents that
//!   block it (`blockOwnerDeletion: true`) are deleted — in the foreground themselves when
//!   they have dependents of their own — and once none is left the finalizer is removed.
//!
//! The workload objects it deletes are returned by [`GarbageCollector::reconcile`], so that
//! the control plane stops their controllers in the same pass (a ReplicaSet collected with its
//! pods must not create new ones).

use std::collections::{HashMap, HashSet, VecDeque};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use crate::actions::ObjectWrite;
use crate::cluster::{Cluster, PodId};

/// The controller's name (the field manager of its writes upstream).
pub const NAME: &str = "garbage-collector-controller";
/// Upstream `metav1.FinalizerOrphanDependents`.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// Upstream `metav1.FinalizerDeleteDependents`.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";

/// An object the collector tracks (any kind but Pod).
#[derive(Debug, Clone, PartialEq)]
pub struct GcObject {
    /// Its resource (`replicasets`, `leases`, …).
    pub resource: String,
    /// Its kind (`ReplicaSet`).
    pub kind: String,
    /// Its namespace (empty when cluster-scoped).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its uid (empty when unknown, as in a hand-written manifest).
    pub uid: String,
    /// Its ownerReferences.
    pub owners: Vec<OwnerReference>,
    /// Its `metadata.finalizers`.
    pub finalizers: Vec<String>,
    /// Whether it is being deleted (`metadata.deletionTimestamp` is set).
    pub deleting: bool,
}

impl GcObject {
    /// The object as the API holds it, read from its JSON (`resource` is its resource).
    pub fn from_json(resource: &str, obj: &serde_json::Value) -> Option<GcObject> {
        let m = &obj["metadata"];
        let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
        Some(GcObject {
            resource: resource.to_string(),
            kind: obj["kind"].as_str()?.to_string(),
            namespace: s(&m["namespace"]),
            name: m["name"].as_str()?.to_string(),
            uid: s(&m["uid"]),
            owners: serde_json::from_value(m["ownerReferences"].clone()).unwrap_or_default(),
            finalizers: serde_json::from_value(m["finalizers"].clone()).unwrap_or_default(),
            deleting: !m["deletionTimestamp"].is_null(),
        })
    }

    fn key(&self) -> Key {
        (
            self.resource.clone(),
            self.namespace.clone(),
            self.name.clone(),
        )
    }

    /// The object as an owner its dependents name.
    fn as_owner(&self) -> Owner {
        Owner {
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            uid: self.uid.clone(),
        }
    }

    fn has_finalizer(&self, f: &str) -> bool {
        self.finalizers.iter().any(|x| x == f)
    }

    /// Whether the collector has a reason to keep it: it has owners or waits on its dependents.
    fn interesting(&self) -> bool {
        !self.owners.is_empty()
            || (self.deleting
                && (self.has_finalizer(FINALIZER_ORPHAN)
                    || self.has_finalizer(FINALIZER_FOREGROUND)))
    }
}

/// An owner: its kind, namespace (empty when cluster-scoped), name and uid (empty when
/// unknown).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Owner {
    /// Kind.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Uid.
    pub uid: String,
}

impl Owner {
    /// Whether ownerReference `r` of an object in `namespace` names this owner.
    fn named_by(&self, r: &OwnerReference, namespace: &str) -> bool {
        r.kind == self.kind
            && r.name == self.name
            && (self.namespace.is_empty() || self.namespace == namespace)
            && (r.uid.is_empty() || self.uid.is_empty() || r.uid == self.uid)
    }
}

/// (resource, namespace, name) of a tracked object.
type Key = (String, String, String);

/// The garbage collector and its graph of the objects that have owners.
#[derive(Debug, Default, Clone)]
pub struct GarbageCollector {
    objects: HashMap<Key, GcObject>,
    /// Tracked objects by the (kind, name) of each of their owners.
    by_owner: HashMap<(String, String), HashSet<Key>>,
    /// Owners gone, whose dependents are still to be looked at.
    gone: VecDeque<Owner>,
    /// Owners being deleted with the `orphan` finalizer, still to be handled.
    orphaning: Vec<Key>,
    /// Owners being deleted with the `foregroundDeletion` finalizer.
    foreground: HashSet<Key>,
    /// Dependents deleted in the foreground meanwhile (not deleted again).
    asked: HashSet<Key>,
    /// Whether writes are kept for the driver ([`GarbageCollector::record`]).
    recording: bool,
    writes: Vec<ObjectWrite>,
}

impl GarbageCollector {
    /// A collector that tracks nothing yet.
    pub fn new() -> Self {
        GarbageCollector::default()
    }

    /// Keeps the writes for [`GarbageCollector::take_writes`] (`repel serve`); off, they are
    /// dropped (`repel simulate`, whose objects are the collector's and the controllers').
    pub fn record(&mut self, on: bool) {
        self.recording = on;
    }

    fn note(&mut self, w: ObjectWrite) {
        if self.recording {
            self.writes.push(w);
        }
    }

    /// The writes made since the last call (deletions, ownerReferences and finalizers
    /// removed), for a driver whose objects live elsewhere (`repel serve`'s store).
    pub fn take_writes(&mut self) -> Vec<ObjectWrite> {
        std::mem::take(&mut self.writes)
    }

    /// How many objects the collector tracks.
    pub fn tracked(&self) -> usize {
        self.objects.len()
    }

    fn unindex(&mut self, key: &Key) -> Option<GcObject> {
        let old = self.objects.remove(key)?;
        for r in &old.owners {
            let k = (r.kind.clone(), r.name.clone());
            if let Some(set) = self.by_owner.get_mut(&k) {
                set.remove(key);
                if set.is_empty() {
                    self.by_owner.remove(&k);
                }
            }
        }
        Some(old)
    }

    fn index(&mut self, obj: GcObject) {
        let key = obj.key();
        for r in &obj.owners {
            self.by_owner
                .entry((r.kind.clone(), r.name.clone()))
                .or_default()
                .insert(key.clone());
        }
        self.objects.insert(key, obj);
    }

    /// An object was created or changed (any kind but Pod).
    pub fn observe(&mut self, obj: GcObject) {
        let key = obj.key();
        let was = self.unindex(&key);
        // An object of that name with another uid is a new object: the old one went.
        if let Some(was) = &was
            && !was.uid.is_empty()
            && !obj.uid.is_empty()
            && was.uid != obj.uid
        {
            self.forget_owner(was);
        }
        if obj.deleting && obj.has_finalizer(FINALIZER_ORPHAN) && !self.orphaning.contains(&key) {
            self.orphaning.push(key.clone());
        }
        if obj.deleting && obj.has_finalizer(FINALIZER_FOREGROUND) {
            self.foreground.insert(key.clone());
        } else {
            self.foreground.remove(&key);
        }
        if obj.interesting() {
            self.index(obj);
        }
    }

    /// An object was deleted: its dependents are looked at in the next pass. `namespace` is
    /// empty for a cluster-scoped object; `uid` may be empty when unknown.
    pub fn forget(&mut self, resource: &str, kind: &str, namespace: &str, name: &str, uid: &str) {
        let key = (
            resource.to_string(),
            namespace.to_string(),
            name.to_string(),
        );
        self.unindex(&key);
        self.orphaning.retain(|k| *k != key);
        self.foreground.remove(&key);
        self.asked.remove(&key);
        self.owner_gone(kind, namespace, name, uid);
    }

    /// An owner the collector does not track went (a Deployment's ReplicaSet that lives only
    /// inside its rollout in `repel simulate`): its dependents are looked at in the next pass.
    pub fn owner_gone(&mut self, kind: &str, namespace: &str, name: &str, uid: &str) {
        self.gone.push_back(Owner {
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            uid: uid.to_string(),
        });
    }

    fn forget_owner(&mut self, o: &GcObject) {
        self.gone.push_back(o.as_owner());
    }

    /// Whether a pass has anything to do.
    pub fn has_work(&self) -> bool {
        !self.gone.is_empty() || !self.orphaning.is_empty() || !self.foreground.is_empty()
    }

    /// The tracked objects whose ownerReferences name `owner`.
    fn dependents_of(&self, owner: &Owner) -> Vec<Key> {
        let mut out: Vec<Key> = self
            .by_owner
            .get(&(owner.kind.clone(), owner.name.clone()))
            .into_iter()
            .flatten()
            .filter(|k| {
                self.objects
                    .get(*k)
                    .is_some_and(|o| o.owners.iter().any(|r| owner.named_by(r, &o.namespace)))
            })
            .cloned()
            .collect();
        out.sort();
        out
    }

    /// The live pods whose controller is `owner`.
    fn pods_of(cluster: &Cluster, owner: &Owner) -> Vec<PodId> {
        if owner.namespace.is_empty() {
            // A cluster-scoped owner of pods is a Node (mirror pods): the pod garbage
            // collector deletes the pods of deleted nodes.
            return Vec::new();
        }
        cluster
            .pods_owned_by(&owner.namespace, &owner.kind, &owner.name)
            .iter()
            .copied()
            .filter(|id| {
                let p = &cluster.pods[*id];
                !p.deleted
                    && p.meta
                        .owner_references
                        .iter()
                        .flatten()
                        .any(|r| owner.named_by(r, &p.namespace))
            })
            .collect()
    }

    /// Takes `owner`'s references off tracked object `key`; returns whether the object is left
    /// with no owner.
    fn drop_reference(&mut self, key: &Key, owner: &Owner) -> bool {
        let Some(mut obj) = self.unindex(key) else {
            return false;
        };
        let before = obj.owners.len();
        obj.owners.retain(|r| !owner.named_by(r, &obj.namespace));
        let orphaned = obj.owners.is_empty();
        if obj.owners.len() != before {
            self.note(ObjectWrite::RemoveOwnerReference {
                resource: obj.resource.clone(),
                namespace: obj.namespace.clone(),
                name: obj.name.clone(),
                owner_kind: owner.kind.clone(),
                owner_name: owner.name.clone(),
                owner_uid: owner.uid.clone(),
            });
        }
        self.index(obj);
        orphaned
    }

    /// Takes `owner`'s references off pod `id`; returns whether it is left with no owner.
    fn drop_pod_reference(&mut self, cluster: &mut Cluster, id: PodId, owner: &Owner) -> bool {
        let p = &cluster.pods[id];
        let mut meta = p.metadata();
        let ns = p.namespace.clone();
        let refs = meta.owner_references.take().unwrap_or_default();
        let kept: Vec<OwnerReference> = refs
            .iter()
            .filter(|r| !owner.named_by(r, &ns))
            .cloned()
            .collect();
        let orphaned = kept.is_empty();
        if kept.len() != refs.len() {
            meta.owner_references = (!kept.is_empty()).then_some(kept);
            let name = cluster.pods[id].name.clone();
            cluster.set_pod_meta(id, meta);
            self.note(ObjectWrite::RemoveOwnerReference {
                resource: "pods".to_string(),
                namespace: ns,
                name,
                owner_kind: owner.kind.clone(),
                owner_name: owner.name.clone(),
                owner_uid: owner.uid.clone(),
            });
        }
        orphaned
    }

    /// Deletes tracked object `key` (its dependents follow: background), or asks the API to
    /// delete it in the foreground (`foreground`, when it has dependents of its own).
    fn collect(&mut self, key: &Key, foreground: bool, collected: &mut Vec<Owner>) {
        let Some(obj) = self.objects.get(key).cloned() else {
            return;
        };
        self.note(ObjectWrite::Collect {
            resource: obj.resource.clone(),
            namespace: obj.namespace.clone(),
            name: obj.name.clone(),
            uid: obj.uid.clone(),
            foreground,
        });
        let owner = obj.as_owner();
        if foreground {
            self.asked.insert(key.clone());
            return;
        }
        self.unindex(key);
        collected.push(owner.clone());
        self.gone.push_back(owner);
    }

    /// One pass: the dependents of owners gone, owners orphaning theirs, owners waiting for
    /// theirs. Returns the objects deleted (each as an owner: kind, namespace, name, uid), so
    /// that their controllers stop.
    pub fn reconcile(&mut self, cluster: &mut Cluster) -> Vec<Owner> {
        let mut collected = Vec::new();
        for key in std::mem::take(&mut self.orphaning) {
            let Some(obj) = self.objects.get(&key).cloned() else {
                continue;
            };
            let owner = obj.as_owner();
            for dep in self.dependents_of(&owner) {
                self.drop_reference(&dep, &owner);
            }
            for id in Self::pods_of(cluster, &owner) {
                self.drop_pod_reference(cluster, id, &owner);
            }
            self.finalized(&key, FINALIZER_ORPHAN);
        }
        let mut waiting: Vec<Key> = self.foreground.iter().cloned().collect();
        waiting.sort();
        for key in waiting {
            let Some(obj) = self.objects.get(&key).cloned() else {
                continue;
            };
            let owner = obj.as_owner();
            let blocks = |r: &OwnerReference, ns: &str| {
                owner.named_by(r, ns) && r.block_owner_deletion == Some(true)
            };
            let mut blocked = false;
            for dep in self.dependents_of(&owner) {
                let Some(d) = self.objects.get(&dep) else {
                    continue;
                };
                if !d.owners.iter().any(|r| blocks(r, &d.namespace)) {
                    continue;
                }
                blocked = true;
                if d.deleting || self.asked.contains(&dep) {
                    continue;
                }
                // A dependent with dependents of its own goes in the foreground too.
                let has_dependents = {
                    let as_owner = d.as_owner();
                    !self.dependents_of(&as_owner).is_empty()
                        || !Self::pods_of(cluster, &as_owner).is_empty()
                };
                self.collect(&dep, has_dependents, &mut collected);
            }
            for id in Self::pods_of(cluster, &owner) {
                let p = &cluster.pods[id];
                if !p
                    .meta
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| blocks(r, &p.namespace))
                {
                    continue;
                }
                blocked = true;
                if !p.terminating {
                    cluster.delete_pod(id);
                }
            }
            if !blocked {
                self.finalized(&key, FINALIZER_FOREGROUND);
            }
        }
        // Each object goes once, so this ends; the bound guards against a graph that refers to
        // itself through uid-less references.
        let mut budget = self.objects.len() + cluster.pods.len() + self.gone.len() + 16;
        while let Some(owner) = self.gone.pop_front() {
            if budget == 0 {
                self.gone.clear();
                break;
            }
            budget -= 1;
            for key in self.dependents_of(&owner) {
                if self.drop_reference(&key, &owner) {
                    self.collect(&key, false, &mut collected);
                }
            }
            for id in Self::pods_of(cluster, &owner) {
                if self.drop_pod_reference(cluster, id, &owner) && !cluster.pods[id].terminating {
                    cluster.delete_pod(id);
                }
            }
        }
        collected
    }

    /// Removes finalizer `f` from tracked object `key` (the API server deletes it when none is
    /// left).
    fn finalized(&mut self, key: &Key, f: &str) {
        let Some(mut obj) = self.unindex(key) else {
            return;
        };
        obj.finalizers.retain(|x| x != f);
        self.foreground.remove(key);
        self.note(ObjectWrite::RemoveFinalizer {
            resource: obj.resource.clone(),
            namespace: obj.namespace.clone(),
            name: obj.name.clone(),
            finalizer: f.to_string(),
        });
        if obj.interesting() {
            self.index(obj);
        }
    }
}

#[cfg(test)]
mod tests;
