//! PodTopologySpread on the compiled path (upstream `plugins/podtopologyspread/common.go`,
//! `filtering.go` and `scoring.go`, v1.35).
//!
//! A pod's constraints are read ahead ([`Draft`], [`DraftSpread`]: the system defaults, the
//! selector's key and whether it matches the pod itself) and compiled per class ([`Spread`]).
//! The hard constraints' PreFilter and Filter ([`hard_counts`], [`hard_minimums`],
//! [`hard_failure`]) and the soft ones' PreScore, Score and NormalizeScore
//! ([`soft_domain_counts`], [`normalize_spread`], [`FastScheduler::spread_scores`]) read the
//! counts kept by [`Selectors`] per node and add them up per domain.

use super::*;

/// The part of compiling a pod's class that reads only the pod and what a batch does not change
/// (its owner's selector, for the default spread constraints): [`class_keys`] finds it on every
/// core for the first pod of each class, so that the scheduling thread only picks it up
/// ([`FastScheduler::compile`] finds it itself when none was found ahead).
pub(super) struct Draft {
    /// `None`: the compiled path does not cover the pod (host ports, pod (anti-)affinity, a
    /// spread constraint whose selector does not parse).
    pub(super) spreads: Option<DraftSpreads>,
}

/// A [`Draft`]'s spread constraints.
pub(super) struct DraftSpreads {
    pub(super) hard: Vec<DraftSpread>,
    pub(super) soft: Vec<DraftSpread>,
    /// The pod has constraints of its own (the system defaults apply otherwise).
    pub(super) explicit: bool,
}

impl Draft {
    pub(super) fn of(info: &PodInfo, cluster: &Cluster) -> Self {
        Draft {
            spreads: Self::spreads(info, cluster),
        }
    }

    fn spreads(info: &PodInfo, cluster: &Cluster) -> Option<DraftSpreads> {
        if !info.ports.is_empty() || has_pod_affinity(info) {
            return None;
        }
        let spec_constraints = info
            .spec()
            .topology_spread_constraints
            .as_deref()
            .unwrap_or_default();
        let hard = if spec_constraints.is_empty() {
            Vec::new()
        } else {
            filter_topology_spread_constraints(spec_constraints, info.labels(), DO_NOT_SCHEDULE)
                .ok()?
        };
        let soft = if spec_constraints.is_empty() {
            system_default_constraints(&default_selector(info, cluster), SCHEDULE_ANYWAY)
        } else {
            filter_topology_spread_constraints(spec_constraints, info.labels(), SCHEDULE_ANYWAY)
                .ok()?
        };
        let self_match = |cs: Vec<TopologySpreadConstraint>| -> Vec<DraftSpread> {
            cs.into_iter()
                .map(|c| DraftSpread {
                    self_match: c.selector.matches(info.labels()),
                    sel_key: selector_key(&info.namespace, &c.selector),
                    c,
                })
                .collect()
        };
        Some(DraftSpreads {
            hard: self_match(hard),
            soft: self_match(soft),
            explicit: !spec_constraints.is_empty(),
        })
    }
}

/// A spread constraint of a [`Draft`], with what is read of it ahead (with the class keys,
/// on every core): whether its selector matches the pod itself, and the selector's key.
pub(super) struct DraftSpread {
    pub(super) c: TopologySpreadConstraint,
    pub(super) self_match: bool,
    /// [`selector_key`] of the pod's namespace and the constraint's selector.
    pub(super) sel_key: u128,
}

/// The key [`Selectors`] finds a selector's counts by: its namespace and the selector.
pub(super) fn selector_key(namespace: &str, selector: &LabelSelector) -> u128 {
    let mut h = KeyHasher::new();
    h.str(namespace);
    std::hash::Hash::hash(selector, &mut h);
    h.finish()
}

