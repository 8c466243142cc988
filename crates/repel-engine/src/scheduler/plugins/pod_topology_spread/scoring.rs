//! PreScore, Score and NormalizeScore (upstream `scoring.go`, v1.35): soft constraints prefer
//! the nodes whose domains hold fewer matching pods.

use std::collections::{BTreeMap, BTreeSet};

use repel_core::FeatureGates;
use repel_core::affinity::RequiredNodeAffinity;
use repel_core::labels::LabelSelector;

use super::common::{
    LABEL_HOSTNAME, SCHEDULE_ANYWAY, TopologySpreadConstraint, count_pods_match_selector,
    filter_topology_spread_constraints, node_labels_match_spread_constraints,
    system_default_constraints,
};
use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::MAX_NODE_SCORE;

/// Upstream `preScoreStateKey`.
pub const PRE_SCORE_STATE_KEY: &str = "PreScorePodTopologySpread";
/// Upstream `invalidScore`.
const INVALID_SCORE: i64 = -1;

/// Upstream `preScoreState`.
#[derive(Debug, Clone)]
pub struct PreScoreState {
    /// The pod's `ScheduleAnyway` constraints (or the defaults).
    pub constraints: Vec<TopologySpreadConstraint>,
    /// Feasible nodes lacking some topology key: scored 0.
    pub ignored_nodes: BTreeSet<String>,
    /// Per constraint, matching pods per topology value of the feasible nodes (empty for
    /// `kubernetes.io/hostname`, counted per node at Score).
    pub topology_value_to_pod_counts: Vec<BTreeMap<String, i64>>,
    /// Per constraint, `ln(domains + 2)`.
    pub topology_normalizing_weight: Vec<f64>,
    /// The feasible nodes' names in the order PreScore got them, which is the order of the
    /// scores NormalizeScore receives (repel's NormalizeScore gets no node names).
    pub scored: Vec<String>,
}

/// Upstream `topologyNormalizingWeight`: `ln(size + 2)`.
pub fn topology_normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

/// Upstream `scoreForCount`: `cnt * weight + (maxSkew - 1)`.
pub fn score_for_count(cnt: i64, max_skew: i32, weight: f64) -> f64 {
    cnt as f64 * weight + f64::from(max_skew - 1)
}

/// Upstream `PodTopologySpread.PreScore` with `initPreScoreState` (v1.35). Returns `Ok(None)`
/// for Skip. `system_defaulted` is true for upstream's default profile; `default_selector` is
/// what `helper.DefaultSelector` found for the pod.
///
/// 1. No nodes in the cluster: Skip.
/// 2. The pod's `ScheduleAnyway` constraints; when it has no constraints at all, the system
///    defaults with `default_selector`. None: Skip.
/// 3. Nodes must carry every topology key unless the constraints are the system defaults
///    (`requireAllTopologies`); feasible nodes that do not are ignored (scored 0).
/// 4. Per non-hostname constraint, the domains of the other feasible nodes start at 0 and
///    their number sizes the weight; for hostname the size is the number of feasible nodes
///    not ignored. Weight: `ln(size + 2)`.
/// 5. Over every node of the cluster (with every key when required) that passes the
///    constraint's node-inclusion policies, matching pods are added to its domain if that
///    domain is one of the feasible nodes'.
pub fn pre_score(
    pod: &PodInfo,
    feasible: &[&NodeInfo],
    cluster: &Cluster,
    gates: &FeatureGates,
    system_defaulted: bool,
    default_selector: &LabelSelector,
) -> Result<Option<PreScoreState>, String> {
    if cluster.nodes.is_empty() {
        return Ok(None);
    }
    let spec_constraints = pod
        .spec()
        .topology_spread_constraints
        .as_deref()
        .unwrap_or_default();
    let constraints = if spec_constraints.is_empty() {
        system_default_constraints(default_selector, SCHEDULE_ANYWAY)
    } else {
        filter_topology_spread_constraints(spec_constraints, pod.labels(), SCHEDULE_ANYWAY)
            .map_err(|e| {
                format!("calculating preScoreState: obtaining pod's soft topology spread constraints: {e}")
            })?
    };
    if constraints.is_empty() {
        return Ok(None);
    }
    let require_all = !spec_constraints.is_empty() || !system_defaulted;
    let mut ignored_nodes = BTreeSet::new();
    let mut counts: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new(); constraints.len()];
    for node in feasible {
        if require_all && !node_labels_match_spread_constraints(&node.labels, &constraints) {
            ignored_nodes.insert(node.name.clone());
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if c.topology_key == LABEL_HOSTNAME {
                continue;
            }
            let value = node
                .labels
                .get(&c.topology_key)
                .cloned()
                .unwrap_or_default();
            counts[i].entry(value).or_insert(0);
        }
    }
    let topology_normalizing_weight = constraints
        .iter()
        .zip(&counts)
        .map(|(c, m)| {
            let size = if c.topology_key == LABEL_HOSTNAME {
                feasible.len().saturating_sub(ignored_nodes.len())
            } else {
                m.len()
            };
            topology_normalizing_weight(size)
        })
        .collect();
    let required = RequiredNodeAffinity::from_pod_spec(pod.spec());
    for node in &cluster.nodes {
        if require_all && !node_labels_match_spread_constraints(&node.labels, &constraints) {
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if !c.match_node_inclusion_policies(pod, node, &required, gates) {
                continue;
            }
            let value = node
                .labels
                .get(&c.topology_key)
                .cloned()
                .unwrap_or_default();
            if let Some(n) = counts[i].get_mut(&value) {
                *n += count_pods_match_selector(cluster, node, &c.selector, &pod.namespace);
            }
        }
    }
    Ok(Some(PreScoreState {
        constraints,
        ignored_nodes,
        topology_value_to_pod_counts: counts,
        topology_normalizing_weight,
        scored: feasible.iter().map(|n| n.name.clone()).collect(),
    }))
}

