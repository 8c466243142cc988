//! The repeat path's groups of feasible nodes (upstream `pkg/scheduler/schedule_one.go`
//! `selectHost`'s candidates, v1.35, held between like pods).
//!
//! [`Buckets`] keeps a chain's feasible nodes by group (node class and the hostname spread
//! constraint's count on the node) and resource score, each list a bit set of nodes
//! ([`NodeSet`]), so that a pod costs a pass over the groups and the draw counts off the best
//! list in filter order.

use super::*;

/// A set of nodes as bits, and how many.
#[derive(Default)]
pub(super) struct NodeSet {
    pub(super) bits: Vec<u64>,
    len: usize,
}

/// The feasible nodes of a chain of like pods by group and resource score. A group is a node
/// class and a count of the pods the hostname spread constraint matches on the node: every
/// score but the resource scores is the same for the nodes of a group, so a pod costs a pass
/// over the groups, not over the nodes. Each list is a bit set of nodes: a node moves in and
/// out in constant time, and the draw counts off the list in filter order a word at a time.
#[derive(Default)]
pub(in crate::scheduler::fast) struct Buckets {
    /// `group * WIDTH + score` → the list's index in `sets` plus one (0: none yet).
    slot: Vec<u32>,
    /// The lists, reused from chain to chain: `free` of them are empty and unassigned,
    /// `assigned` of them have a place in `slot`.
    sets: Vec<NodeSet>,
    free: Vec<u32>,
    assigned: Vec<u32>,
    /// Words per list.
    words: usize,
    /// Per group: its node class and hostname count, its highest score with nodes (-1: none)
    /// and how many nodes it holds.
    pub(super) groups: Vec<(u32, u32)>,
    group_index: FastMap<(u32, u32), u32>,
    /// Per node class: its group with no matching pod on the node (`NO_GROUP`: none yet),
    /// found without hashing (most nodes hold none of a workload's pods).
    zero_group: Vec<u32>,
    pub(super) top: Vec<i64>,
    pub(super) size: Vec<usize>,
    /// Per node: its list's place in `slot` (`group * WIDTH + score`; `NO_GROUP`: not held).
    pub(super) node_slot: Vec<u32>,
    /// Per node class: how many of its nodes are feasible for the chain (held in a group, or
    /// left out of a group above its `floor`).
    pub(super) fit: Vec<u32>,
    /// Per group: the lowest score from which every feasible node of the group is held (0:
    /// all are). A fresh chain holds only each node class's best nodes
    /// ([`Buckets::fill_top`]); the rest join ([`Buckets::fill_rest`]) only if a group's
    /// held nodes run out above its floor, which a chain of a few pods never sees.
    floor: Vec<i64>,
    /// Scratch of a fresh chain: per node class its best score, and the nodes met at their
    /// class's best so far.
    pub(super) best: Vec<i64>,
    pub(super) cand: Vec<NodeId>,
    /// The other spread key's present domains and matching pods per domain (see
    /// [`zone_counts`]), kept up to date along the chain, and the weight.
    pub(super) present: Vec<bool>,
    pub(super) counts: Vec<i64>,
    pub(super) w_z: f64,
    /// Per node class: whether the hard constraints let it through.
    pub(super) allowed: Vec<bool>,
    /// Scratch: per group, its score without the resource scores; domains.
    pub(super) group_score: Vec<i64>,
    pub(super) scratch: Vec<bool>,
}

impl Buckets {
    /// Empty, for `nodes` nodes.
    pub(super) fn reset(&mut self, nodes: usize) {
        let words = nodes.div_ceil(64);
        if words != self.words {
            // Another cluster size: every list anew.
            self.words = words;
            self.sets.clear();
            self.free.clear();
            self.assigned.clear();
        }
        // Only the lists the last chain used are cleared, not every list ever made, and only
        // the nodes they held are marked as held by none (a fresh chain holds few).
        let same_nodes = self.node_slot.len() == nodes;
        for i in self.assigned.drain(..) {
            if let Some(set) = self.sets.get_mut(i as usize) {
                if set.len > 0 {
                    for (w, word) in set.bits.iter_mut().enumerate() {
                        let mut bits = *word;
                        while bits != 0 && same_nodes {
                            if let Some(s) = self
                                .node_slot
                                .get_mut(w * 64 + bits.trailing_zeros() as usize)
                            {
                                *s = NO_GROUP;
                            }
                            bits &= bits - 1;
                        }
                        *word = 0;
                    }
                    set.len = 0;
                }
                self.free.push(i);
            }
        }
        self.slot.clear();
        self.groups.clear();
        self.group_index.clear();
        self.zero_group.clear();
        self.top.clear();
        self.size.clear();
        if !same_nodes {
            self.node_slot.clear();
            self.node_slot.resize(nodes, NO_GROUP);
        }
        self.fit.clear();
        self.floor.clear();
    }

