//! Placing a compiled pod (upstream `pkg/scheduler/schedule_one.go` `findNodesThatFitPod`,
//! `findNodesThatPassFilters`, `prioritizeNodes` and `selectHost`, v1.35).
//!
//! [`FastScheduler::compiled`] visits the nodes the static filters let through in the
//! reference's round-robin order (so `nextStartNodeIndex` advances as there), filters each by
//! its free figures and the hard spread constraints, and counts feasible nodes per node class;
//! [`FastScheduler::score_and_select`] adds the scores (per node class where the shape allows,
//! see `by_class`) and draws among the best as the reference's seeded `selectHost` does.

use super::*;

impl FastScheduler {
    /// The compiled scheduling cycle; `None` hands the pod to the reference scheduler (nothing
    /// has changed then).
    pub(super) fn compiled(
        &mut self,
        run: &mut Run,
        cluster: &mut Cluster,
        pod: PodId,
        key: u128,
        class: &PodClass,
    ) -> Option<Outcome> {
        if let Some(chain) = run.chain.take()
            && !run.what_if
            && let Some(outcome) = self.compiled_repeat(run, cluster, pod, class, chain)
        {
            return Some(outcome);
        }
        if !run.what_if
            && let Some(chain) = self.fresh_chain(run, class)
            && let Some(outcome) = self.compiled_repeat(run, cluster, pod, class, chain)
        {
            return Some(outcome);
        }
        let n_all = cluster.nodes.len();
        if n_all == 0 {
            return None;
        }
        // The candidates (all nodes, or PreFilter's) and, for a per-node class, the static
        // plugins' PreFilter state for this pod.
        let mut per_node: Option<(CycleState, Vec<NodeId>)> = None;
        if let Statics::PerNode { candidates } = &*class.statics {
            let mut state = CycleState::default();
            for (i, name) in STATIC_FILTERS.iter().enumerate() {
                if !class.skip_filters.contains(i) {
                    self.plugin(name)?
                        .pre_filter(&mut state, &cluster.pods[pod], cluster);
                }
            }
            let cands = candidates.clone().unwrap_or_else(|| (0..n_all).collect());
            per_node = Some((state, cands));
        }
        let m = per_node.as_ref().map_or(n_all, |(_, c)| c.len());
        if m == 0 {
            return None;
        }

        // PodTopologySpread PreFilter: matching pods per eligible domain, and the minimum.
        let hard_min = hard_counts(run, class);

        // Filter, from the round-robin start, until enough feasible nodes are found. Nodes
        // the static filters reject are skipped without a visit; `processed` counts them as
        // the reference does.
        let to_find = self.reference.num_feasible_nodes_to_find(m);
        let start = self.reference.next_start_node_index % m;
        let mut feasible = std::mem::take(&mut run.feasible);
        feasible.clear();
        let mut stopped_at: Option<usize> = None;
        // Per node class, how many nodes are feasible, and which nodes (for the class-level
        // selection in `select_by_class`).
        run.pass += 1;
        let pass = run.pass;
        run.feasible_pass = pass;
        let mut class_feasible = std::mem::take(&mut run.class_feasible);
        class_feasible.iter_mut().for_each(|c| *c = 0);
        let mut feasible_mark = std::mem::take(&mut run.feasible_mark);
        {
            let info = &cluster.pods[pod];
            // Hard constraints on keys of the node class are judged once per class.
            let per_class_hard: Option<Vec<bool>> =
                (!class.hard.is_empty() && by_class::chain_shape(class)).then(|| {
                    let mut ok = Vec::new();
                    hard_ok_per_class(run, class, &hard_min, &mut ok);
                    ok
                });
            let hard_ok = |n: NodeId| match &per_class_hard {
                Some(ok) => ok[run.node_class[n] as usize],
                None => hard_failure(run, class, &hard_min, n).is_none(),
            };
            let skip = run.skip;
            let cordoned: &[bool] = if skip.is_some() { &run.cordoned } else { &[] };
            let skipped = |n: NodeId| skip == Some(n) || cordoned.get(n) == Some(&true);
            let mut visit = |pos: usize, n: NodeId, feasible: &mut Vec<NodeId>| -> bool {
                if skipped(n) {
                    return false;
                }
                let static_ok = match &per_node {
                    Some((state, _)) => {
                        self.static_ok(state, class.skip_filters, info, &cluster.nodes[n], cluster)
                    }
                    None => true,
                };
                if static_ok
                    && fits_free(class, &run.free[n], &cluster.nodes[n])
                    && (class.hard.is_empty() || hard_ok(n))
                {
                    feasible.push(n);
                    if feasible.len() >= to_find {
                        stopped_at = Some(pos);
                        return true;
                    }
                }
                false
            };
            match (&*class.statics, &per_node) {
                (Statics::ByClass { allowed, .. }, _) => {
                    // Positions are node indexes (the candidates are all nodes).
                    let split = allowed.partition_point(|n| *n < start);
                    for &n in allowed[split..].iter().chain(&allowed[..split]) {
                        if !skipped(n)
                            && fits_free(class, &run.free[n], &cluster.nodes[n])
                            && (class.hard.is_empty() || hard_ok(n))
                        {
                            feasible.push(n);
                            class_feasible[run.node_class[n] as usize] += 1;
                            feasible_mark[n] = pass;
                            if feasible.len() >= to_find {
                                stopped_at = Some(n);
                                break;
                            }
                        }
                    }
                }
                (_, Some((_, cands))) => {
                    for i in 0..m {
                        let pos = (start + i) % m;
                        if visit(pos, cands[pos], &mut feasible) {
                            break;
                        }
                    }
                }
                // (A per-node class always has its PreFilter state.)
                _ => {}
            }
        }
        run.class_feasible = class_feasible;
        run.feasible_mark = feasible_mark;
        if feasible.is_empty() {
            run.feasible = feasible;
            if run.what_if {
                return Some(Outcome::Unschedulable {
                    message: String::new(),
                    nominated: None,
                });
            }
            return self.compiled_unschedulable(run, cluster, pod, key, class, &hard_min);
        }
        let processed = match stopped_at {
            Some(pos) => (pos + m - start) % m + 1,
            None => m,
        };
        self.reference.next_start_node_index =
            (self.reference.next_start_node_index + processed) % n_all;
        let chosen = if feasible.len() == 1 {
            Some((feasible[0], None))
        } else {
            self.score_and_select(run, cluster, pod, class, &feasible)
                .map(|(n, s)| (n, Some(s)))
        };
        run.feasible = feasible;
        let (node, score) = chosen?;
        if run.what_if {
            return Some(Outcome::Scheduled { node, score });
        }
        cluster.bind(pod, node);
        run.sel.moved(cluster, pod, node, 1);
        run.touched(cluster, node);
        if score.is_some() && by_class::by_class_shape(class) {
            self.start_chain(run, class, node);
        }
        Some(Outcome::Scheduled { node, score })
    }

