//! Upstream `scoring_test.go` (v1.35): TestPreScoreSkip, TestPreScoreStateEmptyNodes and
//! TestPodTopologySpreadScore, ported.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, Pod};
use repel_core::labels::LabelSelector;

use super::common::{
    LABEL_HOSTNAME as HOST, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY as SOFT,
    system_default_constraints,
};
use super::fixtures::{
    Info, MakePod, Tsc, cluster, exists, labels_sel, mk_node, mk_pod, node_of, on, sc,
    unschedulable_taint,
};
use super::scoring::{normalize_score, pre_score, score, topology_normalizing_weight};
use super::*;
use crate::cluster::Cluster;
use crate::scheduler::framework::Code;

fn names(c: &Cluster, nodes: &[Node]) -> Vec<usize> {
    nodes
        .iter()
        .filter_map(|n| c.node_id(n.metadata.name.as_deref().unwrap_or_default()))
        .collect()
}

/// Upstream `TestPreScoreSkip`.
#[test]
fn pre_score_skips_pods_without_soft_constraints() {
    let nodes = vec![
        mk_node("node-a", &[(HOST, "node-a")], vec![]),
        mk_node("node-b", &[(HOST, "node-b")], vec![]),
    ];
    let c = cluster(nodes, vec![]);
    let feasible: Vec<&NodeInfo> = c.nodes.iter().collect();
    #[rustfmt::skip]
    let cases = [
        ("the pod doesn't have soft topology spread constraints", mk_pod("p")),
        ("only hard constraints", mk_pod("p").add_spread_constraint(sc(1, "zone", "DoNotSchedule", exists("foo")))),
    ];
    for (name, pod) in cases {
        let st = PodTopologySpread::default().pre_score(
            &mut CycleState::default(),
            &pod.info(),
            &feasible,
            &c,
        );
        assert_eq!(st.code, Code::Skip, "{name}");
    }
    let st = PodTopologySpread::default().pre_score(
        &mut CycleState::default(),
        &mk_pod("p")
            .add_spread_constraint(sc(1, HOST, SOFT, exists("foo")))
            .info(),
        &[],
        &Cluster::new(),
    );
    assert_eq!(st.code, Code::Skip, "no nodes in the cluster: skip");
}

/// Per constraint: domain counts; then the ignored nodes and the weights' sizes.
type WantState = (Vec<Vec<(&'static str, i64)>>, Vec<&'static str>, Vec<usize>);

/// Upstream `TestPreScoreStateEmptyNodes`.
#[test]
fn pre_score_state() {
    let zone_host = |x_zone: bool, x_taint: bool, foo_ab: bool| {
        let mk = |n: &'static str, zone: &'static str, foo: bool, taint: bool, with_zone: bool| {
            let mut l = vec![(HOST, n)];
            if with_zone {
                l.push(("zone", zone));
            }
            if foo {
                l.push(("foo", ""));
            }
            mk_node(n, &l, if taint { unschedulable_taint() } else { vec![] })
        };
        vec![
            mk("node-a", "zone1", foo_ab, false, true),
            mk("node-b", "zone1", foo_ab, false, true),
            mk("node-x", "zone2", false, x_taint, x_zone),
        ]
    };
    let p = || mk_pod("p").label("foo", "");
    #[rustfmt::skip]
    let cases: Vec<(&str, MakePod, Vec<Node>, WantState)> = vec![
        ("normal case", p().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            zone_host(true, false, false), (vec![vec![("zone1", 0), ("zone2", 0)], vec![]], vec![], vec![2, 3])),
        ("null selector", p().add_spread_constraint(sc(1, "zone", SOFT, None)),
            zone_host(true, false, false), (vec![vec![("zone1", 0), ("zone2", 0)]], vec![], vec![2])),
        ("node-x doesn't have label zone", p().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("bar"))),
            zone_host(false, false, false), (vec![vec![("zone1", 0)], vec![]], vec!["node-x"], vec![1, 2])),
        ("NodeAffinityPolicy honored with labelSelectors", p().node_selector("foo", "").add_spread_constraint(sc(1, "zone", SOFT, exists("bar"))),
            zone_host(true, false, true), (vec![vec![("zone1", 0), ("zone2", 0)]], vec![], vec![2])),
        ("NodeAffinityPolicy ignored with labelSelectors", p().node_selector("foo", "").add_spread_constraint(sc(1, "zone", SOFT, exists("bar")).affinity_policy("Ignore")),
            zone_host(true, false, true), (vec![vec![("zone1", 0), ("zone2", 0)]], vec![], vec![2])),
        ("NodeAffinityPolicy honored with nodeAffinity", p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "zone", SOFT, exists("bar"))),
            zone_host(true, false, true), (vec![vec![("zone1", 0), ("zone2", 0)]], vec![], vec![2])),
        ("NodeTaintsPolicy honored", p().add_spread_constraint(sc(1, "zone", SOFT, exists("bar")).taints_policy("Honor")),
            zone_host(true, true, true), (vec![vec![("zone1", 0), ("zone2", 0)]], vec![], vec![2])),
        ("NodeTaintsPolicy ignored", p().add_spread_constraint(sc(1, "zone", SOFT, exists("bar"))),
            zone_host(true, true, true), (vec![vec![("zone1", 0), ("zone2", 0)]], vec![], vec![2])),
    ];
    for (name, pod, nodes, (counts, ignored, sizes)) in cases {
        let c = cluster(nodes, vec![]);
        let feasible: Vec<&NodeInfo> = c.nodes.iter().collect();
        let mut state = CycleState::default();
        let st = PodTopologySpread::default().pre_score(&mut state, &pod.info(), &feasible, &c);
        assert_eq!(st.code, Code::Success, "{name}");
        let got = state
            .read::<PreScoreState>(PRE_SCORE_STATE_KEY)
            .unwrap_or_else(|| panic!("{name}: no state"));
        let want_counts: Vec<BTreeMap<String, i64>> = counts
            .iter()
            .map(|m| m.iter().map(|(k, v)| (k.to_string(), *v)).collect())
            .collect();
        assert_eq!(
            got.topology_value_to_pod_counts, want_counts,
            "{name}: counts"
        );
        let want_ignored: BTreeSet<String> = ignored.iter().map(|s| s.to_string()).collect();
        assert_eq!(got.ignored_nodes, want_ignored, "{name}: ignored nodes");
        let want_weights: Vec<f64> = sizes.into_iter().map(topology_normalizing_weight).collect();
        assert_eq!(
            got.topology_normalizing_weight, want_weights,
            "{name}: weights"
        );
    }
}

