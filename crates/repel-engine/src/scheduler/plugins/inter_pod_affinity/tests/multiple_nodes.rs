//! Upstream `TestRequiredAffinityMultipleNodes` and `TestPreFilterStateAddRemovePod` (v1.35),
//! and repel's own cases for matchLabelKeys and namespaces not given.

use super::*;

fn zoned(name: &str, region: &str, zone: &str) -> Node {
    node(
        name,
        &[("region", region), ("zone", zone), ("hostname", name)],
    )
}

#[test]
fn required_affinity_multiple_nodes() {
    use Want::*;
    let china = || node("node1", &[("region", "China")]);
    let china_az1 = || node("node2", &[("region", "China"), ("az", "az1")]);
    let india = || node("node3", &[("region", "India")]);
    let cases = vec![
        Case {
            name: "every node sharing the topology value of a node with a matching pod fits",
            pod: make().required_pod_affinity(term1("foo", "In", &["bar"], "region")),
            pods: vec![make().labels(&[("foo", "bar")]).node("node1")],
            nodes: vec![china(), china_az1(), india()],
            want: Some(vec![Fits, Fits, Affinity]),
        },
        Case {
            name: "the first pod of a collection with affinity to itself is not blocked anywhere",
            pod: make()
                .labels(&[("foo", "bar"), ("service", "securityscan")])
                .required_pod_affinity(term1("foo", "In", &["bar"], "zone"))
                .required_pod_affinity(term1("service", "In", &["securityscan"], "zone")),
            pods: vec![make().labels(&[("foo", "bar")]).node("nodeA")],
            nodes: vec![
                node("nodeA", &[("zone", "az1"), ("hostname", "h1")]),
                node("nodeB", &[("zone", "az2"), ("hostname", "h2")]),
            ],
            want: Some(vec![Fits, Fits]),
        },
        Case {
            name: "the first pod of a collection only goes to nodes with the topology keys",
            pod: make()
                .labels(&[("foo", "bar"), ("service", "securityscan")])
                .required_pod_affinity(term1("foo", "In", &["bar"], "zone"))
                .required_pod_affinity(term1("service", "In", &["securityscan"], "zone")),
            pods: vec![make().labels(&[("foo", "bar")]).node("nodeA")],
            nodes: vec![
                node("nodeA", &[("zoneLabel", "az1"), ("hostname", "h1")]),
                node("nodeB", &[("zoneLabel", "az2"), ("hostname", "h2")]),
            ],
            want: Some(vec![Affinity, Affinity]),
        },
        Case {
            name: "anti-affinity blocks every node sharing the topology value of a matching pod",
            pod: make().required_pod_anti_affinity(term1("foo", "In", &["abc"], "region")),
            pods: vec![make().labels(&[("foo", "abc")]).node("nodeA")],
            nodes: vec![
                node("nodeA", &[("region", "r1"), ("hostname", "nodeA")]),
                node("nodeB", &[("region", "r1"), ("hostname", "nodeB")]),
            ],
            want: Some(vec![Anti, Anti]),
        },
        Case {
            name: "anti-affinity matches a pod when any of its terms matches",
            pod: make()
                .required_pod_anti_affinity(term1("foo", "In", &["abc"], "region"))
                .required_pod_anti_affinity(term1("service", "In", &["securityscan"], "zone")),
            pods: vec![
                make()
                    .labels(&[("foo", "abc"), ("service", "securityscan")])
                    .node("nodeA"),
            ],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
            want: Some(vec![Anti, Anti]),
        },
        Case {
            name: "a pod matching anti-affinity in another namespace does not count",
            pod: make()
                .namespace("NS1")
                .labels(&[("foo", "123")])
                .required_pod_anti_affinity(term1("foo", "In", &["bar"], "region")),
            pods: vec![
                make()
                    .namespace("NS1")
                    .labels(&[("foo", "bar")])
                    .node("node1"),
                make()
                    .namespace("NS2")
                    .node("node3")
                    .required_pod_anti_affinity(term1("foo", "In", &["123"], "region")),
            ],
            nodes: vec![china(), china_az1(), india()],
            want: Some(vec![Anti, Anti, Fits]),
        },
        Case {
            name: "an existing pod's anti-affinity term over a missing topology key matches nothing",
            pod: make().labels(&[("foo", "")]),
            pods: vec![make().node("nodeA").required_pod_anti_affinity(term1(
                "foo",
                "Exists",
                &[],
                "invalid-node-label",
            ))],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z1")],
            want: None,
        },
        Case {
            name: "the pod's anti-affinity over a missing topology key matches nothing",
            pod: make().required_pod_anti_affinity(term1(
                "foo",
                "Exists",
                &[],
                "invalid-node-label",
            )),
            pods: vec![make().labels(&[("foo", "")]).node("nodeA")],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z1")],
            want: Some(vec![Fits, Fits]),
        },
        Case {
            name: "existing pods' anti-affinity terms each block their own topology",
            pod: make().labels(&[("foo", ""), ("bar", "")]),
            pods: vec![
                make().node("nodeA").required_pod_anti_affinity(term1(
                    "foo",
                    "Exists",
                    &[],
                    "zone",
                )),
                make().node("nodeA").required_pod_anti_affinity(term1(
                    "bar",
                    "Exists",
                    &[],
                    "region",
                )),
            ],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
            want: Some(vec![Existing, Existing]),
        },
        Case {
            name: "the pod violating one of its anti-affinity terms on every node fits nowhere",
            pod: make()
                .required_pod_anti_affinity(term1("foo", "Exists", &[], "zone"))
                .required_pod_anti_affinity(term1("bar", "Exists", &[], "region")),
            pods: vec![
                make().labels(&[("foo", "")]).node("nodeA"),
                make().labels(&[("bar", "")]).node("nodeB"),
            ],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
            want: Some(vec![Anti, Anti]),
        },
        Case {
            name: "an existing pod's term counts only where both selector and topology key match",
            pod: make().labels(&[("foo", ""), ("bar", "")]),
            pods: vec![
                make()
                    .node("nodeA")
                    .required_pod_anti_affinity(term1("foo", "Exists", &[], "invalid-node-label"))
                    .required_pod_anti_affinity(term1("bar", "Exists", &[], "zone")),
            ],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
            want: Some(vec![Existing, Fits]),
        },
        Case {
            name: "the pod's term counts only where both selector and topology key match",
            pod: make()
                .required_pod_anti_affinity(term1("foo", "Exists", &[], "invalid-node-label"))
                .required_pod_anti_affinity(term1("bar", "Exists", &[], "zone")),
            pods: vec![make().labels(&[("foo", ""), ("bar", "")]).node("nodeA")],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
            want: Some(vec![Anti, Fits]),
        },
        Case {
            name: "existing pods on two nodes each match the pod, leaving only the third node",
            pod: make().labels(&[("foo", ""), ("bar", "")]),
            pods: vec![
                make()
                    .node("nodeA")
                    .required_pod_anti_affinity(term1("foo", "Exists", &[], "zone"))
                    .required_pod_anti_affinity(term1("labelA", "Exists", &[], "zone")),
                make()
                    .node("nodeB")
                    .required_pod_anti_affinity(term1("bar", "Exists", &[], "zone"))
                    .required_pod_anti_affinity(term1("labelB", "Exists", &[], "zone")),
            ],
            nodes: vec![
                zoned("nodeA", "r1", "z1"),
                zoned("nodeB", "r1", "z2"),
                zoned("nodeC", "r1", "z3"),
            ],
            want: Some(vec![Existing, Existing, Fits]),
        },
        Case {
            name: "affinity terms are matched by one pod, then every topology key is checked",
            pod: make()
                .required_pod_affinity(term1("foo", "Exists", &[], "region"))
                .required_pod_affinity(term1("bar", "Exists", &[], "zone")),
            pods: vec![make().labels(&[("foo", ""), ("bar", "")]).node("nodeA")],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z1")],
            want: Some(vec![Fits, Fits]),
        },
        Case {
            name: "affinity terms matched by different pods do not count",
            pod: make()
                .required_pod_affinity(term1("foo", "Exists", &[], "region"))
                .required_pod_affinity(term1("bar", "Exists", &[], "zone")),
            pods: vec![
                make().labels(&[("foo", "")]).node("nodeA"),
                make().labels(&[("bar", "")]).node("nodeB"),
            ],
            nodes: vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
            want: Some(vec![Affinity, Affinity]),
        },
    ];
    check(cases, || vec![namespace("NS1", &[])]);
}

