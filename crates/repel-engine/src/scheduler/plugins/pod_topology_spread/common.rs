//! What PreFilter/Filter and PreScore/Score share (upstream `common.go`, v1.35): the parsed
//! constraint, the node-inclusion policies, the default constraints, and pod counting.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::TopologySpreadConstraint as ApiConstraint;
use repel_core::FeatureGates;
use repel_core::affinity::RequiredNodeAffinity;
use repel_core::labels::{LabelSelector, LabelSelectorError, label_selector_from_api};
use repel_core::taint::{find_matching_untolerated_taint, is_do_not_schedule};

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::pods_on;

/// `v1.LabelHostname`.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
/// `v1.LabelTopologyZone`.
pub const LABEL_TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";
/// `whenUnsatisfiable: DoNotSchedule`: a hard constraint (Filter).
pub const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
/// `whenUnsatisfiable: ScheduleAnyway`: a soft constraint (Score).
pub const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";
/// `NodeInclusionPolicyHonor`.
pub const POLICY_HONOR: &str = "Honor";
/// `NodeInclusionPolicyIgnore`.
pub const POLICY_IGNORE: &str = "Ignore";

/// Upstream `v1.NodeInclusionPolicy`: whether a node that the pod could not be placed on (by its
/// required node affinity, or by its taints) still counts as a domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeInclusionPolicy {
    /// Only nodes the pod could go to count.
    Honor,
    /// Every node counts.
    Ignore,
}

impl NodeInclusionPolicy {
    /// The API field's value: unset is `default`; `"Honor"` is Honor; anything else behaves as
    /// Ignore, since upstream only ever compares with Honor.
    fn from_api(value: Option<&str>, default: NodeInclusionPolicy) -> Self {
        match value {
            None => default,
            Some(POLICY_HONOR) => NodeInclusionPolicy::Honor,
            Some(_) => NodeInclusionPolicy::Ignore,
        }
    }
}

/// Upstream `topologySpreadConstraint`: a pod's constraint with its selector parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopologySpreadConstraint {
    /// `maxSkew`.
    pub max_skew: i32,
    /// `topologyKey`.
    pub topology_key: String,
    /// `labelSelector` ANDed with the `matchLabelKeys` values.
    pub selector: LabelSelector,
    /// `minDomains` (1 when unset).
    pub min_domains: i32,
    /// `nodeAffinityPolicy` (Honor when unset).
    pub node_affinity_policy: NodeInclusionPolicy,
    /// `nodeTaintsPolicy` (Ignore when unset).
    pub node_taints_policy: NodeInclusionPolicy,
}

impl TopologySpreadConstraint {
    /// Upstream `topologySpreadConstraint.matchNodeInclusionPolicies` (v1.35):
    ///
    /// 1. With `nodeAffinityPolicy: Honor`, a node the pod's nodeSelector / required node
    ///    affinity does not match is left out (match errors count as no match).
    /// 2. With `nodeTaintsPolicy: Honor`, a node with a `NoSchedule`/`NoExecute` taint the pod
    ///    does not tolerate is left out.
    /// 3. Otherwise the node counts.
    pub fn match_node_inclusion_policies(
        &self,
        pod: &PodInfo,
        node: &NodeInfo,
        required: &RequiredNodeAffinity,
        gates: &FeatureGates,
    ) -> bool {
        if self.node_affinity_policy == NodeInclusionPolicy::Honor
            && !required.matches(&node.node).unwrap_or(false)
        {
            return false;
        }
        if self.node_taints_policy == NodeInclusionPolicy::Honor
            && find_matching_untolerated_taint(
                &node.taints,
                pod.tolerations(),
                is_do_not_schedule,
                gates,
            )
            .is_some()
        {
            return false;
        }
        true
    }
}

