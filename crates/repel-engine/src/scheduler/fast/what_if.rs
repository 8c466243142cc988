//! A drain what-if's placements from the cluster as it was before the what-if (issue 15).
//!
//! Every node's what-if in `repel drain --independent` starts from the same cluster and puts
//! everything back, and the pods it evicts are of thousands of workloads, each the first of
//! its kind in that what-if: the full path ([`FastScheduler::compiled`]) would pass over every
//! node twice (filters, then scores) for each of them. But a what-if changes few nodes — the
//! drained one and those its replacements went to, all in the change log since it began —
//! and a pod's score on every other node is what it was before the what-if. So for each
//! *request* — the static filters' answer (`static_key`), what NodeResourcesFit compares and
//! the resource scorers read — the nodes that fit it before the what-if are kept once
//! ([`Entry`]): how many per node class, and per node class the best few by resource score
//! (LeastAllocated + BalancedAllocation), in node order, by score. A pod of that request then
//! costs a pass over the node classes and over the few *overlay* nodes, taken out of the
//! kept figures and judged as they are now: the what-if's changed nodes, the node it drains,
//! and the nodes holding pods the pod's hostname spread constraint matches (their score is
//! their own, not their class's — see [`super::by_class`]). Scores, normalisation and the
//! draw are [`FastScheduler::select_by_class`]'s: the same best total, the same tied nodes in
//! filter order (node order: a what-if starts from node 0 and filters every node), one draw.
//!
//! A pod whose hostname constraint matches pods on more than [`MAX_HOLDING`] nodes goes the
//! full path: that many overlay nodes cost about as much.
//!
//! A node class whose kept nodes were all taken out while it still has others is *exhausted*:
//! its entry is built again, deeper. What the module does not cover (another shape of pod,
//! extended resources, a sequence whose drained nodes stay cordoned, one feasible node or
//! none) goes the full path. Entries are valid while the cluster before the what-if is the
//! same (the change log back where it stood, the same epoch); they are dropped when their
//! memory passes [`BUDGET`].

use super::by_class::{
    RESOURCE_MAX, by_class_shape, chain_shape, raw_spread_score, static_class_scores,
    weighted_spread, zone_counts, zone_present,
};
use super::*;

/// Nodes kept per node class at least (every node of its best scores until then).
const DEPTH: usize = 8;

/// Nodes holding pods of a pod's hostname spread constraint, at most, for an entry to answer
/// it (each is an overlay node).
const MAX_HOLDING: usize = 256;

/// The entries' memory, at most.
const BUDGET: usize = 48 << 20;

/// Scores per node class in the build's histogram.
const WIDTH: usize = RESOURCE_MAX as usize + 1;

/// What an entry is for: static key, NodeResourcesFit's request, the scorers' request.
type EntryKey = (u128, [i64; 3], ScoreKey);

/// The nodes one request fits before the what-if. See the module documentation.
struct Entry {
    /// Which nodes fit, as bits.
    feasible: Vec<u64>,
    /// Per node class: how many fit.
    size: Vec<u32>,
    /// Per node class: its levels, `class_levels[c]..class_levels[c + 1]` of `level_*`.
    class_levels: Vec<u32>,
    /// Per level: the resource score and the end of its nodes in `nodes` (a level's nodes
    /// start where the one before it ends); a class's levels from its best score down.
    level_score: Vec<i64>,
    level_end: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Nodes kept per class at least.
    depth: usize,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.feasible.len() * 8
            + self.size.len() * 9
            + self.class_levels.len() * 4
            + self.level_score.len() * 12
            + self.nodes.len() * std::mem::size_of::<NodeId>()
            + 128
    }

    fn level_nodes(&self, l: usize) -> &[NodeId] {
        let from = if l == 0 { 0 } else { self.level_end[l - 1] };
        &self.nodes[from as usize..self.level_end[l] as usize]
    }
}

/// A node judged as it is now (see the module documentation): its node class, the pods the
/// hostname constraint matches on it, its resource score, and its raw spread score.
#[derive(Clone, Copy)]
struct Overlay {
    node: NodeId,
    class: u32,
    k: u32,
    resource: i64,
    raw: i64,
}

/// A query's answer.
enum Answer {
    Placed(NodeId, i64),
    /// The full path's (see the module documentation).
    Full,
    /// A node class's kept nodes ran out: build deeper.
    Exhausted,
}

