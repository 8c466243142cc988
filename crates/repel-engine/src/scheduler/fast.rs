//! The compiled scheduler ([`FastScheduler`]): the decisions of [`Scheduler`], pod by pod, computed from classes.
//!
//! [`Scheduler`] runs every plugin of the profile on every node for every pod, as upstream's
//! framework does. [`FastScheduler`] reaches the same placements with far less work:
//!
//! 1. **Node classes.** Nodes with the same labels (the hostname label aside), taints and
//!    `unschedulable` get the same answer from every static plugin (NodeUnschedulable,
//!    TaintToleration, NodeAffinity) and the same node-inclusion policies, so each is asked once
//!    per class, on a representative node.
//! 2. **Pod classes.** Pods with the same namespace, labels, owner and spec share their compiled
//!    form: the static filter and score per node class, the list of nodes the static filters
//!    let through, requests, topology-spread constraints.
//! 3. **Counts kept up to date.** Matching pods per node for every spread selector in use are
//!    counted once (through an index of label classes) and then moved by each bind.
//! 4. **Flat per-node numbers.** Each node's allocatable and requested resources are kept in a
//!    flat array; the resource scores (LeastAllocated + BalancedAllocation) of a request are
//!    kept per node and recomputed only for the nodes a bind changed.
//! 5. Only the nodes the static filters let through are visited, in the reference's
//!    round-robin order, so `nextStartNodeIndex` advances exactly as it does there; the
//!    filter compares the request with each node's free figures and counts the feasible
//!    nodes per node class.
//! 6. **Scores per node class.** For the usual spread shape (at most one hostname and one
//!    other constraint), every score but the resource scores is the same for all nodes of a
//!    class, except the hostname term of nodes holding matching pods: those are computed per
//!    class (and per such node), and one pass over the feasible nodes adds the cached
//!    resource scores and keeps the best in filter order.
//!
//! 7. **ImageLocality per node.** It reads only the nodes' images, which scheduling does not
//!    change: a class whose images some node holds keeps its per-node scores (computed once)
//!    and is scored node by node; in a cluster whose nodes report no images it is not read.
//!
//! 8. **FitErrors per reason.** A compiled pod no node fits gets its diagnosis from node
//!    classes and from the reason each other node failed (see `unschedulable`), then the
//!    reference's own PostFilter (preemption) and FitError text.
//!
//! The plugins' arithmetic is repeated inline, in the same order and with the same integer and
//! floating-point operations. The seeded tie-break is the reference scheduler's own generator,
//! called the same way. A pod the compiled path does not cover — host ports, inter-pod
//! (anti-)affinity anywhere in the cluster, a pod nominated by preemption anywhere, a plugin error, a node-naming pod with spread
//! constraints, a PreFilter that narrows the nodes — goes to [`Scheduler::schedule_one`]
//! itself. Tests compare both on generated clusters, pod by pod.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::PodSpec;

use repel_core::FeatureGates;
use repel_core::labels::LabelSelector;

use super::framework::{Code, CycleState, MAX_NODE_SCORE, Plugin, Status};
use super::plugins::pod_topology_spread::common::{
    DO_NOT_SCHEDULE, LABEL_HOSTNAME, NodeInclusionPolicy, SCHEDULE_ANYWAY,
    TopologySpreadConstraint, default_selector, filter_topology_spread_constraints,
    system_default_constraints,
};
use super::plugins::pod_topology_spread::scoring::{score_for_count, topology_normalizing_weight};
use super::plugins::{
    balanced_allocation, image_locality, node_affinity, node_resources_fit, pod_topology_spread,
    taint_toleration,
};
use super::{Outcome, Placement, Scheduler};
use crate::cluster::{Cluster, NodeId, NodeInfo, PodId, PodInfo};
use crate::resources::{CPU, MEMORY, Resources, pod_score_requests};
use node_class::*;
use score_cache::*;

/// A hash map keyed by numbers the compiled scheduler makes itself (ids, keys, addresses):
/// no need for a DoS-resistant hasher.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Spread constraints of each kind a compiled pod may have (more go to the reference path).
const MAX_SPREADS: usize = 8;

/// How many pods took which path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FastStats {
    /// Placed by the compiled path.
    pub compiled: usize,
    /// Of those, placed by the repeat path (a pod like the one before, see `by_class`).
    pub repeated: usize,
    /// Found unschedulable by the compiled path (see `unschedulable`).
    pub compiled_unschedulable: usize,
    /// Of those and of the reference's, answered as the like pod just before them was,
    /// nothing having changed since (unschedulable, no nomination).
    pub repeated_unschedulable: usize,
    /// Handed to the reference scheduler (a shape the compiled path does not cover).
    pub reference: usize,
    /// Distinct node classes.
    pub node_classes: usize,
    /// Distinct pod classes compiled.
    pub pod_classes: usize,
}

/// The compiled scheduler ("compiled" in docs and flags). See the module documentation.
pub struct FastScheduler {
    /// The reference scheduler: profile, round-robin index, tie-break generator, and the path
    /// for every pod the compiled one does not take.
    pub reference: Scheduler,
    gates: FeatureGates,
    /// Counters of the last runs.
    pub stats: FastStats,
    /// Keep the compiled state of the last run ([`FastScheduler::keep_state`]).
    keep: bool,
    kept: Option<Run>,
}

/// One spread selector's matching pods per node (upstream `countPodsMatchSelector`), kept
/// sparse: a selector (one per workload) matches pods on a few of thousands of nodes.
#[derive(Default)]
struct Sel {
    /// The nodes whose count has ever been non-zero, with their count.
    nonzero: Vec<(NodeId, u32)>,
    /// Each of those nodes' index in `nonzero`.
    slot: FastMap<NodeId, usize>,
    /// `slot` is out of date (node ids moved: see `remove_node`) and built again on first use.
    stale: bool,
    /// The matching pods per node class: a key other than the hostname is a label of the node
    /// class, so its domain counts are sums over classes, not over nodes.
    by_class: Vec<i64>,
    /// Per node, once the selector matches pods on [`DENSE_FROM`] nodes (empty before): its
    /// count, read without hashing when a pod's feasible nodes are fewer than its nodes.
    dense: Vec<u32>,
}

/// How many nodes with matching pods make a selector keep a count per node.
const DENSE_FROM: usize = 64;

impl Sel {
    /// Adds `k` matching pods on `node`, of node class `class`, among `nodes` nodes.
    fn add(&mut self, node: NodeId, class: u32, k: u32, nodes: usize) {
        if self.stale {
            self.fresh_slots();
        }
        let now = match self.slot.get(&node) {
            Some(&i) => {
                self.nonzero[i].1 += k;
                self.nonzero[i].1
            }
            None if k > 0 => {
                self.slot.insert(node, self.nonzero.len());
                self.nonzero.push((node, k));
                if self.nonzero.len() == DENSE_FROM && self.dense.is_empty() {
                    self.dense = vec![0; nodes];
                    for &(n, c) in &self.nonzero {
                        if let Some(d) = self.dense.get_mut(n) {
                            *d = c;
                        }
                    }
                }
                k
            }
            None => return,
        };
        if let Some(d) = self.dense.get_mut(node) {
            *d = now;
        }
        self.add_to_class(class, i64::from(k));
    }

    /// The per-node counts, once kept ([`Sel::dense`]).
    fn dense(&self) -> Option<&[u32]> {
        (!self.dense.is_empty()).then_some(&self.dense)
    }

    fn add_to_class(&mut self, class: u32, k: i64) {
        let c = class as usize;
        if self.by_class.len() <= c {
            self.by_class.resize(c + 1, 0);
        }
        self.by_class[c] += k;
    }

    /// The matching pods on the nodes of node class `class`.
    fn class_count(&self, class: usize) -> i64 {
        self.by_class.get(class).copied().unwrap_or(0)
    }

    /// The matching pods on `node`.
    fn count(&self, node: NodeId) -> u32 {
        match self.dense() {
            Some(d) => d.get(node).copied().unwrap_or(0),
            // (Fewer than `DENSE_FROM` nodes without `dense`.)
            None if self.stale => self
                .nonzero
                .iter()
                .find(|(n, _)| *n == node)
                .map_or(0, |(_, k)| *k),
            None => self.slot.get(&node).map_or(0, |&i| self.nonzero[i].1),
        }
    }

    /// A matching pod was bound to (`delta` 1) or removed from (-1) `node`, of node class
    /// `class`.
    fn moved(&mut self, node: NodeId, class: u32, delta: i32, nodes: usize) {
        if self.stale {
            self.fresh_slots();
        }
        match self.slot.get(&node) {
            Some(&i) => {
                let v = &mut self.nonzero[i].1;
                let old = *v;
                *v = v.saturating_add_signed(delta);
                let (now, change) = (*v, i64::from(*v) - i64::from(old));
                if let Some(d) = self.dense.get_mut(node) {
                    *d = now;
                }
                self.add_to_class(class, change);
            }
            None if delta > 0 => self.add(node, class, delta.unsigned_abs(), nodes),
            None => {}
        }
    }
}

/// Pods with the same namespace and labels.
struct LabelClass {
    /// A pod of the class, whose namespace and labels are the class's (they do not change
    /// during a run).
    rep: PodId,
    /// Selectors that count these pods.
    sels: Vec<u32>,
    /// Bound pods of the class per node, and each node's index there (out of date when
    /// `stale`: node ids moved, see `remove_node`; built again on first use).
    nodes: Vec<(NodeId, u32)>,
    slot: FastMap<NodeId, usize>,
    stale: bool,
}

/// Many values per 64-bit key in one flat list, linked from the key's latest value: no
/// allocation per key (most `key=value` labels belong to one label class).
#[derive(Default)]
struct MultiMap {
    heads: FastMap<u64, u32>,
    /// Each value and the index of the one added before it under the same key.
    items: Vec<(u32, u32)>,
}

impl MultiMap {
    const END: u32 = u32::MAX;

    fn push(&mut self, key: u64, value: u32) {
        let next = self
            .heads
            .insert(key, self.items.len() as u32)
            .unwrap_or(Self::END);
        self.items.push((value, next));
    }

    /// The values under `key`, in the order they were added, into `out`.
    fn extend_into(&self, key: u64, out: &mut Vec<u32>) {
        let from = out.len();
        let mut i = self.heads.get(&key).copied().unwrap_or(Self::END);
        while let Some(&(value, next)) = self.items.get(i as usize) {
            out.push(value);
            i = next;
        }
        out[from..].reverse();
    }
}

