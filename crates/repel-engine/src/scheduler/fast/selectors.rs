//! Spread selectors' matching pods per node, kept up to date bind by bind (upstream
//! `plugins/podtopologyspread/common.go` `countPodsMatchSelector`, v1.35).
//!
//! Pods with the same namespace and labels form a label class ([`LabelClass`]); every spread
//! selector in use ([`Sel`]) is matched once against each label class, found through an index
//! of exact `key=value` requirements ([`MultiMap`]), and its per-node counts are then moved by
//! each bind and removal ([`Selectors::moved`]) instead of being counted over the pods anew.

use super::*;

/// One spread selector's matching pods per node (upstream `countPodsMatchSelector`), kept
/// sparse: a selector (one per workload) matches pods on a few of thousands of nodes.
#[derive(Default)]
pub(super) struct Sel {
    /// The nodes whose count has ever been non-zero, with their count.
    pub(super) nonzero: Vec<(NodeId, u32)>,
    /// Each of those nodes' index in `nonzero`.
    pub(super) slot: FastMap<NodeId, usize>,
    /// `slot` is out of date (node ids moved: see `remove_node`) and built again on first use.
    pub(super) stale: bool,
    /// The matching pods per node class: a key other than the hostname is a label of the node
    /// class, so its domain counts are sums over classes, not over nodes.
    pub(super) by_class: Vec<i64>,
    /// Per node, once the selector matches pods on [`DENSE_FROM`] nodes (empty before): its
    /// count, read without hashing when a pod's feasible nodes are fewer than its nodes.
    pub(super) dense: Vec<u32>,
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
    pub(super) fn dense(&self) -> Option<&[u32]> {
        (!self.dense.is_empty()).then_some(&self.dense)
    }

    pub(super) fn add_to_class(&mut self, class: u32, k: i64) {
        let c = class as usize;
        if self.by_class.len() <= c {
            self.by_class.resize(c + 1, 0);
        }
        self.by_class[c] += k;
    }

    /// The matching pods on the nodes of node class `class`.
    pub(super) fn class_count(&self, class: usize) -> i64 {
        self.by_class.get(class).copied().unwrap_or(0)
    }

    /// The matching pods on `node`.
    pub(super) fn count(&self, node: NodeId) -> u32 {
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
    pub(super) fn moved(&mut self, node: NodeId, class: u32, delta: i32, nodes: usize) {
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
pub(super) struct LabelClass {
    /// A pod of the class, whose namespace and labels are the class's (they do not change
    /// during a run).
    rep: PodId,
    /// Selectors that count these pods.
    pub(super) sels: Vec<u32>,
    /// Bound pods of the class per node, and each node's index there (out of date when
    /// `stale`: node ids moved, see `remove_node`; built again on first use).
    pub(super) nodes: Vec<(NodeId, u32)>,
    pub(super) slot: FastMap<NodeId, usize>,
    pub(super) stale: bool,
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
pub(super) struct Selectors {
    pub(super) sels: Vec<Sel>,
    /// By the key of their namespace and selector.
    index: FastMap<u128, u32>,
    /// Selectors by their first exact requirement ([`kv_key`]), and those without one.
    sel_by_kv: MultiMap,
    pub(super) sel_defs: Vec<(String, LabelSelector)>,
    unindexed: Vec<u32>,
    pub(super) lcs: Vec<LabelClass>,
    pub(super) lc_index: FastMap<u128, u32>,
    /// Per pod: its label class's key when known in advance (0: compute it).
    pub(super) lc_keys: Vec<u128>,
    /// Label classes by each of their labels ([`kv_key`]).
    lc_by_kv: MultiMap,
    pod_lc: Vec<u32>,
    /// Scratch.
    candidates: Vec<u32>,
    /// Per node: its node class.
    pub(super) node_class: Vec<u32>,
    /// Inside a what-if ([`Run::what_if_begins`]): each pod moved, as (label class, node,
    /// change), so that a selector's count before the what-if can be read back ([`what_if`]),
    /// a selector counted since included.
    pub(super) journal: Option<Vec<(u32, NodeId, i32)>>,
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
    pub(super) fn of_bound_pods(
        cluster: &Cluster,
        node_class: &[u32],
        label_keys: Vec<u128>,
    ) -> Self {
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
    pub(super) fn selector(
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
    pub(super) fn moved(&mut self, cluster: &Cluster, pod: PodId, node: NodeId, delta: i32) {
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
