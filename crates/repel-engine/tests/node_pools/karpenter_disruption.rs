//! Karpenter's drift (blocked by do-not-disrupt) and the NodeClaims of the input adopted.

use super::*;

/// Drift (a NodePool's taints changed) replaces the node — replacement first — unless a pod on
/// it carries `karpenter.sh/do-not-disrupt`: then Karpenter's `DisruptionBlocked` names it.
#[test]
fn drift_replaces_the_node_unless_a_pod_blocks_it() {
    let np = |value: &str| {
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
               "spec": {"template": {"spec": {
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                   "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]}],
                   "taints": [{"key": "team", "value": value, "effect": "NoSchedule"}]}}}})
    };
    for blocked in [false, true] {
        let mut annotations = json!({});
        if blocked {
            annotations = json!({"karpenter.sh/do-not-disrupt": "true"});
        }
        let p: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default", "annotations": annotations,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1",
                                              "uid": "u1", "controller": true}]},
            "spec": {"tolerations": [{"key": "team", "operator": "Exists"}],
                     "containers": [{"name": "c", "image": "nginx"}]}
        }))
        .unwrap();
        let mut sim = Simulation::new(
            ClusterInput {
                pods: vec![p],
                pools: vec![karpenter_pool(&np("a")).unwrap()],
                ..Default::default()
            },
            util::config(1),
        );
        sim.advance_to(60_000);
        let first = sim.cluster.nodes[0].name.clone();
        step(&mut sim, 60_000, StepAction::Apply(vec![np("b")]));
        sim.settle();
        let disrupted = |sim: &Simulation| {
            sim.cluster.nodes[0]
                .taints
                .iter()
                .any(|t| t.key == "karpenter.sh/disrupted" && t.effect == "NoSchedule")
        };
        if !blocked {
            // Karpenter's disruption queue suite, "should keep nodes tainted when replacements
            // haven't finished initialization" (`pkg/controllers/disruption/queue_test.go`,
            // v1.14.1): `StartCommand` cordons the old node before it launches the
            // replacement, and the taint stays while the replacement is not initialized.
            assert!(disrupted(&sim), "tainted with the replacement's launch");
            assert_eq!(sim.plane.karpenter.claims.len(), 2);
            assert_eq!(sim.cluster.nodes.len(), 1, "the replacement is launching");
            // A pod that arrives meanwhile does not land on the drifted node: it goes to the
            // replacement.
            step(
                &mut sim,
                70_000,
                StepAction::Apply(vec![json!({
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "late", "namespace": "default"},
                    "spec": {"tolerations": [{"key": "team", "operator": "Exists"}],
                             "containers": [{"name": "c", "image": "nginx"}]}})]),
            );
            let late = sim.cluster.pod_id("default", "late").unwrap();
            assert_eq!(sim.cluster.pods[late].node, None, "not on {first}");
            sim.advance_to(89_000);
            assert!(
                disrupted(&sim),
                "still tainted until the replacement registers"
            );
        } else {
            assert!(!disrupted(&sim), "a blocked node is not tainted");
        }
        sim.advance_to(300_000);
        let reasons: Vec<(&str, &str)> = sim
            .events
            .iter()
            .filter(|e| e.reason.starts_with("Disruption"))
            .map(|e| (e.reason.as_str(), e.message.as_str()))
            .collect();
        if blocked {
            assert_eq!(
                reasons,
                vec![(
                    "DisruptionBlocked",
                    "pod has \"karpenter.sh/do-not-disrupt\" annotation (Pod=default/web)"
                )]
            );
            assert_eq!(sim.cluster.nodes.len(), 1);
            assert_eq!(sim.cluster.nodes[0].name, first);
        } else {
            // Karpenter's `Terminating` events: on the Node and on its NodeClaim.
            assert_eq!(
                reasons,
                vec![
                    ("DisruptionLaunching", "Launching NodeClaim: Drifted"),
                    ("DisruptionTerminating", "Disrupting Node: Drifted"),
                    ("DisruptionTerminating", "Disrupting NodeClaim: Drifted")
                ]
            );
            assert_eq!(sim.cluster.nodes.len(), 1);
            assert_ne!(sim.cluster.nodes[0].name, first);
            assert_eq!(sim.cluster.nodes[0].taints[0].value.as_deref(), Some("b"));
            let late = sim.cluster.pod_id("default", "late").unwrap();
            assert_eq!(sim.cluster.pods[late].node, Some(0), "on the replacement");
        }
    }
}

/// NodeClaims of the input (an exported cluster's) are Karpenter's: one whose node is there is
/// registered and drifts with its NodePool; one without a node yet registers it after the
/// launch delay.
#[test]
fn nodeclaims_of_the_input_are_adopted() {
    let np = |value: &str| {
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
               "spec": {"template": {"spec": {
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                   "requirements": [],
                   "taints": [{"key": "team", "value": value, "effect": "NoSchedule"}]}}}})
    };
    let claim = |name: &str, node: Option<&str>| {
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": name,
                "labels": {"karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": "m5.large"}},
               "spec": {}, "status": {"nodeName": node}})
    };
    let node: k8s_openapi::api::core::v1::Node = serde_json::from_value(json!({
        "metadata": {"name": "default-aaaaa", "labels": {"karpenter.sh/nodepool": "default",
            "karpenter.sh/initialized": "true", "node.kubernetes.io/instance-type": "m5.large"}},
        "spec": {"taints": [{"key": "team", "value": "a", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    }))
    .unwrap();
    let web = pod(
        "web",
        json!({"tolerations": [{"key": "team", "operator": "Exists"}],
               "containers": [{"name": "c", "image": "nginx"}]}),
    );
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            pods: vec![web],
            pools: vec![karpenter_pool(&np("a")).unwrap()],
            node_claims: vec![
                claim("default-aaaaa", Some("default-aaaaa")),
                claim("default-bbbbb", None),
            ],
            ..Default::default()
        },
        util::config(1),
    );
    assert!(sim.warnings.is_empty(), "{:?}", sim.warnings);
    sim.advance_to(40_000);
    let names: Vec<&str> = sim.cluster.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, vec!["default-aaaaa", "default-bbbbb"]);
    step(&mut sim, 60_000, StepAction::Apply(vec![np("b")]));
    sim.advance_to(300_000);
    let mut names: Vec<String> = sim.cluster.nodes.iter().map(|n| n.name.clone()).collect();
    names.sort();
    assert!(!names.contains(&"default-aaaaa".to_string()), "{names:?}");
    assert!(
        sim.cluster
            .nodes
            .iter()
            .all(|n| n.taints.iter().any(|t| t.value.as_deref() == Some("b"))),
        "every node has the new taint"
    );
}