/// The index key of a `key=value` label or requirement. Equal keys are only candidates: every
/// match found through them is checked against the labels.
fn kv_key(key: &str, value: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6b76).hash_one((key, value))
}

/// Spread selectors and label classes, indexed both ways by exact `key=value` requirements.
#[derive(Default)]
struct Selectors {
    sels: Vec<Sel>,
    /// By the key of their namespace and selector.
    index: FastMap<u128, u32>,
    /// Selectors by their first exact requirement ([`kv_key`]), and those without one.
    sel_by_kv: MultiMap,
    sel_defs: Vec<(String, LabelSelector)>,
    unindexed: Vec<u32>,
    lcs: Vec<LabelClass>,
    lc_index: FastMap<u128, u32>,
    /// Per pod: its label class's key when known in advance (0: compute it).
    lc_keys: Vec<u128>,
    /// Label classes by each of their labels ([`kv_key`]).
    lc_by_kv: MultiMap,
    pod_lc: Vec<u32>,
    /// Scratch.
    candidates: Vec<u32>,
    /// Per node: its node class.
    node_class: Vec<u32>,
    /// Inside a what-if ([`Run::what_if_begins`]): each pod moved, as (label class, node,
    /// change), so that a selector's count before the what-if can be read back ([`what_if`]),
    /// a selector counted since included.
    journal: Option<Vec<(u32, NodeId, i32)>>,
}

/// The key of what the compiled path reads of a spec: the static plugins' fields (by their
/// key, [`static_key_of`]), spread constraints, and what the requests are computed from (by
/// their key, [`requests_key_of`]; `spec.nodeName` aside, which [`PodInfo`] keeps apart);
/// with `images` (some node of the cluster reports images), the containers' images too, which
/// ImageLocality reads (without, it scores every node 0 and they are not read).
fn spec_key(static_key: u128, requests_key: u128, spec: &PodSpec, images: bool) -> u128 {
    let mut h = KeyHasher::new();
    h.feed(&static_key.to_le_bytes());
    h.feed(&requests_key.to_le_bytes());
    h.value(&spec.topology_spread_constraints);
    if images {
        for image in image_locality::pod_images(spec) {
            h.str(image);
        }
    }
    h.finish()
}

/// The key of what a spec's requests, and the scorers' view of them, are computed from:
/// pod-level resources, overhead, and every container's resources and ports (an init
/// container's restart policy too).
fn requests_key_of(spec: &PodSpec) -> u128 {
    let mut h = KeyHasher::new();
    h.value(&(&spec.resources, &spec.overhead));
    for c in &spec.containers {
        h.value(&(&c.resources, &c.ports));
    }
    h.str("init");
    for c in spec.init_containers.iter().flatten() {
        h.value(&(&c.resources, &c.ports, &c.restart_policy));
    }
    h.finish()
}

/// The key of what the static plugins read of a spec: tolerations, nodeSelector, affinity
/// (the node name is added apart).
fn static_key_of(spec: &PodSpec) -> u128 {
    let mut h = KeyHasher::new();
    h.value(&(&spec.tolerations, &spec.node_selector, &spec.affinity));
    h.finish()
}

/// What the compiled path keeps of the specs shared by pods, for the duration of one batch
/// (nothing changes a queued pod's spec meanwhile).
#[derive(Default)]
struct SpecKeys {
    /// Whether the containers' images enter the keys (see [`spec_key`]).
    images: bool,
    /// By a shared spec's address: its [`spec_key`] and its [`SpecMemo`].
    by_address: FastMap<usize, (u128, Option<SpecMemo>)>,
    /// The scorers' requests by [`requests_key_of`]: a DaemonSet's pods each have a spec of
    /// their own (pinned to their node), all with the same requests.
    score_keys: FastMap<u128, Option<ScoreKey>>,
}

impl SpecKeys {
    /// Empty, the containers' images in the keys when `cluster`'s nodes report images.
    fn of_cluster(cluster: &Cluster) -> Self {
        SpecKeys {
            images: !cluster.image_index().is_empty(),
            ..SpecKeys::default()
        }
    }

    /// A shared spec's [`spec_key`] and [`SpecMemo`] (found once per address).
    fn of(&mut self, spec: &Arc<PodSpec>) -> (u128, Option<SpecMemo>) {
        let ptr = Arc::as_ptr(spec) as usize;
        if let Some(facts) = self.by_address.get(&ptr) {
            return *facts;
        }
        let static_key = static_key_of(spec);
        let requests_key = requests_key_of(spec);
        let score_key = *self
            .score_keys
            .entry(requests_key)
            .or_insert_with(|| score_key_of(spec));
        let facts = (
            spec_key(static_key, requests_key, spec, self.images),
            score_key.map(|score_key| SpecMemo {
                static_key,
                score_key,
            }),
        );
        self.by_address.insert(ptr, facts);
        facts
    }
}

/// The key of a pod's namespace and labels (its label class).
fn label_key(info: &PodInfo) -> u128 {
    let mut h = KeyHasher::new();
    feed_labels(&mut h, &info.namespace, info.labels());
    h.finish()
}

/// Feeds a namespace and a label map (length-delimited strings, no serialisation).
fn feed_labels(h: &mut KeyHasher, namespace: &str, labels: &BTreeMap<String, String>) {
    h.str(namespace);
    for (k, v) in labels {
        h.str(k);
        h.str(v);
    }
    h.str("");
}

/// A key of everything the reference scheduler reads of a pending pod: equal keys, on an
/// unchanged cluster, get the same outcome.
fn unschedulable_key(info: &PodInfo) -> u128 {
    let mut h = KeyHasher::new();
    feed_labels(&mut h, &info.namespace, info.labels());
    h.value(&info.meta.owner_references);
    h.value(&info.meta.deletion_timestamp);
    h.value(info.spec());
    h.str(info.spec_node_name().unwrap_or("\u{0}"));
    h.value(&(info.priority, info.nominated, info.terminating));
    h.finish()
}

/// [`unschedulable_key`] of a pod of a compiled class, from its class key (namespace, labels,
/// controller, `spec.nodeName`, and every field of the spec the filters read) and what
/// PostFilter reads besides: priority, preemption policy, nomination, deletion.
fn compiled_unschedulable_key(info: &PodInfo, class_key: u128) -> u128 {
    let mut h = KeyHasher::new();
    h.str("compiled");
    h.feed(&class_key.to_le_bytes());
    h.value(&(
        info.priority,
        info.nominated,
        info.terminating,
        &info.meta.deletion_timestamp,
        &info.spec().preemption_policy,
    ));
    h.finish()
}

/// What compiling reads of a spec, kept per spec shared by pods (the specs of queued pods do
/// not change during a run: binding sets `spec.nodeName` apart).
#[derive(Clone, Copy)]
struct SpecMemo {
    /// The key of what the static plugins read (tolerations, nodeSelector, affinity; the
    /// node name is added apart).
    static_key: u128,
    /// The resource scores' requests.
    score_key: ScoreKey,
}

impl SpecMemo {
    fn of(static_key: u128, spec: &PodSpec) -> Option<Self> {
        Some(SpecMemo {
            static_key,
            score_key: score_key_of(spec)?,
        })
    }
}

/// The last pod found unschedulable without a nomination (nothing changed then), to answer a
/// like pod at once while nothing else has changed either.
struct LastUnschedulable {
    key: u128,
    /// The change log's length and the epoch after it.
    log_len: usize,
    epoch: u64,
    /// How far its cycle moved the round-robin start.
    advance: usize,
    message: String,
}

/// The part of compiling a pod's class that reads only the pod and what a batch does not change
/// (its owner's selector, for the default spread constraints): [`class_keys`] finds it on every
/// core for the first pod of each class, so that the scheduling thread only picks it up
/// ([`FastScheduler::compile`] finds it itself when none was found ahead).
struct Draft {
    /// `None`: the compiled path does not cover the pod (host ports, pod (anti-)affinity, a
    /// spread constraint whose selector does not parse).
    spreads: Option<DraftSpreads>,
}

/// A [`Draft`]'s spread constraints.
struct DraftSpreads {
    hard: Vec<DraftSpread>,
    soft: Vec<DraftSpread>,
    /// The pod has constraints of its own (the system defaults apply otherwise).
    explicit: bool,
}

impl Draft {
    fn of(info: &PodInfo, cluster: &Cluster) -> Self {
        Draft {
            spreads: Self::spreads(info, cluster),
        }
    }

    fn spreads(info: &PodInfo, cluster: &Cluster) -> Option<DraftSpreads> {
        if !info.ports.is_empty() || has_pod_affinity(info) {
            return None;
        }
        let spec_constraints = info
            .spec()
            .topology_spread_constraints
            .as_deref()
            .unwrap_or_default();
        let hard = if spec_constraints.is_empty() {
            Vec::new()
        } else {
            filter_topology_spread_constraints(spec_constraints, info.labels(), DO_NOT_SCHEDULE)
                .ok()?
        };
        let soft = if spec_constraints.is_empty() {
            system_default_constraints(&default_selector(info, cluster), SCHEDULE_ANYWAY)
        } else {
            filter_topology_spread_constraints(spec_constraints, info.labels(), SCHEDULE_ANYWAY)
                .ok()?
        };
        let self_match = |cs: Vec<TopologySpreadConstraint>| -> Vec<DraftSpread> {
            cs.into_iter()
                .map(|c| DraftSpread {
                    self_match: c.selector.matches(info.labels()),
                    sel_key: selector_key(&info.namespace, &c.selector),
                    c,
                })
                .collect()
        };
        Some(DraftSpreads {
            hard: self_match(hard),
            soft: self_match(soft),
            explicit: !spec_constraints.is_empty(),
        })
    }
}

/// A spread constraint of a [`Draft`], with what is read of it ahead (with the class keys,
/// on every core): whether its selector matches the pod itself, and the selector's key.
struct DraftSpread {
    c: TopologySpreadConstraint,
    self_match: bool,
    /// [`selector_key`] of the pod's namespace and the constraint's selector.
    sel_key: u128,
}

/// The key [`Selectors`] finds a selector's counts by: its namespace and the selector.
fn selector_key(namespace: &str, selector: &LabelSelector) -> u128 {
    let mut h = KeyHasher::new();
    h.str(namespace);
    std::hash::Hash::hash(selector, &mut h);
    h.finish()
}

