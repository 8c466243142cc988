//! Upstream `TestPreferredAffinity` and `TestPreferredAffinityWithHardPodAffinitySymmetricWeight`
//! (v1.35).

use super::*;

const S1: (&str, &str) = ("security", "S1");
const S2: (&str, &str) = ("security", "S2");
const CHINA: (&str, &str) = ("region", "China");
const INDIA: (&str, &str) = ("region", "India");
const AZ1: (&str, &str) = ("az", "az1");
const AZ2: (&str, &str) = ("az", "az2");

fn stay_with_s1_in_region(p: MakePod) -> MakePod {
    p.preferred_pod_affinity(5, term1("security", "In", &["S1"], "region"))
}
fn stay_with_s2_in_region(p: MakePod) -> MakePod {
    p.preferred_pod_affinity(6, term1("security", "In", &["S2"], "region"))
}
fn affinity3(p: MakePod) -> MakePod {
    p.preferred_pod_affinity(
        8,
        term(
            vec![
                expr("security", "NotIn", &["S1"]),
                expr("security", "In", &["S2"]),
            ],
            "region",
        ),
    )
    .preferred_pod_affinity(
        2,
        term(
            vec![
                expr("security", "Exists", &[]),
                expr("wrongkey", "DoesNotExist", &[]),
            ],
            "region",
        ),
    )
}
fn hard_affinity(p: MakePod) -> MakePod {
    p.required_pod_affinity(term1("security", "In", &["S1", "value2"], "region"))
        .required_pod_affinity(term(
            vec![
                expr("security", "Exists", &[]),
                expr("wrongkey", "DoesNotExist", &[]),
            ],
            "region",
        ))
}
fn away_from_s1_in_az(p: MakePod) -> MakePod {
    p.preferred_pod_anti_affinity(5, term1("security", "In", &["S1"], "az"))
}
fn away_from_s2_in_az(p: MakePod) -> MakePod {
    p.preferred_pod_anti_affinity(5, term1("security", "In", &["S2"], "az"))
}
fn stay_with_s1_in_region_away_from_s2_in_az(p: MakePod) -> MakePod {
    p.preferred_pod_affinity(8, term1("security", "In", &["S1"], "region"))
        .preferred_pod_anti_affinity(5, term1("security", "In", &["S2"], "az"))
}
fn ns_selector_term() -> PodAffinityTerm {
    PodAffinityTerm {
        namespaces: Some(vec!["subteam2.team2".into()]),
        namespace_selector: Some(team("team1")),
        ..term1("security", "In", &["S1"], "region")
    }
}
fn affinity_namespace_selector(p: MakePod) -> MakePod {
    p.preferred_pod_affinity(5, ns_selector_term())
}
fn anti_affinity_namespace_selector(p: MakePod) -> MakePod {
    p.preferred_pod_anti_affinity(5, ns_selector_term())
}

