//! The control plane's view of the store, kept as an informer keeps its cache: built
//! once from a list of every kind the controllers read, then changed event by event from the
//! store's change stream, never rebuilt per tick (unless the stream's history no longer reaches
//! back to the view, when it lists again, as an informer relists after a 410).
//!
//! What the view holds is repel-engine's [`Cluster`]: nodes (with allocatable assumed where the
//! object has none, as the offline commands do), pods (bound to their `spec.nodeName`; a pod
//! being deleted is `terminating`; the phase the kubelet reported), namespaces,
//! PodDisruptionBudgets, and the owner selectors of ReplicaSets, StatefulSets, DaemonSets and
//! Jobs. Changes from the stream are applied quietly ([`Cluster::quietly`]): they are the
//! cluster's state, not the control plane's actions. A node deleted from the store is deleted
//! from the view; its id is returned so the controllers that keep ids can be told.
//!
//! Workload objects (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs) and the
//! ControllerRevisions of DaemonSets and StatefulSets are not part of the [`Cluster`]: the
//! workload controllers keep them. Each one the view reads (at the build
//! and from the stream) is queued as a [`WorkloadChange`] for the driver ([`crate::driver`]) to
//! hand to repel-engine's [`repel_engine::controllers::workloads::WorkloadControllers`].

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodStatus, Toleration};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::workload::Workload;
use repel_engine::cluster::{Cluster, NodeId, PodPhase};
use repel_engine::controllers::garbage_collector::GcObject;
use repel_engine::load::assume_allocatable;
use serde_json::Value;

use std::sync::Arc;

use crate::store::{Change, EventType, Store, ns_name};

/// The resources the view reads, in the order a build lists them (nodes before the pods bound
/// to them).
pub const RESOURCES: &[&str] = &[
    "namespaces",
    "poddisruptionbudgets",
    "nodes",
    "deployments",
    "replicasets",
    "replicationcontrollers",
    "statefulsets",
    "daemonsets",
    "jobs",
    "controllerrevisions",
    "pods",
];

/// A workload object created, changed or deleted in the store.
#[derive(Debug, Clone)]
pub enum WorkloadChange {
    /// Created or changed: the object as now stored.
    Upsert(Box<Workload>),
    /// Deleted.
    Delete {
        /// Its kind (`Deployment`, `ReplicaSet`, …).
        kind: &'static str,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
    },
    /// A DaemonSet's or StatefulSet's ControllerRevision created or changed: the object.
    Revision(Box<Value>),
    /// A ControllerRevision deleted.
    RevisionGone {
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
    },
}

/// A change for the garbage collector
/// ([`repel_engine::controllers::garbage_collector::GarbageCollector`]), which follows every
/// object of every kind but pods (read from the [`Cluster`]) and events.
#[derive(Debug, Clone)]
pub enum GcChange {
    /// Created or changed.
    Observe(Box<GcObject>),
    /// Deleted.
    Forget {
        /// Its resource.
        resource: String,
        /// Its kind.
        kind: String,
        /// Its namespace (empty when cluster-scoped).
        namespace: String,
        /// Its name.
        name: String,
        /// Its uid.
        uid: String,
    },
}

/// Whether the garbage collector follows objects of `resource`.
fn collectable(resource: &str) -> bool {
    !matches!(resource, "pods" | "events")
}

/// The view and the resourceVersion it reflects.
pub struct View {
    /// The cluster as the store holds it at [`View::rv`].
    pub cluster: Cluster,
    /// The store's resourceVersion the view has applied everything up to.
    pub rv: u64,
    /// Workload changes not yet taken by the driver ([`View::take_workload_changes`]).
    workloads: Vec<WorkloadChange>,
    /// Changes for the garbage collector not yet taken ([`View::take_gc_changes`]).
    gc: Vec<GcChange>,
    /// The store's changes since the view was built ([`Store::list_with_feed`]).
    feed: std::sync::mpsc::Receiver<Arc<Change>>,
}

pub(crate) fn typed<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
    // Read in place: no copy of the object.
    T::deserialize(v).ok()
}

/// A workload object of `resource` (`deployments`, …, `cronjobs`) typed, or `None`.
pub(crate) fn workload(resource: &str, v: &Value) -> Option<Workload> {
    match resource {
        "deployments" => typed(v).map(Workload::Deployment),
        "replicasets" => typed(v).map(Workload::ReplicaSet),
        "replicationcontrollers" => typed(v).map(Workload::ReplicationController),
        "statefulsets" => typed(v).map(Workload::StatefulSet),
        "daemonsets" => typed(v).map(Workload::DaemonSet),
        "jobs" => typed(v).map(Workload::Job),
        "cronjobs" => typed(v).map(Workload::CronJob),
        _ => None,
    }
}

