//! Building a [`Cluster`] from manifests' objects, as a cluster would hold them: nodes, then
//! every pod admitted (DefaultTolerationSeconds, PodTolerationRestriction) — plain Pods in input
//! order, then each workload's pods as its controller creates them.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Namespace, Node, NodeStatus, Pod, PodSpec};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::FeatureGates;
use repel_core::admission::{
    AdmissionConfig, create_pod, is_stored, resolve_priority, set_defaults_pod,
};
use repel_core::workload::claim::{OwnerId, WorkloadPlan, claim_pods};
use repel_core::workload::{
    PlannedPods, Workload, expand_planned_parts, for_each_planned_part, namespace_of, pin_to_node,
};

use crate::cluster::{Cluster, NodeInfo, PodId, PreparedPod};

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
    /// `--strict-nodes`: a node with neither `status.allocatable` nor `status.capacity` is
    /// kept as the API server stores it — no allocatable, so kube-scheduler's NodeResourcesFit
    /// fits no pod on it (`Too many pods`) — instead of [`ASSUMED_ALLOCATABLE`].
    pub strict_nodes: bool,
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

/// The warning for nodes with neither `status.allocatable` nor `status.capacity` (hand-written
/// nodes): what repel took them to hold, and how to get kube-scheduler's own answer.
pub fn statusless_nodes_warning(names: &[String], strict: bool) -> String {
    let list = names.join(", ");
    if strict {
        format!(
            "node(s) without status.allocatable or status.capacity fit no pod, as in kube-scheduler (Too many pods; --strict-nodes): {list}"
        )
    } else {
        format!(
            "node(s) without status.allocatable or status.capacity, taken to allow 110 pods and unlimited cpu, memory and storage, so every placement on them is a guess (give them a status, e.g. from `kubectl get nodes -o yaml`, or --strict-nodes to fit nothing on them as kube-scheduler would): {list}"
        )
    }
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

/// A pod the API server already stored ([`is_stored`]: from a dump, a snapshot or a live read)
/// as the cluster holds it: admission ran when it was created and does not run again (its
/// tolerations, priority and defaults are what it says). Only what defaulting would add to a
/// pod written without it is filled in: requests from limits, and the priority of its class when
/// it names one but carries no `spec.priority` (a class the input lacks leaves it unset).
fn restored(mut pod: Pod, admission: &AdmissionConfig) -> Pod {
    if let Some(spec) = pod.spec.as_mut() {
        set_defaults_pod(spec);
        if spec.priority.is_none() {
            let _ = resolve_priority(spec, &admission.priority_classes);
        }
    }
    pod
}

/// The spec (without `nodeName`) of the stored pod added last, as read, and its id.
type LastStored = Option<(PodSpec, PodId)>;

/// Adds a stored pod ([`restored`]), its `nodeName` kept apart from its spec
/// ([`PreparedPod::bound_apart`]): the bound pods of one template share one spec on every
/// node. A pod whose spec as read is the last stored pod's (the pods of a ReplicaSet come one
/// after another in a cluster's listing) shares that pod's spec and figures at once
/// ([`Cluster::add_stored_like`]): restoring depends on the spec alone, so equal specs as read
/// are equal as restored.
fn add_stored(built: &mut Built, pod: Pod, admission: &AdmissionConfig, last: &mut LastStored) {
    let Pod {
        metadata,
        spec,
        status,
    } = pod;
    let Some(mut spec) = spec else {
        let pod = Pod {
            metadata,
            spec,
            status,
        };
        built.cluster.add_pod(restored(pod, admission));
        return;
    };
    let node_name = spec.node_name.take();
    if let Some((read, like)) = last.as_ref()
        && *read == spec
        && built.cluster.pods.get(*like).is_some()
    {
        built
            .cluster
            .add_stored_like(*like, Box::new(metadata), node_name, status);
        return;
    }
    let read = spec.clone();
    spec.node_name = node_name;
    let pod = restored(
        Pod {
            metadata,
            spec: Some(spec),
            status,
        },
        admission,
    );
    let id = built.cluster.add_prepared(PreparedPod::bound_apart(pod));
    *last = Some((read, id));
}

/// A workload's pods, made ready to join the cluster.
enum Prepared {
    /// No pods to make.
    Nothing,
    /// The first pod as admitted, then the others' metadata, each with its own spec when it
    /// differs from the first's (a DaemonSet's pods are pinned each to its node).
    Admitted {
        first: Box<PreparedPod>,
        /// (With the first's labels, shared, for a pod whose labels were the first's: its own
        /// are taken off it.)
        rest: Vec<SharingPod>,
    },
    /// Each pod is admitted on its own, in order ([`add_one_by_one`]): a template that names
    /// its node, a first pod admission refuses (each is refused alike, with its own name in
    /// the message), or a workload too big to hold its pods' metadata at once.
    OneByOne,
}

/// Above this many pods a workload's pods are made one at a time as they join the cluster
/// (never all held at once beside the cluster's copies).
const PREPARE_MAX_PODS: usize = 100_000;

/// Makes `w`'s planned pods and admits the first (see [`Prepared`]); reads nothing the cluster
/// changes as pods join it.
fn prepare_workload(
    w: &Workload,
    wp: &WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
    namespace: Option<&Namespace>,
    admission: &AdmissionConfig,
    gates: &FeatureGates,
) -> Prepared {
    if wp.create.count() > PREPARE_MAX_PODS {
        return Prepared::OneByOne;
    }
    let Some(PlannedPods { spec, pods }) = expand_planned_parts(w, wp, seed, taken) else {
        return Prepared::Nothing;
    };
    if spec.node_name.as_deref().is_some_and(|n| !n.is_empty()) {
        return Prepared::OneByOne;
    }
    let mut pods = pods.into_iter();
    let Some((meta, pin)) = pods.next() else {
        return Prepared::Nothing;
    };
    // The first pod takes the shared spec itself (the rest are made from what admission
    // made of it): one copy of a template's spec per workload, not two.
    let mut spec = spec;
    if let Some(node) = pin.as_deref() {
        pin_to_node(&mut spec, node);
    }
    let mut first = Pod {
        metadata: *meta,
        spec: Some(spec),
        status: None,
    };
    if create_pod(&mut first, namespace, admission, gates).is_err() {
        return Prepared::OneByOne;
    }
    let Some(admitted) = first.spec.as_ref() else {
        return Prepared::OneByOne;
    };
    // The others' labels, where they are the first's, are shared. (Each was made as a map of
    // its own and is dropped here, on the thread that made it, whose next pod reuses the
    // memory: the cluster holds one map per workload, not per pod.)
    let first_labels = first.metadata.labels.as_ref();
    let mut labels: Option<Arc<BTreeMap<String, String>>> = None;
    let rest = pods
        .map(|(mut meta, pin)| {
            let own = pin.map(|node| Arc::new(pinned(admitted, Some(&node))));
            let same = meta.labels.is_some() && meta.labels.as_ref() == first_labels;
            let shared = same.then(|| {
                meta.labels = None;
                let one = || Arc::new(first_labels.cloned().unwrap_or_default());
                Arc::clone(labels.get_or_insert_with(one))
            });
            (meta, own, shared)
        })
        .collect();
    Prepared::Admitted {
        // Read here, on a preparing thread, not where the pods join the cluster one at a time.
        first: Box::new(PreparedPod::new(first)),
        rest,
    }
}

/// A prepared pod after the first: its metadata, its own spec when it differs from the
/// first's, and the first's labels, shared, when they were its labels too.
type SharingPod = (
    Box<ObjectMeta>,
    Option<Arc<PodSpec>>,
    Option<Arc<BTreeMap<String, String>>>,
);

/// `spec`, pinned to `node` when given.
fn pinned(spec: &PodSpec, node: Option<&str>) -> PodSpec {
    let mut spec = spec.clone();
    if let Some(node) = node {
        pin_to_node(&mut spec, node);
    }
    spec
}

/// Adds `w`'s planned pods one at a time, each admitted unless it is like the first admitted
/// one (then it shares its spec).
fn add_one_by_one(
    built: &mut Built,
    w: &Workload,
    wp: &WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
    admission: &AdmissionConfig,
    gates: &FeatureGates,
) {
    // The first pod admitted, and its stored spec (a DaemonSet's pods then differ from it only
    // in the node each is pinned to, which admission does not read).
    let mut first: Option<(PodId, Arc<PodSpec>)> = None;
    let mut stopped = false;
    for_each_planned_part(w, wp, seed, taken, |spec, meta, pin| {
        if stopped {
            return;
        }
        let whole = |metadata, pin: &Option<String>| Pod {
            metadata,
            spec: Some(pinned(spec, pin.as_deref())),
            status: None,
        };
        // A template naming its node: each pod on its own.
        if spec.node_name.as_deref().is_some_and(|n| !n.is_empty()) {
            admit_and_add(built, whole(meta, &pin), admission, gates);
            return;
        }
        if let Some((like, admitted)) = &first {
            let own = pin
                .as_deref()
                .map(|node| Arc::new(pinned(admitted, Some(node))));
            stopped = built
                .cluster
                .add_pod_like_with(*like, Box::new(meta), own, None)
                .is_none();
            return;
        }
        // Refused: each pod is refused alike, with its own name in the message.
        first = admit_and_add(built, whole(meta, &pin), admission, gates).and_then(|id| {
            let admitted = Arc::clone(built.cluster.pods.get(id)?.shared_spec()?);
            Some((id, admitted))
        });
    });
}

/// The names of the pods given, by namespace: a generated name is looked up without being
/// copied into a `namespace/name` string ([`taken_names`]'s form) for each of 150,000 pods.
type TakenNames = std::collections::HashMap<String, std::collections::HashSet<String>>;

/// [`TakenNames`] of `pods`.
fn taken_names(pods: &[Pod]) -> TakenNames {
    let mut taken = TakenNames::new();
    for p in pods {
        taken
            .entry(namespace_of(&p.metadata).to_string())
            .or_default()
            .insert(p.metadata.name.clone().unwrap_or_default());
    }
    taken
}

/// Whether pod `name` of namespace `ns` is among the `taken` names.
fn name_taken(taken: &TakenNames, ns: &str, name: &str) -> bool {
    taken.get(ns).is_some_and(|names| names.contains(name))
}

/// From how many workloads the input left after a build is freed on another thread
/// ([`crate::drop_elsewhere`]); a small one is freed where the build ends.
const DROP_ELSEWHERE_FROM: usize = 1024;

/// Workloads taken in batches of this many by the threads preparing them.
const PREPARE_BATCH: usize = 32;

/// Calls `consume(i, prepare(i, item))` for every item in order, the `prepare` calls running on
/// `threads` threads ahead of the `consume` calls (on this thread).
fn for_each_prepared<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    prepare: impl Fn(usize, &T) -> R + Sync,
    mut consume: impl FnMut(usize, R),
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    if threads < 2 || items.len() < 2 * PREPARE_BATCH {
        for (i, item) in items.iter().enumerate() {
            consume(i, prepare(i, item));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // Bounded: the preparing threads run at most a few batches ahead of the pods joining
        // the cluster, so what they made is moved in and its memory used again while it is
        // fresh, not all of it held at once (a DaemonSet's pods carry a spec each).
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<R>)>(2 * threads);
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, prepare) = (&next, &prepare);
            scope.spawn(move || {
                loop {
                    let batch = next.fetch_add(1, Ordering::Relaxed);
                    let start = batch.saturating_mul(PREPARE_BATCH);
                    if start >= items.len() {
                        break;
                    }
                    let end = (start + PREPARE_BATCH).min(items.len());
                    let done = items[start..end]
                        .iter()
                        .enumerate()
                        .map(|(k, item)| prepare(start + k, item))
                        .collect();
                    if tx.send((batch, done)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Batches arrive in any order; they are consumed in order.
        let mut waiting = std::collections::BTreeMap::new();
        let mut want = 0;
        for (batch, done) in rx {
            waiting.insert(batch, done);
            while let Some(done) = waiting.remove(&want) {
                for (k, r) in done.into_iter().enumerate() {
                    consume(want * PREPARE_BATCH + k, r);
                }
                want += 1;
            }
        }
    });
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
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    build_cluster_with(input, gates, admission, seed, Some(threads))
}

/// [`build_cluster`] with workloads prepared on `prepare` threads (`Some(1)`: on this one), or
/// (`None`) each workload's pods made and admitted one at a time as they join the cluster:
/// the tests compare the two.
fn build_cluster_with(
    input: ClusterInput,
    gates: &FeatureGates,
    admission: &AdmissionConfig,
    seed: u64,
    prepare: Option<usize>,
) -> Built {
    let mut built = Built::default();
    let mut admission = admission.clone();
    admission
        .priority_classes
        .extend(input.priority_classes.iter().cloned());
    let mut assumed = Vec::new();
    let mut nodes = input.nodes;
    for n in &mut nodes {
        let statusless = if input.strict_nodes {
            !repel_core::object_defaults::set_defaults_node_status(n)
                && n.status.as_ref().is_none_or(|s| s.allocatable.is_none())
        } else {
            assume_allocatable(n)
        };
        if statusless {
            assumed.push(n.metadata.name.clone().unwrap_or_default());
        }
    }
    if !assumed.is_empty() {
        built
            .warnings
            .push(statusless_nodes_warning(&assumed, input.strict_nodes));
    }
    built.cluster.namespaces = input.namespaces;
    for ns in &mut built.cluster.namespaces {
        repel_core::object_defaults::set_defaults_namespace(ns);
    }
    built.cluster.pdbs = input.pdbs;
    let threads = prepare.unwrap_or(1);
    // Each node read on every core, the nodes joining the cluster in order.
    for_each_prepared(
        &nodes,
        threads,
        |_, n| NodeInfo::new(n.clone()),
        |_, info| {
            built.cluster.add_node_info(info);
        },
    );
    // What each workload's controller finds already there (its pods, adopted orphans) and
    // so still creates.
    let mut pods = input.pods;
    let claims = claim_pods(&input.workloads, &mut pods, &nodes, gates);
    for_each_prepared(
        &input.workloads,
        threads,
        |i, w| {
            let owner = claims.workloads.get(i)?.owner.as_ref()?;
            Cluster::owner_selector(w, &owner.name)
        },
        |_, found| {
            if let Some((key, sel)) = found {
                built.cluster.owner_selectors.insert(key, sel);
            }
        },
    );
    built.owners = claims.workloads.iter().map(|w| w.owner.clone()).collect();
    let taken = taken_names(&pods);
    // Every pod is known before the first is made: one allocation for them all (growing by
    // doubling would copy 150,000 pods' records several times over and fault in fresh pages
    // for each copy).
    let planned: usize = claims.workloads.iter().map(|w| w.create.count()).sum();
    // (`try_reserve`: a plan too big to hold at once still grows as before.)
    let _ = built
        .cluster
        .pods
        .try_reserve(pods.len().saturating_add(planned));
    let mut last = None;
    for pod in pods {
        if is_stored(&pod) {
            add_stored(&mut built, pod, &admission, &mut last);
        } else {
            admit_and_add(&mut built, pod, &admission, gates);
        }
    }
    // A workload's pods share one spec: it is admitted once (the admission chain reads only
    // the spec and the namespace) and the cluster shares it, with what the scheduler reads of
    // it, among them; a DaemonSet's pods each carry their node. Making the pods (names,
    // metadata) and admitting the first is a function of the workload alone, done on every
    // core ([`prepare_workload`]); the pods join the cluster here, in workload order, so ids,
    // names and admission's outcome are those of one workload after the other.
    let namespaces = built.cluster.namespaces.clone();
    let prepare = |i: usize, w: &Workload| {
        let Some(wp) = claims.workloads.get(i) else {
            return Prepared::Nothing;
        };
        if prepare.is_none() {
            return Prepared::OneByOne;
        }
        let ns = w.namespace();
        let namespace = crate::cluster::namespace_in(&namespaces, ns);
        let taken = |name: &str| name_taken(&taken, ns, name);
        prepare_workload(w, wp, seed, taken, namespace, &admission, gates)
    };
    for_each_prepared(&input.workloads, threads, prepare, |i, prepared| {
        let (Some(w), Some(wp)) = (input.workloads.get(i), claims.workloads.get(i)) else {
            return;
        };
        match prepared {
            Prepared::Nothing => {}
            Prepared::Admitted { first, rest } => {
                let like = built.cluster.add_prepared(*first);
                for (meta, own, shared) in rest {
                    if built
                        .cluster
                        .add_pod_like_with(like, meta, own, shared)
                        .is_none()
                    {
                        break;
                    }
                }
            }
            Prepared::OneByOne => {
                let taken = |name: &str| name_taken(&taken, w.namespace(), name);
                add_one_by_one(&mut built, w, wp, seed, taken, &admission, gates);
            }
        }
    });
    // The workloads as read, the nodes' copies and the plan are not needed any more: a big
    // input's (20,000 workloads, each a template) are freed on another thread while the
    // cluster goes on to be scheduled.
    if input.workloads.len() >= DROP_ELSEWHERE_FROM {
        crate::drop_elsewhere((input.workloads, nodes, claims));
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

#[cfg(test)]
mod tests;
