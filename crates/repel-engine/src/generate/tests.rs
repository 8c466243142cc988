use std::collections::BTreeSet;

use repel_core::FeatureGates;
use repel_core::workload::{Workload, expand_pods};

use super::nodes::{POOL_LABEL, Pool, ZONE_LABEL};
use super::{GenerateOptions, Generated, generate};
use crate::load::build_cluster;
use crate::scheduler::{Scheduler, schedule_all};

fn opts(nodes: usize, pods: usize, seed: u64, taints_per_node: usize) -> GenerateOptions {
    GenerateOptions {
        nodes,
        pods,
        seed,
        taints_per_node,
    }
}

fn json(g: &Generated) -> String {
    let workloads: Vec<serde_json::Value> = g
        .workloads
        .iter()
        .map(|w| match w {
            Workload::Deployment(o) => serde_json::to_value(o),
            Workload::StatefulSet(o) => serde_json::to_value(o),
            Workload::DaemonSet(o) => serde_json::to_value(o),
            Workload::Job(o) => serde_json::to_value(o),
            Workload::ReplicaSet(o) => serde_json::to_value(o),
            Workload::CronJob(o) => serde_json::to_value(o),
            Workload::ReplicationController(o) => serde_json::to_value(o),
        })
        .collect::<Result<_, _>>()
        .unwrap();
    serde_json::to_string(&serde_json::json!({
        "nodes": g.nodes, "pods": g.pods, "workloads": workloads,
        "priorityClasses": g.priority_classes,
    }))
    .unwrap()
}

fn expanded(g: &Generated) -> usize {
    let gates = FeatureGates::default();
    g.pods.len()
        + g.workloads
            .iter()
            .map(|w| expand_pods(w, &g.nodes, &gates, 7).len())
            .sum::<usize>()
}

#[test]
fn the_same_seed_gives_the_same_objects_and_another_seed_others() {
    for k in [0, 3] {
        let a = json(&generate(&opts(60, 900, 42, k)));
        let b = json(&generate(&opts(60, 900, 42, k)));
        let c = json(&generate(&opts(60, 900, 43, k)));
        assert_eq!(a, b, "taints_per_node {k}: same seed");
        assert_ne!(a, c, "taints_per_node {k}: different seed");
    }
}

#[test]
fn nodes_are_exact_and_pods_within_two_percent_after_expansion() {
    let cases = [
        ("a handful of nodes", opts(3, 50, 1, 0)),
        ("fewer pods than nodes", opts(40, 20, 2, 0)),
        ("a small cluster", opts(50, 1_000, 3, 2)),
        ("a medium cluster", opts(200, 3_000, 4, 0)),
        ("a dense cluster", opts(300, 9_000, 5, 4)),
        ("no nodes", opts(0, 100, 6, 0)),
    ];
    for (name, o) in cases {
        let g = generate(&o);
        assert_eq!(g.nodes.len(), o.nodes, "{name}: nodes");
        let pods = expanded(&g);
        assert_eq!(
            pods,
            g.pod_count(),
            "{name}: pod_count agrees with expansion"
        );
        let diff = pods.abs_diff(o.pods) as f64;
        assert!(
            diff <= 0.02 * o.pods as f64,
            "{name}: {pods} pods for {}",
            o.pods
        );
        let names: BTreeSet<_> = g.nodes.iter().map(|n| n.metadata.name.clone()).collect();
        assert_eq!(names.len(), o.nodes, "{name}: node names are unique");
    }
}

#[test]
fn every_pool_and_zone_is_present_from_fifty_nodes_on() {
    for nodes in [50, 51, 137, 500] {
        let g = generate(&opts(nodes, nodes * 10, 9, 0));
        let label = |key: &str| -> BTreeSet<String> {
            g.nodes
                .iter()
                .filter_map(|n| n.metadata.labels.as_ref()?.get(key).cloned())
                .collect()
        };
        let pools: BTreeSet<String> = Pool::all().into_iter().map(Pool::name).collect();
        assert_eq!(label(POOL_LABEL), pools, "{nodes} nodes: pools");
        assert_eq!(label(ZONE_LABEL).len(), 3, "{nodes} nodes: zones");
        let kinds: BTreeSet<&str> = g.workloads.iter().map(Workload::kind).collect();
        for kind in ["Deployment", "StatefulSet", "DaemonSet", "Job"] {
            assert!(kinds.contains(kind), "{nodes} nodes: a {kind}");
        }
        let gpu_nodes = g
            .nodes
            .iter()
            .filter(|n| {
                n.status
                    .as_ref()
                    .and_then(|s| s.allocatable.as_ref())
                    .is_some_and(|a| a.contains_key("nvidia.com/gpu"))
            })
            .count();
        assert!(gpu_nodes > 0, "{nodes} nodes: GPU allocatable");
    }
}

#[test]
fn every_node_carries_its_synthetic_taints() {
    let g = generate(&opts(20, 200, 1, 5));
    for n in &g.nodes {
        let taints = n.spec.as_ref().and_then(|s| s.taints.as_ref()).unwrap();
        let bench = taints
            .iter()
            .filter(|t| t.key.starts_with("bench.repel.dev/t"))
            .count();
        assert_eq!(bench, 5, "{:?}", n.metadata.name);
    }
}

/// 200 nodes, 3,000 pods: most of the cluster's CPU is requested and ≥ 90 % of pods place.
#[test]
fn a_200_node_3000_pod_cluster_is_mostly_requested_and_mostly_placed() {
    let g = generate(&opts(200, 3_000, 11, 2));
    let built = build_cluster(g.input(), &FeatureGates::default(), &Default::default(), 11);
    assert!(built.rejected.is_empty(), "{:?}", built.rejected);
    let mut cluster = built.cluster;
    let total = cluster.pods.len();
    let cpu: i64 = cluster.nodes.iter().map(|n| n.allocatable.milli_cpu).sum();
    let asked: i64 = cluster.pods.iter().map(|p| p.requests.milli_cpu).sum();
    let share = asked as f64 / cpu as f64;
    let mut scheduler = Scheduler::new(FeatureGates::default(), Some(100), 11);
    schedule_all(&mut scheduler, &mut cluster);
    let placed = cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && p.node.is_some())
        .count();
    let rate = placed as f64 / total as f64;
    eprintln!(
        "generated 200 nodes / {total} pods: {:.1} % of cpu requested, {placed} placed ({:.1} %)",
        share * 100.0,
        rate * 100.0
    );
    assert!((0.70..=0.85).contains(&share), "cpu requested {share}");
    assert!(rate >= 0.90, "placed {placed} of {total}");
    assert!(placed < total || rate >= 0.90, "placement rate {rate}");
}