/// Upstream "system default constraints and a replicaset": with the system defaults, nodes
/// without a zone are not ignored but form the zone "".
#[test]
fn system_default_constraints_do_not_require_every_key() {
    let nodes = vec![
        mk_node(
            "node-a",
            &[(HOST, "node-a"), (LABEL_TOPOLOGY_ZONE, "mars")],
            vec![],
        ),
        mk_node(
            "node-b",
            &[(HOST, "node-b"), (LABEL_TOPOLOGY_ZONE, "mars")],
            vec![],
        ),
        mk_node("node-c", &[(HOST, "node-c")], vec![]),
        mk_node("node-d", &[(HOST, "node-d")], vec![]),
    ];
    let c = cluster(nodes, vec![]);
    let feasible: Vec<&NodeInfo> = c.nodes.iter().collect();
    let foo: LabelSelector = "foo".parse().unwrap_or_default();
    let pod = mk_pod("p").label("foo", "tar").info();
    let got = pre_score(&pod, &feasible, &c, &Default::default(), true, &foo)
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("no state"));
    let keys: Vec<(&str, i32)> = got
        .constraints
        .iter()
        .map(|c| (c.topology_key.as_str(), c.max_skew))
        .collect();
    assert_eq!(keys, vec![(HOST, 3), (LABEL_TOPOLOGY_ZONE, 5)]);
    assert!(got.ignored_nodes.is_empty());
    let zone: BTreeMap<String, i64> = [("mars".to_string(), 0), (String::new(), 0)].into();
    assert_eq!(
        got.topology_value_to_pod_counts,
        vec![BTreeMap::new(), zone]
    );
    assert_eq!(
        got.topology_normalizing_weight,
        vec![
            topology_normalizing_weight(4),
            topology_normalizing_weight(2)
        ]
    );
    assert!(
        system_default_constraints(&LabelSelector::everything(), SOFT).is_empty(),
        "an empty default selector gives no default constraints"
    );
    assert!(
        PodTopologySpread::default()
            .pre_score(&mut CycleState::default(), &pod, &feasible, &c)
            .code
            == Code::Skip,
        "repel finds no Service/ReplicaSet/StatefulSet selector: no defaults, Skip"
    );
}

