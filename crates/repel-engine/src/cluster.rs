//! The cluster state the scheduler and controllers read: nodes with what is on them, pods, and
//! the indexes they need. One writer ([`Cluster`]'s `&mut` methods); readers borrow.

use std::collections::{BTreeMap, HashMap};

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodSpec, PodStatus, Taint, Toleration};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use repel_core::workload::namespace_of;

use crate::actions::Action;
use crate::clock::Millis;
use crate::resources::{Resources, node_allocatable, pod_non_zero_requests, pod_requests};
use crate::scheduler::plugins::image_locality::ImageIndex;

/// A pod's index in [`Cluster::pods`].
pub type PodId = usize;
/// A node's index in [`Cluster::nodes`].
pub type NodeId = usize;

/// A host port a pod asks for (upstream `HostPortInfo`): protocol, IP and port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostPort {
    /// `TCP` (the default), `UDP` or `SCTP`.
    pub protocol: String,
    /// The host IP, `0.0.0.0` when unset.
    pub ip: String,
    /// The port.
    pub port: i32,
}

impl HostPort {
    /// Upstream `HostPortInfo.CheckConflict`: the same protocol and port, and the same IP or
    /// either on `0.0.0.0`.
    pub fn conflicts(&self, other: &HostPort) -> bool {
        self.protocol == other.protocol
            && self.port == other.port
            && (self.ip == other.ip || self.ip == "0.0.0.0" || other.ip == "0.0.0.0")
    }
}

/// The host ports of a pod's containers (`hostPort > 0`), as upstream `GetContainerPorts`.
pub fn host_ports(spec: &PodSpec) -> Vec<HostPort> {
    spec.containers
        .iter()
        .chain(
            spec.init_containers
                .iter()
                .flatten()
                .filter(|c| c.restart_policy.as_deref() == Some("Always")),
        )
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(|p| {
            let port = p.host_port.filter(|hp| *hp > 0)?;
            Some(HostPort {
                protocol: p
                    .protocol
                    .clone()
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "TCP".to_string()),
                ip: p
                    .host_ip
                    .clone()
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "0.0.0.0".to_string()),
                port,
            })
        })
        .collect()
}

