//! What the engine's integration tests share: the simulation's configuration with every
//! default but the seed, and nodes of a given allocatable.

use k8s_openapi::api::core::v1::Node;
use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_core::testing::MakeNode;
use repel_engine::controllers::node_lifecycle::NodeLifecycleConfig;
use repel_engine::sim::SimConfig;

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