fn counts(pairs: &[(&str, &str, i64)]) -> super::super::filtering::Counts {
    pairs
        .iter()
        .map(|(k, v, c)| ((k.to_string(), v.to_string()), *c))
        .collect()
}

/// Upstream `TestPreFilterStateAddRemovePod`: AddPod and RemovePod keep the counts as PreFilter
/// would compute them, and removing what was added restores them.
#[test]
fn add_pod_and_remove_pod_update_the_counts() {
    use super::super::filtering::{PRE_FILTER_STATE_KEY, PreFilterState};
    let foo_bar_region = || term1("foo", "In", &["bar"], "region");
    let complex = |p: MakePod| {
        p.required_pod_anti_affinity(term1("foo", "In", &["bar", "buzz"], "region"))
            .required_pod_anti_affinity(term1(
                "service",
                "NotIn",
                &["bar", "security", "test"],
                "zone",
            ))
    };
    let nodes = || {
        vec![
            node("nodeA", &[("region", "r1"), ("zone", "z11")]),
            node("nodeB", &[("region", "r1"), ("zone", "z12")]),
            node("nodeC", &[("region", "r2"), ("zone", "z21")]),
        ]
    };
    struct AddRemove {
        name: &'static str,
        pending: MakePod,
        added: MakePod,
        added_to: usize,
        before: [Vec<(&'static str, &'static str, i64)>; 3],
        after: [Vec<(&'static str, &'static str, i64)>; 3],
    }
    let cases = vec![
        AddRemove {
            name: "anti-affinity counts follow an added pod that matches and repels the pending pod",
            pending: make()
                .labels(&[("foo", "bar")])
                .required_pod_anti_affinity(foo_bar_region()),
            added: make()
                .name("added")
                .labels(&[("foo", "bar")])
                .required_pod_anti_affinity(foo_bar_region()),
            added_to: 1,
            // [existing anti-affinity, affinity, anti-affinity]
            before: [vec![("region", "r2", 1)], vec![], vec![("region", "r1", 1)]],
            after: [
                vec![("region", "r1", 1), ("region", "r2", 1)],
                vec![],
                vec![("region", "r1", 2)],
            ],
        },
        AddRemove {
            name: "complex anti-affinity counts follow an added pod on a node already counted",
            pending: complex(make().labels(&[("foo", "bar")])),
            added: complex(make().name("added").labels(&[("foo", "bar")])),
            added_to: 0,
            before: [
                vec![("region", "r2", 1)],
                vec![],
                vec![("region", "r1", 1), ("zone", "z11", 1), ("zone", "z21", 1)],
            ],
            after: [
                vec![("region", "r1", 1), ("region", "r2", 1), ("zone", "z11", 1)],
                vec![],
                vec![("region", "r1", 2), ("zone", "z11", 2), ("zone", "z21", 1)],
            ],
        },
        AddRemove {
            name: "affinity counts follow an added pod matching every affinity term",
            pending: make()
                .labels(&[("foo", "bar")])
                .required_pod_affinity(term1("foo", "In", &["bar", "buzz"], "region"))
                .required_pod_affinity(term1(
                    "service",
                    "NotIn",
                    &["bar", "security", "test"],
                    "zone",
                )),
            added: make().name("added").labels(&[("foo", "bar")]),
            added_to: 0,
            before: [
                vec![("region", "r2", 1)],
                vec![("region", "r1", 1), ("zone", "z11", 1)],
                vec![],
            ],
            after: [
                vec![("region", "r2", 1)],
                vec![("region", "r1", 2), ("zone", "z11", 2)],
                vec![],
            ],
        },
    ];
    for case in cases {
        let existing = vec![
            make()
                .name("p1")
                .labels(&[("foo", "bar")])
                .node("nodeA")
                .obj(),
            make()
                .name("p2")
                .node("nodeC")
                .required_pod_anti_affinity(foo_bar_region())
                .obj(),
        ];
        let c = cluster(nodes(), existing, vec![]);
        let pod = case.pending.info();
        let added = case.added.info();
        let node = &c.nodes[case.added_to];
        let (pre, _, mut state) = run_filter(&pod, &c);
        assert_eq!(pre.code, Code::Success, "{}", case.name);
        let read = |state: &CycleState| {
            let s = state
                .read::<PreFilterState>(PRE_FILTER_STATE_KEY)
                .unwrap_or_else(|| panic!("{}: no state", case.name))
                .clone();
            [
                s.existing_anti_affinity_counts,
                s.affinity_counts,
                s.anti_affinity_counts,
            ]
        };
        let want = |w: &[Vec<(&str, &str, i64)>; 3]| w.clone().map(|v| counts(&v));
        assert_eq!(read(&state), want(&case.before), "{}: before", case.name);
        let pl = InterPodAffinity::default();
        pl.add_pod(&mut state, &pod, &added, node, &c);
        assert_eq!(read(&state), want(&case.after), "{}: added", case.name);
        pl.remove_pod(&mut state, &pod, &added, node, &c);
        assert_eq!(read(&state), want(&case.before), "{}: removed", case.name);
    }
}

