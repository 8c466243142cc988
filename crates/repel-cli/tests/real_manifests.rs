//! What real manifests hold and hand-written ones rarely do: workloads beside the pods they
//! own (every `kubectl get -o yaml` export), `generateName`, removed apiVersions, node status
//! with capacity only, and many kinds repel does not use.

use std::path::Path;

use serde_json::{Value, json};

use crate::util::{self, run};

fn write(dir: &Path, name: &str, docs: &[Value]) -> String {
    let text: Vec<String> = docs
        .iter()
        .map(|d| serde_json::to_string(d).unwrap())
        .collect();
    let p = dir.join(name);
    // A JSON stream: one document per value.
    std::fs::write(&p, text.join("\n")).unwrap();
    p.display().to_string()
}

fn container(cpu: &str) -> Value {
    json!([{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}])
}

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
}

fn pod_names(admit_json: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(admit_json).unwrap();
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_replicaset_with_the_pod_it_owns_gets_no_second_pod() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "export.yaml",
        &[
            node("n1"),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
                   "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": container("1")}}}}),
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "web-x7k2p", "namespace": "default", "labels": {"app": "web"},
                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u-1", "controller": true}]},
                   "spec": {"nodeName": "n1", "containers": container("1")}, "status": {"phase": "Running"}}),
        ],
    );
    let (code, out, err) = run(&["admit", "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        pod_names(&out),
        ["web-x7k2p"],
        "admit: the pod the ReplicaSet owns, no new one"
    );
    let (code, out, err) = run(&["schedule", "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placements"], json!([]), "nothing new to place: {out}");
    assert_eq!(v["unschedulable"], json!([]), "{out}");
}

#[test]
fn a_daemonset_counts_the_nodes_already_running_its_pod() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "ds.yaml",
        &[
            node("n1"),
            node("n2"),
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
                   "metadata": {"name": "agent", "namespace": "kube-system", "uid": "ds-1"},
                   "spec": {"selector": {"matchLabels": {"app": "agent"}},
                            "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": container("100m")}}}}),
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "agent-abcde", "namespace": "kube-system", "labels": {"app": "agent"},
                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds-1", "controller": true}]},
                   "spec": {"nodeName": "n1", "containers": container("100m")}, "status": {"phase": "Running"}}),
        ],
    );
    let (code, out, err) = run(&["schedule", "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let placed = v["placements"].as_array().unwrap();
    assert_eq!(placed.len(), 1, "one new pod, for n2: {out}");
    assert_eq!(placed[0]["node"], "n2");
}

#[test]
fn capacity_without_allocatable_is_the_nodes_allocatable() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "cap.yaml",
        &[
            node("n1"),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big"},
                   "spec": {"containers": container("8")}}),
        ],
    );
    let (code, out, err) = run(&["schedule", "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("taken to allow"), "nothing assumed: {err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["unschedulable"][0]["message"]
            .as_str()
            .unwrap_or_default(),
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        "{out}"
    );
}

#[test]
fn generate_name_is_filled_from_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "pod-"},
                   "spec": {"containers": container("10m")}});
    let f = write(dir.path(), "gen.yaml", &[node("n1"), p.clone(), p]);
    let names = |seed: &str| {
        let (code, out, err) = run(&["admit", "-f", &f, "-o", "json", "--seed", seed]);
        assert_eq!(code, 0, "{err}");
        pod_names(&out)
    };
    let a = names("1");
    assert_eq!(a.len(), 2);
    for n in &a {
        assert!(
            n.starts_with("pod-") && n.len() == 9,
            "{n}: base and 5 characters"
        );
        assert!(
            n[4..]
                .bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)),
            "{n}: upstream's alphabet"
        );
    }
    assert_ne!(a[0], a[1], "two objects, two names");
    assert_eq!(a, names("1"), "the same seed, the same names");
    assert_ne!(a, names("2"), "another seed, other names");
    let (code, out, _) = run(&["schedule", "-f", &f, "-o", "json", "--seed", "1"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let placed: Vec<&str> = util::strs(&v["placements"], "/pod");
    assert_eq!(
        placed,
        [format!("default/{}", a[0]), format!("default/{}", a[1])]
    );

    let none = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "default"},
                      "spec": {"containers": container("10m")}});
    let f = write(dir.path(), "none.yaml", &[none]);
    let (code, _, err) = run(&["check", "-f", &f]);
    assert_eq!(code, 2);
    assert!(
        err.contains("metadata.name: Required value: name or generateName is required"),
        "upstream's message: {err}"
    );
}

