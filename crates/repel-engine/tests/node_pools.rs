//! The node pools' controllers driven through the simulation: fixed-size pools
//! keep their count and their taints as each provider does, Karpenter launches what
//! `judge_pools` (explain's answer) says it would, startup taints hold pods until removed, and
//! the runs are repeatable.

use repel_core::pools::{Pool, aks_pool, karpenter_pool};
use repel_engine::cluster::PodInfo;
use repel_engine::controllers::karpenter::judge_pools;
use repel_engine::load::ClusterInput;
use repel_engine::scenario::{Step, StepAction};
use repel_engine::sim::Simulation;
use serde_json::{Value, json};

use crate::util;

fn pod(name: &str, spec: Value) -> k8s_openapi::api::core::v1::Pod {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec
    }))
    .unwrap()
}

fn step(sim: &mut Simulation, at: repel_engine::clock::Millis, action: StepAction) {
    sim.advance_to(at);
    sim.apply_step(&Step {
        index: 0,
        at,
        action,
    });
}

fn nodepool(name: &str, weight: i64, taints: Value, startup: Value, reqs: Value) -> Pool {
    karpenter_pool(&json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {"weight": weight, "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": reqs, "taints": taints, "startupTaints": startup}}}
    }))
    .unwrap()
}

mod fixed_pools;
mod karpenter_disruption;
mod karpenter_provisioning;
