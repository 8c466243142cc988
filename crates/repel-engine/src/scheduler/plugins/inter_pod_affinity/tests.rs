//! Upstream's InterPodAffinity tables (`filtering_test.go`, `scoring_test.go`, v1.35), ported:
//! fixture builders here, the tables beside.

mod filtering;
mod multiple_nodes;
mod scoring;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodAffinityTerm};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector, LabelSelectorRequirement, ObjectMeta,
};

use super::*;
use crate::cluster::{Cluster, PodInfo};
use crate::scheduler::framework::{Code, CycleState, Status};
use crate::scheduler::plugins::test_support::Info;
use repel_core::testing::{MakeNode, MakePod};

/// A label map.
pub(super) fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A selector requirement.
pub(super) fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
    LabelSelectorRequirement {
        key: key.into(),
        operator: op.into(),
        values: (!values.is_empty()).then(|| values.iter().map(|s| s.to_string()).collect()),
    }
}

/// A term of ANDed expressions over `topology`.
pub(super) fn term(exprs: Vec<LabelSelectorRequirement>, topology: &str) -> PodAffinityTerm {
    PodAffinityTerm {
        label_selector: Some(LabelSelector {
            match_expressions: Some(exprs),
            match_labels: None,
        }),
        topology_key: topology.into(),
        ..Default::default()
    }
}

/// A term with one expression (upstream `st.MakePod().PodAffinityIn(...)` and friends).
pub(super) fn term1(key: &str, op: &str, values: &[&str], topology: &str) -> PodAffinityTerm {
    term(vec![expr(key, op, values)], topology)
}

/// The namespace selector `team in (<team>)`.
pub(super) fn team(name: &str) -> LabelSelector {
    LabelSelector {
        match_expressions: Some(vec![expr("team", "In", &[name])]),
        match_labels: None,
    }
}

/// A new pod named `p` with one container (upstream `st.MakePod().Name("p")`).
pub(super) fn make() -> MakePod {
    MakePod::new().name("p").container("c", "")
}

/// A node with labels (upstream `st.MakeNode().Name(name).Label(...)`).
pub(super) fn node(name: &str, pairs: &[(&str, &str)]) -> Node {
    pairs
        .iter()
        .fold(MakeNode::new().name(name), |n, (k, v)| n.label(k, v))
        .obj()
}

/// A namespace with labels.
pub(super) fn namespace(name: &str, pairs: &[(&str, &str)]) -> Namespace {
    Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(labels(pairs)),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Upstream's `namespaces` fixture: `subteamN.teamM` labelled `team=teamM`.
pub(super) fn team_namespaces() -> Vec<Namespace> {
    [
        "subteam1.team1",
        "subteam2.team1",
        "subteam1.team2",
        "subteam2.team2",
    ]
    .iter()
    .map(|n| namespace(n, &[("team", &n[n.len() - 5..])]))
    .collect()
}

/// A cluster of `nodes` with `pods` bound where they name a known node.
pub(super) fn cluster(nodes: Vec<Node>, pods: Vec<Pod>, namespaces: Vec<Namespace>) -> Cluster {
    let mut c = Cluster::new();
    for n in nodes {
        c.add_node(n);
    }
    for (i, p) in pods.into_iter().enumerate() {
        let mut p = p;
        // Distinct names, as upstream's snapshot keys pods by UID.
        let name = format!("{}-{i}", p.metadata.name.as_deref().unwrap_or("p"));
        p.metadata.name = Some(name);
        c.add_pod(p);
    }
    c.namespaces = namespaces;
    c
}

/// What Filter said, in the tables' words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// Success.
    Fits,
    /// UnschedulableAndUnresolvable, "node(s) didn't match pod affinity rules".
    Affinity,
    /// Unschedulable, "node(s) didn't match pod anti-affinity rules".
    Anti,
    /// Unschedulable, "node(s) didn't satisfy existing pods anti-affinity rules".
    Existing,
}

impl Want {
    /// The status this stands for.
    pub(super) fn status(self) -> Status {
        match self {
            Want::Fits => Status::success(),
            Want::Affinity => Status::unresolvable(NAME, ERR_REASON_AFFINITY_RULES_NOT_MATCH),
            Want::Anti => {
                Status::unschedulable(NAME, vec![ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH.into()])
            }
            Want::Existing => Status::unschedulable(
                NAME,
                vec![ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH.into()],
            ),
        }
    }
}