    /// The group of node class `class` with `k` matching pods on the node, added if new.
    #[inline]
    pub(super) fn group(&mut self, class: usize, k: u32) -> u32 {
        let key = (class as u32, k);
        if k == 0 {
            match self.zero_group.get(class) {
                Some(&g) if g != NO_GROUP => return g,
                _ => {}
            }
        } else if let Some(&g) = self.group_index.get(&key) {
            return g;
        }
        let g = self.groups.len() as u32;
        self.groups.push(key);
        if k == 0 {
            if self.zero_group.len() <= class {
                self.zero_group.resize(class + 1, NO_GROUP);
            }
            self.zero_group[class] = g;
        } else {
            self.group_index.insert(key, g);
        }
        self.top.push(-1);
        self.size.push(0);
        self.floor.push(0);
        self.slot.resize(self.slot.len() + WIDTH, 0);
        g
    }

    /// The list of `group` with `score`, if it has one.
    pub(super) fn set(&self, group: u32, score: i64) -> Option<&NodeSet> {
        let s = *self.slot.get(group as usize * WIDTH + score as usize)?;
        s.checked_sub(1).and_then(|i| self.sets.get(i as usize))
    }

    /// How many nodes of `group` have `score`.
    pub(super) fn count(&self, group: u32, score: i64) -> usize {
        self.set(group, score).map_or(0, |s| s.len)
    }

    /// Adds `node` to `group` with `score`.
    pub(super) fn add(&mut self, group: u32, node: NodeId, score: i64) {
        let score = score.clamp(0, RESOURCE_MAX);
        self.add_at(group as usize * WIDTH + score as usize, node);
    }

    /// The index in `sets` of list `l` (`group * WIDTH + score`), assigned if it has none.
    #[inline]
    fn list(&mut self, l: usize) -> usize {
        if self.slot[l] == 0 {
            let i = match self.free.pop() {
                Some(i) => i,
                None => {
                    self.sets.push(NodeSet {
                        bits: vec![0; self.words],
                        len: 0,
                    });
                    (self.sets.len() - 1) as u32
                }
            };
            self.assigned.push(i);
            self.slot[l] = i + 1;
        }
        self.slot[l] as usize - 1
    }

    /// Adds `node` to list `l` (`group * WIDTH + score`).
    #[inline]
    fn add_at(&mut self, l: usize, node: NodeId) {
        let (g, score) = (l / WIDTH, (l % WIDTH) as i64);
        let i = self.list(l);
        let set = &mut self.sets[i];
        mark(&mut set.bits, node);
        set.len += 1;
        self.node_slot[node] = l as u32;
        self.size[g] += 1;
        self.top[g] = self.top[g].max(score);
    }

    /// A fresh chain's groups from `cand` (nodes with their entry in `slots`,
    /// [`ScoreCache::slots`]) and `best` (per node class, the best score of its feasible
    /// nodes): the nodes at their class's best score go to their class's group without
    /// matching pods, whose floor is that score (see [`Buckets::floor`]).
    pub(super) fn fill_top(&mut self, cand: &[NodeId], slots: &[u32], best: &[i64]) {
        for &n in cand {
            let l = slots[n] as usize;
            let (c, score) = (l / WIDTH, (l % WIDTH) as i64);
            if best.get(c) == Some(&score) {
                let g = self.group(c, 0) as usize;
                self.add_at(g * WIDTH + l % WIDTH, n);
            }
        }
        for (c, &b) in best.iter().enumerate() {
            if b > 0
                && let Some(&g) = self.zero_group.get(c)
                && g != NO_GROUP
            {
                self.floor[g as usize] = b;
            }
        }
    }

    /// Whether a group's held nodes ran out above its floor: feasible nodes below are not
    /// held, and its top is not known ([`Buckets::fill_rest`] holds them).
    pub(super) fn short(&self) -> bool {
        self.floor
            .iter()
            .zip(&self.top)
            .any(|(&floor, &top)| floor > 0 && top < floor)
    }

    /// Every node of `nodes` not held whose entry in `slots` fits goes to its class's group
    /// without matching pods, at its score: every group holds all its feasible nodes.
    pub(super) fn fill_rest(&mut self, nodes: &[NodeId], slots: &[u32]) {
        for &n in nodes {
            let l = slots[n];
            if l == NO_FIT || l == UNKNOWN_SLOT || self.node_slot[n] != NO_GROUP {
                continue;
            }
            let l = l as usize;
            let g = self.group(l / WIDTH, 0) as usize;
            self.add_at(g * WIDTH + l % WIDTH, n);
        }
        self.floor.iter_mut().for_each(|f| *f = 0);
    }

    /// Takes `node` out.
    pub(super) fn remove(&mut self, node: NodeId) {
        let l = self.node_slot[node];
        if l == NO_GROUP {
            return;
        }
        let l = l as usize;
        let g = l / WIDTH;
        if let Some(set) = self.slot[l]
            .checked_sub(1)
            .and_then(|i| self.sets.get_mut(i as usize))
            && let Some(word) = set.bits.get_mut(node >> 6)
        {
            *word &= !(1 << (node & 63));
            set.len -= 1;
        }
        self.node_slot[node] = NO_GROUP;
        self.size[g] -= 1;
        while self.top[g] >= 0 && self.count(g as u32, self.top[g]) == 0 {
            self.top[g] -= 1;
        }
    }
}
