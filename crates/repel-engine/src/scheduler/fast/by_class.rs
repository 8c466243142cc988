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
//! (every candidate was processed), and only that node's resource score moved. The feasible
//! nodes are kept in buckets by resource score per node class ([`Buckets`]), so the best
//! nodes are read from the top buckets instead of visiting every node.

use super::*;

/// The resource scores' range: LeastAllocated and BalancedAllocation, each 0..=100, weighted.
const RESOURCE_MAX: i64 =
    MAX_NODE_SCORE * (node_resources_fit::WEIGHT + balanced_allocation::WEIGHT);

/// The feasible nodes of a chain of like pods, per node class and resource score, each list
/// in node order.
#[derive(Default)]
pub(super) struct Buckets {
    /// `class * width + score` → its nodes, in node order.
    lists: Vec<Vec<NodeId>>,
    width: usize,
    /// Per node: whether it is in a list, and its score.
    held: Vec<bool>,
    score: Vec<i64>,
    /// Per node class: the highest score with nodes (-1: none).
    top: Vec<i64>,
    /// Lists that may hold nodes, to empty them.
    used: Vec<usize>,
    /// Per node: set aside for this pod (it scores on its own), while staying in its list.
    aside: Vec<bool>,
    /// Per list: how many of its nodes are set aside.
    aside_in: Vec<u32>,
    /// The nodes set aside, to put back.
    aside_nodes: Vec<NodeId>,
}

impl Buckets {
    /// Empty, for `classes` node classes and `nodes` nodes.
    fn reset(&mut self, classes: usize, nodes: usize) {
        for &l in &self.used {
            if let Some(list) = self.lists.get_mut(l) {
                list.clear();
            }
        }
        self.used.clear();
        self.width = RESOURCE_MAX as usize + 1;
        self.lists.resize(classes * self.width, Vec::new());
        self.held.clear();
        self.held.resize(nodes, false);
        self.score.resize(nodes, 0);
        self.top.clear();
        self.top.resize(classes, -1);
        self.aside.clear();
        self.aside.resize(nodes, false);
        self.aside_in.clear();
        self.aside_in.resize(classes * self.width, 0);
        self.aside_nodes.clear();
    }

    /// Sets `node` aside for one pod: it stays in its list (no list is shifted), but
    /// [`Buckets::best`] and [`Buckets::count`] leave it out until [`Buckets::restore`].
    fn set_aside(&mut self, class: usize, node: NodeId) {
        if !self.held[node] || self.aside[node] {
            return;
        }
        self.aside[node] = true;
        self.aside_in[class * self.width + self.score[node] as usize] += 1;
        self.aside_nodes.push(node);
    }

    /// Puts back every node set aside.
    fn restore(&mut self, node_class: &[u32]) {
        for n in std::mem::take(&mut self.aside_nodes) {
            self.aside[n] = false;
            let l = node_class[n] as usize * self.width + self.score[n] as usize;
            self.aside_in[l] = 0;
        }
    }

    /// The highest score of `class` with nodes not set aside (-1: none).
    fn best(&self, class: usize) -> i64 {
        let mut t = self.top[class];
        while t >= 0 {
            let l = class * self.width + t as usize;
            if self.lists[l].len() > self.aside_in[l] as usize {
                return t;
            }
            t -= 1;
        }
        -1
    }

    /// How many nodes of `class` with score `score` are not set aside.
    fn count(&self, class: usize, score: i64) -> usize {
        let l = class * self.width + score as usize;
        self.lists[l].len() - self.aside_in[l] as usize
    }

    /// Whether a list of `class` holds nodes set aside.
    fn has_aside(&self, class: usize, score: i64) -> bool {
        self.aside_in[class * self.width + score as usize] > 0
    }

    /// The nodes of `class` with score `score`, in node order (set-aside ones included).
    fn list(&self, class: usize, score: i64) -> &[NodeId] {
        &self.lists[class * self.width + score as usize]
    }

    /// Records `node` with `score` in `class`; returns the list it goes in.
    fn list_for(&mut self, class: usize, node: NodeId, score: i64) -> &mut Vec<NodeId> {
        let score = score.clamp(0, RESOURCE_MAX);
        let l = class * self.width + score as usize;
        if self.lists[l].is_empty() {
            self.used.push(l);
        }
        self.held[node] = true;
        self.score[node] = score;
        self.top[class] = self.top[class].max(score);
        &mut self.lists[l]
    }

    /// Adds `node` at the end of its list: nodes must come in node order.
    fn push(&mut self, class: usize, node: NodeId, score: i64) {
        self.list_for(class, node, score).push(node);
    }

    /// Adds `node` in node order.
    fn insert(&mut self, class: usize, node: NodeId, score: i64) {
        let list = self.list_for(class, node, score);
        let at = list.partition_point(|n| *n < node);
        list.insert(at, node);
    }