/// Removing the only matching pod (preemption's what-if) lifts anti-affinity; a skipped
/// PreFilter ignores AddPod as upstream's framework does.
#[test]
fn removing_the_victim_lifts_anti_affinity_and_a_skipped_pre_filter_ignores_add_pod() {
    let c = cluster(
        vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")],
        vec![make().labels(&[("app", "db")]).node("nodeA").obj()],
        vec![],
    );
    let pl = InterPodAffinity::default();
    let pod = make()
        .required_pod_anti_affinity(term1("app", "In", &["db"], "zone"))
        .info();
    let (_, statuses, mut state) = run_filter(&pod, &c);
    assert_eq!(statuses, vec![Want::Anti.status(), Want::Fits.status()]);
    let victim = c.pods[0].clone();
    pl.remove_pod(&mut state, &pod, &victim, &c.nodes[0], &c);
    assert_eq!(
        pl.filter(&state, &pod, &c.nodes[0], &c),
        Want::Fits.status()
    );

    let plain = make().labels(&[("app", "web")]).info();
    let (pre, _, mut state) = run_filter(&plain, &c);
    assert_eq!(pre.code, Code::Skip);
    let repelling = make()
        .required_pod_anti_affinity(term1("app", "In", &["web"], "zone"))
        .info();
    pl.add_pod(&mut state, &plain, &repelling, &c.nodes[1], &c);
    assert!(
        state
            .read::<super::super::filtering::PreFilterState>("PreFilterInterPodAffinity")
            .is_none()
    );
}