/// The entries and the queries' scratch, kept in the compiled state ([`Run`]).
#[derive(Default)]
pub(super) struct Levels {
    /// The cluster the entries describe: the epoch and where the change log stood.
    base: Option<(u64, usize)>,
    entries: FastMap<EntryKey, Entry>,
    bytes: usize,
    /// Placed from an entry, entries built, pods handed to the full path.
    pub(super) placed: usize,
    pub(super) built: usize,
    pub(super) full: usize,
    // Scratch.
    hist: Vec<u32>,
    at: Vec<u32>,
    score: Vec<i64>,
    mark: Vec<u64>,
    stamp: u64,
    overlay: Vec<Overlay>,
    size: Vec<u32>,
    allowed: Vec<bool>,
    present: Vec<bool>,
    counts: Vec<i64>,
    raw0: Vec<i64>,
    top: Vec<u32>,
    ties: Vec<NodeId>,
    holding: Vec<NodeId>,
}

/// Whether bit `n` is set.
fn has(bits: &[u64], n: NodeId) -> bool {
    bits.get(n >> 6).is_some_and(|w| w & (1 << (n & 63)) != 0)
}

impl Levels {
    /// Builds the entry of `class`'s request from the cluster before the what-if (the nodes
    /// the what-if changed read from their saved figures), keeping at least `depth` nodes per
    /// node class.
    fn build(
        &mut self,
        run: &mut Run,
        cluster: &Cluster,
        class: &PodClass,
        allowed: &[NodeId],
        depth: usize,
    ) -> Entry {
        let n_all = run.node_class.len();
        let nc = run.reps.len();
        let key = class.score_key;
        let cache = run.scores(&key);
        let mut feasible = vec![0u64; n_all.div_ceil(64)];
        let mut size = vec![0u32; nc];
        self.hist.clear();
        self.hist.resize(nc * WIDTH, 0);
        self.score.resize(n_all, -1);
        for &n in allowed {
            let (free, score) = match run.saved_at.get(n).copied().unwrap_or(0) {
                0 => {
                    let s = &mut run.caches[cache].scores[n];
                    if *s == UNKNOWN {
                        *s = resource_scores(&run.res[n], &key);
                    }
                    (run.free[n], *s)
                }
                i => {
                    let (_, res, free) = run.saved[i as usize - 1];
                    (free, resource_scores(&res, &key))
                }
            };
            if !fits_free(class, &free, &cluster.nodes[n]) {
                continue;
            }
            let score = score.clamp(0, RESOURCE_MAX);
            bits::set(&mut feasible, n);
            let c = run.node_class[n] as usize;
            size[c] += 1;
            self.hist[c * WIDTH + score as usize] += 1;
            self.score[n] = score;
        }
        // Per class, its best scores until `depth` nodes: the levels and where each level's
        // nodes go.
        let mut class_levels = Vec::with_capacity(nc + 1);
        let mut level_score = Vec::new();
        let mut level_end = Vec::new();
        self.at.clear();
        self.at.resize(nc * WIDTH, u32::MAX);
        let mut end = 0u32;
        for c in 0..nc {
            class_levels.push(level_score.len() as u32);
            let mut kept = 0usize;
            for s in (0..WIDTH).rev() {
                if kept >= depth {
                    break;
                }
                let h = self.hist[c * WIDTH + s];
                if h == 0 {
                    continue;
                }
                self.at[c * WIDTH + s] = end;
                end += h;
                kept += h as usize;
                level_score.push(s as i64);
                level_end.push(end);
            }
        }
        class_levels.push(level_score.len() as u32);
        let mut nodes = vec![0; end as usize];
        for &n in allowed {
            let s = self.score[n];
            if s < 0 {
                continue;
            }
            self.score[n] = -1;
            let at = &mut self.at[run.node_class[n] as usize * WIDTH + s as usize];
            if *at != u32::MAX {
                nodes[*at as usize] = n;
                *at += 1;
            }
        }
        self.built += 1;
        Entry {
            feasible,
            size,
            class_levels,
            level_score,
            level_end,
            nodes,
            depth,
        }
    }