/// The pod's class key: namespace, labels, controller, `spec.nodeName`, and the spec's key.
/// Equal specs are shared between pods (see `Cluster::add_pod`), so `specs` remembers the key
/// and memo of each shared spec seen, by address.
fn class_key(info: &PodInfo, specs: &mut SpecKeys) -> u128 {
    class_key_with(info, label_key(info), specs)
}

/// [`class_key`] of a pod whose [`label_key`] is `label`: the namespace and labels enter the
/// class key through it, so that a pod's labels are read and hashed once for both keys.
fn class_key_with(info: &PodInfo, label: u128, specs: &mut SpecKeys) -> u128 {
    let spec = match info.shared_spec() {
        Some(arc) => specs.of(arc).0,
        None => spec_key(
            static_key_of(info.spec()),
            requests_key_of(info.spec()),
            info.spec(),
            specs.images,
        ),
    };
    let mut h = KeyHasher::new();
    h.feed(&label.to_le_bytes());
    if let Some((kind, name)) = info.controller() {
        h.str(kind);
        h.str(name);
    } else {
        h.str("");
    }
    h.str(info.spec_node_name().unwrap_or("\u{0}"));
    h.feed(&spec.to_le_bytes());
    h.finish()
}

/// Whether pods `a` and `b` have the same namespace and labels (so the same [`label_key`]), and
/// whether all else [`class_key`] reads is the same too (controller, `spec.nodeName`, one
/// shared spec): a workload's pods follow one another in the queue, and comparing a pod with
/// the one before costs less than hashing its labels again.
fn alike(a: &PodInfo, b: &PodInfo) -> (bool, bool) {
    let labels =
        a.namespace == b.namespace && (a.labels_shared_with(b) || a.labels() == b.labels());
    let all = labels
        && matches!((a.shared_spec(), b.shared_spec()), (Some(x), Some(y)) if Arc::ptr_eq(x, y))
        && a.spec_node_name() == b.spec_node_name()
        && a.controller() == b.controller();
    (labels, all)
}

