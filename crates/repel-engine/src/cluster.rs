//! The cluster state the scheduler and controllers read: nodes with what is on them, pods, and
//! the indexes they need. One writer ([`Cluster`]'s `&mut` methods); readers borrow.

use std::collections::{BTreeMap, HashMap};

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodSpec};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::actions::Action;
use crate::scheduler::plugins::image_locality::ImageIndex;

/// A pod's index in [`Cluster::pods`].
pub type PodId = usize;
/// A node's index in [`Cluster::nodes`].
pub type NodeId = usize;

mod info;
mod nodes;

use info::SpecFigures;
pub use info::{
    HostPort, NodeInfo, PodInfo, PodPhase, PreparedPod, host_ports, millis_of, namespace_in,
    ready_transition,
};

/// The whole cluster: nodes, pods (bound and pending), namespaces, PodDisruptionBudgets.
#[derive(Debug, Clone, Default)]
pub struct Cluster {
    /// Nodes in input order.
    pub nodes: Vec<NodeInfo>,
    /// Every pod, bound or pending, in creation order.
    pub pods: Vec<PodInfo>,
    /// Namespaces given (others are taken to exist without labels).
    pub namespaces: Vec<Namespace>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<PodDisruptionBudget>,
    /// The label selector of each pod-owning controller, keyed by (kind, namespace, name): a
    /// Deployment's ReplicaSet selects its selector plus `pod-template-hash`. PodTopologySpread's
    /// default constraints spread a pod over the pods its controller selects.
    pub owner_selectors: HashMap<(String, String, String), repel_core::labels::LabelSelector>,
    node_index: HashMap<String, NodeId>,
    label_index: BTreeMap<(String, String), Vec<NodeId>>,
    specs: SpecPool,
    /// The changes made since the driver last took them, when recording (see
    /// [`crate::actions`]).
    journal: Option<Vec<Action>>,
    /// Live pods by (namespace, name), built at the first [`Cluster::pod_id`] and kept from
    /// then on: one-shot commands that never look a pod up by name do not pay for it, a
    /// driver holding 150,000 pods does not scan them per lookup.
    pod_index: std::sync::OnceLock<HashMap<(String, String), PodId>>,
    /// Every pod (deleted ones too) by its controller: (namespace, owner kind, owner name),
    /// ids ascending; built at the first [`Cluster::pods_owned_by`] and kept from then on (a
    /// pod's controller is set when it is created; [`Cluster::set_pod_meta`] moves a pod
    /// whose controller changed). The workload controllers read their pods through it at
    /// every pass instead of scanning every pod per workload.
    owner_index: std::sync::OnceLock<HashMap<OwnerKey, Vec<PodId>>>,
    /// The nodes' images by name ([`ImageIndex`]), built at the first
    /// [`Cluster::image_index`] and dropped when a node is added, replaced or deleted.
    images: std::sync::OnceLock<Arc<ImageIndex>>,
    /// Pods nominated by [`Cluster::set_nominated`] and not bound or deleted since (a superset
    /// of the live nominations: [`Cluster::nominated_pods`] reads each pod's own field).
    nominees: std::collections::BTreeSet<PodId>,
}

/// (namespace, kind, name) of a pod's controller.
type OwnerKey = (String, String, String);

/// The key of pod `p`'s controller (its ownerReference with `controller: true`).
fn owner_key(p: &PodInfo) -> Option<OwnerKey> {
    let o = p
        .meta
        .owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))?;
    Some((p.namespace.clone(), o.kind.clone(), o.name.clone()))
}

/// The distinct pod specs [`Cluster::add_pod`] has seen, so that pods with equal specs share
/// one [`Arc`].
#[derive(Debug, Clone, Default)]
struct SpecPool {
    /// Specs by a hash of their JSON (equal specs have equal JSON); a bucket holds the specs
    /// whose hashes collide.
    by_hash: HashMap<u64, Vec<Arc<PodSpec>>>,
    /// The spec interned last: a workload's pods come one after another, and comparing is
    /// cheaper than hashing.
    last: Option<Arc<PodSpec>>,
}

