//! An exported cluster — workloads beside the pods they own — gives each workload only the pods
//! it is missing, in `build_cluster` (what `schedule` and `explain` see) and in the simulation,
//! whose controllers then replace a deleted pod once; a node with only `status.capacity` offers
//! that capacity.

use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_core::workload::Workload;
use repel_engine::load::{ClusterInput, build_cluster};
use repel_engine::scenario::{ObjectRef, Step, StepAction};
use repel_engine::sim::Simulation;
use repel_engine::{Outcome, Scheduler, schedule_all};
use serde_json::json;

use crate::util;

fn exported() -> ClusterInput {
    let node = |name: &str| {
        serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
        }))
        .unwrap()
    };
    let rs = serde_json::from_value(json!({
        "metadata": {"name": "web-5d78c9869d", "namespace": "default", "uid": "rs-uid",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "dep-uid", "controller": true}]},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "5d78c9869d"}},
                 "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": "5d78c9869d"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]}}}
    }))
    .unwrap();
    let dep = serde_json::from_value(json!({
        "metadata": {"name": "web", "namespace": "default", "uid": "dep-uid"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]}}}
    }))
    .unwrap();
    let pod = |name: &str, node: &str| {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web", "pod-template-hash": "5d78c9869d"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d78c9869d", "uid": "rs-uid", "controller": true}]},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Running"}
        }))
        .unwrap()
    };
    let big = serde_json::from_value(json!({
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "8"}}}]}
    }))
    .unwrap();
    ClusterInput {
        nodes: vec![node("n1"), node("n2")],
        pods: vec![
            pod("web-5d78c9869d-aaaaa", "n1"),
            pod("web-5d78c9869d-bbbbb", "n2"),
            big,
        ],
        workloads: vec![Workload::Deployment(dep), Workload::ReplicaSet(rs)],
        ..Default::default()
    }
}

#[test]
fn an_exported_deployment_gets_no_second_set_of_pods() {
    let built = build_cluster(
        exported(),
        &FeatureGates::default(),
        &AdmissionConfig::default(),
        1,
    );
    let names: Vec<String> = built.cluster.pods.iter().map(|p| p.key()).collect();
    assert_eq!(
        names,
        [
            "default/web-5d78c9869d-aaaaa",
            "default/web-5d78c9869d-bbbbb",
            "default/big"
        ],
        "the Deployment and its ReplicaSet have both their pods"
    );
    assert!(
        built.warnings.iter().all(|w| !w.contains("taken to allow")),
        "capacity is allocatable, nothing assumed: {:?}",
        built.warnings
    );
    let owners: Vec<Option<String>> = built
        .owners
        .iter()
        .map(|o| o.as_ref().map(|o| o.name.clone()))
        .collect();
    assert_eq!(owners, [Some("web-5d78c9869d".to_string()), None]);
}

#[test]
fn capacity_without_allocatable_limits_the_node() {
    let mut built = build_cluster(
        exported(),
        &FeatureGates::default(),
        &AdmissionConfig::default(),
        1,
    );
    let mut s = Scheduler::new(FeatureGates::default(), None, 1);
    let out = schedule_all(&mut s, &mut built.cluster);
    let big = out
        .iter()
        .find(|p| built.cluster.pods[p.pod].name == "big")
        .expect("big is scheduled");
    match &big.outcome {
        Outcome::Unschedulable { message, .. } => assert!(
            message.starts_with("0/2 nodes are available: 2 Insufficient cpu."),
            "{message}"
        ),
        other => panic!("an 8-cpu pod on 4-cpu nodes: {other:?}"),
    }
}

#[test]
fn a_deleted_pod_of_an_exported_deployment_is_replaced_once() {
    let cfg = util::config(1);
    let mut sim = Simulation::new(exported(), cfg);
    sim.settle();
    let live = |sim: &Simulation| {
        sim.cluster
            .pods
            .iter()
            .filter(|p| !p.deleted && p.name.starts_with("web-"))
            .count()
    };
    assert_eq!(live(&sim), 2, "nothing added at the start");
    sim.apply_step(&Step {
        index: 0,
        at: 0,
        action: StepAction::Delete(vec![ObjectRef {
            kind: "pod".into(),
            namespace: Some("default".into()),
            name: "web-5d78c9869d-aaaaa".into(),
        }]),
    });
    assert_eq!(live(&sim), 2, "one replacement, not one per controller");
    let replacement = sim
        .cluster
        .pods
        .iter()
        .find(|p| !p.deleted && p.name != "web-5d78c9869d-bbbbb" && p.name.starts_with("web-"))
        .expect("a replacement");
    assert!(
        replacement.name.starts_with("web-5d78c9869d-"),
        "named after the ReplicaSet it belongs to: {}",
        replacement.name
    );
}
