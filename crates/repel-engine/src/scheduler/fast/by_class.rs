//! Scoring per node class, and the repeat path for a pod like the one before it.
//!
//! [`FastScheduler::select_by_class`] scores a by-class pod whose soft spread constraints are
//! at most one on the hostname and one on another key (the usual shape: the system defaults
//! are hostname + zone). All but the resource scores are the same for every node of a node
//! class — the taint and affinity scores by construction, the other spread key because it is
//! one of the labels that define the class — except the hostname term of a node holding
//! matching pods. So those scores are computed once per class ([`class_scores`]), and per node
//! only for such nodes ("own" scores); one pass over the feasible nodes then adds the resource
//! scores and keeps the best nodes in filter order for the reservoir draw, as the reference's
//! `selectHost` meets them.
//!
//! [`FastScheduler::compiled_repeat`] schedules a pod of the same class as the pod just
//! placed, when every node is evaluated: nothing has changed since but that pod's node, so
//! the feasible nodes are the same but perhaps that one, the round-robin start is the same
//! (every candidate was processed), and only that node's scores moved. The feasible nodes are
//! kept in groups — node class and the hostname constraint's count on the node, so every
//! score but the resource scores is the group's — and in each group by resource score
//! ([`Buckets`]); the other spread key's domain counts are kept up to date bind by bind. Hard
//! (DoNotSchedule) constraints on keys other than the hostname join the chain: their key is a
//! label of the node class, so a class passes or fails as a whole, judged from domain counts
//! also kept bind by bind, and the groups hold every node that fits. A pod then costs a pass
//! over the groups, whatever the number of nodes its Deployment already runs on.
//!
//! A chain that starts with its first pod (most workloads are a few pods) holds only each node
//! class's best nodes by resource score, and counts the rest: the draw reads only the best
//! list of each group, so the others are held only when a chain empties a group's best ones
//! ([`Buckets::floor`]). Tens of thousands of small workloads then cost one read of a few
//! bytes per node each, not a list entry per node.

use super::*;

/// The resource scores' range: LeastAllocated and BalancedAllocation, each 0..=100, weighted.
pub(super) const RESOURCE_MAX: i64 =
    MAX_NODE_SCORE * (node_resources_fit::WEIGHT + balanced_allocation::WEIGHT);

/// Lists per group: one per resource score.
const WIDTH: usize = RESOURCE_MAX as usize + 1;

/// No group.
const NO_GROUP: u32 = u32::MAX;

/// A node that does not fit, in [`ScoreCache::slots`].
pub(super) const NO_FIT: u32 = u32::MAX - 1;

/// A set of nodes as bits, and how many.
#[derive(Default)]
struct NodeSet {
    bits: Vec<u64>,
    len: usize,
}

/// The feasible nodes of a chain of like pods by group and resource score. A group is a node
/// class and a count of the pods the hostname spread constraint matches on the node: every
/// score but the resource scores is the same for the nodes of a group, so a pod costs a pass
/// over the groups, not over the nodes. Each list is a bit set of nodes: a node moves in and
/// out in constant time, and the draw counts off the list in filter order a word at a time.
#[derive(Default)]
pub(super) struct Buckets {
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
    groups: Vec<(u32, u32)>,
    group_index: FastMap<(u32, u32), u32>,
    /// Per node class: its group with no matching pod on the node (`NO_GROUP`: none yet),
    /// found without hashing (most nodes hold none of a workload's pods).
    zero_group: Vec<u32>,
    top: Vec<i64>,
    size: Vec<usize>,
    /// Per node: its list's place in `slot` (`group * WIDTH + score`; `NO_GROUP`: not held).
    node_slot: Vec<u32>,
    /// Per node class: how many of its nodes are feasible for the chain (held in a group, or
    /// left out of a group above its `floor`).
    fit: Vec<u32>,
    /// Per group: the lowest score from which every feasible node of the group is held (0:
    /// all are). A fresh chain holds only each node class's best nodes
    /// ([`Buckets::fill_top`]); the rest join ([`Buckets::fill_rest`]) only if a group's
    /// held nodes run out above its floor, which a chain of a few pods never sees.
    floor: Vec<i64>,
    /// Scratch of a fresh chain: per node class its best score, and the nodes met at their
    /// class's best so far.
    best: Vec<i64>,
    cand: Vec<NodeId>,
    /// The other spread key's present domains and matching pods per domain (see
    /// [`zone_counts`]), kept up to date along the chain, and the weight.
    present: Vec<bool>,
    counts: Vec<i64>,
    w_z: f64,
    /// Per node class: whether the hard constraints let it through.
    allowed: Vec<bool>,
    /// Scratch: per group, its score without the resource scores; domains.
    group_score: Vec<i64>,
    scratch: Vec<bool>,
}