/// Upstream `filterTopologySpreadConstraints` (v1.35, with `MinDomainsInPodTopologySpread`,
/// `NodeInclusionPolicyInPodTopologySpread` and `MatchLabelKeysInPodTopologySpread` on, as
/// they are by default):
///
/// 1. Keep the constraints whose `whenUnsatisfiable` is `action`, in order.
/// 2. Parse `labelSelector` (`LabelSelectorAsSelector`: unset selects nothing, empty selects
///    everything); the first parse error fails the whole pod.
/// 3. For `matchLabelKeys`, take the pod's values of those keys it has; when there are any,
///    the selector becomes those `key=value`s ANDed with the parsed selector's requirements
///    (a nothing-selector stays nothing).
/// 4. `minDomains` defaults to 1, `nodeAffinityPolicy` to Honor, `nodeTaintsPolicy` to Ignore.
pub fn filter_topology_spread_constraints(
    constraints: &[ApiConstraint],
    pod_labels: &BTreeMap<String, String>,
    action: &str,
) -> Result<Vec<TopologySpreadConstraint>, LabelSelectorError> {
    let mut out = Vec::new();
    for c in constraints
        .iter()
        .filter(|c| c.when_unsatisfiable == action)
    {
        let mut selector = match &c.label_selector {
            Some(sel) => label_selector_from_api(sel)?,
            None => LabelSelector::nothing(),
        };
        let keys = c.match_label_keys.as_deref().unwrap_or_default();
        if !keys.is_empty() {
            let match_labels: BTreeMap<String, String> = keys
                .iter()
                .filter_map(|k| pod_labels.get(k).map(|v| (k.clone(), v.clone())))
                .collect();
            if !match_labels.is_empty() {
                selector = merge_label_set_with_selector(&match_labels, &selector);
            }
        }
        out.push(TopologySpreadConstraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector,
            min_domains: c.min_domains.unwrap_or(1),
            node_affinity_policy: NodeInclusionPolicy::from_api(
                c.node_affinity_policy.as_deref(),
                NodeInclusionPolicy::Honor,
            ),
            node_taints_policy: NodeInclusionPolicy::from_api(
                c.node_taints_policy.as_deref(),
                NodeInclusionPolicy::Ignore,
            ),
        });
    }
    Ok(out)
}

/// Upstream `mergeLabelSetWithSelector`: `SelectorFromSet(set)` plus the selector's
/// requirements; a selector without requirements to give (`Nothing`) is returned unchanged.
fn merge_label_set_with_selector(
    set: &BTreeMap<String, String>,
    selector: &LabelSelector,
) -> LabelSelector {
    if selector.is_nothing() {
        return selector.clone();
    }
    LabelSelector::from_set(set).add(selector.requirements().iter().cloned())
}

/// Upstream `systemDefaultConstraints` (v1.35) with `selector`, filtered to `action` as
/// `buildDefaultConstraints` does:
///
/// 1. `kubernetes.io/hostname`, maxSkew 3, ScheduleAnyway.
/// 2. `topology.kubernetes.io/zone`, maxSkew 5, ScheduleAnyway.
/// 3. An empty selector (no Service/ReplicationController/ReplicaSet/StatefulSet selects the
///    pod) gives no constraints.
pub fn system_default_constraints(
    selector: &LabelSelector,
    action: &str,
) -> Vec<TopologySpreadConstraint> {
    if action != SCHEDULE_ANYWAY || selector.is_empty() {
        return Vec::new();
    }
    [(LABEL_HOSTNAME, 3), (LABEL_TOPOLOGY_ZONE, 5)]
        .into_iter()
        .map(|(key, max_skew)| TopologySpreadConstraint {
            max_skew,
            topology_key: key.to_string(),
            selector: selector.clone(),
            min_domains: 1,
            node_affinity_policy: NodeInclusionPolicy::Honor,
            node_taints_policy: NodeInclusionPolicy::Ignore,
        })
        .collect()
}

/// Upstream `helper.DefaultSelector`: the selectors of the Services, ReplicationController,
/// ReplicaSet or StatefulSet that select the pod, merged.
///
/// repel keeps no Services; it finds the pod's owning ReplicationController, ReplicaSet or
/// StatefulSet through the pod's
/// controller ownerReference in [`Cluster::owner_selectors`] (a Deployment's ReplicaSet selects
/// `spec.selector` plus `pod-template-hash`). A pod nothing owns gets the empty selector, so
/// system defaulting adds no constraints, as upstream does for a pod nothing selects.
pub fn default_selector(pod: &PodInfo, cluster: &Cluster) -> LabelSelector {
    repel_core::workload::controller_of(&pod.meta)
        .and_then(|(kind, name)| {
            cluster
                .owner_selectors
                .get(&(kind, pod.namespace.clone(), name))
                .cloned()
        })
        .unwrap_or_else(LabelSelector::everything)
}

/// Upstream `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key.
pub fn node_labels_match_spread_constraints(
    labels: &BTreeMap<String, String>,
    constraints: &[TopologySpreadConstraint],
) -> bool {
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

/// Upstream `countPodsMatchSelector` (v1.35):
///
/// 1. An empty selector (matches everything) counts 0.
/// 2. Terminating pods (`deletionTimestamp` set) and pods of other namespaces are skipped.
/// 3. The rest are counted when the selector matches their labels.
pub fn count_pods_match_selector(
    cluster: &Cluster,
    node: &NodeInfo,
    selector: &LabelSelector,
    namespace: &str,
) -> i64 {
    if selector.is_empty() {
        return 0;
    }
    pods_on(cluster, node)
        .filter(|(_, p)| p.meta.deletion_timestamp.is_none() && p.namespace == namespace)
        .filter(|(_, p)| selector.matches(p.labels()))
        .count() as i64
}
