//! A ReplicaSet's generated pod names never collide: 5 random characters repeat about once per
//! 3,000 pods of one ReplicaSet, and upstream's API server refuses the second pod of a taken
//! name (the controller tries again with another). A driver that writes the pods to a store
//! (`repel serve`) would otherwise lose one.

use std::collections::HashSet;

use repel_core::workload::Workload;
use repel_engine::load::ClusterInput;
use repel_engine::sim::Simulation;
use serde_json::json;

use crate::util;
use repel_core::testing::MakeNode;

#[test]
fn ten_thousand_replicas_get_ten_thousand_names() {
    let node = MakeNode::new()
        .name("n1")
        .allocatable(&[("cpu", "1000"), ("memory", "1000Gi"), ("pods", "20000")])
        .condition("Ready", "True")
        .obj();
    let rs = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 10000, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}
    }))
    .unwrap();
    let cfg = util::config(7);
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            workloads: vec![Workload::ReplicaSet(rs)],
            ..Default::default()
        },
        cfg,
    );
    sim.settle();
    // Delete them all: the ReplicaSet makes 10,000 more, from the same name stream.
    for id in 0..sim.cluster.pods.len() {
        sim.cluster.delete_pod(id);
    }
    sim.settle();
    let live: Vec<&str> = sim
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(live.len(), 10_000);
    let distinct: HashSet<&str> = live.iter().copied().collect();
    assert_eq!(distinct.len(), 10_000, "a name given twice");
}