/// Filter without PreFilter's state is upstream's error.
#[test]
fn filter_without_pre_filter_state_is_an_error() {
    let c = cluster(vec![zoned("nodeA", "r1", "z1")], vec![], vec![]);
    let st =
        InterPodAffinity::default().filter(&CycleState::default(), &make().info(), &c.nodes[0], &c);
    assert_eq!(st.code, Code::Error);
    assert_eq!(
        st.message(),
        "error reading \"PreFilterInterPodAffinity\" from cycleState: not found"
    );
}

/// repel's own: matchLabelKeys and mismatchLabelKeys (merged by upstream's API server, here by
/// the scheduler), and namespace selectors over namespaces not given.
#[test]
fn match_label_keys_and_namespaces_not_given() {
    use Want::*;
    let nodes = || vec![zoned("nodeA", "r1", "z1"), zoned("nodeB", "r1", "z2")];
    let keyed = |keys: &str| {
        let mut t = term1("app", "In", &["web"], "zone");
        match keys {
            "match" => t.match_label_keys = Some(vec!["version".into()]),
            _ => t.mismatch_label_keys = Some(vec!["version".into()]),
        }
        t
    };
    let web = |v: &str, n: &str| make().labels(&[("app", "web"), ("version", v)]).node(n);
    let cases = vec![
        Case {
            name: "matchLabelKeys narrows anti-affinity to pods of the same version",
            pod: make()
                .labels(&[("app", "web"), ("version", "v2")])
                .required_pod_anti_affinity(keyed("match")),
            pods: vec![web("v1", "nodeA"), web("v2", "nodeB")],
            nodes: nodes(),
            want: Some(vec![Fits, Anti]),
        },
        Case {
            name: "mismatchLabelKeys narrows anti-affinity to pods of other versions",
            pod: make()
                .labels(&[("app", "web"), ("version", "v2")])
                .required_pod_anti_affinity(keyed("mismatch")),
            pods: vec![web("v1", "nodeA"), web("v2", "nodeB")],
            nodes: nodes(),
            want: Some(vec![Anti, Fits]),
        },
        Case {
            name: "matchLabelKeys the pod does not carry are ignored",
            pod: make()
                .labels(&[("app", "web")])
                .required_pod_anti_affinity(keyed("match")),
            pods: vec![web("v1", "nodeA"), web("v2", "nodeB")],
            nodes: nodes(),
            want: Some(vec![Anti, Anti]),
        },
        Case {
            name: "an existing pod's matchLabelKeys use its own labels",
            pod: make().labels(&[("app", "web"), ("version", "v1")]),
            pods: vec![
                web("v1", "nodeA").required_pod_anti_affinity(keyed("match")),
                web("v2", "nodeB").required_pod_anti_affinity(keyed("match")),
            ],
            nodes: nodes(),
            want: Some(vec![Existing, Fits]),
        },
        Case {
            name: "a namespace not given exists without labels for a namespace selector",
            pod: make().required_pod_affinity(PodAffinityTerm {
                namespace_selector: Some(LabelSelector {
                    match_expressions: Some(vec![expr("team", "DoesNotExist", &[])]),
                    match_labels: None,
                }),
                ..term1("app", "In", &["db"], "zone")
            }),
            pods: vec![
                make()
                    .namespace("unlisted")
                    .labels(&[("app", "db")])
                    .node("nodeA"),
                make()
                    .namespace("subteam1.team1")
                    .labels(&[("app", "db")])
                    .node("nodeB"),
            ],
            nodes: nodes(),
            want: Some(vec![Fits, Affinity]),
        },
        Case {
            name: "a namespace selector and a namespaces list are ORed",
            pod: make().required_pod_affinity(PodAffinityTerm {
                namespaces: Some(vec!["subteam2.team2".into()]),
                namespace_selector: Some(team("team1")),
                ..term1("app", "In", &["db"], "zone")
            }),
            pods: vec![
                make()
                    .namespace("subteam2.team2")
                    .labels(&[("app", "db")])
                    .node("nodeA"),
                make()
                    .namespace("subteam1.team2")
                    .labels(&[("app", "db")])
                    .node("nodeB"),
            ],
            nodes: nodes(),
            want: Some(vec![Fits, Affinity]),
        },
    ];
    check(cases, team_namespaces);
}
