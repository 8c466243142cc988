//! A drain what-if's placements from the cluster as it was before the what-if.
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
//! A pod whose hostname constraint matches pods on more than [`MAX_HOLDING`] nodes (a large
//! Deployment) has an entry of its own, whose nodes are grouped by node class *and* count of
//! matching pods before the what-if (the counts the what-if changed read back from the
//! selectors' journal), as [`super::by_class`]'s repeat path groups them; only the what-if's
//! changed nodes are overlay nodes then.
//!
//! A node class whose kept nodes were all taken out while it still has others is *exhausted*:
//! its entry is built again, deeper. What the module does not cover (another shape of pod,
//! extended resources, a sequence whose drained nodes stay cordoned, one feasible node or
//! none) goes the full path. Entries are valid while the cluster before the what-if is the
//! same (the change log back where it stood, the same epoch); they are dropped when their
//! memory passes [`BUDGET`].

use super::by_class::{
    RESOURCE_MAX, by_class_shape, chain_shape, mark, raw_spread_score, static_class_scores,
    weighted_spread, zone_counts, zone_present,
};
use super::*;

/// Nodes kept per node class at least (every node of its best scores until then).
const DEPTH: usize = 8;

/// Nodes holding pods of a pod's hostname spread constraint, at most, for them to be judged
/// one by one (overlay nodes); beyond, its entry keeps them by count.
/// (4 in the tests, whose clusters are small: both kinds of entry are compared with the
/// reference there.)
const MAX_HOLDING: usize = if cfg!(test) { 4 } else { 256 };

/// The entries' memory, at most.
const BUDGET: usize = 48 << 20;

/// Scores per node class in the build's histogram.
const WIDTH: usize = RESOURCE_MAX as usize + 1;

/// What an entry is for: static key, NodeResourcesFit's request, the scorers' request, and
/// the hostname constraint's selector when its nodes are kept by count (`u32::MAX`: none).
type EntryKey = (u128, [i64; 3], ScoreKey, u32);

/// No group.
const NO_GROUP: u32 = u32::MAX;

/// Which group each node that fits is in.
enum Membership {
    /// Groups are the node classes (every count taken as 0): which nodes fit, as bits.
    Bits(Vec<u64>),
    /// Per node: its group, `NO_GROUP` for a node that does not fit.
    Groups(Vec<u32>),
}

/// The nodes one request fits before the what-if, by group: a node class and, for a
/// hostname constraint matching pods on many nodes, the count on the node (see
/// [`super::by_class`]'s groups). See the module documentation.
struct Entry {
    member: Membership,
    /// Per group: node class and count.
    groups: Vec<(u32, u32)>,
    /// Per group: how many fit.
    size: Vec<u32>,
    /// Per group: its levels, `group_levels[g]..group_levels[g + 1]` of `level_*`.
    group_levels: Vec<u32>,
    /// Per level: the resource score and the end of its nodes in `nodes` (a level's nodes
    /// start where the one before it ends); a group's levels from its best score down.
    level_score: Vec<i64>,
    level_end: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Nodes kept per group at least.
    depth: usize,
}

impl Entry {
    fn bytes(&self) -> usize {
        let member = match &self.member {
            Membership::Bits(b) => b.len() * 8,
            Membership::Groups(g) => g.len() * 4,
        };
        member
            + self.groups.len() * 16
            + self.level_score.len() * 12
            + self.nodes.len() * std::mem::size_of::<NodeId>()
            + 128
    }

    fn level_nodes(&self, l: usize) -> &[NodeId] {
        let from = if l == 0 { 0 } else { self.level_end[l - 1] };
        &self.nodes[from as usize..self.level_end[l] as usize]
    }

