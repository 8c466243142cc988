//! Scores per node class (upstream `plugins/tainttoleration` and `nodeaffinity` Score and
//! NormalizeScore, `plugins/podtopologyspread/scoring.go`, and `schedule_one.go`
//! `prioritizeNodes` and `selectHost`, v1.35).
//!
//! [`FastScheduler::select_by_class`] scores a pod of [`by_class_shape`]: the taint, affinity
//! and spread scores once per node class ([`static_class_scores`], [`class_scores`]), per node
//! only for nodes holding matching pods, then one pass over the feasible nodes adds the
//! resource scores and keeps the best in filter order for the seeded draw
//! ([`FastScheduler::draw`]).

use super::*;

/// TaintToleration (3) and NodeAffinity (2) of every node class into `out`, normalised by
/// their maximum over the classes with feasible nodes (`class_feasible`).
pub(in crate::scheduler::fast) fn static_class_scores(
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
pub(in crate::scheduler::fast) fn zone_counts(
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
pub(in crate::scheduler::fast) fn zone_present(
    run: &Run,
    class: &PodClass,
    z: &Spread,
    present: &mut Vec<bool>,
) {
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
pub(in crate::scheduler::fast) fn raw_spread_score(
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
pub(in crate::scheduler::fast) fn weighted_spread(raw: i64, min_score: i64, max_score: i64) -> i64 {
    let s = if max_score == 0 {
        MAX_NODE_SCORE
    } else {
        MAX_NODE_SCORE * (max_score + min_score - raw) / max_score
    };
    s.clamp(0, MAX_NODE_SCORE) * pod_topology_spread::WEIGHT
}

impl FastScheduler {
    /// PreScore, Score, NormalizeScore and selectHost for a pod of [`by_class_shape`], over
    /// `feasible` as the filter pass left it (`run.class_feasible`, `run.feasible_mark`).
    pub(in crate::scheduler::fast) fn select_by_class(
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
    pub(in crate::scheduler::fast) fn draw(&mut self, ties: &[NodeId]) -> Option<NodeId> {
        self.reference
            .rng
            .reservoir(ties.len())
            .and_then(|i| ties.get(i).copied())
    }

    /// Whether every candidate node is evaluated (then the round-robin start does not move).
    pub(super) fn every_node(&self, n_all: usize) -> bool {
        self.reference.num_feasible_nodes_to_find(n_all) >= n_all
    }
}