/// A pod with what the scheduler derives from it, computed once.
///
/// The pod is kept in parts: its metadata, its spec (shared: pods with identical specs, e.g. a
/// workload's replicas, hold one [`Arc`] — see [`Cluster::add_pod`]) and its status.
/// [`PodInfo::to_pod`] puts them back together. `spec.nodeName` is kept apart too
/// ([`PodInfo::spec_node_name`]), so that binding a pod does not copy its shared spec.
#[derive(Debug, Clone)]
pub struct PodInfo {
    /// The pod's metadata as stored (after admission). Boxed: made on the threads that
    /// prepare a workload's pods, it then moves as a pointer (through their lists and into
    /// the cluster's), not as 350 bytes each time, and the cluster's list of 150,000 pods is
    /// a third of the size.
    pub meta: Box<ObjectMeta>,
    /// The pod's labels when shared with other pods of its workload (then `meta.labels` is
    /// `None`): read them with [`PodInfo::labels`], the whole metadata with
    /// [`PodInfo::metadata`]. A workload's pods have the same labels (but a StatefulSet's), and
    /// a label map of its own per pod was the biggest part of 150,000 pods' memory.
    shared_labels: Option<Arc<BTreeMap<String, String>>>,
    /// The pod's spec as stored, without the binding; `None` when the pod has none.
    spec: Option<Arc<PodSpec>>,
    /// `spec.nodeName` as it stands: as created, then the node the pod was bound to (shared
    /// with the node: see [`NodeInfo`]'s `shared_name`).
    node_name: Option<Arc<str>>,
    /// The pod's status (boxed: it is large, and absent from most pods until the kubelet runs
    /// them).
    pub status: Option<Box<PodStatus>>,
    /// Namespace (`default` when unset).
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.priority` (0 when unset, as without a PriorityClass).
    pub priority: i32,
    /// Requests for NodeResourcesFit's filter.
    pub requests: Resources,
    /// `(milli_cpu, memory)` for scoring, with upstream's non-zero defaults.
    pub non_zero: (i64, i64),
    /// Host ports.
    pub ports: Vec<HostPort>,
    /// Creation order: the queue's tie-breaker after priority.
    pub seq: usize,
    /// When the pod was created, on the cluster's clock (milliseconds since the Unix epoch, the
    /// clock [`crate::controllers::node_lifecycle::sim_timestamp`] reads): the input's
    /// `metadata.creationTimestamp`, or the time a controller created it; `None` when unknown
    /// (Go's zero time). The ReplicaSet controller's scale-down order reads it.
    pub created: Option<Millis>,
    /// When the pod last became Ready, on the cluster's clock: when its kubelet started it or
    /// reported it Ready again, or the input's `Ready` condition's `lastTransitionTime`; `None`
    /// when never, or when the input gives no time.
    pub ready_since: Option<Millis>,
    /// The node it is bound to.
    pub node: Option<NodeId>,
    /// The node it was nominated for by preemption.
    pub nominated: Option<NodeId>,
    /// Where the pod is in its life.
    pub phase: PodPhase,
    /// Deleted (no longer in the API): bound pods are unbound when deleted.
    pub deleted: bool,
    /// Being deleted gracefully on a node whose kubelet is not running (NotReady or Unknown):
    /// the pod stays bound and listed (kubectl shows Terminating) until the kubelet comes back.
    pub terminating: bool,
}

/// A Kubernetes timestamp on the cluster's clock: milliseconds since the Unix epoch.
pub fn millis_of(t: &Time) -> Millis {
    t.0.as_millisecond()
}

/// When a pod whose status is `status` became Ready: its `Ready` condition's
/// `lastTransitionTime` when that condition is `True` and has one (upstream `podReadyTime`).
pub fn ready_transition(status: Option<&PodStatus>) -> Option<Millis> {
    status?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready" && c.status == "True")?
        .last_transition_time
        .as_ref()
        .map(millis_of)
}

/// A pod's phase, plus deletion (upstream `PodPhase`; `Gone` is repel's word for a deleted pod).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PodPhase {
    /// Not bound, or bound and not yet admitted by the kubelet.
    Pending,
    /// Admitted by its node's kubelet.
    Running,
    /// Finished successfully (Job pods).
    Succeeded,
    /// Rejected by the kubelet (e.g. an untolerated NoExecute taint) or failed.
    Failed,
}

impl PodPhase {
    /// Upstream's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
        }
    }
}

/// What the cluster reads of a pod's spec when the pod joins it: priority, requests and host
/// ports.
#[derive(Debug, Clone)]
struct SpecFigures {
    priority: i32,
    requests: Resources,
    non_zero: (i64, i64),
    ports: Vec<HostPort>,
}

impl SpecFigures {
    fn of(spec: Option<&PodSpec>) -> Self {
        let s = spec.unwrap_or_else(|| empty_spec());
        SpecFigures {
            priority: s.priority.unwrap_or(0),
            requests: pod_requests(s),
            non_zero: pod_non_zero_requests(s),
            ports: host_ports(s),
        }
    }
}

/// A pod made ready to join a cluster ([`Cluster::add_prepared`]): everything read from it
/// that does not depend on the cluster (its spec's hash for sharing equal specs, its requests,
/// priority and ports), so that the reading can be done on any thread while pods join the
/// cluster one at a time on one. `Cluster::add_pod(pod)` is `add_prepared(PreparedPod::new(pod))`.
#[derive(Debug, Clone)]
pub struct PreparedPod {
    meta: Box<ObjectMeta>,
    spec: Option<(PodSpec, u64)>,
    status: Option<PodStatus>,
    figures: SpecFigures,
}

impl PreparedPod {
    /// Reads `pod`.
    pub fn new(pod: Pod) -> Self {
        let Pod {
            metadata,
            spec,
            status,
        } = pod;
        let figures = SpecFigures::of(spec.as_ref());
        PreparedPod {
            meta: Box::new(metadata),
            spec: spec.map(|s| {
                let hash = spec_hash(&s);
                (s, hash)
            }),
            status,
            figures,
        }
    }
}

impl PodInfo {
    /// The pod's controller: the kind and name of its ownerReference with `controller: true`
    /// (upstream `metav1.GetControllerOf`).
    pub fn controller(&self) -> Option<(&str, &str)> {
        self.meta
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| (o.kind.as_str(), o.name.as_str()))
    }

    /// Derives the scheduler's view of `pod`; `seq` is its creation order.
    pub fn new(pod: Pod, seq: usize) -> Self {
        let Pod {
            metadata,
            spec,
            status,
        } = pod;
        PodInfo::from_parts(metadata, spec.map(Arc::new), status, seq)
    }

    /// [`PodInfo::new`] from a pod's parts, its spec already shared.
    fn from_parts(
        meta: ObjectMeta,
        spec: Option<Arc<PodSpec>>,
        status: Option<PodStatus>,
        seq: usize,
    ) -> Self {
        let figures = SpecFigures::of(spec.as_deref());
        PodInfo::with_figures(Box::new(meta), spec, status, seq, figures)
    }

    /// [`PodInfo::from_parts`] with the figures already read from the spec.
    fn with_figures(
        meta: Box<ObjectMeta>,
        spec: Option<Arc<PodSpec>>,
        status: Option<PodStatus>,
        seq: usize,
        figures: SpecFigures,
    ) -> Self {
        let SpecFigures {
            priority,
            requests,
            non_zero,
            ports,
        } = figures;
        PodInfo {
            namespace: namespace_of(&meta).to_string(),
            name: meta.name.clone().unwrap_or_default(),
            priority,
            requests,
            non_zero,
            ports,
            seq,
            created: meta.creation_timestamp.as_ref().map(millis_of),
            ready_since: ready_transition(status.as_ref()),
            node: None,
            nominated: None,
            phase: PodPhase::Pending,
            deleted: false,
            terminating: false,
            node_name: spec
                .as_ref()
                .and_then(|s| s.node_name.as_deref())
                .map(Arc::from),
            meta,
            shared_labels: None,
            spec,
            status: status.map(Box::new),
        }
    }

    /// The pod's labels (`metadata.labels`; empty when unset).
    pub fn labels(&self) -> &BTreeMap<String, String> {
        static EMPTY: BTreeMap<String, String> = BTreeMap::new();
        self.shared_labels
            .as_deref()
            .or(self.meta.labels.as_ref())
            .unwrap_or(&EMPTY)
    }

    /// Whether the pod's labels are the very map `other`'s are (shared: then they are equal
    /// without being compared).
    pub fn labels_shared_with(&self, other: &PodInfo) -> bool {
        matches!((&self.shared_labels, &other.shared_labels), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
    }

    /// The pod's metadata as stored, labels included.
    pub fn metadata(&self) -> ObjectMeta {
        let mut meta = (*self.meta).clone();
        if let Some(labels) = &self.shared_labels {
            meta.labels = Some((**labels).clone());
        }
        meta
    }

    /// Sets the pod's labels (`None`: none).
    pub fn set_labels(&mut self, labels: Option<BTreeMap<String, String>>) {
        self.meta.labels = labels;
        self.shared_labels = None;
    }

    /// `namespace/name`.
    pub fn key(&self) -> String {
        // (Not `format!`: a report lists 150,000 of these.)
        let mut key = String::with_capacity(self.namespace.len() + 1 + self.name.len());
        key.push_str(&self.namespace);
        key.push('/');
        key.push_str(&self.name);
        key
    }

    /// The pod's spec (empty when absent). Its `nodeName` is the one the pod was created with;
    /// [`PodInfo::spec_node_name`] has the one as it stands.
    pub fn spec(&self) -> &PodSpec {
        self.spec.as_deref().unwrap_or_else(|| empty_spec())
    }

    /// The pod's spec to change (created empty when absent); a spec shared with other pods is
    /// copied first. Set `nodeName` with [`PodInfo::set_spec_node_name`] instead.
    pub fn spec_mut(&mut self) -> &mut PodSpec {
        Arc::make_mut(self.spec.get_or_insert_with(Default::default))
    }

    /// The shared spec itself (`None` when the pod has none): pods whose specs are the same
    /// [`Arc`] have equal specs.
    pub fn shared_spec(&self) -> Option<&Arc<PodSpec>> {
        self.spec.as_ref()
    }

    /// The pod's status to change (created empty when absent).
    pub fn status_mut(&mut self) -> &mut PodStatus {
        self.status.get_or_insert_with(Default::default)
    }

    /// The status of the pod's condition `type_` (`"True"`, `"False"`, …), if it has one.
    pub fn condition(&self, type_: &str) -> Option<&str> {
        self.status
            .as_ref()?
            .conditions
            .as_ref()?
            .iter()
            .find(|c| c.type_ == type_)
            .map(|c| c.status.as_str())
    }

    /// Sets the pod's condition `type_` (replacing one of that type, as upstream's
    /// `UpdatePodCondition`); returns whether its status, reason or message changed. The
    /// transition time is left to the driver (`serve` writes the wall clock's).
    pub fn set_condition(
        &mut self,
        type_: &str,
        status: &str,
        reason: Option<&str>,
        message: Option<&str>,
    ) -> bool {
        use k8s_openapi::api::core::v1::PodCondition;
        let new = PodCondition {
            type_: type_.to_string(),
            status: status.to_string(),
            reason: reason.map(str::to_string),
            message: message.map(str::to_string),
            ..Default::default()
        };
        let conditions = self.status_mut().conditions.get_or_insert_with(Vec::new);
        match conditions.iter_mut().find(|c| c.type_ == type_) {
            Some(c)
                if c.status == new.status && c.reason == new.reason && c.message == new.message =>
            {
                false
            }
            Some(c) => {
                *c = new;
                true
            }
            None => {
                conditions.push(new);
                true
            }
        }
    }

    /// Whether the pod has required pod anti-affinity terms.
    pub fn has_required_anti_affinity(&self) -> bool {
        self.spec()
            .affinity
            .as_ref()
            .and_then(|a| a.pod_anti_affinity.as_ref())
            .and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })
            .is_some_and(|t| !t.is_empty())
    }

    /// The pod's tolerations.
    pub fn tolerations(&self) -> &[Toleration] {
        self.spec().tolerations.as_deref().unwrap_or_default()
    }

    /// `spec.nodeName` as it stands (as created, then the node it was bound to), when set and
    /// non-empty.
    pub fn spec_node_name(&self) -> Option<&str> {
        self.node_name.as_deref().filter(|n| !n.is_empty())
    }

    /// Sets `spec.nodeName` (nothing when the pod has no spec), without copying the shared
    /// spec.
    pub fn set_spec_node_name(&mut self, name: Option<String>) {
        self.set_shared_node_name(name.map(Arc::from));
    }

    /// [`PodInfo::set_spec_node_name`] with a name shared with its node.
    fn set_shared_node_name(&mut self, name: Option<Arc<str>>) {
        if self.spec.is_some() {
            self.node_name = name;
        }
    }

    /// The pod as stored: metadata, spec (with `nodeName` as it stands) and status.
    pub fn to_pod(&self) -> Pod {
        Pod {
            metadata: self.metadata(),
            spec: self.spec.as_deref().map(|s| PodSpec {
                node_name: self.node_name.as_deref().map(str::to_string),
                ..s.clone()
            }),
            status: self.status.as_deref().cloned(),
        }
    }
}

/// An empty spec, for pods without one.
fn empty_spec() -> &'static PodSpec {
    static EMPTY: std::sync::OnceLock<PodSpec> = std::sync::OnceLock::new();
    EMPTY.get_or_init(PodSpec::default)
}

/// A node with what runs on it (upstream `NodeInfo`).
#[derive(Debug, Clone)]
pub struct NodeInfo {
    /// The node (shared: the preemption dry run copies NodeInfos, not the object).
    pub node: std::sync::Arc<Node>,
    /// Its name.
    pub name: String,
    /// Its name again, shared with the pods bound to it (their `spec.nodeName`): binding
    /// 150,000 pods then allocates no string (used only while it equals `name`).
    shared_name: Arc<str>,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its taints.
    pub taints: Vec<Taint>,
    /// `spec.unschedulable` (cordoned).
    pub unschedulable: bool,
    /// `status.allocatable`.
    pub allocatable: Resources,
    /// The sum of its pods' requests.
    pub requested: Resources,
    /// The sum of its pods' non-zero requests `(milli_cpu, memory)`.
    pub non_zero_requested: (i64, i64),
    /// Its pods.
    pub pods: Vec<PodId>,
    /// Those of its pods with required pod anti-affinity terms (upstream
    /// `NodeInfo.PodsWithRequiredAntiAffinity`), so that InterPodAffinity's PreFilter need
    /// not read every pod.
    pub pods_with_required_anti_affinity: Vec<PodId>,
    /// Host ports in use.
    pub used_ports: Vec<HostPort>,
}

impl NodeInfo {
    /// A node with nothing on it.
    pub fn new(node: Node) -> Self {
        let spec = node.spec.clone().unwrap_or_default();
        NodeInfo {
            name: node.metadata.name.clone().unwrap_or_default(),
            shared_name: Arc::from(node.metadata.name.as_deref().unwrap_or_default()),
            labels: node.metadata.labels.clone().unwrap_or_default(),
            taints: spec.taints.clone().unwrap_or_default(),
            unschedulable: spec.unschedulable.unwrap_or(false),
            allocatable: node_allocatable(&node),
            requested: Resources::default(),
            non_zero_requested: (0, 0),
            pods: Vec::new(),
            pods_with_required_anti_affinity: Vec::new(),
            used_ports: Vec::new(),
            node: std::sync::Arc::new(node),
        }
    }

    /// Accounts a pod on this node (upstream `NodeInfo.AddPod`).
    pub fn add_pod(&mut self, id: PodId, pod: &PodInfo) {
        self.pods.push(id);
        if pod.has_required_anti_affinity() {
            self.pods_with_required_anti_affinity.push(id);
        }
        self.requested.add(&pod.requests);
        self.non_zero_requested.0 += pod.non_zero.0;
        self.non_zero_requested.1 += pod.non_zero.1;
        self.used_ports.extend(pod.ports.iter().cloned());
    }

    /// Removes a pod's accounting (upstream `NodeInfo.RemovePod`).
    pub fn remove_pod(&mut self, id: PodId, pod: &PodInfo) {
        let Some(pos) = self.pods.iter().position(|p| *p == id) else {
            return;
        };
        self.pods.remove(pos);
        self.pods_with_required_anti_affinity.retain(|p| *p != id);
        self.requested.sub(&pod.requests);
        self.non_zero_requested.0 -= pod.non_zero.0;
        self.non_zero_requested.1 -= pod.non_zero.1;
        for port in &pod.ports {
            if let Some(i) = self.used_ports.iter().position(|p| p == port) {
                self.used_ports.remove(i);
            }
        }
    }
}

/// The namespace called `name` among `namespaces`.
pub fn namespace_in<'a>(namespaces: &'a [Namespace], name: &str) -> Option<&'a Namespace> {
    namespaces
        .iter()
        .find(|n| n.metadata.name.as_deref() == Some(name))
}

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
        } = pod;
        let spec = spec.map(|(s, hash)| self.specs.intern(s, hash));
        let mut info = PodInfo::with_figures(meta, spec, status, id, figures);
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
        let info = PodInfo {
            namespace: namespace_of(&meta).to_string(),
            name: meta.name.clone().unwrap_or_default(),
            priority: l.priority,
            requests: l.requests.clone(),
            non_zero: l.non_zero,
            ports: l.ports.clone(),
            seq: id,
            created: meta.creation_timestamp.as_ref().map(millis_of),
            ready_since: None,
            node: None,
            nominated: None,
            phase: PodPhase::Pending,
            deleted: false,
            terminating: false,
            node_name: spec
                .as_ref()
                .and_then(|s| s.node_name.as_deref())
                .map(Arc::from),
            meta,
            shared_labels: labels,
            spec,
            status: None,
        };
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

    /// Whether a node's kubelet runs: its Ready condition is True, or it reports none (a
    /// hand-written node).
    pub fn node_ready(&self, node: NodeId) -> bool {
        let Some(n) = self.nodes.get(node) else {
            return false;
        };
        n.node
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
            .is_none_or(|c| c.status == "True")
    }

    /// Replaces a node's taints (`spec.taints`, and the [`NodeInfo::taints`] the plugins read).
    pub fn set_node_taints(&mut self, node: NodeId, taints: Vec<Taint>) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        std::sync::Arc::make_mut(&mut n.node)
            .spec
            .get_or_insert_with(Default::default)
            .taints = (!taints.is_empty()).then(|| taints.clone());
        n.taints = taints;
        self.touch_node(node);
    }

    /// Edits a node's taints in place (`kubectl taint`): the kept taints are moved, only the
    /// additions copied, in [`NodeInfo::taints`] and in `spec.taints` alike.
    pub fn edit_node_taints(&mut self, node: NodeId, edit: &repel_core::kubectl::TaintEdit) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        let spec = &mut std::sync::Arc::make_mut(&mut n.node)
            .spec
            .get_or_insert_with(Default::default)
            .taints;
        let same = spec.as_deref().unwrap_or_default() == n.taints.as_slice();
        edit.apply(&mut n.taints);
        if n.taints.is_empty() {
            *spec = None;
        } else if same {
            edit.apply(spec.get_or_insert_with(Vec::new));
        } else {
            *spec = Some(n.taints.clone());
        }
        self.touch_node(node);
    }

    /// Replaces a node's labels, keeping the label index current.
    pub fn set_node_labels(&mut self, node: NodeId, labels: BTreeMap<String, String>) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        for (k, v) in &n.labels {
            if let Some(ids) = self.label_index.get_mut(&(k.clone(), v.clone())) {
                ids.retain(|i| *i != node);
            }
        }
        for (k, v) in &labels {
            self.label_index
                .entry((k.clone(), v.clone()))
                .or_default()
                .push(node);
        }
        std::sync::Arc::make_mut(&mut n.node).metadata.labels =
            (!labels.is_empty()).then(|| labels.clone());
        n.labels = labels;
        self.touch_node(node);
    }

    /// Sets a node's `spec.unschedulable` (cordon/uncordon).
    pub fn set_unschedulable(&mut self, node: NodeId, unschedulable: bool) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        n.unschedulable = unschedulable;
        std::sync::Arc::make_mut(&mut n.node)
            .spec
            .get_or_insert_with(Default::default)
            .unschedulable = unschedulable.then_some(true);
        self.touch_node(node);
    }

    /// Deletes node `node` (`kubectl delete node`). The nodes after it move down one id, and
    /// every pod and index follows. Its pods are not deleted: they stay, unbound but still
    /// naming the node in `spec.nodeName`, until the pod garbage collector removes them
    /// ([`crate::controllers::pod_gc`]), as upstream. Returns those pods. Controllers that keep
    /// node ids must be told ([`crate::controllers::Controller::node_removed`]).
    pub fn delete_node(&mut self, node: NodeId) -> Vec<PodId> {
        if node >= self.nodes.len() {
            return Vec::new();
        }
        let info = self.nodes.remove(node);
        self.images = std::sync::OnceLock::new();
        let shift = |n: NodeId| if n > node { n - 1 } else { n };
        let mut orphaned = Vec::new();
        for (id, p) in self.pods.iter_mut().enumerate() {
            p.nominated = p.nominated.filter(|n| *n != node).map(shift);
            match p.node {
                Some(n) if n == node => {
                    p.node = None;
                    if !p.deleted {
                        orphaned.push(id);
                    }
                }
                Some(n) => p.node = Some(shift(n)),
                None => {}
            }
        }
        self.node_index.remove(&info.name);
        for id in self.node_index.values_mut() {
            *id = shift(*id);
        }
        for ids in self.label_index.values_mut() {
            ids.retain(|i| *i != node);
            for i in ids.iter_mut() {
                *i = shift(*i);
            }
        }
        self.label_index.retain(|_, ids| !ids.is_empty());
        let name = info.name;
        self.note(move |_| Action::DeleteNode(name));
        orphaned
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
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    fn meta(name: &str, owner: Option<(&str, &str)>) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            owner_references: owner.map(|(kind, name)| {
                vec![OwnerReference {
                    kind: kind.into(),
                    name: name.into(),
                    controller: Some(true),
                    ..Default::default()
                }]
            }),
            ..Default::default()
        }
    }

    fn pod(name: &str, owner: Option<(&str, &str)>) -> Pod {
        Pod {
            metadata: meta(name, owner),
            spec: Some(PodSpec::default()),
            status: None,
        }
    }

    /// What a scan of every pod finds: the owner index must agree with it.
    fn scanned(c: &Cluster, kind: &str, name: &str) -> Vec<PodId> {
        (0..c.pods.len())
            .filter(|i| {
                owner_key(&c.pods[*i])
                    == Some(("default".into(), kind.to_string(), name.to_string()))
            })
            .collect()
    }

    #[test]
    fn the_owner_index_follows_added_pods_and_changed_controllers() {
        let mut c = Cluster::new();
        let a = c.add_pod(pod("a", Some(("ReplicaSet", "web-1"))));
        c.add_pod(pod("b", None));
        // Built now; pods added later join it.
        assert_eq!(c.pods_owned_by("default", "ReplicaSet", "web-1"), &[a]);
        let like = c
            .add_pod_like(a, meta("c", Some(("ReplicaSet", "web-1"))))
            .unwrap();
        let d = c.add_pod(pod("d", Some(("ReplicaSet", "web-2"))));
        assert_eq!(
            c.pods_owned_by("default", "ReplicaSet", "web-1"),
            &[a, like]
        );
        // Adopted (b), orphaned (d), moved (a): the index moves them, in id order.
        c.set_pod_meta(1, meta("b", Some(("ReplicaSet", "web-2"))));
        c.set_pod_meta(d, meta("d", None));
        c.set_pod_meta(a, meta("a", Some(("ReplicaSet", "web-2"))));
        for (kind, name) in [("ReplicaSet", "web-1"), ("ReplicaSet", "web-2")] {
            assert_eq!(
                c.pods_owned_by("default", kind, name),
                scanned(&c, kind, name).as_slice(),
                "{name}"
            );
        }
        assert_eq!(c.pods_owned_by("default", "ReplicaSet", "web-2"), &[a, 1]);
        assert!(c.pods_owned_by("other", "ReplicaSet", "web-2").is_empty());
        // Deleted pods stay listed (callers filter them).
        c.delete_pod(like);
        assert_eq!(c.pods_owned_by("default", "ReplicaSet", "web-1"), &[like]);
    }

    /// Upstream `DefaultSelector` takes a ReplicationController's selector map as a set
    /// selector: the RC's pods are spread by it, as a ReplicaSet's by its `matchLabels`.
    #[test]
    fn a_replication_controllers_selector_is_its_pods_default_spread_selector() {
        let rc: k8s_openapi::api::core::v1::ReplicationController =
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"selector": {"app": "web"},
                         "template": {"metadata": {"labels": {"app": "web"}}}}}))
            .unwrap_or_default();
        let w = repel_core::workload::Workload::from(rc);
        let (key, sel) = Cluster::owner_selector(&w, "web").unwrap_or_else(|| {
            (
                Default::default(),
                repel_core::labels::LabelSelector::nothing(),
            )
        });
        assert_eq!(
            key,
            (
                "ReplicationController".to_string(),
                "default".to_string(),
                "web".to_string()
            )
        );
        let labels = |v: &str| [("app".to_string(), v.to_string())].into();
        assert!(sel.matches(&labels("web")));
        assert!(!sel.matches(&labels("db")));
    }
}