/// PreScore, Score and NormalizeScore over `feasible`, the cluster holding `feasible` and
/// `failed` nodes and `pods`; `defaults` stands in for `helper.DefaultSelector`.
fn run_scores(
    pod: MakePod,
    feasible: Vec<Node>,
    failed: Vec<Node>,
    pods: Vec<Pod>,
    defaults: Option<&str>,
) -> Vec<i64> {
    let ids = {
        let c = cluster([feasible.clone(), failed.clone()].concat(), vec![]);
        names(&c, &feasible)
    };
    let c = cluster([feasible, failed].concat(), pods);
    let nodes: Vec<&NodeInfo> = ids.iter().map(|i| &c.nodes[*i]).collect();
    let pod = pod.info();
    let selector: LabelSelector = defaults
        .map(|s| s.parse().unwrap_or_default())
        .unwrap_or_default();
    let state = pre_score(&pod, &nodes, &c, &Default::default(), true, &selector)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("skipped"));
    let mut scores: Vec<i64> = nodes.iter().map(|n| score(&state, &pod, n, &c)).collect();
    normalize_score(&state, &mut scores);
    scores
}

/// A Score case: name, pod, feasible nodes, other nodes, bound pods, default selector, scores.
type ScoreCase = (
    &'static str,
    MakePod,
    Vec<Node>,
    Vec<Node>,
    Vec<Pod>,
    Option<&'static str>,
    Vec<i64>,
);