/// A compiled spread constraint.
pub(super) struct Spread {
    pub(super) max_skew: i32,
    pub(super) min_domains: i32,
    pub(super) sel: u32,
    pub(super) dom: usize,
    pub(super) hostname: bool,
    /// Per node class: the node-inclusion policies admit it.
    pub(super) include: Arc<Vec<bool>>,
    /// Whether the pod matches its own selector.
    pub(super) self_match: bool,
    /// `nodeTaintsPolicy: Honor`: a node's taints decide whether it counts.
    pub(super) honor_taints: bool,
}

/// PodTopologySpread PreFilter for a class's hard constraints: the matching pods of each
/// domain into `run.dom_cnt[i]` (over the nodes with every hard key that the inclusion
/// policies admit), and each constraint's minimum ([`hard_minimums`]).
pub(super) fn hard_counts(run: &mut Run, class: &PodClass) -> [i64; MAX_SPREADS] {
    run.dom_cnt
        .resize(class.hard.len().max(class.soft.len()), Vec::new());
    for (i, s) in class.hard.iter().enumerate() {
        let d = &run.domains[s.dom];
        let cnt = &mut run.dom_cnt[i];
        cnt.clear();
        cnt.resize(d.count, 0);
        let sel = &run.sel.sels[s.sel as usize];
        if s.hostname {
            for &(n, k) in &sel.nonzero {
                let c = run.node_class[n] as usize;
                if class.hard_keys[c] && s.include[c] {
                    cnt[d.of_node[n] as usize] += i64::from(k);
                }
            }
        } else {
            // The key is a label of the node class: sums per class.
            for (c, &rep) in run.reps.iter().enumerate() {
                if class.hard_keys[c] && s.include[c] {
                    cnt[d.of_node[rep] as usize] += sel.class_count(c);
                }
            }
        }
    }
    hard_minimums(run, class)
}

/// Each hard constraint's minimum of `run.dom_cnt[i]` over its eligible domains (0 while
/// there are fewer than `minDomains` of them).
pub(super) fn hard_minimums(run: &Run, class: &PodClass) -> [i64; MAX_SPREADS] {
    let mut hard_min = [0i64; MAX_SPREADS];
    for (i, s) in class.hard.iter().enumerate() {
        let present = &class.hard_present[i];
        hard_min[i] = if (class.hard_domains[i] as i64) < i64::from(s.min_domains) {
            0
        } else {
            run.dom_cnt[i]
                .iter()
                .zip(present)
                .filter(|(_, p)| **p)
                .map(|(c, _)| *c)
                .min()
                .unwrap_or(i64::from(i32::MAX))
        };
    }
    hard_min
}

/// [`hard_failure`] once per node class into `ok`, for hard constraints on keys of the node
/// class (a class passes or fails as a whole).
pub(super) fn hard_ok_per_class(run: &Run, class: &PodClass, hard_min: &[i64], ok: &mut Vec<bool>) {
    ok.clear();
    ok.extend(
        run.reps
            .iter()
            .map(|&r| hard_failure(run, class, hard_min, r).is_none()),
    );
}

/// PodTopologySpread's Filter for a class with hard constraints on node `n` (`hard_min`: each
/// constraint's minimum over its eligible domains): `None` when it passes, else whether the
/// first failing constraint lacks the node's label (`true`) or is skewed too far (`false`).
pub(super) fn hard_failure(
    run: &Run,
    class: &PodClass,
    hard_min: &[i64],
    n: NodeId,
) -> Option<bool> {
    for (i, s) in class.hard.iter().enumerate() {
        let d = &run.domains[s.dom];
        if !d.has[n] {
            return Some(true);
        }
        let dom = d.of_node[n] as usize;
        let cnt = if class.hard_present[i][dom] {
            run.dom_cnt[i][dom]
        } else {
            0
        };
        if cnt + i64::from(s.self_match) - hard_min[i] > i64::from(s.max_skew) {
            return Some(false);
        }
    }
    None
}

