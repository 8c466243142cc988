//! Scoring per node class, and the repeat path for a pod like the one before it.
//!
//! [`FastScheduler::select_by_class`] scores a by-class pod whose soft spread constraints are
//! at most one on the hostname and one on another key (the usual shape: the system defaults
//! are hostname + zone). All but the resource scores are the same for every node of a node
//! class — the taint and affinity scores by construction, the other spread key because it is
//! one of the labels that define the class — except the hostname term of a node holding
//! matching pods. So those scores are computed once per class (`scores::class_scores`), and per node
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
//!
//! # Layout
//! - [`buckets`]: the repeat path's groups of feasible nodes by resource score.
//! - [`scores`]: the scores per node class and [`FastScheduler::select_by_class`].
//! - [`fresh_slots`]: a fresh chain's entries per node and summaries per node class.
//! - [`repeat`]: starting and continuing a chain ([`FastScheduler::compiled_repeat`]).

use super::*;

mod buckets;
mod fresh_slots;
mod repeat;
mod scores;

pub(super) use buckets::*;
pub(super) use fresh_slots::*;
pub(super) use scores::*;

/// The resource scores' range: LeastAllocated and BalancedAllocation, each 0..=100, weighted.
pub(super) const RESOURCE_MAX: i64 =
    MAX_NODE_SCORE * (node_resources_fit::WEIGHT + balanced_allocation::WEIGHT);

/// Lists per group: one per resource score.
const WIDTH: usize = RESOURCE_MAX as usize + 1;

/// No group.
const NO_GROUP: u32 = u32::MAX;

/// A node that does not fit, in [`ScoreCache::slots`].
pub(super) const NO_FIT: u32 = u32::MAX - 1;

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
