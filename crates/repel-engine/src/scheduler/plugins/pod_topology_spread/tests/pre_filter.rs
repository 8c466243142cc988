//! Upstream `filtering_test.go` (v1.35), PreFilter side: TestPreFilterState and
//! TestPreFilterStateAddPod / RemovePod, ported.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::common::{DO_NOT_SCHEDULE as HARD, NodeInclusionPolicy, SCHEDULE_ANYWAY as SOFT};
use super::filtering::{CriticalPaths, PreFilterState, cal_pre_filter_state, update_with_pod};
use super::fixtures::{
    Info, MakePod, Tsc, cluster, exists, foo_pods, four_nodes, labels_sel, mk_node, mk_pod,
    node_of, sc, unschedulable_taint,
};
use super::*;
use crate::scheduler::framework::Code;

const UNSET: i64 = i32::MAX as i64;

/// Per constraint: the domain counts and the two critical paths.
type Want = Vec<(Vec<(&'static str, i64)>, [(&'static str, i64); 2])>;
/// A PreFilter case: name, pod, nodes, bound pods, the state (None: Skip).
type StateCase = (&'static str, MakePod, Vec<Node>, Vec<Pod>, Option<Want>);
/// An AddPod/RemovePod case: name, preemptor, pod, bound pods, its node, nodes, delta, state.
type UpdateCase = (
    &'static str,
    MakePod,
    Pod,
    Vec<Pod>,
    &'static str,
    Vec<Node>,
    i64,
    Want,
);
/// Upstream's comparer: paths with equal counts are compared in topology-value order.
fn norm(p: &CriticalPaths) -> [(String, i64); 2] {
    let mut v = [
        (p.0[0].topology_value.clone(), p.0[0].match_num),
        (p.0[1].topology_value.clone(), p.0[1].match_num),
    ];
    if v[0].1 == v[1].1 && v[0].0 > v[1].0 {
        let (a, b) = (v[0].0.clone(), v[1].0.clone());
        v[0].0 = b;
        v[1].0 = a;
    }
    v
}

fn check(name: &str, got: &PreFilterState, want: &Want) {
    assert_eq!(got.constraints.len(), want.len(), "{name}: constraints");
    for (i, (counts, paths)) in want.iter().enumerate() {
        let counts: BTreeMap<String, i64> =
            counts.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        assert_eq!(
            got.tp_value_to_match_num[i], counts,
            "{name}: counts of constraint {i}"
        );
        let paths = paths.map(|(v, n)| (v.to_string(), n));
        assert_eq!(
            norm(&got.critical_paths[i]),
            paths,
            "{name}: critical paths of constraint {i}"
        );
    }
}
/// Upstream `TestPreFilterState`.
#[test]
fn pre_filter_state() {
    let three = || {
        vec![
            mk_node("node-a", &[("node", "node-a")], vec![]),
            mk_node("node-b", &[("node", "node-b")], vec![]),
            mk_node("node-c", &[("node", "node-c")], vec![]),
        ]
    };
    let bar3 = || {
        vec![
            mk_pod("p-a").node("node-a").label("bar", "").obj(),
            mk_pod("p-b").node("node-b").label("bar", "").obj(),
            mk_pod("p-c").node("node-b").label("bar", "").obj(),
            mk_pod("p-d").node("node-c").obj(),
        ]
    };
    let foo_bar_nodes = || {
        vec![
            mk_node("node-a", &[("node", "node-a"), ("foo", "")], vec![]),
            mk_node("node-b", &[("node", "node-b"), ("foo", "")], vec![]),
            mk_node("node-c", &[("node", "node-c"), ("bar", "")], vec![]),
        ]
    };
    let tainted_c = || {
        vec![
            mk_node("node-a", &[("node", "node-a")], vec![]),
            mk_node("node-b", &[("node", "node-b")], vec![]),
            mk_node(
                "node-c",
                &[("node", "node-c"), ("bar", "")],
                unschedulable_taint(),
            ),
        ]
    };
    let std_pods = || {
        foo_pods(&[
            ("node-a", "p-a", 2),
            ("node-b", "p-b", 1),
            ("node-y", "p-y", 2),
        ])
    };
    let seven = || {
        foo_pods(&[
            ("node-a", "p-a", 2),
            ("node-b", "p-b", 1),
            ("node-y", "p-y", 4),
        ])
    };
    let foo_a = || {
        vec![
            mk_pod("p-a1").node("node-a").label("foo", "a").obj(),
            mk_pod("p-a2").node("node-a").label("foo", "a").obj(),
            mk_pod("p-b1").node("node-b").label("foo", "a").obj(),
            mk_pod("p-y1").node("node-y").label("foo", "a").obj(),
            mk_pod("p-y2").node("node-y").label("foo", "a").obj(),
        ]
    };
    let p = || mk_pod("p").label("foo", "");
    #[rustfmt::skip]
    let cases: Vec<StateCase> = vec![
        ("clean cluster with one spreadConstraint",
            p().add_spread_constraint(sc(5, "zone", HARD, labels_sel(&[("foo", "bar")]))), four_nodes(), vec![],
            Some(vec![(vec![("zone1", 0), ("zone2", 0)], [("zone1", 0), ("zone2", 0)])])),
        ("normal case with one spreadConstraint",
            p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(), std_pods(),
            Some(vec![(vec![("zone1", 3), ("zone2", 2)], [("zone2", 2), ("zone1", 3)])])),
        ("normal case with null label selector: no pod matches",
            p().add_spread_constraint(sc(1, "zone", HARD, None)), four_nodes(), std_pods(),
            Some(vec![(vec![("zone1", 0), ("zone2", 0)], [("zone1", 0), ("zone2", 0)])])),
        ("normal case with one spreadConstraint, on a 3-zone cluster",
            p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))),
            [four_nodes(), vec![mk_node("node-o", &[("zone", "zone3"), ("node", "node-o")], vec![]), mk_node("node-p", &[("zone", "zone3"), ("node", "node-p")], vec![])]].concat(),
            std_pods(),
            Some(vec![(vec![("zone1", 3), ("zone2", 2), ("zone3", 0)], [("zone3", 0), ("zone2", 2)])])),
        ("namespace mismatch doesn't count",
            p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))), four_nodes(),
            vec![mk_pod("p-a1").node("node-a").label("foo", "").obj(), mk_pod("p-a2").namespace("ns1").node("node-a").label("foo", "").obj(),
                 mk_pod("p-b1").node("node-b").label("foo", "").obj(), mk_pod("p-y1").namespace("ns2").node("node-y").label("foo", "").obj(),
                 mk_pod("p-y2").node("node-y").label("foo", "").obj()],
            Some(vec![(vec![("zone1", 2), ("zone2", 1)], [("zone2", 1), ("zone1", 2)])])),
        ("normal case with two spreadConstraints",
            p().add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("foo"))), four_nodes(), seven(),
            Some(vec![(vec![("zone1", 3), ("zone2", 4)], [("zone1", 3), ("zone2", 4)]),
                      (vec![("node-a", 2), ("node-b", 1), ("node-x", 0), ("node-y", 4)], [("node-x", 0), ("node-b", 1)])])),
        ("soft spreadConstraints should be bypassed",
            p().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))).add_spread_constraint(sc(1, "zone", HARD, exists("foo")))
               .add_spread_constraint(sc(1, "node", SOFT, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            four_nodes().into_iter().filter(|n| n.metadata.name.as_deref() != Some("node-x")).collect(), seven(),
            Some(vec![(vec![("zone1", 3), ("zone2", 4)], [("zone1", 3), ("zone2", 4)]),
                      (vec![("node-a", 2), ("node-b", 1), ("node-y", 4)], [("node-b", 1), ("node-a", 2)])])),
        ("different labelSelectors - simple version",
            p().label("bar", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("bar"))),
            four_nodes().into_iter().filter(|n| n.metadata.name.as_deref() != Some("node-x")).collect(),
            vec![mk_pod("p-a").node("node-a").label("foo", "").obj(), mk_pod("p-b").node("node-b").label("bar", "").obj()],
            Some(vec![(vec![("zone1", 1), ("zone2", 0)], [("zone2", 0), ("zone1", 1)]),
                      (vec![("node-a", 0), ("node-b", 1), ("node-y", 0)], [("node-a", 0), ("node-y", 0)])])),
        ("two spreadConstraints, and with podAffinity: node-x is excluded",
            p().node_affinity_not_in("node", &["node-x"]).add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            four_nodes(), seven(),
            Some(vec![(vec![("zone1", 3), ("zone2", 4)], [("zone1", 3), ("zone2", 4)]),
                      (vec![("node-a", 2), ("node-b", 1), ("node-y", 4)], [("node-b", 1), ("node-a", 2)])])),
        ("NodeAffinityPolicy honored with labelSelectors",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "node", HARD, exists("bar"))), foo_bar_nodes(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2)], [("node-a", 1), ("node-b", 2)])])),
        ("NodeAffinityPolicy ignored with labelSelectors",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "node", HARD, exists("bar")).affinity_policy("Ignore")), foo_bar_nodes(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2), ("node-c", 0)], [("node-c", 0), ("node-a", 1)])])),
        ("NodeAffinityPolicy honored with nodeAffinity",
            p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "node", HARD, exists("bar"))), foo_bar_nodes(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2)], [("node-a", 1), ("node-b", 2)])])),
        ("NodeAffinityPolicy ignored with nodeAffinity",
            p().node_affinity_in("foo", &[""]).add_spread_constraint(sc(1, "node", HARD, exists("bar")).affinity_policy("Ignore")), foo_bar_nodes(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2), ("node-c", 0)], [("node-c", 0), ("node-a", 1)])])),
        ("NodeTaintsPolicy ignored (the default): the tainted node is a domain",
            p().add_spread_constraint(sc(1, "node", HARD, exists("bar"))), tainted_c(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2), ("node-c", 0)], [("node-c", 0), ("node-a", 1)])])),
        ("NodeTaintsPolicy honored: the node with an untolerated taint is not a domain",
            p().add_spread_constraint(sc(1, "node", HARD, exists("bar")).taints_policy("Honor")), tainted_c(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2)], [("node-a", 1), ("node-b", 2)])])),
        ("NodeTaintsPolicy honored with tolerated taints",
            p().toleration("node.kubernetes.io/unschedulable").add_spread_constraint(sc(1, "node", HARD, exists("bar")).taints_policy("Honor")), tainted_c(), bar3(),
            Some(vec![(vec![("node-a", 1), ("node-b", 2), ("node-c", 0)], [("node-c", 0), ("node-a", 1)])])),
        ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("foo")).affinity_policy("Ignore")),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a"), ("foo", "")], vec![]),
                 mk_node("node-b", &[("zone", "zone1"), ("node", "node-b")], vec![]),
                 mk_node("node-x", &[("zone", "zone2"), ("node", "node-x"), ("foo", "")], vec![])],
            foo_pods(&[("node-b", "p-b", 2), ("node-x", "p-x", 1)]),
            Some(vec![(vec![("zone1", 0), ("zone2", 1)], [("zone1", 0), ("zone2", 1)]),
                      (vec![("node-a", 0), ("node-b", 2), ("node-x", 1)], [("node-a", 0), ("node-x", 1)])])),
        ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
            p().add_spread_constraint(sc(1, "zone", HARD, exists("foo")).taints_policy("Honor")).add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a"), ("foo", "")], vec![]),
                 mk_node("node-b", &[("zone", "zone1"), ("node", "node-b")], unschedulable_taint()),
                 mk_node("node-x", &[("zone", "zone2"), ("node", "node-x"), ("foo", "")], vec![])],
            foo_pods(&[("node-b", "p-b", 2), ("node-x", "p-x", 1)]),
            Some(vec![(vec![("zone1", 0), ("zone2", 1)], [("zone1", 0), ("zone2", 1)]),
                      (vec![("node-a", 0), ("node-b", 2), ("node-x", 1)], [("node-a", 0), ("node-x", 1)])])),
        ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "node", HARD, exists("foo"))),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]),
                 mk_node("node-b", &[("zone", "zone1"), ("node", "node-b"), ("foo", "")], unschedulable_taint()),
                 mk_node("node-x", &[("zone", "zone2"), ("node", "node-x"), ("foo", "")], vec![]),
                 mk_node("node-y", &[("zone", "zone2"), ("node", "node-y")], vec![])],
            foo_pods(&[("node-a", "p-a", 2), ("node-x", "p-x", 1), ("node-y", "p-y", 1)]),
            Some(vec![(vec![("zone1", 0), ("zone2", 1)], [("zone1", 0), ("zone2", 1)]),
                      (vec![("node-b", 0), ("node-x", 1)], [("node-b", 0), ("node-x", 1)])])),
        ("two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
            p().node_selector("foo", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo")).affinity_policy("Ignore")).add_spread_constraint(sc(1, "node", HARD, exists("foo")).taints_policy("Honor")),
            vec![mk_node("node-a", &[("zone", "zone1"), ("node", "node-a")], vec![]),
                 mk_node("node-b", &[("zone", "zone1"), ("node", "node-b"), ("foo", "")], unschedulable_taint()),
                 mk_node("node-x", &[("zone", "zone2"), ("node", "node-x"), ("foo", "")], vec![]),
                 mk_node("node-y", &[("zone", "zone2"), ("node", "node-y"), ("foo", "")], vec![])],
            foo_pods(&[("node-a", "p-a", 2), ("node-x", "p-x", 2), ("node-y", "p-y", 1)]),
            Some(vec![(vec![("zone1", 2), ("zone2", 3)], [("zone1", 2), ("zone2", 3)]),
                      (vec![("node-x", 2), ("node-y", 1)], [("node-y", 1), ("node-x", 2)])])),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
            mk_pod("p").label("foo", "").label("bar", "a").add_spread_constraint(sc(1, "zone", HARD, exists("foo")).match_label_keys(&["bar"])), four_nodes(),
            vec![mk_pod("p-a1").node("node-a").label("foo", "").obj(), mk_pod("p-a2").node("node-a").label("foo", "").label("bar", "a").obj(),
                 mk_pod("p-b1").node("node-b").label("foo", "").obj(), mk_pod("p-y1").node("node-y").label("foo", "").label("bar", "a").obj(),
                 mk_pod("p-y2").node("node-y").label("bar", "").obj()],
            Some(vec![(vec![("zone1", 1), ("zone2", 1)], [("zone1", 1), ("zone2", 1)])])),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
            mk_pod("p").label("foo", "a").add_spread_constraint(sc(1, "zone", HARD, labels_sel(&[])).match_label_keys(&["foo"])), four_nodes(), foo_a(),
            Some(vec![(vec![("zone1", 3), ("zone2", 2)], [("zone2", 2), ("zone1", 3)])])),
        ("key in matchLabelKeys is ignored when LabelSelector is nil",
            p().add_spread_constraint(sc(1, "zone", HARD, None).match_label_keys(&["bar"])), four_nodes(), foo_a(),
            Some(vec![(vec![("zone1", 0), ("zone2", 0)], [("zone1", 0), ("zone2", 0)])])),
        ("key in matchLabelKeys is ignored when it isn't in the pod's labels",
            p().add_spread_constraint(sc(1, "zone", HARD, exists("foo")).match_label_keys(&["bar"])), four_nodes(), foo_a(),
            Some(vec![(vec![("zone1", 3), ("zone2", 2)], [("zone2", 2), ("zone1", 3)])])),
        ("two spreadConstraints with the same topologyKey",
            p().label("bar", "").add_spread_constraint(sc(1, "zone", HARD, exists("foo"))).add_spread_constraint(sc(1, "zone", HARD, exists("bar"))), four_nodes(),
            vec![mk_pod("p-a1").node("node-a").label("foo", "").label("bar", "").obj(), mk_pod("p-b1").node("node-b").label("foo", "").obj(),
                 mk_pod("p-x1").node("node-x").label("bar", "").obj(), mk_pod("p-y1").node("node-y").label("foo", "").label("bar", "").obj(),
                 mk_pod("p-y2").node("node-y").label("bar", "").obj()],
            Some(vec![(vec![("zone1", 2), ("zone2", 1)], [("zone2", 1), ("zone1", 2)]),
                      (vec![("zone1", 1), ("zone2", 3)], [("zone1", 1), ("zone2", 3)])])),
        ("the minDomains constraint has its domains counted as usual",
            p().add_spread_constraint(sc(2, "node", HARD, exists("foo")).min_domains(4)), three(), foo_pods(&[("node-a", "p-a", 2)]),
            Some(vec![(vec![("node-a", 2), ("node-b", 0), ("node-c", 0)], [("node-b", 0), ("node-c", 0)])])),
        ("skip if not specified", p(), four_nodes(), vec![], None),
        ("skip when every constraint is ScheduleAnyway", p().add_spread_constraint(sc(1, "zone", SOFT, exists("foo"))), four_nodes(), vec![], None),
    ];
    for (name, pod, nodes, pods, want) in cases {
        let c = cluster(nodes, pods);
        let pod = pod.info();
        let mut state = CycleState::default();
        let (st, res) = PodTopologySpread::default().pre_filter(&mut state, &pod, &c);
        assert_eq!(res, None, "{name}");
        match want {
            None => assert_eq!(st.code, Code::Skip, "{name}"),
            Some(want) => {
                assert_eq!(st.code, Code::Success, "{name}");
                let got = state
                    .read::<PreFilterState>(PRE_FILTER_STATE_KEY)
                    .unwrap_or_else(|| panic!("{name}: no state"));
                check(name, got, &want);
            }
        }
    }
}

