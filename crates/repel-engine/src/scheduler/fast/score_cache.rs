//! Resource scores and their caches (upstream `plugins/noderesources/least_allocated.go`
//! and `balanced_allocation.go`, as `framework/runtime` adds their weighted, normalized
//! scores, v1.35).
//!
//! The resource scores of a request (LeastAllocated + BalancedAllocation over cpu and memory,
//! [`resource_scores`]) depend on the request ([`ScoreKey`]) and the node's figures alone, so
//! they are kept per node in a [`ScoreCache`] per distinct request and brought up to date from
//! the run's change log ([`Run::scores`]) instead of being computed anew for every pod.

use super::*;

/// A resource score not computed yet.
pub(super) const UNKNOWN: i64 = i64::MIN;

/// A [`ScoreCache::slots`] entry not computed yet.
pub(super) const UNKNOWN_SLOT: u32 = u32::MAX;

/// Resource-score caches found by a scan (more are found through an index).
const SCORE_CACHES: usize = 8;

/// How many resource-score caches are kept at once, one per distinct request recently
/// scheduled: as many as fit in 64 MiB, between [`SCORE_CACHES`] and 4,096. Clusters have
/// hundreds of distinct requests, queued in no order (the generated 5,000-node cluster has
/// 209 among 33,000 pod classes); a request met again brings its cache up to date from the
/// nodes changed since (at most all of them) instead of scoring every node anew.
pub(super) fn max_caches(nodes: usize) -> usize {
    // A score (8 bytes) and a fresh chain's list (4: `ScoreCache::slots`) per node.
    ((64 << 20) / (12 * nodes.max(1))).clamp(SCORE_CACHES, 4096)
}

/// The resource scorers' requests of a spec ([`ScoreKey`]).
pub(super) fn score_key_of(spec: &PodSpec) -> Option<ScoreKey> {
    let la = pod_score_requests(spec, &[CPU, MEMORY], false);
    let ba = pod_score_requests(spec, &[CPU, MEMORY], true);
    let la_req = (la.first().copied()?, la.get(1).copied()?);
    let ba_req = (ba.first().copied()?, ba.get(1).copied()?);
    let ba_req = (ba_req != (0, 0)).then_some(ba_req);
    Some((la_req, ba_req))
}

/// What the resource scores depend on: LeastAllocated's request and BalancedAllocation's
/// (`None` for a BestEffort pod, which it skips).
pub(super) type ScoreKey = ((i64, i64), Option<(i64, i64)>);

/// LeastAllocated + BalancedAllocation per node for one request, synced to the change log.
pub(super) struct ScoreCache {
    key: ScoreKey,
    pub(super) scores: Vec<i64>,
    /// A fresh chain's entries per node and summaries per node class
    /// ([`by_class::FreshSlots`]); forgotten with the scores.
    pub(super) fresh: by_class::FreshSlots,
    pub(super) synced: usize,
    epoch: u64,
    used: u64,
}

/// Upstream `leastRequestedScore`, in 64-bit arithmetic when it cannot overflow (the
/// plugin's 128-bit division otherwise).
fn least_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    match (capacity - requested).checked_mul(MAX_NODE_SCORE) {
        Some(x) => x / capacity,
        None => node_resources_fit::least_requested_score(requested, capacity),
    }
}

/// NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), as
/// `resource_allocation_score` + `least_resource_score` compute it.
pub(super) fn least_allocated(r: &NodeRes, cpu: i64, mem: i64) -> i64 {
    let mut score = 0;
    let mut weights = 0;
    if r.alloc_cpu != 0 {
        score += least_requested(r.nz_cpu.saturating_add(cpu), r.alloc_cpu);
        weights += 1;
    }
    if r.alloc_mem != 0 {
        score += least_requested(r.nz_mem.saturating_add(mem), r.alloc_mem);
        weights += 1;
    }
    if weights == 0 { 0 } else { score / weights }
}

