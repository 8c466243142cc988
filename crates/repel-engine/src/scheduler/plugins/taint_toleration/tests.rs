//! Unit tests of `crate::scheduler::plugins::taint_toleration`.

use super::*;
use crate::scheduler::plugins::test_support::{node, pod, taint, tol};

/// Upstream `TestTaintTolerationFilter` (v1.35 reason text).
#[test]
fn filter_cases() {
    #[rustfmt::skip]
    let cases = [
        ("a pod without tolerations cannot be scheduled onto a node with taints",
            vec![], vec![taint("dedicated", "user1", "NoSchedule")], false),
        ("a pod with a matching toleration can be scheduled",
            vec![tol("dedicated", "Equal", "user1", "NoSchedule")], vec![taint("dedicated", "user1", "NoSchedule")], true),
        ("a pod whose toleration value differs cannot",
            vec![tol("dedicated", "Equal", "user2", "NoSchedule")], vec![taint("dedicated", "user1", "NoSchedule")], false),
        ("a pod with Exists tolerates the key",
            vec![tol("foo", "Exists", "", "NoSchedule")], vec![taint("foo", "bar", "NoSchedule")], true),
        ("a pod with multiple tolerations can be scheduled onto a node with multiple taints",
            vec![tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", "", "NoSchedule")],
            vec![taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], true),
        ("a pod whose toleration effect differs cannot",
            vec![tol("foo", "Equal", "bar", "PreferNoSchedule")], vec![taint("foo", "bar", "NoSchedule")], false),
        ("the effect of the toleration is empty: tolerates every effect",
            vec![tol("foo", "Equal", "bar", "")], vec![taint("foo", "bar", "NoSchedule")], true),
        ("a PreferNoSchedule taint never filters",
            vec![], vec![taint("foo", "bar", "PreferNoSchedule")], true),
        ("an untolerated NoExecute taint filters",
            vec![], vec![taint("foo", "bar", "NoExecute")], false),
    ];
    for (name, tols, taints, fits) in cases {
        let p = pod("p", |s| s.tolerations = Some(tols.clone()));
        let st = TaintToleration::default().filter(
            &CycleState::default(),
            &p,
            &node("n", taints),
            &Cluster::new(),
        );
        assert_eq!(st.is_success(), fits, "{name}");
        if !fits {
            assert_eq!(
                st.reasons,
                vec!["node(s) had untolerated taint(s)".to_string()],
                "{name}"
            );
        }
    }
}

#[test]
fn score_and_normalize() {
    let pns = "PreferNoSchedule";
    let pl = TaintToleration::default();
    let p = pod("p", |s| {
        s.tolerations = Some(vec![
            tol("foo", "Equal", "bar", pns),
            tol("x", "Exists", "", "NoSchedule"),
        ])
    });
    let nodes = [
        node("a", vec![taint("foo", "bar", pns)]),
        node("b", vec![taint("x", "", pns)]),
        node("c", vec![taint("x", "", pns), taint("y", "", pns)]),
    ];
    let mut st = CycleState::default();
    let refs: Vec<&NodeInfo> = nodes.iter().collect();
    pl.pre_score(&mut st, &p, &refs, &Cluster::new());
    let mut scores: Vec<i64> = nodes
        .iter()
        .map(|n| pl.score(&st, &p, n, &Cluster::new()).unwrap_or(-1))
        .collect();
    assert_eq!(
        scores,
        vec![0, 1, 2],
        "a NoSchedule toleration does not count for scoring"
    );
    pl.normalize_score(&st, &p, &mut scores);
    assert_eq!(scores, vec![100, 50, 0]);
}