struct Case {
    name: &'static str,
    pod: MakePod,
    pods: Vec<MakePod>,
    nodes: Vec<(&'static str, Vec<(&'static str, &'static str)>)>,
    /// `None`: PreScore skips.
    want: Option<Vec<i64>>,
}

fn check(pl: InterPodAffinity, cases: Vec<Case>) {
    for case in cases {
        let nodes = case.nodes.iter().map(|(n, l)| node(n, l)).collect();
        let c = cluster(
            nodes,
            case.pods.into_iter().map(MakePod::obj).collect(),
            team_namespaces(),
        );
        let got = run_score(pl, &case.pod.info(), &c);
        assert_eq!(got, case.want, "{}", case.name);
    }
}

fn on(n: &str, l: (&str, &str)) -> MakePod {
    make().labels(&[l]).node(n)
}

#[test]
fn preferred_affinity() {
    let three = || {
        vec![
            ("node1", vec![CHINA]),
            ("node2", vec![INDIA]),
            ("node3", vec![AZ1]),
        ]
    };
    let five = |n1: Vec<(&'static str, &'static str)>| {
        vec![
            ("node1", n1),
            ("node2", vec![INDIA]),
            ("node3", vec![CHINA]),
            ("node4", vec![CHINA]),
            ("node5", vec![INDIA]),
        ]
    };
    let cases = vec![
        Case {
            name: "all nodes are the same when there is no affinity anywhere (PreScore skips)",
            pod: make().labels(&[S1]),
            pods: vec![],
            nodes: three(),
            want: None,
        },
        Case {
            name: "a node with the topology key and a matching pod scores highest",
            pod: stay_with_s1_in_region(make().labels(&[S1])),
            pods: vec![on("node1", S1), on("node2", S2), on("node3", S1)],
            nodes: three(),
            want: Some(vec![100, 0, 0]),
        },
        Case {
            name: "every node sharing the topology value of a matching pod scores the same",
            pod: stay_with_s1_in_region(make()),
            pods: vec![on("node1", S1)],
            nodes: vec![
                ("node1", vec![CHINA]),
                ("node2", vec![CHINA, AZ1]),
                ("node3", vec![INDIA]),
            ],
            want: Some(vec![100, 100, 0]),
        },
        Case {
            name: "the region with more matching pods scores higher",
            pod: stay_with_s2_in_region(make().labels(&[S1])),
            pods: vec![
                on("node1", S2),
                on("node1", S2),
                on("node2", S2),
                on("node3", S2),
                on("node4", S2),
                on("node5", S2),
            ],
            nodes: five(vec![CHINA]),
            want: Some(vec![100, 0, 100, 100, 0]),
        },
        Case {
            name: "different operators and values, some failing, scale to 20 and 100",
            pod: affinity3(make().labels(&[S1])),
            pods: vec![on("node1", S1), on("node2", S2), on("node3", S1)],
            nodes: three(),
            want: Some(vec![20, 100, 0]),
        },
        Case {
            name: "symmetry: existing pods' preferred affinity the pod matches counts",
            pod: make().labels(&[S2]),
            pods: vec![
                stay_with_s1_in_region(on("node1", S1)),
                stay_with_s2_in_region(on("node2", S2)),
            ],
            nodes: three(),
            want: Some(vec![0, 100, 0]),
        },
        Case {
            name: "symmetry: an existing pod's affinity with a namespace selector matches the pod's namespace",
            pod: make().namespace("subteam1.team1").labels(&[S1]),
            pods: vec![
                affinity_namespace_selector(on("node1", S1)),
                stay_with_s2_in_region(on("node2", S2)),
            ],
            nodes: three(),
            want: Some(vec![100, 0, 0]),
        },
        Case {
            name: "symmetry: an existing pod's anti-affinity with a namespace selector matches the pod's namespace",
            pod: make().namespace("subteam1.team1").labels(&[S1]),
            pods: vec![
                anti_affinity_namespace_selector(on("node1", S1)),
                stay_with_s2_in_region(on("node2", S2)),
            ],
            nodes: three(),
            want: Some(vec![0, 100, 100]),
        },
        Case {
            name: "symmetry: existing pods' required affinity counts with hardPodAffinityWeight",
            pod: make().labels(&[S1]),
            pods: vec![
                hard_affinity(on("node1", S1)),
                hard_affinity(on("node2", S2)),
            ],
            nodes: three(),
            want: Some(vec![100, 100, 0]),
        },
        Case {
            name: "anti-affinity: the node with a matching pod scores lowest",
            pod: away_from_s1_in_az(make().labels(&[S1])),
            pods: vec![on("node1", S1), on("node2", S2)],
            nodes: vec![("node1", vec![AZ1]), ("node2", vec![CHINA])],
            want: Some(vec![0, 100]),
        },
        Case {
            name: "anti-affinity: a matching pod on a node without the topology key does not count",
            pod: away_from_s1_in_az(make().labels(&[S1])),
            pods: vec![on("node1", S1), on("node2", S1)],
            nodes: vec![("node1", vec![AZ1]), ("node2", vec![CHINA])],
            want: Some(vec![0, 100]),
        },
        Case {
            name: "anti-affinity: the node with more matching pods scores lower",
            pod: away_from_s1_in_az(make().labels(&[S1])),
            pods: vec![on("node1", S1), on("node1", S1), on("node2", S2)],
            nodes: vec![("node1", vec![AZ1]), ("node2", vec![INDIA])],
            want: Some(vec![0, 100]),
        },
        Case {
            name: "anti-affinity symmetry: existing pods' preferred anti-affinity the pod matches counts",
            pod: make().labels(&[S2]),
            pods: vec![
                away_from_s2_in_az(on("node1", S1)),
                away_from_s1_in_az(on("node2", S2)),
            ],
            nodes: vec![("node1", vec![AZ1]), ("node2", vec![AZ2])],
            want: Some(vec![0, 100]),
        },
        Case {
            name: "affinity and anti-affinity both count",
            pod: stay_with_s1_in_region_away_from_s2_in_az(make().labels(&[S1])),
            pods: vec![on("node1", S1), on("node2", S1)],
            nodes: vec![("node1", vec![CHINA]), ("node2", vec![AZ1])],
            want: Some(vec![100, 0]),
        },
        Case {
            name: "pods of one service gather in a region but spread over zones",
            pod: stay_with_s1_in_region_away_from_s2_in_az(make().labels(&[S1])),
            pods: vec![
                on("node1", S1),
                on("node1", S1),
                on("node2", S1),
                on("node3", S1),
                on("node3", S1),
                on("node4", S1),
                on("node5", S1),
            ],
            nodes: five(vec![CHINA, AZ1]),
            want: Some(vec![100, 0, 100, 100, 0]),
        },
        Case {
            name: "affinity, anti-affinity and both symmetries together",
            pod: stay_with_s1_in_region_away_from_s2_in_az(make().labels(&[S1])),
            pods: vec![
                on("node1", S1),
                on("node2", S2),
                stay_with_s1_in_region_away_from_s2_in_az(make().node("node3")),
                away_from_s1_in_az(make().node("node4")),
            ],
            nodes: vec![
                ("node1", vec![CHINA]),
                ("node2", vec![AZ1]),
                ("node3", vec![INDIA]),
                ("node4", vec![AZ2]),
            ],
            want: Some(vec![100, 0, 100, 0]),
        },
        Case {
            name: "nodes of a topology without pods with affinity score like the others",
            pod: make().labels(&[S1]),
            pods: vec![
                on("node1", S1),
                stay_with_s1_in_region_away_from_s2_in_az(make().node("node2")),
            ],
            nodes: vec![("node1", vec![CHINA]), ("node2", vec![CHINA])],
            want: Some(vec![0, 0]),
        },
        Case {
            name: "affinity with pods matching the namespace selector",
            pod: affinity_namespace_selector(make().namespace("subteam1.team1").labels(&[S1])),
            pods: vec![
                on("node1", S1).namespace("subteam1.team1"),
                on("node1", S1).namespace("subteam1.team1"),
                on("node1", S1).namespace("subteam1.team2"),
                on("node2", S1).namespace("subteam2.team1"),
            ],
            nodes: vec![("node1", vec![CHINA]), ("node2", vec![INDIA])],
            want: Some(vec![100, 0]),
        },
        Case {
            name: "anti-affinity with pods matching both the namespace selector and the namespaces",
            pod: anti_affinity_namespace_selector(make().namespace("subteam1.team1").labels(&[S1])),
            pods: vec![
                on("node1", S1).namespace("subteam1.team1"),
                on("node1", S1).namespace("subteam1.team1"),
                on("node1", S1).namespace("subteam2.team2"),
                on("node2", S1).namespace("subteam2.team1"),
            ],
            nodes: vec![("node1", vec![CHINA]), ("node2", vec![INDIA])],
            want: Some(vec![0, 100]),
        },
        Case {
            name: "no nodes to score skips",
            pod: make().labels(&[S2]),
            pods: vec![],
            nodes: vec![],
            want: None,
        },
    ];
    check(InterPodAffinity::default(), cases);
}

#[test]
fn ignore_preferred_terms_of_existing_pods() {
    let case = |name, want| Case {
        name,
        pod: make().labels(&[S2]),
        pods: vec![
            stay_with_s1_in_region_away_from_s2_in_az(on("node1", S1)),
            stay_with_s2_in_region(on("node2", S2)),
        ],
        nodes: vec![("node1", vec![CHINA]), ("node2", vec![INDIA])],
        want,
    };
    let ignoring = InterPodAffinity {
        ignore_preferred_terms_of_existing_pods: true,
        ..InterPodAffinity::default()
    };
    check(
        ignoring,
        vec![case("ignoring existing pods' terms skips", None)],
    );
    check(
        InterPodAffinity::default(),
        vec![case("not ignoring them scores", Some(vec![0, 100]))],
    );
}

#[test]
fn hard_pod_affinity_symmetric_weight() {
    let hard = |p: MakePod| {
        p.required_pod_affinity(PodAffinityTerm {
            namespaces: Some(vec!["default".into(), "subteam2.team2".into()]),
            namespace_selector: Some(team("team1")),
            ..term1("service", "In", &["S1"], "region")
        })
    };
    let nodes = || {
        vec![
            ("node1", vec![CHINA]),
            ("node2", vec![INDIA]),
            ("node3", vec![AZ1]),
        ]
    };
    let case = |name, ns: &str, want| Case {
        name,
        pod: make().namespace(ns).labels(&[("service", "S1")]),
        pods: vec![hard(make().node("node1")), hard(make().node("node2"))],
        nodes: nodes(),
        want,
    };
    let weighted = |w| InterPodAffinity {
        hard_pod_affinity_weight: w,
        ..InterPodAffinity::default()
    };
    check(
        weighted(1),
        vec![
            case(
                "with the default weight",
                "default",
                Some(vec![100, 100, 0]),
            ),
            case("with no matching namespace", "subteam1.team2", None),
            case(
                "with a matching namespace selector",
                "subteam1.team1",
                Some(vec![100, 100, 0]),
            ),
            case(
                "with matching namespaces",
                "subteam2.team2",
                Some(vec![100, 100, 0]),
            ),
        ],
    );
    check(weighted(0), vec![case("with zero weight", "default", None)]);
}

#[test]
fn an_invalid_preferred_selector_fails_pre_score() {
    let c = cluster(vec![node("node1", &[CHINA])], vec![], vec![]);
    for pod in [
        make().preferred_pod_affinity(8, term1("security", "In", &["{{.bad-value.}}"], "region")),
        make().preferred_pod_anti_affinity(5, term1("security", "In", &["{{.bad-value.}}"], "az")),
    ] {
        let mut state = CycleState::default();
        let nodes: Vec<_> = c.nodes.iter().collect();
        let st = InterPodAffinity::default().pre_score(&mut state, &pod.info(), &nodes, &c);
        assert_eq!(st.code, Code::Error);
        assert!(
            st.message().contains("Invalid value: \"{{.bad-value.}}\""),
            "{st:?}"
        );
    }
}

#[test]
fn normalize_truncates_as_upstream() {
    // 100 * (x - min) / (max - min), truncated toward zero.
    let c = cluster(
        vec![
            node("n1", &[("zone", "a")]),
            node("n2", &[("zone", "b")]),
            node("n3", &[("zone", "c")]),
        ],
        [
            on("n1", S1),
            on("n2", S1),
            on("n2", S1),
            on("n3", S2),
            on("n3", S2),
            on("n3", S2),
        ]
        .into_iter()
        .map(MakePod::obj)
        .collect(),
        vec![],
    );
    let pod = make()
        .preferred_pod_affinity(3, term1("security", "In", &["S1"], "zone"))
        .preferred_pod_anti_affinity(1, term1("security", "In", &["S2"], "zone"))
        .info();
    // zone a: 3, zone b: 6, zone c: -3 -> (6, 9, 0) / 9.
    assert_eq!(
        run_score(InterPodAffinity::default(), &pod, &c),
        Some(vec![66, 100, 0])
    );
}