/// NodeResourcesBalancedAllocation's score over cpu and memory, as `balanced_resource_score`
/// computes it for at most two fractions.
pub(super) fn balanced(r: &NodeRes, cpu: i64, mem: i64) -> i64 {
    let mut f = [0.0_f64; 2];
    let mut k = 0;
    if r.alloc_cpu != 0 {
        f[k] = (r.req_cpu.saturating_add(cpu) as f64 / r.alloc_cpu as f64).min(1.0);
        k += 1;
    }
    if r.alloc_mem != 0 {
        f[k] = (r.req_mem.saturating_add(mem) as f64 / r.alloc_mem as f64).min(1.0);
        k += 1;
    }
    let std = if k == 2 {
        ((f[0] - f[1]) / 2.0).abs()
    } else {
        0.0
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// The two resource scores of a node for `key`, weighted and clamped as the profile adds them.
pub(super) fn resource_scores(r: &NodeRes, key: &ScoreKey) -> i64 {
    let ((cpu, mem), ba) = *key;
    let mut s = least_allocated(r, cpu, mem).clamp(0, MAX_NODE_SCORE) * node_resources_fit::WEIGHT;
    if let Some((cpu, mem)) = ba {
        s += balanced(r, cpu, mem).clamp(0, MAX_NODE_SCORE) * balanced_allocation::WEIGHT;
    }
    s
}

/// `DefaultNormalizeScore` of one raw score given the maximum, as the profile adds it
/// (clamped, weighted).
pub(super) fn normalized(raw: i64, max: i64, reverse: bool, weight: i64) -> i64 {
    let s = if max == 0 {
        if reverse { MAX_NODE_SCORE } else { raw }
    } else {
        let scaled = MAX_NODE_SCORE * raw / max;
        if reverse {
            MAX_NODE_SCORE - scaled
        } else {
            scaled
        }
    };
    s.clamp(0, MAX_NODE_SCORE) * weight
}

impl Run {
    /// The resource scores of every node for `key`, brought up to date. Returns the cache's
    /// index.
    pub(super) fn scores(&mut self, key: &ScoreKey) -> usize {
        self.tick += 1;
        let n = self.res.len();
        let found = if self.caches.len() <= SCORE_CACHES {
            self.caches.iter().position(|c| c.key == *key)
        } else {
            self.cache_index.get(key).copied()
        };
        let i = match found {
            Some(i) => i,
            None => {
                // A new key takes a free slot, else the least recently used one's (and its
                // buffer: there are thousands of distinct requests). Either is filled below.
                let new = |scores, fresh| ScoreCache {
                    key: *key,
                    scores,
                    fresh,
                    synced: 0,
                    epoch: u64::MAX,
                    used: 0,
                };
                let i = if self.caches.len() < self.max_caches {
                    self.caches
                        .push(new(vec![UNKNOWN; n], by_class::FreshSlots::default()));
                    if self.caches.len() > SCORE_CACHES && self.cache_index.is_empty() {
                        // Past a handful, found by key instead of by a scan.
                        for (i, c) in self.caches.iter().enumerate() {
                            self.cache_index.insert(c.key, i);
                        }
                    }
                    self.caches.len() - 1
                } else {
                    let lru = self
                        .caches
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, c)| c.used)
                        .map_or(0, |(i, _)| i);
                    let mut scores = std::mem::take(&mut self.caches[lru].scores);
                    scores.resize(n, UNKNOWN);
                    let mut fresh = std::mem::take(&mut self.caches[lru].fresh);
                    fresh.forget_all();
                    self.cache_index.remove(&self.caches[lru].key);
                    self.caches[lru] = new(scores, fresh);
                    lru
                };
                if self.caches.len() > SCORE_CACHES {
                    self.cache_index.insert(*key, i);
                }
                i
            }
        };
        let c = &mut self.caches[i];
        c.used = self.tick;
        if c.epoch != self.epoch || self.log.len().saturating_sub(c.synced) > n {
            c.scores.iter_mut().for_each(|s| *s = UNKNOWN);
            c.fresh.forget_all();
            c.epoch = self.epoch;
        } else {
            for &node in &self.log[c.synced..] {
                let (Some(score), Some(&class)) =
                    (c.scores.get_mut(node), self.node_class.get(node))
                else {
                    continue;
                };
                *score = UNKNOWN;
                c.fresh.changed(node, class);
            }
        }
        c.synced = self.log.len();
        i
    }
}