fn hosts(names: &[&'static str]) -> Vec<Node> {
    names
        .iter()
        .map(|n| mk_node(n, &[(HOST, n)], vec![]))
        .collect()
}

fn zones(names: &[(&'static str, &'static str)]) -> Vec<Node> {
    names
        .iter()
        .map(|(n, z)| mk_node(n, &[("zone", z), (HOST, n)], vec![]))
        .collect()
}

fn foo(spec: &[(&str, usize)]) -> Vec<Pod> {
    spec.iter()
        .flat_map(|(node, n)| on(node, &format!("p-{node}-"), &[("foo", "")], *n))
        .collect()
}

fn labelled(spec: &[(&str, &str, &[&str])]) -> Vec<Pod> {
    spec.iter()
        .map(|(name, node, labels)| {
            labels
                .iter()
                .fold(mk_pod(name).node(node), |p, l| p.label(l, ""))
                .obj()
        })
        .collect()
}

/// Upstream `TestPodTopologySpreadScore`.
#[test]
fn pod_topology_spread_score() {
    let p = || mk_pod("p").label("foo", "");
    let fb = || mk_pod("p").label("foo", "").label("bar", "");
    let abcd = || hosts(&["node-a", "node-b", "node-c", "node-d"]);
    let four_three_two_one = || foo(&[("node-a", 4), ("node-b", 3), ("node-c", 2), ("node-d", 1)]);
    let two_one_zero_three = || foo(&[("node-a", 2), ("node-b", 1), ("node-d", 3)]);
    let four_two_one_three = || foo(&[("node-a", 4), ("node-b", 2), ("node-x", 1), ("node-y", 3)]);
    let node_key = |extra: &[(&'static str, &'static str)], c_taint: bool| {
        ["node-a", "node-b", "node-c"]
            .iter()
            .map(|n| {
                let mut l = vec![("node", *n)];
                if *n != "node-c" {
                    l.extend_from_slice(extra);
                }
                mk_node(
                    n,
                    &l,
                    if c_taint && *n == "node-c" {
                        unschedulable_taint()
                    } else {
                        vec![]
                    },
                )
            })
            .collect::<Vec<_>>()
    };
    let two_one_one = || foo(&[("node-a", 2), ("node-b", 1), ("node-c", 1)]);
    let mixed = || {
        labelled(&[
            ("p-a1", "node-a", &["foo"]),
            ("p-b1", "node-b", &["foo", "bar"]),
            ("p-y1", "node-y", &["foo"]),
            ("p-y2", "node-y", &["bar"]),
        ])
    };
    let zone4 = || {
        zones(&[
            ("node-a", "zone1"),
            ("node-b", "zone1"),
            ("node-x", "zone2"),
            ("node-y", "zone2"),
        ])
    };
    let mlk = || {
        labelled(&[
            ("p-a1", "node-a", &["foo"]),
            ("p-b1", "node-b", &["foo", "bar"]),
            ("p-y1", "node-c", &["foo"]),
            ("p-y2", "node-c", &["bar"]),
        ])
    };
    let zone_abcd = || {
        zones(&[
            ("node-a", "zone1"),
            ("node-b", "zone1"),
            ("node-c", "zone2"),
            ("node-d", "zone2"),
        ])
    };
    #[rustfmt::skip]
    let cases: Vec<ScoreCase> = vec![
        ("one constraint on node, no existing pods", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            hosts(&["node-a", "node-b"]), vec![], vec![], None, vec![100, 100]),
        ("one constraint on node, only one node is candidate", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            hosts(&["node-a"]), hosts(&["node-b"]), foo(&[("node-a", 2), ("node-b", 1)]), None, vec![100]),
        ("one constraint on node, all nodes have the same number of matching pods", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            hosts(&["node-a", "node-b"]), vec![], foo(&[("node-a", 1), ("node-b", 1)]), None, vec![100, 100]),
        ("one constraint on node, all 4 nodes are candidates", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            abcd(), vec![], two_one_zero_three(), None, vec![20, 60, 100, 0]),
        ("one constraint on node, null selector", p().add_spread_constraint(sc(1, HOST, SOFT, None)),
            abcd(), vec![], two_one_zero_three(), None, vec![100, 100, 100, 100]),
        ("one constraint on node, all 4 nodes are candidates, maxSkew=2", p().add_spread_constraint(sc(2, HOST, SOFT, exists("foo"))),
            abcd(), vec![], two_one_zero_three(), None, vec![33, 66, 100, 16]),
        ("one constraint on node, all 4 nodes are candidates, maxSkew=3", p().add_spread_constraint(sc(3, HOST, SOFT, exists("foo"))),
            abcd(), vec![], four_three_two_one(), None, vec![44, 66, 77, 100]),
        ("system defaulting, nodes don't have zone, pods match service", p(),
            abcd(), vec![], four_three_two_one(), Some("foo="), vec![44, 66, 77, 100]),
        ("one constraint on node, 3 out of 4 nodes are candidates", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            hosts(&["node-a", "node-b", "node-x"]), hosts(&["node-y"]), four_two_one_three(), None, vec![33, 83, 100]),
        ("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            vec![mk_node("node-a", &[(HOST, "node-a")], vec![]), mk_node("node-b", &[("n", "node-b")], vec![]), mk_node("node-x", &[(HOST, "node-x")], vec![])],
            hosts(&["node-y"]), four_two_one_three(), None, vec![16, 0, 100]),
        ("one constraint on zone, 3 out of 4 nodes are candidates", p().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))),
            zones(&[("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")]), zones(&[("node-y", "zone2")]), four_two_one_three(), None, vec![75, 75, 100]),
        ("two Constraints on zone and node, 2 out of 4 nodes are candidates",
            p().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            zones(&[("node-a", "zone1"), ("node-x", "zone2")]), zones(&[("node-b", "zone1"), ("node-y", "zone2")]),
            foo(&[("node-a", 2), ("node-b", 1), ("node-x", 2), ("node-y", 4)]), None, vec![100, 63]),
        ("two Constraints on zone, 2 out of 4 nodes are candidates",
            fb().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, "zone", SOFT, exists("bar"))),
            vec![mk_node("node-a", &[("zone", "zone1")], vec![]), mk_node("node-x", &[("zone", "zone2")], vec![])],
            vec![mk_node("node-b", &[("zone", "zone1")], vec![]), mk_node("node-y", &[("zone", "zone2")], vec![])],
            labelled(&[("p-a1", "node-a", &["foo", "bar"]), ("p-a2", "node-a", &["foo"]), ("p-b1", "node-b", &["foo", "bar"]),
                       ("p-y1", "node-y", &["foo"]), ("p-y2", "node-y", &["foo", "bar"]), ("p-y3", "node-y", &["foo"])]), None, vec![85, 100]),
        ("two Constraints on zone and node, with different labelSelectors",
            fb().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("bar"))),
            zone4(), vec![], mixed(), None, vec![60, 20, 100, 60]),
        ("two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
            fb().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("bar"))),
            zone4(), vec![], labelled(&[("p-b1", "node-b", &["bar"]), ("p-x1", "node-x", &["foo"]), ("p-y1", "node-y", &["foo", "bar"])]),
            None, vec![100, 60, 40, 0]),
        ("two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
            fb().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("bar"))),
            zones(&[("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")]), zones(&[("node-y", "zone2")]), mixed(), None, vec![50, 25, 100]),
        ("existing pods in a different namespace do not count", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            hosts(&["node-a", "node-b"]), vec![],
            vec![mk_pod("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(), mk_pod("p-a2").node("node-a").label("foo", "").obj(),
                 mk_pod("p-b1").node("node-b").label("foo", "").obj(), mk_pod("p-b2").node("node-b").label("foo", "").obj()],
            None, vec![100, 33]),
        ("terminating Pods should be excluded", p().add_spread_constraint(sc(1, HOST, SOFT, exists("foo"))),
            hosts(&["node-a", "node-b"]), vec![],
            vec![mk_pod("p-a").node("node-a").label("foo", "").terminating().obj(), mk_pod("p-b").node("node-b").label("foo", "").obj()],
            None, vec![100, 0]),
        ("minDomains has no effect when ScheduleAnyway", p().add_spread_constraint(sc(2, "node", SOFT, exists("foo")).min_domains(10)),
            node_key(&[], false), vec![], foo(&[("node-a", 2), ("node-b", 2), ("node-c", 1)]), None, vec![75, 75, 100]),
        ("NodeAffinityPolicy honored with labelSelectors", p().node_selector("foo", "").add_spread_constraint(sc(1, "node", SOFT, exists("foo"))),
            node_key(&[("foo", "")], false), vec![], two_one_one(), None, vec![0, 33, 100]),
        ("NodeAffinityPolicy ignored with labelSelectors", p().node_selector("foo", "").add_spread_constraint(sc(1, "node", SOFT, exists("foo")).affinity_policy("Ignore")),
            node_key(&[("foo", "")], false), vec![], two_one_one(), None, vec![66, 100, 100]),
        ("NodeAffinityPolicy honored with nodeAffinity", p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "node", SOFT, exists("foo"))),
            node_key(&[("foo", "")], false), vec![], two_one_one(), None, vec![0, 33, 100]),
        ("NodeAffinityPolicy ignored with nodeAffinity", p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "node", SOFT, exists("foo")).affinity_policy("Ignore")),
            node_key(&[("foo", "")], false), vec![], two_one_one(), None, vec![66, 100, 100]),
        ("NodeTaintsPolicy honored: the tainted node's pod does not count", p().add_spread_constraint(sc(1, "node", SOFT, exists("foo")).taints_policy("Honor")),
            node_key(&[], true), vec![], two_one_one(), None, vec![0, 33, 100]),
        ("NodeTaintsPolicy ignored: the tainted node's pod counts", p().add_spread_constraint(sc(1, "node", SOFT, exists("foo"))),
            node_key(&[], true), vec![], two_one_one(), None, vec![66, 100, 100]),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
            fb().add_spread_constraint(sc(1, "zone", SOFT, labels_sel(&[])).match_label_keys(&["foo"])).add_spread_constraint(sc(1, HOST, SOFT, labels_sel(&[])).match_label_keys(&["bar"])),
            zone_abcd(), vec![], mlk(), None, vec![60, 20, 60, 100]),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
            fb().label("baz", "").add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, HOST, SOFT, exists("bar")).match_label_keys(&["baz"])),
            zone_abcd(), vec![],
            labelled(&[("p-a1", "node-a", &["foo"]), ("p-b1", "node-b", &["foo", "bar", "baz"]), ("p-c1", "node-c", &["foo"]),
                       ("p-c2", "node-c", &["bar"]), ("p-d3", "node-c", &["bar", "baz"])]),
            None, vec![60, 20, 60, 100]),
    ];
    for (name, pod, feasible, failed, pods, defaults, want) in cases {
        assert_eq!(
            run_scores(pod, feasible, failed, pods, defaults),
            want,
            "{name}"
        );
    }
}

