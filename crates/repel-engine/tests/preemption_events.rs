//! A pod that preemption makes room for, in a simulation (issue 14: the control plane
//! schedules in batches): upstream's scheduler records FailedScheduling for the preemptor's
//! failed cycle (no PostFilter suffix: preemption succeeded), its preemption deletes the victim
//! (a `Preempted` event on it), and a later cycle binds the preemptor.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_engine::controllers::node_lifecycle::NodeLifecycleConfig;
use repel_engine::load::ClusterInput;
use repel_engine::scenario::{Step, StepAction};
use repel_engine::sim::{SimConfig, Simulation};
use serde_json::json;

#[test]
fn the_preemptor_fails_once_evicts_its_victim_then_is_scheduled() {
    let node = serde_json::from_value(json!({
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}
    }))
    .unwrap();
    let low = serde_json::from_value(json!({
        "metadata": {"name": "low", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}
    }))
    .unwrap();
    let high_class = serde_json::from_value(json!({
        "metadata": {"name": "high"}, "value": 1000
    }))
    .unwrap();
    let cfg = SimConfig {
        gates: FeatureGates::default(),
        seed: 1,
        percentage_of_nodes_to_score: None,
        admission: AdmissionConfig::default(),
        node_lifecycle: NodeLifecycleConfig::default(),
    };
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            pods: vec![low],
            priority_classes: vec![high_class],
            ..Default::default()
        },
        cfg,
    );
    sim.settle();
    sim.advance_to(10_000);
    sim.apply_step(&Step {
        index: 0,
        at: 10_000,
        action: StepAction::Apply(vec![json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "high", "namespace": "default"},
            "spec": {"priorityClassName": "high",
                     "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}
        })]),
    });
    let at_10: Vec<(String, String, String)> = sim
        .events
        .iter()
        .filter(|e| e.at_ms == 10_000)
        .map(|e| (e.reason.clone(), e.object.clone(), e.message.clone()))
        .collect();
    assert_eq!(
        at_10,
        [
            (
                "FailedScheduling".to_string(),
                "Pod/default/high".to_string(),
                "0/1 nodes are available: 1 Insufficient cpu.".to_string()
            ),
            (
                "Preempted".to_string(),
                "Pod/default/low".to_string(),
                "Preempted by pod default/high on node n1".to_string()
            ),
            (
                "Scheduled".to_string(),
                "Pod/default/high".to_string(),
                "Successfully assigned default/high to n1".to_string()
            ),
        ]
    );
    let final_pods: Vec<String> = sim.final_pods().iter().map(|p| p.pod.clone()).collect();
    assert_eq!(final_pods, ["default/high"]);
}