    /// PreScore, Score, NormalizeScore and selectHost over `feasible` (in filter order).
    fn score_and_select(
        &mut self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        class: &PodClass,
        feasible: &[NodeId],
    ) -> Option<(NodeId, i64)> {
        if let Statics::ByClass { tt_raw, na_raw, .. } = &*class.statics
            && by_class::by_class_shape(class)
        {
            return self.select_by_class(run, class, feasible, tt_raw, na_raw);
        }
        let info = &cluster.pods[pod];
        let mut stat = std::mem::take(&mut run.stat);
        stat.clear();
        // TaintToleration (3) and NodeAffinity (2): static raw scores normalised by their
        // maximum over the feasible nodes.
        match &*class.statics {
            Statics::ByClass { tt_raw, na_raw, .. } => {
                // The filter pass counted the feasible nodes per class.
                let mut per_class = std::mem::take(&mut run.class_score);
                by_class::static_class_scores(
                    &run.class_feasible,
                    class,
                    tt_raw,
                    na_raw,
                    &mut per_class,
                );
                stat.extend(
                    feasible
                        .iter()
                        .map(|n| per_class[run.node_class[*n] as usize]),
                );
                run.class_score = per_class;
            }
            Statics::PerNode { .. } => {
                stat.resize(feasible.len(), 0);
                for (name, on, reverse, weight) in [
                    (
                        taint_toleration::NAME,
                        class.tt_scores,
                        true,
                        taint_toleration::WEIGHT,
                    ),
                    (
                        node_affinity::NAME,
                        class.na_scores,
                        false,
                        node_affinity::WEIGHT,
                    ),
                ] {
                    if !on {
                        continue;
                    }
                    let pl = self.plugin(name)?;
                    let mut st = CycleState::default();
                    pl.pre_score(&mut st, info, &[], cluster);
                    let raw: Vec<i64> = feasible
                        .iter()
                        .map(|n| pl.score(&st, info, &cluster.nodes[*n], cluster).ok())
                        .collect::<Option<_>>()?;
                    let max = raw.iter().copied().max().unwrap_or(0);
                    for (s, r) in stat.iter_mut().zip(&raw) {
                        *s += normalized(*r, max, reverse, weight);
                    }
                }
            }
        }
        // PodTopologySpread (2).
        let mut raw = std::mem::take(&mut run.raw);
        if !class.soft.is_empty() {
            self.spread_scores(run, class, feasible, &mut raw);
            for (s, r) in stat.iter_mut().zip(&raw) {
                *s += (*r).clamp(0, MAX_NODE_SCORE) * pod_topology_spread::WEIGHT;
            }
        }
        run.raw = raw;
        // ImageLocality (1): the nodes holding the pod's images, read through a per-node
        // scratch left all zero.
        if let Some(images) = &class.images {
            let dense = &mut run.image_scratch;
            if dense.len() < run.res.len() {
                dense.resize(run.res.len(), 0);
            }
            for &(n, s) in images.iter() {
                if let Some(d) = dense.get_mut(n) {
                    *d = s;
                }
            }
            for (s, n) in stat.iter_mut().zip(feasible) {
                *s += dense.get(*n).copied().unwrap_or(0);
            }
            for &(n, _) in images.iter() {
                if let Some(d) = dense.get_mut(n) {
                    *d = 0;
                }
            }
        }
        // InterPodAffinity: no pod in the cluster has affinity terms, so PreScore skips.
        // NodeResourcesFit (LeastAllocated, 1) and BalancedAllocation (1, skipped for
        // BestEffort pods): kept per node for the request.
        let cache = run.scores(&class.score_key);
        let resource = &mut run.caches[cache].scores;
        let mut best = i64::MIN;
        for (s, n) in stat.iter_mut().zip(feasible) {
            let r = &mut resource[*n];
            if *r == UNKNOWN {
                *r = resource_scores(&run.res[*n], &class.score_key);
            }
            *s += *r;
            best = best.max(*s);
        }
        // selectHost: reservoir sampling among the best, in filter order.
        let mut ties = std::mem::take(&mut run.ties);
        ties.clear();
        ties.extend(
            stat.iter()
                .zip(feasible)
                .filter(|(t, _)| **t == best)
                .map(|(_, n)| *n),
        );
        let chosen = self.draw(&ties);
        run.ties = ties;
        run.stat = stat;
        chosen.map(|n| (n, best))
    }
}
