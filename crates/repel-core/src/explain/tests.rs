#![allow(clippy::type_complexity)]
use super::*;
use crate::testing::{node_with_taints, taint, tol};
use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm};

fn spec(tolerations: Vec<Toleration>) -> PodSpec {
    crate::testing::pod_with_tolerations("p", tolerations)
        .spec
        .unwrap_or_default()
}

fn cordoned(name: &str) -> Node {
    let mut n = node_with_taints(name, vec![]);
    if let Some(s) = n.spec.as_mut() {
        s.unschedulable = Some(true);
    }
    n
}

fn labelled(name: &str, k: &str, v: &str, taints: Vec<Taint>) -> Node {
    let mut n = node_with_taints(name, taints);
    n.metadata.labels = Some([(k.to_string(), v.to_string())].into());
    n
}

/// The filters in upstream's order, the first failure per node, the FitError text.
#[test]
fn filters_and_reasons() {
    let dedicated = || taint("dedicated", "gpu", "NoSchedule");
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Vec<Node>, Vec<Option<&str>>, &str)> = vec![
        ("an untainted node is feasible",
            vec![], vec![node_with_taints("a", vec![])], vec![None], ""),
        ("an untolerated NoSchedule taint rejects with the v1.35 reason",
            vec![], vec![node_with_taints("a", vec![dedicated()])], vec![Some(ERR_REASON_UNTOLERATED)],
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
        ("an untolerated NoExecute taint rejects too",
            vec![], vec![node_with_taints("a", vec![taint("k", "", "NoExecute")])], vec![Some(ERR_REASON_UNTOLERATED)],
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
        ("a PreferNoSchedule taint never rejects",
            vec![], vec![node_with_taints("a", vec![taint("k", "", "PreferNoSchedule")])], vec![None], ""),
        ("a cordoned node rejects with NodeUnschedulable's reason",
            vec![], vec![cordoned("a")], vec![Some(ERR_REASON_UNSCHEDULABLE)],
            "0/1 nodes are available: 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
        ("the unschedulable toleration passes a cordoned node",
            vec![tol("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")], vec![cordoned("a")], vec![None], ""),
        ("the wildcard toleration passes a cordoned node",
            vec![tol("", "Exists", "", "")], vec![cordoned("a")], vec![None], ""),
        ("reasons are counted and sorted as whole strings",
            vec![],
            vec![node_with_taints("a", vec![dedicated()]), cordoned("b"), node_with_taints("c", vec![dedicated()])],
            vec![Some(ERR_REASON_UNTOLERATED), Some(ERR_REASON_UNSCHEDULABLE), Some(ERR_REASON_UNTOLERATED)],
            "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
        ("one feasible node: no message",
            vec![], vec![node_with_taints("a", vec![dedicated()]), node_with_taints("b", vec![])],
            vec![Some(ERR_REASON_UNTOLERATED), None], ""),
    ];
    for (name, tols, nodes, want, message) in cases {
        let e = explain(&spec(tols), &nodes, &FeatureGates::default());
        let got: Vec<Option<&str>> = e
            .nodes
            .iter()
            .map(|v| v.rejection.as_ref().map(|r| r.reason))
            .collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(e.message, message, "{name}");
    }
}

#[test]
fn no_nodes_at_all() {
    let e = explain(&spec(vec![]), &[], &FeatureGates::default());
    assert_eq!(e.message, "no nodes available to schedule pods");
}

#[test]
fn node_affinity_runs_after_taints() {
    let mut s = spec(vec![tol("dedicated", "Equal", "gpu", "NoSchedule")]);
    s.node_selector = Some([("dedicated".to_string(), "gpu".to_string())].into());
    let nodes = vec![
        labelled(
            "gpu",
            "dedicated",
            "gpu",
            vec![taint("dedicated", "gpu", "NoSchedule")],
        ),
        node_with_taints("plain", vec![]),
        node_with_taints("other", vec![taint("x", "", "NoSchedule")]),
    ];
    let e = explain(&s, &nodes, &FeatureGates::default());
    let got: Vec<Option<&str>> = e
        .nodes
        .iter()
        .map(|v| v.rejection.as_ref().map(|r| r.plugin))
        .collect();
    assert_eq!(
        got,
        vec![None, Some(NODE_AFFINITY), Some(TAINT_TOLERATION)],
        "taints are checked before affinity"
    );
}

#[test]
fn node_name_must_match() {
    let mut s = spec(vec![]);
    s.node_name = Some("b".into());
    let e = explain(
        &s,
        &[node_with_taints("a", vec![]), node_with_taints("b", vec![])],
        &FeatureGates::default(),
    );
    assert_eq!(
        e.nodes[0].rejection.as_ref().map(|r| r.reason),
        Some(ERR_REASON_NODE_NAME)
    );
    assert!(e.nodes[1].feasible());
}

#[test]
fn scores_normalise_over_feasible_nodes_only() {
    let pns = |k: &str| taint(k, "", "PreferNoSchedule");
    let nodes = vec![
        node_with_taints("clean", vec![]),
        node_with_taints("one", vec![pns("a")]),
        node_with_taints("two", vec![pns("a"), pns("b")]),
        node_with_taints(
            "blocked",
            vec![pns("a"), pns("b"), pns("c"), taint("x", "", "NoSchedule")],
        ),
    ];
    let e = explain(&spec(vec![]), &nodes, &FeatureGates::default());
    let got: Vec<Option<i64>> = e.nodes.iter().map(|v| v.taint_score).collect();
    assert_eq!(
        got,
        vec![Some(100), Some(50), Some(0), None],
        "the blocked node's 3 taints do not set the maximum"
    );
    assert_eq!(e.nodes[0].score(), Some(300), "weight 3");
}

#[test]
fn toleration_indexes_and_suggestions() {
    let nodes = vec![node_with_taints(
        "a",
        vec![
            taint("k1", "v1", "NoSchedule"),
            taint("k2", "", "NoExecute"),
            taint("soft", "", "PreferNoSchedule"),
        ],
    )];
    let e = explain(
        &spec(vec![
            tol("other", "Exists", "", ""),
            tol("k1", "Exists", "", ""),
        ]),
        &nodes,
        &FeatureGates::default(),
    );
    let v = &e.nodes[0];
    let idx: Vec<Option<usize>> = v.taints.iter().map(|t| t.toleration).collect();
    assert_eq!(idx, vec![Some(1), None, None]);
    assert_eq!(
        v.suggestions,
        vec![tol("k2", "Exists", "", "NoExecute")],
        "only the hard untolerated taints get a suggestion"
    );
    assert_eq!(v.no_execute, NoExecuteOutcome::Immediately);
}

#[test]
fn daemonset_style_pinning_rejects_other_nodes_by_affinity() {
    let mut s = spec(vec![]);
    crate::workload::pin_to_node(&mut s, "b");
    let e = explain(
        &s,
        &[node_with_taints("a", vec![]), node_with_taints("b", vec![])],
        &FeatureGates::default(),
    );
    assert!(!e.nodes[0].feasible());
    assert!(e.nodes[1].feasible());
    let term = NodeSelectorTerm {
        match_expressions: None,
        match_fields: Some(vec![NodeSelectorRequirement {
            key: "metadata.name".into(),
            operator: "In".into(),
            values: Some(vec!["b".into()]),
        }]),
    };
    let required = s
        .affinity
        .and_then(|a| a.node_affinity)
        .and_then(|n| n.required_during_scheduling_ignored_during_execution);
    assert_eq!(required.map(|r| r.node_selector_terms), Some(vec![term]));
}
