//! A pod and a node as the scheduler reads them ([`PodInfo`], [`NodeInfo`], host ports and
//! phases), after upstream `pkg/scheduler/framework/types.go`.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodSpec, PodStatus, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use repel_core::workload::namespace_of;

use super::{NodeId, PodId, spec_hash};
use crate::clock::Millis;
use crate::resources::{Resources, node_allocatable, pod_non_zero_requests, pod_requests};

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
    pub(super) shared_labels: Option<Arc<BTreeMap<String, String>>>,
    /// The pod's spec as stored, without the binding; `None` when the pod has none.
    pub(super) spec: Option<Arc<PodSpec>>,
    /// `spec.nodeName` as it stands: as created, then the node the pod was bound to (shared
    /// with the node: see [`NodeInfo`]'s `shared_name`).
    pub(super) node_name: Option<Arc<str>>,
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
pub(super) struct SpecFigures {
    pub(super) priority: i32,
    pub(super) requests: Resources,
    pub(super) non_zero: (i64, i64),
    pub(super) ports: Vec<HostPort>,
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
    pub(super) meta: Box<ObjectMeta>,
    pub(super) spec: Option<(PodSpec, u64)>,
    pub(super) status: Option<PodStatus>,
    pub(super) figures: SpecFigures,
    /// `spec.nodeName` when kept apart from the spec ([`PreparedPod::bound_apart`]): the
    /// spec then has none, and is shared by the pods of its template on every node.
    pub(super) node_name: Option<Option<String>>,
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
            node_name: None,
        }
    }

    /// Reads `pod` with its `spec.nodeName` kept apart from its spec (a stored pod, bound to
    /// its node): the cluster then holds one spec for the pods of one template on every node,
    /// as [`PodInfo`] keeps `nodeName` apart already.
    pub fn bound_apart(mut pod: Pod) -> Self {
        let node_name = pod.spec.as_mut().and_then(|s| s.node_name.take());
        let mut prepared = PreparedPod::new(pod);
        if prepared.spec.is_some() {
            prepared.node_name = Some(node_name);
        }
        prepared
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
    pub(super) fn with_figures(
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
    pub(super) fn set_shared_node_name(&mut self, name: Option<Arc<str>>) {
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
    pub(super) shared_name: Arc<str>,
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