    /// Where pending pod `class` would be placed (see the module documentation), the draw
    /// made on `sched`'s generator.
    fn query(
        &mut self,
        sched: &mut FastScheduler,
        run: &mut Run,
        cluster: &Cluster,
        class: &PodClass,
        entry: &Entry,
        base_len: usize,
    ) -> Answer {
        let Statics::ByClass {
            tt_raw,
            na_raw,
            allowed,
        } = &*class.statics
        else {
            return Answer::Full;
        };
        let n_all = run.node_class.len();
        let nc = run.reps.len();
        let key = class.score_key;
        let cache = run.scores(&key);
        let host = class.soft.iter().find(|s| s.hostname);
        let zone = class.soft.iter().find(|s| !s.hostname);
        let ignored = |c: usize| class.spread_ignored(c as u32);
        self.stamp += 1;
        let stamp = self.stamp;
        self.mark.resize(n_all, 0);
        self.size.clone_from(&entry.size);
        self.overlay.clear();
        // The overlay nodes: taken out of the entry's figures, judged as they are now.
        let skip = run.skip;
        let visit = |lv: &mut Levels, run: &mut Run, n: NodeId| {
            if n >= n_all || lv.mark[n] == stamp {
                return;
            }
            lv.mark[n] = stamp;
            let c = run.node_class[n] as usize;
            if has(&entry.feasible, n) {
                lv.size[c] -= 1;
            }
            if skip == Some(n)
                || allowed.binary_search(&n).is_err()
                || !fits_free(class, &run.free[n], &cluster.nodes[n])
            {
                return;
            }
            let k = match host {
                Some(h) if !ignored(c) => run.sel.sels[h.sel as usize].count(n),
                _ => 0,
            };
            let r = &mut run.caches[cache].scores[n];
            if *r == UNKNOWN {
                *r = resource_scores(&run.res[n], &key);
            }
            lv.overlay.push(Overlay {
                node: n,
                class: c as u32,
                k,
                resource: *r,
                raw: 0,
            });
        };
        for i in base_len..run.log.len() {
            let n = run.log[i];
            visit(self, run, n);
        }
        if let Some(s) = skip {
            visit(self, run, s);
        }
        if let Some(h) = host {
            let mut holding = std::mem::take(&mut self.holding);
            holding.clear();
            holding.extend(
                run.sel.sels[h.sel as usize]
                    .nonzero
                    .iter()
                    .filter(|&&(n, k)| k > 0 && !ignored(run.node_class[n] as usize))
                    .map(|&(n, _)| n),
            );
            for &n in &holding {
                visit(self, run, n);
            }
            self.holding = holding;
        }

        // Hard constraints (on keys of the node class) per class, and the feasible nodes per
        // class.
        if class.hard.is_empty() {
            self.allowed.clear();
            self.allowed.resize(nc, true);
        } else {
            let hard_min = hard_counts(run, class);
            hard_ok_per_class(run, class, &hard_min, &mut self.allowed);
        }
        let mut class_feasible = std::mem::take(&mut run.class_feasible);
        class_feasible.clear();
        class_feasible.extend((0..nc).map(|c| if self.allowed[c] { self.size[c] } else { 0 }));
        for o in &self.overlay {
            if self.allowed[o.class as usize] {
                class_feasible[o.class as usize] += 1;
            }
        }
        run.class_feasible = class_feasible;
        let feasible: usize = run.class_feasible.iter().map(|f| *f as usize).sum();
        if feasible <= 1 {
            // One node needs no scores, none the FitError: the full path's.
            return Answer::Full;
        }

        // Scores but the resource scores: per class, and per overlay node with its count.
        let (mut w_z, spread) = (0.0, !class.soft.is_empty());
        if let Some(z) = zone {
            zone_present(run, class, z, &mut self.present);
            w_z = zone_counts(run, class, z, &self.present, &mut self.counts);
        } else {
            self.counts.clear();
        }
        let mut class_score = std::mem::take(&mut run.class_score);
        static_class_scores(&run.class_feasible, class, tt_raw, na_raw, &mut class_score);
        let not_ignored: usize = (0..nc)
            .filter(|c| !ignored(*c))
            .map(|c| run.class_feasible[c] as usize)
            .sum();
        let w_h = topology_normalizing_weight(not_ignored);
        let (mut min_score, mut max_score) = (i64::MAX, 0);
        self.raw0.clear();
        self.raw0.resize(nc, 0);
        if spread {
            let raw = |c: usize, k: u32| {
                raw_spread_score(
                    run,
                    class,
                    run.reps[c],
                    i64::from(k),
                    w_h,
                    &self.counts,
                    w_z,
                )
            };
            for c in (0..nc).filter(|c| self.allowed[*c] && !ignored(*c)) {
                self.raw0[c] = raw(c, 0);
                if self.size[c] > 0 {
                    min_score = min_score.min(self.raw0[c]);
                    max_score = max_score.max(self.raw0[c]);
                }
            }
            for o in self.overlay.iter_mut() {
                let c = o.class as usize;
                if !self.allowed[c] || ignored(c) {
                    continue;
                }
                o.raw = if o.k == 0 { self.raw0[c] } else { raw(c, o.k) };
                min_score = min_score.min(o.raw);
                max_score = max_score.max(o.raw);
            }
        }
        let group_score = |c: usize, raw: i64| {
            let mut s = class_score[c];
            if spread && !ignored(c) {
                s += weighted_spread(raw, min_score, max_score);
            }
            s
        };

        // The best total: each class's best kept level still in, each overlay node.
        let mut best = i64::MIN;
        self.top.clear();
        self.top.resize(nc, u32::MAX);
        for c in (0..nc).filter(|c| self.allowed[*c] && self.size[*c] > 0) {
            let levels = entry.class_levels[c] as usize..entry.class_levels[c + 1] as usize;
            let top = levels
                .clone()
                .find(|&l| entry.level_nodes(l).iter().any(|&n| self.mark[n] != stamp));
            let Some(l) = top else {
                // Nodes of the class fit but none is kept.
                run.class_score = class_score;
                return Answer::Exhausted;
            };
            self.top[c] = l as u32;
            best = best.max(group_score(c, self.raw0[c]) + entry.level_score[l]);
        }
        for o in self
            .overlay
            .iter()
            .filter(|o| self.allowed[o.class as usize])
        {
            best = best.max(group_score(o.class as usize, o.raw) + o.resource);
        }
        // The tied nodes in filter order, and the draw among them.
        self.ties.clear();
        let mut sources = 0;
        for c in (0..nc).filter(|c| self.top[*c] != u32::MAX) {
            let l = self.top[c] as usize;
            if group_score(c, self.raw0[c]) + entry.level_score[l] == best {
                sources += 1;
                let mark = &self.mark;
                self.ties
                    .extend(entry.level_nodes(l).iter().filter(|&&n| mark[n] != stamp));
            }
        }
        for o in self
            .overlay
            .iter()
            .filter(|o| self.allowed[o.class as usize])
        {
            if group_score(o.class as usize, o.raw) + o.resource == best {
                sources += 1;
                self.ties.push(o.node);
            }
        }
        run.class_score = class_score;
        if sources > 1 {
            self.ties.sort_unstable();
        }
        let chosen = sched
            .reference
            .rng
            .reservoir(self.ties.len())
            .and_then(|j| self.ties.get(j).copied());
        match chosen {
            Some(n) => Answer::Placed(n, best),
            None => Answer::Full,
        }
    }
}

