//! Building a [`Cluster`] from manifests' objects, as a cluster would hold them: nodes, then
//! every pod admitted (DefaultTolerationSeconds, PodTolerationRestriction) — plain Pods in input
//! order, then each workload's pods as its controller creates them.

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Namespace, Node, NodeStatus, Pod, PodSpec};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, create_pod};
use repel_core::workload::claim::{Create, OwnerId, claim_pods, taken_names};
use repel_core::workload::{Workload, for_each_planned_part, namespace_of, pin_to_node};

use crate::cluster::{Cluster, PodId};

/// What a node without `status.allocatable` is taken to offer: kubelet's default `maxPods`
/// (110) and more CPU, memory and storage than any pod asks for. Hand-written manifests rarely
/// carry a status; without this every pod would be "Too many pods" there.
pub const ASSUMED_ALLOCATABLE: [(&str, &str); 4] = [
    ("pods", "110"),
    ("cpu", "100k"),
    ("memory", "1Pi"),
    ("ephemeral-storage", "1Pi"),
];

/// The objects a cluster is built from.
#[derive(Debug, Clone, Default)]
pub struct ClusterInput {
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Pods (bound ones count against their node).
    pub pods: Vec<Pod>,
    /// Workloads, expanded into pods.
    pub workloads: Vec<Workload>,
    /// Namespaces (annotations for PodTolerationRestriction, labels for namespaceSelector).
    pub namespaces: Vec<Namespace>,
    /// PodDisruptionBudgets (preemption prefers not to violate them).
    pub pdbs: Vec<PodDisruptionBudget>,
    /// PriorityClasses (the Priority admission plugin resolves `priorityClassName` with them).
    pub priority_classes: Vec<PriorityClass>,
    /// Node pools (AKS agent pools, EKS and eksctl node groups, Karpenter NodePools): their
    /// controllers run in the control plane ([`crate::controllers::node_pools`]).
    pub pools: Vec<repel_core::pools::Pool>,
    /// Karpenter NodeClaims as written (`karpenter.sh/v1`): handed to the Karpenter controller
    /// ([`crate::controllers::karpenter::Karpenter::adopt`]).
    pub node_claims: Vec<serde_json::Value>,
    /// Instance-type capacities given by the user (a scenario's `instanceTypes`), by name.
    pub instance_types:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
}

/// A built cluster and what did not make it in.
#[derive(Debug, Clone, Default)]
pub struct Built {
    /// The cluster.
    pub cluster: Cluster,
    /// Notes for the user (assumed allocatable, …).
    pub warnings: Vec<String>,
    /// Pods the API server would refuse (admission or validation): `(ns/name, message)`.
    pub rejected: Vec<(String, String)>,
    /// For each workload of the input (in order), whom its pods belong to: `None` when another
    /// workload of the input manages it (a Deployment's ReplicaSet, a CronJob's given Job).
    pub owners: Vec<Option<OwnerId>>,
}

/// Defaults a node's status as the API server does (`SetDefaults_NodeStatus`: allocatable is
/// capacity when only capacity is given); a node with neither gets [`ASSUMED_ALLOCATABLE`].
/// Returns whether it assumed.
pub fn assume_allocatable(node: &mut Node) -> bool {
    if repel_core::object_defaults::set_defaults_node_status(node) {
        return false;
    }
    let status = node.status.get_or_insert_with(NodeStatus::default);
    if status.allocatable.is_some() {
        return false;
    }
    status.allocatable = Some(
        ASSUMED_ALLOCATABLE
            .iter()
            .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
            .collect(),
    );
    true
}

/// Admits a pod as the API server would create it and adds it; a refused pod is listed.
fn admit_and_add(
    built: &mut Built,
    mut pod: Pod,
    admission: &AdmissionConfig,
    gates: &FeatureGates,
) -> Option<PodId> {
    let ns = namespace_of(&pod.metadata).to_string();
    match create_pod(&mut pod, built.cluster.namespace(&ns), admission, gates) {
        Ok(()) => Some(built.cluster.add_pod(pod)),
        Err(e) => {
            let key = format!("{ns}/{}", pod.metadata.name.as_deref().unwrap_or_default());
            built.rejected.push((key, e.to_string()));
            None
        }
    }
}

