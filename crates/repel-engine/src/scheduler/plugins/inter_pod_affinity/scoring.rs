//! InterPodAffinity's PreScore, Score and NormalizeScore (upstream
//! `interpodaffinity/scoring.go`, v1.35).

use std::collections::HashMap;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, MAX_NODE_SCORE, Status, pods_on};

use super::NAME;
use super::terms::{AffinityTerm, PodTerms, WeightedAffinityTerm};

/// Upstream `preScoreStateKey`.
pub(super) const PRE_SCORE_STATE_KEY: &str = "PreScoreInterPodAffinity";

/// Upstream `scoreMap`: topology key to value to summed weight.
type ScoreMap = HashMap<String, HashMap<String, i64>>;

/// Upstream `preScoreState`.
#[derive(Debug, Clone, Default)]
pub(super) struct PreScoreState {
    /// The summed weights per topology pair.
    pub topology_score: ScoreMap,
}

/// Upstream `scoreMap.processTerm`: when `term` matches `pod` and `node` has the term's
/// topology key, adds `weight * multiplier` to that pair (int32 arithmetic, as upstream).
fn process_term(
    m: &mut ScoreMap,
    term: &AffinityTerm,
    weight: i32,
    pod: &PodInfo,
    node: &NodeInfo,
    multiplier: i32,
    cluster: &Cluster,
) {
    if term.matches(pod, cluster)
        && let Some(v) = node.labels.get(&term.topology_key)
    {
        *m.entry(term.topology_key.clone())
            .or_default()
            .entry(v.clone())
            .or_insert(0) += i64::from(weight.wrapping_mul(multiplier));
    }
}

/// Upstream `scoreMap.processTerms`.
fn process_terms(
    m: &mut ScoreMap,
    terms: &[WeightedAffinityTerm],
    pod: &PodInfo,
    node: &NodeInfo,
    multiplier: i32,
    cluster: &Cluster,
) {
    for t in terms {
        process_term(m, &t.term, t.weight, pod, node, multiplier, cluster);
    }
}

/// Upstream `InterPodAffinity.processExistingPod` (v1.35): nothing when the existing pod's node
/// has no labels; otherwise, on the existing pod's node's pairs,
///
/// 1. `+weight` for each preferred affinity term of the incoming pod the existing pod matches;
/// 2. `-weight` for each preferred anti-affinity term of the incoming pod it matches;
/// 3. `+hardPodAffinityWeight` (when above 0) for each required affinity term of the existing
///    pod the incoming pod matches;
/// 4. `+weight` for each preferred affinity term of the existing pod the incoming pod matches;
/// 5. `-weight` for each preferred anti-affinity term of the existing pod it matches.
fn process_existing_pod(
    m: &mut ScoreMap,
    incoming_terms: &PodTerms,
    existing: &PodInfo,
    node: &NodeInfo,
    incoming: &PodInfo,
    hard_pod_affinity_weight: i32,
    cluster: &Cluster,
) {
    if node.labels.is_empty() {
        return;
    }
    process_terms(
        m,
        &incoming_terms.preferred_affinity,
        existing,
        node,
        1,
        cluster,
    );
    process_terms(
        m,
        &incoming_terms.preferred_anti_affinity,
        existing,
        node,
        -1,
        cluster,
    );
    if !has_pod_affinity(existing) {
        return;
    }
    let existing_terms = PodTerms::parse(existing).0;
    if hard_pod_affinity_weight > 0 {
        for t in &existing_terms.required_affinity {
            process_term(m, t, hard_pod_affinity_weight, incoming, node, 1, cluster);
        }
    }
    process_terms(
        m,
        &existing_terms.preferred_affinity,
        incoming,
        node,
        1,
        cluster,
    );
    process_terms(
        m,
        &existing_terms.preferred_anti_affinity,
        incoming,
        node,
        -1,
        cluster,
    );
}

