//! PreFilter, its extensions and Filter (upstream `filtering.go`, v1.35): per hard constraint,
//! how many matching pods each topology domain holds, and the skew a placement would cause.

use std::collections::BTreeMap;

use repel_core::FeatureGates;
use repel_core::affinity::RequiredNodeAffinity;

use super::common::{
    DO_NOT_SCHEDULE, TopologySpreadConstraint, count_pods_match_selector,
    filter_topology_spread_constraints, node_labels_match_spread_constraints,
};
use super::{ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, NAME};
use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::Status;

/// Upstream `preFilterStateKey`.
pub const PRE_FILTER_STATE_KEY: &str = "PreFilterPodTopologySpread";

/// `math.MaxInt32`: the match number of a critical path not yet set.
const UNSET_MATCH_NUM: i64 = i32::MAX as i64;

/// One critical path: a topology value and its number of matching pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CriticalPath {
    /// The topology value (domain).
    pub topology_value: String,
    /// Its matching pods.
    pub match_num: i64,
}

/// Upstream `criticalPaths`: two domains with few matching pods; `[0]` always holds the
/// minimum, `[1]` is at least as large (not necessarily the second minimum).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CriticalPaths(pub [CriticalPath; 2]);

impl Default for CriticalPaths {
    /// Upstream `newCriticalPaths`: both unset (`MaxInt32`).
    fn default() -> Self {
        let unset = CriticalPath {
            topology_value: String::new(),
            match_num: UNSET_MATCH_NUM,
        };
        CriticalPaths([unset.clone(), unset])
    }
}

impl CriticalPaths {
    /// Upstream `criticalPaths.update` (v1.35):
    ///
    /// 1. A value already held gets its new count; the two swap if `[0]` is now larger.
    /// 2. Otherwise a count below `[0]`'s pushes `[0]` to `[1]` and takes `[0]`.
    /// 3. Otherwise a count below `[1]`'s replaces `[1]`.
    pub fn update(&mut self, tp_val: &str, num: i64) {
        let p = &mut self.0;
        let held = if tp_val == p[0].topology_value {
            Some(0)
        } else if tp_val == p[1].topology_value {
            Some(1)
        } else {
            None
        };
        match held {
            Some(i) => {
                p[i].match_num = num;
                if p[0].match_num > p[1].match_num {
                    p.swap(0, 1);
                }
            }
            None if num < p[0].match_num => {
                p[1] = p[0].clone();
                p[0] = CriticalPath {
                    topology_value: tp_val.to_string(),
                    match_num: num,
                };
            }
            None if num < p[1].match_num => {
                p[1] = CriticalPath {
                    topology_value: tp_val.to_string(),
                    match_num: num,
                };
            }
            None => {}
        }
    }
}

/// Upstream `preFilterState`: the hard constraints and, per constraint, the matching pods of
/// every eligible domain and its critical paths. Cloned per node when preemption tries one.
#[derive(Debug, Clone)]
pub struct PreFilterState {
    /// The pod's `DoNotSchedule` constraints.
    pub constraints: Vec<TopologySpreadConstraint>,
    /// Per constraint, the two domains with the fewest matching pods.
    pub critical_paths: Vec<CriticalPaths>,
    /// Per constraint, matching pods per topology value (eligible domains only).
    pub tp_value_to_match_num: Vec<BTreeMap<String, i64>>,
    /// The pod's nodeSelector and required node affinity.
    required: RequiredNodeAffinity,
}

impl PreFilterState {
    /// Upstream `preFilterState.minMatchNum`: the global minimum of constraint `i`, 0 when fewer
    /// domains than `minDomains` are eligible.
    pub fn min_match_num(&self, i: usize, min_domains: i32) -> i64 {
        let domains = self.tp_value_to_match_num.get(i).map_or(0, BTreeMap::len);
        if (domains as i64) < i64::from(min_domains) {
            return 0;
        }
        self.critical_paths
            .get(i)
            .map_or(UNSET_MATCH_NUM, |p| p.0[0].match_num)
    }
}

