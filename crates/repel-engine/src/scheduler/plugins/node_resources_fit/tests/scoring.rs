//! Upstream `TestLeastAllocatedScoringStrategy` and the LeastAllocated cases of `TestFitScore`
//! (v1.35), ported.

use super::*;

/// name, pod, nodes, scoring resources, scores.
type ScoreCase = (
    &'static str,
    PodInfo,
    Vec<NodeInfo>,
    Vec<ResourceSpec>,
    Vec<i64>,
);

fn scores(pl: &NodeResourcesFit, p: &PodInfo, nodes: &[NodeInfo], pre_score: bool) -> Vec<i64> {
    let mut state = CycleState::default();
    if pre_score {
        let refs: Vec<&NodeInfo> = nodes.iter().collect();
        let st = pl.pre_score(&mut state, p, &refs, &Cluster::new());
        assert!(st.is_success(), "PreScore succeeds, never skips");
    }
    nodes
        .iter()
        .map(|n| pl.score(&state, p, n, &Cluster::new()).unwrap_or(-1))
        .collect()
}

fn cap(cpu: &'static str, mem: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![("cpu", cpu), ("memory", mem), ("pods", "110")]
}

/// Upstream `TestLeastAllocatedScoringStrategy` and the LeastAllocated cases of `TestFitScore`.
#[test]
fn least_allocated_scores() {
    let none = || rpod(&[], &[]);
    let req = |c: &'static str, m: &'static str| rpod(&[&[("cpu", c), ("memory", m)]], &[]);
    let two = || {
        rpod(
            &[
                &[("cpu", "1000"), ("memory", "2000")],
                &[("cpu", "2000"), ("memory", "3000")],
            ],
            &[],
        )
    };
    let with_sidecar = {
        let mut p = req("1000", "2000").to_pod();
        if let Some(s) = p.spec.as_mut() {
            s.init_containers = Some(vec![container(
                &[("cpu", "1000"), ("memory", "2000")],
                true,
            )]);
        }
        PodInfo::new(p, 0)
    };
    let gpu = "intel.com/foo";
    #[rustfmt::skip]
    let cases: Vec<ScoreCase> = vec![
        ("nothing scheduled, nothing requested", none(),
            vec![node_with("node1", &cap("4000", "10000"), &[]), node_with("node2", &cap("4000", "10000"), &[])],
            default_resources(), vec![100, 100]),
        ("nothing scheduled, resources requested, differently sized nodes", two(),
            vec![node_with("node1", &cap("4000", "10000"), &[]), node_with("node2", &cap("6000", "10000"), &[])],
            default_resources(), vec![37, 50]),
        ("no resources requested, pods scheduled", none(),
            vec![node_with("node1", &cap("4000", "10000"), &[none(), none()]),
                 node_with("node2", &cap("4000", "10000"), &[none(), none()])],
            default_resources(), vec![100, 100]),
        ("no resources requested, pods scheduled with resources", none(),
            vec![node_with("node1", &cap("10000", "20000"), &[req("3000", "0"), req("3000", "0")]),
                 node_with("node2", &cap("10000", "20000"), &[req("3000", "0"), req("3000", "5000")])],
            default_resources(), vec![70, 57]),
        ("resources requested, pods scheduled with resources", two(),
            vec![node_with("node1", &cap("10000", "20000"), &[req("3000", "0")]),
                 node_with("node2", &cap("10000", "20000"), &[req("3000", "5000")])],
            default_resources(), vec![57, 45]),
        ("resources requested, pods scheduled with resources, differently sized nodes", two(),
            vec![node_with("node1", &cap("10000", "20000"), &[req("3000", "0")]),
                 node_with("node2", &cap("10000", "50000"), &[req("3000", "5000")])],
            default_resources(), vec![57, 60]),
        ("requested resources exceed node capacity", req("3000", "0"),
            vec![node_with("node1", &cap("4000", "10000"), &[req("3000", "0")]),
                 node_with("node2", &cap("4000", "10000"), &[req("3000", "5000")])],
            default_resources(), vec![50, 25]),
        ("zero node resources, pods scheduled with resources", none(),
            vec![node_with("node1", &[], &[req("3000", "0")]), node_with("node2", &[], &[req("3000", "5000")])],
            default_resources(), vec![0, 0]),
        ("nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes", two(),
            vec![node_with("node1", &cap("4000", "10000"), &[]), node_with("node2", &cap("6000", "10000"), &[])],
            vec![ResourceSpec { name: "memory".into(), weight: 2 }, ResourceSpec { name: "cpu".into(), weight: 1 }],
            vec![41, 50]),
        ("bypass extended resource if the pod does not request", two(),
            vec![node_with("node1", &cap("6000", "10000"), &[]),
                 node_with("node2", &[("cpu", "6000"), ("memory", "10000"), (gpu, "4")], &[])],
            extended(gpu, 1), vec![50, 50]),
        ("honor extended resource if the pod requests",
            rpod(&[&[("cpu", "3000"), ("memory", "5000"), (gpu, "2")]], &[]),
            vec![node_with("node1", &[("cpu", "6000"), ("memory", "10000"), (gpu, "4")], &[]),
                 node_with("node2", &[("cpu", "6000"), ("memory", "10000"), (gpu, "10")], &[])],
            extended(gpu, 1), vec![50, 60]),
        ("if the node doesn't have a resource", req("3000", "4000"),
            vec![node_with("node1", &cap("6000", "10000"), &[]),
                 node_with("node2", &[("cpu", "6000"), ("memory", "10000"), (gpu, "4")], &[])],
            { let mut r = vec![ResourceSpec { name: gpu.into(), weight: 2 }]; r.extend(default_resources()); r },
            vec![55, 55]),
        ("TestFitScore: LeastAllocated", req("1000", "2000"),
            vec![node_with("node1", &cap("4000", "10000"), &[req("2000", "4000")]),
                 node_with("node2", &cap("6000", "10000"), &[req("1000", "2000")])],
            default_resources(), vec![32, 63]),
        ("TestFitScore: LeastAllocated with sidecar container", req("1000", "2000"),
            vec![node_with("node1", &cap("4000", "10000"), &[with_sidecar]),
                 node_with("node2", &cap("4000", "10000"), &[req("1000", "2000")])],
            default_resources(), vec![32, 55]),
    ];
    for (name, p, nodes, resources, want) in cases {
        let pl = NodeResourcesFit { resources };
        assert_eq!(scores(&pl, &p, &nodes, true), want, "{name}");
        assert_eq!(
            scores(&pl, &p, &nodes, false),
            want,
            "{name}, if PreScore is not called"
        );
    }
}

