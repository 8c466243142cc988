//! Drain what-ifs: cluster-autoscaler's rules one by one (after upstream's
//! `drainability/rules/*/rule_test.go` cases), its simulation, kubectl's filters and
//! evictions, and a sequence of drains against independent ones.

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use serde_json::{Value, json};

use super::ca::{Drainability, Options, State, drainable};
use super::*;

fn node(name: &str, pods: &str) -> Node {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": pods},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    }))
    .unwrap_or_default()
}

fn owner(kind: &str, name: &str) -> Value {
    json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": format!("u-{name}"),
            "controller": true}])
}

/// A pod on `node` in `ns`, changed by `f` (its JSON).
fn pod(ns: &str, name: &str, node: &str, f: impl FnOnce(&mut Value)) -> Pod {
    let mut v = json!({
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running"}
    });
    f(&mut v);
    serde_json::from_value(v).unwrap_or_default()
}

fn replicated(v: &mut Value) {
    v["metadata"]["ownerReferences"] = owner("ReplicaSet", "web");
    v["metadata"]["labels"] = json!({"app": "web"});
}

fn pdb(ns: &str, allowed: i32) -> PodDisruptionBudget {
    serde_json::from_value(json!({
        "metadata": {"name": "budget", "namespace": ns},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1,
                   "expectedPods": 1}
    }))
    .unwrap_or_default()
}

fn opts() -> Options {
    Options {
        controllers: vec![
            ("ReplicaSet".into(), "default".into(), "web".into()),
            ("ReplicaSet".into(), "kube-system".into(), "web".into()),
            ("DaemonSet".into(), "default".into(), "agent".into()),
        ]
        .into_iter()
        .collect(),
        ..Options::default()
    }
}

const NOW: i64 = 2_000_000_000;

fn cfg(decider: Decider, independent: bool) -> DrainConfig {
    DrainConfig {
        decider,
        independent,
        now_unix: NOW,
        gates: repel_core::FeatureGates::default(),
        seed: 0,
    }
}

fn action(v: &DrainVerdict, pod: &str) -> PodAction {
    v.pods
        .iter()
        .find(|p| p.pod == pod)
        .map(|p| p.action.clone())
        .unwrap_or_else(|| panic!("{pod} not in {v:?}"))
}

fn ca_cfg(independent: bool) -> DrainConfig {
    cfg(Decider::ClusterAutoscaler(opts()), independent)
}
fn sized(name: &str, cpu: &str) -> Node {
    let mut n = node(name, "110");
    if let Some(s) = n.status.as_mut() {
        s.allocatable = Some(
            [
                (
                    "cpu".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity(cpu.into()),
                ),
                (
                    "memory".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("8Gi".into()),
                ),
                (
                    "pods".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("110".into()),
                ),
            ]
            .into_iter()
            .collect(),
        );
    }
    n
}
fn requesting(name: &str, node: &str, cpu: &str) -> Pod {
    pod("default", name, node, |v| {
        replicated(v);
        v["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": cpu}});
    })
}

fn rule(p: Pod, pdbs: Vec<PodDisruptionBudget>, o: &Options) -> Drainability {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.pdbs = pdbs;
    let id = c.add_pod(p);
    let state = State::new(&c);
    drainable(&c, id, o, &state, NOW)
}
fn blocked(reason: &'static str, message: &str) -> Drainability {
    Drainability::Block(reason, message.to_string())
}

mod ca_upstream;
mod karpenter_upstream;
mod kubectl_upstream;

mod buried;
mod compiled;
mod deciders;
mod disruption;
mod rules;
