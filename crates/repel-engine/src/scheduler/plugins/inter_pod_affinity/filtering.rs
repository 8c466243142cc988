//! InterPodAffinity's PreFilter, its add/remove extensions and Filter (upstream
//! `interpodaffinity/filtering.go`, v1.35).

use std::collections::HashMap;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, PreFilterResult, Status, pods_on};

use super::terms::{AffinityTerm, PodTerms, matches_all};
use super::{
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, NAME,
};

/// Upstream `preFilterStateKey`.
pub(super) const PRE_FILTER_STATE_KEY: &str = "PreFilterInterPodAffinity";

/// Upstream `topologyToMatchedTermCount`: `(topology key, value)` to a count.
pub(super) type Counts = HashMap<(String, String), i64>;

/// Upstream `preFilterState`, computed at PreFilter and read at Filter.
#[derive(Debug, Clone, Default)]
pub(super) struct PreFilterState {
    /// Topology pairs to the number of existing pods whose required anti-affinity terms match
    /// the incoming pod.
    pub existing_anti_affinity_counts: Counts,
    /// Topology pairs to the number of existing pods matching all the incoming pod's required
    /// affinity terms (counted once per term).
    pub affinity_counts: Counts,
    /// Topology pairs to the number of existing pods matching each required anti-affinity term
    /// of the incoming pod.
    pub anti_affinity_counts: Counts,
    /// The incoming pod's required affinity terms.
    required_affinity: Vec<AffinityTerm>,
    /// The incoming pod's required anti-affinity terms.
    required_anti_affinity: Vec<AffinityTerm>,
    /// Whether the incoming pod matches all its own required affinity terms.
    matches_own_affinity: bool,
}

/// Upstream `topologyToMatchedTermCount.update`: adds `value` to the node's pair for `key`
/// (when the node has that label), dropping a count that falls to zero.
fn update(counts: &mut Counts, node: &NodeInfo, key: &str, value: i64) {
    if let Some(v) = node.labels.get(key) {
        let pair = (key.to_string(), v.clone());
        let c = counts.entry(pair.clone()).or_insert(0);
        *c += value;
        if *c == 0 {
            counts.remove(&pair);
        }
    }
}

/// Upstream `updateWithAffinityTerms`: when `pod` matches all `terms`, every term's pair.
fn update_affinity(
    counts: &mut Counts,
    terms: &[AffinityTerm],
    pod: &PodInfo,
    node: &NodeInfo,
    value: i64,
    cluster: &Cluster,
) {
    if matches_all(terms, pod, cluster) {
        for t in terms {
            update(counts, node, &t.topology_key, value);
        }
    }
}

/// Upstream `updateWithAntiAffinityTerms`: the pair of every term `pod` matches.
fn update_anti_affinity(
    counts: &mut Counts,
    terms: &[AffinityTerm],
    pod: &PodInfo,
    node: &NodeInfo,
    value: i64,
    cluster: &Cluster,
) {
    for t in terms.iter().filter(|t| t.matches(pod, cluster)) {
        update(counts, node, &t.topology_key, value);
    }
}

/// Upstream `InterPodAffinity.PreFilter` (v1.35):
///
/// 1. The incoming pod's terms are parsed; a selector that fails rejects the pod as
///    UnschedulableAndUnresolvable with "parsing pod: <errors>".
/// 2. Existing anti-affinity counts: for every pod on every node, each of its required
///    anti-affinity terms that matches the incoming pod counts the node's pair for the term's
///    topology key (existing pods' namespace selectors see the incoming pod's namespace labels).
/// 3. Affinity counts: every existing pod matching all the incoming pod's required affinity
///    terms counts its node's pair for each term; anti-affinity counts: every existing pod
///    counts its node's pair for each required anti-affinity term it matches.
/// 4. Skip when there are no existing anti-affinity counts and the pod has no required terms.
pub(super) fn pre_filter(
    state: &mut CycleState,
    pod: &PodInfo,
    cluster: &Cluster,
) -> (Status, PreFilterResult) {
    let (terms, err) = PodTerms::parse(pod);
    if let Some(err) = err {
        return (
            Status::unresolvable(NAME, &format!("parsing pod: {err}")),
            None,
        );
    }
    let mut s = PreFilterState {
        matches_own_affinity: matches_all(&terms.required_affinity, pod, cluster),
        required_affinity: terms.required_affinity,
        required_anti_affinity: terms.required_anti_affinity,
        ..PreFilterState::default()
    };
    let incoming = !s.required_affinity.is_empty() || !s.required_anti_affinity.is_empty();
    for node in &cluster.nodes {
        // The node's pods with required anti-affinity terms matching this pod.
        for existing in node
            .pods_with_required_anti_affinity
            .iter()
            .filter_map(|id| cluster.pods.get(*id))
        {
            let existing_terms = PodTerms::parse(existing).0;
            update_anti_affinity(
                &mut s.existing_anti_affinity_counts,
                &existing_terms.required_anti_affinity,
                pod,
                node,
                1,
                cluster,
            );
        }
        if !incoming {
            continue;
        }
        for (_, existing) in pods_on(cluster, node) {
            update_affinity(
                &mut s.affinity_counts,
                &s.required_affinity,
                existing,
                node,
                1,
                cluster,
            );
            update_anti_affinity(
                &mut s.anti_affinity_counts,
                &s.required_anti_affinity,
                existing,
                node,
                1,
                cluster,
            );
        }
    }
    if s.existing_anti_affinity_counts.is_empty() && !incoming {
        return (Status::skip(), None);
    }
    state.write(PRE_FILTER_STATE_KEY, s);
    (Status::success(), None)
}