/// Runs PreFilter; when it succeeds, Filter on every node. Returns PreFilter's status and the
/// node statuses.
pub(super) fn run_filter(pod: &PodInfo, c: &Cluster) -> (Status, Vec<Status>, CycleState) {
    let pl = InterPodAffinity::default();
    let mut state = CycleState::default();
    let (pre, result) = pl.pre_filter(&mut state, pod, c);
    assert!(result.is_none());
    if pre.code != Code::Success {
        return (pre, Vec::new(), state);
    }
    let statuses = c
        .nodes
        .iter()
        .map(|n| pl.filter(&state, pod, n, c))
        .collect();
    (pre, statuses, state)
}

/// Runs PreScore, then Score and NormalizeScore on every node; `None` when PreScore skipped.
pub(super) fn run_score(pl: InterPodAffinity, pod: &PodInfo, c: &Cluster) -> Option<Vec<i64>> {
    let mut state = CycleState::default();
    let nodes: Vec<_> = c.nodes.iter().collect();
    let st = pl.pre_score(&mut state, pod, &nodes, c);
    if st.code == Code::Skip {
        return None;
    }
    assert_eq!(st.code, Code::Success, "{st:?}");
    let mut scores: Vec<i64> = c
        .nodes
        .iter()
        .map(|n| pl.score(&state, pod, n, c).unwrap_or(i64::MIN))
        .collect();
    pl.normalize_score(&state, pod, &mut scores);
    Some(scores)
}

/// One row of a Filter table.
pub(super) struct Case {
    pub name: &'static str,
    pub pod: MakePod,
    pub pods: Vec<MakePod>,
    pub nodes: Vec<Node>,
    /// `None`: PreFilter skips.
    pub want: Option<Vec<Want>>,
}

/// Runs a Filter table.
pub(super) fn check(cases: Vec<Case>, namespaces: fn() -> Vec<Namespace>) {
    for case in cases {
        let c = cluster(
            case.nodes,
            case.pods.into_iter().map(MakePod::obj).collect(),
            namespaces(),
        );
        let (pre, got, _) = run_filter(&case.pod.info(), &c);
        match case.want {
            None => assert_eq!(pre.code, Code::Skip, "{}", case.name),
            Some(want) => {
                assert_eq!(pre.code, Code::Success, "{}: {pre:?}", case.name);
                let want: Vec<Status> = want.into_iter().map(Want::status).collect();
                assert_eq!(got, want, "{}", case.name);
            }
        }
    }
}

#[test]
fn reasons_are_upstreams_strings() {
    assert_eq!(
        ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        "node(s) didn't satisfy existing pods anti-affinity rules"
    );
    assert_eq!(
        ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        "node(s) didn't match pod affinity rules"
    );
    assert_eq!(
        ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        "node(s) didn't match pod anti-affinity rules"
    );
    assert_eq!(NAME, "InterPodAffinity");
    assert_eq!(WEIGHT, 2);
    assert_eq!(InterPodAffinity::default().hard_pod_affinity_weight, 1);
}

/// Through the whole scheduler: pods repelling each other per host fill one host each, and the
/// next one gets upstream's FitError (anti-affinity is Unschedulable, so preemption is tried).
#[test]
fn self_anti_affinity_spreads_one_pod_per_host_through_the_scheduler() {
    use crate::scheduler::{Outcome, Scheduler};
    use k8s_openapi::api::core::v1::NodeStatus;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    let mut c = Cluster::new();
    for name in ["a", "b"] {
        let mut n = node(name, &[("kubernetes.io/hostname", name)]);
        n.status = Some(NodeStatus {
            allocatable: Some(
                [("cpu", "4"), ("memory", "8Gi"), ("pods", "110")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
                    .collect(),
            ),
            ..Default::default()
        });
        c.add_node(n);
    }
    let ids: Vec<_> = (0..3)
        .map(|i| {
            c.add_pod(
                make()
                    .name(&format!("web-{i}"))
                    .labels(&[("app", "web")])
                    .required_pod_anti_affinity(term1(
                        "app",
                        "In",
                        &["web"],
                        "kubernetes.io/hostname",
                    ))
                    .obj(),
            )
        })
        .collect();
    let mut s = Scheduler::new(Default::default(), Some(100), 1);
    let mut placed = Vec::new();
    for id in &ids[..2] {
        match s.schedule_one(&mut c, *id) {
            Outcome::Scheduled { node, .. } => placed.push(node),
            other => panic!("web pod not placed: {other:?}"),
        }
    }
    placed.sort();
    assert_eq!(placed, vec![0, 1]);
    match s.schedule_one(&mut c, ids[2]) {
        Outcome::Unschedulable { message, .. } => assert!(
            message.starts_with(
                "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
            ),
            "{message}"
        ),
        other => panic!("third web pod placed: {other:?}"),
    }
}