impl SpecPool {
    /// The shared spec equal to `spec`, added when new.
    /// `hash` is [`spec_hash`] of `spec`.
    fn intern(&mut self, spec: PodSpec, hash: u64) -> Arc<PodSpec> {
        if let Some(last) = self.last.as_ref().filter(|l| ***l == spec) {
            return Arc::clone(last);
        }
        let bucket = self.by_hash.entry(hash).or_default();
        let shared = match bucket.iter().find(|s| ***s == spec) {
            Some(s) => Arc::clone(s),
            None => {
                let s = Arc::new(spec);
                bucket.push(Arc::clone(&s));
                s
            }
        };
        self.last = Some(Arc::clone(&shared));
        shared
    }
}

/// A hash of a spec's JSON, written into the hasher through a buffer.
fn spec_hash(spec: &PodSpec) -> u64 {
    use std::hash::Hasher;
    struct Writer(std::hash::DefaultHasher);
    impl std::io::Write for Writer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // The serialiser writes a few bytes at a time; the hasher takes them a buffer at a time
    // (the hash of a stream does not depend on how it is cut).
    let mut w = std::io::BufWriter::with_capacity(1024, Writer(std::hash::DefaultHasher::new()));
    // Serialising a spec into a hasher does not fail; if it did, every such spec lands in one
    // bucket, where equality still decides.
    let _ = serde_json::to_writer(&mut w, spec);
    match w.into_inner() {
        Ok(w) => w.0.finish(),
        Err(_) => 0,
    }
}

impl Cluster {
    /// An empty cluster.
    pub fn new() -> Self {
        Cluster::default()
    }

    /// Starts (or stops) recording every change as an [`Action`] (see [`crate::actions`]).
    /// Off by default: one-shot commands and `simulate` keep the cluster itself.
    pub fn record(&mut self, on: bool) {
        self.journal = on.then(|| self.journal.take().unwrap_or_default());
    }

