//! Upstream `filtering_test.go` (v1.35), Filter side: TestSingleConstraint and
//! TestMultipleConstraints, ported, plus Filter without PreFilter.

use k8s_openapi::api::core::v1::{Node, Pod};

use super::common::DO_NOT_SCHEDULE as HARD;
use super::fixtures::{
    Info, MakePod, Tsc, cluster, exists, foo_pods, four_nodes, mk_node, mk_pod, node_of, sc,
    unschedulable_taint,
};
use super::*;
use crate::scheduler::framework::Code;

/// A Filter case: name, pod, nodes, bound pods, each node's code.
type FilterCase = (&'static str, MakePod, Vec<Node>, Vec<Pod>, Vec<Code>);

#[test]
fn filter_without_pre_filter_state_is_an_error() {
    let c = cluster(four_nodes(), vec![]);
    let st = PodTopologySpread::default().filter(
        &CycleState::default(),
        &mk_pod("p").info(),
        node_of(&c, "node-a"),
        &c,
    );
    assert_eq!(st.code, Code::Error);
    assert_eq!(
        st.message(),
        "reading \"PreFilterPodTopologySpread\" from cycleState: not found"
    );
}
/// Runs PreFilter then Filter on every node; returns each node's code.
fn filter_codes(pod: MakePod, nodes: Vec<Node>, pods: Vec<Pod>) -> Vec<(String, Code)> {
    let c = cluster(nodes, pods);
    let pod = pod.info();
    let pl = PodTopologySpread::default();
    let mut state = CycleState::default();
    let (st, _) = pl.pre_filter(&mut state, &pod, &c);
    assert!(st.is_success(), "pre_filter: {st:?}");
    c.nodes
        .iter()
        .map(|n| {
            let st = pl.filter(&state, &pod, n, &c);
            match st.code {
                Code::Unschedulable => {
                    assert_eq!(
                        st.reasons,
                        vec![ERR_REASON_CONSTRAINTS_NOT_MATCH.to_string()]
                    )
                }
                Code::UnschedulableAndUnresolvable => {
                    assert_eq!(
                        st.reasons,
                        vec![ERR_REASON_NODE_LABEL_NOT_MATCH.to_string()]
                    )
                }
                _ => {}
            }
            (n.name.clone(), st.code)
        })
        .collect()
}

const OK: Code = Code::Success;
const NO: Code = Code::Unschedulable;
const UNR: Code = Code::UnschedulableAndUnresolvable;

fn run_filter_cases(cases: Vec<FilterCase>) {
    for (name, pod, nodes, pods, want) in cases {
        let got: Vec<Code> = filter_codes(pod, nodes, pods)
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// Upstream `TestSingleConstraint`.
#[test]
fn single_constraint() {
    let p = || mk_pod("p").label("foo", "");
    let three = || {
        ["node-a", "node-b", "node-c"]
            .iter()
            .map(|n| mk_node(n, &[("node", n)], vec![]))
            .collect::<Vec<_>>()
    };
    let foo_nodes = |tainted_y: bool| {
        vec![
            mk_node("node-a", &[("node", "node-a"), ("foo", "")], vec![]),
            mk_node("node-b", &[("node", "node-b"), ("foo", "")], vec![]),
            mk_node("node-x", &[("node", "node-x"), ("foo", "")], vec![]),
            if tainted_y {
                mk_node("node-y", &[("node", "node-y")], unschedulable_taint())
            } else {
                mk_node("node-y", &[("node", "node-y")], vec![])
            },
        ]
    };
    let one_one_one = || {
        foo_pods(&[
            ("node-a", "p-a", 1),
            ("node-b", "p-b", 1),
            ("node-y", "p-y", 1),
        ])
    };
    let two_one_zero_three = || {
        foo_pods(&[
            ("node-a", "p-a", 2),
            ("node-b", "p-b", 1),
            ("node-y", "p-y", 3),
        ])
    };
    #[rustfmt::skip]
    let cases: Vec<FilterCase> = vec![
        ("no existing pods", p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(), vec![], vec![OK, OK, OK, OK]),
        ("no existing pods, incoming pod doesn't match itself", p().add_spread_constraint(sc(1, "zone", HARD, exists("bar"))), four_nodes(), vec![], vec![OK, OK, OK, OK]),
        ("existing pods in a different namespace do not count", p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            vec![mk_pod("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(), mk_pod("p-b1").namespace("ns2").node("node-a").label("foo", "").obj(),
                 mk_pod("p-x1").node("node-x").label("foo", "").obj(), mk_pod("p-y1").node("node-y").label("foo", "").obj()],
            vec![OK, OK, NO, NO]),
        ("existing pods do not match null selector", p().add_spread_constraint(sc(1, "zone", HARD, None)), four_nodes(),
            foo_pods(&[("node-x", "p-x", 1), ("node-y", "p-y", 1)]), vec![OK, OK, OK, OK]),
        ("pods spread across zones as 3/3, all nodes fit", p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![OK, OK, OK, OK]),
        ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]), mk_node("node-b", &[("zon", "zone1"), ("node", "node-b")], vec![]),
                 mk_node("node-x", &[("zone", "zone2"), ("node", "node-x")], vec![]), mk_node("node-y", &[("zone", "zone2"), ("node", "node-y")], vec![])],
            foo_pods(&[("node-a", "p-a", 1), ("node-b", "p-b", 1), ("node-x", "p-x", 1), ("node-y", "p-y", 1)]), vec![OK, UNR, NO, NO]),
        ("pod cannot be scheduled as all nodes don't have label 'rack'", p().add_spread_constraint(sc(1, "rack", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]), mk_node("node-x", &[("zone", "zone2"), ("node", "node-x")], vec![])],
            vec![], vec![UNR, UNR]),
        ("pods spread across nodes as 2/1/0/3, only node-x fits", p().add_spread_constraint(sc(1, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![NO, NO, OK, NO]),
        ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", p().add_spread_constraint(sc(2, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![NO, OK, OK, NO]),
        ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself", mk_pod("p").label("bar", "").add_spread_constraint(sc(1, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![NO, OK, OK, NO]),
        ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
            p().node_affinity_in("node", &["node-a", "node-y"]).add_spread_constraint(sc(1, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![OK, OK, OK, NO]),
        ("terminating Pods should be excluded", p().add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("node", "node-a")], vec![]), mk_node("node-b", &[("node", "node-b")], vec![])],
            vec![mk_pod("p-a").node("node-a").label("foo", "").terminating().obj(), mk_pod("p-b").node("node-b").label("foo", "").obj()],
            vec![OK, NO]),
        ("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
            p().node_affinity_not_in("node", &["node-b"]).add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            foo_pods(&[("node-b", "p-b", 2), ("node-y", "p-y", 1)]), vec![OK, OK, NO, NO]),
        ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
            p().add_spread_constraint(sc(2, "node", HARD, exists("foo")).min_domains(4)), three(),
            foo_pods(&[("node-a", "p-a", 2), ("node-b", "p-b", 2), ("node-c", "p-c", 1)]), vec![NO, NO, OK]),
        ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
            p().add_spread_constraint(sc(2, "node", HARD, exists("foo")).min_domains(2)), three(),
            foo_pods(&[("node-a", "p-a", 2), ("node-b", "p-b", 2), ("node-c", "p-c", 1)]), vec![OK, OK, OK]),
        ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
            p().add_spread_constraint(sc(2, "zone", HARD, exists("foo")).min_domains(3)), four_nodes(),
            foo_pods(&[("node-a", "p-b", 1), ("node-b", "p-c", 1), ("node-y", "p-y", 1)]), vec![NO, NO, OK, OK]),
        ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
            p().add_spread_constraint(sc(2, "zone", HARD, exists("foo")).min_domains(1)), four_nodes(),
            foo_pods(&[("node-a", "p-b", 1), ("node-b", "p-c", 1), ("node-y", "p-y", 1)]), vec![OK, OK, OK, OK]),
        ("NodeAffinityPolicy honored with labelSelectors: pods spread as 1/1/0/~0~",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "node", HARD, exists("foo"))), foo_nodes(false), one_one_one(), vec![NO, NO, OK, OK]),
        ("NodeAffinityPolicy ignored with labelSelectors: pods spread as 1/1/0/~1~",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")), foo_nodes(false), one_one_one(), vec![NO, NO, OK, NO]),
        ("NodeAffinityPolicy honored with nodeAffinity",
            p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "node", HARD, exists("foo"))), foo_nodes(false), one_one_one(), vec![NO, NO, OK, OK]),
        ("NodeAffinityPolicy ignored with nodeAffinity",
            p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")), foo_nodes(false), one_one_one(), vec![NO, NO, OK, NO]),
        ("NodeTaintsPolicy honored: the tainted node's pod does not count, pods spread as 1/1/0/~0~",
            p().add_spread_constraint(sc(1, "node", HARD, exists("foo")).taints_policy("Honor")), foo_nodes(true), one_one_one(), vec![NO, NO, OK, OK]),
        ("NodeTaintsPolicy ignored: the tainted node's pod counts, pods spread as 1/1/0/1",
            p().add_spread_constraint(sc(1, "node", HARD, exists("foo"))), foo_nodes(true), one_one_one(), vec![NO, NO, OK, NO]),
    ];
    run_filter_cases(cases);
}