impl Buckets {
    /// Empty, for `nodes` nodes.
    fn reset(&mut self, nodes: usize) {
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
    fn group(&mut self, class: usize, k: u32) -> u32 {
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
    fn set(&self, group: u32, score: i64) -> Option<&NodeSet> {
        let s = *self.slot.get(group as usize * WIDTH + score as usize)?;
        s.checked_sub(1).and_then(|i| self.sets.get(i as usize))
    }

    /// How many nodes of `group` have `score`.
    fn count(&self, group: u32, score: i64) -> usize {
        self.set(group, score).map_or(0, |s| s.len)
    }

    /// Adds `node` to `group` with `score`.
    fn add(&mut self, group: u32, node: NodeId, score: i64) {
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
    fn fill_top(&mut self, cand: &[NodeId], slots: &[u32], best: &[i64]) {
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
    fn short(&self) -> bool {
        self.floor
            .iter()
            .zip(&self.top)
            .any(|(&floor, &top)| floor > 0 && top < floor)
    }

    /// Every node of `nodes` not held whose entry in `slots` fits goes to its class's group
    /// without matching pods, at its score: every group holds all its feasible nodes.
    fn fill_rest(&mut self, nodes: &[NodeId], slots: &[u32]) {
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
    fn remove(&mut self, node: NodeId) {
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

/// The pod just placed by [`FastScheduler::select_by_class`] or
/// [`FastScheduler::compiled_repeat`], for the next pod to continue from.
pub(super) struct Chain {
    /// Its class (identity only).
    class: usize,
    /// Where it went.
    bound: NodeId,
    /// The change log's length, the epoch and the round-robin start after its bind: anything
    /// else changing the cluster ends the chain.
    log_len: usize,
    epoch: u64,
    start: usize,
    /// Whether `run.buckets` holds its feasible nodes (else `run.feasible` lists them).
    built: bool,
    /// No pod was placed yet: the chain starts with this pod ([`FastScheduler::fresh_chain`]),
    /// from the nodes the static filters allow, and `bound` means nothing.
    fresh: bool,
}

/// Whether a class takes [`FastScheduler::select_by_class`] (and the repeat path and a
/// what-if's kept levels): scores equal per node class but for the hostname term, so not a
/// class ImageLocality scores above 0 on some node (its score is the node's own).
pub(super) fn by_class_shape(class: &PodClass) -> bool {
    matches!(&*class.statics, Statics::ByClass { .. })
        && class.images.is_none()
        && class.soft.iter().filter(|s| s.hostname).count() <= 1
        && class.soft.iter().filter(|s| !s.hostname).count() <= 1
}

/// Whether a class's pods continue a chain: its hard constraints, if any, are on keys other
/// than the hostname (node labels of the node class, so a class passes or fails as a whole).
pub(super) fn chain_shape(class: &PodClass) -> bool {
    class.hard.iter().all(|s| !s.hostname)
}

/// TaintToleration (3) and NodeAffinity (2) of every node class into `out`, normalised by
/// their maximum over the classes with feasible nodes (`class_feasible`).
pub(super) fn static_class_scores(
    class_feasible: &[u32],
    class: &PodClass,
    tt_raw: &[i64],
    na_raw: &[i64],
    out: &mut [i64],
) {
    let (mut tt_max, mut na_max) = (0i64, 0i64);
    for c in (0..class_feasible.len()).filter(|c| class_feasible[*c] > 0) {
        tt_max = tt_max.max(tt_raw[c]);
        na_max = na_max.max(na_raw[c]);
    }
    for (c, score) in out.iter_mut().enumerate() {
        let mut s = 0;
        if class.tt_scores {
            s += normalized(tt_raw[c], tt_max, true, taint_toleration::WEIGHT);
        }
        if class.na_scores {
            s += normalized(na_raw[c], na_max, false, node_affinity::WEIGHT);
        }
        *score = s;
    }
}

/// The non-resource score of every node class with feasible nodes (`run.class_score`), and
/// the feasible, not ignored nodes holding pods the hostname constraint matches with their own
/// (`run.own`, `run.own_mark` / `run.own_score` in pass `run.pass`).
fn class_scores(
    run: &mut Run,
    class: &PodClass,
    feasible: &[NodeId],
    tt_raw: &[i64],
    na_raw: &[i64],
) {
    let nc = run.reps.len();
    let pass = run.pass;
    let mut class_score = std::mem::take(&mut run.class_score);
    let mut own = std::mem::take(&mut run.own);
    own.clear();
    static_class_scores(&run.class_feasible, class, tt_raw, na_raw, &mut class_score);
    // PodTopologySpread (2).
    if !class.soft.is_empty() {
        let host = class.soft.iter().find(|s| s.hostname);
        let zone = class.soft.iter().find(|s| !s.hostname);
        run.soft_present
            .resize(run.soft_present.len().max(1), Vec::new());
        run.dom_cnt.resize(run.dom_cnt.len().max(1), Vec::new());
        let mut present = std::mem::take(&mut run.soft_present[0]);
        let mut counts = std::mem::take(&mut run.dom_cnt[0]);
        let mut own_in_class = std::mem::take(&mut run.own_in_class);
        let mut class_raw = std::mem::take(&mut run.class_raw);
        let cf = &run.class_feasible;
        let ignored = |c: usize| class.spread_ignored(c as u32);
        let not_ignored: usize = (0..nc)
            .filter(|c| !ignored(*c))
            .map(|c| cf[c] as usize)
            .sum();
        let w_h = topology_normalizing_weight(not_ignored);
        // The other key's domains among the feasible, not ignored nodes (a node without
        // the label is in the "" domain, as upstream reads `node.Labels[key]`), and the
        // matching pods of each, over the nodes the inclusion policies admit.
        let mut w_z = 0.0;
        counts.clear();
        if let Some(z) = zone {
            zone_present(run, class, z, &mut present);
            w_z = zone_counts(run, class, z, &present, &mut counts);
        }
        let slots = counts.len();
        let mut memo = std::mem::take(&mut run.raw_memo);
        let raw_of = |n: NodeId, hc: i64| raw_spread_score(run, class, n, hc, w_h, &counts, w_z);
        // Feasible nodes holding pods the hostname constraint matches score on their own.
        own_in_class.iter_mut().for_each(|k| *k = 0);
        if let Some(h) = host {
            // A node's raw score depends only on its zone slot, whether it has the hostname
            // label and its count: thousands of nodes of a large Deployment share a few
            // values, each computed once per pod.
            const COUNTS: usize = 16;
            memo.clear();
            memo.resize((slots + 1) * 2 * COUNTS, i64::MIN);
            // The feasible nodes holding matching pods: off the selector's nodes, or off the
            // feasible ones when they are fewer (a large Deployment under the adaptive
            // percentage) and the selector keeps a count per node.
            let sel = &run.sel.sels[h.sel as usize];
            let by_feasible = sel
                .dense()
                .filter(|_| feasible.len() * 2 < sel.nonzero.len());
            let holding: &mut dyn Iterator<Item = (NodeId, u32)> = match by_feasible {
                Some(dense) => &mut feasible
                    .iter()
                    .map(|&n| (n, dense.get(n).copied().unwrap_or(0))),
                None => &mut sel.nonzero.iter().copied(),
            };
            for (n, k) in holding {
                let c = run.node_class[n] as usize;
                if k == 0 || run.feasible_mark[n] != run.feasible_pass || ignored(c) {
                    continue;
                }
                let k = k as usize;
                let raw = if k < COUNTS {
                    let slot = match zone {
                        Some(z) if run.domains[z.dom].has[n] => {
                            run.domains[z.dom].of_node[n] as usize
                        }
                        _ => slots,
                    };
                    let has_host = usize::from(run.domains[h.dom].has[n]);
                    let m = &mut memo[(slot * 2 + has_host) * COUNTS + k];
                    if *m == i64::MIN {
                        *m = raw_of(n, k as i64);
                    }
                    *m
                } else {
                    raw_of(n, k as i64)
                };
                own.push((n, raw));
                own_in_class[c] += 1;
            }
        }
        let mut min_score = i64::MAX;
        let mut max_score = 0;
        for c in (0..nc).filter(|c| cf[*c] > 0 && !ignored(*c)) {
            class_raw[c] = raw_of(run.reps[c], 0);
            if cf[c] > own_in_class[c] {
                min_score = min_score.min(class_raw[c]);
                max_score = max_score.max(class_raw[c]);
            }
        }
        for &(_, r) in &own {
            min_score = min_score.min(r);
            max_score = max_score.max(r);
        }
        let weighted = |raw: i64| weighted_spread(raw, min_score, max_score);
        for o in own.iter_mut() {
            o.1 = class_score[run.node_class[o.0] as usize] + weighted(o.1);
        }
        for c in (0..nc).filter(|c| cf[*c] > 0 && !ignored(*c)) {
            class_score[c] += weighted(class_raw[c]);
        }
        run.raw_memo = memo;
        run.soft_present[0] = present;
        run.dom_cnt[0] = counts;
        run.own_in_class = own_in_class;
        run.class_raw = class_raw;
    }
    for &(n, s) in &own {
        run.own_mark[n] = pass;
        run.own_score[n] = s;
    }
    run.own = own;
    run.class_score = class_score;
}

/// PodTopologySpread PreScore of a by-class pod's soft constraint `z` on a key other than the
/// hostname: with `present` the domains of the node classes with feasible, not ignored nodes
/// ([`zone_present`]; a node without the label is in the "" domain, as upstream reads
/// `node.Labels[key]`), counts into `counts` the matching pods of each present domain over the
/// nodes the inclusion policies admit, and returns the constraint's weight.
pub(super) fn zone_counts(
    run: &Run,
    class: &PodClass,
    z: &Spread,
    present: &[bool],
    counts: &mut Vec<i64>,
) -> f64 {
    let d = &run.domains[z.dom];
    let ignored = |c: usize| class.spread_ignored(c as u32);
    counts.clear();
    counts.resize(d.count, 0);
    // The key is a label of the node class: sums per class.
    let sel = &run.sel.sels[z.sel as usize];
    for (c, &rep) in run.reps.iter().enumerate() {
        if ignored(c) || !z.include[c] {
            continue;
        }
        let dom = d.of_node[rep] as usize;
        if present[dom] {
            counts[dom] += sel.class_count(c);
        }
    }
    topology_normalizing_weight(present.iter().filter(|p| **p).count())
}

/// The domains of `z`'s key holding feasible, not ignored nodes (see [`zone_counts`]).
pub(super) fn zone_present(run: &Run, class: &PodClass, z: &Spread, present: &mut Vec<bool>) {
    let d = &run.domains[z.dom];
    let cf = &run.class_feasible;
    present.clear();
    present.resize(d.count, false);
    for c in (0..run.reps.len()).filter(|c| cf[*c] > 0 && !class.spread_ignored(*c as u32)) {
        present[d.of_node[run.reps[c]] as usize] = true;
    }
}

/// PodTopologySpread's raw score of node `n` holding `k` pods the hostname constraint
/// matches: the constraints' terms in their order, the other key's from the count of the
/// node's domain in `counts` (none for a node without the key).
pub(super) fn raw_spread_score(
    run: &Run,
    class: &PodClass,
    n: NodeId,
    k: i64,
    w_h: f64,
    counts: &[i64],
    w_z: f64,
) -> i64 {
    let mut total = 0.0_f64;
    for s in &class.soft {
        let d = &run.domains[s.dom];
        if s.hostname {
            if d.has[n] {
                total += score_for_count(k, s.max_skew, w_h);
            }
        } else if d.has[n]
            && let Some(&count) = counts.get(d.of_node[n] as usize)
        {
            total += score_for_count(count, s.max_skew, w_z);
        }
    }
    total.round() as i64
}

/// PodTopologySpread NormalizeScore of a raw score, weighted.
pub(super) fn weighted_spread(raw: i64, min_score: i64, max_score: i64) -> i64 {
    let s = if max_score == 0 {
        MAX_NODE_SCORE
    } else {
        MAX_NODE_SCORE * (max_score + min_score - raw) / max_score
    };
    s.clamp(0, MAX_NODE_SCORE) * pod_topology_spread::WEIGHT
}

/// Marks `node` in a bit set of nodes.
pub(super) fn mark(bits: &mut [u64], node: NodeId) {
    if let Some(word) = bits.get_mut(node >> 6) {
        *word |= 1 << (node & 63);
    }
}

/// The `j`-th of the nodes marked in `bits` in filter order: the marked nodes from `start` on,
/// then those before it, each part in node order. A word at a time by population count, so the
/// nodes of several tied lists are neither collected nor merged.
pub(super) fn nth_marked_in_filter_order(bits: &[u64], j: usize, start: usize) -> Option<NodeId> {
    let (sw, sb) = (start / 64, start % 64);
    let at_start = *bits.get(sw)?;
    let mut j = j;
    // Counts `word`'s nodes off `j`, or returns the one in place `j`.
    let mut take = |w: usize, word: u64| -> Option<NodeId> {
        let count = word.count_ones() as usize;
        if j >= count {
            j -= count;
            return None;
        }
        let mut word = word;
        for _ in 0..j {
            word &= word - 1;
        }
        Some(w * 64 + word.trailing_zeros() as usize)
    };
    if let Some(n) = take(sw, at_start & (u64::MAX << sb)) {
        return Some(n);
    }
    for (w, &word) in bits.iter().enumerate().skip(sw + 1) {
        if let Some(n) = take(w, word) {
            return Some(n);
        }
    }
    for (w, &word) in bits.iter().enumerate().take(sw) {
        if let Some(n) = take(w, word) {
            return Some(n);
        }
    }
    take(sw, at_start & !(u64::MAX << sb))
}

/// Per node, for pods needing `need` ([`PodClass::need`]) and no extended resource: its list
/// in a fresh chain's groups (`node class * WIDTH + score`, see [`Buckets`]), [`NO_FIT`] when
/// it does not fit, [`UNKNOWN_SLOT`] when not known yet; and per node class a summary of its
/// nodes' entries ([`ClassTop`]: how many fit, the best score, the nodes that have it), brought
/// up to date from the nodes changed since, when next read. A fresh chain then reads each
/// allowed node class's summary instead of every allowed node's entry: tens of thousands of
/// chains on thousands of nodes.
#[derive(Default)]
pub(super) struct FreshSlots {
    need: Option<[i64; 3]>,
    pub(super) slots: Vec<u32>,
    classes: Vec<ClassTop>,
    /// Per node: its place in its class's `top` (`NOT_TOP`: not there).
    top_at: Vec<u32>,
}

/// Not in a [`ClassTop::top`].
const NOT_TOP: u32 = u32::MAX;

/// The summary of a node class's entries in [`FreshSlots::slots`]. When `known`, every node of
/// the class has its entry but those in `changed`, and `fit`, `best` and `top` are theirs with
/// the entries of those as `changed` holds them; else nothing here is read.
#[derive(Default, Clone)]
struct ClassTop {
    known: bool,
    /// How many of its nodes fit.
    fit: u32,
    /// The best score among them (-1: none fits).
    best: i64,
    /// The nodes that fit with score `best`, in no order.
    top: Vec<NodeId>,
    /// Nodes changed since the summary was brought up to date, with their entries then (their
    /// entries now are unknown).
    changed: Vec<(NodeId, u32)>,
}

/// A node's entry in [`FreshSlots::slots`] for a pod needing `need` (no extended resource),
/// with its resource score for `key` from `score` (computed there when unknown).
fn slot_of(
    need: [i64; 3],
    free: &Free,
    res: &NodeRes,
    class: u32,
    key: &ScoreKey,
    score: &mut i64,
) -> u32 {
    let [cpu, mem, eph] = need;
    if !(free.pods >= 1 && cpu <= free.cpu && mem <= free.mem && eph <= free.eph) {
        return NO_FIT;
    }
    if *score == UNKNOWN {
        *score = resource_scores(res, key);
    }
    (class as usize * WIDTH + (*score).clamp(0, RESOURCE_MAX) as usize) as u32
}

impl ClassTop {
    /// Counts `node` with entry `slot` (nothing when it does not fit): it joins `top` when its
    /// score is the best, alone when above it.
    fn add(&mut self, top_at: &mut [u32], node: NodeId, slot: u32) {
        if slot == NO_FIT {
            return;
        }
        self.fit += 1;
        let s = (slot as usize % WIDTH) as i64;
        if s > self.best {
            self.clear_top(top_at);
            self.best = s;
        }
        if s == self.best {
            top_at[node] = self.top.len() as u32;
            self.top.push(node);
        }
    }

    /// Empties `top`.
    fn clear_top(&mut self, top_at: &mut [u32]) {
        for &n in &self.top {
            top_at[n] = NOT_TOP;
        }
        self.top.clear();
    }

    /// A node's entry went from `old` to `new`. False when the summary cannot follow (the
    /// nodes with the best score are gone, and the next best is not known).
    fn moved(&mut self, top_at: &mut [u32], node: NodeId, old: u32, new: u32) -> bool {
        if old != NO_FIT && old != UNKNOWN_SLOT {
            self.fit -= 1;
            let at = top_at[node];
            if at != NOT_TOP {
                self.top.swap_remove(at as usize);
                if let Some(&other) = self.top.get(at as usize) {
                    top_at[other] = at;
                }
                top_at[node] = NOT_TOP;
            }
        }
        // (With the best nodes gone, the best stays theirs: a score equal to it is still the
        // best, a lower one cannot be told from the others' and the class is read again below.)
        self.add(top_at, node, new);
        if self.top.is_empty() {
            if self.fit > 0 {
                return false;
            }
            self.best = -1;
        }
        true
    }
}

impl FreshSlots {
    /// Forgets every entry.
    pub(super) fn forget_all(&mut self) {
        self.need = None;
        self.slots.clear();
        self.classes.clear();
        self.top_at.clear();
    }

    /// Entries for pods needing `need`, on `nodes` nodes in `classes` node classes: kept when
    /// they are for these, else all unknown.
    fn prepare(&mut self, need: [i64; 3], nodes: usize, classes: usize) {
        if self.need == Some(need) && self.slots.len() == nodes && self.classes.len() == classes {
            return;
        }
        self.need = Some(need);
        self.slots.clear();
        self.slots.resize(nodes, UNKNOWN_SLOT);
        self.top_at.clear();
        self.top_at.resize(nodes, NOT_TOP);
        self.classes.clear();
        self.classes.resize(classes, ClassTop::default());
    }

    /// Node class `class`'s summary is no longer kept.
    fn drop_class(&mut self, class: usize) {
        if let Some(t) = self.classes.get_mut(class) {
            t.clear_top(&mut self.top_at);
            t.changed.clear();
            t.known = false;
        }
    }

    /// Node `node` (of node class `class`) changed: its entry is unknown; where its class's
    /// summary is kept, the node is read again when the summary is next read.
    pub(super) fn changed(&mut self, node: NodeId, class: u32) {
        let Some(slot) = self.slots.get_mut(node) else {
            return;
        };
        let old = std::mem::replace(slot, UNKNOWN_SLOT);
        if old != UNKNOWN_SLOT
            && let Some(t) = self.classes.get_mut(class as usize)
            && t.known
        {
            t.changed.push((node, old));
        }
    }

    /// Node `node` (of node class `class`) changed back to what it was before entries were
    /// last brought up to date: its entry is unknown, and so is its class's summary.
    pub(super) fn forget(&mut self, node: NodeId, class: u32) {
        if let Some(s) = self.slots.get_mut(node) {
            *s = UNKNOWN_SLOT;
            self.drop_class(class as usize);
        }
    }

    /// Node class `class`'s summary, brought up to date from its changed nodes, or read from
    /// its nodes `nodes` if not kept (`slot`: a node's entry now, for those not known).
    fn ensure(
        &mut self,
        class: usize,
        nodes: &[NodeId],
        mut slot: impl FnMut(NodeId) -> u32,
    ) -> Option<&ClassTop> {
        let t = self.classes.get_mut(class)?;
        if t.known {
            let mut changed = std::mem::take(&mut t.changed);
            for &(n, old) in &changed {
                let new = slot(n);
                self.slots[n] = new;
                if !self.classes[class].moved(&mut self.top_at, n, old, new) {
                    self.drop_class(class);
                    break;
                }
            }
            changed.clear();
            // (Kept for its buffer unless the class was dropped, which left it empty.)
            let t = &mut self.classes[class];
            if t.known {
                t.changed = changed;
            }
        }
        if !self.classes[class].known {
            let mut t = std::mem::take(&mut self.classes[class]);
            t.fit = 0;
            t.best = -1;
            t.top.clear();
            t.changed.clear();
            for &n in nodes {
                let mut l = *self.slots.get(n)?;
                if l == UNKNOWN_SLOT {
                    l = slot(n);
                    self.slots[n] = l;
                }
                t.add(&mut self.top_at, n, l);
            }
            t.known = true;
            self.classes[class] = t;
        }
        self.classes.get(class)
    }
}

/// Brings `run.caches[cache]`'s fresh-chain entries ([`FreshSlots`]) for `class`'s request up
/// to date on the node classes `class_ok` allows, calling `visit` with each node class, its
/// feasible nodes' count and best score, and the nodes that have it.
fn fresh_tops(
    run: &mut Run,
    class: &PodClass,
    cache: usize,
    class_ok: &[bool],
    mut visit: impl FnMut(usize, u32, i64, &[NodeId]),
) {
    let (n_all, nc) = (run.node_class.len(), run.reps.len());
    let Run {
        caches,
        free,
        res,
        class_nodes,
        ..
    } = run;
    let ScoreCache { fresh, scores, .. } = &mut caches[cache];
    fresh.prepare(class.need, n_all, nc);
    let key = class.score_key;
    for (c, nodes) in class_nodes.iter().enumerate() {
        if class_ok.get(c) != Some(&true) {
            continue;
        }
        let top = fresh.ensure(c, nodes, |n| {
            slot_of(
                class.need,
                &free[n],
                &res[n],
                c as u32,
                &key,
                &mut scores[n],
            )
        });
        if let Some(t) = top {
            visit(c, t.fit, t.best, &t.top);
        }
    }
}

impl FastScheduler {
    /// PreScore, Score, NormalizeScore and selectHost for a pod of [`by_class_shape`], over
    /// `feasible` as the filter pass left it (`run.class_feasible`, `run.feasible_mark`).
    pub(super) fn select_by_class(
        &mut self,
        run: &mut Run,
        class: &PodClass,
        feasible: &[NodeId],
        tt_raw: &[i64],
        na_raw: &[i64],
    ) -> Option<(NodeId, i64)> {
        class_scores(run, class, feasible, tt_raw, na_raw);
        let pass = run.pass;
        // NodeResourcesFit (LeastAllocated, 1) and BalancedAllocation (1, skipped for
        // BestEffort pods), kept per node for the request; InterPodAffinity skips (no pod in
        // the cluster has affinity terms).
        let cache = run.scores(&class.score_key);
        let resource = &mut run.caches[cache].scores;
        let mut ties = std::mem::take(&mut run.ties);
        ties.clear();
        let mut best = i64::MIN;
        for &n in feasible {
            let r = &mut resource[n];
            if *r == UNKNOWN {
                *r = resource_scores(&run.res[n], &class.score_key);
            }
            let base = if run.own_mark[n] == pass {
                run.own_score[n]
            } else {
                run.class_score[run.node_class[n] as usize]
            };
            let total = base + *r;
            if total > best {
                best = total;
                ties.clear();
                ties.push(n);
            } else if total == best {
                ties.push(n);
            }
        }
        let chosen = self.draw(&ties);
        run.ties = ties;
        chosen.map(|n| (n, best))
    }

    /// selectHost: reservoir sampling among the best nodes, in filter order.
    pub(super) fn draw(&mut self, ties: &[NodeId]) -> Option<NodeId> {
        self.reference
            .rng
            .reservoir(ties.len())
            .and_then(|i| ties.get(i).copied())
    }

    /// Whether every candidate node is evaluated (then the round-robin start does not move).
    fn every_node(&self, n_all: usize) -> bool {
        self.reference.num_feasible_nodes_to_find(n_all) >= n_all
    }

    /// After the full path placed a pod of [`by_class_shape`] by scoring, lets the next pod of
    /// its class continue from it.
    pub(super) fn start_chain(&self, run: &mut Run, class: &PodClass, node: NodeId) {
        let n_all = run.node_class.len();
        run.chain = (chain_shape(class) && self.every_node(n_all)).then_some(Chain {
            class: class as *const PodClass as usize,
            bound: node,
            log_len: run.log.len(),
            epoch: run.epoch,
            start: self.reference.next_start_node_index,
            built: false,
            fresh: false,
        });
    }

    /// A chain that starts with the pod about to be scheduled, for a class of
    /// [`by_class_shape`] and [`chain_shape`] when every node is evaluated: its feasible nodes
    /// go straight into the groups, without the full path's filter and scoring passes over
    /// the nodes, which are the same nodes and scores counted another way.
    pub(super) fn fresh_chain(&self, run: &Run, class: &PodClass) -> Option<Chain> {
        let n_all = run.node_class.len();
        (n_all > 0 && by_class_shape(class) && chain_shape(class) && self.every_node(n_all))
            .then_some(Chain {
                class: class as *const PodClass as usize,
                bound: 0,
                log_len: run.log.len(),
                epoch: run.epoch,
                start: self.reference.next_start_node_index,
                built: false,
                fresh: true,
            })
    }

    /// The compiled cycle of a pod of the same class as the pod just placed (see the module
    /// documentation); `None` when `chain` does not continue here (the full path runs).
    pub(super) fn compiled_repeat(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        class: &PodClass,
        chain: Chain,
    ) -> Option<Outcome> {
        let n_all = run.node_class.len();
        let Statics::ByClass {
            tt_raw,
            na_raw,
            allowed,
            class_ok,
        } = &*class.statics
        else {
            return None;
        };
        if chain.class != class as *const PodClass as usize
            || chain.log_len != run.log.len()
            || chain.epoch != run.epoch
            || chain.start != self.reference.next_start_node_index
            || !chain_shape(class)
            || !self.every_node(n_all)
        {
            return None;
        }
        let nc = run.reps.len();
        let b = chain.bound;
        let key = class.score_key;
        let host = class.soft.iter().find(|s| s.hostname);
        let zone = class.soft.iter().find(|s| !s.hostname);
        let ignored = |c: usize| class.spread_ignored(c as u32);
        // A node's group: its class, and the pods the hostname constraint matches on it (none
        // counted on an ignored node: it scores as its class).
        let group_of = |run: &Run, buckets: &mut Buckets, n: NodeId| -> u32 {
            let c = run.node_class[n] as usize;
            let k = match host {
                Some(h) if !ignored(c) => run.sel.sels[h.sel as usize].count(n),
                _ => 0,
            };
            buckets.group(c, k)
        };
        // A fresh chain of a pod without extended resources holds only each node class's
        // best nodes (see [`Buckets::floor`]).
        let lazy = chain.fresh && class.requests.scalar.is_empty();
        let mut buckets = std::mem::take(&mut run.buckets);
        if chain.built {
            if buckets.node_slot.get(b).is_some_and(|&l| l != NO_GROUP)
                && let Some(f) = buckets.fit.get_mut(run.node_class[b] as usize)
            {
                *f -= 1;
            }
            buckets.remove(b);
        } else {
            // The nodes the static filters and the resources let through, with the resource
            // scores the previous pod computed (the node it went to is taken anew below): its
            // feasible nodes, or, under hard constraints or when the chain starts with this
            // pod, every allowed node that fits.
            let cache = run.scores(&key);
            buckets.reset(n_all);
            let mut fit = std::mem::take(&mut buckets.fit);
            fit.resize(nc, 0);
            let every_allowed = !class.hard.is_empty() || chain.fresh;
            let from: &[NodeId] = if every_allowed {
                allowed
            } else {
                &run.feasible
            };
            // Every node goes to its class's group without matching pods first (no count read
            // per node: a workload's pods are on a few of thousands of nodes), then the nodes
            // holding pods the hostname constraint matches move to their own groups.
            if lazy {
                // A fresh chain's nodes are every allowed node that fits: whether a node fits
                // and its score are kept per node for the request (`node class * WIDTH +
                // score`), and only nodes changed since are read again. One pass counts each
                // class's feasible nodes and finds its best ones.
                let mut best = std::mem::take(&mut buckets.best);
                let mut cand = std::mem::take(&mut buckets.cand);
                best.clear();
                best.resize(nc, -1);
                cand.clear();
                fresh_tops(run, class, cache, class_ok, |c, f, b, top| {
                    if let (Some(fit), Some(best)) = (fit.get_mut(c), best.get_mut(c)) {
                        *fit = f;
                        *best = b;
                        cand.extend_from_slice(top);
                    }
                });
                buckets.fill_top(&cand, &run.caches[cache].fresh.slots, &best);
                buckets.best = best;
                buckets.cand = cand;
            } else {
                let scores = &mut run.caches[cache].scores;
                for &n in from {
                    if (n == b && !chain.fresh)
                        || (every_allowed && !fits_free(class, &run.free[n], &cluster.nodes[n]))
                    {
                        continue;
                    }
                    let r = &mut scores[n];
                    if *r == UNKNOWN {
                        *r = resource_scores(&run.res[n], &key);
                    }
                    let c = run.node_class[n] as usize;
                    let g = buckets.group(c, 0);
                    buckets.add(g, n, *r);
                    fit[c] += 1;
                }
            }
            buckets.fit = fit;
            if let Some(h) = host {
                for &(n, k) in &run.sel.sels[h.sel as usize].nonzero {
                    let Some(&c) = run.node_class.get(n) else {
                        continue;
                    };
                    let c = c as usize;
                    let Some(&l) = buckets.node_slot.get(n) else {
                        continue;
                    };
                    if k == 0 || ignored(c) {
                        continue;
                    }
                    let r = if l != NO_GROUP {
                        let r = (l as usize % WIDTH) as i64;
                        buckets.remove(n);
                        r
                    } else if lazy && class_ok.get(c) == Some(&true) {
                        // Below its class's best: held in its own group only.
                        match run.caches[cache].fresh.slots.get(n) {
                            Some(&l) if l != NO_FIT && l != UNKNOWN_SLOT => {
                                (l as usize % WIDTH) as i64
                            }
                            _ => continue,
                        }
                    } else {
                        continue;
                    };
                    let g = buckets.group(c, k);
                    buckets.add(g, n, r);
                }
            }
        }
        if !chain.fresh && fits_free(class, &run.free[b], &cluster.nodes[b]) {
            let g = group_of(run, &mut buckets, b);
            buckets.add(g, b, resource_scores(&run.res[b], &key));
            if let Some(f) = buckets.fit.get_mut(run.node_class[b] as usize) {
                *f += 1;
            }
        }
        // Hard constraints (on keys of the node class: a whole class passes or fails) from
        // the domain counts, counted when the chain starts and kept up to date at each bind.
        if class.hard.is_empty() {
            buckets.allowed.clear();
            buckets.allowed.resize(nc, true);
        } else {
            let hard_min = if chain.built {
                hard_minimums(run, class)
            } else {
                hard_counts(run, class)
            };
            hard_ok_per_class(run, class, &hard_min, &mut buckets.allowed);
        }
        // A group whose held nodes ran out above its floor: every feasible node joins, from
        // entries brought up to date with this chain's binds.
        if buckets.short() {
            let cache = run.scores(&key);
            fresh_tops(run, class, cache, class_ok, |_, _, _, _| {});
            buckets.fill_rest(allowed, &run.caches[cache].fresh.slots);
        }
        // The feasible nodes per class.
        for (c, f) in run.class_feasible.iter_mut().enumerate() {
            *f = if buckets.allowed.get(c) == Some(&true) {
                buckets.fit.get(c).copied().unwrap_or(0)
            } else {
                0
            };
        }
        let feasible: usize = run.class_feasible.iter().map(|f| *f as usize).sum();
        if feasible <= 1 {
            // One node left needs no scores, none the FitError: the full path's.
            run.buckets = buckets;
            return None;
        }
        // The other key's domain counts are counted afresh when the chain starts or the
        // present domains change, else kept up to date at each bind below.
        if let Some(z) = zone {
            let mut present = std::mem::take(&mut buckets.scratch);
            zone_present(run, class, z, &mut present);
            if !chain.built || present != buckets.present {
                let mut counts = std::mem::take(&mut buckets.counts);
                buckets.w_z = zone_counts(run, class, z, &present, &mut counts);
                buckets.counts = counts;
                std::mem::swap(&mut buckets.present, &mut present);
            }
            buckets.scratch = present;
        }

        // The score of each group but the resource scores: TaintToleration and NodeAffinity
        // per class, PodTopologySpread per class and hostname count.
        let mut class_score = std::mem::take(&mut run.class_score);
        static_class_scores(&run.class_feasible, class, tt_raw, na_raw, &mut class_score);
        let spread = !class.soft.is_empty();
        let not_ignored: usize = (0..nc)
            .filter(|c| !ignored(*c))
            .map(|c| run.class_feasible[c] as usize)
            .sum();
        let w_h = topology_normalizing_weight(not_ignored);
        let mut group_score = std::mem::take(&mut buckets.group_score);
        group_score.clear();
        let (mut min_score, mut max_score) = (i64::MAX, 0);
        for (g, &(c, k)) in buckets.groups.iter().enumerate() {
            let c = c as usize;
            let mut raw = 0;
            if spread && buckets.size[g] > 0 && buckets.allowed[c] && !ignored(c) {
                raw = raw_spread_score(
                    run,
                    class,
                    run.reps[c],
                    i64::from(k),
                    w_h,
                    &buckets.counts,
                    buckets.w_z,
                );
                min_score = min_score.min(raw);
                max_score = max_score.max(raw);
            }
            group_score.push(raw);
        }
        for (g, &(c, _)) in buckets.groups.iter().enumerate() {
            let c = c as usize;
            let mut s = class_score[c];
            if spread && !ignored(c) {
                s += weighted_spread(group_score[g], min_score, max_score);
            }
            group_score[g] = s;
        }
        run.class_score = class_score;

        // The best total, and the draw's pick among the nodes that have it in filter order:
        // which place is picked depends on their number only, so only the node in that place
        // is looked for, counted off the one tied list or off the union of the tied lists.
        let groups = buckets.groups.len();
        let total = |g: usize| group_score[g] + buckets.top[g];
        let live = |g: usize| buckets.top[g] >= 0 && buckets.allowed[buckets.groups[g].0 as usize];
        let best = (0..groups).filter(|g| live(*g)).map(total).max();
        let Some(best) = best else {
            buckets.group_score = group_score;
            run.buckets = buckets;
            return None;
        };
        let is_best = |g: usize| live(g) && total(g) == best;
        let (mut tied, mut tied_groups, mut last) = (0, 0, 0);
        for g in (0..groups).filter(|g| is_best(*g)) {
            tied += buckets.count(g as u32, buckets.top[g]);
            tied_groups += 1;
            last = g;
        }
        let start = self.reference.next_start_node_index % n_all;
        let j = self.reference.rng.reservoir(tied);
        let chosen = if tied_groups == 1 {
            buckets
                .set(last as u32, buckets.top[last])
                .zip(j)
                .and_then(|(set, j)| nth_marked_in_filter_order(&set.bits, j, start))
        } else {
            let mut bits = std::mem::take(&mut run.tie_bits);
            bits.clear();
            bits.resize(n_all.div_ceil(64), 0);
            for g in (0..groups).filter(|g| is_best(*g)) {
                if let Some(set) = buckets.set(g as u32, buckets.top[g]) {
                    for (w, s) in bits.iter_mut().zip(&set.bits) {
                        *w |= s;
                    }
                }
            }
            let chosen = j.and_then(|j| nth_marked_in_filter_order(&bits, j, start));
            run.tie_bits = bits;
            chosen
        };
        buckets.group_score = group_score;
        let Some(node) = chosen else {
            run.buckets = buckets;
            return None;
        };
        // Every candidate was processed.
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + n_all) % n_all;
        cluster.bind(pod, node);
        let count_at = |run: &Run, sel: u32| run.sel.sels[sel as usize].count(node);
        let before = zone.map(|z| count_at(run, z.sel));
        let mut hard_before = [0u32; MAX_SPREADS];
        for (i, s) in class.hard.iter().enumerate() {
            hard_before[i] = count_at(run, s.sel);
        }
        run.sel.moved(cluster, pod, node, 1);
        let c = run.node_class[node] as usize;
        for (i, s) in class.hard.iter().enumerate() {
            if class.hard_keys[c] && s.include[c] {
                let dom = run.domains[s.dom].of_node[node] as usize;
                let delta = i64::from(count_at(run, s.sel)) - i64::from(hard_before[i]);
                if let Some(cnt) = run.dom_cnt.get_mut(i).and_then(|d| d.get_mut(dom)) {
                    *cnt += delta;
                }
            }
        }
        if let (Some(z), Some(before)) = (zone, before) {
            let dom = run.domains[z.dom].of_node[node] as usize;
            if !ignored(c) && z.include[c] && buckets.present.get(dom) == Some(&true) {
                let after = run.sel.sels[z.sel as usize].count(node);
                buckets.counts[dom] += i64::from(after) - i64::from(before);
            }
        }
        run.buckets = buckets;
        run.touched(cluster, node);
        if !chain.fresh {
            self.stats.repeated += 1;
        }
        run.chain = Some(Chain {
            bound: node,
            log_len: run.log.len(),
            built: true,
            fresh: false,
            ..chain
        });
        Some(Outcome::Scheduled {
            node,
            score: Some(best),
        })
    }
}

#[cfg(test)]
mod fresh_slots_tests {
    use super::*;
    use proptest::prelude::*;

    /// The summary of class `c` read afresh from `slots`: (fit, best, sorted top).
    fn read(slots: &[u32], nodes: &[NodeId]) -> (u32, i64, Vec<NodeId>) {
        let fitting: Vec<(NodeId, i64)> = nodes
            .iter()
            .filter(|&&n| slots[n] != NO_FIT)
            .map(|&n| (n, (slots[n] as usize % WIDTH) as i64))
            .collect();
        let best = fitting.iter().map(|f| f.1).max().unwrap_or(-1);
        let top = fitting
            .iter()
            .filter(|f| f.1 == best)
            .map(|f| f.0)
            .collect();
        (fitting.len() as u32, best, top)
    }

    proptest! {
        /// Whatever nodes change between reads (and whether a what-if's end forgets them),
        /// a class's summary brought up to date is the one read afresh from its nodes.
        #[test]
        fn summaries_kept_up_to_date_equal_summaries_read_afresh(
            classes_of in proptest::collection::vec(0u32..3, 1..24),
            steps in proptest::collection::vec(
                (0usize..24, proptest::option::of(0i64..6), any::<bool>(), 0usize..3),
                1..80,
            ),
        ) {
            let n = classes_of.len();
            let nc = 3;
            let mut class_nodes = vec![Vec::new(); nc];
            for (node, &c) in classes_of.iter().enumerate() {
                class_nodes[c as usize].push(node);
            }
            // Each node's entry now: its score, or None when it does not fit (few scores, so
            // that ties and emptied tops are common).
            let mut now: Vec<Option<i64>> = (0..n).map(|i| Some((i % 4) as i64)).collect();
            let entry = |now: &[Option<i64>], node: NodeId| match now[node] {
                Some(s) => classes_of[node] * WIDTH as u32 + s as u32,
                None => NO_FIT,
            };
            let mut f = FreshSlots::default();
            f.prepare([1, 1, 1], n, nc);
            for (node, score, forget, read_class) in steps {
                let node = node % n;
                now[node] = score;
                if forget {
                    f.forget(node, classes_of[node]);
                } else {
                    f.changed(node, classes_of[node]);
                }
                let got = f
                    .ensure(read_class, &class_nodes[read_class], |m| entry(&now, m))
                    .map(|t| {
                        let mut top = t.top.clone();
                        top.sort_unstable();
                        (t.fit, t.best, top)
                    });
                let truth: Vec<u32> = (0..n).map(|m| entry(&now, m)).collect();
                prop_assert_eq!(got, Some(read(&truth, &class_nodes[read_class])));
                for &m in &class_nodes[read_class] {
                    prop_assert_eq!(f.slots[m], truth[m]);
                    prop_assert_eq!(f.top_at[m] != NOT_TOP, f.classes[read_class].top.contains(&m));
                }
            }
        }
    }
}
