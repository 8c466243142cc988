//! Upstream `filtering_test.go` (v1.35), Filter side: TestSingleConstraint and
//! TestMultipleConstraints, ported, plus Filter without PreFilter.

use k8s_openapi::api::core::v1::{Node, Pod};

use super::common::DO_NOT_SCHEDULE as HARD;
use super::fixtures::{
    P, Tsc, cluster, exists, foo_pods, four_nodes, mk_node, node_of, sc, unschedulable_taint,
};
use super::*;
use crate::scheduler::framework::Code;

/// A Filter case: name, pod, nodes, bound pods, each node's code.
type FilterCase = (&'static str, P, Vec<Node>, Vec<Pod>, Vec<Code>);

#[test]
fn filter_without_pre_filter_state_is_an_error() {
    let c = cluster(four_nodes(), vec![]);
    let st = PodTopologySpread::default().filter(
        &CycleState::default(),
        &P::new("p").info(),
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
fn filter_codes(pod: P, nodes: Vec<Node>, pods: Vec<Pod>) -> Vec<(String, Code)> {
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
    let p = || P::new("p").label("foo", "");
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
        ("no existing pods", p().spread(sc(1, "zone", HARD, exists("foo"))), four_nodes(), vec![], vec![OK, OK, OK, OK]),
        ("no existing pods, incoming pod doesn't match itself", p().spread(sc(1, "zone", HARD, exists("bar"))), four_nodes(), vec![], vec![OK, OK, OK, OK]),
        ("existing pods in a different namespace do not count", p().spread(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            vec![P::new("p-a1").ns("ns1").on("node-a").label("foo", "").obj(), P::new("p-b1").ns("ns2").on("node-a").label("foo", "").obj(),
                 P::new("p-x1").on("node-x").label("foo", "").obj(), P::new("p-y1").on("node-y").label("foo", "").obj()],
            vec![OK, OK, NO, NO]),
        ("existing pods do not match null selector", p().spread(sc(1, "zone", HARD, None)), four_nodes(),
            foo_pods(&[("node-x", "p-x", 1), ("node-y", "p-y", 1)]), vec![OK, OK, OK, OK]),
        ("pods spread across zones as 3/3, all nodes fit", p().spread(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![OK, OK, OK, OK]),
        ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", p().spread(sc(1, "zone", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]), mk_node("node-b", &[("zon", "zone1"), ("node", "node-b")], vec![]),
                 mk_node("node-x", &[("zone", "zone2"), ("node", "node-x")], vec![]), mk_node("node-y", &[("zone", "zone2"), ("node", "node-y")], vec![])],
            foo_pods(&[("node-a", "p-a", 1), ("node-b", "p-b", 1), ("node-x", "p-x", 1), ("node-y", "p-y", 1)]), vec![OK, UNR, NO, NO]),
        ("pod cannot be scheduled as all nodes don't have label 'rack'", p().spread(sc(1, "rack", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]), mk_node("node-x", &[("zone", "zone2"), ("node", "node-x")], vec![])],
            vec![], vec![UNR, UNR]),
        ("pods spread across nodes as 2/1/0/3, only node-x fits", p().spread(sc(1, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![NO, NO, OK, NO]),
        ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", p().spread(sc(2, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![NO, OK, OK, NO]),
        ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself", P::new("p").label("bar", "").spread(sc(1, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![NO, OK, OK, NO]),
        ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
            p().node_affinity("node", "In", &["node-a", "node-y"]).spread(sc(1, "node", HARD, exists("foo"))), four_nodes(),
            two_one_zero_three(), vec![OK, OK, OK, NO]),
        ("terminating Pods should be excluded", p().spread(sc(1, "node", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("node", "node-a")], vec![]), mk_node("node-b", &[("node", "node-b")], vec![])],
            vec![P::new("p-a").on("node-a").label("foo", "").terminating().obj(), P::new("p-b").on("node-b").label("foo", "").obj()],
            vec![OK, NO]),
        ("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
            p().node_affinity("node", "NotIn", &["node-b"]).spread(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            foo_pods(&[("node-b", "p-b", 2), ("node-y", "p-y", 1)]), vec![OK, OK, NO, NO]),
        ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
            p().spread(sc(2, "node", HARD, exists("foo")).min_domains(4)), three(),
            foo_pods(&[("node-a", "p-a", 2), ("node-b", "p-b", 2), ("node-c", "p-c", 1)]), vec![NO, NO, OK]),
        ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
            p().spread(sc(2, "node", HARD, exists("foo")).min_domains(2)), three(),
            foo_pods(&[("node-a", "p-a", 2), ("node-b", "p-b", 2), ("node-c", "p-c", 1)]), vec![OK, OK, OK]),
        ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
            p().spread(sc(2, "zone", HARD, exists("foo")).min_domains(3)), four_nodes(),
            foo_pods(&[("node-a", "p-b", 1), ("node-b", "p-c", 1), ("node-y", "p-y", 1)]), vec![NO, NO, OK, OK]),
        ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
            p().spread(sc(2, "zone", HARD, exists("foo")).min_domains(1)), four_nodes(),
            foo_pods(&[("node-a", "p-b", 1), ("node-b", "p-c", 1), ("node-y", "p-y", 1)]), vec![OK, OK, OK, OK]),
        ("NodeAffinityPolicy honored with labelSelectors: pods spread as 1/1/0/~0~",
            p().node_selector("foo", "").spread(sc(1, "node", HARD, exists("foo"))), foo_nodes(false), one_one_one(), vec![NO, NO, OK, OK]),
        ("NodeAffinityPolicy ignored with labelSelectors: pods spread as 1/1/0/~1~",
            p().node_selector("foo", "").spread(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")), foo_nodes(false), one_one_one(), vec![NO, NO, OK, NO]),
        ("NodeAffinityPolicy honored with nodeAffinity",
            p().node_affinity("foo", "In", &[""]).spread(sc(1, "node", HARD, exists("foo"))), foo_nodes(false), one_one_one(), vec![NO, NO, OK, OK]),
        ("NodeAffinityPolicy ignored with nodeAffinity",
            p().node_affinity("foo", "In", &[""]).spread(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")), foo_nodes(false), one_one_one(), vec![NO, NO, OK, NO]),
        ("NodeTaintsPolicy honored: the tainted node's pod does not count, pods spread as 1/1/0/~0~",
            p().spread(sc(1, "node", HARD, exists("foo")).taints_policy("Honor")), foo_nodes(true), one_one_one(), vec![NO, NO, OK, OK]),
        ("NodeTaintsPolicy ignored: the tainted node's pod counts, pods spread as 1/1/0/1",
            p().spread(sc(1, "node", HARD, exists("foo"))), foo_nodes(true), one_one_one(), vec![NO, NO, OK, NO]),
    ];
    run_filter_cases(cases);
}

/// Upstream `TestMultipleConstraints`.
#[test]
fn multiple_constraints() {
    let zn = || {
        P::new("p")
            .label("foo", "")
            .spread(sc(1, "zone", HARD, exists("foo")))
            .spread(sc(1, "node", HARD, exists("foo")))
    };
    let zn_diff = |p: P| {
        p.spread(sc(1, "zone", HARD, exists("foo")))
            .spread(sc(1, "node", HARD, exists("bar")))
    };
    let fb = || P::new("p").label("foo", "").label("bar", "");
    let pod = |name: &str, node: &str, labels: &[&str]| {
        labels
            .iter()
            .fold(P::new(name).on(node), |p, l| p.label(l, ""))
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
        ("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint", zn_diff(P::new("p").label("bar", "")), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-x1", "node-x", &["bar"]), pod("p-y1", "node-y", &["bar"])], vec![OK, OK, NO, NO]),
        ("two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]", zn(),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]), mk_node("node-b", &[("zone", "zone1"), ("node", "node-b")], vec![]),
                 mk_node("node-x", &[("zone", "zone2")], vec![]), mk_node("node-y", &[("zone", "zone2"), ("node", "node-y")], vec![])],
            vec![pod("p-a1", "node-a", &["foo"]), pod("p-y3", "node-y", &["foo"])], vec![NO, OK, UNR, NO]),
        ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore: the tainted zone2 node is no domain for zone",
            P::new("p").label("foo", "").spread(sc(1, "zone", HARD, exists("foo")).taints_policy("Honor")).spread(sc(1, "node", HARD, exists("foo"))),
            inc_nodes(true, false), abx_y(), vec![NO, NO, OK, NO]),
        ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
            P::new("p").label("foo", "").node_selector("foo", "").spread(sc(1, "zone", HARD, exists("foo"))).spread(sc(1, "node", HARD, exists("foo"))),
            inc_nodes(false, true), abx_y(), vec![NO, OK, OK, NO]),
        ("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
            P::new("p").label("foo", "").node_selector("foo", "").spread(sc(1, "zone", HARD, exists("foo")).taints_policy("Honor"))
                .spread(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")),
            inc_nodes(false, true), abx_y(), vec![NO, NO, OK, NO]),
        ("two Constraints on zone, spreads = [3/3, 2/1]",
            fb().spread(sc(1, "zone", HARD, exists("bar"))).spread(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            vec![pod("p-a1", "node-a", &["foo", "bar"]), pod("p-a2", "node-a", &["foo"]), pod("p-b1", "node-b", &["foo", "bar"]),
                 pod("p-y1", "node-y", &["foo"]), pod("p-y2", "node-y", &["foo", "bar"]), pod("p-y3", "node-y", &["foo"])], vec![NO, NO, OK, OK]),
        ("two Constraints on zone, spreads = [3/4, 2/1]",
            fb().spread(sc(1, "zone", HARD, exists("bar"))).spread(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
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