    /// Takes `node` out (it keeps its score in `score`).
    fn remove(&mut self, class: usize, node: NodeId) {
        if !self.held[node] {
            return;
        }
        let list = &mut self.lists[class * self.width + self.score[node] as usize];
        if let Ok(i) = list.binary_search(&node) {
            list.remove(i);
        }
        self.held[node] = false;
        while self.top[class] >= 0
            && self.lists[class * self.width + self.top[class] as usize].is_empty()
        {
            self.top[class] -= 1;
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
    /// Its feasible nodes (the node it went to included).
    feasible: usize,
    /// Whether `run.buckets` holds its feasible nodes (else `run.feasible` lists them).
    built: bool,
}

/// Whether a class takes [`FastScheduler::select_by_class`].
pub(super) fn by_class_shape(class: &PodClass) -> bool {
    matches!(&*class.statics, Statics::ByClass { .. })
        && class.soft.iter().filter(|s| s.hostname).count() <= 1
        && class.soft.iter().filter(|s| !s.hostname).count() <= 1
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
fn class_scores(run: &mut Run, class: &PodClass, tt_raw: &[i64], na_raw: &[i64]) {
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
        let mut slots = 0;
        if let Some(z) = zone {
            let d = &run.domains[z.dom];
            slots = d.count;
            present.clear();
            present.resize(d.count, false);
            for c in (0..nc).filter(|c| cf[*c] > 0 && !ignored(*c)) {
                present[d.of_node[run.reps[c]] as usize] = true;
            }
            counts.clear();
            counts.resize(d.count, 0);
            for &(n, k) in &run.sel.sels[z.sel as usize].nonzero {
                let c = run.node_class[n] as usize;
                if ignored(c) || !z.include[c] {
                    continue;
                }
                let dom = d.of_node[n] as usize;
                if present[dom] {
                    counts[dom] += i64::from(k);
                }
            }
            w_z = topology_normalizing_weight(present.iter().filter(|p| **p).count());
        }
        // A node's raw score from its domain slot (`slots` when it lacks the key), whether
        // it has the hostname label, and its matching pods, adding the terms in constraint
        // order.
        let raw_of = |n: NodeId, hc: i64| -> i64 {
            let slot = match zone {
                Some(z) if run.domains[z.dom].has[n] => run.domains[z.dom].of_node[n] as usize,
                _ => slots,
            };
            let has_host = host.is_some_and(|h| run.domains[h.dom].has[n]);
            let mut total = 0.0_f64;
            for s in &class.soft {
                if s.hostname {
                    if has_host {
                        total += score_for_count(hc, s.max_skew, w_h);
                    }
                } else if slot < slots {
                    total += score_for_count(counts[slot], s.max_skew, w_z);
                }
            }
            total.round() as i64
        };
        // Feasible nodes holding pods the hostname constraint matches score on their own.
        own_in_class.iter_mut().for_each(|k| *k = 0);
        if let Some(h) = host {
            // A node's raw score depends only on its zone slot, whether it has the hostname
            // label and its count: thousands of nodes of a large Deployment share a few
            // values, each computed once per pod.
            const COUNTS: usize = 16;
            let mut memo = std::mem::take(&mut run.raw_memo);
            memo.clear();
            memo.resize((slots + 1) * 2 * COUNTS, i64::MIN);
            for &(n, k) in &run.sel.sels[h.sel as usize].nonzero {
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
            run.raw_memo = memo;
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
        let weighted = |raw: i64| -> i64 {
            let s = if max_score == 0 {
                MAX_NODE_SCORE
            } else {
                MAX_NODE_SCORE * (max_score + min_score - raw) / max_score
            };
            s.clamp(0, MAX_NODE_SCORE) * pod_topology_spread::WEIGHT
        };
        for o in own.iter_mut() {
            o.1 = class_score[run.node_class[o.0] as usize] + weighted(o.1);
        }
        for c in (0..nc).filter(|c| cf[*c] > 0 && !ignored(*c)) {
            class_score[c] += weighted(class_raw[c]);
        }
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

/// The `j`-th in filter order (node order from the round-robin `start`, wrapping) of nodes
/// given in node order.
pub(super) fn nth_of_ordered_in_filter_order(
    nodes: &[NodeId],
    j: usize,
    start: usize,
) -> Option<NodeId> {
    if j >= nodes.len() {
        return None;
    }
    let split = nodes.partition_point(|n| *n < start);
    let from_start = nodes.len() - split;
    if j < from_start {
        nodes.get(split + j).copied()
    } else {
        nodes.get(j - from_start).copied()
    }
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
        class_scores(run, class, tt_raw, na_raw);
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
    pub(super) fn start_chain(
        &self,
        run: &mut Run,
        class: &PodClass,
        node: NodeId,
        feasible: usize,
    ) {
        let n_all = run.node_class.len();
        run.chain = (class.hard.is_empty() && self.every_node(n_all)).then_some(Chain {
            class: class as *const PodClass as usize,
            bound: node,
            log_len: run.log.len(),
            epoch: run.epoch,
            start: self.reference.next_start_node_index,
            feasible,
            built: false,
        });
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
        let Statics::ByClass { tt_raw, na_raw, .. } = &*class.statics else {
            return None;
        };
        if chain.class != class as *const PodClass as usize
            || chain.log_len != run.log.len()
            || chain.epoch != run.epoch
            || chain.start != self.reference.next_start_node_index
            || !class.hard.is_empty()
            || !self.every_node(n_all)
        {
            return None;
        }
        let nc = run.reps.len();
        let b = chain.bound;
        let cb = run.node_class[b] as usize;
        let key = class.score_key;
        if chain.built {
            run.buckets.remove(cb, b);
        } else {
            // The previous pod's feasible nodes, with the resource scores it computed (the
            // node it went to is taken anew below). They are in filter order: the class's
            // allowed nodes (in node order) from the round-robin start on, then from the
            // first; read from the wrap (the first node below the first one) they are in node
            // order.
            let cache = run.scores(&key);
            let mut buckets = std::mem::take(&mut run.buckets);
            buckets.reset(nc, n_all);
            let f = &run.feasible;
            let wrap = f
                .first()
                .map_or(0, |&first| f.partition_point(|n| *n >= first));
            debug_assert!(f[wrap..].iter().chain(&f[..wrap]).is_sorted());
            for part in [&f[wrap..], &f[..wrap]] {
                for &n in part {
                    if n == b {
                        continue;
                    }
                    let mut r = run.caches[cache].scores[n];
                    if r == UNKNOWN {
                        r = resource_scores(&run.res[n], &key);
                    }
                    buckets.push(run.node_class[n] as usize, n, r);
                }
            }
            run.buckets = buckets;
        }
        let mut feasible = chain.feasible;
        if fits_free(class, &run.free[b], &cluster.nodes[b]) {
            run.buckets
                .insert(cb, b, resource_scores(&run.res[b], &key));
        } else {
            run.feasible_mark[b] = 0;
            run.class_feasible[cb] -= 1;
            feasible -= 1;
        }
        if feasible <= 1 {
            // One node left needs no scores, none the FitError: the full path's.
            return None;
        }
        run.pass += 1;
        class_scores(run, class, tt_raw, na_raw);
        // Nodes scoring on their own are set aside in their buckets while the best is found
        // (no list shifts: a Deployment spread over thousands of nodes has thousands of them).
        let own = std::mem::take(&mut run.own);
        let mut own = own;
        for (n, s) in own.iter_mut() {
            let c = run.node_class[*n] as usize;
            run.buckets.set_aside(c, *n);
            *s += run.buckets.score[*n];
        }
        let tops: Vec<i64> = (0..nc).map(|c| run.buckets.best(c)).collect();
        let mut best = i64::MIN;
        for (c, &top) in tops.iter().enumerate() {
            if top >= 0 {
                best = best.max(run.class_score[c] + top);
            }
        }
        for &(_, s) in &own {
            best = best.max(s);
        }
        // The draw's pick among the best in filter order: which place is picked depends on
        // their number only, so only the node in that place is looked for: in one list (in
        // node order) at once, else counted off a bit set of the best nodes.
        let start = self.reference.next_start_node_index % n_all;
        let is_best = |c: usize| tops[c] >= 0 && run.class_score[c] + tops[c] == best;
        let own_best = own.iter().filter(|(_, s)| *s == best).count();
        let (mut best_classes, mut best_class, mut tied) = (0, 0, own_best);
        for (c, &top) in tops.iter().enumerate() {
            if is_best(c) {
                best_classes += 1;
                best_class = c;
                tied += run.buckets.count(c, top);
            }
        }
        let chosen = if best_classes == 1
            && own_best == 0
            && !run.buckets.has_aside(best_class, tops[best_class])
        {
            let list = run.buckets.list(best_class, tops[best_class]);
            self.reference
                .rng
                .reservoir(list.len())
                .and_then(|j| nth_of_ordered_in_filter_order(list, j, start))
        } else {
            let mut bits = std::mem::take(&mut run.tie_bits);
            bits.resize(n_all.div_ceil(64), 0);
            for (c, &top) in tops.iter().enumerate() {
                if is_best(c) {
                    for &n in run.buckets.list(c, top) {
                        if !run.buckets.aside[n] {
                            mark(&mut bits, n);
                        }
                    }
                }
            }
            for &(n, _) in own.iter().filter(|(_, s)| *s == best) {
                mark(&mut bits, n);
            }
            let chosen = self
                .reference
                .rng
                .reservoir(tied)
                .and_then(|j| nth_marked_in_filter_order(&bits, j, start));
            bits.fill(0);
            run.tie_bits = bits;
            chosen
        };
        run.buckets.restore(&run.node_class);
        run.own = own;
        let node = chosen?;
        // Every candidate was processed.
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + n_all) % n_all;
        cluster.bind(pod, node);
        run.sel.moved(cluster, pod, node, 1);
        run.touched(cluster, node);
        self.stats.repeated += 1;
        run.chain = Some(Chain {
            bound: node,
            log_len: run.log.len(),
            feasible,
            built: true,
            ..chain
        });
        Some(Outcome::Scheduled {
            node,
            score: Some(best),
        })
    }
}