#[test]
fn removed_workload_api_versions_are_read_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let template =
        json!({"metadata": {"labels": {"app": "nb"}}, "spec": {"containers": container("100m")}});
    let f = write(
        dir.path(),
        "old.yaml",
        &[
            node("n1"),
            // apps/v1beta1 had no required selector: it defaults to the template's labels.
            json!({"apiVersion": "apps/v1beta1", "kind": "StatefulSet", "metadata": {"name": "nb"},
                   "spec": {"replicas": 2, "serviceName": "nb", "template": template}}),
            json!({"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"replicas": 1, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": container("100m")}}}}),
            json!({"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": {"name": "nightly"},
                   "spec": {"schedule": "0 0 * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": container("100m")}}}}}}),
            json!({"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb"},
                   "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
        ],
    );
    let (code, out, err) = run(&["admit", "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let names = pod_names(&out);
    assert!(
        names.contains(&"nb-0".to_string()) && names.contains(&"nb-1".to_string()),
        "{names:?}"
    );
    assert_eq!(
        names.len(),
        4,
        "2 StatefulSet pods, a Deployment's and a CronJob's: {names:?}"
    );
    for (kind, old, new) in [
        ("StatefulSet nb", "apps/v1beta1", "apps/v1"),
        ("Deployment web", "extensions/v1beta1", "apps/v1"),
        ("CronJob nightly", "batch/v1beta1", "batch/v1"),
        ("PodDisruptionBudget pdb", "policy/v1beta1", "policy/v1"),
    ] {
        let line = format!("({kind}): apiVersion {old} is no longer served; read as {new}");
        assert_eq!(
            err.matches(&line).count(),
            1,
            "one warning for {kind}: {err}"
        );
    }
}

#[test]
fn apps_v1beta2_never_defaulted_the_selector() {
    // apps/v1beta2 made `spec.selector` required (only extensions/v1beta1 and apps/v1beta1
    // defaulted it from the template's labels): without one it is refused, not read.
    let dir = tempfile::tempdir().unwrap();
    let template =
        json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": container("100m")}});
    let f = write(
        dir.path(),
        "beta2.yaml",
        &[
            json!({"apiVersion": "apps/v1beta2", "kind": "Deployment", "metadata": {"name": "web"},
                 "spec": {"replicas": 1, "template": template}}),
        ],
    );
    let (code, _, err) = run(&["admit", "-f", &f, "-o", "json"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("(Deployment web): spec.selector: Required value"),
        "{err}"
    );
}

#[test]
fn skipped_kinds_are_one_summary_line_and_listed_with_v() {
    let dir = tempfile::tempdir().unwrap();
    let mut docs = vec![node("n1")];
    for i in 0..3 {
        docs.push(json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": format!("sa{i}")}}));
    }
    for i in 0..5 {
        docs.push(json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": format!("c{i}.example.com")}}));
    }
    docs.push(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}));
    let f = write(dir.path(), "many.yaml", &docs);
    let (code, _, err) = run(&["check", "-f", &f]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "warning: skipped 9 objects of kinds repel does not use: 5 CustomResourceDefinition, 3 ServiceAccount, 1 ConfigMap (-v lists them)"
        ],
        "{err}"
    );
    let (code, _, err) = run(&["check", "-v", "-f", &f]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 9, "one line per object with -v: {err}");
    assert!(
        err.contains(
            "document 2: skipping ServiceAccount sa0: kind ServiceAccount is not used by repel"
        ),
        "{err}"
    );
}

#[test]
fn a_file_of_kinds_repel_does_not_use_is_named_with_its_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "pool.yaml",
        &[json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "c"}})],
    );
    for cmd in ["check", "admit", "schedule"] {
        let (code, _, err) = run(&[cmd, "-f", &f]);
        assert_eq!(code, 2, "{cmd}");
        assert_eq!(
            err,
            format!(
                "error: no objects passed to {cmd}: {f} held nothing repel uses (skipped 1 object of kinds repel does not use: 1 Service (-v lists them))\n"
            ),
            "{cmd}"
        );
    }
}

#[test]
fn explain_finds_the_pod_schedule_creates_for_an_exported_deployment() {
    let dir = tempfile::tempdir().unwrap();
    let labels = json!({"app": "web", "pod-template-hash": "5d78c9869d"});
    let f = write(
        dir.path(),
        "dep.yaml",
        &[
            node("n1"),
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "namespace": "default", "uid": "d-1"},
                   "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": container("1")}}}}),
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "web-5d78c9869d-aaaaa", "namespace": "default", "labels": labels,
                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d78c9869d", "uid": "rs-1", "controller": true}]},
                   "spec": {"nodeName": "n1", "containers": container("1")}, "status": {"phase": "Running"}}),
        ],
    );
    let (code, out, err) = run(&["schedule", "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let placed = v["placements"].as_array().unwrap();
    assert_eq!(placed.len(), 1, "one replica missing: {out}");
    let pod = placed[0]["pod"].as_str().unwrap();
    assert!(
        pod.starts_with("default/web-5d78c9869d-"),
        "named after the ReplicaSet its pods name: {pod}"
    );
    let (code, out, err) = run(&["explain", pod, "-f", &f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pod"].as_str(), Some(pod));
    assert_eq!(v["nodes"][0]["feasible"], json!(true), "{out}");
}
