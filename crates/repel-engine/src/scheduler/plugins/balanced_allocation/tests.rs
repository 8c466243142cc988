//! Upstream `TestNodeResourcesBalancedAllocation` (v1.35), ported.

use super::*;
use crate::scheduler::framework::Code;
use crate::scheduler::plugins::test_support::pod;
use repel_core::k8s_openapi::api::core::v1::{Container, Node, NodeStatus, ResourceRequirements};
use repel_core::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

type Req<'a> = &'a [(&'a str, &'a str)];
/// name, pod, nodes, resources, scores.
type ScoreCase = (
    &'static str,
    PodInfo,
    Vec<NodeInfo>,
    Vec<ResourceSpec>,
    Vec<i64>,
);

fn list(pairs: Req) -> BTreeMap<String, Quantity> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
        .collect()
}

fn rpod(containers: &[Req]) -> PodInfo {
    pod("p", |s| {
        s.containers = containers
            .iter()
            .map(|r| Container {
                name: "c".into(),
                resources: Some(ResourceRequirements {
                    requests: Some(list(r)),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .collect();
    })
}

/// Upstream `makeNode(name, milliCPU, memory, extended)`, with the given pods on it.
fn make_node(
    name: &str,
    milli_cpu: i64,
    memory: i64,
    gpus: Option<i64>,
    pods: &[PodInfo],
) -> NodeInfo {
    let mut alloc = BTreeMap::from([
        ("cpu".to_string(), Quantity(format!("{milli_cpu}m"))),
        ("memory".to_string(), Quantity(memory.to_string())),
    ]);
    if let Some(g) = gpus {
        alloc.insert("nvidia.com/gpu".into(), Quantity(g.to_string()));
    }
    let mut n = NodeInfo::new(Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: None,
        status: Some(NodeStatus {
            allocatable: Some(alloc),
            ..Default::default()
        }),
    });
    for (i, p) in pods.iter().enumerate() {
        n.add_pod(100 + i, p);
    }
    n
}

fn cpu_only() -> PodInfo {
    rpod(&[
        &[("cpu", "1000m"), ("memory", "0")],
        &[("cpu", "2000m"), ("memory", "0")],
    ])
}

fn cpu_and_memory() -> PodInfo {
    rpod(&[
        &[("cpu", "1000m"), ("memory", "2000")],
        &[("cpu", "2000m"), ("memory", "3000")],
    ])
}

fn cpu_and_memory_and_gpu() -> PodInfo {
    rpod(&[
        &[("cpu", "1000m"), ("memory", "2000")],
        &[
            ("cpu", "2000m"),
            ("memory", "3000"),
            ("nvidia.com/gpu", "3"),
        ],
    ])
}

fn with_gpu() -> Vec<ResourceSpec> {
    let mut r = default_resources();
    r.push(ResourceSpec {
        name: "nvidia.com/gpu".into(),
        weight: 1,
    });
    r
}

#[test]
fn balanced_allocation_scores() {
    #[rustfmt::skip]
    let cases: Vec<ScoreCase> = vec![
        // node1: cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5, std 0.125 -> 87; node2: 0.5 and 0.5 -> 100.
        ("nothing scheduled, resources requested, differently sized nodes", cpu_and_memory(),
            vec![make_node("node1", 4000, 10000, None, &[]), make_node("node2", 6000, 10000, None, &[])],
            default_resources(), vec![87, 100]),
        // node1: 6000/10000 and 5000/20000, std 0.175 -> 82; node2: 6000/10000 and 10000/20000, std 0.05 -> 95.
        ("resources requested, pods scheduled with resources", cpu_and_memory(),
            vec![make_node("node1", 10000, 20000, None, &[cpu_only()]),
                 make_node("node2", 10000, 20000, None, &[cpu_and_memory()])],
            default_resources(), vec![82, 95]),
        ("resources requested, pods scheduled with resources, differently sized nodes", cpu_and_memory(),
            vec![make_node("node1", 10000, 20000, None, &[cpu_only()]),
                 make_node("node2", 10000, 50000, None, &[cpu_and_memory()])],
            default_resources(), vec![82, 80]),
        // node1: cpu 6000/6000 = 1, memory 0 -> 50; node2: 1 and 0.5 -> 75.
        ("requested resources at node capacity", cpu_only(),
            vec![make_node("node1", 6000, 10000, None, &[cpu_only()]),
                 make_node("node2", 6000, 10000, None, &[cpu_and_memory()])],
            default_resources(), vec![50, 75]),
        // node1: 3000/3500, 5000/40000, gpu 4/8 -> std 0.3002 -> 70; node2: gpu 1/8 -> 65.
        ("include scalar resource on a node for balanced resource allocation",
            rpod(&[&[("memory", "0"), ("nvidia.com/gpu", "1")]]),
            vec![make_node("node1", 3500, 40000, Some(8), &[cpu_and_memory_and_gpu()]),
                 make_node("node2", 3500, 40000, Some(8), &[cpu_and_memory()])],
            with_gpu(), vec![70, 65]),
        // The pod does not request the GPU: it is left out, (0.8571 - 0.125) / 2 -> 63 on both.
        ("node without the scalar resource should skip the scalar resource", cpu_and_memory(),
            vec![make_node("node1", 3500, 40000, Some(8), &[]), make_node("node2", 3500, 40000, None, &[])],
            with_gpu(), vec![63, 63]),
    ];
    for (name, p, nodes, resources, want) in cases {
        let pl = BalancedAllocation { resources };
        for pre_score in [true, false] {
            let mut state = CycleState::default();
            if pre_score {
                let refs: Vec<&NodeInfo> = nodes.iter().collect();
                let st = pl.pre_score(&mut state, &p, &refs, &Cluster::new());
                assert!(st.is_success(), "{name}: PreScore succeeds");
            }
            let got: Vec<i64> = nodes
                .iter()
                .map(|n| pl.score(&state, &p, n, &Cluster::new()).unwrap_or(-1))
                .collect();
            assert_eq!(got, want, "{name} (PreScore run: {pre_score})");
        }
    }
}

#[test]
fn best_effort_pods_are_skipped() {
    let pl = BalancedAllocation::default();
    let nodes = [make_node("node1", 4000, 10000, None, &[])];
    let refs: Vec<&NodeInfo> = nodes.iter().collect();
    #[rustfmt::skip]
    let cases = [
        ("nothing scheduled, nothing requested, skip in PreScore", pod("p", |s| s.containers = vec![])),
        ("a container without requests is BestEffort: no non-zero defaults here", rpod(&[&[]])),
        ("explicit zero requests are BestEffort too", rpod(&[&[("cpu", "0"), ("memory", "0")]])),
    ];
    for (name, p) in cases {
        let mut state = CycleState::default();
        let st = pl.pre_score(&mut state, &p, &refs, &Cluster::new());
        assert_eq!(st.code, Code::Skip, "{name}");
        let without_pre_score = pl.score(&CycleState::default(), &p, &nodes[0], &Cluster::new());
        assert_eq!(without_pre_score, Ok(0), "{name}: Score alone gives 0");
    }
}

#[test]
fn the_deviation_formula() {
    #[rustfmt::skip]
    let cases: [(&str, Vec<i64>, Vec<i64>, i64); 6] = [
        ("equal fractions score 100", vec![1, 1], vec![2, 2], 100),
        ("a fraction above 1 is capped at 1", vec![8, 0], vec![4, 10], 50),
        ("zero allocatable resources are left out; one fraction gives 0 deviation", vec![5, 3], vec![0, 10], 100),
        ("no fractions at all score 100", vec![0, 0], vec![0, 0], 100),
        ("(1 - 0.125) * 100 = 87.5 truncates to 87", vec![3, 1], vec![4, 2], 87),
        ("three fractions use the population standard deviation", vec![6, 1, 4], vec![7, 8, 8], 70),
    ];
    for (name, req, alloc, want) in cases {
        assert_eq!(balanced_resource_score(&req, &alloc), want, "{name}");
    }
}
