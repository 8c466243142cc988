//! `repel drain` as a user runs it: on an exported cluster (a ReplicaSet with the pods it
//! owns), as kubectl and as cluster-autoscaler, nodes by name, `--all` and `-l`, the JSON
//! contract, exit codes, determinism.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::util::{self, run};

fn node(name: &str, pool: &str) -> Value {
    let res = json!({"cpu": "4", "memory": "16Gi", "pods": "110"});
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "pool": pool}},
           "status": {"capacity": res, "allocatable": res,
                      "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn owned(name: &str, rs: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "labels": {"app": rs},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                             "name": rs, "uid": format!("uid-{rs}"),
                                             "controller": true}]},
           "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
           "status": {"phase": "Running"}})
}

fn cluster() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web", "namespace": "default", "uid": "uid-web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let bare = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "bare", "namespace": "default"},
        "spec": {"nodeName": "b", "containers": [{"name": "c", "image": "nginx"}]}});
    let items = vec![
        node("a", "blue"),
        node("b", "blue"),
        node("c", "green"),
        rs,
        owned("web-1", "web", "a"),
        owned("web-2", "web", "b"),
        bare,
    ];
    let path = dir.path().join("cluster.json");
    std::fs::write(
        &path,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap(),
    )
    .unwrap();
    (dir, path)
}