/// The owner-selector key of a workload object (see [`Cluster::owner_selectors`]).
fn owner_key(resource: &str, v: &Value) -> Option<(String, String, String)> {
    let kind = kind_of(resource)?;
    let (ns, name) = ns_name(v);
    Some((kind.to_string(), ns, name))
}

/// The kind of a workload resource (by [`repel_core::kinds`]).
fn kind_of(resource: &str) -> Option<&'static str> {
    const WORKLOADS: &[&str] = &[
        "deployments",
        "replicasets",
        "replicationcontrollers",
        "statefulsets",
        "daemonsets",
        "jobs",
    ];
    if !WORKLOADS.contains(&resource) {
        return None;
    }
    repel_core::kinds::by_plural(resource).map(|k| k.kind)
}

/// What the view reads of a pod it holds when the pod changes (see [`View::apply`]).
#[derive(serde::Deserialize)]
struct PodChange {
    metadata: ObjectMeta,
    #[serde(default)]
    spec: Option<PodSpecChange>,
    #[serde(default)]
    status: Option<PodStatus>,
}

/// What can change of a pod's spec.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PodSpecChange {
    #[serde(default)]
    node_name: Option<String>,
    #[serde(default)]
    tolerations: Option<Vec<Toleration>>,
}

/// A pod's phase from its `status.phase` and its (non-empty) `spec.nodeName`.
fn phase_of(phase: Option<&str>, node: Option<&str>) -> PodPhase {
    match phase {
        Some("Running") if node.is_some() => PodPhase::Running,
        Some("Succeeded") => PodPhase::Succeeded,
        Some("Failed") => PodPhase::Failed,
        _ => PodPhase::Pending,
    }
}

impl View {
    /// A view of everything the store holds now.
    pub fn build(store: &Store) -> View {
        let (lists, rv, feed) = store.list_all_with_feed();
        let mut view = View {
            cluster: Cluster::new(),
            rv,
            workloads: Vec::new(),
            gc: Vec::new(),
            feed,
        };
        // Each object decoded, read, and let go (the store holds text: decoding them all first
        // would hold every one decoded at once). The few objects the garbage collector also
        // reads (not pods) are decoded again for it, in the order it has always seen them.
        for resource in RESOURCES {
            if let Some((_, items)) = lists.iter().find(|(r, _)| r == resource) {
                for obj in items {
                    if *resource == "pods" {
                        view.upsert_pod(obj.json());
                    } else {
                        view.upsert(resource, &obj.decode());
                    }
                }
            }
        }
        for (resource, items) in lists.iter().filter(|(r, _)| collectable(r)) {
            for obj in items {
                view.observe(resource, &obj.decode());
            }
        }
        view
    }

    /// Applies the store's changes since [`View::rv`], read from its feed (none is lost,
    /// however many a pass wrote); returns the ids of the nodes deleted, each as it was when
    /// deleted (each deletion moves the ids after it down one).
    pub fn sync(&mut self) -> Vec<(NodeId, String)> {
        let mut removed = Vec::new();
        while let Ok(ev) = self.feed.try_recv() {
            if ev.rv <= self.rv {
                continue;
            }
            if let Some(r) = self.apply(&ev) {
                removed.push(r);
            }
            self.rv = ev.rv;
        }
        removed
    }

    /// The workload changes read since the last call, in the store's order.
    pub fn take_workload_changes(&mut self) -> Vec<WorkloadChange> {
        std::mem::take(&mut self.workloads)
    }

    /// The garbage collector's changes read since the last call, in the store's order.
    pub fn take_gc_changes(&mut self) -> Vec<GcChange> {
        std::mem::take(&mut self.gc)
    }

    fn observe(&mut self, resource: &str, obj: &Value) {
        if let Some(o) = GcObject::from_json(resource, obj) {
            self.gc.push(GcChange::Observe(Box::new(o)));
        }
    }