/// Upstream `PodTopologySpread.Score` (v1.35):
///
/// 1. An ignored node scores 0.
/// 2. For each constraint whose key the node has: the matching pods of its domain (for
///    `kubernetes.io/hostname`, counted on the node itself) times the constraint's weight,
///    plus `maxSkew - 1`.
/// 3. The sum, rounded half away from zero.
pub fn score(state: &PreScoreState, pod: &PodInfo, node: &NodeInfo, cluster: &Cluster) -> i64 {
    if state.ignored_nodes.contains(&node.name) {
        return 0;
    }
    let mut total = 0.0_f64;
    for (i, c) in state.constraints.iter().enumerate() {
        let Some(tp_val) = node.labels.get(&c.topology_key) else {
            continue;
        };
        let cnt = if c.topology_key == LABEL_HOSTNAME {
            count_pods_match_selector(cluster, node, &c.selector, &pod.namespace)
        } else {
            state
                .topology_value_to_pod_counts
                .get(i)
                .and_then(|m| m.get(tp_val))
                .copied()
                .unwrap_or(0)
        };
        let weight = state
            .topology_normalizing_weight
            .get(i)
            .copied()
            .unwrap_or(0.0);
        total += score_for_count(cnt, c.max_skew, weight);
    }
    total.round() as i64
}

/// Upstream `PodTopologySpread.NormalizeScore` (v1.35), `scores` in PreScore's node order:
///
/// 1. Ignored nodes get 0 and take no part in the minimum and maximum.
/// 2. When the maximum is 0, every other node gets 100.
/// 3. Otherwise `100 * (max + min - score) / max`, integer division.
pub fn normalize_score(state: &PreScoreState, scores: &mut [i64]) {
    let ignored = |i: usize| {
        state
            .scored
            .get(i)
            .is_some_and(|n| state.ignored_nodes.contains(n))
    };
    let mut min_score = i64::MAX;
    let mut max_score = 0;
    for (i, s) in scores.iter_mut().enumerate() {
        if ignored(i) {
            *s = INVALID_SCORE;
            continue;
        }
        min_score = min_score.min(*s);
        max_score = max_score.max(*s);
    }
    for s in scores.iter_mut() {
        if *s == INVALID_SCORE {
            *s = 0;
        } else if max_score == 0 {
            *s = MAX_NODE_SCORE;
        } else {
            *s = MAX_NODE_SCORE * (max_score + min_score - *s) / max_score;
        }
    }
}