/// The plugin through the framework's calls: PreScore's node order carries to NormalizeScore.
#[test]
fn plugin_scores_through_cycle_state() {
    let c = cluster(
        hosts(&["node-a", "node-b", "node-c", "node-d"]),
        foo(&[("node-a", 2), ("node-b", 1), ("node-d", 3)]),
    );
    let pod = mk_pod("p")
        .label("foo", "")
        .add_spread_constraint(sc(1, HOST, SOFT, exists("foo")))
        .info();
    let order = ["node-d", "node-c", "node-b", "node-a"];
    let nodes: Vec<&NodeInfo> = order.iter().map(|n| node_of(&c, n)).collect();
    let pl = PodTopologySpread::default();
    let mut state = CycleState::default();
    assert!(pl.pre_score(&mut state, &pod, &nodes, &c).is_success());
    let mut scores: Vec<i64> = nodes
        .iter()
        .map(|n| pl.score(&state, &pod, n, &c).unwrap_or(-1))
        .collect();
    pl.normalize_score(&state, &pod, &mut scores);
    assert_eq!(scores, vec![0, 100, 60, 20]);
    let err = pl.score(&CycleState::default(), &pod, nodes[0], &c);
    assert_eq!(
        err.map_err(|s| s.message()),
        Err("error reading \"PreScorePodTopologySpread\" from cycleState: not found".to_string())
    );
}
