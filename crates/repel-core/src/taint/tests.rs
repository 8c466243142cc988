#![allow(clippy::type_complexity)]
use super::*;
use crate::testing::{taint, tol, tol_secs};

const OFF: FeatureGates = FeatureGates {
    taint_toleration_comparison_operators: false,
};

#[test]
fn taint_to_string_forms() {
    #[rustfmt::skip]
    let cases = [
        ("key, value and effect", taint("foo", "bar", "NoSchedule"), "foo=bar:NoSchedule"),
        ("no value", taint("foo", "", "NoExecute"), "foo:NoExecute"),
        ("no effect but a value", taint("foo", "bar", ""), "foo=bar:"),
        ("neither value nor effect", taint("foo", "", ""), "foo"),
    ];
    for (name, t, want) in cases {
        assert_eq!(taint_to_string(&t), want, "{name}");
    }
}

/// Upstream `TestFindMatchingUntoleratedTaint` (component-helpers, v1.35) and the seed rule
/// "every uncovered taint still keeps the pod off".
#[test]
fn find_matching_untolerated_taint_cases() {
    let do_not_schedule = |t: &Taint| is_do_not_schedule(t);
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Vec<Toleration>, Option<&str>)> = vec![
        ("no taints, no tolerations: nothing untolerated", vec![], vec![], None),
        ("a taint and no tolerations: the taint", vec![taint("a", "b", "NoSchedule")], vec![], Some("a=b:NoSchedule")),
        ("every taint tolerated: nothing",
            vec![taint("a", "b", "NoSchedule"), taint("c", "", "NoExecute")],
            vec![tol("a", "Equal", "b", "NoSchedule"), tol("c", "Exists", "", "NoExecute")], None),
        ("one of two taints tolerated: the other one",
            vec![taint("a", "b", "NoSchedule"), taint("c", "", "NoExecute")],
            vec![tol("a", "Equal", "b", "NoSchedule")], Some("c:NoExecute")),
        ("the first untolerated taint in node order is reported",
            vec![taint("x", "", "NoSchedule"), taint("y", "", "NoSchedule")], vec![], Some("x:NoSchedule")),
        ("PreferNoSchedule taints are filtered out by the scheduler's filter",
            vec![taint("soft", "", "PreferNoSchedule")], vec![], None),
        ("an untolerated PreferNoSchedule before a NoSchedule: the NoSchedule one",
            vec![taint("soft", "", "PreferNoSchedule"), taint("hard", "", "NoSchedule")], vec![], Some("hard:NoSchedule")),
    ];
    for (name, taints, tols, want) in cases {
        let got = find_matching_untolerated_taint(&taints, &tols, do_not_schedule, &OFF)
            .map(taint_to_string);
        assert_eq!(got.as_deref(), want, "{name}");
    }
    let taints = [taint("soft", "", "PreferNoSchedule")];
    assert!(
        find_matching_untolerated_taint(&taints, &[], |_| true, &OFF).is_some(),
        "a filter keeping everything keeps PreferNoSchedule"
    );
}

/// Upstream `TestTaintTolerationScore` (pkg/scheduler/.../tainttoleration, v1.35): raw counts
/// normalised by `DefaultNormalizeScore(100, reverse)`.
#[test]
fn taint_toleration_scores() {
    let pns = "PreferNoSchedule";
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Vec<Vec<Taint>>, Vec<i64>)> = vec![
        ("node with taints tolerated by the pod gets a higher score than one with intolerable taints",
            vec![tol("foo", "Equal", "bar", pns)],
            vec![vec![taint("foo", "bar", pns)], vec![taint("foo", "blah", pns)]],
            vec![100, 0]),
        ("nodes whose taints are all tolerated get the same score, however many taints they have",
            vec![tol("cpu-type", "Equal", "arm64", pns), tol("disk-type", "Equal", "ssd", pns)],
            vec![vec![], vec![taint("cpu-type", "arm64", pns)], vec![taint("cpu-type", "arm64", pns), taint("disk-type", "ssd", pns)]],
            vec![100, 100, 100]),
        ("the more intolerable taints a node has, the lower score it gets",
            vec![tol("foo", "Equal", "bar", pns)],
            vec![vec![], vec![taint("cpu-type", "arm64", pns)], vec![taint("cpu-type", "arm64", pns), taint("disk-type", "ssd", pns)]],
            vec![100, 50, 0]),
        ("only taints and tolerations with effect PreferNoSchedule are checked",
            vec![tol("cpu-type", "Equal", "arm64", "NoSchedule"), tol("disk-type", "Equal", "ssd", "NoSchedule")],
            vec![vec![], vec![taint("cpu-type", "arm64", "NoSchedule")], vec![taint("cpu-type", "arm64", pns), taint("disk-type", "ssd", pns)]],
            vec![100, 100, 0]),
        ("default behaviour: no taints and no tolerations",
            vec![],
            vec![vec![], vec![taint("cpu-type", "arm64", pns)]],
            vec![100, 0]),
        ("a toleration without effect counts for PreferNoSchedule taints",
            vec![tol("cpu-type", "Exists", "", "")],
            vec![vec![taint("cpu-type", "arm64", pns)], vec![taint("other", "", pns)]],
            vec![100, 0]),
        ("raw scores 0, 1 and 3 normalise to 100, 67 and 0",
            vec![],
            vec![vec![], vec![taint("a", "", pns)], vec![taint("a", "", pns), taint("b", "", pns), taint("c", "", pns)]],
            vec![100, 67, 0]),
    ];
    for (name, tols, nodes, want) in cases {
        let mut scores: Vec<i64> = nodes
            .iter()
            .map(|taints| count_intolerable_prefer_no_schedule(taints, &tols, &OFF) as i64)
            .collect();
        default_normalize_score(100, true, &mut scores);
        assert_eq!(scores, want, "{name}");
    }
}

