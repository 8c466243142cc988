//! What the control plane did to the cluster, as actions a driver applies.
//!
//! Every controller lives once, in this crate, as a function of a cluster view ([`Cluster`])
//! and the clock: it reads the view, decides, and changes the view through [`Cluster`]'s
//! methods, each of which records an [`Action`] in the view's journal when recording is on
//! ([`Cluster::record`]). A driver takes the journal after each pass
//! ([`Cluster::take_actions`]) and applies it where the cluster really lives:
//!
//! - `repel simulate` keeps the view as the cluster itself: the actions are already applied
//!   and are dropped (recording is off).
//! - `repel serve` turns them into API writes (a created pod is a create, a bind a binding, a
//!   deletion a delete, …) so that watches see each one; the view it keeps is corrected from
//!   the store's change stream, as an informer's cache is.
//!
//! [`Changes::of`] coalesces a pass's actions per object, in the order objects were first
//! touched, with the object's state read from the view at the end of the pass: what the
//! driver writes. Events are not actions: controllers append them to the pass's event list,
//! which the driver writes as it is.

use std::collections::HashSet;

use crate::cluster::{Cluster, NodeId, PodId};

/// One change to the cluster, recorded as it was made. Pods are named by id (a pod's id is
/// stable for the life of the view); nodes by name (deleting a node renumbers the nodes after
/// it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A pod was created (by a workload controller, or a step).
    CreatePod(PodId),
    /// A pod was bound to a node (by the scheduler).
    Bind {
        /// The pod.
        pod: PodId,
        /// The node it is bound to.
        node: NodeId,
    },
    /// A pod's status, nomination or spec changed (the kubelet's phase, a condition, a
    /// preemption victim unbound).
    UpdatePod(PodId),
    /// A pod was deleted: `graceful` when it stays, terminating, on a node whose kubelet is not
    /// running; otherwise it is gone.
    DeletePod {
        /// The pod.
        pod: PodId,
        /// Marked terminating rather than removed.
        graceful: bool,
    },
    /// A node was created.
    CreateNode(String),
    /// A node's labels, taints, `unschedulable` or status changed.
    UpdateNode(String),
    /// A node was deleted.
    DeleteNode(String),
}

/// A pass's actions coalesced per object: what a driver writes, each object once, in the
/// order the objects were first touched. A driver applies the deletions first: a pod deleted
/// and another created under its name (a StatefulSet's) in one pass are two pods.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Pods created in the pass that still exist at its end (their state as the view holds it).
    pub created_pods: Vec<PodId>,
    /// Existing pods the pass changed (bound, status, terminating) and did not delete.
    pub updated_pods: Vec<PodId>,
    /// Pods the pass removed (existing ones; a pod created and removed in one pass is left out).
    pub deleted_pods: Vec<PodId>,
    /// Nodes created.
    pub created_nodes: Vec<String>,
    /// Existing nodes changed and not deleted.
    pub updated_nodes: Vec<String>,
    /// Nodes deleted (existing ones; one created again in the pass is in `created_nodes` too,
    /// to be written after the deletion).
    pub deleted_nodes: Vec<String>,
}

impl Changes {
    /// Coalesces `actions` against the view they were taken from.
    pub fn of(cluster: &Cluster, actions: &[Action]) -> Changes {
        let mut out = Changes::default();
        let mut created: HashSet<PodId> = HashSet::new();
        let mut seen_pods: HashSet<PodId> = HashSet::new();
        let mut pods_in_order: Vec<PodId> = Vec::new();
        let mut new_nodes: HashSet<&str> = HashSet::new();
        // Existing nodes deleted in the pass (a node deleted, then created again under its name,
        // is both deleted and created).
        let mut removed_nodes: HashSet<&str> = HashSet::new();
        let mut seen_nodes: HashSet<&str> = HashSet::new();
        let mut nodes_in_order: Vec<&str> = Vec::new();
        for a in actions {
            match a {
                Action::CreatePod(p) => {
                    created.insert(*p);
                    if seen_pods.insert(*p) {
                        pods_in_order.push(*p);
                    }
                }
                Action::Bind { pod: p, .. }
                | Action::UpdatePod(p)
                | Action::DeletePod { pod: p, .. } => {
                    if seen_pods.insert(*p) {
                        pods_in_order.push(*p);
                    }
                }
                Action::CreateNode(n) => {
                    new_nodes.insert(n);
                    if seen_nodes.insert(n) {
                        nodes_in_order.push(n);
                    }
                }
                Action::UpdateNode(n) | Action::DeleteNode(n) => {
                    if matches!(a, Action::DeleteNode(_)) && !new_nodes.contains(n.as_str()) {
                        removed_nodes.insert(n);
                    }
                    if seen_nodes.insert(n) {
                        nodes_in_order.push(n);
                    }
                }
            }
        }
        for p in pods_in_order {
            let gone = cluster.pods.get(p).is_none_or(|i| i.deleted);
            match (created.contains(&p), gone) {
                (true, true) => {}
                (true, false) => out.created_pods.push(p),
                (false, true) => out.deleted_pods.push(p),
                (false, false) => out.updated_pods.push(p),
            }
        }
        for n in nodes_in_order {
            let exists = cluster.node_id(n).is_some();
            if removed_nodes.contains(n) {
                out.deleted_nodes.push(n.to_string());
                if exists {
                    out.created_nodes.push(n.to_string());
                }
            } else if new_nodes.contains(n) {
                if exists {
                    out.created_nodes.push(n.to_string());
                }
            } else if exists {
                out.updated_nodes.push(n.to_string());
            }
        }
        out
    }

