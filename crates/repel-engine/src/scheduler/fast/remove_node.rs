//! A node removed from the cluster under a compiled state: the state follows in
//! place instead of being built again.
//!
//! [`Cluster::delete_node`] removes a node and moves the ids of the nodes after it down by
//! one. Building the compiled state again would count every bound pod again
//! (`Selectors::of_bound_pods`: a label class and every selector per pod). Instead
//! [`Run::remove_node`]:
//!
//! 1. takes the node out of every spread selector's counts (its matching pods with it) and
//!    out of every label class's nodes, the ids after it moved down by one;
//! 2. numbers the node classes as a build does (by their first node, in node order; a class
//!    whose only node went is gone, and a cordoned representative gives way as
//!    [`super::first_fit::FirstFit::cordon`] has it), each selector's counts per class
//!    following, and each topology key's values likewise (by first node);
//! 3. reads every node's resource figures again (a few numbers per node), and starts afresh
//!    what is cheap to derive again on first use and refers to node ids or node classes: the
//!    compiled pod classes and their per-class tables, the resource-score caches and their
//!    change log, the repeat path's chain and buckets, a what-if's entries and saved figures.
//!
//! What stays is what a build would compute the same from the same cluster: the selectors'
//! and label classes' counts (the cluster's binds and unbinds were all told to
//! [`Selectors::moved`]), the node classes (a node's class does not change when another
//! node goes), the topology keys' values, the pods' label and class keys, the specs' memos.
//! A test compares the state after each of a sequence of removals with one built anew.

use super::{Domains, LabelClass, Run, Sel, Selectors};
use crate::cluster::{Cluster, NodeId};

/// A node class, or a topology value, that no node has any more.
const GONE: u32 = u32::MAX;

impl Run {
    /// Node `node` was removed from the cluster (`cluster`, as [`Cluster::delete_node`] left
    /// it): the state follows (see the module documentation). A state that was not of the
    /// cluster with that node is built again.
    pub(super) fn remove_node(&mut self, cluster: &Cluster, node: NodeId) {
        let before = self.node_class.len();
        if node >= before || cluster.nodes.len() + 1 != before {
            let keys = std::mem::take(&mut self.sel.lc_keys);
            let class_keys = std::mem::take(&mut self.class_keys);
            *self = Run::with_label_keys(cluster, keys);
            self.class_keys = class_keys;
            return;
        }
        let old_class = self.node_class.remove(node);
        if !self.cordoned.is_empty() && node < self.cordoned.len() {
            self.cordoned.remove(node);
        }
        let (map, reps) = renumber(&mut self.node_class, self.reps.len(), &self.cordoned);
        let mut sel = std::mem::take(&mut self.sel);
        sel.remove_node(node, old_class, &map, &self.node_class);
        for d in &mut self.domains {
            d.remove_node(node);
        }
        let fresh = Run::from_parts(cluster, std::mem::take(&mut self.node_class), reps, sel);
        let kept = std::mem::replace(self, fresh);
        self.domains = kept.domains;
        self.domain_index = kept.domain_index;
        self.specs = kept.specs;
        self.class_keys = kept.class_keys;
        self.cordoned = kept.cordoned;
    }
}

/// Numbers the node classes of `node_class` (of `classes` classes before) by first node, as
/// a build does, in place: the old class to the new ([`GONE`]: no node left) and each new
/// class's representative (its first node, else — when that one is `cordoned` — its first
/// node that is not, as [`super::first_fit::FirstFit::cordon`] chooses).
fn renumber(node_class: &mut [u32], classes: usize, cordoned: &[bool]) -> (Vec<u32>, Vec<NodeId>) {
    let mut map = vec![GONE; classes];
    let mut reps = Vec::new();
    for (n, c) in node_class.iter_mut().enumerate() {
        let Some(m) = map.get_mut(*c as usize) else {
            continue;
        };
        if *m == GONE {
            *m = reps.len() as u32;
            reps.push(n);
        }
        *c = *m;
    }
    if cordoned.iter().any(|c| *c) {
        for (c, rep) in reps.iter_mut().enumerate() {
            if cordoned.get(*rep) == Some(&true)
                && let Some(other) = (*rep + 1..node_class.len())
                    .find(|&m| node_class[m] as usize == c && cordoned.get(m) != Some(&true))
            {
                *rep = other;
            }
        }
    }
    (map, reps)
}