/// Upstream `podWithAffinity`: the pod has pod affinity or pod anti-affinity.
fn has_pod_affinity(pod: &PodInfo) -> bool {
    pod.spec()
        .affinity
        .as_ref()
        .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
}

/// Upstream `InterPodAffinity.PreScore` (v1.35):
///
/// 1. With `ignorePreferredTermsOfExistingPods` and no preferred terms on the incoming pod: Skip.
/// 2. The incoming pod's terms are parsed; a failure is an error ("failed to parse pod: ...").
/// 3. Every existing pod on every node of the cluster (not only the feasible ones) is processed
///    by `processExistingPod`.
/// 4. Skip when no node contributed anything.
pub(super) fn pre_score(
    state: &mut CycleState,
    pod: &PodInfo,
    cluster: &Cluster,
    hard_pod_affinity_weight: i32,
    ignore_preferred_terms_of_existing_pods: bool,
) -> Status {
    let affinity = pod.spec().affinity.as_ref();
    let has_preferred_affinity = affinity
        .and_then(|a| a.pod_affinity.as_ref())
        .and_then(|a| {
            a.preferred_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .is_some_and(|t| !t.is_empty());
    let has_preferred_anti_affinity = affinity
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| {
            a.preferred_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .is_some_and(|t| !t.is_empty());
    let has_constraints = has_preferred_affinity || has_preferred_anti_affinity;
    if ignore_preferred_terms_of_existing_pods && !has_constraints {
        return Status::skip();
    }
    let (terms, err) = PodTerms::parse(pod);
    if let Some(err) = err {
        return Status::error(NAME, format!("failed to parse pod: {err}"));
    }
    let mut topology_score = ScoreMap::new();
    for node in &cluster.nodes {
        for (_, existing) in pods_on(cluster, node) {
            // Without preferred terms of its own, the incoming pod only meets pods with affinity.
            if has_constraints || has_pod_affinity(existing) {
                process_existing_pod(
                    &mut topology_score,
                    &terms,
                    existing,
                    node,
                    pod,
                    hard_pod_affinity_weight,
                    cluster,
                );
            }
        }
    }
    if topology_score.is_empty() {
        return Status::skip();
    }
    state.write(PRE_SCORE_STATE_KEY, PreScoreState { topology_score });
    Status::success()
}

/// Upstream `InterPodAffinity.Score` (v1.35): the sum of the weights of the pairs the node
/// carries; positive for affinity, negative for anti-affinity.
pub(super) fn score(state: &CycleState, node: &NodeInfo) -> Result<i64, Status> {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return Err(Status::error(
            NAME,
            format!("failed to read {PRE_SCORE_STATE_KEY:?} from cycleState: not found"),
        ));
    };
    Ok(s.topology_score
        .iter()
        .filter_map(|(k, values)| {
            node.labels
                .get(k)
                .map(|v| values.get(v).copied().unwrap_or(0))
        })
        .sum())
}

/// Upstream `InterPodAffinity.NormalizeScore` (v1.35):
///
/// 1. Nothing to do without topology scores.
/// 2. Over the scored nodes, `min` and `max` of the raw scores.
/// 3. Each score becomes `int64(float64(MaxNodeScore) * (float64(score-min) / float64(max-min)))`
///    (truncated), or 0 when `max == min`.
pub(super) fn normalize_score(state: &CycleState, scores: &mut [i64]) {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return;
    };
    if s.topology_score.is_empty() {
        return;
    }
    let min = scores.iter().copied().min().unwrap_or(i64::MAX);
    let max = scores.iter().copied().max().unwrap_or(i64::MIN);
    let diff = max.wrapping_sub(min);
    for score in scores.iter_mut() {
        let f = if diff > 0 {
            MAX_NODE_SCORE as f64 * ((*score - min) as f64 / diff as f64)
        } else {
            0.0
        };
        *score = f as i64;
    }
}
