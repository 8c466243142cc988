//! What the engine's integration tests share: the simulation's configuration with every
//! default but the seed, and nodes of a given allocatable.

use k8s_openapi::api::core::v1::Node;
use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_core::testing::MakeNode;
use repel_engine::controllers::node_lifecycle::NodeLifecycleConfig;
use repel_engine::load::ClusterInput;
use repel_engine::sim::{SimConfig, Simulation};

/// The simulation's defaults (feature gates, admission, node lifecycle, every node scored)
/// with `seed`.
pub fn config(seed: u64) -> SimConfig {
    SimConfig {
        gates: FeatureGates::default(),
        seed,
        percentage_of_nodes_to_score: None,
        admission: AdmissionConfig::default(),
        node_lifecycle: NodeLifecycleConfig::default(),
    }
}

/// A node `name` whose allocatable is `cpu`, `memory` and `pods`.
pub fn sized_node(name: &str, cpu: &str, memory: &str, pods: &str) -> Node {
    MakeNode::new()
        .name(name)
        .allocatable(&[("cpu", cpu), ("memory", memory), ("pods", pods)])
        .obj()
}

/// `count` Ready nodes `n0`, `n1`, … of 4 CPUs, 8 GiB and 10 pods.
pub fn ready_nodes(count: usize) -> Vec<Node> {
    (0..count)
        .map(|i| {
            MakeNode::new()
                .name(&format!("n{i}"))
                .allocatable(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "10")])
                .condition("Ready", "True")
                .obj()
        })
        .collect()
}

/// A simulation of `nodes` alone with `seed`, settled.
pub fn settled(nodes: Vec<Node>, seed: u64) -> Simulation {
    let mut sim = Simulation::new(
        ClusterInput {
            nodes,
            ..Default::default()
        },
        config(seed),
    );
    sim.settle();
    sim
}