    /// The group node `n` was in before the what-if, if it fit.
    fn group_of(&self, n: NodeId, node_class: &[u32]) -> Option<usize> {
        match &self.member {
            Membership::Bits(bits) => has(bits, n).then(|| node_class[n] as usize),
            Membership::Groups(g) => g.get(n).filter(|g| **g != NO_GROUP).map(|g| *g as usize),
        }
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
    /// A group's kept nodes ran out: build deeper.
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
    raw: Vec<i64>,
    top: Vec<u32>,
    ties: Vec<NodeId>,
    holding: Vec<(NodeId, u32)>,
    group_index: FastMap<(u32, u32), u32>,
}

/// Whether bit `n` is set.
fn has(bits: &[u64], n: NodeId) -> bool {
    bits.get(n >> 6).is_some_and(|w| w & (1 << (n & 63)) != 0)
}

impl Levels {
    /// Builds the entry of `class`'s request from the cluster before the what-if (the nodes
    /// the what-if changed read from their saved figures and, by count, from the selector's
    /// journal), keeping at least `depth` nodes per group. With `by_count`, the hostname
    /// constraint's selector: nodes are grouped by its count too.
    fn build(
        &mut self,
        run: &mut Run,
        cluster: &Cluster,
        class: &PodClass,
        allowed: &[NodeId],
        (depth, by_count): (usize, Option<u32>),
    ) -> Entry {
        let n_all = run.node_class.len();
        let nc = run.reps.len();
        let key = class.score_key;
        let cache = run.scores(&key);
        let mut groups: Vec<(u32, u32)> = (0..nc as u32).map(|c| (c, 0)).collect();
        self.group_index.clear();
        let mut member = match by_count {
            None => Membership::Bits(vec![0u64; n_all.div_ceil(64)]),
            Some(_) => Membership::Groups(vec![NO_GROUP; n_all]),
        };
        let mut size = vec![0u32; nc];
        self.hist.clear();
        self.hist.resize(nc * WIDTH, 0);
        self.score.resize(n_all, -1);
        let journal = run.sel.journal.as_deref().unwrap_or(&[]);
        for &n in allowed {
            let saved = run.saved_at.get(n).copied().unwrap_or(0);
            let (free, score) = match saved {
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
            let c = run.node_class[n] as usize;
            let g = match (&mut member, by_count) {
                (Membership::Groups(of), Some(sel)) => {
                    let mut k = i64::from(run.sel.sels[sel as usize].count(n));
                    if saved != 0 {
                        // Changed in the what-if: its count before.
                        let lcs = &run.sel.lcs;
                        k -= journal
                            .iter()
                            .filter(|(lc, m, _)| {
                                *m == n
                                    && lcs.get(*lc as usize).is_some_and(|l| l.sels.contains(&sel))
                            })
                            .map(|(_, _, d)| i64::from(*d))
                            .sum::<i64>();
                    }
                    let k = if class.spread_ignored(c as u32) {
                        0
                    } else {
                        u32::try_from(k.max(0)).unwrap_or(0)
                    };
                    let g = if k == 0 {
                        c as u32
                    } else {
                        *self.group_index.entry((c as u32, k)).or_insert_with(|| {
                            groups.push((c as u32, k));
                            size.push(0);
                            self.hist.resize(groups.len() * WIDTH, 0);
                            groups.len() as u32 - 1
                        })
                    };
                    of[n] = g;
                    g as usize
                }
                (Membership::Bits(bits), _) => {
                    mark(bits, n);
                    c
                }
                _ => c,
            };
            size[g] += 1;
            self.hist[g * WIDTH + score as usize] += 1;
            self.score[n] = score;
        }
        // Per group, its best scores until `depth` nodes: the levels and where each level's
        // nodes go.
        let ng = groups.len();
        let mut group_levels = Vec::with_capacity(ng + 1);
        let mut level_score = Vec::new();
        let mut level_end = Vec::new();
        self.at.clear();
        self.at.resize(ng * WIDTH, u32::MAX);
        let mut end = 0u32;
        for g in 0..ng {
            group_levels.push(level_score.len() as u32);
            let mut kept = 0usize;
            for s in (0..WIDTH).rev() {
                if kept >= depth {
                    break;
                }
                let h = self.hist[g * WIDTH + s];
                if h == 0 {
                    continue;
                }
                self.at[g * WIDTH + s] = end;
                end += h;
                kept += h as usize;
                level_score.push(s as i64);
                level_end.push(end);
            }
        }
        group_levels.push(level_score.len() as u32);
        let mut nodes = vec![0; end as usize];
        for &n in allowed {
            let s = self.score[n];
            if s < 0 {
                continue;
            }
            self.score[n] = -1;
            let g = match &member {
                Membership::Groups(of) => of[n] as usize,
                Membership::Bits(_) => run.node_class[n] as usize,
            };
            let at = &mut self.at[g * WIDTH + s as usize];
            if *at != u32::MAX {
                nodes[*at as usize] = n;
                *at += 1;
            }
        }
        self.built += 1;
        Entry {
            member,
            groups,
            size,
            group_levels,
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
            class_ok,
            ..
        } = &*class.statics
        else {
            return Answer::Full;
        };
        let n_all = run.node_class.len();
        let nc = run.reps.len();
        let ng = entry.groups.len();
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
        // `known`: the hostname constraint's count on the node when the caller has it.
        let visit = |lv: &mut Levels, run: &mut Run, n: NodeId, known: Option<u32>| {
            if n >= n_all || lv.mark[n] == stamp {
                return;
            }
            lv.mark[n] = stamp;
            let c = run.node_class[n] as usize;
            if let Some(g) = entry.group_of(n, &run.node_class) {
                lv.size[g] -= 1;
            }
            // The static filters' answer is its node class's (`allowed` is built from it).
            if skip == Some(n)
                || !class_ok.get(c).copied().unwrap_or(false)
                || !fits_free(class, &run.free[n], &cluster.nodes[n])
            {
                return;
            }
            let k = match host {
                Some(h) if !ignored(c) => {
                    known.unwrap_or_else(|| run.sel.sels[h.sel as usize].count(n))
                }
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
            visit(self, run, n, None);
        }
        if let Some(s) = skip {
            visit(self, run, s, None);
        }
        if let (Some(h), Membership::Bits(_)) = (host, &entry.member) {
            // Kept as if no node held matching pods: those that do are judged on their own.
            let mut holding = std::mem::take(&mut self.holding);
            holding.clear();
            holding.extend(
                run.sel.sels[h.sel as usize]
                    .nonzero
                    .iter()
                    .filter(|&&(n, k)| k > 0 && !ignored(run.node_class[n] as usize)),
            );
            for &(n, k) in &holding {
                visit(self, run, n, Some(k));
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
        class_feasible.resize(nc, 0);
        for (g, &(c, _)) in entry.groups.iter().enumerate() {
            if self.allowed[c as usize] {
                class_feasible[c as usize] += self.size[g];
            }
        }
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

        // Scores but the resource scores: per group, and per overlay node with its count.
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
        self.raw.clear();
        self.raw.resize(ng, 0);
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
            for (g, &(c, k)) in entry.groups.iter().enumerate() {
                let c = c as usize;
                if !self.allowed[c] || ignored(c) {
                    continue;
                }
                self.raw[g] = if g < nc { raw(c, 0) } else { raw(c, k) };
                if self.size[g] > 0 {
                    min_score = min_score.min(self.raw[g]);
                    max_score = max_score.max(self.raw[g]);
                }
            }
            for o in self.overlay.iter_mut() {
                let c = o.class as usize;
                if !self.allowed[c] || ignored(c) {
                    continue;
                }
                o.raw = if o.k == 0 { self.raw[c] } else { raw(c, o.k) };
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

        // The best total: each group's best kept level still in, each overlay node.
        let mut best = i64::MIN;
        self.top.clear();
        self.top.resize(ng, u32::MAX);
        for g in 0..ng {
            let c = entry.groups[g].0 as usize;
            if !self.allowed[c] || self.size[g] == 0 {
                continue;
            }
            let levels = entry.group_levels[g] as usize..entry.group_levels[g + 1] as usize;
            let top = levels
                .clone()
                .find(|&l| entry.level_nodes(l).iter().any(|&n| self.mark[n] != stamp));
            let Some(l) = top else {
                // Nodes of the group fit but none is kept.
                run.class_score = class_score;
                return Answer::Exhausted;
            };
            self.top[g] = l as u32;
            best = best.max(group_score(c, self.raw[g]) + entry.level_score[l]);
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
        for g in (0..ng).filter(|g| self.top[*g] != u32::MAX) {
            let l = self.top[g] as usize;
            let c = entry.groups[g].0 as usize;
            if group_score(c, self.raw[g]) + entry.level_score[l] == best {
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
        // A Deployment on many nodes: its nodes kept by count, not judged one by one.
        let by_count = class
            .soft
            .iter()
            .find(|s| s.hostname)
            .filter(|h| run.sel.sels[h.sel as usize].nonzero.len() > MAX_HOLDING)
            .map(|h| h.sel);
        let mut lv = std::mem::take(&mut run.levels);
        let base = Some((run.epoch, base_len));
        if lv.base != base {
            lv.entries.clear();
            lv.bytes = 0;
            lv.base = base;
        }
        let key: EntryKey = (
            class.static_key,
            class.need,
            class.score_key,
            by_count.unwrap_or(u32::MAX),
        );
        let n_all = run.node_class.len();
        let mut answer = None;
        for _ in 0..3 {
            let entry = match lv.entries.remove(&key) {
                Some(e) => e,
                None => {
                    let e = lv.build(run, cluster, class, allowed, (DEPTH, by_count));
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
                    let deeper =
                        lv.build(run, cluster, class, allowed, (entry.depth * 8, by_count));
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