/// Upstream `TestMultipleConstraints`.
#[test]
fn multiple_constraints() {
    let zn = || {
        mk_pod("p")
            .label("foo", "")
            .add_spread_constraint(sc(1, "zone", HARD, exists("foo")))
            .add_spread_constraint(sc(1, "node", HARD, exists("foo")))
    };
    let zn_diff = |p: MakePod| {
        p.add_spread_constraint(sc(1, "zone", HARD, exists("foo")))
            .add_spread_constraint(sc(1, "node", HARD, exists("bar")))
    };
    let fb = || mk_pod("p").label("foo", "").label("bar", "");
    let pod = |name: &str, node: &str, labels: &[&str]| {
        labels
            .iter()
            .fold(mk_pod(name).node(node), |p, l| p.label(l, ""))
            .obj()
    };
    // node-y is always tainted; `b_foo`/`y_foo` give node-b/node-y the label `foo`.
    let inc_nodes = |b_foo: bool, y_foo: bool| {
        let with_foo = |labels: &[(&'static str, &'static str)], foo: bool| {
            let mut v = labels.to_vec();
            if foo {
                v.push(("foo", ""));
            }
            v
        };
        vec![
            mk_node(
                "node-a",
                &[("zone", "zone1"), ("node", "node-a"), ("foo", "")],
                vec![],
            ),
            mk_node(
                "node-b",
                &with_foo(&[("zone", "zone1"), ("node", "node-b")], b_foo),
                vec![],
            ),
            mk_node(
                "node-x",
                &[("zone", "zone2"), ("node", "node-x"), ("foo", "")],
                vec![],
            ),
            mk_node(
                "node-y",
                &with_foo(&[("zone", "zone2"), ("node", "node-y")], y_foo),
                unschedulable_taint(),
            ),
        ]
    };
    let abx_y = || {
        foo_pods(&[
            ("node-a", "p-a", 1),
            ("node-b", "p-b", 1),
            ("node-y", "p-y", 1),
        ])
    };
    #[rustfmt::skip]
    let cases: Vec<FilterCase> = vec![
        ("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]", zn(), four_nodes(),
            foo_pods(&[("node-a", "p-a", 2), ("node-b", "p-b", 1), ("node-y", "p-y", 3)]), vec![NO, NO, OK, NO]),
        ("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]", zn(), four_nodes(),
            foo_pods(&[("node-a", "p-a", 2), ("node-b", "p-b", 1), ("node-y", "p-y", 4)]), vec![NO, NO, NO, NO]),
        ("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]", zn_diff(fb()), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-y1", "node-y", &["bar"])], vec![NO, NO, OK, NO]),
        ("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]", zn_diff(fb()), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-x1", "node-x", &["bar"]), pod("p-y1", "node-y", &["bar"])], vec![NO, NO, NO, NO]),
        ("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]", zn_diff(fb()), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-a2", "node-a", &["foo", "bar"]), pod("p-y1", "node-y", &["foo"]),
                 pod("p-y2", "node-y", &["foo", "bar"]), pod("p-y3", "node-y", &["foo"])], vec![NO, OK, NO, NO]),
        ("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint", zn_diff(mk_pod("p").label("bar", "")), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-x1", "node-x", &["bar"]), pod("p-y1", "node-y", &["bar"])], vec![OK, OK, NO, NO]),
        ("two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]", zn(),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]), mk_node("node-b", &[("zone", "zone1"), ("node", "node-b")], vec![]),
                 mk_node("node-x", &[("zone", "zone2")], vec![]), mk_node("node-y", &[("zone", "zone2"), ("node", "node-y")], vec![])],
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-y3", "node-y", &["foo"])], vec![NO, OK, UNR, NO]),
        ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore: the tainted zone2 node is no domain for zone",
            mk_pod("p").label("foo", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo")).taints_policy("Honor")).add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            inc_nodes(true, false), abx_y(), vec![NO, NO, OK, NO]),
        ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
            mk_pod("p").label("foo", "").node_selector("foo", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            inc_nodes(false, true), abx_y(), vec![NO, OK, OK, NO]),
        ("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
            mk_pod("p").label("foo", "").node_selector("foo", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo")).taints_policy("Honor"))
                .add_spread_constraint(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")),
            inc_nodes(false, true), abx_y(), vec![NO, NO, OK, NO]),
        ("two Constraints on zone, spreads = [3/3, 2/1]",
            fb().add_spread_constraint(sc(1, "zone", HARD, exists("bar"))).add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo", "bar"]), pod("p-a2", "node-a", &["foo"]), pod("p-b1", "node-b", &["foo", "bar"]),
                 pod("p-y1", "node-y", &["foo"]), pod("p-y2", "node-y", &["foo", "bar"]), pod("p-y3", "node-y", &["foo"])], vec![NO, NO, OK, OK]),
        ("two Constraints on zone, spreads = [3/4, 2/1]",
            fb().add_spread_constraint(sc(1, "zone", HARD, exists("bar"))).add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo", "bar"]), pod("p-a2", "node-a", &["foo"]), pod("p-b1", "node-b", &["foo", "bar"]),
                 pod("p-y1", "node-y", &["foo"]), pod("p-y2", "node-y", &["foo", "bar"]), pod("p-y3", "node-y", &["foo"]),
                 pod("p-y4", "node-y", &["foo"])], vec![NO, NO, NO, NO]),
    ];
    run_filter_cases(cases);
}

#[test]
fn reasons_are_upstreams_byte_for_byte() {
    assert_eq!(
        ERR_REASON_CONSTRAINTS_NOT_MATCH,
        "node(s) didn't match pod topology spread constraints"
    );
    assert_eq!(
        ERR_REASON_NODE_LABEL_NOT_MATCH,
        "node(s) didn't match pod topology spread constraints (missing required label)"
    );
}