fn extended(name: &str, weight: i64) -> Vec<ResourceSpec> {
    let mut r = default_resources();
    r.push(ResourceSpec {
        name: name.into(),
        weight,
    });
    r
}

#[test]
fn scoring_without_resources_is_an_error() {
    let pl = NodeResourcesFit { resources: vec![] };
    let n = node_with("node1", &cap("4000", "10000"), &[]);
    let err = pl.score(&CycleState::default(), &rpod(&[], &[]), &n, &Cluster::new());
    let st = err.err();
    assert_eq!(st.as_ref().map(|s| s.code), Some(Code::Error));
    assert_eq!(
        st.map(|s| s.reasons),
        Some(vec!["resources not found".to_string()])
    );
}

#[test]
fn pods_without_requests_score_with_the_non_zero_defaults() {
    // 1 core and 1 GiB: the default 100m and 200Mi of an empty container count.
    let p = rpod(&[&[]], &[]);
    let n = node_with(
        "n",
        &[("cpu", "1"), ("memory", "1Gi"), ("pods", "110")],
        &[rpod(&[&[]], &[])],
    );
    // cpu: (1000 - 200) * 100 / 1000 = 80; memory: (1024 - 400) * 100 / 1024 = 60 (60.9 floored).
    assert_eq!(
        scores(&NodeResourcesFit::default(), &p, &[n], true),
        vec![70]
    );
}
