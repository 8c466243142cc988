//! Node classes and the per-node figures the compiled path reads (upstream
//! `pkg/scheduler/framework/types.go` `NodeInfo` and the NodeResourcesFit filter of
//! `plugins/noderesources/fit.go`, v1.35).
//!
//! Nodes with the same labels (the hostname label aside), taints and `unschedulable` form a
//! node class ([`Run::with_label_keys`]): the static plugins ([`STATIC_FILTERS`], answered per
//! class, skipped as a [`SkipSet`]) give all its nodes the same answer. Per node it keeps the
//! resources NodeResourcesFit and the scorers read ([`NodeRes`]), the free figures a request is
//! compared with ([`Free`], [`fits_free`]), and each topology key's values ([`Domains`]).

use super::*;

/// The plugins whose answers depend only on the pod's spec and the node's labels, taints and
/// `unschedulable` (plus NodeName and NodePorts, which pass every node for a pod without
/// `spec.nodeName` and host ports).
pub(super) const STATIC_FILTERS: [&str; 5] = [
    "NodeUnschedulable",
    "NodeName",
    taint_toleration::NAME,
    node_affinity::NAME,
    "NodePorts",
];

/// A set of [`STATIC_FILTERS`], by index.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SkipSet(u8);

impl SkipSet {
    pub(super) fn insert(&mut self, i: usize) {
        self.0 |= 1 << i;
    }

    pub(super) fn contains(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }
}

/// A node's resources as NodeResourcesFit and the scorers read them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NodeRes {
    pub(super) alloc_cpu: i64,
    pub(super) alloc_mem: i64,
    pub(super) alloc_eph: i64,
    alloc_pods: i64,
    pub(super) req_cpu: i64,
    pub(super) req_mem: i64,
    req_eph: i64,
    pub(super) nz_cpu: i64,
    pub(super) nz_mem: i64,
    pods: i64,
}

impl NodeRes {
    pub(super) fn of(n: &NodeInfo) -> Self {
        NodeRes {
            alloc_cpu: n.allocatable.milli_cpu,
            alloc_mem: n.allocatable.memory,
            alloc_eph: n.allocatable.ephemeral_storage,
            alloc_pods: n.allocatable.allowed_pod_number,
            req_cpu: n.requested.milli_cpu,
            req_mem: n.requested.memory,
            req_eph: n.requested.ephemeral_storage,
            nz_cpu: n.non_zero_requested.0,
            nz_mem: n.non_zero_requested.1,
            pods: n.pods.len() as i64,
        }
    }
}

/// A node's free resources, as NodeResourcesFit compares a request with them (`allocatable -
/// requested`, saturated: a request exceeds the saturated figure exactly when it exceeds the
/// true one).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Free {
    pub(super) cpu: i64,
    pub(super) mem: i64,
    pub(super) eph: i64,
    pub(super) pods: i64,
}

impl Free {
    pub(super) fn of(r: &NodeRes) -> Self {
        Free {
            cpu: r.alloc_cpu.saturating_sub(r.req_cpu),
            mem: r.alloc_mem.saturating_sub(r.req_mem),
            eph: r.alloc_eph.saturating_sub(r.req_eph),
            pods: r.alloc_pods.saturating_sub(r.pods),
        }
    }
}

/// Values of one topology key, node by node.
pub(super) struct Domains {
    /// Per node: the value's id (the empty string when the label is missing, as upstream's
    /// `node.Labels[key]` reads it).
    pub(super) of_node: Vec<u32>,
    /// Per node: whether it has the label.
    pub(super) has: Vec<bool>,
    /// How many distinct values.
    pub(super) count: usize,
}

fn fits_amount(want: i64, alloc: i64, used: i64) -> bool {
    !(want > 0 && i128::from(want) > i128::from(alloc) - i128::from(used))
}

/// [`PodClass::need`] of a request.
pub(super) fn needs(r: &Resources) -> [i64; 3] {
    let need = |want: i64| if want > 0 { want } else { i64::MIN };
    [need(r.milli_cpu), need(r.memory), need(r.ephemeral_storage)]
}

/// NodeResourcesFit's filter as a yes/no (`fits_request(..).is_empty()`), read from the node's
/// [`Free`] figures (extended resources from the node itself).
pub(super) fn fits_free(class: &PodClass, f: &Free, node: &NodeInfo) -> bool {
    let [cpu, mem, eph] = class.need;
    f.pods >= 1
        && cpu <= f.cpu
        && mem <= f.mem
        && eph <= f.eph
        && (class.requests.scalar.is_empty()
            || class.requests.scalar.iter().all(|(name, want)| {
                fits_amount(*want, node.allocatable.get(name), node.requested.get(name))
            }))
}

impl Run {
    /// [`Run::new`] with the pods' label keys known already (see [`Selectors::of_bound_pods`]).
    pub(super) fn with_label_keys(cluster: &Cluster, label_keys: Vec<u128>) -> Self {
        let mut index: HashMap<String, u32> = HashMap::new();
        let mut node_class = Vec::with_capacity(cluster.nodes.len());
        let mut reps = Vec::new();
        for (id, n) in cluster.nodes.iter().enumerate() {
            let mut labels = n.labels.clone();
            let has_hostname = labels.remove(LABEL_HOSTNAME).is_some();
            let key = format!(
                "{}|{}|{}|{}",
                serde_json::to_string(&labels).unwrap_or_default(),
                has_hostname,
                serde_json::to_string(&n.taints).unwrap_or_default(),
                n.unschedulable
            );
            let next = index.len() as u32;
            let c = *index.entry(key).or_insert_with(|| {
                reps.push(id);
                next
            });
            node_class.push(c);
        }
        let sel = Selectors::of_bound_pods(cluster, &node_class, label_keys);
        Run::from_parts(cluster, node_class, reps, sel)
    }

    pub(super) fn domains(&mut self, cluster: &Cluster, key: &str) -> usize {
        if let Some(i) = self.domain_index.get(key) {
            return *i;
        }
        let mut values: HashMap<&str, u32> = HashMap::new();
        let mut of_node = Vec::with_capacity(cluster.nodes.len());
        let mut has = Vec::with_capacity(cluster.nodes.len());
        for n in &cluster.nodes {
            let v = n.labels.get(key);
            has.push(v.is_some());
            let v = v.map_or("", String::as_str);
            let next = values.len() as u32;
            of_node.push(*values.entry(v).or_insert(next));
        }
        let count = values.len();
        let i = self.domains.len();
        self.domains.push(Domains {
            of_node,
            has,
            count,
        });
        self.domain_index.insert(key.to_string(), i);
        i
    }
}