    /// Applies one change; returns the node it deleted, if any. A pod's change is read from
    /// its text for what the view keeps of it; any other object is decoded.
    pub fn apply(&mut self, ev: &Change) -> Option<(NodeId, String)> {
        if ev.resource == "pods" && ev.kind != EventType::Deleted {
            self.upsert_pod(ev.object.json());
            return None;
        }
        let object = ev.object.decode();
        if collectable(&ev.resource) {
            match ev.kind {
                EventType::Added | EventType::Modified => self.observe(&ev.resource, &object),
                EventType::Deleted => {
                    let (namespace, name) = ns_name(&object);
                    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
                    self.gc.push(GcChange::Forget {
                        resource: ev.resource.clone(),
                        kind: s(&object["kind"]),
                        namespace,
                        name,
                        uid: s(&object["metadata"]["uid"]),
                    });
                }
            }
        }
        if !RESOURCES.contains(&ev.resource.as_str()) {
            return None;
        }
        match ev.kind {
            EventType::Added | EventType::Modified => {
                self.upsert(&ev.resource, &object);
                None
            }
            EventType::Deleted => self.remove(&ev.resource, &object),
        }
    }

    fn upsert(&mut self, resource: &str, obj: &Value) {
        let (ns, name) = ns_name(obj);
        let c = &mut self.cluster;
        match resource {
            "namespaces" => {
                if let Some(n) = typed::<Namespace>(obj) {
                    c.namespaces
                        .retain(|x| x.metadata.name.as_deref() != Some(name.as_str()));
                    c.namespaces.push(n);
                }
            }
            "poddisruptionbudgets" => {
                if let Some(p) = typed::<PodDisruptionBudget>(obj) {
                    c.pdbs.retain(|x| {
                        (x.metadata.namespace.as_deref(), x.metadata.name.as_deref())
                            != (Some(ns.as_str()), Some(name.as_str()))
                    });
                    c.pdbs.push(p);
                }
            }
            "nodes" => {
                let Some(mut node) = typed::<Node>(obj) else {
                    return;
                };
                assume_allocatable(&mut node);
                c.quietly(|c| match c.node_id(&name) {
                    Some(id) => c.replace_node(id, node),
                    None => {
                        let id = c.add_node(node);
                        // Pods that named the node before it existed are bound to it now.
                        let waiting: Vec<usize> = c
                            .orphans()
                            .into_iter()
                            .filter(|p| c.pods[*p].spec_node_name() == Some(name.as_str()))
                            .collect();
                        for p in waiting {
                            c.bind(p, id);
                        }
                    }
                });
            }
            "pods" => self.upsert_pod(&serde_json::to_string(obj).unwrap_or_default()),
            "controllerrevisions" => {
                self.workloads
                    .push(WorkloadChange::Revision(Box::new(obj.clone())));
            }
            _ => {
                if !obj["metadata"]["deletionTimestamp"].is_null()
                    && let Some(kind) = kind_of(resource)
                {
                    // Being deleted (its dependents orphaned or deleted first): its controller
                    // stops, as upstream's do for an object with a deletionTimestamp.
                    self.workloads.push(WorkloadChange::Delete {
                        kind,
                        namespace: ns,
                        name,
                    });
                    return;
                }
                if let Some(w) = workload(resource, obj) {
                    // A Deployment's pods name its ReplicaSets, registered as they come.
                    if !matches!(w, Workload::Deployment(_)) {
                        let owner = w.name().to_string();
                        c.register_workload(&w, &owner);
                    }
                    self.workloads.push(WorkloadChange::Upsert(Box::new(w)));
                }
            }
        }
    }

    /// A pod created or changed, from its stored text: a pod the view does not hold is decoded
    /// whole; of one it holds, only what can change is read (its spec is immutable but for its
    /// tolerations and node), not the whole pod.
    fn upsert_pod(&mut self, text: &str) {
        let Ok(PodChange {
            metadata: meta,
            spec,
            status,
        }) = serde_json::from_str::<PodChange>(text)
        else {
            return;
        };
        let c = &mut self.cluster;
        let ns = meta.namespace.as_deref().unwrap_or("");
        let name = meta.name.as_deref().unwrap_or("");
        let Some(id) = c.pod_id(ns, name) else {
            if let Ok(pod) = serde_json::from_str::<Pod>(text) {
                let terminating = pod.metadata.deletion_timestamp.is_some();
                c.quietly(|c| {
                    let id = c.add_pod(pod);
                    if terminating && let Some(p) = c.pods.get_mut(id) {
                        p.terminating = true;
                    }
                });
            }
            return;
        };
        let PodSpecChange {
            node_name,
            tolerations,
        } = spec.unwrap_or_default();
        c.quietly(|c| {
            let node = node_name.as_deref().filter(|n| !n.is_empty());
            if c.pods[id].node.is_none()
                && let Some(nid) = node.and_then(|n| c.node_id(n))
            {
                c.bind(id, nid);
            }
            let phase = phase_of(status.as_ref().and_then(|s| s.phase.as_deref()), node);
            if matches!(phase, PodPhase::Succeeded | PodPhase::Failed) {
                // A finished pod holds nothing on its node (the scheduler's informer leaves
                // finished pods out), as when the view is built.
                c.unbind(id);
            }
            let terminating = meta.deletion_timestamp.is_some();
            c.set_pod_meta(id, meta);
            let p = &mut c.pods[id];
            p.status = status.map(Box::new);
            p.phase = phase;
            p.terminating = terminating;
            if p.spec().tolerations != tolerations && p.shared_spec().is_some() {
                p.spec_mut().tolerations = tolerations;
            }
        });
    }

