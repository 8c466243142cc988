//! Upstream `pickOneNodeForPreemption` (v1.35): the best of the candidates.

use super::Candidate;
use crate::cluster::{Cluster, PodInfo};

/// Upstream `pickOneNodeForPreemption` (v1.35): the index of the best candidate. Each criterion
/// keeps the best-scoring candidates; the first that leaves one decides:
///
/// 1. Fewest PDB violations.
/// 2. Lowest priority of the most important victim.
/// 3. Smallest sum of victim priorities, each offset by `MaxInt32 + 1` so that more pods never
///    sum lower.
/// 4. Fewest victims.
/// 5. Latest start of the earliest-started victim among those of the highest priority.
/// 6. The first remaining (upstream: the first in map order; here: candidate order).
pub fn pick_one_node_for_preemption(cluster: &Cluster, candidates: &[Candidate]) -> Option<usize> {
    let victims = |c: &Candidate| -> Vec<&PodInfo> {
        c.victims
            .iter()
            .filter_map(|id| cluster.pods.get(*id))
            .collect()
    };
    let score_fns: [&dyn Fn(&Candidate) -> i64; 5] = [
        &|c| -(c.num_pdb_violations as i64),
        &|c| -victims(c).first().map_or(0, |p| i64::from(p.priority)),
        &|c| {
            -victims(c)
                .iter()
                .map(|p| i64::from(p.priority) + i64::from(i32::MAX) + 1)
                .sum::<i64>()
        },
        &|c| -(c.victims.len() as i64),
        &|c| earliest_start_of_highest(&victims(c)).map_or(i64::MIN, |s| s as i64),
    ];
    let mut remaining: Vec<usize> = (0..candidates.len()).collect();
    for f in score_fns {
        let scores: Vec<i64> = remaining.iter().map(|i| f(&candidates[*i])).collect();
        let best = scores.iter().copied().max()?;
        remaining = remaining
            .iter()
            .zip(&scores)
            .filter(|(_, s)| **s == best)
            .map(|(i, _)| *i)
            .collect();
        if remaining.len() == 1 {
            break;
        }
    }
    remaining.first().copied()
}

/// Upstream `util.GetEarliestPodStartTime`: the earliest start among the victims of the highest
/// priority (start = [`PodInfo::seq`]).
fn earliest_start_of_highest(victims: &[&PodInfo]) -> Option<usize> {
    let top = victims.iter().map(|p| p.priority).max()?;
    victims
        .iter()
        .filter(|p| p.priority == top)
        .map(|p| p.seq)
        .min()
}