#[test]
fn an_exported_cluster_judged_by_both_deciders() {
    let (_d, f) = cluster();
    let f = f.to_str().unwrap();
    let (code, out, err) = run(&[
        "drain",
        "a",
        "b",
        "--as",
        "cluster-autoscaler",
        "-f",
        f,
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "b is blocked: {err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["as"], "cluster-autoscaler");
    // One after another: web-1 leaves a (to b or c), then b holds the bare pod.
    assert_eq!(v["nodes"][0]["drainable"], true, "{v}");
    assert_eq!(v["nodes"][0]["pods"][0]["action"], "move");
    assert_eq!(v["nodes"][1]["reason"], "BlockedByPod");
    assert_eq!(v["nodes"][1]["message"], "default/bare is not replicated");
    // kubectl with --force: the bare pod is gone, the replicated one moves to c (a is
    // cordoned by the first drain of the sequence).
    let (code, out, _) = run(&["drain", "a", "b", "--force", "-f", f, "-o", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["as"], "kubectl");
    let b = &v["nodes"][1];
    let pods: Vec<(String, String)> = b["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pod"].as_str().unwrap().to_string(),
                p["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        pods.contains(&("default/bare".into(), "gone".into())),
        "{pods:?}"
    );
    assert!(
        pods.contains(&("default/web-2".into(), "move".into())),
        "{pods:?}"
    );
    assert!(
        b["pods"].as_array().unwrap().iter().all(|p| p["to"] != "a"),
        "{b}"
    );
}

#[test]
fn nodes_by_selector_or_all_and_the_human_verdicts() {
    let (_d, f) = cluster();
    let f = f.to_str().unwrap();
    let (_, out, _) = run(&[
        "drain",
        "-l",
        "pool=blue",
        "--independent",
        "-f",
        f,
        "-o",
        "json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = util::strs(&v["nodes"], "/node");
    assert_eq!(names, ["a", "b"]);
    // A selector that picks no node says so.
    let (code, _, err) = run(&["drain", "-l", "pool=none", "-f", f]);
    assert_eq!(code, 0);
    assert!(
        err.contains("warning: no node matches the selector \"pool=none\""),
        "{err}"
    );
    let (code, out, _) = run(&["drain", "--all", "--independent", "-f", f]);
    assert_eq!(code, 1);
    assert!(out.contains("node a: drainable (kubectl)"), "{out}");
    assert!(
        out.contains("node b: NOT drainable (kubectl): BlockedByPod: cannot delete Pods that declare no controller (use --force to override): default/bare"),
        "{out}"
    );
    assert!(out.ends_with("2 of 3 node(s) drainable.\n"), "{out}");
    // The same answer every time, in JSON and YAML.
    for fmt in ["json", "yaml"] {
        let first = run(&[
            "drain",
            "--all",
            "--as",
            "cluster-autoscaler",
            "-f",
            f,
            "-o",
            fmt,
        ]);
        let again = run(&[
            "drain",
            "--all",
            "--as",
            "cluster-autoscaler",
            "-f",
            f,
            "-o",
            fmt,
        ]);
        assert_eq!(first, again);
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    let (_d, f) = cluster();
    let f = f.to_str().unwrap();
    let (code, _, err) = run(&["drain", "nope", "-f", f]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "Error from server (NotFound): nodes \"nope\" not found\n"
    );
    let (code, _, err) = run(&["drain", "-f", f]);
    assert_eq!(code, 2);
    assert!(
        err.contains("repel drain NODE... | --all | -l SELECTOR"),
        "{err}"
    );
    let (code, _, err) = run(&["drain", "a", "--pod-selector", "a in (", "-f", f]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn consolidate_finds_the_removable_nodes() {
    let (_d, f) = cluster();
    let f = f.to_str().unwrap();
    let (code, out, err) = run(&["consolidate", "-f", f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["as"], "cluster-autoscaler");
    // c is empty: removed first; a's pod then moves to b; b holds the bare pod: kept.
    let removed: Vec<&str> = util::strs(&v["removable"], "/node");
    assert_eq!(removed, ["c", "a"], "{v}");
    assert_eq!(
        v["removable"][1]["pods"],
        json!([{"pod": "default/web-1", "to": "b"}])
    );
    assert_eq!(
        v["kept"],
        json!([{"node": "b", "reason": "BlockedByPod", "message": "default/bare is not replicated"}])
    );
    let (_, out, _) = run(&["consolidate", "-f", f]);
    assert!(out.ends_with("2 of 3 node(s) removable.\n"), "{out}");
    let (code, _, err) = run(&[
        "consolidate",
        "--scale-down-utilization-threshold",
        "2",
        "-f",
        f,
    ]);
    assert_eq!(code, 2, "{err}");
}

/// Karpenter's `consolidateAfter` (karpenter `pkg/apis/v1/nodepool.go`, `duration.go`,
/// `nodepool_conversion.go`; `disruption/emptiness.go` `ShouldDisrupt`): unset is the CRD's
/// `0s`, a v1beta1 `WhenUnderutilized` pool converts to `0s`, and only `Never` disables
/// consolidation.
#[test]
fn consolidate_as_karpenter_disables_only_never_pools() {
    let dir = tempfile::tempdir().unwrap();
    let pool = |api: &str, name: &str, disruption: Value| {
        let mut p = json!({"apiVersion": api, "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": []}}}});
        if !disruption.is_null() {
            p["spec"]["disruption"] = disruption;
        }
        p
    };
    let empty = |name: &str, pool: &str| {
        let mut n = node(name, "x");
        n["metadata"]["labels"]["karpenter.sh/nodepool"] = json!(pool);
        n
    };
    let items = vec![
        pool("karpenter.sh/v1", "unset", Value::Null),
        pool(
            "karpenter.sh/v1",
            "never",
            json!({"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "Never"}),
        ),
        pool(
            "karpenter.sh/v1beta1",
            "old",
            json!({"consolidationPolicy": "WhenUnderutilized"}),
        ),
        empty("u", "unset"),
        empty("n", "never"),
        empty("o", "old"),
    ];
    let path = dir.path().join("pools.json");
    std::fs::write(
        &path,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap(),
    )
    .unwrap();
    let (code, out, err) = run(&[
        "consolidate",
        "--as",
        "karpenter",
        "-o",
        "json",
        "-f",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let removed: Vec<&str> = util::strs(&v["removable"], "/node");
    assert_eq!(removed, ["u", "o"], "{v}");
    assert_eq!(
        v["kept"],
        json!([{"node": "n", "reason": "ConsolidationDisabled",
                "message": "NodePool \"never\" has consolidation disabled"}])
    );
    // A value the CRD refuses is an error naming the pool and the field.
    let bad = pool(
        "karpenter.sh/v1",
        "typo",
        json!({"consolidateAfter": "10 minutes"}),
    );
    std::fs::write(&path, serde_json::to_string(&bad).unwrap()).unwrap();
    let (code, _, err) = run(&[
        "consolidate",
        "--as",
        "karpenter",
        "-f",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "NodePool typo: spec.disruption.consolidateAfter: Invalid value: \"10 minutes\""
        ),
        "{err}"
    );
}

/// A pod whose DaemonSet is not among the objects read: kubectl's `daemonSetFilter` fails
/// with the API server's NotFound error (with or without `--ignore-daemonsets`; `--force`
/// deletes the pod), cluster-autoscaler's replica-count rule with `ControllerNotFound`.
#[test]
fn an_orphaned_daemon_set_pod_as_kubectl_and_cluster_autoscaler() {
    let dir = tempfile::tempdir().unwrap();
    let agent = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "agent-x", "namespace": "kube-system",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                          "name": "agent", "uid": "uid-agent", "controller": true}]},
        "spec": {"nodeName": "a", "containers": [{"name": "c", "image": "agent"}]},
        "status": {"phase": "Running"}});
    let items = vec![node("a", "blue"), node("b", "blue"), agent];
    let path = dir.path().join("c.json");
    std::fs::write(
        &path,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap(),
    )
    .unwrap();
    let f = path.to_str().unwrap();
    for flags in [&[][..], &["--ignore-daemonsets"][..]] {
        let mut args = vec!["drain", "a", "-o", "json", "-f", f];
        args.extend_from_slice(flags);
        let (code, out, err) = run(&args);
        assert_eq!(code, 1, "{flags:?}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["nodes"][0]["message"],
            "cannot delete daemonsets.apps \"agent\" not found: kube-system/agent-x",
            "{flags:?}"
        );
    }
    let (code, out, err) = run(&["drain", "a", "--force", "-o", "json", "-f", f]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes"][0]["pods"][0]["action"], "gone", "{v}");
    let (code, out, err) = run(&[
        "drain",
        "a",
        "--as",
        "cluster-autoscaler",
        "-o",
        "json",
        "-f",
        f,
    ]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["nodes"][0]["pods"][0],
        json!({"pod": "kube-system/agent-x", "action": "blocked", "reason": "ControllerNotFound",
               "message": "daemonset for kube-system/agent-x is not present, err: daemonset.apps \"agent\" not found"})
    );
}

#[test]
fn consolidate_takes_the_gpu_threshold() {
    let (_d, f) = cluster();
    let f = f.to_str().unwrap();
    let (code, _, err) = run(&[
        "consolidate",
        "--scale-down-gpu-utilization-threshold",
        "1.5",
        "-f",
        f,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--scale-down-gpu-utilization-threshold must be between 0 and 1, not 1.5"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "consolidate",
        "--scale-down-gpu-utilization-threshold",
        "0.3",
        "-f",
        f,
    ]);
    assert_eq!(code, 0, "{err}");
}