    fn remove(&mut self, resource: &str, obj: &Value) -> Option<(NodeId, String)> {
        let (ns, name) = ns_name(obj);
        let c = &mut self.cluster;
        match resource {
            "namespaces" => c
                .namespaces
                .retain(|x| x.metadata.name.as_deref() != Some(name.as_str())),
            "poddisruptionbudgets" => c.pdbs.retain(|x| {
                (x.metadata.namespace.as_deref(), x.metadata.name.as_deref())
                    != (Some(ns.as_str()), Some(name.as_str()))
            }),
            "nodes" => {
                let id = c.node_id(&name)?;
                c.quietly(|c| c.delete_node(id));
                return Some((id, name));
            }
            "pods" => {
                if let Some(id) = c.pod_id(&ns, &name) {
                    c.quietly(|c| c.force_delete_pod(id));
                }
            }
            "controllerrevisions" => self.workloads.push(WorkloadChange::RevisionGone {
                namespace: ns,
                name,
            }),
            _ => {
                if let Some(k) = owner_key(resource, obj) {
                    c.owner_selectors.remove(&k);
                }
                if let Some(kind) = kind_of(resource) {
                    self.workloads.push(WorkloadChange::Delete {
                        kind,
                        namespace: ns,
                        name,
                    });
                }
            }
        }
        None
    }
}

/// What the view holds, in a form to compare: every live pod (node, phase, terminating,
/// labels, tolerations), every node (labels, taints, unschedulable, conditions, its pods'
/// requests), the namespaces, budgets and owner selectors.
pub fn summary(c: &Cluster) -> Value {
    let pods: Vec<Value> = c
        .pods
        .iter()
        .filter(|p| !p.deleted)
        .map(|p| {
            serde_json::json!({
                "pod": p.key(),
                "node": p.node.and_then(|n| c.nodes.get(n)).map(|n| n.name.clone()),
                "nodeName": p.spec_node_name(),
                "phase": p.phase.as_str(),
                "terminating": p.terminating,
                "labels": p.labels(),
                "tolerations": p.tolerations(),
            })
        })
        .collect();
    let mut pods = pods;
    pods.sort_by_key(|p| p["pod"].as_str().unwrap_or("").to_string());
    let mut nodes: Vec<Value> = c
        .nodes
        .iter()
        .map(|n| {
            let mut on: Vec<String> = n.pods.iter().map(|p| c.pods[*p].key()).collect();
            on.sort();
            serde_json::json!({
                "node": n.name,
                "labels": n.labels,
                "taints": n.taints,
                "unschedulable": n.unschedulable,
                "conditions": n.node.status.as_ref().and_then(|s| s.conditions.clone()),
                "pods": on,
                "requested": format!("{:?}", n.requested),
            })
        })
        .collect();
    nodes.sort_by_key(|n| n["node"].as_str().unwrap_or("").to_string());
    let mut namespaces: Vec<String> = c
        .namespaces
        .iter()
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    namespaces.sort();
    let mut pdbs: Vec<String> = c
        .pdbs
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p.metadata.namespace.as_deref().unwrap_or(""),
                p.metadata.name.as_deref().unwrap_or("")
            )
        })
        .collect();
    pdbs.sort();
    let mut owners: Vec<String> = c
        .owner_selectors
        .keys()
        .map(|(k, ns, n)| format!("{k}/{ns}/{n}"))
        .collect();
    owners.sort();
    serde_json::json!({"pods": pods, "nodes": nodes, "namespaces": namespaces, "pdbs": pdbs, "owners": owners})
}
