//! `repel explain ds/NAME`, node by node as upstream's DaemonSet controller and scheduler
//! decide: a pod for each node `NodeShouldRunDaemonPod` accepts, pinned there, judged on that
//! node only (a pod pinned to one node must not make every other node fail NodeAffinity).

use serde_json::{Value, json};

use crate::util::{repel, text};

fn run(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let (code, out, _) = text(
        &repel()
            .args(args)
            .arg("-f")
            .arg(dir.join("c.yaml"))
            .output()
            .unwrap(),
    );
    (code, out)
}

/// Two nodes (one with `dedicated=gpu:NoSchedule`, one of 1 CPU), a DaemonSet asking `cpu`.
fn cluster(cpu: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
apiVersion: v1
kind: Node
metadata: {{name: plain, labels: {{kubernetes.io/hostname: plain}}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
---
apiVersion: v1
kind: Node
metadata: {{name: tainted, labels: {{kubernetes.io/hostname: tainted}}}}
spec: {{taints: [{{key: dedicated, value: gpu, effect: NoSchedule}}]}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
---
apiVersion: v1
kind: Node
metadata: {{name: small, labels: {{kubernetes.io/hostname: small}}}}
status: {{allocatable: {{cpu: "1", memory: 8Gi, pods: "110"}}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: agent, namespace: default}}
spec:
  selector: {{matchLabels: {{app: agent}}}}
  template:
    metadata: {{labels: {{app: agent}}}}
    spec:
      containers: [{{name: a, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"#
    );
    std::fs::write(dir.path().join("c.yaml"), text).unwrap();
    dir
}

fn row<'a>(v: &'a Value, node: &str) -> &'a Value {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == node)
        .unwrap_or_else(|| panic!("no row for {node}: {v}"))
}

#[test]
fn each_node_is_judged_with_the_pod_pinned_to_it() {
    let dir = cluster("100m");
    let (code, out) = run(dir.path(), &["explain", "ds/agent", "-o", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["message"],
        json!(""),
        "the controller, not a FitError, decides"
    );
    for node in ["plain", "small"] {
        let r = row(&v, node);
        assert_eq!(r["feasible"], json!(true), "{node}: {r}");
        assert_eq!(r["daemonPod"], json!(true), "{node}: {r}");
        assert!(
            r["pod"].as_str().unwrap().starts_with("default/agent-"),
            "{r}"
        );
        assert!(r.get("plugin").is_none(), "{node}: no filter fails: {r}");
    }
    assert_ne!(
        row(&v, "plain")["pod"],
        row(&v, "small")["pod"],
        "one pod per node"
    );
    let t = row(&v, "tainted");
    assert_eq!(t["feasible"], json!(false));
    assert_eq!(t["daemonPod"], json!(false));
    assert_eq!(t["plugin"], json!("TaintToleration"));
    assert_eq!(t["reasons"], json!(["node(s) had untolerated taint(s)"]));
    assert!(t.get("pod").is_none(), "{t}");
    for r in v["nodes"].as_array().unwrap() {
        assert!(
            r.get("scores").is_none() && r.get("score").is_none(),
            "a DaemonSet's pod is feasible on one node: no scores: {r}"
        );
    }
    // The same pod unpinned is feasible on plain and small, and scored there: the absence
    // above is upstream's one-feasible-node shortcut, not explain leaving scores out.
    let text = std::fs::read_to_string(dir.path().join("c.yaml")).unwrap();
    std::fs::write(
        dir.path().join("c.yaml"),
        format!("{text}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: free, namespace: default}}\nspec:\n  containers: [{{name: a, image: busybox, resources: {{requests: {{cpu: 100m}}}}}}]\n"),
    )
    .unwrap();
    let (_, out) = run(dir.path(), &["explain", "free", "-o", "json"]);
    let free: Value = serde_json::from_str(&out).unwrap();
    for node in ["plain", "small"] {
        let r = row(&free, node);
        assert_eq!(r["feasible"], json!(true), "{node}: {r}");
        assert!(r["score"].as_i64().is_some(), "{node} is scored: {r}");
        assert_eq!(r["scores"]["TaintToleration"], json!(100), "{node}: {r}");
    }
    std::fs::write(dir.path().join("c.yaml"), text).unwrap();

    // `repel schedule` places each pod where explain says it runs.
    let (_, out) = run(dir.path(), &["schedule", "-o", "json"]);
    let s: Value = serde_json::from_str(&out).unwrap();
    for p in s["placements"].as_array().unwrap() {
        let r = row(&v, p["node"].as_str().unwrap());
        assert_eq!(r["pod"], p["pod"], "{p}");
        assert_eq!(r["feasible"], json!(true), "{p}");
    }
    assert_eq!(s["placements"].as_array().unwrap().len(), 2, "{s}");

    let (_, human) = run(dir.path(), &["explain", "ds/agent"]);
    assert!(
        human.contains(
            "The DaemonSet controller creates a pod for 2 of 3 node(s), each pinned to its node (matchFields metadata.name); it runs on plain, small."
        ),
        "{human}"
    );
    assert!(!human.contains("creates this pod on no node"), "{human}");
    assert!(!human.contains("NodeAffinity"), "{human}");
}

#[test]
fn a_pod_created_for_a_node_too_small_stays_pending_with_schedules_message() {
    let dir = cluster("2");
    let (_, out) = run(dir.path(), &["explain", "ds/agent", "-o", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let small = row(&v, "small");
    assert_eq!(small["feasible"], json!(false), "{small}");
    assert_eq!(small["daemonPod"], json!(true), "{small}");
    assert_eq!(small["plugin"], json!("NodeResourcesFit"), "{small}");
    assert_eq!(small["reasons"], json!(["Insufficient cpu"]), "{small}");
    let (_, out) = run(dir.path(), &["schedule", "-o", "json"]);
    let s: Value = serde_json::from_str(&out).unwrap();
    let pending = &s["unschedulable"][0];
    assert_eq!(pending["pod"], small["pod"], "{s}");
    assert_eq!(pending["message"], small["message"], "{s}");
    let (_, human) = run(dir.path(), &["explain", "ds/agent"]);
    assert!(human.contains("it runs on plain.\n"), "{human}");
    assert!(
        human.contains(
            "Its pod for small stays Pending: 0/3 nodes are available: 1 Insufficient cpu"
        ),
        "{human}"
    );
}

#[test]
fn a_single_pinned_pod_is_feasible_on_its_node_and_only_there_scored() {
    let dir = cluster("100m");
    let (_, out) = run(dir.path(), &["explain", "ds/agent", "-o", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let pod = row(&v, "plain")["pod"].as_str().unwrap().to_string();
    let (code, out) = run(dir.path(), &["explain", &pod, "-o", "json"]);
    assert_eq!(code, 0, "{out}");
    let p: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(row(&p, "plain")["feasible"], json!(true), "{p}");
    for node in ["tainted", "small"] {
        let r = row(&p, node);
        assert_eq!(r["feasible"], json!(false), "{r}");
        assert!(r.get("scores").is_none() && r.get("score").is_none(), "{r}");
    }
}