/// Bits of a node set.
mod bits {
    use crate::cluster::NodeId;

    pub(super) fn set(bits: &mut [u64], n: NodeId) {
        if let Some(w) = bits.get_mut(n >> 6) {
            *w |= 1 << (n & 63);
        }
    }
}

impl FastScheduler {
    /// A drain what-if's placement of pending pod `pod` (class `class`) from the entries of
    /// the cluster before the what-if (see the module documentation): `Some((node, score))`,
    /// or `None` for the full path (nothing drawn, nothing changed). Only inside a what-if
    /// that will be put back ([`Run::what_if_begins`]), with no node left cordoned.
    pub(super) fn what_if_place(
        &mut self,
        run: &mut Run,
        cluster: &Cluster,
        class: &PodClass,
    ) -> Option<(NodeId, i64)> {
        let base_len = run.base_log?;
        let Statics::ByClass { allowed, .. } = &*class.statics else {
            return None;
        };
        if !run.what_if
            || !run.cordoned.is_empty()
            || !by_class_shape(class)
            || !chain_shape(class)
            || !class.requests.scalar.is_empty()
            || run.node_class.is_empty()
        {
            return None;
        }
        // A Deployment on many nodes: as many overlay nodes — the full path's.
        if let Some(h) = class.soft.iter().find(|s| s.hostname)
            && run.sel.sels[h.sel as usize].nonzero.len() > MAX_HOLDING
        {
            return None;
        }
        let mut lv = std::mem::take(&mut run.levels);
        let base = Some((run.epoch, base_len));
        if lv.base != base {
            lv.entries.clear();
            lv.bytes = 0;
            lv.base = base;
        }
        let key: EntryKey = (class.static_key, class.need, class.score_key);
        let n_all = run.node_class.len();
        let mut answer = None;
        for _ in 0..3 {
            let entry = match lv.entries.remove(&key) {
                Some(e) => e,
                None => {
                    let e = lv.build(run, cluster, class, allowed, DEPTH);
                    lv.bytes += e.bytes();
                    e
                }
            };
            match lv.query(self, run, cluster, class, &entry, base_len) {
                Answer::Placed(n, s) => {
                    lv.placed += 1;
                    answer = Some((n, s));
                }
                Answer::Full => lv.full += 1,
                Answer::Exhausted if entry.depth < n_all => {
                    // Deeper: the class's kept nodes ran out.
                    lv.bytes = lv.bytes.saturating_sub(entry.bytes());
                    let deeper = lv.build(run, cluster, class, allowed, entry.depth * 8);
                    lv.bytes += deeper.bytes();
                    lv.entries.insert(key, deeper);
                    continue;
                }
                Answer::Exhausted => lv.full += 1,
            }
            if lv.bytes > BUDGET {
                lv.entries.clear();
                lv.bytes = entry.bytes();
            }
            lv.entries.insert(key, entry);
            break;
        }
        run.levels = lv;
        answer
    }
}