    /// The changes recorded since the last call, in the order they were made (none when not
    /// recording).
    pub fn take_actions(&mut self) -> Vec<Action> {
        self.journal
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Runs `f` without recording: changes that come from outside the control plane (an
    /// informer applying the store's change stream) are not the control plane's actions.
    pub fn quietly<R>(&mut self, f: impl FnOnce(&mut Cluster) -> R) -> R {
        let journal = self.journal.take();
        let r = f(self);
        self.journal = journal;
        r
    }

    /// Replaces node `node`'s object with `new` (an update from the API), keeping the label
    /// index, the taints, `unschedulable` and allocatable the plugins read in step. Its pods
    /// stay.
    pub fn replace_node(&mut self, node: NodeId, new: Node) {
        let Some(n) = self.nodes.get(node) else {
            return;
        };
        let fresh = NodeInfo::new(new);
        if fresh.labels != n.labels {
            self.set_node_labels(node, fresh.labels.clone());
        }
        if let Some(n) = self.nodes.get(node)
            && fresh.taints != n.taints
        {
            self.set_node_taints(node, fresh.taints.clone());
        }
        if let Some(n) = self.nodes.get(node)
            && fresh.unschedulable != n.unschedulable
        {
            self.set_unschedulable(node, fresh.unschedulable);
        }
        if let Some(n) = self.nodes.get_mut(node) {
            n.allocatable = fresh.allocatable;
            n.node = fresh.node;
        }
        self.images = std::sync::OnceLock::new();
        self.touch_node(node);
    }

    /// Records `action` when recording.
    fn note(&mut self, action: impl FnOnce(&Self) -> Action) {
        if self.journal.is_some() {
            let a = action(self);
            if let Some(j) = self.journal.as_mut() {
                j.push(a);
            }
        }
    }

    /// Records that pod `pod`'s status (or nomination) changed, for a controller that wrote it
    /// through [`PodInfo`]'s fields.
    pub fn touch_pod(&mut self, pod: PodId) {
        self.note(|_| Action::UpdatePod(pod));
    }

    /// Records that node `node`'s object changed (its conditions), for a controller that wrote
    /// it through [`NodeInfo::node`].
    pub fn touch_node(&mut self, node: NodeId) {
        self.note(|c| Action::UpdateNode(c.node_name(node)));
    }

    fn node_name(&self, node: NodeId) -> String {
        self.nodes
            .get(node)
            .map(|n| n.name.clone())
            .unwrap_or_default()
    }

    /// Adds a node; returns its id.
    pub fn add_node(&mut self, node: Node) -> NodeId {
        self.add_node_info(NodeInfo::new(node))
    }

    /// [`Cluster::add_node`] of a node read already ([`NodeInfo::new`], on any thread).
    pub fn add_node_info(&mut self, info: NodeInfo) -> NodeId {
        let id = self.nodes.len();
        for (k, v) in &info.labels {
            self.label_index
                .entry((k.clone(), v.clone()))
                .or_default()
                .push(id);
        }
        self.node_index.insert(info.name.clone(), id);
        self.nodes.push(info);
        self.images = std::sync::OnceLock::new();
        self.note(|c| Action::CreateNode(c.node_name(id)));
        id
    }

    /// Adds a pod; a pod with `spec.nodeName` of a known node is bound there at once (it counts
    /// against its node). Returns its id.
    ///
    /// Pods with equal specs share one (see [`PodInfo`]).
    pub fn add_pod(&mut self, pod: Pod) -> PodId {
        self.add_prepared(PreparedPod::new(pod))
    }

    /// [`Cluster::add_pod`] of a pod read already ([`PreparedPod::new`], on any thread).
    pub fn add_prepared(&mut self, pod: PreparedPod) -> PodId {
        let id = self.pods.len();
        let PreparedPod {
            meta,
            spec,
            status,
            figures,
            node_name,
        } = pod;
        let spec = spec.map(|(s, hash)| self.specs.intern(s, hash));
        let mut info = PodInfo::with_figures(meta, spec, status, id, figures);
        if let Some(name) = node_name {
            info.set_spec_node_name(name);
        }
        self.join(info)
    }

    /// Adds a stored pod (from a snapshot, a dump, a live read) whose spec without
    /// `nodeName` is pod `like`'s (added by [`PreparedPod::bound_apart`], or by this): it
    /// shares that spec and the figures read from it (priority, requests, host ports), with
    /// its own metadata, `nodeName` and status, and is bound to its node as
    /// [`Cluster::add_prepared`] binds it. Returns `None` when `like` is not a pod.
    pub fn add_stored_like(
        &mut self,
        like: PodId,
        meta: Box<ObjectMeta>,
        node_name: Option<String>,
        status: Option<k8s_openapi::api::core::v1::PodStatus>,
    ) -> Option<PodId> {
        let id = self.pods.len();
        let l = self.pods.get(like)?;
        let figures = SpecFigures {
            priority: l.priority,
            requests: l.requests.clone(),
            non_zero: l.non_zero,
            ports: l.ports.clone(),
        };
        let mut info = PodInfo::with_figures(meta, l.spec.clone(), status, id, figures);
        info.set_spec_node_name(node_name);
        Some(self.join(info))
    }

    /// Puts a new pod's record into the cluster: its phase from its status, indexed, bound to
    /// the node its `spec.nodeName` names when the cluster has it.
    fn join(&mut self, mut info: PodInfo) -> PodId {
        // (Its id: the pods are numbered in creation order, `seq` too.)
        let id = self.pods.len();
        // A finished pod holds nothing: the scheduler's informer leaves out Succeeded and Failed
        // pods (field selector status.phase!=Succeeded,status.phase!=Failed).
        info.phase = match info.status.as_ref().and_then(|s| s.phase.as_deref()) {
            Some("Succeeded") => PodPhase::Succeeded,
            Some("Failed") => PodPhase::Failed,
            Some("Running") if info.spec_node_name().is_some() => PodPhase::Running,
            _ => PodPhase::Pending,
        };
        self.note(|_| Action::CreatePod(id));
        if matches!(info.phase, PodPhase::Succeeded | PodPhase::Failed) {
            self.pods.push(info);
            self.index_pod(id);
            self.index_new_pod(id);
            return id;
        }
        let node = info
            .spec_node_name()
            .and_then(|n| self.node_index.get(n).copied());
        self.pods.push(info);
        self.index_pod(id);
        self.index_new_pod(id);
        if let Some(node) = node {
            self.bind(id, node);
        }
        id
    }

    /// Adds a new pending pod whose stored spec is the same as pod `like`'s (another pod of its
    /// workload, admitted alike): it shares that spec and the figures read from it (priority,
    /// requests, host ports) instead of computing them again; `meta` is its own. Returns `None`
    /// when `like` is not a pod.
    pub fn add_pod_like(&mut self, like: PodId, meta: ObjectMeta) -> Option<PodId> {
        self.add_pod_like_with(like, Box::new(meta), None, None)
    }

    /// [`Cluster::add_pod_like`] with a spec of its own that differs from `like`'s only where
    /// neither priority, requests nor host ports are read (a DaemonSet pod pinned to another
    /// node), or, with `None`, `like`'s spec shared; `labels`, when given, are the pod's labels
    /// shared with other pods (`meta` then has none of its own).
    pub fn add_pod_like_with(
        &mut self,
        like: PodId,
        mut meta: Box<ObjectMeta>,
        spec: Option<Arc<PodSpec>>,
        labels: Option<Arc<BTreeMap<String, String>>>,
    ) -> Option<PodId> {
        if labels.is_some() {
            meta.labels = None;
        }
        let id = self.pods.len();
        let l = self.pods.get(like)?;
        let spec = match spec {
            Some(s) => Some(s),
            None => l.spec.clone(),
        };
        let figures = SpecFigures {
            priority: l.priority,
            requests: l.requests.clone(),
            non_zero: l.non_zero,
            ports: l.ports.clone(),
        };
        let mut info = PodInfo::with_figures(meta, spec, None, id, figures);
        info.shared_labels = labels;
        self.pods.push(info);
        self.index_pod(id);
        self.index_new_pod(id);
        self.note(|_| Action::CreatePod(id));
        Some(id)
    }

    /// Binds a pod to a node.
    pub fn bind(&mut self, pod: PodId, node: NodeId) {
        let (Some(info), Some(n)) = (self.pods.get_mut(pod), self.nodes.get_mut(node)) else {
            return;
        };
        info.node = Some(node);
        info.nominated = None;
        // The binding clears `status.nominatedNodeName` (upstream v1.35,
        // ClearingNominatedNodeNameAfterBinding, beta and on by default).
        if let Some(st) = info.status.as_mut() {
            st.nominated_node_name = None;
        }
        self.nominees.remove(&pod);
        info.set_shared_node_name(Some(if *n.shared_name == *n.name {
            Arc::clone(&n.shared_name)
        } else {
            Arc::from(n.name.as_str())
        }));
        n.add_pod(pod, info);
        self.note(|_| Action::Bind { pod, node });
    }

    /// Deletes a pod, gracefully as the API does: a pod bound to a node whose kubelet runs (Ready)
    /// is gone at once; on a node that is NotReady or Unknown nobody finishes the deletion, so the
    /// pod stays bound and `terminating` until the kubelet is back (upstream: a StatefulSet's pod
    /// on an unreachable node is not replaced; kubernetes#54368). Unbound pods go at once. It
    /// stays in [`Cluster::pods`] so ids remain valid.
    pub fn delete_pod(&mut self, pod: PodId) {
        if let Some(node) = self.pods.get(pod).and_then(|p| p.node)
            && !self.node_ready(node)
        {
            if let Some(p) = self.pods.get_mut(pod) {
                p.terminating = true;
            }
            self.note(|_| Action::DeletePod {
                pod,
                graceful: true,
            });
            return;
        }
        self.force_delete_pod(pod);
    }

    /// Deletes a bound pod gracefully with a grace period of `grace` seconds, as the API server
    /// does for a delete request (`DeleteOptions{}`: the pod's
    /// `spec.terminationGracePeriodSeconds`): `metadata.deletionTimestamp` is set to `now`,
    /// `deletionGracePeriodSeconds` to `grace`, and the pod stays bound and `terminating` (its
    /// requests still held on the node) until its kubelet finishes it after the grace period
    /// ([`crate::controllers::kubelet`]). A pod not bound, finished, or with a grace period of
    /// 0 or less goes at once, as upstream's `BeforeDelete` makes its grace period 0.
    pub fn delete_pod_gracefully(&mut self, pod: PodId, now: crate::clock::Millis, grace: i64) {
        let Some(p) = self.pods.get_mut(pod) else {
            return;
        };
        if p.deleted {
            return;
        }
        let finished = matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed);
        if p.node.is_none() || finished || grace <= 0 {
            self.force_delete_pod(pod);
            return;
        }
        p.terminating = true;
        if p.meta.deletion_timestamp.is_none() {
            p.meta.deletion_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                crate::controllers::node_lifecycle::sim_timestamp(now),
            ));
            p.meta.deletion_grace_period_seconds = Some(grace);
        }
        self.note(|_| Action::DeletePod {
            pod,
            graceful: true,
        });
    }

    /// Nominates pod `pod` for `node` (`None`: clears its nomination), as the scheduler does
    /// after preemption: the pod's `nominated` and its `status.nominatedNodeName`.
    pub fn set_nominated(&mut self, pod: PodId, node: Option<NodeId>) {
        let name = node.and_then(|n| self.nodes.get(n)).map(|n| n.name.clone());
        let Some(p) = self.pods.get_mut(pod) else {
            return;
        };
        let had_status = p
            .status
            .as_ref()
            .is_some_and(|s| s.nominated_node_name.is_some());
        if p.nominated == node && had_status == name.is_some() {
            return;
        }
        p.nominated = node;
        if name.is_some() || had_status {
            p.status_mut().nominated_node_name = name;
        }
        if node.is_some() {
            self.nominees.insert(pod);
        } else {
            self.nominees.remove(&pod);
        }
        self.touch_pod(pod);
    }

    /// The pods nominated for `node` (upstream's nominator, `NominatedPodsForNode`): not bound,
    /// not deleted, in id order.
    pub fn nominated_pods(&self, node: NodeId) -> Vec<PodId> {
        self.nominees
            .iter()
            .copied()
            .filter(|id| {
                self.pods
                    .get(*id)
                    .is_some_and(|p| p.nominated == Some(node) && p.node.is_none() && !p.deleted)
            })
            .collect()
    }

    /// Whether any pod is nominated for a node (see [`Cluster::nominated_pods`]).
    pub fn has_nominations(&self) -> bool {
        self.nominees.iter().any(|id| {
            self.pods
                .get(*id)
                .is_some_and(|p| p.nominated.is_some() && p.node.is_none() && !p.deleted)
        })
    }

    /// Deletes a pod at once, wherever it is (`--force --grace-period=0`).
    pub fn force_delete_pod(&mut self, pod: PodId) {
        self.nominees.remove(&pod);
        self.unbind(pod);
        if let Some(p) = self.pods.get_mut(pod) {
            p.deleted = true;
            p.terminating = false;
        }
        self.index_pod(pod);
        self.note(|_| Action::DeletePod {
            pod,
            graceful: false,
        });
    }

    /// The nodes' images by name, as ImageLocality reads them (built on first use, kept until
    /// a node is added, replaced or deleted).
    pub fn image_index(&self) -> &ImageIndex {
        self.images
            .get_or_init(|| Arc::new(ImageIndex::of(&self.nodes)))
    }

    /// Live pods (not deleted) bound to `node`.
    pub fn pods_on_node(&self, node: NodeId) -> Vec<PodId> {
        self.nodes
            .get(node)
            .map(|n| n.pods.clone())
            .unwrap_or_default()
    }

    /// The live pod `namespace/name`.
    pub fn pod_id(&self, namespace: &str, name: &str) -> Option<PodId> {
        let index = self.pod_index.get_or_init(|| {
            self.pods
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.deleted)
                .map(|(id, p)| ((p.namespace.clone(), p.name.clone()), id))
                .collect()
        });
        index
            .get(&(namespace.to_string(), name.to_string()))
            .copied()
    }

    /// The pods (deleted ones too, ids ascending) whose controller is the `kind` `name` of
    /// `namespace`.
    pub fn pods_owned_by(&self, namespace: &str, kind: &str, name: &str) -> &[PodId] {
        let index = self.owner_index.get_or_init(|| {
            let mut index: HashMap<OwnerKey, Vec<PodId>> = HashMap::new();
            for (id, p) in self.pods.iter().enumerate() {
                if let Some(k) = owner_key(p) {
                    index.entry(k).or_default().push(id);
                }
            }
            index
        });
        index
            .get(&(namespace.to_string(), kind.to_string(), name.to_string()))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Puts the pods' times on a clock that starts at 0, as a simulation's does (it starts at
    /// the Unix epoch, while an exported cluster's times are of today): the latest creation or
    /// ready time among the pods becomes 0 and every other keeps its distance before it; a pod
    /// without a creation time counts as created at 0. The pods of the input are then older
    /// than any the simulation creates, as they are in the cluster they came from.
    pub fn start_pod_clock(&mut self) {
        let latest = self
            .pods
            .iter()
            .flat_map(|p| [p.created, p.ready_since])
            .flatten()
            .max()
            .unwrap_or(0)
            .max(0);
        for p in &mut self.pods {
            p.created = Some(p.created.map_or(0, |t| t.saturating_sub(latest)));
            p.ready_since = p.ready_since.map(|t| t.saturating_sub(latest));
        }
    }

    /// Replaces pod `id`'s metadata (an update read from the API), keeping the owner index
    /// current when its controller changed (adopted, orphaned).
    pub fn set_pod_meta(&mut self, id: PodId, meta: ObjectMeta) {
        let Some(p) = self.pods.get_mut(id) else {
            return;
        };
        let before = owner_key(p);
        *p.meta = meta;
        p.shared_labels = None;
        let after = owner_key(p);
        if before == after {
            return;
        }
        if let Some(index) = self.owner_index.get_mut() {
            if let Some(ids) = before.and_then(|k| index.get_mut(&k)) {
                ids.retain(|x| *x != id);
            }
            if let Some(k) = after {
                let ids = index.entry(k).or_default();
                let at = ids.partition_point(|x| *x < id);
                ids.insert(at, id);
            }
        }
    }

    /// Adds pod `id`, just pushed, to the owner index (when built).
    fn index_new_pod(&mut self, id: PodId) {
        let Some(index) = self.owner_index.get_mut() else {
            return;
        };
        if let Some(k) = self.pods.get(id).and_then(owner_key) {
            index.entry(k).or_default().push(id);
        }
    }

    /// Keeps the pod index (when built) current for pod `id`, just added or deleted.
    pub(crate) fn index_pod(&mut self, id: PodId) {
        let Some(index) = self.pod_index.get_mut() else {
            return;
        };
        let Some(p) = self.pods.get(id) else {
            return;
        };
        let key = (p.namespace.clone(), p.name.clone());
        if p.deleted {
            if index.get(&key) == Some(&id) {
                index.remove(&key);
            }
        } else {
            index.insert(key, id);
        }
    }

    /// Unbinds (deletes from its node) a pod, as preemption's victims are.
    pub fn unbind(&mut self, pod: PodId) {
        let Some(info) = self.pods.get_mut(pod) else {
            return;
        };
        if let Some(node) = info.node.take()
            && let Some(n) = self.nodes.get_mut(node)
        {
            n.remove_pod(pod, info);
        }
        self.touch_pod(pod);
    }

    /// The node called `name`.
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.node_index.get(name).copied()
    }

    /// Nodes carrying label `key=value`.
    pub fn nodes_with_label(&self, key: &str, value: &str) -> &[NodeId] {
        self.label_index
            .get(&(key.to_string(), value.to_string()))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Pods the scheduler has to place: not bound, not finished, no `spec.nodeName` (a pod that
    /// names its node bypasses the scheduler, even when that node does not exist), in creation
    /// order.
    pub fn pending(&self) -> Vec<PodId> {
        (0..self.pods.len())
            .filter(|i| {
                let p = &self.pods[*i];
                !p.deleted
                    && p.node.is_none()
                    && p.spec_node_name().is_none()
                    && p.phase == PodPhase::Pending
            })
            .collect()
    }

    /// Records the selector of the controller that owns `w`'s pods (see
    /// [`Cluster::owner_selectors`]), named `owner` (a Deployment's: its ReplicaSet
    /// `NAME-<pod-template-hash>`, whose hash its selector gains).
    pub fn register_workload(&mut self, w: &repel_core::workload::Workload, owner: &str) {
        if let Some((key, sel)) = Cluster::owner_selector(w, owner) {
            self.owner_selectors.insert(key, sel);
        }
    }

    /// What [`Cluster::register_workload`] records of `w`, read on any thread: its key in
    /// [`Cluster::owner_selectors`] and the selector.
    pub fn owner_selector(
        w: &repel_core::workload::Workload,
        owner: &str,
    ) -> Option<((String, String, String), repel_core::labels::LabelSelector)> {
        use repel_core::labels::{Operator, Requirement, label_selector_from_api};
        use repel_core::workload::Workload;
        let (kind, selector, hash) = match w {
            Workload::Deployment(d) => {
                let hash = owner
                    .strip_prefix(w.name())
                    .and_then(|r| r.strip_prefix('-'))
                    .unwrap_or_default()
                    .to_string();
                ("ReplicaSet", &d.spec.selector, Some(hash))
            }
            Workload::ReplicaSet(r) => ("ReplicaSet", &r.spec.selector, None),
            Workload::StatefulSet(s) => ("StatefulSet", &s.spec.selector, None),
            // Upstream's DefaultSelector takes an RC's selector map as a set selector.
            Workload::ReplicationController(r) => {
                let set = r.spec.as_ref()?.selector.as_ref()?;
                return Some((
                    (
                        "ReplicationController".to_string(),
                        w.namespace().to_string(),
                        owner.to_string(),
                    ),
                    repel_core::labels::LabelSelector::from_set(set),
                ));
            }
            _ => return None,
        };
        let Ok(mut sel) = label_selector_from_api(selector) else {
            return None;
        };
        if let Some(hash) = hash
            && let Ok(req) = Requirement::new("pod-template-hash", Operator::Equals, &[hash])
        {
            sel = sel.add([req]);
        }
        Some((
            (
                kind.to_string(),
                w.namespace().to_string(),
                owner.to_string(),
            ),
            sel,
        ))
    }

    /// Live pods whose `spec.nodeName` names a node the cluster does not have (they wait for
    /// it forever; nothing schedules them).
    pub fn orphans(&self) -> Vec<PodId> {
        (0..self.pods.len())
            .filter(|i| {
                let p = &self.pods[*i];
                // A finished pod holds nothing on its node: never bound, never an orphan.
                !p.deleted
                    && p.node.is_none()
                    && p.spec_node_name().is_some()
                    && !matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed)
            })
            .collect()
    }

    /// The namespace object `name`, when given.
    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        namespace_in(&self.namespaces, name)
    }
}

#[cfg(test)]
mod tests;
