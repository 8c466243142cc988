//! The repeat path: a pod like the one just placed (upstream `pkg/scheduler/schedule_one.go`
//! `schedulingCycle`, v1.35, with nothing changed since but the last bind).
//!
//! [`FastScheduler::compiled_repeat`] continues a [`Chain`]: the feasible nodes are those of
//! the pod before but perhaps the node it went to, the round-robin start is the same, and only
//! that node's scores moved, so the groups ([`Buckets`]) are updated for that node and the pod
//! drawn from the best ones. [`FastScheduler::start_chain`] and
//! [`FastScheduler::fresh_chain`] start a chain.

use super::*;

impl FastScheduler {
    /// After the full path placed a pod of [`by_class_shape`] by scoring, lets the next pod of
    /// its class continue from it.
    pub(in crate::scheduler::fast) fn start_chain(
        &self,
        run: &mut Run,
        class: &PodClass,
        node: NodeId,
    ) {
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
    pub(in crate::scheduler::fast) fn fresh_chain(
        &self,
        run: &Run,
        class: &PodClass,
    ) -> Option<Chain> {
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
    pub(in crate::scheduler::fast) fn compiled_repeat(
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