    /// Whether the pass changed nothing.
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }
}

/// A write of a workload object by its controller: what the Deployment controller
/// does to its ReplicaSets (create, scale, annotate with revisions, delete beyond the revision
/// history), and every workload controller's status. `repel simulate` keeps the objects in its
/// controllers and may ignore these; `repel serve` writes each to the store, so `kubectl get
/// rs`, `kubectl rollout status` and `kubectl rollout undo` see what upstream's controllers
/// write. Taken with [`crate::controllers::workloads::WorkloadControllers::take_writes`].
#[derive(Debug, Clone, PartialEq)]
pub enum ObjectWrite {
    /// Creates the object, whole (a Deployment's new ReplicaSet, with its labels, its
    /// `deployment.kubernetes.io/revision` annotations and its controller ownerReference).
    Create {
        /// The resource (`replicasets`).
        resource: &'static str,
        /// The object.
        object: serde_json::Value,
    },
    /// Sets the controller-owned parts of a stored object: `spec.replicas` when given, and the
    /// given annotations (merged into the object's; a `None` value removes the key).
    Update {
        /// The resource (`replicasets`, `deployments`).
        resource: &'static str,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The new `spec.replicas`, when the controller scales it.
        replicas: Option<i32>,
        /// Annotations to set (`Some`) or remove (`None`).
        annotations: std::collections::BTreeMap<String, Option<String>>,
    },
    /// Sets a ControllerRevision's `revision` (a DaemonSet or StatefulSet rolled back to the
    /// template of an older revision makes that one the newest, as upstream's controllers do).
    SetRevision {
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The new revision number.
        revision: i64,
    },
    /// Replaces the object's `status` (written only when it changed).
    Status {
        /// The resource (`deployments`, `replicasets`, `statefulsets`, `daemonsets`, `jobs`).
        resource: &'static str,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The whole new status.
        status: serde_json::Value,
    },
    /// Deletes the object (an old ReplicaSet beyond the Deployment's `revisionHistoryLimit`;
    /// a deleted workload's dependents, as the garbage collector does).
    Delete {
        /// The resource.
        resource: &'static str,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
    },
    /// The garbage collector deletes a dependent whose owners are gone (any kind; a pod is
    /// deleted through the cluster view instead), on condition that it is still the object of
    /// that uid (upstream's `Preconditions{UID}`); `foreground` asks for
    /// `propagationPolicy: Foreground` (a dependent with dependents of its own, while its owner
    /// is deleted in the foreground), otherwise `Background`.
    Collect {
        /// The resource.
        resource: String,
        /// Its namespace (empty when cluster-scoped).
        namespace: String,
        /// Its name.
        name: String,
        /// Its uid (empty: no precondition).
        uid: String,
        /// Foreground rather than background propagation.
        foreground: bool,
    },
    /// The garbage collector takes an owner's references off a dependent (the owner is gone
    /// while other owners remain, or is deleted with its dependents orphaned).
    RemoveOwnerReference {
        /// The dependent's resource (`pods` too).
        resource: String,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The owner's kind.
        owner_kind: String,
        /// The owner's name.
        owner_name: String,
        /// The owner's uid (empty: any).
        owner_uid: String,
    },
    /// The garbage collector removes finalizer `orphan` or `foregroundDeletion` from an owner
    /// being deleted, once its dependents are orphaned or gone; the API server deletes an
    /// object being deleted when its last finalizer goes.
    RemoveFinalizer {
        /// The resource.
        resource: String,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The finalizer.
        finalizer: String,
    },
}
