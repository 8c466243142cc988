//! Pod classes: pods that get the same answers from the static plugins and share their
//! compiled form (upstream `pkg/scheduler/framework/types.go` `PodInfo`, and what
//! `plugins/tainttoleration`, `nodeaffinity`, `noderesources` and `podtopologyspread` read of
//! a pod, v1.35).
//!
//! A pod's class key ([`class_key`]) hashes ([`KeyHasher`]) its namespace, labels, owner,
//! `spec.nodeName` and what the plugins read of its spec ([`spec_key`]); the keys of a queue
//! are found ahead on every core ([`class_keys`], [`ClassKeys`]), with each shared spec's
//! [`SpecMemo`] ([`SpecKeys`]). A compiled class ([`PodClass`]) holds the static plugins'
//! answers per node class ([`Statics`], [`StaticFacts`], the same for every class of a static
//! key), its requests and its spread constraints.

use super::*;

/// The key of what the compiled path reads of a spec: the static plugins' fields (by their
/// key, [`static_key_of`]), spread constraints, and what the requests are computed from (by
/// their key, [`requests_key_of`]; `spec.nodeName` aside, which [`PodInfo`] keeps apart);
/// with `images` (some node of the cluster reports images), the containers' images too, which
/// ImageLocality reads (without, it scores every node 0 and they are not read).
pub(super) fn spec_key(static_key: u128, requests_key: u128, spec: &PodSpec, images: bool) -> u128 {
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
pub(super) fn requests_key_of(spec: &PodSpec) -> u128 {
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
pub(super) fn static_key_of(spec: &PodSpec) -> u128 {
    let mut h = KeyHasher::new();
    h.value(&(&spec.tolerations, &spec.node_selector, &spec.affinity));
    h.finish()
}

/// What the compiled path keeps of the specs shared by pods, for the duration of one batch
/// (nothing changes a queued pod's spec meanwhile).
#[derive(Default)]
pub(super) struct SpecKeys {
    /// Whether the containers' images enter the keys (see [`spec_key`]).
    images: bool,
    /// By a shared spec's address: its [`spec_key`] and its [`SpecMemo`].
    pub(super) by_address: FastMap<usize, (u128, Option<SpecMemo>)>,
    /// The scorers' requests by [`requests_key_of`]: a DaemonSet's pods each have a spec of
    /// their own (pinned to their node), all with the same requests.
    score_keys: FastMap<u128, Option<ScoreKey>>,
}

impl SpecKeys {
    /// Empty, the containers' images in the keys when `cluster`'s nodes report images.
    pub(super) fn of_cluster(cluster: &Cluster) -> Self {
        SpecKeys {
            images: !cluster.image_index().is_empty(),
            ..SpecKeys::default()
        }
    }

    /// A shared spec's [`spec_key`] and [`SpecMemo`] (found once per address).
    pub(super) fn of(&mut self, spec: &Arc<PodSpec>) -> (u128, Option<SpecMemo>) {
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
pub(super) fn label_key(info: &PodInfo) -> u128 {
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
pub(super) fn unschedulable_key(info: &PodInfo) -> u128 {
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
pub(super) fn compiled_unschedulable_key(info: &PodInfo, class_key: u128) -> u128 {
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
pub(super) struct SpecMemo {
    /// The key of what the static plugins read (tolerations, nodeSelector, affinity; the
    /// node name is added apart).
    pub(super) static_key: u128,
    /// The resource scores' requests.
    pub(super) score_key: ScoreKey,
}

impl SpecMemo {
    pub(super) fn of(static_key: u128, spec: &PodSpec) -> Option<Self> {
        Some(SpecMemo {
            static_key,
            score_key: score_key_of(spec)?,
        })
    }
}

/// The pod's class key: namespace, labels, controller, `spec.nodeName`, and the spec's key.
/// Equal specs are shared between pods (see `Cluster::add_pod`), so `specs` remembers the key
/// and memo of each shared spec seen, by address.
pub(super) fn class_key(info: &PodInfo, specs: &mut SpecKeys) -> u128 {
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
pub(super) fn class_keys(cluster: &Cluster, queue: &[PodId], drafts: bool) -> ClassKeys {
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
pub(super) struct ClassKeys {
    pub(super) keys: Vec<(u128, u128)>,
    pub(super) drafts: Vec<Option<Box<Draft>>>,
    pub(super) specs: Vec<SpecKeys>,
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
pub(super) struct KeyHasher {
    stream: Option<Box<xxhash_rust::xxh3::Xxh3Default>>,
    buf: [u8; KEY_BUF],
    len: usize,
    failed: bool,
}

/// The bytes [`KeyHasher`] gathers before hashing them.
pub(super) const KEY_BUF: usize = 256;

impl KeyHasher {
    pub(super) fn new() -> Self {
        KeyHasher {
            stream: None,
            buf: [0; KEY_BUF],
            len: 0,
            failed: false,
        }
    }

    pub(super) fn feed(&mut self, bytes: &[u8]) {
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

    pub(super) fn str(&mut self, s: &str) {
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

    pub(super) fn finish(&self) -> u128 {
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

/// How the static plugins are answered for a pod class.
pub(super) enum Statics {
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
pub(super) struct StaticFacts {
    pub(super) statics: Arc<Statics>,
    pub(super) skip_filters: SkipSet,
    /// The spec names nodes: the static plugins answer per node ([`Statics::PerNode`]).
    pub(super) per_node: bool,
    pub(super) tt_scores: bool,
    pub(super) na_scores: bool,
}

/// A compiled pod class.
pub(super) struct PodClass {
    /// The key of what the static plugins read (see [`SpecMemo`], with `spec.nodeName`).
    pub(super) static_key: u128,
    pub(super) statics: Arc<Statics>,
    /// The static filters whose PreFilter returned Skip ([`SkipSet`]).
    pub(super) skip_filters: SkipSet,
    pub(super) requests: Resources,
    /// cpu, memory and ephemeral storage requested, `i64::MIN` for none (a request of 0 or
    /// less never fails), compared with [`Free`].
    pub(super) need: [i64; 3],
    pub(super) score_key: ScoreKey,
    pub(super) tt_scores: bool,
    pub(super) na_scores: bool,
    pub(super) hard: Vec<Spread>,
    pub(super) soft: Vec<Spread>,
    /// Soft constraints: nodes must carry every key (else ignored).
    pub(super) soft_require_all: bool,
    /// Per node class: has every hard key / every soft key.
    pub(super) hard_keys: Arc<[bool]>,
    pub(super) soft_keys: Arc<[bool]>,
    /// Per hard constraint: the eligible domains (static) and how many.
    pub(super) hard_present: Vec<Vec<bool>>,
    pub(super) hard_domains: Vec<usize>,
    /// ImageLocality's weighted score of the nodes holding the pod's images, those scoring
    /// more than 0, ascending (`None`: every node scores 0). It reads only the nodes' images,
    /// which scheduling does not change.
    pub(super) images: Option<Arc<[(NodeId, i64)]>>,
}

impl PodClass {
    /// PodTopologySpread PreScore: a node lacking a soft constraint's key is ignored when the
    /// constraints are the pod's own (`requireAllTopologies`).
    pub(super) fn spread_ignored(&self, node_class: u32) -> bool {
        self.soft_require_all && !self.soft_keys[node_class as usize]
    }
}