/// PodTopologySpread PreScore for one soft constraint on a key other than the hostname: marks
/// in `present` the domains of the feasible, not ignored nodes, counts into `counts` the
/// matching pods of each present domain (over every node that has every key when required and
/// that the node-inclusion policies admit), and returns the constraint's weight.
fn soft_domain_counts(
    run: &Run,
    class: &PodClass,
    s: &Spread,
    feasible: &[NodeId],
    present: &mut Vec<bool>,
    counts: &mut Vec<i64>,
) -> f64 {
    let d = &run.domains[s.dom];
    present.clear();
    present.resize(d.count, false);
    for &n in feasible {
        if !class.spread_ignored(run.node_class[n]) {
            present[d.of_node[n] as usize] = true;
        }
    }
    by_class::zone_counts(run, class, s, present, counts)
}

/// PodTopologySpread NormalizeScore over raw scores in `feasible`'s order: ignored nodes 0,
/// every node 100 when the maximum is 0, else `100 * (max + min - score) / max`.
fn normalize_spread(
    out: &mut [i64],
    feasible: &[NodeId],
    ignored: impl Fn(NodeId) -> bool,
    min_score: i64,
    max_score: i64,
) {
    for (s, n) in out.iter_mut().zip(feasible) {
        if ignored(*n) {
            *s = 0;
        } else if max_score == 0 {
            *s = MAX_NODE_SCORE;
        } else {
            *s = MAX_NODE_SCORE * (max_score + min_score - *s) / max_score;
        }
    }
}

impl FastScheduler {
    /// PodTopologySpread PreScore + Score + NormalizeScore over `feasible`, into `out` (the
    /// shapes [`Self::select_by_class`] does not take: several constraints on the hostname or
    /// on other keys).
    pub(super) fn spread_scores(
        &self,
        run: &mut Run,
        class: &PodClass,
        feasible: &[NodeId],
        out: &mut Vec<i64>,
    ) {
        let not_ignored = feasible
            .iter()
            .filter(|n| !class.spread_ignored(run.node_class[**n]))
            .count();
        let mut weights = [0.0_f64; MAX_SPREADS];
        run.soft_present.resize(class.soft.len(), Vec::new());
        run.dom_cnt
            .resize(class.soft.len().max(run.dom_cnt.len()), Vec::new());
        for (i, s) in class.soft.iter().enumerate() {
            let mut counts = std::mem::take(&mut run.dom_cnt[i]);
            if s.hostname {
                weights[i] = topology_normalizing_weight(not_ignored);
                // Matching pods per node.
                counts.clear();
                counts.resize(run.node_class.len(), 0);
                for &(n, k) in &run.sel.sels[s.sel as usize].nonzero {
                    counts[n] = i64::from(k);
                }
            } else {
                let mut present = std::mem::take(&mut run.soft_present[i]);
                weights[i] = soft_domain_counts(run, class, s, feasible, &mut present, &mut counts);
                run.soft_present[i] = present;
            }
            run.dom_cnt[i] = counts;
        }
        let ignored = |n: NodeId| class.spread_ignored(run.node_class[n]);
        out.clear();
        let mut min_score = i64::MAX;
        let mut max_score = 0;
        for &n in feasible {
            if ignored(n) {
                out.push(-1);
                continue;
            }
            let mut total = 0.0_f64;
            for (i, s) in class.soft.iter().enumerate() {
                let d = &run.domains[s.dom];
                if !d.has[n] {
                    continue;
                }
                let c = if s.hostname {
                    run.dom_cnt[i][n]
                } else {
                    run.dom_cnt[i][d.of_node[n] as usize]
                };
                total += score_for_count(c, s.max_skew, weights[i]);
            }
            let s = total.round() as i64;
            min_score = min_score.min(s);
            max_score = max_score.max(s);
            out.push(s);
        }
        normalize_spread(out, feasible, ignored, min_score, max_score);
    }
}