/// Builds the cluster: nodes (with [`assume_allocatable`]), then pods admitted in creation
/// order (Pods as given, then workload pods named from `seed`); pods the API server would
/// refuse (admission, or invalid tolerations) are left out and listed.
pub fn build_cluster(
    input: ClusterInput,
    gates: &FeatureGates,
    admission: &AdmissionConfig,
    seed: u64,
) -> Built {
    let mut built = Built::default();
    let mut admission = admission.clone();
    admission
        .priority_classes
        .extend(input.priority_classes.iter().cloned());
    let mut assumed = Vec::new();
    let mut nodes = input.nodes;
    for n in &mut nodes {
        if assume_allocatable(n) {
            assumed.push(n.metadata.name.clone().unwrap_or_default());
        }
    }
    if !assumed.is_empty() {
        built.warnings.push(format!(
            "node(s) without status.allocatable or status.capacity, taken to allow 110 pods and unlimited cpu, memory and storage: {}",
            assumed.join(", ")
        ));
    }
    built.cluster.namespaces = input.namespaces;
    for ns in &mut built.cluster.namespaces {
        repel_core::object_defaults::set_defaults_namespace(ns);
    }
    built.cluster.pdbs = input.pdbs;
    for n in &nodes {
        built.cluster.add_node(n.clone());
    }
    // What each workload's controller finds already there (its pods, adopted orphans) and
    // so still creates.
    let mut pods = input.pods;
    let claims = claim_pods(&input.workloads, &mut pods, &nodes, gates);
    for (w, wp) in input.workloads.iter().zip(&claims.workloads) {
        if let Some(owner) = &wp.owner {
            built.cluster.register_workload(w, &owner.name);
        }
    }
    built.owners = claims.workloads.iter().map(|w| w.owner.clone()).collect();
    let taken = taken_names(&pods);
    // Every pod is known before the first is made: one allocation for them all (growing by
    // doubling would copy 150,000 pods' records several times over and fault in fresh pages
    // for each copy).
    let planned: usize = claims
        .workloads
        .iter()
        .map(|w| match &w.create {
            Create::Nothing => 0,
            Create::Pods(n) => *n,
            Create::Ordinals(o) => o.len(),
            Create::OnNodes(n) => n.len(),
        })
        .sum();
    // (`try_reserve`: a plan too big to hold at once still grows as before.)
    let _ = built
        .cluster
        .pods
        .try_reserve(pods.len().saturating_add(planned));
    for pod in pods {
        admit_and_add(&mut built, pod, &admission, gates);
    }
    // One workload's pods at a time. A workload's pods share one spec: it is admitted once (the
    // admission chain reads only the spec and the namespace) and the cluster shares it, with
    // what the scheduler reads of it, among them; a DaemonSet's pods each carry their node.
    // Pods are made one at a time, so a workload of a million replicas is never held twice.
    for (w, wp) in input.workloads.iter().zip(&claims.workloads) {
        let ns = w.namespace();
        // The first pod admitted, and its stored spec (a DaemonSet's pods then differ from it
        // only in the node each is pinned to, which admission does not read).
        let mut first: Option<(PodId, Arc<PodSpec>)> = None;
        let mut stopped = false;
        let taken = |name: &str| !taken.is_empty() && taken.contains(&format!("{ns}/{name}"));
        for_each_planned_part(w, wp, seed, taken, |spec, meta, pin| {
            if stopped {
                return;
            }
            let whole = |metadata, pin: &Option<String>| {
                let mut spec = spec.clone();
                if let Some(node) = pin {
                    pin_to_node(&mut spec, node);
                }
                Pod {
                    metadata,
                    spec: Some(spec),
                    status: None,
                }
            };
            // A template naming its node: each pod on its own.
            if spec.node_name.as_deref().is_some_and(|n| !n.is_empty()) {
                admit_and_add(&mut built, whole(meta, &pin), &admission, gates);
                return;
            }
            if let Some((like, admitted)) = &first {
                let own = pin.as_ref().map(|node| {
                    let mut s = PodSpec::clone(admitted);
                    pin_to_node(&mut s, node);
                    s
                });
                stopped = built.cluster.add_pod_like_with(*like, meta, own).is_none();
                return;
            }
            // Refused: each pod is refused alike, with its own name in the message.
            first =
                admit_and_add(&mut built, whole(meta, &pin), &admission, gates).and_then(|id| {
                    let admitted = Arc::clone(built.cluster.pods.get(id)?.shared_spec()?);
                    Some((id, admitted))
                });
        });
    }
    let orphans: Vec<String> = built
        .cluster
        .orphans()
        .iter()
        .filter(|p| {
            built.cluster.pods[**p]
                .spec_node_name()
                .is_some_and(|n| built.cluster.node_id(n).is_none())
        })
        .map(|p| built.cluster.pods[*p].key())
        .collect();
    if !orphans.is_empty() {
        built.warnings.push(format!(
            "pod(s) naming a node that is not in the input (spec.nodeName), left out: {}",
            orphans.join(", ")
        ));
    }
    built
}
