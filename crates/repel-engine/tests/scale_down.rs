//! A Deployment applied again with fewer replicas: its ReplicaSet deletes the excess, each with
//! upstream's `SuccessfulDelete` "Deleted pod: NAME" on the ReplicaSet.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_engine::controllers::node_lifecycle::NodeLifecycleConfig;
use repel_engine::load::ClusterInput;
use repel_engine::scenario::{Step, StepAction};
use repel_engine::sim::{SimConfig, Simulation};
use serde_json::{Value, json};

fn deployment(replicas: i32) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    })
}

#[test]
fn fewer_replicas_delete_the_excess() {
    let node = serde_json::from_value(json!({
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
    }))
    .unwrap();
    let cfg = SimConfig {
        gates: FeatureGates::default(),
        seed: 3,
        percentage_of_nodes_to_score: None,
        admission: AdmissionConfig::default(),
        node_lifecycle: NodeLifecycleConfig::default(),
    };
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            ..Default::default()
        },
        cfg,
    );
    sim.settle();
    for (i, (at, replicas)) in [(1_000, 4), (10_000, 1)].into_iter().enumerate() {
        sim.advance_to(at);
        sim.apply_step(&Step {
            index: i,
            at,
            action: StepAction::Apply(vec![deployment(replicas)]),
        });
        assert!(sim.steps.last().unwrap().ok, "{:?}", sim.steps.last());
    }
    assert_eq!(sim.final_pods().len(), 1);
    let deletes: Vec<&str> = sim
        .events
        .iter()
        .filter(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(deletes.len(), 3, "{deletes:?}");
    assert!(deletes.iter().all(|m| m.starts_with("Deleted pod: web-")));
    let object = sim
        .events
        .iter()
        .find(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.object.clone())
        .unwrap();
    assert!(object.starts_with("ReplicaSet/default/web-"), "{object}");
    // The pod kept is the oldest (all else equal, the newest go first).
    let first_created = sim
        .events
        .iter()
        .find(|e| e.reason == "SuccessfulCreate")
        .map(|e| e.message.trim_start_matches("Created pod: ").to_string())
        .unwrap();
    assert_eq!(
        sim.final_pods()[0].pod,
        format!("default/{first_created}"),
        "{:?}",
        sim.events
    );
}