/// Upstream `preFilterState.updateWithPod` (v1.35), for AddPod (`multiplier` 1) and RemovePod
/// (-1); does nothing when PreFilter skipped:
///
/// 1. Each required anti-affinity term of `other` matching the incoming pod updates the
///    existing anti-affinity counts.
/// 2. When `other` matches all the incoming pod's required affinity terms, each term updates
///    the affinity counts.
/// 3. Each required anti-affinity term of the incoming pod matching `other` updates the
///    anti-affinity counts.
pub(super) fn update_with_pod(
    state: &mut CycleState,
    pod: &PodInfo,
    other: &PodInfo,
    node: &NodeInfo,
    multiplier: i64,
    cluster: &Cluster,
) {
    let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_STATE_KEY) else {
        return;
    };
    let other_terms = PodTerms::parse(other).0;
    update_anti_affinity(
        &mut s.existing_anti_affinity_counts,
        &other_terms.required_anti_affinity,
        pod,
        node,
        multiplier,
        cluster,
    );
    let PreFilterState {
        affinity_counts,
        anti_affinity_counts,
        required_affinity,
        required_anti_affinity,
        ..
    } = s;
    update_affinity(
        affinity_counts,
        required_affinity,
        other,
        node,
        multiplier,
        cluster,
    );
    update_anti_affinity(
        anti_affinity_counts,
        required_anti_affinity,
        other,
        node,
        multiplier,
        cluster,
    );
}

/// Upstream `satisfyExistingPodsAntiAffinity`: no pair of the node's labels is counted.
fn satisfies_existing_pods_anti_affinity(s: &PreFilterState, node: &NodeInfo) -> bool {
    s.existing_anti_affinity_counts.is_empty()
        || !node.labels.iter().any(|(k, v)| {
            s.existing_anti_affinity_counts
                .get(&(k.clone(), v.clone()))
                .is_some_and(|c| *c > 0)
        })
}

/// Upstream `satisfyPodAntiAffinity`: no term's pair on this node is counted.
fn satisfies_pod_anti_affinity(s: &PreFilterState, node: &NodeInfo) -> bool {
    s.anti_affinity_counts.is_empty()
        || !s.required_anti_affinity.iter().any(|t| {
            node.labels.get(&t.topology_key).is_some_and(|v| {
                s.anti_affinity_counts
                    .get(&(t.topology_key.clone(), v.clone()))
                    .is_some_and(|c| *c > 0)
            })
        })
}

/// Upstream `satisfyPodAffinity` (v1.35):
///
/// 1. The node carries every term's topology key, else it fails.
/// 2. Every term's pair on this node has a matching pod, or
/// 3. no pod anywhere matches the terms (no counts at all) and the pod matches all its own
///    terms: the first pod of a group that has affinity to itself.
fn satisfies_pod_affinity(s: &PreFilterState, node: &NodeInfo) -> bool {
    let mut pods_exist = true;
    for t in &s.required_affinity {
        let Some(v) = node.labels.get(&t.topology_key) else {
            return false;
        };
        let count = s
            .affinity_counts
            .get(&(t.topology_key.clone(), v.clone()))
            .copied()
            .unwrap_or(0);
        if count <= 0 {
            pods_exist = false;
        }
    }
    pods_exist || (s.affinity_counts.is_empty() && s.matches_own_affinity)
}

/// Upstream `InterPodAffinity.Filter` (v1.35), in order:
///
/// 1. The incoming pod's required affinity: UnschedulableAndUnresolvable, "node(s) didn't match
///    pod affinity rules".
/// 2. Its required anti-affinity: Unschedulable, "node(s) didn't match pod anti-affinity rules".
/// 3. Existing pods' required anti-affinity: Unschedulable, "node(s) didn't satisfy existing
///    pods anti-affinity rules".
///
/// Without PreFilter's state it is an error, as upstream.
pub(super) fn filter(state: &CycleState, node: &NodeInfo) -> Status {
    let Some(s) = state.read::<PreFilterState>(PRE_FILTER_STATE_KEY) else {
        return Status::error(
            NAME,
            format!("error reading {PRE_FILTER_STATE_KEY:?} from cycleState: not found"),
        );
    };
    if !satisfies_pod_affinity(s, node) {
        return Status::unresolvable(NAME, ERR_REASON_AFFINITY_RULES_NOT_MATCH);
    }
    if !satisfies_pod_anti_affinity(s, node) {
        return Status::unschedulable(NAME, vec![ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH.into()]);
    }
    if !satisfies_existing_pods_anti_affinity(s, node) {
        return Status::unschedulable(
            NAME,
            vec![ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH.into()],
        );
    }
    Status::success()
}
