#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `repel pools` on Karpenter NodePools: the template's taints, startup taints and labels, the
//! pool's nodes, which workloads tolerate it as Karpenter decides, Karpenter's taint
//! validation, v1beta1 read with a warning.

use assert_cmd::Command;
use serde_json::{Value, json};

fn run(args: &[&str], files: &[(&str, Value)]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("repel").unwrap();
    cmd.args(args);
    for (name, v) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string(v).unwrap()).unwrap();
        cmd.arg("-f").arg(&path);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn pool(api: &str, taints: Value) -> Value {
    json!({"apiVersion": api, "kind": "NodePool", "metadata": {"name": "gpu"},
           "spec": {"weight": 10, "template": {
               "metadata": {"labels": {"team": "ml"}},
               "spec": {"taints": taints,
                        "startupTaints": [{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}],
                        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                        "requirements": []}}}})
}

fn workload(kind: &str, name: &str, tolerations: Value) -> Value {
    let api = if kind == "DaemonSet" || kind == "Deployment" {
        "apps/v1"
    } else {
        "batch/v1"
    };
    json!({"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"tolerations": tolerations,
                                          "containers": [{"name": "c", "image": "i"}]}}}})
}

#[test]
fn a_pool_its_nodes_and_who_tolerates_it() {
    let gpu = json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
                     {"key": "soft", "effect": "PreferNoSchedule"}]);
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "gpu-1", "labels": {"karpenter.sh/nodepool": "gpu"}}});
    let objects = json!({"apiVersion": "v1", "kind": "List", "items": [
        pool("karpenter.sh/v1", gpu),
        node,
        workload("Deployment", "trainer", json!([{"key": "nvidia.com/gpu", "operator": "Exists"},
                                                  {"key": "soft", "operator": "Exists"}])),
        // The device plugin tolerates the GPU taint; as a daemon it tolerates PreferNoSchedule.
        workload("DaemonSet", "plugin", json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])),
        // Tolerates the GPU taint only: Karpenter holds PreferNoSchedule hard.
        workload("Deployment", "web", json!([{"key": "nvidia.com/gpu", "operator": "Exists"}])),
    ]});
    let (code, out, err) = run(&["pools", "-o", "json"], &[("c.json", objects.clone())]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p = &v["pools"][0];
    assert_eq!(p["name"], "gpu");
    assert_eq!(p["provider"], "karpenter");
    assert_eq!(p["weight"], 10);
    assert_eq!(
        p["taints"],
        json!(["nvidia.com/gpu=true:NoSchedule", "soft:PreferNoSchedule"])
    );
    assert_eq!(
        p["startupTaints"],
        json!(["node.cilium.io/agent-not-ready=true:NoExecute"])
    );
    assert_eq!(p["labels"], json!({"team": "ml"}));
    assert_eq!(p["nodes"], json!(["gpu-1"]));
    assert_eq!(p["errors"], json!([]));
    assert_eq!(
        p["toleratedBy"],
        json!(["Deployment/default/trainer", "DaemonSet/default/plugin"])
    );
    assert_eq!(
        p["notToleratedBy"],
        json!([{"workload": "Deployment/default/web", "taint": "soft:PreferNoSchedule"}])
    );
    let (_, out, _) = run(&["pools"], &[("c.json", objects)]);
    assert!(
        out.contains("Deployment/default/web does not tolerate soft:PreferNoSchedule"),
        "{out}"
    );
}

#[test]
fn invalid_taints_in_karpenters_words_and_v1beta1_with_a_warning() {
    let bad = json!([{"key": "dup", "effect": "NoSchedule"}, {"key": "dup", "effect": "NoSchedule"},
                     {"key": "x", "effect": "Sometimes"}]);
    let (code, out, err) = run(
        &["pools", "-o", "json"],
        &[("p.json", pool("karpenter.sh/v1beta1", bad))],
    );
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("apiVersion karpenter.sh/v1beta1 is no longer served by Karpenter v1; read as karpenter.sh/v1"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["pools"][0]["errors"],
        json!([
            "duplicate taint Key/Effect pair dup=NoSchedule",
            "invalid value: \"Sometimes\" in taints"
        ])
    );
    // No pool at all.
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}});
    let (code, _, err) = run(&["pools"], &[("n.json", node)]);
    assert_eq!(code, 2);
    assert!(err.contains("no node pools in the input"), "{err}");
}

#[test]
fn consolidate_as_karpenter_reads_the_pools() {
    let mut p = pool("karpenter.sh/v1", json!([]));
    p["spec"]["disruption"] =
        json!({"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"});
    let node = |name: &str, pool: Option<&str>| {
        let mut n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}});
        if let Some(p) = pool {
            n["metadata"]["labels"]["karpenter.sh/nodepool"] = json!(p);
        }
        n
    };
    let objects = json!({"apiVersion": "v1", "kind": "List", "items": [
        p, node("gpu-1", Some("gpu")), node("gpu-2", Some("gpu")), node("static", None)]});
    let (code, out, err) = run(
        &["consolidate", "--as", "karpenter", "-o", "json"],
        &[("c.json", objects)],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["as"], "karpenter");
    let removed: Vec<&str> = v["removable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["node"].as_str().unwrap())
        .collect();
    assert_eq!(removed, ["gpu-1", "gpu-2"], "{v}");
    assert_eq!(
        v["kept"],
        json!([{"node": "static", "reason": "NotManaged", "message": "node isn't managed by karpenter"}])
    );
}
