//! Upstream `TestRequiredAffinitySingleNode` (v1.35).

use super::*;

const SVC: (&str, &str) = ("service", "securityscan");
const SEC: (&str, &str) = ("security", "S1");

fn node1() -> Vec<Node> {
    vec![node("node1", &[("region", "r1"), ("zone", "z11")])]
}

/// The existing pod of the single-node table: `service=securityscan` on node1.
fn existing() -> MakePod {
    make().labels(&[SVC]).node("node1")
}

#[test]
fn required_affinity_single_node() {
    use Want::*;
    let ns_term = |t: &str| {
        let mut x = term1("service", "In", &["securityscan", "value2"], "region");
        x.namespace_selector = Some(team(t));
        x
    };
    let cases = vec![
        Case {
            name: "a pod without required pod affinity skips on a node with no existing pods",
            pod: make(),
            pods: vec![],
            nodes: node1(),
            want: None,
        },
        Case {
            name: "required affinity with In matching the existing pod is satisfied",
            pod: make().labels(&[SEC]).required_pod_affinity(term1(
                "service",
                "In",
                &["securityscan", "value2"],
                "region",
            )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
        Case {
            name: "required affinity with NotIn matching the existing pod is satisfied",
            pod: make().labels(&[SEC]).required_pod_affinity(term1(
                "service",
                "NotIn",
                &["securityscan3", "value3"],
                "region",
            )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
        Case {
            name: "affinity is not satisfied by a pod in another namespace",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(PodAffinityTerm {
                    namespaces: Some(vec!["DiffNameSpace".into()]),
                    ..term1("service", "In", &["securityscan", "value2"], "")
                }),
            pods: vec![make().namespace("ns").labels(&[SVC]).node("node1")],
            nodes: node1(),
            want: Some(vec![Affinity]),
        },
        Case {
            name: "affinity is not satisfied when the selector matches no existing pod",
            pod: make().labels(&[SVC]).required_pod_affinity(term1(
                "service",
                "In",
                &["antivirusscan", "value2"],
                "",
            )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Affinity]),
        },
        Case {
            name: "several terms with different operators are all satisfied",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(term(
                    vec![
                        expr("service", "Exists", &[]),
                        expr("wrongkey", "DoesNotExist", &[]),
                    ],
                    "region",
                ))
                .required_pod_affinity(term(
                    vec![
                        expr("service", "In", &["securityscan"]),
                        expr("service", "NotIn", &["WrongValue"]),
                    ],
                    "region",
                )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
        Case {
            name: "the expressions of a selector are ANDed, so one failing expression fails the term",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(term(
                    vec![
                        expr("service", "Exists", &[]),
                        expr("wrongkey", "DoesNotExist", &[]),
                    ],
                    "region",
                ))
                .required_pod_affinity(term(
                    vec![
                        expr("service", "In", &["securityscan2"]),
                        expr("service", "NotIn", &["WrongValue"]),
                    ],
                    "region",
                )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Affinity]),
        },
        Case {
            name: "affinity and anti-affinity with the existing pod are both satisfied",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(term1(
                    "service",
                    "In",
                    &["securityscan", "value2"],
                    "region",
                ))
                .required_pod_anti_affinity(term1(
                    "service",
                    "In",
                    &["antivirusscan", "value2"],
                    "node",
                )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
        Case {
            name: "affinity, anti-affinity and the existing pod's anti-affinity are all satisfied",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(term1(
                    "service",
                    "In",
                    &["securityscan", "value2"],
                    "region",
                ))
                .required_pod_anti_affinity(term1(
                    "service",
                    "In",
                    &["antivirusscan", "value2"],
                    "node",
                )),
            pods: vec![existing().required_pod_anti_affinity(term1(
                "service",
                "In",
                &["antivirusscan", "value2"],
                "node",
            ))],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
        Case {
            name: "affinity is satisfied but the pod's anti-affinity is not",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(term1(
                    "service",
                    "In",
                    &["securityscan", "value2"],
                    "region",
                ))
                .required_pod_anti_affinity(term1(
                    "service",
                    "In",
                    &["securityscan", "value2"],
                    "zone",
                )),
            pods: vec![existing()],
            nodes: node1(),
            want: Some(vec![Anti]),
        },
        Case {
            name: "the pod's terms are satisfied but the existing pod's anti-affinity is not",
            pod: make()
                .labels(&[SVC])
                .required_pod_affinity(term1(
                    "service",
                    "In",
                    &["securityscan", "value2"],
                    "region",
                ))
                .required_pod_anti_affinity(term1(
                    "service",
                    "In",
                    &["antivirusscan", "value2"],
                    "node",
                )),
            pods: vec![existing().required_pod_anti_affinity(term1(
                "service",
                "In",
                &["securityscan", "value2"],
                "zone",
            ))],
            nodes: node1(),
            want: Some(vec![Existing]),
        },
        Case {
            name: "a pod not matching its own affinity with no matching pod on the node fails",
            pod: make().labels(&[SVC]).required_pod_affinity(term1(
                "service",
                "NotIn",
                &["securityscan", "value2"],
                "region",
            )),
            pods: vec![make().labels(&[SVC]).node("node2")],
            nodes: node1(),
            want: Some(vec![Affinity]),
        },
        Case {
            name: "the existing pod's anti-affinity is respected when the pod has none",
            pod: make().labels(&[SVC]),
            pods: vec![existing().required_pod_anti_affinity(term1(
                "service",
                "In",
                &["securityscan", "value2"],
                "zone",
            ))],
            nodes: node1(),
            want: Some(vec![Existing]),
        },
        Case {
            name: "an existing pod's anti-affinity that does not match the pod lets PreFilter skip",
            pod: make().labels(&[SVC]),
            pods: vec![existing().required_pod_anti_affinity(term1(
                "service",
                "NotIn",
                &["securityscan", "value2"],
                "zone",
            ))],
            nodes: node1(),
            want: None,
        },
        Case {
            name: "the pod's anti-affinity matches the existing pod though the existing pod's does not match the pod",
            pod: make()
                .labels(&[SVC])
                .required_pod_anti_affinity(term1("service", "Exists", &[], "region"))
                .required_pod_anti_affinity(term1("security", "Exists", &[], "region")),
            pods: vec![
                make()
                    .labels(&[SEC])
                    .node("node1")
                    .required_pod_anti_affinity(term1("security", "Exists", &[], "zone")),
            ],
            nodes: node1(),
            want: Some(vec![Anti]),
        },
        Case {
            name: "symmetry a1: the pod's anti-affinity matches the existing pod partially",
            pod: make()
                .labels(&[SVC])
                .required_pod_anti_affinity(term1("service", "Exists", &[], "zone"))
                .required_pod_anti_affinity(term1("security", "Exists", &[], "zone")),
            pods: vec![
                make()
                    .labels(&[SEC])
                    .node("node1")
                    .required_pod_anti_affinity(term1("security", "Exists", &[], "zone")),
            ],
            nodes: node1(),
            want: Some(vec![Anti]),
        },
        Case {
            name: "symmetry a2: the existing pod's anti-affinity matches the pod partially",
            pod: make().labels(&[SEC]).required_pod_anti_affinity(term1(
                "security",
                "Exists",
                &[],
                "zone",
            )),
            pods: vec![
                make()
                    .labels(&[SVC])
                    .node("node1")
                    .required_pod_anti_affinity(term1("service", "Exists", &[], "zone"))
                    .required_pod_anti_affinity(term1("security", "Exists", &[], "zone")),
            ],
            nodes: node1(),
            want: Some(vec![Existing]),
        },
        Case {
            name: "symmetry b1: both sides match each other partially, the pod's own terms fail first",
            pod: make()
                .labels(&[("abc", ""), ("xyz", "")])
                .required_pod_anti_affinity(term1("abc", "Exists", &[], "zone"))
                .required_pod_anti_affinity(term1("def", "Exists", &[], "zone")),
            pods: vec![
                make()
                    .labels(&[("def", ""), ("xyz", "")])
                    .node("node1")
                    .required_pod_anti_affinity(term1("abc", "Exists", &[], "zone"))
                    .required_pod_anti_affinity(term1("def", "Exists", &[], "zone")),
            ],
            nodes: node1(),
            want: Some(vec![Anti]),
        },
        Case {
            name: "affinity with a namespace selector matching the existing pod's namespace",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(ns_term("team1")),
            pods: vec![
                make()
                    .namespace("subteam1.team1")
                    .labels(&[SVC])
                    .node("node1"),
            ],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
        Case {
            name: "affinity with a namespace selector not matching the existing pod's namespace",
            pod: make()
                .labels(&[SEC])
                .required_pod_affinity(ns_term("team1")),
            pods: vec![
                make()
                    .namespace("subteam1.team2")
                    .labels(&[SVC])
                    .node("node1"),
            ],
            nodes: node1(),
            want: Some(vec![Affinity]),
        },
        Case {
            name: "anti-affinity with a namespace selector matching the existing pod's namespace",
            pod: make()
                .namespace("subteam1.team1")
                .labels(&[SEC])
                .required_pod_anti_affinity({
                    let mut t = ns_term("team1");
                    t.topology_key = "zone".into();
                    t
                }),
            pods: vec![
                make()
                    .namespace("subteam2.team1")
                    .labels(&[SVC])
                    .node("node1"),
            ],
            nodes: node1(),
            want: Some(vec![Anti]),
        },
        Case {
            name: "anti-affinity with an empty namespace selector matches every namespace",
            pod: make()
                .namespace("subteam1.team1")
                .labels(&[SEC])
                .required_pod_anti_affinity(PodAffinityTerm {
                    namespace_selector: Some(LabelSelector::default()),
                    ..term1("service", "In", &["securityscan", "value2"], "zone")
                }),
            pods: vec![
                make()
                    .namespace("subteam2.team1")
                    .labels(&[SVC])
                    .node("node1"),
            ],
            nodes: node1(),
            want: Some(vec![Anti]),
        },
        Case {
            name: "anti-affinity with a namespace selector not matching the existing pod's namespace",
            pod: make()
                .namespace("subteam1.team1")
                .labels(&[SEC])
                .required_pod_anti_affinity({
                    let mut t = ns_term("team1");
                    t.topology_key = "zone".into();
                    t
                }),
            pods: vec![
                make()
                    .namespace("subteam1.team2")
                    .labels(&[SVC])
                    .node("node1"),
            ],
            nodes: node1(),
            want: Some(vec![Fits]),
        },
    ];
    check(cases, team_namespaces);
}

#[test]
fn an_invalid_selector_fails_pre_filter_with_upstreams_message() {
    let pod = make()
        .labels(&[SVC])
        .required_pod_affinity(term1("service", "In", &["{{.bad-value.}}"], "region"))
        .required_pod_affinity(term1("service", "In", &["antivirusscan", "value2"], "node"))
        .info();
    let c = cluster(node1(), vec![], vec![]);
    let (pre, _, _) = run_filter(&pod, &c);
    assert_eq!(pre.code, Code::UnschedulableAndUnresolvable);
    assert_eq!(
        pre.message(),
        "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": \
         a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', \
         and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or \
         '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    );
}
