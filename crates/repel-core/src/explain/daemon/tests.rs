//! Unit tests of `crate::explain::daemon`.

use super::*;
use crate::defaults::add_daemonset_tolerations;
use crate::testing::{node_with_taints, taint};

fn daemon_spec(node_selector: Option<(&str, &str)>, node_name: Option<&str>) -> PodSpec {
    let mut spec = PodSpec {
        node_selector: node_selector.map(|(k, v)| [(k.to_string(), v.to_string())].into()),
        node_name: node_name.map(str::to_string),
        ..Default::default()
    };
    add_daemonset_tolerations(&mut spec);
    spec
}

fn labelled(name: &str, k: &str, v: &str) -> Node {
    let mut n = node_with_taints(name, vec![]);
    n.metadata.labels = Some([(k.to_string(), v.to_string())].into());
    n
}

/// (name, pod spec, node, should run, should continue running, refusal reason)
type Case = (
    &'static str,
    PodSpec,
    Node,
    bool,
    bool,
    Option<&'static str>,
);

#[test]
fn the_controller_decides_node_by_node() {
    let cordoned = {
        let mut n = node_with_taints("cordoned", vec![]);
        if let Some(s) = n.spec.as_mut() {
            s.unschedulable = Some(true);
        }
        n
    };
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        ("an untainted node runs the pod",
            daemon_spec(None, None), node_with_taints("a", vec![]), true, true, None),
        ("an untolerated NoSchedule taint: no pod, but a running one stays",
            daemon_spec(None, None), node_with_taints("a", vec![taint("dedicated", "gpu", "NoSchedule")]),
            false, true, Some(ERR_REASON_UNTOLERATED)),
        ("an untolerated NoExecute taint: no pod, and a running one goes",
            daemon_spec(None, None), node_with_taints("a", vec![taint("k", "", "NoExecute")]),
            false, false, Some(ERR_REASON_UNTOLERATED)),
        ("a PreferNoSchedule taint is no obstacle",
            daemon_spec(None, None), node_with_taints("a", vec![taint("k", "", "PreferNoSchedule")]),
            true, true, None),
        ("a cordoned node runs the pod (the DaemonSet tolerations include unschedulable)",
            daemon_spec(None, None), cordoned, true, true, None),
        ("a nodeSelector the node does not match: no pod, NodeAffinity's reason",
            daemon_spec(Some(("pool", "gpu")), None), labelled("a", "pool", "cpu"),
            false, false, Some(ERR_REASON_NODE_AFFINITY)),
        ("a nodeSelector the node matches runs the pod",
            daemon_spec(Some(("pool", "gpu")), None), labelled("a", "pool", "gpu"), true, true, None),
        ("a template nodeName naming another node: no pod, NodeName's reason",
            daemon_spec(None, Some("b")), node_with_taints("a", vec![]),
            false, false, Some(ERR_REASON_NODE_NAME)),
    ];
    for (name, spec, node, run, keep, reason) in cases {
        let v = daemon_verdicts(&spec, &[node], &FeatureGates::default());
        assert_eq!(v[0].should_run, run, "{name}");
        assert_eq!(v[0].should_continue_running, keep, "{name}");
        assert_eq!(v[0].rejection.as_ref().map(|r| r.reason), reason, "{name}");
    }
}