/// Upstream `calPreFilterState` (v1.35), over every node of the cluster:
///
/// 1. The pod's `DoNotSchedule` constraints (no defaults: see
///    [`super::common::default_selector`]); none gives an empty state.
/// 2. A node lacking any constraint's topology key is skipped for all constraints.
/// 3. Per constraint, a node failing the node-inclusion policies is skipped; otherwise its
///    pods matching the selector (same namespace, not terminating) add to its domain, which
///    becomes eligible even with 0.
/// 4. Critical paths are built from the domains (in topology-value order, where upstream
///    walks a Go map).
pub fn cal_pre_filter_state(
    pod: &PodInfo,
    cluster: &Cluster,
    gates: &FeatureGates,
) -> Result<PreFilterState, String> {
    let spec_constraints = pod
        .spec()
        .topology_spread_constraints
        .as_deref()
        .unwrap_or_default();
    let constraints = if spec_constraints.is_empty() {
        Vec::new()
    } else {
        filter_topology_spread_constraints(spec_constraints, pod.labels(), DO_NOT_SCHEDULE)
            .map_err(|e| {
                format!("get constraints from pod: obtaining pod's hard topology spread constraints: {e}")
            })?
    };
    let required = RequiredNodeAffinity::from_pod_spec(pod.spec());
    let mut counts: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new(); constraints.len()];
    if !constraints.is_empty() {
        for node in &cluster.nodes {
            if !node_labels_match_spread_constraints(&node.labels, &constraints) {
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
                let n = count_pods_match_selector(cluster, node, &c.selector, &pod.namespace);
                *counts[i].entry(value).or_insert(0) += n;
            }
        }
    }
    let critical_paths = counts
        .iter()
        .map(|m| {
            let mut paths = CriticalPaths::default();
            for (value, num) in m {
                paths.update(value, *num);
            }
            paths
        })
        .collect();
    Ok(PreFilterState {
        constraints,
        critical_paths,
        tp_value_to_match_num: counts,
        required,
    })
}

/// Upstream `updateWithPod` (AddPod with `delta` 1, RemovePod with -1), v1.35:
///
/// 1. Nothing changes for a pod of another namespace, or on a node lacking any topology key.
/// 2. Per constraint whose selector matches the pod's labels and whose node-inclusion policies
///    (for the pod being scheduled) admit the node, the node's domain count moves by `delta`
///    and the critical paths are updated.
pub fn update_with_pod(
    state: &mut PreFilterState,
    updated: &PodInfo,
    preemptor: &PodInfo,
    node: &NodeInfo,
    delta: i64,
    gates: &FeatureGates,
) {
    if updated.namespace != preemptor.namespace
        || !node_labels_match_spread_constraints(&node.labels, &state.constraints)
    {
        return;
    }
    for (i, c) in state.constraints.iter().enumerate() {
        if !c.selector.matches(updated.labels())
            || !c.match_node_inclusion_policies(preemptor, node, &state.required, gates)
        {
            continue;
        }
        let value = node
            .labels
            .get(&c.topology_key)
            .cloned()
            .unwrap_or_default();
        let (Some(counts), Some(paths)) = (
            state.tp_value_to_match_num.get_mut(i),
            state.critical_paths.get_mut(i),
        ) else {
            continue;
        };
        let n = counts.entry(value.clone()).or_insert(0);
        *n += delta;
        paths.update(&value, *n);
    }
}

/// Upstream `PodTopologySpread.Filter` (v1.35), per hard constraint in order:
///
/// 1. A node without the topology key: UnschedulableAndUnresolvable, "node(s) didn't match pod
///    topology spread constraints (missing required label)".
/// 2. `skew = matching pods in the node's domain + (1 if the pod matches its own selector)
///    - global minimum` (see [`PreFilterState::min_match_num`]).
/// 3. `skew > maxSkew`: Unschedulable, "node(s) didn't match pod topology spread constraints".
pub fn filter(state: &PreFilterState, pod: &PodInfo, node: &NodeInfo) -> Status {
    for (i, c) in state.constraints.iter().enumerate() {
        let Some(tp_val) = node.labels.get(&c.topology_key) else {
            return Status::unresolvable(NAME, ERR_REASON_NODE_LABEL_NOT_MATCH);
        };
        let min_match_num = state.min_match_num(i, c.min_domains);
        let self_match_num = i64::from(c.selector.matches(pod.labels()));
        let match_num = state
            .tp_value_to_match_num
            .get(i)
            .and_then(|m| m.get(tp_val))
            .copied()
            .unwrap_or(0);
        let skew = match_num + self_match_num - min_match_num;
        if skew > i64::from(c.max_skew) {
            return Status::unschedulable(NAME, vec![ERR_REASON_CONSTRAINTS_NOT_MATCH.to_string()]);
        }
    }
    Status::success()
}
