//! Unit tests of `crate::scheduler::plugins::node_affinity`.

use super::*;
use crate::scheduler::plugins::test_support::{labelled, pod};
use repel_core::k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity as Na, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PreferredSchedulingTerm,
};

fn req(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
    NodeSelectorRequirement {
        key: key.into(),
        operator: op.into(),
        values: Some(values.iter().map(|s| s.to_string()).collect()),
    }
}

fn fields(values: &[&str]) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_fields: Some(vec![req("metadata.name", "In", values)]),
        match_expressions: None,
    }
}

fn with_terms(terms: Vec<NodeSelectorTerm>) -> PodInfo {
    pod("p", |s| {
        s.affinity = Some(Affinity {
            node_affinity: Some(Na {
                required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                    node_selector_terms: terms.clone(),
                }),
                ..Default::default()
            }),
            ..Default::default()
        })
    })
}

/// Upstream `TestNodeAffinity` PreFilter cases.
#[test]
fn pre_filter_narrows_to_named_nodes() {
    let set = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>());
    #[rustfmt::skip]
    let cases: Vec<(&str, PodInfo, Option<BTreeSet<String>>, bool)> = vec![
        ("no affinity: skip", pod("p", |_| {}), None, true),
        ("matchFields In names the nodes", with_terms(vec![fields(&["node1"])]), set(&["node1"]), true),
        ("terms are ORed: the union", with_terms(vec![fields(&["node1"]), fields(&["node2"])]), set(&["node1", "node2"]), true),
        ("a term without matchFields allows all nodes", with_terms(vec![fields(&["node1"]), NodeSelectorTerm { match_expressions: Some(vec![req("zone", "In", &["a"])]), match_fields: None }]), None, true),
        ("requirements in a term intersect; empty is a conflict",
            with_terms(vec![NodeSelectorTerm { match_fields: Some(vec![req("metadata.name", "In", &["node1"]), req("metadata.name", "In", &["node2"])]), match_expressions: None }]), None, false),
    ];
    for (name, p, want, ok) in cases {
        let (st, res) = NodeAffinity.pre_filter(&mut CycleState::default(), &p, &Cluster::new());
        assert_eq!(res, want, "{name}");
        assert_eq!(st.is_rejected(), !ok, "{name}");
        if !ok {
            assert_eq!(st.message(), ERR_REASON_CONFLICT, "{name}");
        }
    }
}

#[test]
fn filter_and_score() {
    let p = pod("p", |s| {
        s.node_selector = Some([("disk".to_string(), "ssd".to_string())].into());
        s.affinity = Some(Affinity {
            node_affinity: Some(Na {
                preferred_during_scheduling_ignored_during_execution: Some(vec![
                    PreferredSchedulingTerm {
                        weight: 5,
                        preference: NodeSelectorTerm {
                            match_expressions: Some(vec![req("zone", "In", &["a"])]),
                            match_fields: None,
                        },
                    },
                    PreferredSchedulingTerm {
                        weight: 2,
                        preference: NodeSelectorTerm {
                            match_expressions: Some(vec![req("disk", "Exists", &[])]),
                            match_fields: None,
                        },
                    },
                ]),
                ..Default::default()
            }),
            ..Default::default()
        })
    });
    let mut a = labelled("a", &[("disk", "ssd"), ("zone", "a")]);
    let b = labelled("b", &[("disk", "ssd"), ("zone", "b")]);
    let c = labelled("c", &[("disk", "hdd")]);
    a.taints.clear();
    let cluster = Cluster::new();
    let mut st = CycleState::default();
    NodeAffinity.pre_filter(&mut st, &p, &cluster);
    let fits: Vec<bool> = [&a, &b, &c]
        .iter()
        .map(|n| NodeAffinity.filter(&st, &p, n, &cluster).is_success())
        .collect();
    assert_eq!(fits, vec![true, true, false], "nodeSelector disk=ssd");
    assert_eq!(
        NodeAffinity.filter(&st, &p, &c, &cluster).message(),
        "node(s) didn't match Pod's node affinity/selector"
    );
    NodeAffinity.pre_score(&mut st, &p, &[&a, &b], &cluster);
    let mut scores: Vec<i64> = [&a, &b]
        .iter()
        .map(|n| NodeAffinity.score(&st, &p, n, &cluster).unwrap_or(-1))
        .collect();
    assert_eq!(scores, vec![7, 2]);
    NodeAffinity.normalize_score(&st, &p, &mut scores);
    assert_eq!(scores, vec![100, 28]);
}
