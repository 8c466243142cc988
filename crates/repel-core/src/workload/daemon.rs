//! Which nodes a DaemonSet runs a pod on, and why not (after upstream
//! `pkg/controller/daemon/daemon_controller.go` `NodeShouldRunDaemonPod` and
//! `pkg/controller/daemon/util/daemonset_util.go`, v1.35).

use super::*;

/// Upstream `ReplaceDaemonSetPodNodeNameNodeAffinity`: the pod's required node affinity becomes
/// the single term `matchFields metadata.name In [node]`; preferred terms are kept.
pub fn pin_to_node(spec: &mut PodSpec, node: &str) {
    let term = NodeSelectorTerm {
        match_fields: Some(vec![NodeSelectorRequirement {
            key: "metadata.name".to_string(),
            operator: "In".to_string(),
            values: Some(vec![node.to_string()]),
        }]),
        match_expressions: None,
    };
    let affinity = spec.affinity.get_or_insert_with(Affinity::default);
    let node_affinity = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    node_affinity.required_during_scheduling_ignored_during_execution = Some(NodeSelector {
        node_selector_terms: vec![term],
    });
}

/// Upstream `NodeShouldRunDaemonPod` (pkg/controller/daemon, v1.35) for a daemon pod spec that
/// already carries the DaemonSet tolerations. Returns `(should_run, should_continue_running)`:
///
/// 1. The pod's `nodeName`, if set, must be the node, and its required node affinity (and
///    nodeSelector) must match; otherwise neither.
/// 2. An untolerated `NoSchedule`/`NoExecute` taint: do not run; keep running only if no
///    `NoExecute` taint is untolerated.
pub fn node_should_run_daemon_pod(
    spec: &PodSpec,
    node: &Node,
    gates: &FeatureGates,
) -> (bool, bool) {
    match daemon_pod_refusal(spec, node, gates) {
        None => (true, true),
        Some(DaemonPredicate::NodeName | DaemonPredicate::NodeAffinity) => (false, false),
        Some(DaemonPredicate::Taints) => {
            let keeps = find_matching_untolerated_taint(
                node_taints(node),
                spec.tolerations.as_deref().unwrap_or_default(),
                |t| t.effect == NO_EXECUTE,
                gates,
            )
            .is_none();
            (false, keeps)
        }
    }
}

/// The predicates of upstream `NodeShouldRunDaemonPod`, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaemonPredicate {
    /// The pod's `nodeName` names another node.
    NodeName,
    /// Its required node affinity (or nodeSelector) does not match (a term that cannot be
    /// parsed matches nothing, as upstream ignores the parse error here).
    NodeAffinity,
    /// A `NoSchedule`/`NoExecute` taint is not tolerated.
    Taints,
}

/// The first of [`node_should_run_daemon_pod`]'s predicates that `node` fails; `None` when the
/// DaemonSet runs its pod there.
pub fn daemon_pod_refusal(
    spec: &PodSpec,
    node: &Node,
    gates: &FeatureGates,
) -> Option<DaemonPredicate> {
    let name = node.metadata.name.as_deref().unwrap_or_default();
    if !spec
        .node_name
        .as_deref()
        .is_none_or(|n| n.is_empty() || n == name)
    {
        return Some(DaemonPredicate::NodeName);
    }
    if !RequiredNodeAffinity::from_pod_spec(spec)
        .matches(node)
        .unwrap_or(false)
    {
        return Some(DaemonPredicate::NodeAffinity);
    }
    let tolerations = spec.tolerations.as_deref().unwrap_or_default();
    find_matching_untolerated_taint(node_taints(node), tolerations, is_do_not_schedule, gates)
        .map(|_| DaemonPredicate::Taints)
}

pub(super) fn node_taints(node: &Node) -> &[k8s_openapi::api::core::v1::Taint] {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
}

/// The nodes a DaemonSet runs a pod on, in node order.
pub fn daemon_nodes<'a>(ds: &DaemonSet, nodes: &'a [Node], gates: &FeatureGates) -> Vec<&'a Node> {
    let mut pod_spec = ds.spec.template.spec.clone().unwrap_or_default();
    add_daemonset_tolerations(&mut pod_spec);
    nodes
        .iter()
        .filter(|n| node_should_run_daemon_pod(&pod_spec, n, gates).0)
        .collect()
}
