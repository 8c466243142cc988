#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)
//! Fixtures for the rules' table tests: objects from JSON cut out of real manifests.

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::Value;

use super::{Finding, LintInput, LintObject, LintOptions, NodeClasses};
use crate::pools::Pool;
use crate::workload::Workload;

/// Owned objects of one case.
#[derive(Default)]
pub struct Fixture {
    pub pods: Vec<Pod>,
    pub workloads: Vec<Workload>,
    pub nodes: Vec<Node>,
    pub pools: Vec<Pool>,
    pub node_classes: NodeClasses,
}

/// A workload or pod from its JSON.
fn add(f: &mut Fixture, v: Value) {
    let kind = v["kind"].as_str().unwrap_or_default().to_string();
    let w: Workload = match kind.as_str() {
        "Pod" => return f.pods.push(serde_json::from_value(v).unwrap()),
        "Node" => return f.nodes.push(serde_json::from_value(v).unwrap()),
        "NodePool" => return f.pools.push(crate::pools::karpenter_pool(&v).unwrap()),
        "Deployment" => serde_json::from_value::<k8s_openapi::api::apps::v1::Deployment>(v)
            .unwrap()
            .into(),
        "DaemonSet" => serde_json::from_value::<k8s_openapi::api::apps::v1::DaemonSet>(v)
            .unwrap()
            .into(),
        "StatefulSet" => serde_json::from_value::<k8s_openapi::api::apps::v1::StatefulSet>(v)
            .unwrap()
            .into(),
        "Job" => serde_json::from_value::<k8s_openapi::api::batch::v1::Job>(v)
            .unwrap()
            .into(),
        "CronJob" => serde_json::from_value::<k8s_openapi::api::batch::v1::CronJob>(v)
            .unwrap()
            .into(),
        other => panic!("fixture kind {other}"),
    };
    f.workloads.push(w);
}

impl Fixture {
    /// The fixture of these objects.
    pub fn of(objects: &[Value]) -> Fixture {
        let mut f = Fixture::default();
        for v in objects {
            add(&mut f, v.clone());
        }
        f
    }

    /// The findings of rule `id` alone, as `(path, message)`.
    pub fn findings(&self, id: &str) -> Vec<Finding> {
        let mut objects: Vec<LintObject<'_>> = self
            .workloads
            .iter()
            .filter_map(LintObject::from_workload)
            .collect();
        objects.extend(self.pods.iter().filter_map(LintObject::from_pod));
        let input = LintInput {
            objects,
            nodes: self.nodes.iter().collect(),
            pools: self.pools.iter().collect(),
            node_classes: self.node_classes.clone(),
            gates: Default::default(),
        };
        let opts = LintOptions {
            disabled: super::rules::RULES
                .iter()
                .map(|r| r.info.id.to_string())
                .filter(|r| r != id)
                .collect(),
            ..Default::default()
        };
        super::lint(&input, &opts)
    }
}

/// A Deployment `name` in `default` whose pod spec is `spec`.
pub fn deployment(name: &str, spec: Value) -> Value {
    serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": with_container(spec)}}})
}

/// A DaemonSet `name` in `kube-system` whose pod spec is `spec`.
pub fn daemonset(name: &str, spec: Value) -> Value {
    serde_json::json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "kube-system"},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": with_container(spec)}}})
}

/// A Pod `name` in `default` whose spec is `spec`.
pub fn pod(name: &str, spec: Value) -> Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"}, "spec": with_container(spec)})
}

/// A Node with these labels and taints.
pub fn node(name: &str, labels: Value, taints: Value) -> Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}})
}

fn with_container(mut spec: Value) -> Value {
    if spec.get("containers").is_none() {
        spec["containers"] = serde_json::json!([{"name": "c", "image": "i"}]);
    }
    spec
}

/// Runs a table: each case's objects, the rule, and the expected `(path, message fragment)`s.
pub fn check_table(rule: &str, cases: &[(&str, Vec<Value>, Vec<(&str, &str)>)]) {
    for (name, objects, want) in cases {
        let got = Fixture::of(objects).findings(rule);
        assert_eq!(
            got.len(),
            want.len(),
            "{name}: findings {:#?}",
            got.iter()
                .map(|f| (&f.path, &f.message))
                .collect::<Vec<_>>()
        );
        for (f, (path, msg)) in got.iter().zip(want) {
            assert_eq!(f.path, *path, "{name}");
            assert!(
                f.message.contains(msg),
                "{name}: message {:?} lacks {msg:?}",
                f.message
            );
        }
    }
}