#[test]
fn normalize_score_without_reverse() {
    let mut s = vec![0, 5, 10];
    default_normalize_score(100, false, &mut s);
    assert_eq!(s, vec![0, 50, 100], "scaled by the maximum");
    let mut z = vec![0, 0];
    default_normalize_score(100, false, &mut z);
    assert_eq!(z, vec![0, 0], "all zero stays zero without reverse");
}

/// The taint-eviction controller's decision (upstream `processPodOnNode` +
/// `getMinTolerationTime`, `TestCreatePod`/`TestUpdateNode` cases of taint_eviction_test.go) and
/// the seeds' NoExecute rules.
#[test]
fn no_execute_outcomes() {
    use NoExecuteOutcome::*;
    let ne = |k: &str| taint(k, "", "NoExecute");
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Vec<Toleration>, NoExecuteOutcome)> = vec![
        ("a node without taints never evicts", vec![], vec![], Never),
        ("NoSchedule taints never evict", vec![taint("a", "", "NoSchedule")], vec![], Never),
        ("PreferNoSchedule taints never evict", vec![taint("a", "", "PreferNoSchedule")], vec![], Never),
        ("an untolerated NoExecute taint evicts immediately", vec![ne("a")], vec![], Immediately),
        ("a NoExecute taint tolerated without tolerationSeconds: stays bound forever",
            vec![ne("a")], vec![tol("a", "Exists", "", "NoExecute")], Never),
        ("tolerationSeconds 3600: evicted an hour later (seeds/000)",
            vec![taint("key1", "value1", "NoExecute")], vec![tol_secs("key1", "Equal", "value1", "NoExecute", 3600)], After(3600)),
        ("tolerationSeconds 0 evicts immediately", vec![ne("a")], vec![tol_secs("a", "Exists", "", "NoExecute", 0)], Immediately),
        ("negative tolerationSeconds evicts immediately", vec![ne("a")], vec![tol_secs("a", "Exists", "", "NoExecute", -5)], Immediately),
        ("the minimum over the taints' tolerations wins",
            vec![ne("a"), ne("b")],
            vec![tol_secs("a", "Exists", "", "NoExecute", 600), tol_secs("b", "Exists", "", "NoExecute", 300)], After(300)),
        ("a forever toleration and a finite one: the finite one decides",
            vec![ne("a"), ne("b")],
            vec![tol("a", "Exists", "", "NoExecute"), tol_secs("b", "Exists", "", "NoExecute", 100)], After(100)),
        ("one tolerated taint and one untolerated: immediately",
            vec![ne("a"), ne("b")], vec![tol("a", "Exists", "", "NoExecute")], Immediately),
        ("the first matching toleration is used: a later forever toleration does not rescue",
            vec![ne("a")],
            vec![tol_secs("a", "Exists", "", "NoExecute", 30), tol("", "Exists", "", "")], After(30)),
        ("the first matching toleration is used: an earlier forever toleration wins",
            vec![ne("a")],
            vec![tol("a", "Exists", "", ""), tol_secs("a", "Exists", "", "NoExecute", 30)], Never),
        ("NoSchedule taints beside a NoExecute one do not matter",
            vec![taint("x", "", "NoSchedule"), ne("a")], vec![tol_secs("a", "Exists", "", "NoExecute", 60)], After(60)),
        ("the default not-ready toleration: 300 s",
            vec![ne(TAINT_NODE_NOT_READY)],
            vec![tol_secs(TAINT_NODE_NOT_READY, "Exists", "", "NoExecute", 300), tol_secs(TAINT_NODE_UNREACHABLE, "Exists", "", "NoExecute", 300)],
            After(300)),
    ];
    for (name, taints, tols, want) in cases {
        assert_eq!(no_execute_outcome(&taints, &tols, &OFF), want, "{name}");
    }
}

#[test]
fn match_taint_is_key_and_effect() {
    assert!(
        match_taint(
            &taint("a", "1", "NoSchedule"),
            &taint("a", "2", "NoSchedule")
        ),
        "values are ignored"
    );
    assert!(
        !match_taint(
            &taint("a", "1", "NoSchedule"),
            &taint("a", "1", "NoExecute")
        ),
        "effects differ"
    );
    assert!(
        !match_taint(
            &taint("a", "1", "NoSchedule"),
            &taint("b", "1", "NoSchedule")
        ),
        "keys differ"
    );
}
