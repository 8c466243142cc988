//! A node removed from the cluster under a compiled state: the state follows in
//! place instead of being built again.
//!
//! [`Cluster::delete_node`] removes a node and moves the ids of the nodes after it down by
//! one. Building the compiled state again would count every bound pod again
//! (`Selectors::of_bound_pods`: a label class and every selector per pod). Instead
//! [`Run::remove_nodes`]:
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
    /// Nodes `gone` (their ids before, distinct) were removed from the cluster together
    /// (`cluster`, as [`Cluster::delete_nodes`] left it): the state follows in one pass, as
    /// removing each in turn leaves it (classes and topology values are
    /// numbered by first node, whatever the order the nodes went in). A state that was not
    /// of the cluster with those nodes is built again.
    pub(super) fn remove_nodes(&mut self, cluster: &Cluster, gone: &[NodeId]) {
        let before = self.node_class.len();
        let mut is_gone = vec![false; before];
        let mut fits = cluster.nodes.len() + gone.len() == before;
        for &g in gone {
            match is_gone.get_mut(g) {
                Some(slot) if !*slot => *slot = true,
                _ => fits = false,
            }
        }
        if !fits {
            let keys = std::mem::take(&mut self.sel.lc_keys);
            let class_keys = std::mem::take(&mut self.class_keys);
            *self = Run::with_label_keys(cluster, keys);
            self.class_keys = class_keys;
            return;
        }
        if gone.is_empty() {
            return;
        }
        let old_classes = self.node_class.clone();
        let first = gone.iter().copied().min().unwrap_or(0);
        let ids = Ids::new(&is_gone);
        retain_kept(&mut self.node_class, &is_gone);
        if !self.cordoned.is_empty() {
            retain_kept(&mut self.cordoned, &is_gone);
        }
        let (map, reps) = renumber(&mut self.node_class, self.reps.len(), &self.cordoned);
        let mut sel = std::mem::take(&mut self.sel);
        sel.remove_nodes(&ids, first, &old_classes, &map, &self.node_class);
        for d in &mut self.domains {
            d.remove_nodes(&is_gone);
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

/// Node ids before and after some nodes went: each old id's new one (`None`: gone).
struct Ids {
    new: Vec<Option<NodeId>>,
}

impl Ids {
    fn new(is_gone: &[bool]) -> Ids {
        let mut next = 0;
        let new = is_gone
            .iter()
            .map(|&g| {
                (!g).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        Ids { new }
    }

    /// Old id `n`'s new id (`None`: gone); an id past the old nodes keeps its distance past
    /// the end.
    fn of(&self, n: NodeId) -> Option<NodeId> {
        match self.new.get(n) {
            Some(m) => *m,
            None => {
                let kept = self.new.iter().filter(|m| m.is_some()).count();
                Some(n - self.new.len() + kept)
            }
        }
    }
}

/// `v` (one entry per old node, or fewer) without the entries of the nodes gone.
fn retain_kept<T>(v: &mut Vec<T>, is_gone: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        let keep = !is_gone.get(i).copied().unwrap_or(false);
        i += 1;
        keep
    });
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
    /// Nodes were removed (`first` the lowest id gone): see [`Run::remove_nodes`]; `ids`
    /// takes the old node ids to the new, `old_classes` is the old class of each old node,
    /// `map` takes the old node classes to the new, `node_class` is the new class of each
    /// node.
    fn remove_nodes(
        &mut self,
        ids: &Ids,
        first: NodeId,
        old_classes: &[u32],
        map: &[u32],
        node_class: &[u32],
    ) {
        // Usually every class keeps its number: the counts per class stay as they are.
        let same = map.iter().enumerate().all(|(c, &m)| m as usize == c);
        let map = (!same).then_some(map);
        let is_gone: Vec<bool> = ids.new.iter().map(Option::is_none).collect();
        for s in &mut self.sels {
            s.remove_nodes(ids, first, old_classes, map, &is_gone);
        }
        for lc in &mut self.lcs {
            lc.remove_nodes(ids, first);
        }
        self.node_class.clear();
        self.node_class.extend_from_slice(node_class);
        self.journal = None;
    }
}

impl Sel {
    /// Nodes were removed with their matching pods (`first` the lowest id gone;
    /// `old_classes` the old class of each old node); `ids` takes the old node ids to the new, `map` the old node
    /// classes to the new (`None`: each keeps its number). The nodes' index is built again
    /// when next needed ([`Sel::fresh_slots`]): most selectors are not read by node before
    /// the next removal.
    fn remove_nodes(
        &mut self,
        ids: &Ids,
        first: NodeId,
        old_classes: &[u32],
        map: Option<&[u32]>,
        is_gone: &[bool],
    ) {
        let mut gone: Vec<(u32, u32)> = Vec::new();
        let moved = renumber_ids(&mut self.nonzero, ids, first, |n, k| {
            if let Some(&class) = old_classes.get(n) {
                gone.push((class, *k));
            }
        });
        for (class, k) in gone {
            if k > 0 {
                self.add_to_class(class, -i64::from(k));
            }
        }
        if moved {
            self.stale = true;
        }
        if first < self.dense.len() {
            retain_kept(&mut self.dense, is_gone);
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
    /// Nodes went (`ids` takes the old node ids to the new; `first` the lowest gone), their
    /// pods counted here with them. The nodes' index is built again when next needed
    /// ([`LabelClass::fresh_slots`]).
    fn remove_nodes(&mut self, ids: &Ids, first: NodeId) {
        let moved = renumber_ids(&mut self.nodes, ids, first, |_, _| {});
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
    /// Nodes went (`is_gone`, per old node): a value goes with them when no other node has
    /// it, and the values are numbered by first node again, as a build numbers them.
    fn remove_nodes(&mut self, is_gone: &[bool]) {
        if self.of_node.len() != is_gone.len() {
            return;
        }
        retain_kept(&mut self.of_node, is_gone);
        retain_kept(&mut self.has, is_gone);
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

/// Takes the node ids of `list` from `first` on to the new ones (`ids`), dropping the entries
/// of the nodes gone (each handed to `gone` first); whether any entry moved or went.
fn renumber_ids<T>(
    list: &mut Vec<(NodeId, T)>,
    ids: &Ids,
    first: NodeId,
    mut gone: impl FnMut(NodeId, &T),
) -> bool {
    let mut moved = false;
    list.retain_mut(|(n, v)| {
        if *n < first {
            return true;
        }
        match ids.of(*n) {
            None => {
                gone(*n, v);
                moved = true;
                false
            }
            Some(m) => {
                if m != *n {
                    *n = m;
                    moved = true;
                }
                true
            }
        }
    });
    moved
}

#[cfg(test)]
mod tests;