/// The class and label keys of `queue`, the memos of the shared specs met, and (with
/// `drafts`) the [`Draft`] of the first pod of each class (`None` for the others), computed
/// on every core (they depend on nothing the batch changes: a queued pod is unbound until its
/// own turn).
fn class_keys(cluster: &Cluster, queue: &[PodId], drafts: bool) -> ClassKeys {
    let images = !cluster.image_index().is_empty();
    let keys_of = |part: &[PodId]| -> ClassKeys {
        let mut specs = SpecKeys {
            images,
            ..SpecKeys::default()
        };
        let mut seen = std::collections::HashSet::<u128, foldhash::fast::FixedState>::default();
        let mut out = Vec::with_capacity(part.len());
        let mut found = Vec::with_capacity(part.len());
        let mut before: Option<(&PodInfo, u128, u128)> = None;
        for pod in part {
            let Some(p) = cluster.pods.get(*pod) else {
                out.push((0, 0));
                found.push(None);
                continue;
            };
            let (key, label) = match before.map(|(b, key, label)| (alike(b, p), key, label)) {
                Some(((_, true), key, label)) => (key, label),
                Some(((true, false), _, label)) => (class_key_with(p, label, &mut specs), label),
                _ => {
                    let label = label_key(p);
                    (class_key_with(p, label, &mut specs), label)
                }
            };
            before = Some((p, key, label));
            out.push((key, label));
            found.push((drafts && seen.insert(key)).then(|| Box::new(Draft::of(p, cluster))));
        }
        ClassKeys {
            keys: out,
            drafts: found,
            specs: vec![specs],
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 || queue.len() < 1024 {
        return keys_of(queue);
    }
    let chunk = queue.len().div_ceil(threads);
    let parts: Vec<ClassKeys> = std::thread::scope(|scope| {
        let handles: Vec<_> = queue
            .chunks(chunk)
            .map(|part| scope.spawn(move || keys_of(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut all = ClassKeys::default();
    for part in parts {
        all.keys.extend(part.keys);
        all.drafts.extend(part.drafts);
        all.specs.extend(part.specs);
    }
    if all.keys.len() == queue.len() && all.drafts.len() == queue.len() {
        all
    } else {
        keys_of(queue)
    }
}

/// [`class_keys`]' answer: per queued pod its class and label keys and perhaps a [`Draft`],
/// and the shared specs' memos met on each thread.
#[derive(Default)]
struct ClassKeys {
    keys: Vec<(u128, u128)>,
    drafts: Vec<Option<Box<Draft>>>,
    specs: Vec<SpecKeys>,
}

/// A 128-bit key of strings and serialised values (XXH3-128, so that classes are found without
/// building or comparing long strings).
///
/// The bytes fed are gathered in a small buffer: most keys (a pod's labels and owner, a
/// selector) fit in it and are hashed at once by the one-shot function, and longer ones (a
/// spec's serialised fields) go to the streaming hasher a buffer at a time. The one-shot and
/// the streaming XXH3 give the same hash for the same bytes, so a key depends on the bytes fed
/// alone, however they were cut. Two SipHash streams did this before: the class keys of
/// 150,000 pods cost twice the time.
struct KeyHasher {
    stream: Option<Box<xxhash_rust::xxh3::Xxh3Default>>,
    buf: [u8; KEY_BUF],
    len: usize,
    failed: bool,
}

/// The bytes [`KeyHasher`] gathers before hashing them.
const KEY_BUF: usize = 256;

impl KeyHasher {
    fn new() -> Self {
        KeyHasher {
            stream: None,
            buf: [0; KEY_BUF],
            len: 0,
            failed: false,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        if let Some(room) = self.buf.get_mut(self.len..self.len + bytes.len()) {
            room.copy_from_slice(bytes);
            self.len += bytes.len();
            return;
        }
        let stream = self
            .stream
            .get_or_insert_with(|| Box::new(xxhash_rust::xxh3::Xxh3Default::new()));
        stream.update(self.buf.get(..self.len).unwrap_or_default());
        self.len = 0;
        if bytes.len() >= KEY_BUF {
            stream.update(bytes);
        } else {
            self.feed(bytes);
        }
    }

    fn str(&mut self, s: &str) {
        self.feed(s.as_bytes());
        self.feed(&[0xff]);
    }

    /// Feeds a value's MessagePack encoding with named fields (`rmp_serde::encode::write_named`):
    /// self-delimiting (strings, lists and maps carry their lengths, struct fields their names),
    /// so different values feed different bytes, and nothing is escaped or formatted as JSON
    /// text would be (a third of the time of a DaemonSet pod's key went to JSON's escaping).
    fn value<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        // Serialising these types into memory does not fail; if it did, the key is marked.
        if rmp_serde::encode::write_named(&mut *self, v).is_err() {
            self.failed = true;
        }
        self.feed(&[0xff]);
    }

    fn finish(&self) -> u128 {
        let pending = self.buf.get(..self.len).unwrap_or_default();
        let key = match &self.stream {
            None => xxhash_rust::xxh3::xxh3_128(pending),
            Some(stream) => {
                let mut stream = stream.clone();
                stream.update(pending);
                stream.digest128()
            }
        };
        key ^ u128::from(self.failed)
    }
}

impl std::hash::Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.feed(bytes);
    }

    /// The low half of the 128-bit key ([`KeyHasher::finish`], which the keys use).
    fn finish(&self) -> u64 {
        KeyHasher::finish(self) as u64
    }
}

impl std::io::Write for KeyHasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.feed(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn exact_requirement(sel: &LabelSelector) -> Option<(String, String)> {
    sel.requirements().iter().find_map(|r| {
        sel.requires_exact_match(r.key())
            .map(|v| (r.key().to_string(), v.to_string()))
    })
}

impl Selectors {
    /// Empty indexes with every pod bound in `cluster` recorded on its node; `label_keys`
    /// are pods' label keys known already (by pod id; 0 where not known).
    fn of_bound_pods(cluster: &Cluster, node_class: &[u32], label_keys: Vec<u128>) -> Self {
        let mut sel = Selectors {
            node_class: node_class.to_vec(),
            lc_keys: label_keys,
            ..Selectors::default()
        };
        for (n, node) in cluster.nodes.iter().enumerate() {
            for &pod in &node.pods {
                if pod < cluster.pods.len() {
                    sel.moved(cluster, pod, n, 1);
                }
            }
        }
        sel
    }

    fn label_class(&mut self, cluster: &Cluster, pod: PodId) -> u32 {
        if pod >= self.pod_lc.len() {
            self.pod_lc
                .resize(cluster.pods.len().max(pod + 1), u32::MAX);
        }
        if self.pod_lc[pod] != u32::MAX {
            return self.pod_lc[pod];
        }
        let p = &cluster.pods[pod];
        let key = match self.lc_keys.get(pod) {
            Some(&k) if k != 0 => k,
            _ => {
                // Kept, so that a state built again for the same pods (a drain what-if after
                // a node is removed) does not hash their labels again.
                let k = label_key(p);
                if pod >= self.lc_keys.len() {
                    self.lc_keys.resize(cluster.pods.len().max(pod + 1), 0);
                }
                self.lc_keys[pod] = k;
                k
            }
        };
        let lc = match self.lc_index.get(&key) {
            Some(lc) => *lc,
            None => {
                let lc = self.lcs.len() as u32;
                let mut candidates = std::mem::take(&mut self.candidates);
                candidates.clear();
                for (k, v) in p.labels() {
                    self.sel_by_kv.extend_into(kv_key(k, v), &mut candidates);
                }
                candidates.extend_from_slice(&self.unindexed);
                let mut sels: Vec<u32> = candidates
                    .iter()
                    .copied()
                    .filter(|&s| {
                        let (ns, sel) = &self.sel_defs[s as usize];
                        *ns == p.namespace && sel.matches(p.labels())
                    })
                    .collect();
                sels.sort_unstable();
                sels.dedup();
                self.candidates = candidates;
                for (k, v) in p.labels() {
                    self.lc_by_kv.push(kv_key(k, v), lc);
                }
                self.lcs.push(LabelClass {
                    rep: pod,
                    sels,
                    nodes: Vec::new(),
                    slot: FastMap::default(),
                    stale: false,
                });
                self.lc_index.insert(key, lc);
                lc
            }
        };
        self.pod_lc[pod] = lc;
        lc
    }

    /// The id of the counts of `selector` in `namespace`, counted now if new; `key` is their
    /// [`selector_key`] (found ahead, with the class keys). The selector is kept when new.
    fn selector(
        &mut self,
        cluster: &Cluster,
        namespace: &str,
        key: u128,
        selector: std::borrow::Cow<'_, LabelSelector>,
    ) -> u32 {
        if let Some(i) = self.index.get(&key) {
            return *i;
        }
        let s = self.sels.len() as u32;
        self.sels.push(Sel::default());
        self.index.insert(key, s);
        self.sel_defs
            .push((namespace.to_string(), selector.into_owned()));
        let Some((_, selector)) = self.sel_defs.last() else {
            return s;
        };
        // An empty selector (matches everything) counts 0, as upstream's countPodsMatchSelector;
        // it is never attached to a label class.
        if selector.is_empty() || selector.is_nothing() {
            return s;
        }
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        match exact_requirement(selector) {
            Some((k, v)) => {
                let kv = kv_key(&k, &v);
                self.sel_by_kv.push(kv, s);
                self.lc_by_kv.extend_into(kv, &mut candidates);
                // A class with two labels of the same index key is listed twice.
                candidates.dedup();
            }
            None => {
                self.unindexed.push(s);
                candidates.extend(0..self.lcs.len() as u32);
            }
        }
        for &lc in &candidates {
            let c = &mut self.lcs[lc as usize];
            let p = &cluster.pods[c.rep];
            if p.namespace == namespace && selector.matches(p.labels()) {
                c.sels.push(s);
                let sel = &mut self.sels[s as usize];
                for &(n, k) in &c.nodes {
                    sel.add(
                        n,
                        self.node_class.get(n).copied().unwrap_or(0),
                        k,
                        self.node_class.len(),
                    );
                }
            }
        }
        self.candidates = candidates;
        s
    }

    /// A pod was bound to (`delta` 1) or removed from (-1) a node.
    fn moved(&mut self, cluster: &Cluster, pod: PodId, node: NodeId, delta: i32) {
        if cluster.pods[pod].meta.deletion_timestamp.is_some() {
            return;
        }
        let lc = self.label_class(cluster, pod) as usize;
        let c = &mut self.lcs[lc];
        if c.stale {
            c.fresh_slots();
        }
        match c.slot.get(&node) {
            Some(&i) => {
                let k = &mut c.nodes[i].1;
                *k = k.saturating_add_signed(delta);
            }
            None if delta > 0 => {
                c.slot.insert(node, c.nodes.len());
                c.nodes.push((node, delta as u32));
            }
            None => {}
        }
        let class = self.node_class.get(node).copied().unwrap_or(0);
        for &s in &c.sels {
            self.sels[s as usize].moved(node, class, delta, self.node_class.len());
        }
        if let Some(j) = self.journal.as_mut() {
            j.push((lc as u32, node, delta));
        }
    }
}

/// A compiled spread constraint.
struct Spread {
    max_skew: i32,
    min_domains: i32,
    sel: u32,
    dom: usize,
    hostname: bool,
    /// Per node class: the node-inclusion policies admit it.
    include: Arc<Vec<bool>>,
    /// Whether the pod matches its own selector.
    self_match: bool,
    /// `nodeTaintsPolicy: Honor`: a node's taints decide whether it counts.
    honor_taints: bool,
}

/// How the static plugins are answered for a pod class.
enum Statics {
    /// Per node class, with the nodes they let through.
    ByClass {
        tt_raw: Vec<i64>,
        na_raw: Vec<i64>,
        allowed: Vec<NodeId>,
        /// Per node class, whether its nodes are `allowed` (a node's test in O(1)).
        class_ok: Vec<bool>,
    },
    /// Per node, for pods whose spec names nodes (node name, `metadata.name` fields, the
    /// hostname label): the candidates from PreFilter (`None`: all).
    PerNode { candidates: Option<Vec<NodeId>> },
}

/// What compiling finds once per static key (see [`SpecMemo`], with `spec.nodeName`): the
/// static plugins' tables, and their PreFilter and PreScore answers, the same for every class
/// of the key (they read only tolerations, nodeSelector, affinity and the node name).
#[derive(Clone)]
struct StaticFacts {
    statics: Arc<Statics>,
    skip_filters: SkipSet,
    /// The spec names nodes: the static plugins answer per node ([`Statics::PerNode`]).
    per_node: bool,
    tt_scores: bool,
    na_scores: bool,
}

/// A compiled pod class.
struct PodClass {
    /// The key of what the static plugins read (see [`SpecMemo`], with `spec.nodeName`).
    static_key: u128,
    statics: Arc<Statics>,
    /// The static filters whose PreFilter returned Skip ([`SkipSet`]).
    skip_filters: SkipSet,
    requests: Resources,
    /// cpu, memory and ephemeral storage requested, `i64::MIN` for none (a request of 0 or
    /// less never fails), compared with [`Free`].
    need: [i64; 3],
    score_key: ScoreKey,
    tt_scores: bool,
    na_scores: bool,
    hard: Vec<Spread>,
    soft: Vec<Spread>,
    /// Soft constraints: nodes must carry every key (else ignored).
    soft_require_all: bool,
    /// Per node class: has every hard key / every soft key.
    hard_keys: Arc<[bool]>,
    soft_keys: Arc<[bool]>,
    /// Per hard constraint: the eligible domains (static) and how many.
    hard_present: Vec<Vec<bool>>,
    hard_domains: Vec<usize>,
    /// ImageLocality's weighted score of the nodes holding the pod's images, those scoring
    /// more than 0, ascending (`None`: every node scores 0). It reads only the nodes' images,
    /// which scheduling does not change.
    images: Option<Arc<[(NodeId, i64)]>>,
}

/// Per-run compiled state.
struct Run {
    node_class: Vec<u32>,
    reps: Vec<NodeId>,
    /// Per node class, its nodes in node order.
    class_nodes: Vec<Vec<NodeId>>,
    res: Vec<NodeRes>,
    free: Vec<Free>,
    domains: Vec<Domains>,
    domain_index: HashMap<String, usize>,
    classes: FastMap<u128, Option<Arc<PodClass>>>,
    statics: FastMap<u128, StaticFacts>,
    /// What compiling reads of a spec, by the address of a spec shared by pods (see
    /// [`SpecMemo`]).
    specs: FastMap<usize, SpecMemo>,
    /// Node-inclusion answers per node class, by static key and (affinity, taints) policy.
    includes: FastMap<(u128, bool, bool), Arc<Vec<bool>>>,
    /// Per static key, per node class: the static filters' rejection (see `unschedulable`).
    rejections: FastMap<u128, Arc<Vec<Option<Status>>>>,
    /// Per list of topology keys (domain ids): whether each node class has them all.
    keys: FastMap<Vec<usize>, Arc<[bool]>>,
    sel: Selectors,
    /// Nodes whose resources changed, in order; caches catch up from it.
    log: Vec<NodeId>,
    epoch: u64,
    caches: Vec<ScoreCache>,
    tick: u64,
    /// Scratch.
    feasible: Vec<NodeId>,
    stat: Vec<i64>,
    raw: Vec<i64>,
    dom_cnt: Vec<Vec<i64>>,
    soft_present: Vec<Vec<bool>>,
    /// Per node class: feasible nodes of the pod being scheduled (a by-class pod's, counted
    /// in the filter pass `feasible_pass`; `pass` counts pods).
    class_feasible: Vec<u32>,
    pass: u64,
    feasible_pass: u64,
    /// The pod just placed, for a like pod next (see [`by_class`]).
    chain: Option<by_class::Chain>,
    unschedulable: Option<LastUnschedulable>,
    buckets: by_class::Buckets,
    /// Per node: the pod (`stamp`) for which it is feasible / has its own score.
    feasible_mark: Vec<u64>,
    own_mark: Vec<u64>,
    own_score: Vec<i64>,
    /// Per node class: the score of its nodes without matching pods; the best nodes.
    class_score: Vec<i64>,
    ties: Vec<NodeId>,
    /// The repeat path's tied nodes, as a bit set (all clear between draws).
    tie_bits: Vec<u64>,
    /// Scratch of `select_by_class`: nodes with their own raw spread score, how many per
    /// class, and each class's raw spread score.
    own: Vec<(NodeId, i64)>,
    own_in_class: Vec<u32>,
    class_raw: Vec<i64>,
    /// Scratch of `class_scores`: raw spread scores by zone slot, hostname label and count.
    raw_memo: Vec<i64>,
    /// Scratch of `score_and_select`: ImageLocality's score per node (all 0 between pods).
    image_scratch: Vec<i64>,
    /// Per pod, the class key it was scheduled with (0: none), kept for a what-if that starts
    /// from this state ([`FastScheduler::keep_state`]).
    class_keys: Vec<u128>,
    /// A what-if's placement ([`first_fit::FirstFit::place`]): no repeat path, nothing bound
    /// (the caller binds), nothing done when no node fits (an empty message), and `skip` (a
    /// cordoned node the node classes do not know of) left out of the filter pass.
    what_if: bool,
    skip: Option<NodeId>,
    /// Nodes a what-if sequence left cordoned ([`first_fit::FirstFit::cordon`]; empty: none),
    /// left out of the filter pass with `skip`.
    cordoned: Vec<bool>,
    /// Cache slots by key (when there are more than a handful), how many may be kept, and
    /// where the change log stood when the current what-if began.
    cache_index: FastMap<ScoreKey, usize>,
    max_caches: usize,
    base_log: Option<usize>,
    /// The figures of the nodes the current what-if changed, as they were before it (in the
    /// order first changed), and each node's place there plus one (0: unchanged).
    saved: Vec<(NodeId, NodeRes, Free)>,
    saved_at: Vec<u32>,
    /// A what-if's placements from the cluster before it ([`what_if`]).
    levels: what_if::Levels,
}

/// PodTopologySpread PreFilter for a class's hard constraints: the matching pods of each
/// domain into `run.dom_cnt[i]` (over the nodes with every hard key that the inclusion
/// policies admit), and each constraint's minimum ([`hard_minimums`]).
fn hard_counts(run: &mut Run, class: &PodClass) -> [i64; MAX_SPREADS] {
    run.dom_cnt
        .resize(class.hard.len().max(class.soft.len()), Vec::new());
    for (i, s) in class.hard.iter().enumerate() {
        let d = &run.domains[s.dom];
        let cnt = &mut run.dom_cnt[i];
        cnt.clear();
        cnt.resize(d.count, 0);
        let sel = &run.sel.sels[s.sel as usize];
        if s.hostname {
            for &(n, k) in &sel.nonzero {
                let c = run.node_class[n] as usize;
                if class.hard_keys[c] && s.include[c] {
                    cnt[d.of_node[n] as usize] += i64::from(k);
                }
            }
        } else {
            // The key is a label of the node class: sums per class.
            for (c, &rep) in run.reps.iter().enumerate() {
                if class.hard_keys[c] && s.include[c] {
                    cnt[d.of_node[rep] as usize] += sel.class_count(c);
                }
            }
        }
    }
    hard_minimums(run, class)
}

/// Each hard constraint's minimum of `run.dom_cnt[i]` over its eligible domains (0 while
/// there are fewer than `minDomains` of them).
fn hard_minimums(run: &Run, class: &PodClass) -> [i64; MAX_SPREADS] {
    let mut hard_min = [0i64; MAX_SPREADS];
    for (i, s) in class.hard.iter().enumerate() {
        let present = &class.hard_present[i];
        hard_min[i] = if (class.hard_domains[i] as i64) < i64::from(s.min_domains) {
            0
        } else {
            run.dom_cnt[i]
                .iter()
                .zip(present)
                .filter(|(_, p)| **p)
                .map(|(c, _)| *c)
                .min()
                .unwrap_or(i64::from(i32::MAX))
        };
    }
    hard_min
}

/// [`hard_failure`] once per node class into `ok`, for hard constraints on keys of the node
/// class (a class passes or fails as a whole).
fn hard_ok_per_class(run: &Run, class: &PodClass, hard_min: &[i64], ok: &mut Vec<bool>) {
    ok.clear();
    ok.extend(
        run.reps
            .iter()
            .map(|&r| hard_failure(run, class, hard_min, r).is_none()),
    );
}

/// PodTopologySpread's Filter for a class with hard constraints on node `n` (`hard_min`: each
/// constraint's minimum over its eligible domains): `None` when it passes, else whether the
/// first failing constraint lacks the node's label (`true`) or is skewed too far (`false`).
fn hard_failure(run: &Run, class: &PodClass, hard_min: &[i64], n: NodeId) -> Option<bool> {
    for (i, s) in class.hard.iter().enumerate() {
        let d = &run.domains[s.dom];
        if !d.has[n] {
            return Some(true);
        }
        let dom = d.of_node[n] as usize;
        let cnt = if class.hard_present[i][dom] {
            run.dom_cnt[i][dom]
        } else {
            0
        };
        if cnt + i64::from(s.self_match) - hard_min[i] > i64::from(s.max_skew) {
            return Some(false);
        }
    }
    None
}

/// Whether a pod's node selection names particular nodes: `spec.nodeName`, `matchFields`, or
/// the hostname label in a nodeSelector or a node-affinity term.
fn names_nodes(pod: &PodInfo) -> bool {
    let spec = pod.spec();
    if pod.spec_node_name().is_some() {
        return true;
    }
    if spec
        .node_selector
        .as_ref()
        .is_some_and(|s| s.contains_key(LABEL_HOSTNAME))
    {
        return true;
    }
    let Some(na) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
    else {
        return false;
    };
    let term_names = |t: &k8s_openapi::api::core::v1::NodeSelectorTerm| {
        t.match_fields.as_ref().is_some_and(|f| !f.is_empty())
            || t.match_expressions
                .iter()
                .flatten()
                .any(|e| e.key == LABEL_HOSTNAME)
    };
    na.required_during_scheduling_ignored_during_execution
        .as_ref()
        .is_some_and(|r| r.node_selector_terms.iter().any(term_names))
        || na
            .preferred_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .any(|p| term_names(&p.preference))
}

fn has_pod_affinity(pod: &PodInfo) -> bool {
    pod.spec()
        .affinity
        .as_ref()
        .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
}

impl PodClass {
    /// PodTopologySpread PreScore: a node lacking a soft constraint's key is ignored when the
    /// constraints are the pod's own (`requireAllTopologies`).
    fn spread_ignored(&self, node_class: u32) -> bool {
        self.soft_require_all && !self.soft_keys[node_class as usize]
    }
}

/// PodTopologySpread PreScore for one soft constraint on a key other than the hostname: marks
/// in `present` the domains of the feasible, not ignored nodes, counts into `counts` the
/// matching pods of each present domain (over every node that has every key when required and
/// that the node-inclusion policies admit), and returns the constraint's weight.
fn soft_domain_counts(
    run: &Run,
    class: &PodClass,
    s: &Spread,
    feasible: &[NodeId],
    present: &mut Vec<bool>,
    counts: &mut Vec<i64>,
) -> f64 {
    let d = &run.domains[s.dom];
    present.clear();
    present.resize(d.count, false);
    for &n in feasible {
        if !class.spread_ignored(run.node_class[n]) {
            present[d.of_node[n] as usize] = true;
        }
    }
    by_class::zone_counts(run, class, s, present, counts)
}

/// PodTopologySpread NormalizeScore over raw scores in `feasible`'s order: ignored nodes 0,
/// every node 100 when the maximum is 0, else `100 * (max + min - score) / max`.
fn normalize_spread(
    out: &mut [i64],
    feasible: &[NodeId],
    ignored: impl Fn(NodeId) -> bool,
    min_score: i64,
    max_score: i64,
) {
    for (s, n) in out.iter_mut().zip(feasible) {
        if ignored(*n) {
            *s = 0;
        } else if max_score == 0 {
            *s = MAX_NODE_SCORE;
        } else {
            *s = MAX_NODE_SCORE * (max_score + min_score - *s) / max_score;
        }
    }
}

impl Run {
    fn new(cluster: &Cluster) -> Self {
        Run::with_label_keys(cluster, Vec::new())
    }

    /// A state of `cluster` with these node classes and representatives and these counts, the
    /// rest as a build starts it.
    fn from_parts(
        cluster: &Cluster,
        node_class: Vec<u32>,
        reps: Vec<NodeId>,
        sel: Selectors,
    ) -> Self {
        let classes = reps.len();
        let mut class_nodes = vec![Vec::new(); classes];
        for (n, &c) in node_class.iter().enumerate() {
            if let Some(nodes) = class_nodes.get_mut(c as usize) {
                nodes.push(n);
            }
        }
        Run {
            node_class,
            reps,
            class_nodes,
            res: cluster.nodes.iter().map(NodeRes::of).collect(),
            free: cluster
                .nodes
                .iter()
                .map(|n| Free::of(&NodeRes::of(n)))
                .collect(),
            class_feasible: vec![0; classes],
            pass: 0,
            feasible_pass: 0,
            chain: None,
            unschedulable: None,
            buckets: by_class::Buckets::default(),
            feasible_mark: vec![0; cluster.nodes.len()],
            own_mark: vec![0; cluster.nodes.len()],
            own_score: vec![0; cluster.nodes.len()],
            class_score: vec![0; classes],
            ties: Vec::new(),
            tie_bits: Vec::new(),
            own: Vec::new(),
            own_in_class: vec![0; classes],
            class_raw: vec![0; classes],
            raw_memo: Vec::new(),
            image_scratch: Vec::new(),
            class_keys: Vec::new(),
            what_if: false,
            skip: None,
            cordoned: Vec::new(),
            cache_index: FastMap::default(),
            max_caches: max_caches(cluster.nodes.len()),
            base_log: None,
            saved: Vec::new(),
            saved_at: Vec::new(),
            levels: what_if::Levels::default(),
            domains: Vec::new(),
            domain_index: HashMap::new(),
            classes: FastMap::default(),
            statics: FastMap::default(),
            includes: FastMap::default(),
            rejections: FastMap::default(),
            keys: FastMap::default(),
            specs: FastMap::default(),
            sel,
            log: Vec::new(),
            epoch: 0,
            caches: Vec::new(),
            tick: 0,
            feasible: Vec::new(),
            stat: Vec::new(),
            raw: Vec::new(),
            dom_cnt: Vec::new(),
            soft_present: Vec::new(),
        }
    }

    /// The pod's [`SpecMemo`].
    fn spec_memo(&mut self, info: &PodInfo) -> Option<SpecMemo> {
        match info.shared_spec() {
            Some(arc) => {
                let ptr = Arc::as_ptr(arc) as usize;
                if let Some(m) = self.specs.get(&ptr) {
                    return Some(*m);
                }
                let m = SpecMemo::of(static_key_of(arc), arc)?;
                self.specs.insert(ptr, m);
                Some(m)
            }
            None => SpecMemo::of(static_key_of(info.spec()), info.spec()),
        }
    }

    /// A node's resources changed: refresh its numbers and log it.
    fn touched(&mut self, cluster: &Cluster, node: NodeId) {
        if self.refresh(cluster, node) {
            self.log.push(node);
        }
    }

    /// Reads a node's numbers again (false: no such node).
    fn refresh(&mut self, cluster: &Cluster, node: NodeId) -> bool {
        let Some(n) = cluster.nodes.get(node) else {
            return false;
        };
        if self.base_log.is_some() {
            self.save(node);
        }
        self.res[node] = NodeRes::of(n);
        self.free[node] = Free::of(&self.res[node]);
        true
    }

    /// Inside a what-if: keeps `node`'s figures as they were before it, the first time it
    /// changes.
    fn save(&mut self, node: NodeId) {
        if self.saved_at.len() < self.res.len() {
            self.saved_at.resize(self.res.len(), 0);
        }
        if let Some(at) = self.saved_at.get_mut(node)
            && *at == 0
            && let (Some(res), Some(free)) = (self.res.get(node), self.free.get(node))
        {
            self.saved.push((node, *res, *free));
            *at = self.saved.len() as u32;
        }
    }

    /// Forgets the saved figures.
    fn unsave(&mut self) {
        for &(node, _, _) in &self.saved {
            if let Some(at) = self.saved_at.get_mut(node) {
                *at = 0;
            }
        }
        self.saved.clear();
    }

    /// Pods were removed somewhere (preemption): refresh everything.
    fn reset(&mut self, cluster: &Cluster) {
        self.res = cluster.nodes.iter().map(NodeRes::of).collect();
        self.free = self.res.iter().map(Free::of).collect();
        self.epoch += 1;
        let keys = std::mem::take(&mut self.sel.lc_keys);
        self.sel = Selectors::of_bound_pods(cluster, &self.node_class, keys);
        self.classes.clear();
    }

    /// A what-if starts ([`first_fit::FirstFit::begin`]): what it changes is put back before
    /// the next one, so the resource-score caches need only forget the nodes it changed, and
    /// may be many (one per distinct request, within 64 MiB).
    fn what_if_begins(&mut self) {
        self.max_caches = max_caches(self.res.len());
        self.base_log = Some(self.log.len());
        self.unsave();
        self.sel.journal = Some(Vec::new());
    }

    /// The what-if's changes were put back: every cache forgets the nodes it changed (so it
    /// holds the scores of the cluster as it was when the what-if began) and the change log
    /// is cut back to where it began.
    fn what_if_ends(&mut self) {
        self.unsave();
        self.sel.journal = None;
        let Some(base) = self.base_log.take() else {
            return;
        };
        let base = base.min(self.log.len());
        for c in &mut self.caches {
            if c.synced > base {
                for &node in &self.log[base..c.synced.min(self.log.len())] {
                    if let Some(s) = c.scores.get_mut(node) {
                        *s = UNKNOWN;
                    }
                    if let Some(&class) = self.node_class.get(node) {
                        c.fresh.forget(node, class);
                    }
                }
                c.synced = base;
            }
        }
        self.log.truncate(base);
    }
}

/// From how many queued pods a run's compiled state is freed on another thread.
const FREE_ELSEWHERE_FROM: usize = 20_000;

/// Frees a run's compiled state. A big run's (tens of thousands of pod and label classes:
/// 15 ms at 75,000 pods, 50 ms at 150,000) is freed on another thread, which the placements
/// need not wait for; if no thread can be started it is freed here.
fn free(run: Run, queued: usize) {
    if queued >= FREE_ELSEWHERE_FROM {
        crate::drop_elsewhere(run);
    }
}

impl FastScheduler {
    /// A compiled scheduler around a reference one with the same arguments.
    pub fn new(gates: FeatureGates, percentage_of_nodes_to_score: Option<i64>, seed: u64) -> Self {
        FastScheduler {
            reference: Scheduler::new(gates, percentage_of_nodes_to_score, seed),
            gates,
            stats: FastStats::default(),
            keep: false,
            kept: None,
        }
    }

    /// Keeps the compiled state of the runs that follow, the last one for a what-if to start
    /// from ([`first_fit::FirstFit::from_scheduler`]), instead of freeing it.
    pub fn keep_state(&mut self) {
        self.keep = true;
    }

    /// Schedules every pending pod in queue order, as [`super::schedule_all`] does.
    pub fn schedule_all(&mut self, cluster: &mut Cluster) -> Vec<Placement> {
        let mut queue = cluster.pending();
        Scheduler::queue_order(cluster, &mut queue);
        self.schedule_pods(cluster, &queue)
    }

    /// Schedules `queue` in the order given, as [`super::schedule_pods`] does (a pod that
    /// preemption nominates a node for is tried again at once).
    pub fn schedule_pods(&mut self, cluster: &mut Cluster, queue: &[PodId]) -> Vec<Placement> {
        self.run(cluster, queue, true)
    }

    /// One scheduling cycle per pod of `queue`, in order, one placement each: a pod that
    /// preemption nominates a node for is not retried (a live scheduler waits for its victims
    /// to go), as [`Scheduler::schedule_one`] in a loop.
    pub fn schedule_each(&mut self, cluster: &mut Cluster, queue: &[PodId]) -> Vec<Placement> {
        self.run(cluster, queue, false)
    }

    fn run(&mut self, cluster: &mut Cluster, queue: &[PodId], retry: bool) -> Vec<Placement> {
        let mut run = Run::new(cluster);
        self.stats.node_classes = run.reps.len();
        let affinity_anywhere = cluster.pods.iter().any(has_pod_affinity);
        let mut out = Vec::with_capacity(queue.len());
        let ClassKeys {
            keys,
            mut drafts,
            specs,
        } = class_keys(cluster, queue, !affinity_anywhere);
        for (ptr, (_, memo)) in specs.into_iter().flat_map(|s| s.by_address) {
            if let Some(memo) = memo {
                run.specs.insert(ptr, memo);
            }
        }
        run.sel.lc_keys.resize(cluster.pods.len(), 0);
        for (&pod, &(_, label)) in queue.iter().zip(&keys) {
            if let Some(k) = run.sel.lc_keys.get_mut(pod) {
                *k = label;
            }
        }
        if self.keep {
            run.class_keys.resize(cluster.pods.len(), 0);
            for (&pod, &(key, _)) in queue.iter().zip(&keys) {
                if let Some(k) = run.class_keys.get_mut(pod) {
                    *k = key;
                }
            }
        }
        for (i, (&pod, &(key, _))) in queue.iter().zip(&keys).enumerate() {
            let draft = drafts.get_mut(i).and_then(Option::take);
            let outcome = self.schedule_one(&mut run, cluster, pod, key, affinity_anywhere, draft);
            super::push_with_retry(&mut out, pod, outcome, || {
                retry.then(|| {
                    self.schedule_one(&mut run, cluster, pod, key, affinity_anywhere, None)
                })
            });
        }
        self.stats.pod_classes = run.classes.values().filter(|c| c.is_some()).count();
        if self.keep {
            self.kept = Some(run);
        } else {
            free(run, queue.len());
        }
        out
    }

    fn schedule_one(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        key: u128,
        affinity_anywhere: bool,
        draft: Option<Box<Draft>>,
    ) -> Outcome {
        // Pods nominated by preemption hold room on their nodes (the reference's filters add
        // them, `RunFilterPluginsWithNominatedPods`): while any exists, the reference decides.
        let class = if affinity_anywhere || cluster.has_nominations() {
            None
        } else {
            self.class_of(run, cluster, pod, key, draft)
        };
        if let Some(class) = class
            && let Some(outcome) = self.compiled(run, cluster, pod, key, &class)
        {
            match &outcome {
                Outcome::Scheduled { .. } => self.stats.compiled += 1,
                Outcome::Unschedulable { nominated, .. } => {
                    self.stats.compiled_unschedulable += 1;
                    if nominated.is_some() {
                        run.reset(cluster);
                    }
                }
            }
            return outcome;
        }
        self.stats.reference += 1;
        run.chain = None;
        let n_all = cluster.nodes.len();
        let like = cluster.pods.get(pod).map(unschedulable_key);
        if let Some(outcome) = self.like_last_unschedulable(run, like, n_all) {
            return outcome;
        }
        let before = self.reference.next_start_node_index;
        let outcome = self.reference.schedule_one(cluster, pod);
        self.remember_unschedulable(run, &outcome, like, before, n_all);
        match &outcome {
            Outcome::Scheduled { node, .. } => {
                run.sel.moved(cluster, pod, *node, 1);
                run.touched(cluster, *node);
            }
            Outcome::Unschedulable {
                nominated: Some(_), ..
            } => run.reset(cluster),
            Outcome::Unschedulable { .. } => {}
        }
        outcome
    }

    /// The outcome of a pod like the last one found unschedulable without a nomination
    /// (`like`: its [`unschedulable_key`]) while nothing has changed since: the same message,
    /// the round-robin index advanced as that pod's cycle advanced it.
    fn like_last_unschedulable(
        &mut self,
        run: &Run,
        like: Option<u128>,
        n_all: usize,
    ) -> Option<Outcome> {
        let u = run.unschedulable.as_ref()?;
        if Some(u.key) != like || u.log_len != run.log.len() || u.epoch != run.epoch || n_all == 0 {
            return None;
        }
        self.stats.repeated_unschedulable += 1;
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + u.advance) % n_all;
        Some(Outcome::Unschedulable {
            message: u.message.clone(),
            nominated: None,
        })
    }

    /// Remembers `outcome` for [`Self::like_last_unschedulable`] when it is unschedulable
    /// without a nomination (`before`: the round-robin index before the pod's cycle).
    fn remember_unschedulable(
        &self,
        run: &mut Run,
        outcome: &Outcome,
        like: Option<u128>,
        before: usize,
        n_all: usize,
    ) {
        run.unschedulable = match (outcome, like) {
            (
                Outcome::Unschedulable {
                    message,
                    nominated: None,
                },
                Some(key),
            ) if n_all > 0 => Some(LastUnschedulable {
                key,
                log_len: run.log.len(),
                epoch: run.epoch,
                advance: (self.reference.next_start_node_index + n_all - before % n_all) % n_all,
                message: message.clone(),
            }),
            _ => None,
        };
    }

    /// The pod's compiled class, compiling it on first sight; `None` when the compiled path does
    /// not cover the pod.
    fn class_of(
        &self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        key: u128,
        draft: Option<Box<Draft>>,
    ) -> Option<Arc<PodClass>> {
        if let Some(c) = run.classes.get(&key) {
            return c.clone();
        }
        let compiled = self.compile(run, cluster, pod, draft).map(Arc::new);
        run.classes.insert(key, compiled.clone());
        compiled
    }

    fn plugin(&self, name: &str) -> Option<&dyn Plugin> {
        self.reference
            .profile
            .entries
            .iter()
            .find(|e| e.plugin.name() == name)
            .map(|e| e.plugin.as_ref())
    }

    /// Compiles the class of pod `pod` (`draft`: its [`Draft`] when found ahead). The static
    /// plugins' PreFilter and PreScore run once per static key: every class of the key shares
    /// their answers ([`StaticFacts`]).
    fn compile(
        &self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        draft: Option<Box<Draft>>,
    ) -> Option<PodClass> {
        let info = &cluster.pods[pod];
        let draft = match draft {
            Some(d) => *d,
            None => Draft::of(info, cluster),
        };
        let DraftSpreads {
            hard: hard_c,
            soft: soft_c,
            explicit,
        } = draft.spreads?;
        // The static plugins read tolerations, nodeSelector, affinity and nodeName (host ports
        // are excluded above): pod classes that share them share these tables, and the
        // node-inclusion answers of their spread constraints.
        let memo = run.spec_memo(info)?;
        let static_key = match info.spec_node_name() {
            None => memo.static_key,
            Some(name) => {
                let mut h = KeyHasher::new();
                h.feed(&memo.static_key.to_le_bytes());
                h.str(name);
                h.finish()
            }
        };
        // PreFilter of the static plugins, unless a class of the key compiled before.
        let known = run.statics.get(&static_key).cloned();
        let mut state = CycleState::default();
        let mut skip_filters = SkipSet::default();
        let mut names: Option<BTreeSet<String>> = None;
        let per_node = match &known {
            Some(f) => {
                skip_filters = f.skip_filters;
                f.per_node
            }
            None => {
                for (i, name) in STATIC_FILTERS.iter().enumerate() {
                    let pl = self.plugin(name)?;
                    let (st, res) = pl.pre_filter(&mut state, info, cluster);
                    match st.code {
                        Code::Skip => skip_filters.insert(i),
                        Code::Success => {
                            if let Some(r) = res {
                                names = Some(match names {
                                    None => r,
                                    Some(n) => n.intersection(&r).cloned().collect(),
                                });
                            }
                        }
                        _ => return None,
                    }
                }
                names.is_some() || names_nodes(info)
            }
        };
        if per_node && (!hard_c.is_empty() || !soft_c.is_empty())
            || hard_c.len() > MAX_SPREADS
            || soft_c.len() > MAX_SPREADS
        {
            return None;
        }
        // Read only when a constraint's node-inclusion answers are not known yet.
        let required = std::cell::OnceCell::new();
        let compile_spreads = |cs: Vec<DraftSpread>, run: &mut Run| {
            cs.into_iter()
                .map(|DraftSpread { c, self_match, sel_key }| {
                    let dom = run.domains(cluster, &c.topology_key);
                    let policies = (
                        static_key,
                        c.node_affinity_policy == NodeInclusionPolicy::Honor,
                        c.node_taints_policy == NodeInclusionPolicy::Honor,
                    );
                    let include = match run.includes.get(&policies) {
                        Some(i) => i.clone(),
                        None => {
                            let i: Arc<Vec<bool>> = Arc::new(
                                run.reps
                                    .iter()
                                    .map(|&r| {
                                        c.match_node_inclusion_policies(
                                            info,
                                            &cluster.nodes[r],
                                            required.get_or_init(|| {
                                                repel_core::affinity::RequiredNodeAffinity::from_pod_spec(
                                                    info.spec(),
                                                )
                                            }),
                                            &self.gates,
                                        )
                                    })
                                    .collect(),
                            );
                            run.includes.insert(policies, i.clone());
                            i
                        }
                    };
                    let honor_taints = c.node_taints_policy == NodeInclusionPolicy::Honor;
                    let hostname = c.topology_key == LABEL_HOSTNAME;
                    let (max_skew, min_domains) = (c.max_skew, c.min_domains);
                    // The selector moves into the counts when it is new (not copied).
                    let selector = std::borrow::Cow::Owned(c.selector);
                    let sel = run.sel.selector(cluster, &info.namespace, sel_key, selector);
                    Spread {
                        honor_taints,
                        hostname,
                        self_match,
                        sel,
                        dom,
                        include,
                        max_skew,
                        min_domains,
                    }
                })
                .collect::<Vec<_>>()
        };
        let hard = compile_spreads(hard_c, run);
        let soft = compile_spreads(soft_c, run);
        let mut keys_of = |spreads: &[Spread]| -> Arc<[bool]> {
            let doms: Vec<usize> = spreads.iter().map(|s| s.dom).collect();
            if let Some(k) = run.keys.get(&doms) {
                return k.clone();
            }
            let k: Arc<[bool]> = run
                .reps
                .iter()
                .map(|&r| spreads.iter().all(|s| run.domains[s.dom].has[r]))
                .collect();
            run.keys.insert(doms, k.clone());
            k
        };
        let hard_keys = keys_of(&hard);
        let soft_keys = keys_of(&soft);
        // The eligible domains of each hard constraint: nodes with every key that the
        // node-inclusion policies admit, with or without matching pods.
        let mut hard_present = Vec::with_capacity(hard.len());
        let mut hard_domains = Vec::with_capacity(hard.len());
        for s in &hard {
            let d = &run.domains[s.dom];
            let mut present = vec![false; d.count];
            for (n, &c) in run.node_class.iter().enumerate() {
                let c = c as usize;
                if hard_keys[c] && s.include[c] {
                    present[d.of_node[n] as usize] = true;
                }
            }
            hard_domains.push(present.iter().filter(|p| **p).count());
            hard_present.push(present);
        }

        // Scoring: which plugins score (PreScore, once per static key), and the pod's requests.
        let (la_req, ba_req) = memo.score_key;
        let facts = match known {
            Some(f) => f,
            None => {
                let tt = self.plugin(taint_toleration::NAME)?;
                let na = self.plugin(node_affinity::NAME)?;
                let mut score_state = CycleState::default();
                let tt_scores =
                    tt.pre_score(&mut score_state, info, &[], cluster).code != Code::Skip;
                let na_st = na.pre_score(&mut score_state, info, &[], cluster);
                if na_st.code == Code::Error {
                    return None;
                }
                let na_scores = na_st.code != Code::Skip;
                let statics = Arc::new(self.compile_statics(
                    run,
                    cluster,
                    info,
                    (&state, skip_filters, &score_state),
                    (tt_scores, na_scores, per_node),
                    names,
                )?);
                let f = StaticFacts {
                    statics,
                    skip_filters,
                    per_node,
                    tt_scores,
                    na_scores,
                };
                run.statics.insert(static_key, f.clone());
                f
            }
        };
        // ImageLocality: the nodes holding the pod's images (none when no node reports any).
        let index = cluster.image_index();
        let images = (!index.is_empty())
            .then(|| {
                index
                    .scores(info.spec())
                    .into_iter()
                    .map(|(n, s)| (n, s.clamp(0, MAX_NODE_SCORE) * image_locality::WEIGHT))
                    .collect::<Arc<[(NodeId, i64)]>>()
            })
            .filter(|s| !s.is_empty());
        Some(PodClass {
            images,
            static_key,
            statics: facts.statics,
            skip_filters,
            need: needs(&info.requests),
            requests: info.requests.clone(),
            score_key: (la_req, ba_req),
            tt_scores: facts.tt_scores,
            na_scores: facts.na_scores,
            soft_require_all: explicit,
            hard,
            soft,
            hard_keys,
            soft_keys,
            hard_present,
            hard_domains,
        })
    }

    /// The static plugins' answers for a new static key: per node for a node-naming pod, else
    /// per node class with the nodes they let through.
    fn compile_statics(
        &self,
        run: &Run,
        cluster: &Cluster,
        info: &PodInfo,
        (state, skip_filters, score_state): (&CycleState, SkipSet, &CycleState),
        (tt_scores, na_scores, per_node): (bool, bool, bool),
        names: Option<BTreeSet<String>>,
    ) -> Option<Statics> {
        let tt = self.plugin(taint_toleration::NAME)?;
        let na = self.plugin(node_affinity::NAME)?;
        let statics = if per_node {
            Statics::PerNode {
                // In node order, as the reference visits them.
                candidates: names.map(|names| {
                    let mut ids: Vec<NodeId> =
                        names.iter().filter_map(|n| cluster.node_id(n)).collect();
                    ids.sort_unstable();
                    ids
                }),
            }
        } else {
            let nc = run.reps.len();
            let mut ok = Vec::with_capacity(nc);
            let mut tt_raw = Vec::with_capacity(nc);
            let mut na_raw = Vec::with_capacity(nc);
            for &r in &run.reps {
                let node = &cluster.nodes[r];
                ok.push(self.static_ok(state, skip_filters, info, node, cluster));
                tt_raw.push(if tt_scores {
                    tt.score(score_state, info, node, cluster).ok()?
                } else {
                    0
                });
                na_raw.push(if na_scores {
                    na.score(score_state, info, node, cluster).ok()?
                } else {
                    0
                });
            }
            let allowed = (0..cluster.nodes.len())
                .filter(|n| ok[run.node_class[*n] as usize])
                .collect();
            Statics::ByClass {
                tt_raw,
                na_raw,
                allowed,
                class_ok: ok,
            }
        };
        Some(statics)
    }

    fn static_ok(
        &self,
        state: &CycleState,
        skip: SkipSet,
        pod: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) -> bool {
        STATIC_FILTERS.iter().enumerate().all(|(i, name)| {
            skip.contains(i)
                || self
                    .plugin(name)
                    .is_some_and(|pl| pl.filter(state, pod, node, cluster).is_success())
        })
    }

    /// The compiled scheduling cycle; `None` hands the pod to the reference scheduler (nothing
    /// has changed then).
    fn compiled(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        key: u128,
        class: &PodClass,
    ) -> Option<Outcome> {
        if let Some(chain) = run.chain.take()
            && !run.what_if
            && let Some(outcome) = self.compiled_repeat(run, cluster, pod, class, chain)
        {
            return Some(outcome);
        }
        if !run.what_if
            && let Some(chain) = self.fresh_chain(run, class)
            && let Some(outcome) = self.compiled_repeat(run, cluster, pod, class, chain)
        {
            return Some(outcome);
        }
        let n_all = cluster.nodes.len();
        if n_all == 0 {
            return None;
        }
        // The candidates (all nodes, or PreFilter's) and, for a per-node class, the static
        // plugins' PreFilter state for this pod.
        let mut per_node: Option<(CycleState, Vec<NodeId>)> = None;
        if let Statics::PerNode { candidates } = &*class.statics {
            let mut state = CycleState::default();
            for (i, name) in STATIC_FILTERS.iter().enumerate() {
                if !class.skip_filters.contains(i) {
                    self.plugin(name)?
                        .pre_filter(&mut state, &cluster.pods[pod], cluster);
                }
            }
            let cands = candidates.clone().unwrap_or_else(|| (0..n_all).collect());
            per_node = Some((state, cands));
        }
        let m = per_node.as_ref().map_or(n_all, |(_, c)| c.len());
        if m == 0 {
            return None;
        }

        // PodTopologySpread PreFilter: matching pods per eligible domain, and the minimum.
        let hard_min = hard_counts(run, class);

        // Filter, from the round-robin start, until enough feasible nodes are found. Nodes
        // the static filters reject are skipped without a visit; `processed` counts them as
        // the reference does.
        let to_find = self.reference.num_feasible_nodes_to_find(m);
        let start = self.reference.next_start_node_index % m;
        let mut feasible = std::mem::take(&mut run.feasible);
        feasible.clear();
        let mut stopped_at: Option<usize> = None;
        // Per node class, how many nodes are feasible, and which nodes (for the class-level
        // selection in `select_by_class`).
        run.pass += 1;
        let pass = run.pass;
        run.feasible_pass = pass;
        let mut class_feasible = std::mem::take(&mut run.class_feasible);
        class_feasible.iter_mut().for_each(|c| *c = 0);
        let mut feasible_mark = std::mem::take(&mut run.feasible_mark);
        {
            let info = &cluster.pods[pod];
            // Hard constraints on keys of the node class are judged once per class.
            let per_class_hard: Option<Vec<bool>> =
                (!class.hard.is_empty() && by_class::chain_shape(class)).then(|| {
                    let mut ok = Vec::new();
                    hard_ok_per_class(run, class, &hard_min, &mut ok);
                    ok
                });
            let hard_ok = |n: NodeId| match &per_class_hard {
                Some(ok) => ok[run.node_class[n] as usize],
                None => hard_failure(run, class, &hard_min, n).is_none(),
            };
            let skip = run.skip;
            let cordoned: &[bool] = if skip.is_some() { &run.cordoned } else { &[] };
            let skipped = |n: NodeId| skip == Some(n) || cordoned.get(n) == Some(&true);
            let mut visit = |pos: usize, n: NodeId, feasible: &mut Vec<NodeId>| -> bool {
                if skipped(n) {
                    return false;
                }
                let static_ok = match &per_node {
                    Some((state, _)) => {
                        self.static_ok(state, class.skip_filters, info, &cluster.nodes[n], cluster)
                    }
                    None => true,
                };
                if static_ok
                    && fits_free(class, &run.free[n], &cluster.nodes[n])
                    && (class.hard.is_empty() || hard_ok(n))
                {
                    feasible.push(n);
                    if feasible.len() >= to_find {
                        stopped_at = Some(pos);
                        return true;
                    }
                }
                false
            };
            match (&*class.statics, &per_node) {
                (Statics::ByClass { allowed, .. }, _) => {
                    // Positions are node indexes (the candidates are all nodes).
                    let split = allowed.partition_point(|n| *n < start);
                    for &n in allowed[split..].iter().chain(&allowed[..split]) {
                        if !skipped(n)
                            && fits_free(class, &run.free[n], &cluster.nodes[n])
                            && (class.hard.is_empty() || hard_ok(n))
                        {
                            feasible.push(n);
                            class_feasible[run.node_class[n] as usize] += 1;
                            feasible_mark[n] = pass;
                            if feasible.len() >= to_find {
                                stopped_at = Some(n);
                                break;
                            }
                        }
                    }
                }
                (_, Some((_, cands))) => {
                    for i in 0..m {
                        let pos = (start + i) % m;
                        if visit(pos, cands[pos], &mut feasible) {
                            break;
                        }
                    }
                }
                // (A per-node class always has its PreFilter state.)
                _ => {}
            }
        }
        run.class_feasible = class_feasible;
        run.feasible_mark = feasible_mark;
        if feasible.is_empty() {
            run.feasible = feasible;
            if run.what_if {
                return Some(Outcome::Unschedulable {
                    message: String::new(),
                    nominated: None,
                });
            }
            return self.compiled_unschedulable(run, cluster, pod, key, class, &hard_min);
        }
        let processed = match stopped_at {
            Some(pos) => (pos + m - start) % m + 1,
            None => m,
        };
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + processed) % n_all;
        let chosen = if feasible.len() == 1 {
            Some((feasible[0], None))
        } else {
            self.score_and_select(run, cluster, pod, class, &feasible)
                .map(|(n, s)| (n, Some(s)))
        };
        run.feasible = feasible;
        let (node, score) = chosen?;
        if run.what_if {
            return Some(Outcome::Scheduled { node, score });
        }
        cluster.bind(pod, node);
        run.sel.moved(cluster, pod, node, 1);
        run.touched(cluster, node);
        if score.is_some() && by_class::by_class_shape(class) {
            self.start_chain(run, class, node);
        }
        Some(Outcome::Scheduled { node, score })
    }

    /// PreScore, Score, NormalizeScore and selectHost over `feasible` (in filter order).
    fn score_and_select(
        &mut self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        class: &PodClass,
        feasible: &[NodeId],
    ) -> Option<(NodeId, i64)> {
        if let Statics::ByClass { tt_raw, na_raw, .. } = &*class.statics
            && by_class::by_class_shape(class)
        {
            return self.select_by_class(run, class, feasible, tt_raw, na_raw);
        }
        let info = &cluster.pods[pod];
        let mut stat = std::mem::take(&mut run.stat);
        stat.clear();
        // TaintToleration (3) and NodeAffinity (2): static raw scores normalised by their
        // maximum over the feasible nodes.
        match &*class.statics {
            Statics::ByClass { tt_raw, na_raw, .. } => {
                // The filter pass counted the feasible nodes per class.
                let mut per_class = std::mem::take(&mut run.class_score);
                by_class::static_class_scores(
                    &run.class_feasible,
                    class,
                    tt_raw,
                    na_raw,
                    &mut per_class,
                );
                stat.extend(
                    feasible
                        .iter()
                        .map(|n| per_class[run.node_class[*n] as usize]),
                );
                run.class_score = per_class;
            }
            Statics::PerNode { .. } => {
                stat.resize(feasible.len(), 0);
                for (name, on, reverse, weight) in [
                    (
                        taint_toleration::NAME,
                        class.tt_scores,
                        true,
                        taint_toleration::WEIGHT,
                    ),
                    (
                        node_affinity::NAME,
                        class.na_scores,
                        false,
                        node_affinity::WEIGHT,
                    ),
                ] {
                    if !on {
                        continue;
                    }
                    let pl = self.plugin(name)?;
                    let mut st = CycleState::default();
                    pl.pre_score(&mut st, info, &[], cluster);
                    let raw: Vec<i64> = feasible
                        .iter()
                        .map(|n| pl.score(&st, info, &cluster.nodes[*n], cluster).ok())
                        .collect::<Option<_>>()?;
                    let max = raw.iter().copied().max().unwrap_or(0);
                    for (s, r) in stat.iter_mut().zip(&raw) {
                        *s += normalized(*r, max, reverse, weight);
                    }
                }
            }
        }
        // PodTopologySpread (2).
        let mut raw = std::mem::take(&mut run.raw);
        if !class.soft.is_empty() {
            self.spread_scores(run, class, feasible, &mut raw);
            for (s, r) in stat.iter_mut().zip(&raw) {
                *s += (*r).clamp(0, MAX_NODE_SCORE) * pod_topology_spread::WEIGHT;
            }
        }
        run.raw = raw;
        // ImageLocality (1): the nodes holding the pod's images, read through a per-node
        // scratch left all zero.
        if let Some(images) = &class.images {
            let dense = &mut run.image_scratch;
            if dense.len() < run.res.len() {
                dense.resize(run.res.len(), 0);
            }
            for &(n, s) in images.iter() {
                if let Some(d) = dense.get_mut(n) {
                    *d = s;
                }
            }
            for (s, n) in stat.iter_mut().zip(feasible) {
                *s += dense.get(*n).copied().unwrap_or(0);
            }
            for &(n, _) in images.iter() {
                if let Some(d) = dense.get_mut(n) {
                    *d = 0;
                }
            }
        }
        // InterPodAffinity: no pod in the cluster has affinity terms, so PreScore skips.
        // NodeResourcesFit (LeastAllocated, 1) and BalancedAllocation (1, skipped for
        // BestEffort pods): kept per node for the request.
        let cache = run.scores(&class.score_key);
        let resource = &mut run.caches[cache].scores;
        let mut best = i64::MIN;
        for (s, n) in stat.iter_mut().zip(feasible) {
            let r = &mut resource[*n];
            if *r == UNKNOWN {
                *r = resource_scores(&run.res[*n], &class.score_key);
            }
            *s += *r;
            best = best.max(*s);
        }
        // selectHost: reservoir sampling among the best, in filter order.
        let mut ties = std::mem::take(&mut run.ties);
        ties.clear();
        ties.extend(
            stat.iter()
                .zip(feasible)
                .filter(|(t, _)| **t == best)
                .map(|(_, n)| *n),
        );
        let chosen = self.draw(&ties);
        run.ties = ties;
        run.stat = stat;
        chosen.map(|n| (n, best))
    }

    /// PodTopologySpread PreScore + Score + NormalizeScore over `feasible`, into `out` (the
    /// shapes [`Self::select_by_class`] does not take: several constraints on the hostname or
    /// on other keys).
    fn spread_scores(
        &self,
        run: &mut Run,
        class: &PodClass,
        feasible: &[NodeId],
        out: &mut Vec<i64>,
    ) {
        let not_ignored = feasible
            .iter()
            .filter(|n| !class.spread_ignored(run.node_class[**n]))
            .count();
        let mut weights = [0.0_f64; MAX_SPREADS];
        run.soft_present.resize(class.soft.len(), Vec::new());
        run.dom_cnt
            .resize(class.soft.len().max(run.dom_cnt.len()), Vec::new());
        for (i, s) in class.soft.iter().enumerate() {
            let mut counts = std::mem::take(&mut run.dom_cnt[i]);
            if s.hostname {
                weights[i] = topology_normalizing_weight(not_ignored);
                // Matching pods per node.
                counts.clear();
                counts.resize(run.node_class.len(), 0);
                for &(n, k) in &run.sel.sels[s.sel as usize].nonzero {
                    counts[n] = i64::from(k);
                }
            } else {
                let mut present = std::mem::take(&mut run.soft_present[i]);
                weights[i] = soft_domain_counts(run, class, s, feasible, &mut present, &mut counts);
                run.soft_present[i] = present;
            }
            run.dom_cnt[i] = counts;
        }
        let ignored = |n: NodeId| class.spread_ignored(run.node_class[n]);
        out.clear();
        let mut min_score = i64::MAX;
        let mut max_score = 0;
        for &n in feasible {
            if ignored(n) {
                out.push(-1);
                continue;
            }
            let mut total = 0.0_f64;
            for (i, s) in class.soft.iter().enumerate() {
                let d = &run.domains[s.dom];
                if !d.has[n] {
                    continue;
                }
                let c = if s.hostname {
                    run.dom_cnt[i][n]
                } else {
                    run.dom_cnt[i][d.of_node[n] as usize]
                };
                total += score_for_count(c, s.max_skew, weights[i]);
            }
            let s = total.round() as i64;
            min_score = min_score.min(s);
            max_score = max_score.max(s);
            out.push(s);
        }
        normalize_spread(out, feasible, ignored, min_score, max_score);
    }
}

mod by_class;
pub mod first_fit;
mod node_class;
mod remove_node;
mod score_cache;
#[cfg(test)]
mod tests;
mod unschedulable;
mod what_if;