#[test]
fn constraint_defaults_and_policies_are_parsed() {
    let pod = mk_pod("p")
        .label("foo", "")
        .add_spread_constraint(sc(1, "zone", HARD, exists("foo")))
        .add_spread_constraint(
            sc(2, "node", HARD, exists("foo"))
                .min_domains(3)
                .affinity_policy("Ignore")
                .taints_policy("Honor"),
        )
        .info();
    let st = cal_pre_filter_state(&pod, &cluster(four_nodes(), vec![]), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let c = &st.constraints;
    assert_eq!(
        (
            c[0].max_skew,
            c[0].min_domains,
            c[0].node_affinity_policy,
            c[0].node_taints_policy
        ),
        (
            1,
            1,
            NodeInclusionPolicy::Honor,
            NodeInclusionPolicy::Ignore
        ),
        "unset fields take upstream's defaults"
    );
    assert_eq!(
        (
            c[1].max_skew,
            c[1].min_domains,
            c[1].node_affinity_policy,
            c[1].node_taints_policy
        ),
        (
            2,
            3,
            NodeInclusionPolicy::Ignore,
            NodeInclusionPolicy::Honor
        ),
        "set fields are kept"
    );
    assert_eq!(c[1].selector.to_string(), "foo");
}

#[test]
fn match_label_keys_merge_into_the_selector() {
    let pod = mk_pod("p")
        .label("foo", "")
        .label("bar", "a")
        .add_spread_constraint(
            sc(1, "zone", HARD, exists("foo")).match_label_keys(&["bar", "missing"]),
        )
        .info();
    let st = cal_pre_filter_state(&pod, &cluster(four_nodes(), vec![]), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(st.constraints[0].selector.to_string(), "bar=a,foo");
}

#[test]
fn an_invalid_selector_is_an_error() {
    let mut bad = exists("foo");
    if let Some(s) = bad.as_mut() {
        s.match_expressions.get_or_insert_with(Vec::new)[0].operator = "Bogus".into();
    }
    let pod = mk_pod("p")
        .add_spread_constraint(sc(1, "zone", HARD, bad))
        .info();
    let (st, _) = PodTopologySpread::default().pre_filter(
        &mut CycleState::default(),
        &pod,
        &cluster(four_nodes(), vec![]),
    );
    assert_eq!(st.code, Code::Error);
    assert_eq!(
        st.message(),
        "get constraints from pod: obtaining pod's hard topology spread constraints: \"Bogus\" is not a valid label selector operator"
    );
}
/// Upstream `TestPreFilterStateAddPod` (and the RemovePod counterpart).
#[test]
fn add_and_remove_pod() {
    let two = |a: &str, b: &str| {
        let zone = |n: &str| if n < "node-x" { "zone1" } else { "zone2" };
        vec![
            mk_node(a, &[("zone", zone(a)), ("node", a)], vec![]),
            mk_node(b, &[("zone", zone(b)), ("node", b)], vec![]),
        ]
    };
    let node_only = || {
        mk_pod("p")
            .label("foo", "")
            .add_spread_constraint(sc(1, "node", HARD, exists("foo")))
    };
    let zone_node = || {
        mk_pod("p")
            .label("foo", "")
            .add_spread_constraint(sc(1, "zone", HARD, exists("foo")))
            .add_spread_constraint(sc(1, "node", HARD, exists("foo")))
    };
    let foo = |name: &str, node: &str| mk_pod(name).node(node).label("foo", "");
    let nodes_ab = |a: &[(&str, &str)], taint_a: bool| {
        vec![
            mk_node(
                "node-a",
                a,
                if taint_a {
                    unschedulable_taint()
                } else {
                    vec![]
                },
            ),
            mk_node(
                "node-b",
                &[("zone", "zone2"), ("node", "node-b"), ("foo", "")],
                vec![],
            ),
        ]
    };
    let a_bar = [("zone", "zone1"), ("node", "node-a"), ("foo", "bar")];
    let zone_foo = || {
        mk_pod("p")
            .label("foo", "")
            .add_spread_constraint(sc(1, "zone", HARD, exists("foo")))
    };
    #[rustfmt::skip]
    let cases: Vec<UpdateCase> = vec![
        ("node a and b both impact current min match",
            node_only(), foo("p-a1", "node-a").obj(), vec![], "node-a", two("node-a", "node-b"), 1,
            vec![(vec![("node-a", 1), ("node-b", 0)], [("node-b", 0), ("node-a", 1)])]),
        ("only node a impacts current min match",
            node_only(), foo("p-a1", "node-a").obj(), vec![foo("p-b1", "node-b").obj()], "node-a", two("node-a", "node-b"), 1,
            vec![(vec![("node-a", 1), ("node-b", 1)], [("node-a", 1), ("node-b", 1)])]),
        ("add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
            node_only(), foo("p-a1", "node-a").namespace("ns1").obj(), vec![foo("p-b1", "node-b").obj()], "node-a", two("node-a", "node-b"), 1,
            vec![(vec![("node-a", 0), ("node-b", 1)], [("node-a", 0), ("node-b", 1)])]),
        ("add pod on non-critical node won't trigger re-calculation",
            node_only(), foo("p-b2", "node-b").obj(), vec![foo("p-b1", "node-b").obj()], "node-b", two("node-a", "node-b"), 1,
            vec![(vec![("node-a", 0), ("node-b", 2)], [("node-a", 0), ("node-b", 2)])]),
        ("node a and x both impact topologyKeyToMinPodsMap on zone and node",
            zone_node(), foo("p-a1", "node-a").obj(), vec![], "node-a", two("node-a", "node-x"), 1,
            vec![(vec![("zone1", 1), ("zone2", 0)], [("zone2", 0), ("zone1", 1)]),
                 (vec![("node-a", 1), ("node-x", 0)], [("node-x", 0), ("node-a", 1)])]),
        ("only node a impacts topologyKeyToMinPodsMap on zone and node",
            zone_node(), foo("p-a1", "node-a").obj(), vec![foo("p-x1", "node-x").obj()], "node-a", two("node-a", "node-x"), 1,
            vec![(vec![("zone1", 1), ("zone2", 1)], [("zone1", 1), ("zone2", 1)]),
                 (vec![("node-a", 1), ("node-x", 1)], [("node-a", 1), ("node-x", 1)])]),
        ("add a pod when scheduling node affinity unmatched pod: nothing changes",
            zone_foo().node_affinity_not_in("foo", &["bar"]), foo("p-a1", "node-a").label("zone", "zone1").obj(),
            vec![foo("p-a2", "node-a").obj(), foo("p-b1", "node-b").obj()], "node-a", nodes_ab(&a_bar, false), 1,
            vec![(vec![("zone2", 1)], [("zone2", 1), ("", UNSET)])]),
        ("add a pod when scheduling node affinity matched pod",
            zone_foo(), foo("p-b1", "node-b").obj(), vec![foo("p-a1", "node-a").obj(), foo("p-b2", "node-b").obj()], "node-b", nodes_ab(&a_bar, false), 1,
            vec![(vec![("zone1", 1), ("zone2", 2)], [("zone1", 1), ("zone2", 2)])]),
        ("add a label selector not matched pod: nothing changes",
            zone_foo(), mk_pod("p-b1").node("node-b").obj(), vec![foo("p-a1", "node-a").obj(), foo("p-b2", "node-b").obj()], "node-b", nodes_ab(&a_bar, false), 1,
            vec![(vec![("zone1", 1), ("zone2", 1)], [("zone1", 1), ("zone2", 1)])]),
        ("add a pod when scheduling taint tolerated pod",
            zone_foo().toleration("node.kubernetes.io/unschedulable"), foo("p-b1", "node-b").obj(),
            vec![foo("p-a1", "node-a").obj(), foo("p-b2", "node-b").obj()], "node-b", nodes_ab(&[("zone", "zone1"), ("node", "node-a")], true), 1,
            vec![(vec![("zone1", 1), ("zone2", 2)], [("zone1", 1), ("zone2", 2)])]),
        ("remove the only pod of node a: node a is the minimum again",
            node_only(), foo("p-a1", "node-a").obj(), vec![foo("p-a1", "node-a").obj(), foo("p-b1", "node-b").obj()], "node-a", two("node-a", "node-b"), -1,
            vec![(vec![("node-a", 0), ("node-b", 1)], [("node-a", 0), ("node-b", 1)])]),
        ("remove a pod in another namespace: nothing changes",
            node_only(), foo("p-a1", "node-a").namespace("ns1").obj(), vec![foo("p-a2", "node-a").obj(), foo("p-b1", "node-b").obj()], "node-a", two("node-a", "node-b"), -1,
            vec![(vec![("node-a", 1), ("node-b", 1)], [("node-a", 1), ("node-b", 1)])]),
        ("remove a pod from the zone with more pods on zone and node",
            zone_node(), foo("p-b1", "node-b").obj(),
            vec![foo("p-a1", "node-a").obj(), foo("p-b1", "node-b").obj(), foo("p-b2", "node-b").obj(), foo("p-x1", "node-x").obj()],
            "node-b", [two("node-a", "node-b"), two("node-x", "node-y")].concat(), -1,
            vec![(vec![("zone1", 2), ("zone2", 1)], [("zone2", 1), ("zone1", 2)]),
                 (vec![("node-a", 1), ("node-b", 1), ("node-x", 1), ("node-y", 0)], [("node-y", 0), ("node-a", 1)])]),
    ];
    for (name, preemptor, pod, existing, node, nodes, delta, want) in cases {
        let c = cluster(nodes, existing);
        let preemptor = preemptor.info();
        let pod = crate::cluster::PodInfo::new(pod, 0);
        let pl = PodTopologySpread::default();
        let mut state = CycleState::default();
        let (st, _) = pl.pre_filter(&mut state, &preemptor, &c);
        assert!(st.is_success(), "{name}: {st:?}");
        let n = node_of(&c, node);
        if delta > 0 {
            pl.add_pod(&mut state, &preemptor, &pod, n, &c);
        } else {
            pl.remove_pod(&mut state, &preemptor, &pod, n, &c);
        }
        let got = state
            .read::<PreFilterState>(PRE_FILTER_STATE_KEY)
            .unwrap_or_else(|| panic!("{name}: no state"));
        check(name, got, &want);
    }
}

#[test]
fn update_with_pod_honours_the_taints_policy() {
    let nodes = vec![
        mk_node("node-a", &[("zone", "zone1")], unschedulable_taint()),
        mk_node("node-b", &[("zone", "zone2")], vec![]),
    ];
    let c = cluster(nodes, vec![]);
    let preemptor = mk_pod("p")
        .label("foo", "")
        .add_spread_constraint(sc(1, "zone", HARD, exists("foo")).taints_policy("Honor"))
        .info();
    let mut st =
        cal_pre_filter_state(&preemptor, &c, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    let added = mk_pod("x").label("foo", "").info();
    update_with_pod(
        &mut st,
        &added,
        &preemptor,
        node_of(&c, "node-a"),
        1,
        &Default::default(),
    );
    assert_eq!(
        st.tp_value_to_match_num[0],
        BTreeMap::from([("zone2".to_string(), 0)]),
        "a pod added on a node whose taint the preemptor does not tolerate is not counted"
    );
}
