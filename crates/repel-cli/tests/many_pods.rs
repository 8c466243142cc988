//! Workloads of thousands of pods that mostly fit nowhere: `repel schedule` gives
//! each the reference engine's placement and message, lists each unschedulable pod once, and
//! `repel admit` prints every pod of a large workload with a name of its own.

use std::path::Path;

use serde_json::{Value, json};

use crate::util::{self, repel};

fn run(args: &[&str]) -> (i32, Value, String) {
    let (code, stdout, stderr) = util::run(args);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
    (code, v, stderr)
}

fn node(name: &str, cpu: &str, taints: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "spec": {"taints": taints},
           "status": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"}}})
}

fn deployment(name: &str, replicas: u32, cpu: &str, priority_class: Option<&str>) -> Value {
    let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": "default"},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"containers": [{"name": "app", "image": "nginx",
                                     "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}}}});
    if let Some(p) = priority_class {
        d["spec"]["template"]["spec"]["priorityClassName"] = json!(p);
    }
    d
}

fn priority_class(name: &str, value: i64) -> Value {
    json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
           "metadata": {"name": name}, "value": value})
}

fn write(dir: &Path, name: &str, items: Vec<Value>) -> String {
    let p = dir.join(name);
    std::fs::write(
        &p,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap(),
    )
    .unwrap();
    p.display().to_string()
}

/// Every pod of `v` (placed, unschedulable, rejected), each once.
fn assert_each_pod_once(name: &str, v: &Value, pods: usize) {
    let mut seen = std::collections::HashSet::new();
    for list in ["placements", "unschedulable", "rejected"] {
        for row in v[list].as_array().unwrap() {
            let pod = row["pod"].as_str().unwrap();
            assert!(seen.insert(pod.to_string()), "{name}: {pod} listed twice");
        }
    }
    assert_eq!(seen.len(), pods, "{name}");
}

#[test]
fn thousands_of_unschedulable_pods_get_the_reference_engines_messages() {
    let dir = tempfile::tempdir().unwrap();
    let tainted = json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
    let taint_message = "0/3 nodes are available: 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    let cpu_message = "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    let nodes = |cpu: &str, taints: &Value| -> Vec<Value> {
        (0..3)
            .map(|i| node(&format!("n{i}"), cpu, taints.clone()))
            .collect()
    };
    // Four low-priority pods, bound, filling each node.
    let low_pods: Vec<Value> = (0..12)
        .map(|i| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": format!("low-{i}"), "namespace": "default"},
                   "spec": {"nodeName": format!("n{}", i % 3), "priorityClassName": "low",
                            "containers": [{"name": "app", "image": "nginx",
                                            "resources": {"requests": {"cpu": "1"}}}]}})
        })
        .collect();
    // (name, objects, pending pods, placed, preempted, the message of every unschedulable pod)
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&str, Vec<Value>, usize, usize, usize, &str)> = vec![
        (
            "no node tolerated",
            [
                nodes("4", &tainted),
                vec![deployment("web", 3000, "100m", None)],
            ]
            .concat(),
            3000,
            0,
            0,
            taint_message,
        ),
        (
            "twelve fit, the rest short of cpu",
            [
                nodes("4", &json!([])),
                vec![deployment("web", 3000, "1", None)],
            ]
            .concat(),
            3000,
            12,
            0,
            cpu_message,
        ),
        (
            "six preempt two pods each, the rest wait",
            [
                nodes("4", &json!([])),
                vec![
                    priority_class("low", 1),
                    priority_class("high", 1000),
                    deployment("high", 3000, "2", Some("high")),
                ],
                low_pods,
            ]
            .concat(),
            3000,
            6,
            12,
            cpu_message,
        ),
    ];
    for (name, objects, pending, placed, preempted, message) in cases {
        let file = write(dir.path(), "cluster.json", objects);
        let args = ["schedule", "-f", &file, "-o", "json", "--seed", "3"];
        let (code, compiled, err) = run(&args);
        assert_eq!(code, 0, "{name}: {err}");
        let (_, reference, _) = run(&[&args[..], &["--reference"]].concat());
        assert_eq!(compiled, reference, "{name}: the reference engine differs");
        assert_each_pod_once(name, &compiled, pending);
        assert_eq!(
            compiled["placements"].as_array().unwrap().len(),
            placed,
            "{name}"
        );
        assert_eq!(
            compiled["preempted"].as_array().unwrap().len(),
            preempted,
            "{name}"
        );
        let unschedulable = compiled["unschedulable"].as_array().unwrap();
        assert_eq!(unschedulable.len(), pending - placed, "{name}");
        for row in unschedulable {
            assert_eq!(row["message"], message, "{name}: {}", row["pod"]);
        }
    }
}

/// `repel admit` writes its list pod by pod; the list is whole and parses, in both formats.
#[test]
fn admit_prints_every_pod_of_a_large_workload_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "web.json",
        vec![
            deployment("web", 2000, "100m", None),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i"}]}}),
        ],
    );
    for format in ["json", "yaml"] {
        let out = repel()
            .args(["admit", "-f", &file, "-o", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}");
        let text = String::from_utf8(out.stdout).unwrap();
        let v: Value = if format == "json" {
            serde_json::from_str(&text).unwrap()
        } else {
            serde_saphyr::from_str(&text).unwrap()
        };
        assert_eq!(v["kind"], "List", "{format}");
        let items = v["items"].as_array().unwrap();
        assert_eq!(items.len(), 2001, "{format}");
        assert_eq!(items[0]["metadata"]["name"], "solo", "{format}");
        let names: std::collections::HashSet<&str> = items
            .iter()
            .map(|p| p["metadata"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 2001, "{format}: names repeat");
        assert!(items.iter().all(|p| p["kind"] == "Pod"), "{format}");
    }
}