impl Selectors {
    /// Node `node`, of node class `class`, was removed: see [`Run::remove_node`]; `map` takes
    /// the old node classes to the new, `node_class` is the new class of each node.
    fn remove_node(&mut self, node: NodeId, class: u32, map: &[u32], node_class: &[u32]) {
        // Usually every class keeps its number: the counts per class stay as they are.
        let same = map.iter().enumerate().all(|(c, &m)| m as usize == c);
        let map = (!same).then_some(map);
        for s in &mut self.sels {
            s.remove_node(node, class, map);
        }
        for lc in &mut self.lcs {
            lc.remove_node(node);
        }
        self.node_class.clear();
        self.node_class.extend_from_slice(node_class);
        self.journal = None;
    }
}

impl Sel {
    /// Node `node`, of node class `class`, was removed (with its matching pods); `map`
    /// takes the old node classes to the new (`None`: each keeps its number). The nodes'
    /// index is built again when next needed ([`Sel::fresh_slots`]): most selectors are not
    /// read by node before the next removal.
    fn remove_node(&mut self, node: NodeId, class: u32, map: Option<&[u32]>) {
        let mut gone = 0;
        let mut moved = false;
        self.nonzero.retain_mut(|(n, k)| {
            if *n == node {
                gone = *k;
                moved = true;
                return false;
            }
            if *n > node {
                *n -= 1;
                moved = true;
            }
            true
        });
        if gone > 0 {
            self.add_to_class(class, -i64::from(gone));
        }
        if moved {
            self.stale = true;
        }
        if node < self.dense.len() {
            self.dense.remove(node);
        }
        if let Some(map) = map {
            self.by_class = renumbered(&self.by_class, map);
        }
    }

    /// Builds the nodes' index again after node ids moved.
    pub(super) fn fresh_slots(&mut self) {
        self.slot.clear();
        for (i, (n, _)) in self.nonzero.iter().enumerate() {
            self.slot.insert(*n, i);
        }
        self.stale = false;
    }
}

/// Counts per node class `by_class` (of the old classes) by new class, `map` taking the old
/// to the new; a class gone had nothing left.
fn renumbered(by_class: &[i64], map: &[u32]) -> Vec<i64> {
    let len = by_class
        .iter()
        .zip(map)
        .filter(|(k, m)| **k != 0 && **m != GONE)
        .map(|(_, m)| *m as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![0; len];
    for (&k, &m) in by_class.iter().zip(map) {
        if let Some(slot) = out.get_mut(m as usize)
            && k != 0
        {
            *slot = k;
        }
    }
    out
}

impl LabelClass {
    /// Node `node` was removed (its pods counted here with it). The nodes' index is built
    /// again when next needed ([`LabelClass::fresh_slots`]).
    fn remove_node(&mut self, node: NodeId) {
        let mut moved = false;
        self.nodes.retain_mut(|(n, _)| {
            if *n == node {
                moved = true;
                return false;
            }
            if *n > node {
                *n -= 1;
                moved = true;
            }
            true
        });
        if moved {
            self.stale = true;
        }
    }

    /// Builds the nodes' index again after node ids moved.
    pub(super) fn fresh_slots(&mut self) {
        self.slot.clear();
        for (i, (n, _)) in self.nodes.iter().enumerate() {
            self.slot.insert(*n, i);
        }
        self.stale = false;
    }
}

impl Domains {
    /// Node `node` was removed: its value goes with it when no other node has it, and the
    /// values are numbered by first node again, as a build numbers them.
    fn remove_node(&mut self, node: NodeId) {
        if node >= self.of_node.len() {
            return;
        }
        self.of_node.remove(node);
        self.has.remove(node);
        let mut map = vec![GONE; self.count];
        let mut next = 0u32;
        for v in &mut self.of_node {
            if let Some(m) = map.get_mut(*v as usize) {
                if *m == GONE {
                    *m = next;
                    next += 1;
                }
                *v = *m;
            }
        }
        self.count = next as usize;
    }
}

#[cfg(test)]
mod tests;
