//! One node's allocatable, two ways: the node Karpenter launches live in `repel serve` has
//! the allocatable the same NodePool's node has in `repel simulate` — the provider's kubelet
//! reservations subtracted once, in `repel_core::kubelet_reserved`.

use crate::util;

use std::time::{Duration, Instant};

use repel_core::admission::AdmissionConfig;
use repel_engine::controllers::node_lifecycle::NodeLifecycleConfig;
use repel_engine::load::ClusterInput;
use repel_engine::sim::{SimConfig, Simulation};
use serde_json::json;

/// Waits (up to 20 s) until `f` gives something.
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_karpenter_nodes_allocatable_is_the_same_in_serve_and_simulate() {
    let nodepool = json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "general"},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                              "values": ["m5.large"]}]}}}
    });
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                                 "resources": {"requests": {"cpu": "1"}}}]}
    });

    let mut sim = Simulation::new(
        ClusterInput {
            pods: vec![serde_json::from_value(pod.clone()).unwrap()],
            pools: vec![repel_core::pools::karpenter_pool(&nodepool).unwrap()],
            ..Default::default()
        },
        SimConfig {
            gates: repel_core::FeatureGates::default(),
            seed: 1,
            percentage_of_nodes_to_score: None,
            admission: AdmissionConfig::default(),
            node_lifecycle: NodeLifecycleConfig::default(),
        },
    );
    sim.advance_to(120_000);
    let simulated = serde_json::to_value(
        sim.cluster.nodes[0]
            .node
            .status
            .as_ref()
            .and_then(|s| s.allocatable.clone()),
    )
    .unwrap();

    let s = util::start_with(vec![nodepool, pod], 600.0);
    let served = wait_for("Karpenter's node", || {
        s.app
            .store
            .list("nodes", None)
            .0
            .into_iter()
            .find(|n| n["metadata"]["labels"]["karpenter.sh/nodepool"] == "general")
            .map(|n| n["status"]["allocatable"].clone())
    });
    assert_eq!(served, simulated);
    // m5.large: 2 vCPUs less 70m; 8192Mi less Karpenter's 615Mi VM overhead, 11 × 29 + 255 =
    // 574Mi kube-reserved and the 100Mi eviction threshold.
    assert_eq!(
        served,
        json!({"cpu": "1930m", "memory": "6903Mi", "pods": "29"}),
        "{served}"
    );
}
