//! The `repel` binary run on files, as a user runs it: the JSON contract, exit codes, kubectl's
//! messages, and the human output (insta snapshots).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{self, json_out, repel, run};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn demo_cluster() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/demo/cluster.yaml")
        .display()
        .to_string()
}

fn node(name: &str, taints: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "spec": {"taints": taints}})
}

fn pod(name: &str, tolerations: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"containers": [{"name": "app", "image": "nginx"}], "tolerations": tolerations}})
}

fn write_list(dir: &Path, name: &str, items: Vec<Value>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap(),
    )
    .unwrap();
    p
}

// ---------------------------------------------------------------- explain

#[test]
fn explain_the_seven_rows_of_the_match_table() {
    let dir = tempfile::tempdir().unwrap();
    let gpu = json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
    let rows = [
        (
            "Equal gpu NoSchedule",
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}),
            true,
        ),
        (
            "Exists NoSchedule",
            json!({"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}),
            true,
        ),
        (
            "Exists without effect",
            json!({"key": "dedicated", "operator": "Exists"}),
            true,
        ),
        (
            "Equal cpu",
            json!({"key": "dedicated", "operator": "Equal", "value": "cpu", "effect": "NoSchedule"}),
            false,
        ),
        (
            "Equal gpu without effect",
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu"}),
            true,
        ),
        (
            "Equal gpu NoExecute",
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoExecute"}),
            false,
        ),
        (
            "the empty Exists toleration",
            json!({"operator": "Exists"}),
            true,
        ),
    ];
    for (i, (name, tol, want)) in rows.into_iter().enumerate() {
        let f = write_list(
            dir.path(),
            &format!("t{i}.json"),
            vec![node("gpu-1", gpu.clone()), pod("p", json!([tol]))],
        );
        let (code, v) = json_out(&[
            "explain",
            "default/p",
            "-f",
            f.to_str().unwrap(),
            "-o",
            "json",
        ]);
        assert_eq!(code, 0, "{name}");
        let n = &v["nodes"][0];
        assert_eq!(n["taints"][0]["tolerated"], json!(want), "{name}");
        assert_eq!(n["feasible"], json!(want), "{name}");
        assert_eq!(
            n["taints"][0]["toleration"],
            if want { json!(0) } else { Value::Null },
            "{name}"
        );
        if want {
            assert_eq!(v["message"], json!(""), "{name}");
        } else {
            assert_eq!(
                n["reasons"],
                json!(["node(s) had untolerated taint(s)"]),
                "{name}"
            );
            assert_eq!(
                v["message"],
                json!(
                    "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
                ),
                "{name}"
            );
            assert_eq!(
                n["suggestedTolerations"],
                json!([{"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "gpu"}]),
                "{name}"
            );
        }
    }
}

#[test]
fn explain_gt_follows_the_feature_gate() {
    let dir = tempfile::tempdir().unwrap();
    let key = "servicelevel.organization.example/agreed-service-level";
    let f = write_list(
        dir.path(),
        "gt.json",
        vec![
            node(
                "node1",
                json!([{"key": key, "value": "950", "effect": "NoSchedule"}]),
            ),
            node(
                "node2",
                json!([{"key": key, "value": "800", "effect": "NoSchedule"}]),
            ),
            pod(
                "p",
                json!([{"key": key, "operator": "Gt", "value": "900", "effect": "NoSchedule"}]),
            ),
        ],
    );
    let f = f.to_str().unwrap();
    let (_, on) = json_out(&[
        "explain",
        "p",
        "-f",
        f,
        "-o",
        "json",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ]);
    assert_eq!(
        on["nodes"][0]["taints"][0]["tolerated"],
        json!(true),
        "950 > 900 with the gate on"
    );
    assert_eq!(
        on["nodes"][1]["taints"][0]["tolerated"],
        json!(false),
        "800 is not > 900"
    );
    let (_, off) = json_out(&["explain", "p", "-f", f, "-o", "json"]);
    assert_eq!(
        off["nodes"][0]["taints"][0]["tolerated"],
        json!(false),
        "Gt never matches with the gate off (default)"
    );
    let (code, _, err) = run(&["explain", "p", "-f", f, "--feature-gates", "Bogus=true"]);
    assert_eq!(code, 2, "an unknown gate is bad input");
    assert!(err.contains("unrecognized feature gate: Bogus"), "{err}");
}

#[test]
fn explain_no_execute_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let t = json!([{"key": "key1", "value": "value1", "effect": "NoExecute"}]);
    let cases = [
        (
            "tolerationSeconds 3600: after",
            json!([{"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute", "tolerationSeconds": 3600}]),
            json!({"evict": "after", "seconds": 3600}),
        ),
        (
            "no tolerationSeconds: never",
            json!([{"key": "key1", "operator": "Exists", "effect": "NoExecute"}]),
            json!({"evict": "never"}),
        ),
        (
            "no toleration: immediately",
            json!([]),
            json!({"evict": "immediately"}),
        ),
    ];
    for (i, (name, tols, want)) in cases.into_iter().enumerate() {
        let f = write_list(
            dir.path(),
            &format!("ne{i}.json"),
            vec![node("node1", t.clone()), pod("p", tols)],
        );
        let (_, v) = json_out(&[
            "explain",
            "default/p",
            "-f",
            f.to_str().unwrap(),
            "-o",
            "json",
        ]);
        assert_eq!(v["nodes"][0]["noExecute"], want, "{name}");
    }
}

#[test]
fn explain_scores_prefer_no_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(
        dir.path(),
        "s.json",
        vec![
            node("a", json!([])),
            node(
                "b",
                json!([{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
            ),
            node("c", json!([{"key": "x", "effect": "NoSchedule"}])),
            pod("p", json!([])),
        ],
    );
    let (_, v) = json_out(&[
        "explain",
        "default/p",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(v["nodes"][0]["scores"]["TaintToleration"], json!(100));
    assert_eq!(v["nodes"][1]["scores"]["TaintToleration"], json!(0));
    let total = |n: &Value| -> i64 {
        let w = |p: &str| match p {
            "TaintToleration" => 3,
            "NodeAffinity" | "PodTopologySpread" | "InterPodAffinity" => 2,
            _ => 1,
        };
        n["scores"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(p, s)| s.as_i64().unwrap() * w(p))
            .sum()
    };
    assert_eq!(
        v["nodes"][0]["score"].as_i64(),
        Some(total(&v["nodes"][0])),
        "score is the weighted sum"
    );
    assert!(
        v["nodes"][0]["score"].as_i64() > v["nodes"][1]["score"].as_i64(),
        "the untainted node wins"
    );
    assert_eq!(
        v["nodes"][1]["feasible"],
        json!(true),
        "PreferNoSchedule never filters"
    );
    assert!(
        v["nodes"][2].get("scores").is_none(),
        "infeasible nodes have no scores"
    );
}

#[test]
fn explain_and_schedule_read_the_nodes_images() {
    // Two of three nodes hold nginx:latest (500 MiB); the pod's `nginx` is read as
    // `nginx:latest`. 500 MiB * 2/3 = 349,525,333 bytes: 100 * (349,525,333 - 23 MiB) /
    // (1000 MiB - 23 MiB) = 31 (upstream ImageLocality, v1.35).
    let dir = tempfile::tempdir().unwrap();
    let with_image = |name: &str| {
        let mut n = node(name, json!([]));
        n["status"] = json!({"images": [{"names": ["docker.io/library/nginx:latest", "nginx:latest"],
            "sizeBytes": 500 * 1024 * 1024}]});
        n
    };
    let f = write_list(
        dir.path(),
        "s.json",
        vec![
            with_image("a"),
            node("b", json!([])),
            with_image("c"),
            pod("p", json!([])),
        ],
    );
    let (_, v) = json_out(&[
        "explain",
        "default/p",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let image = |i: usize| v["nodes"][i]["scores"]["ImageLocality"].clone();
    assert_eq!(
        [image(0), image(1), image(2)],
        [json!(31), json!(0), json!(31)]
    );
    let (_, text, _) = run(&["explain", "default/p", "-f", f.to_str().unwrap()]);
    assert!(text.contains("ImageLocality 31"), "{text}");
    for engine in [&[][..], &["--reference"][..]] {
        let mut args = vec!["schedule", "-f", f.to_str().unwrap(), "-o", "json"];
        args.extend_from_slice(engine);
        let (_, v) = json_out(&args);
        assert_ne!(
            v["placements"][0]["node"],
            json!("b"),
            "{engine:?}: a node holding the image wins"
        );
    }
}

#[test]
fn explain_adds_the_default_tolerations_before_judging() {
    let (_, v) = json_out(&[
        "explain",
        "plain",
        "-f",
        &fixture("docs.yaml"),
        "-o",
        "json",
    ]);
    let keys: Vec<&str> = util::strs(&v["tolerations"], "/key");
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable"
        ]
    );
    // And they are used: on an unreachable node the pod is let past the NoExecute taint for
    // 300 s (DefaultTolerationSeconds), not evicted at once; with the plugin off, at once.
    let dir = tempfile::tempdir().unwrap();
    let unreachable = json!([{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]);
    let f = write_list(
        dir.path(),
        "u.json",
        vec![node("node1", unreachable), pod("p", json!([]))],
    );
    let f = f.to_str().unwrap();
    let (_, v) = json_out(&["explain", "default/p", "-f", f, "-o", "json"]);
    assert_eq!(
        v["nodes"][0]["noExecute"],
        json!({"evict": "after", "seconds": 300})
    );
    let (_, v) = json_out(&[
        "explain",
        "default/p",
        "-f",
        f,
        "-o",
        "json",
        "--disable-admission-plugins",
        "DefaultTolerationSeconds",
    ]);
    assert_eq!(v["nodes"][0]["noExecute"], json!({"evict": "immediately"}));
}

#[test]
fn explain_human_output() {
    let (code, out, _) = run(&["explain", "default/equal", "-f", &fixture("docs.yaml")]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("explain_equal", out);
    let (_, out, _) = run(&["explain", "plain", "-f", &fixture("docs.yaml")]);
    insta::assert_snapshot!("explain_plain", out);
}

#[test]
fn explain_a_workload_by_kind_and_name() {
    let (code, v) = json_out(&[
        "explain",
        "ds/nvidia-device-plugin",
        "-n",
        "kube-system",
        "-f",
        &demo_cluster(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(
        v["pod"]
            .as_str()
            .unwrap()
            .starts_with("kube-system/nvidia-device-plugin-"),
        "{}",
        v["pod"]
    );
    let gpu = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "gpu-1")
        .unwrap();
    assert_eq!(
        gpu["feasible"],
        json!(false),
        "the device plugin lacks the sku=gpu toleration"
    );
    let cp = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "general-1")
        .unwrap();
    assert_eq!(
        cp["reasons"],
        json!(["node(s) didn't match Pod's node affinity/selector"])
    );
}

#[test]
fn explain_takes_kubectls_type_dot_group_forms() {
    // `deployment.apps/web` is kubectl's form, not the namespace `deployment.apps` (a
    // namespace is a DNS label, which has no dot).
    let dir = tempfile::tempdir().unwrap();
    let web = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let f = write_list(dir.path(), "web.json", vec![node("n1", json!([])), web]);
    let f = f.to_str().unwrap();
    for arg in [
        "deployment/web",
        "deployment.apps/web",
        "deployments.v1.apps/web",
    ] {
        let (code, v) = json_out(&["explain", arg, "-f", f, "-o", "json"]);
        assert_eq!(code, 0, "{arg}");
        assert!(
            v["pod"].as_str().unwrap().starts_with("default/web-"),
            "{arg}: {}",
            v["pod"]
        );
    }
    let (code, _, err) = run(&["explain", "deployment.batch/web", "-f", f]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the server doesn't have a resource type \"deployment.batch\""),
        "{err}"
    );
    let (code, _, err) = run(&["explain", "job.batch/web", "-f", f]);
    assert_eq!(code, 2);
    assert!(err.contains("jobs.batch \"web\" not found"), "{err}");
}

#[test]
fn explain_advice_only_where_the_selector_singles_the_tainted_nodes_out() {
    // CoreDNS selects `kubernetes.io/os: linux`, which every node has: it runs on the plain
    // node, and being kept off the GPU node is no mistake of its own.
    let dir = tempfile::tempdir().unwrap();
    let linux = |name: &str, taints: Value| {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
               "spec": {"taints": taints}})
    };
    let gpu_taint = json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]);
    let mut coredns = pod("coredns", json!([]));
    coredns["spec"]["nodeSelector"] = json!({"kubernetes.io/os": "linux"});
    let f = write_list(
        dir.path(),
        "c.json",
        vec![
            linux("plain", json!([])),
            linux("gpu-1", gpu_taint.clone()),
            linux("gpu-2", gpu_taint),
            coredns,
        ],
    );
    let f = f.to_str().unwrap();
    let (code, v) = json_out(&["explain", "default/coredns", "-f", f, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["advice"], json!([]));
    let (_, out, _) = run(&["explain", "default/coredns", "-f", f]);
    assert!(!out.contains("add to its tolerations"), "{out}");
    // A pod that selects only the GPU nodes, with a toleration whose value differs by case: the
    // advice names its own nodes, the toleration to paste is shown once for both nodes, and
    // the near miss says why its toleration does not match.
    let mut trainer = pod(
        "trainer",
        json!([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "True", "effect": "NoSchedule"}]),
    );
    trainer["spec"]["nodeSelector"] = json!({"kubernetes.io/hostname": "gpu-1"});
    trainer["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-1", "gpu-2"]}]}]}}});
    trainer["spec"]["nodeSelector"] = json!(null);
    let g = write_list(
        dir.path(),
        "t.json",
        vec![
            linux("plain", json!([])),
            linux(
                "gpu-1",
                json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            ),
            linux(
                "gpu-2",
                json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            ),
            trainer,
        ],
    );
    let g = g.to_str().unwrap();
    let (code, v) = json_out(&["explain", "default/trainer", "-f", g, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["advice"].as_array().unwrap().len(), 1, "{}", v["advice"]);
    assert!(
        v["advice"][0]
            .as_str()
            .unwrap()
            .starts_with("kept off the nodes its own selector picks")
    );
    assert_eq!(
        v["nearMisses"],
        json!([{"toleration": 0, "taint": "nvidia.com/gpu=true:NoSchedule",
                "message": "value \"True\" differs from the taint's \"true\" only by case; values are compared exactly"}])
    );
    let (_, out, _) = run(&["explain", "default/trainer", "-f", g]);
    assert_eq!(out.matches("add to its tolerations").count(), 1, "{out}");
    assert!(
        out.contains("To let the pod onto gpu-1, gpu-2, add to its tolerations:"),
        "{out}"
    );
    assert!(
        out.contains("Near miss: toleration #0 does not match nvidia.com/gpu=true:NoSchedule: value \"True\" differs"),
        "{out}"
    );
}

#[test]
fn explain_an_unknown_pod_is_bad_input() {
    let (code, _, err) = run(&["explain", "default/nope", "-f", &fixture("docs.yaml")]);
    assert_eq!(code, 2);
    assert!(err.contains("pods \"nope\" not found"), "{err}");
}

// ---------------------------------------------------------------- check

#[test]
fn check_reports_upstream_field_errors() {
    let (code, v) = json_out(&["check", "-f", &fixture("invalid.yaml"), "-o", "json"]);
    assert_eq!(code, 1);
    assert_eq!(v["valid"], json!(false));
    let first = &v["errors"][0];
    assert_eq!(first["object"], json!("Pod/default/bad"));
    assert_eq!(first["field"], json!("spec.tolerations[0].operator"));
    assert_eq!(first["type"], json!("Invalid value"));
    assert_eq!(
        first["message"],
        json!("Invalid value: \"value1\": value must be empty when `operator` is 'Exists'")
    );
    let fields: Vec<(&str, &str)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["object"].as_str().unwrap(), e["field"].as_str().unwrap()))
        .collect();
    assert!(
        fields.contains(&("Pod/default/bad", "spec.tolerations[1].operator")),
        "empty key needs Exists: {fields:?}"
    );
    assert!(
        fields.contains(&("Pod/default/bad", "spec.tolerations[2].effect")),
        "tolerationSeconds needs NoExecute: {fields:?}"
    );
    assert!(
        fields.contains(&("Node/twice", "metadata.taints[1]")),
        "duplicate key+effect: {fields:?}"
    );
    assert!(
        !fields.contains(&("Node/twice", "metadata.taints[2]")),
        "same key, other effect is fine: {fields:?}"
    );
    assert!(
        fields.iter().any(|(o, f)| *o == "Deployment/default/web"
            && f.starts_with("spec.template.spec.tolerations[0]")),
        "Gt refused while the gate is off: {fields:?}"
    );
}

#[test]
fn check_validates_metadata_as_the_api_server() {
    // A pod name with an underscore and an unexpanded `${NS}` are refused by the API server.
    let dir = tempfile::tempdir().unwrap();
    let mut bad = pod("Bad_Name", json!([]));
    bad["metadata"]["namespace"] = json!("${NS}");
    let f = write_list(dir.path(), "bad.json", vec![bad]);
    let (code, v) = json_out(&["check", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    let fields: Vec<&str> = util::strs(&v["errors"], "/field");
    assert_eq!(fields, ["metadata.name", "metadata.namespace"], "{v}");
    assert_eq!(
        v["errors"][0]["message"],
        "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    );
}

#[test]
fn check_human_output_is_kubectls_invalid_form() {
    let (code, out, _) = run(&["check", "-f", &fixture("invalid.yaml")]);
    assert_eq!(code, 1);
    assert!(out.contains("The Pod \"one-error\" is invalid: spec.tolerations[0].operator: Invalid value: \"value1\": value must be empty when `operator` is 'Exists'\n"), "{out}");
    assert!(
        out.contains("The Pod \"bad\" is invalid: \n* spec.tolerations[0].operator"),
        "{out}"
    );
    insta::assert_snapshot!("check_invalid", out);
}

#[test]
fn check_valid_files_exit_zero() {
    let (code, v) = json_out(&["check", "-f", &fixture("docs.yaml"), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v, json!({"valid": true, "errors": []}));
    let (code, _, _) = run(&[
        "check",
        "-f",
        &demo_cluster(),
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ]);
    assert_eq!(code, 0, "the demo cluster is valid with the gate on");
}

// ---------------------------------------------------------------- input errors

#[test]
fn bad_input_names_file_document_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "malformed YAML",
            "kind: Pod\nmetadata: [unclosed\n",
            "invalid YAML",
        ),
        (
            "a field of the wrong type",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n  tolerations:\n  - {key: a, tolerationSeconds: soon}\n",
            "document 1 (Pod p): spec.tolerations[0].tolerationSeconds: invalid type",
        ),
        (
            "a missing name",
            "apiVersion: v1\nkind: Node\nmetadata: {}\n",
            "metadata.name: Required value",
        ),
        (
            "a List without items",
            "apiVersion: v1\nkind: List\n",
            "items",
        ),
    ];
    for (name, text, want) in cases {
        let p = dir.path().join("in.yaml");
        std::fs::write(&p, text).unwrap();
        let (code, _, err) = run(&["check", "-f", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains("in.yaml"), "{name}: names the file: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let (code, _, err) = run(&["check", "-f", "/nonexistent/file.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/file.yaml"), "{err}");
}

#[test]
fn unknown_kinds_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("svc.yaml");
    std::fs::write(&p, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n").unwrap();
    let (code, _, err) = run(&["check", "-f", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        err.contains(
            "warning: skipped 1 object of kinds repel does not use: 1 Service (-v lists them)"
        ),
        "{err}"
    );
    let (code, _, err) = run(&["check", "-v", "-f", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        err.contains("warning:") && err.contains("Service s"),
        "{err}"
    );
}

#[test]
fn stdin_and_directories_are_read() {
    let out = repel()
        .args(["check", "-f", "-", "-o", "json"])
        .write_stdin(std::fs::read_to_string(fixture("invalid.yaml")).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (code, v) = json_out(&[
        "check",
        "-f",
        &Path::new(&fixture("docs.yaml"))
            .parent()
            .unwrap()
            .display()
            .to_string(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "the directory holds invalid.yaml too");
    assert_eq!(v["valid"], json!(false));
}

// ---------------------------------------------------------------- taint

#[test]
fn taint_add_and_remove_rewrites_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(dir.path(), "n.json", vec![node("node1", json!([]))]);
    let f = f.to_str().unwrap();
    let (code, out, _) = run(&["taint", "nodes", "node1", "key1=value1:NoSchedule", "-f", f]);
    assert_eq!((code, out.as_str()), (0, "node/node1 tainted\n"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert_eq!(
        v["items"][0]["spec"]["taints"],
        json!([{"effect": "NoSchedule", "key": "key1", "value": "value1"}])
    );
    let (code, out, err) = run(&["taint", "nodes", "node1", "key1=value1:NoSchedule", "-f", f]);
    assert_eq!((code, out.as_str()), (1, ""), "adding it again is refused");
    assert_eq!(
        err,
        "error: node node1 already has key1 taint(s) with same effect(s) and --overwrite is false\n"
    );
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "node1",
        "key1=other:NoSchedule",
        "--overwrite",
        "-f",
        f,
    ]);
    assert_eq!((code, out.as_str()), (0, "node/node1 modified\n"));
    let (code, out, _) = run(&["taint", "nodes", "node1", "key1-", "-f", f]);
    assert_eq!((code, out.as_str()), (0, "node/node1 untainted\n"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert!(v["items"][0]["spec"].get("taints").is_none(), "{v}");
    let (code, _, err) = run(&["taint", "nodes", "node1", "key1:NoSchedule-", "-f", f]);
    assert_eq!(code, 1);
    assert_eq!(err, "error: taint \"key1:NoSchedule\" not found\n");
}

#[test]
fn taint_keeps_other_yaml_documents_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("c.yaml");
    let text = std::fs::read_to_string(fixture("docs.yaml")).unwrap();
    std::fs::write(&p, &text).unwrap();
    let (code, out, err) = run(&[
        "taint",
        "nodes",
        "node2",
        "dedicated=groupName:NoSchedule",
        "-f",
        p.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "node/node2 tainted\n");
    let after = std::fs::read_to_string(&p).unwrap();
    let docs_before: Vec<&str> = text.split("\n---\n").collect();
    let docs_after: Vec<&str> = after.split("\n---\n").collect();
    assert_eq!(docs_before.len(), docs_after.len());
    assert_eq!(
        docs_before[0], docs_after[0],
        "node1's document, comments included, is untouched"
    );
    assert_eq!(
        &docs_before[2..],
        &docs_after[2..],
        "the pods are untouched"
    );
    assert!(docs_after[1].contains("dedicated"), "{}", docs_after[1]);
    let (code, v) = json_out(&["explain", "equal", "-f", p.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        v["nodes"][1]["taints"][0]["key"],
        json!("dedicated"),
        "the rewritten file reads back"
    );
}

#[test]
fn taint_argument_errors_are_kubectls() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(dir.path(), "n.json", vec![node("node1", json!([]))]);
    let f = f.to_str().unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["nodes", "node1", "key1=value1:Sometimes"],
            2,
            "error: invalid taint effect: Sometimes, unsupported taint effect\nSee 'repel taint -h' for help and examples\n",
        ),
        (
            &["nodes", "node1"],
            2,
            "error: at least one taint update is required\n",
        ),
        (
            &["nodes", "node1", "a=b:NoSchedule", "a:NoSchedule-"],
            2,
            "error: can not both modify and remove the following taint(s) in the same command: a=NoSchedule\n",
        ),
        (
            &["nodes", "node1", "a=b:NoSchedule", "node2"],
            2,
            "error: all resources must be specified before taint changes: node2\n",
        ),
        (
            &["pods", "p", "a=b:NoSchedule"],
            2,
            "error: invalid resource type pods, only node types are supported\n",
        ),
        (
            &["nodes", "ghost", "a=b:NoSchedule"],
            2,
            "Error from server (NotFound): nodes \"ghost\" not found\n",
        ),
    ];
    for (args, want_code, want_err) in cases {
        let mut full = vec!["taint"];
        full.extend_from_slice(args);
        full.extend_from_slice(&["-f", f]);
        let (code, _, err) = run(&full);
        assert_eq!((code, err.as_str()), (*want_code, *want_err), "{args:?}");
    }
}

#[test]
fn taint_all_and_selector() {
    let dir = tempfile::tempdir().unwrap();
    let mut gpu = node("gpu-1", json!([]));
    gpu["metadata"]["labels"]["pool"] = json!("gpu");
    let f = write_list(dir.path(), "n.json", vec![node("a", json!([])), gpu]);
    let f = f.to_str().unwrap();
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "-l",
        "pool=gpu",
        "sku=gpu:NoSchedule",
        "-f",
        f,
    ]);
    assert_eq!((code, out.as_str()), (0, "node/gpu-1 tainted\n"));
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "--all",
        "maintenance=soon:PreferNoSchedule",
        "-f",
        f,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (0, "node/a tainted\nnode/gpu-1 tainted\n")
    );
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "--all",
        "maintenance-",
        "--dry-run",
        "-f",
        f,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "node/a untainted (dry run)\nnode/gpu-1 untainted (dry run)\n"
        )
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert_eq!(
        v["items"][0]["spec"]["taints"][0]["key"],
        json!("maintenance"),
        "dry run leaves the file alone"
    );
    // A directory is read when nothing is written (its files, as kubectl reads -f DIR), and
    // refused when it would be rewritten.
    let d = std::path::Path::new(f).parent().unwrap().to_str().unwrap();
    let before = std::fs::read_to_string(f).unwrap();
    let (code, out, err) = run(&[
        "taint",
        "nodes",
        "a",
        "dedicated=x:NoSchedule",
        "--dry-run",
        "-f",
        d,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (0, "node/a tainted (dry run)\n"),
        "{err}"
    );
    let (code, _, err) = run(&["taint", "nodes", "a", "dedicated=x:NoSchedule", "-f", d]);
    assert_eq!(code, 2);
    assert!(err.contains("is a directory"), "{err}");
    assert_eq!(
        std::fs::read_to_string(f).unwrap(),
        before,
        "nothing written"
    );
}

// ---------------------------------------------------------------- admit

#[test]
fn admit_adds_what_the_control_plane_adds() {
    let dir = tempfile::tempdir().unwrap();
    let mut burstable = pod("burstable", json!([]));
    burstable["spec"]["containers"][0]["resources"] = json!({"requests": {"memory": "64Mi"}});
    let own = pod(
        "own-unreachable",
        json!([{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 6000}]),
    );
    let f = write_list(
        dir.path(),
        "p.json",
        vec![pod("best-effort", json!([])), burstable, own],
    );
    // PodTolerationRestriction is off in stock kube-apiserver: enabled here for its
    // memory-pressure toleration.
    let (code, v) = json_out(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--enable-admission-plugins",
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["kind"], json!("List"));
    let tols = |i: usize| -> Vec<(String, Option<i64>)> {
        v["items"][i]["spec"]["tolerations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    format!(
                        "{}:{}",
                        t["key"].as_str().unwrap(),
                        t["effect"].as_str().unwrap()
                    ),
                    t["tolerationSeconds"].as_i64(),
                )
            })
            .collect()
    };
    let nr = (
        "node.kubernetes.io/not-ready:NoExecute".to_string(),
        Some(300),
    );
    let un = (
        "node.kubernetes.io/unreachable:NoExecute".to_string(),
        Some(300),
    );
    assert_eq!(
        tols(0),
        vec![nr.clone(), un.clone()],
        "a BestEffort pod: the two 300 s tolerations"
    );
    assert_eq!(
        tols(1),
        vec![
            nr.clone(),
            un,
            (
                "node.kubernetes.io/memory-pressure:NoSchedule".to_string(),
                None
            )
        ],
        "Burstable: memory-pressure too"
    );
    assert_eq!(
        tols(2),
        vec![
            (
                "node.kubernetes.io/unreachable:NoExecute".to_string(),
                Some(6000)
            ),
            nr
        ],
        "its own unreachable toleration is kept"
    );
}

#[test]
fn admit_expands_workloads_and_daemonsets() {
    let (code, v) = json_out(&[
        "admit",
        "-f",
        &demo_cluster(),
        "-o",
        "json",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ]);
    assert_eq!(
        code, 0,
        "the demo's Gt toleration is valid with the gate on"
    );
    let (code, _) = json_out(&["admit", "-f", &demo_cluster(), "-o", "json"]);
    assert_eq!(code, 1, "and refused by validation with the gate off");
    let items = v["items"].as_array().unwrap();
    assert!(
        !items.iter().any(|p| p["metadata"]["name"]
            .as_str()
            .unwrap()
            .starts_with("nvidia-device-plugin")),
        "the device plugin without the sku=gpu toleration runs nowhere"
    );
    let dir = tempfile::tempdir().unwrap();
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}},
        "spec": {"hostNetwork": true, "containers": [{"name": "a", "image": "agent"}],
                 "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]}}}});
    let mut cordoned = node("cordoned", json!([]));
    cordoned["spec"]["unschedulable"] = json!(true);
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    let f = write_list(
        dir.path(),
        "w.json",
        vec![
            node("a", json!([])),
            node("tainted", json!([{"key": "x", "effect": "NoSchedule"}])),
            cordoned,
            ds,
            deploy,
        ],
    );
    let (_, v) = json_out(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--seed",
        "7",
    ]);
    let items = v["items"].as_array().unwrap();
    let agents: Vec<&Value> = items
        .iter()
        .filter(|p| {
            p["metadata"]["name"]
                .as_str()
                .unwrap()
                .starts_with("agent-")
        })
        .collect();
    let pinned: Vec<&str> = agents
        .iter()
        .map(|p| {
            p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        pinned,
        ["a", "cordoned"],
        "one pod per eligible node (cordoned nodes included), pinned by matchFields"
    );
    let keys: Vec<String> = agents[0]["spec"]["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            format!(
                "{}:{}:{}",
                t["key"].as_str().unwrap(),
                t["effect"].as_str().unwrap(),
                t["tolerationSeconds"]
                    .as_i64()
                    .map_or("forever".into(), |s| s.to_string())
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready:NoExecute:forever",
            "node.kubernetes.io/unreachable:NoExecute:forever",
            "node.kubernetes.io/disk-pressure:NoSchedule:forever",
            "node.kubernetes.io/memory-pressure:NoSchedule:forever",
            "node.kubernetes.io/pid-pressure:NoSchedule:forever",
            "node.kubernetes.io/unschedulable:NoSchedule:forever",
            "node.kubernetes.io/network-unavailable:NoSchedule:forever",
        ],
        "the template's 300 s not-ready toleration is replaced in place; hostNetwork adds network-unavailable"
    );
    let web: Vec<&str> = items
        .iter()
        .filter_map(|p| p["metadata"]["name"].as_str())
        .filter(|n| n.starts_with("web-"))
        .collect();
    assert_eq!(web.len(), 3, "{web:?}");
    for n in &web {
        let parts: Vec<&str> = n.split('-').collect();
        assert_eq!(parts.len(), 3, "web-<hash>-<suffix>: {n}");
        assert_eq!(parts[2].len(), 5, "{n}");
        assert!(
            parts[2]
                .chars()
                .all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)),
            "{n}"
        );
    }
    let (_, again) = json_out(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--seed",
        "7",
    ]);
    assert_eq!(v, again, "the same seed gives the same names");
}

#[test]
fn admit_applies_namespace_default_tolerations_and_whitelist() {
    let dir = tempfile::tempdir().unwrap();
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "annotations": {
        "scheduler.alpha.kubernetes.io/defaultTolerations": "[{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"team\", \"effect\": \"NoSchedule\"}]",
        "scheduler.alpha.kubernetes.io/tolerationsWhitelist": "[{\"key\": \"dedicated\", \"operator\": \"Exists\"}, {\"operator\": \"Exists\", \"effect\": \"NoExecute\"}]"}}});
    let mut ok = pod("ok", json!([]));
    ok["metadata"]["namespace"] = json!("team");
    let mut bad = pod(
        "bad",
        json!([{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]),
    );
    bad["metadata"]["namespace"] = json!("team");
    let f = write_list(dir.path(), "ns.json", vec![ns, ok, bad]);
    // The annotations are PodTolerationRestriction's: without the plugin (stock) they do
    // nothing.
    let (code, _, _) = run(&["admit", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "without the plugin no pod is refused");
    let (code, out, err) = run(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--enable-admission-plugins",
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 1, "one pod is refused");
    assert!(err.contains("pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let keys: Vec<&str> = util::strs(&items[0]["spec"]["tolerations"], "/key");
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "dedicated"
        ],
        "the namespace default is merged in after the pod's own"
    );
}

// ---------------------------------------------------------------- demo

#[test]
fn demo_runs_on_built_in_data() {
    let (code, out, err) = run(&["demo"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("a toleration allows, it does not attract"),
        "{out}"
    );
    assert!(out.contains("tolerates every taint"), "{out}");
    assert!(
        out.contains("kept off the nodes its own selector picks"),
        "{out}"
    );
    insta::assert_snapshot!("demo", out);
}

// ---------------------------------------------------------------- review fixes

#[test]
fn admit_leaves_out_pods_the_api_server_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let bad = pod(
        "bad",
        json!([{"key": "k", "operator": "Exists", "value": "v", "effect": "NoSchedule"}]),
    );
    let f = write_list(dir.path(), "p.json", vec![bad, pod("good", json!([]))]);
    let (code, out, err) = run(&["admit", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    assert!(err.contains("The Pod \"bad\" is invalid: spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = util::strs(&v["items"], "/metadata/name");
    assert_eq!(names, ["good"]);
}

#[test]
fn no_objects_and_no_files_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "").unwrap();
    for cmd in ["check", "admit", "schedule"] {
        let (code, _, err) = run(&[cmd, "-f", empty.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd}");
        assert_eq!(err, format!("error: no objects passed to {cmd}\n"), "{cmd}");
    }
    let (code, _, err) = run(&["explain", "web"]);
    assert_eq!(code, 2);
    assert!(err.contains("--filename"), "{err}");
    let nested = dir.path().join("a/b");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::copy(fixture("docs.yaml"), nested.join("docs.yaml")).unwrap();
    let (code, _, _) = run(&["check", "-f", dir.path().join("a").to_str().unwrap()]);
    assert_eq!(code, 2, "without -R the nested file is not read");
    let (code, out, _) = run(&["check", "-R", "-f", dir.path().join("a").to_str().unwrap()]);
    assert_eq!(
        (code, out.as_str()),
        (0, "5 object(s) checked: all valid\n")
    );
}

#[test]
fn taint_on_stdin_prints_instead_of_rewriting() {
    let text = "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n";
    let out = repel()
        .args(["taint", "nodes", "b", "w=1:NoSchedule", "-f", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input cannot be rewritten"));
    let out = repel()
        .args([
            "taint",
            "nodes",
            "b",
            "w=1:NoSchedule",
            "-f",
            "-",
            "-o",
            "json",
        ])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["spec"]["taints"],
        json!([{"effect": "NoSchedule", "key": "w", "value": "1"}])
    );
}

#[test]
fn explain_a_generated_pod_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "team"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
        "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": "postgres"}]}}}});
    let f = write_list(dir.path(), "s.json", vec![node("n", json!([])), sts]);
    let (code, v) = json_out(&[
        "explain",
        "team/db-1",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["pod"], json!("team/db-1"));
}

// ---------------------------------------------------------------- schedule

#[test]
fn schedule_gpu_pool_and_upstreams_messages() {
    let (code, v) = json_out(&["schedule", "-f", &fixture("gpu-pool.yaml"), "-o", "json"]);
    assert_eq!(
        code, 0,
        "unschedulable pods alone do not fail without --fail-unschedulable"
    );
    let placed: Vec<(String, String)> = v["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pod"].as_str().unwrap().to_string(),
                p["node"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        placed[0].0, "default/urgent",
        "the highest priority goes first"
    );
    assert!(
        placed.contains(&("default/trainer".to_string(), "gpu-1".to_string())),
        "{placed:?}"
    );
    let msg = |pod: &str| {
        v["unschedulable"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["pod"] == pod)
            .map(|u| u["message"].as_str().unwrap().to_string())
    };
    assert_eq!(
        msg("default/trainer-no-toleration").as_deref(),
        Some(
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )
    );
    assert_eq!(
        msg("default/big-2").as_deref(),
        Some(
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        )
    );
    let (code, _, _) = run(&[
        "schedule",
        "-f",
        &fixture("gpu-pool.yaml"),
        "--fail-unschedulable",
    ]);
    assert_eq!(code, 1);
    let (_, out, _) = run(&["schedule", "-f", &fixture("gpu-pool.yaml")]);
    insta::assert_snapshot!("schedule_gpu_pool", out);
}

#[test]
fn schedule_preempts_lower_priority_pods() {
    let dir = tempfile::tempdir().unwrap();
    let n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let class = |name: &str, value: i64| json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value});
    let mut low = pod("low", json!([]));
    low["spec"]["nodeName"] = json!("n1");
    low["spec"]["priorityClassName"] = json!("low");
    low["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let mut high = pod("high", json!([]));
    high["spec"]["priorityClassName"] = json!("high");
    high["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let f = write_list(
        dir.path(),
        "p.json",
        vec![class("low", 1), class("high", 100), n, low, high],
    );
    let (code, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        v["placements"],
        json!([{"pod": "default/high", "node": "n1"}])
    );
    assert_eq!(
        v["preempted"],
        json!([{"pod": "default/low", "node": "n1", "by": "default/high"}])
    );
    assert_eq!(v["unschedulable"], json!([]));
}

#[test]
fn a_node_without_status_is_a_loud_guess_or_under_strict_nodes_fits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(
        dir.path(),
        "c.json",
        vec![node("bare", json!([])), pod("web", json!([]))],
    );
    let f = f.to_str().unwrap();
    let (code, out, err) = run(&["schedule", "-f", f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["placements"],
        json!([{"pod": "default/web", "node": "bare"}])
    );
    assert!(
        err.contains("taken to allow 110 pods and unlimited cpu, memory and storage, so every placement on them is a guess")
            && err.contains("--strict-nodes")
            && err.ends_with(": bare\n"),
        "{err}"
    );
    // kube-scheduler's answer for a node the API server stores without a status.
    let (code, out, err) = run(&["schedule", "-f", f, "-o", "json", "--strict-nodes"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placements"], json!([]));
    assert_eq!(
        v["unschedulable"][0]["message"],
        "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
    assert!(err.contains("fit no pod, as in kube-scheduler"), "{err}");
    // explain agrees with schedule.
    let (_, v) = json_out(&["explain", "web", "-f", f, "-o", "json", "--strict-nodes"]);
    assert_eq!(
        v["message"],
        "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
}

#[test]
fn simulate_prints_events_at_one_instant_in_the_order_they_happened() {
    // The taint evicts the pod before the second step removes it, both at 10 s: the eviction
    // is printed between the two steps, not after the removal.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("order.yaml");
    std::fs::write(
        &f,
        "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: node1}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {nodeName: node1, containers: [{name: c, image: nginx}]}}\nsteps:\n- {at: 10s, kubectl: taint nodes node1 x=y:NoExecute}\n- {at: 10s, kubectl: taint nodes node1 x=y:NoExecute-}\n",
    )
    .unwrap();
    let (code, out, err) = run(&["simulate", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in {out}"))
    };
    assert!(at("RegisteredNode") < at("x=y:NoExecute\n"), "{out}");
    assert!(at("x=y:NoExecute\n") < at("TaintManagerEviction"), "{out}");
    assert!(at("TaintManagerEviction") < at("x=y:NoExecute-"), "{out}");
}

#[test]
fn schedule_is_reproducible_with_a_seed() {
    let args = [
        "schedule",
        "-f",
        &demo_cluster(),
        "-o",
        "json",
        "--seed",
        "9",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ];
    let (_, a) = json_out(&args);
    let (_, b) = json_out(&args);
    assert_eq!(a, b);
    let placed = |pod: &str| {
        a["placements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pod"] == pod)
            .map(|p| p["node"].as_str().unwrap().to_string())
    };
    assert_eq!(placed("default/group-app").as_deref(), Some("dedicated-1"));
    assert_eq!(placed("default/spot-batch").as_deref(), Some("spot-1"));
    assert_eq!(placed("default/gpu-trainer").as_deref(), Some("gpu-1"));
    assert_eq!(
        placed("default/sla-above-900")
            .as_deref()
            .map(|n| n != "sla-bronze"),
        Some(true),
        "800 is not > 900"
    );
}

// ---------------------------------------------------------------- issue-3 review fixes

fn gpu_node(name: &str, gpus: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
           "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": gpus}}})
}

#[test]
fn limits_only_requests_are_defaulted_as_the_api_server_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut items = vec![gpu_node("gpu-1", "4")];
    for i in 0..6 {
        let mut p = pod(&format!("t{i}"), json!([]));
        p["spec"]["containers"][0]["resources"] = json!({"limits": {"nvidia.com/gpu": "1"}});
        items.push(p);
    }
    let f = write_list(dir.path(), "g.json", items);
    let (_, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(v["placements"].as_array().unwrap().len(), 4, "{v}");
    assert_eq!(
        v["unschedulable"][0]["message"],
        json!(
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
        )
    );
}

#[test]
fn priority_classes_order_the_queue_and_preempt() {
    let dir = tempfile::tempdir().unwrap();
    let pc = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000});
    let n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let mut low = pod("low", json!([]));
    low["spec"]["nodeName"] = json!("n1");
    low["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let mut hi = pod("hi", json!([]));
    hi["spec"]["priorityClassName"] = json!("high");
    hi["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let mut unknown = pod("unknown-class", json!([]));
    unknown["spec"]["priorityClassName"] = json!("gold");
    let f = write_list(dir.path(), "p.json", vec![pc, n, low, hi, unknown]);
    let (code, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "a pod the API server refuses makes the run fail");
    assert_eq!(
        v["preempted"],
        json!([{"pod": "default/low", "node": "n1", "by": "default/hi"}])
    );
    assert_eq!(
        v["rejected"],
        json!([{"pod": "default/unknown-class", "message": "pods \"unknown-class\" is forbidden: no PriorityClass with name gold was found"}])
    );
}

#[test]
fn finished_pods_hold_no_resources() {
    let dir = tempfile::tempdir().unwrap();
    let n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "memory": "8Gi", "pods": "110"}}});
    let mut done = pod("done", json!([]));
    done["spec"]["nodeName"] = json!("n1");
    done["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
    done["status"] = json!({"phase": "Succeeded"});
    let mut new = pod("new", json!([]));
    new["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
    let f = write_list(dir.path(), "p.json", vec![n, done, new]);
    let (_, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(
        v["placements"],
        json!([{"pod": "default/new", "node": "n1"}])
    );
}

#[test]
fn an_object_defined_again_is_read_as_kubectl_apply_updates_it_and_bad_quantities_are_bad_input() {
    // Two files of a repository of alternatives define the same node: `kubectl apply -f DIR`
    // creates it from the first and updates it with the second. A warning, not a refusal.
    let dir = tempfile::tempdir().unwrap();
    let a = write_list(
        dir.path(),
        "a.json",
        vec![node("a", json!([])), pod("p", json!([]))],
    );
    let b = write_list(
        dir.path(),
        "b.json",
        vec![node(
            "a",
            json!([{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        )],
    );
    let (code, out, err) = run(&[
        "schedule",
        "-f",
        a.to_str().unwrap(),
        "-f",
        b.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("Node a is defined again (first at ")
            && err.contains(
                "the later definition is read, as kubectl apply would update the object with it"
            ),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["placements"],
        json!([]),
        "the later node's taint keeps the pod off: {v}"
    );
    assert_eq!(v["unschedulable"].as_array().unwrap().len(), 1, "{v}");
    let mut p = pod("p", json!([]));
    p["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "lots"}});
    let f = write_list(dir.path(), "q.json", vec![p]);
    let (code, _, err) = run(&["schedule", "-f", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("spec.containers[0].resources.requests.cpu: Invalid value: \"lots\": quantities must match the regular expression"), "{err}");
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "huge"},
        "spec": {"replicas": 2000000000, "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}}}});
    let f = write_list(dir.path(), "d.json", vec![deploy]);
    let (code, _, err) = run(&["schedule", "-f", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("spec.replicas"), "{err}");
}

#[test]
fn a_pdb_without_status_is_computed_for_preemption() {
    let dir = tempfile::tempdir().unwrap();
    let mk_node = |n: &str| json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}, "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}});
    let bound = |name: &str, node: &str, prio: i64, labels: Value| {
        let mut p = pod(name, json!([]));
        p["metadata"]["labels"] = labels;
        p["spec"]["nodeName"] = json!(node);
        p["spec"]["priorityClassName"] = json!(format!("p{prio}"));
        p["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
        p
    };
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "g"},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "g"}}}});
    let mut hi = pod("hi", json!([]));
    hi["spec"]["priorityClassName"] = json!("p100");
    hi["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
    let class = |v: i64| json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": format!("p{v}")}, "value": v});
    let f = write_list(
        dir.path(),
        "p.json",
        vec![
            class(0),
            class(5),
            class(100),
            mk_node("n1"),
            mk_node("n2"),
            pdb,
            bound("guarded", "n1", 0, json!({"app": "g"})),
            bound("guarded-2", "n1", 0, json!({"app": "g"})),
            bound("free1", "n2", 5, json!({})),
            bound("free2", "n2", 5, json!({})),
            hi,
        ],
    );
    let (_, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(v["preempted"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(
        v["preempted"][0]["node"],
        json!("n1"),
        "maxUnavailable 1 allows one disruption on n1, whose victims have the lowest priority: {v}"
    );
}

// ---------------------------------------------------------------- simulate and test

fn examples_dir() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .display()
        .to_string()
}

/// Every scenario under examples/ runs in the test suite, through `repel test`.
#[test]
fn every_example_scenario_passes() {
    let (code, out, err) = run(&["test", &examples_dir()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains(" 0 failed"), "{out}");
    let passed: usize = out.lines().filter(|l| l.starts_with("PASS")).count();
    assert!(passed >= 9, "{out}");
    let (code, v) = json_out(&["test", &examples_dir(), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["failed"], json!(0));
    assert_eq!(v["passed"].as_u64(), Some(passed as u64));
}

#[test]
fn simulate_is_deterministic_and_keeps_the_contract() {
    let f = Path::new(&examples_dir())
        .join("node-outage.yaml")
        .display()
        .to_string();
    let (code, a) = json_out(&["simulate", &f, "-o", "json"]);
    let (_, b) = json_out(&["simulate", &f, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(a, b, "the same scenario twice gives the same JSON");
    let eviction = a["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["reason"] == "TaintManagerEviction")
        .unwrap();
    assert_eq!(
        eviction["at"],
        json!(410.0),
        "heartbeats stop at 60 s; unreachable at 60 + 50 s; evicted 300 s later"
    );
    assert_eq!(eviction["object"], json!("Pod/default/web-0"));
    assert_eq!(eviction["type"], json!("Normal"));
    assert_eq!(
        eviction["message"],
        json!("Marking for deletion Pod default/web-0")
    );
    assert_eq!(eviction["node"], json!("node-a"));
    let web = a["final"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pod"] == "default/web-0")
        .unwrap();
    assert_eq!(
        (
            web["node"].as_str(),
            web["phase"].as_str(),
            web["terminating"].as_bool()
        ),
        (Some("node-a"), Some("Running"), Some(true)),
        "the StatefulSet's pod stays Terminating on the unreachable node"
    );
}

#[test]
fn a_failing_expectation_fails_the_run_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.yaml");
    std::fs::write(&p, "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: node1}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {nodeName: node1, containers: [{name: c}]}}\nsteps:\n- {at: 10s, kubectl: taint nodes node1 k=v:NoExecute}\nexpect:\n- {at: 20s, pod: p, phase: Running}\n").unwrap();
    let (code, out, _) = run(&["test", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("FAIL"), "{out}");
    assert!(
        out.contains("expect[0]: at 20s: pod default/p Running"),
        "{out}"
    );
    assert!(out.contains("but: Gone"), "{out}");
    assert!(
        out.contains("TaintManagerEviction  Marking for deletion Pod default/p"),
        "{out}"
    );
}

#[test]
fn scenario_errors_name_the_step_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.yaml");
    std::fs::write(&p, "kind: Scenario\nsteps:\n- {at: 10x, kubectl: cordon n}\nexpect:\n- {pod: p, phase: Runing}\n").unwrap();
    let (code, _, err) = run(&["simulate", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("steps[0].at: time: invalid duration \"10x\""),
        "{err}"
    );
    assert!(err.contains("expect[0].phase"), "{err}");
}

// ---------------------------------------------------------------- generate and bench

#[test]
fn generate_is_deterministic_and_schedulable() {
    let (code, a, _) = run(&["generate", "--nodes", "30", "--pods", "300", "--seed", "4"]);
    assert_eq!(code, 0);
    let (_, b, _) = run(&["generate", "--nodes", "30", "--pods", "300", "--seed", "4"]);
    assert_eq!(a, b, "the same seed gives the same manifests");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen");
    let (code, _, err) = run(&[
        "generate",
        "--nodes",
        "30",
        "--pods",
        "300",
        "--seed",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, v) = json_out(&["schedule", "-f", out.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    let placed = v["placements"].as_array().unwrap().len();
    let pending = v["unschedulable"].as_array().unwrap().len();
    assert_eq!(
        placed + pending,
        300,
        "every generated pod is scheduled or explained"
    );
    assert!(placed >= 270, "{placed} placed");
}

#[test]
fn bench_reports_the_contracts_fields() {
    let (code, v) = json_out(&[
        "bench", "--nodes", "20", "--pods", "100", "-q", "-o", "json",
    ]);
    assert_eq!(code, 0);
    for field in [
        "nodes",
        "pods",
        "scheduled",
        "unschedulable",
        "schedule_seconds",
        "pods_per_second",
        "eviction_plan_seconds",
        "explain_seconds",
        "peak_rss_bytes",
    ] {
        assert!(v.get(field).is_some(), "{field} missing: {v}");
    }
    assert_eq!(v["nodes"], json!(20));
    assert_eq!(v["pods"], json!(100));
    // Which path each pod took: here (nothing preempted) one cycle per pod, on one path.
    let paths = &v["paths"];
    let n = |x: &serde_json::Value| x.as_u64().unwrap_or(u64::MAX);
    assert_eq!(
        n(&paths["compiled"]) + n(&paths["compiled_unschedulable"]) + n(&paths["reference"]),
        n(&v["scheduled"]) + n(&v["unschedulable"]),
        "{v}"
    );
    assert_eq!(paths["compiled"], v["compiled_pods"], "{v}");
    assert!(n(&paths["repeated"]) <= n(&paths["compiled"]), "{v}");
    assert!(
        n(&paths["compiled_unschedulable"]) <= n(&v["unschedulable"]),
        "{v}"
    );
    assert!(
        n(&paths["node_classes"]) >= 1 && n(&paths["pod_classes"]) >= 1,
        "{v}"
    );
}

/// `repel schedule` places every pod where the reference engine does, on the docs' clusters
/// and on generated ones (every node scored and the adaptive percentage, several seeds).
#[test]
fn schedule_compiled_engine_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("gen");
    let (code, _, err) = run(&[
        "generate",
        "--nodes",
        "150",
        "--pods",
        "2500",
        "--seed",
        "4",
        "--taints-per-node",
        "2",
        "-o",
        generated.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let inputs = [
        vec!["-f".to_string(), fixture("docs.yaml")],
        vec!["-f".to_string(), fixture("gpu-pool.yaml")],
        vec!["-f".to_string(), demo_cluster()],
        vec![
            "-R".to_string(),
            "-f".to_string(),
            generated.display().to_string(),
        ],
    ];
    for input in &inputs {
        for extra in [
            vec!["--seed", "1", "--percentage-of-nodes-to-score", "100"],
            vec!["--seed", "2"],
        ] {
            let mut args: Vec<&str> = vec!["schedule", "-o", "json"];
            args.extend(input.iter().map(String::as_str));
            args.extend(extra.iter().copied());
            let (_, compiled) = json_out(&args);
            args.push("--reference");
            let (_, reference) = json_out(&args);
            assert!(
                compiled["placements"]
                    .as_array()
                    .is_some_and(|p| !p.is_empty()),
                "{input:?}: {compiled}"
            );
            assert_eq!(compiled, reference, "{input:?} {extra:?}");
        }
    }
}

/// A manifest file of a large cluster (one document per node, well over serde-saphyr's
/// default budget of 1,024 documents) is read whole.
#[test]
fn a_file_of_thousands_of_documents_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nodes.yaml");
    let mut docs: Vec<String> = (0..3000)
        .map(|i| format!("apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n"))
        .collect();
    docs.push(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: last\n  labels: {last: 'yes'}\n".into(),
    );
    docs.push("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelector: {last: 'yes'}\n  containers: [{name: c, image: i}]\n".into());
    std::fs::write(&path, docs.join("---\n")).unwrap();
    let (code, v) = json_out(&["check", "-f", path.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["valid"], true);
    let (code, v) = json_out(&["schedule", "-f", path.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["placements"][0]["node"], "last", "{v}");
}

/// A batch command starts itself again in place with mimalloc's `MIMALLOC_PURGE_DELAY=10000`,
/// `MIMALLOC_ALLOW_THP=0` and `MIMALLOC_DESTROY_ON_EXIT=2` (main.rs, `keep_freed_memory`): its
/// arguments, standard input, output and exit code are those of a run where the variables are
/// already set and nothing is started again, or where only one is set and the others are added.
#[test]
fn starting_again_to_keep_freed_memory_changes_nothing_a_user_sees() {
    let text = std::fs::read_to_string(demo_cluster()).unwrap();
    let outcome = |set: &[(&str, &str)], args: &[&str]| {
        let mut c = repel();
        c.env_remove("MIMALLOC_PURGE_DELAY");
        c.env_remove("MIMALLOC_ALLOW_THP");
        c.env_remove("MIMALLOC_DESTROY_ON_EXIT");
        for (name, v) in set {
            c.env(name, v);
        }
        let out = c.args(args).write_stdin(text.clone()).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for args in [
        &["schedule", "-f", "-", "-o", "json"][..],
        &["check", "-f", "-"][..],
        &["explain", "pod/no-such-pod", "-f", "-"][..],
    ] {
        let again = outcome(&[], args);
        let kept = outcome(
            &[
                ("MIMALLOC_PURGE_DELAY", "1000"),
                ("MIMALLOC_ALLOW_THP", "0"),
                ("MIMALLOC_DESTROY_ON_EXIT", "2"),
            ],
            args,
        );
        assert_eq!(again, kept, "repel {args:?}");
        let one = outcome(&[("MIMALLOC_ALLOW_THP", "1")], args);
        assert_eq!(again, one, "repel {args:?}");
        assert!(
            !again.1.is_empty() || !again.2.is_empty(),
            "repel {args:?} said something"
        );
    }
}

#[test]
fn every_unusable_file_of_a_directory_is_named_and_exit_is_2() {
    let dir = tempfile::tempdir().unwrap();
    write_list(dir.path(), "a-good.json", vec![node("n1", json!([]))]);
    std::fs::write(
        dir.path().join("b-broken.yaml"),
        "kind: Pod\nmetadata: {name: [\n",
    )
    .unwrap();
    let mut p = pod("q", json!([]));
    p["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "lots"}});
    write_list(dir.path(), "c-bad-quantity.json", vec![p]);
    let (code, _, err) = run(&["schedule", "-f", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("b-broken.yaml"), "{err}");
    assert!(
        err.contains("c-bad-quantity.json") && err.contains("\"lots\""),
        "{err}"
    );
    assert!(
        err.contains("error: 2 of the inputs could not be used"),
        "{err}"
    );
}

#[test]
fn test_reports_every_scenario_even_after_an_unreadable_one() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("a-bad.yaml");
    std::fs::write(&bad, "kind: Scenario\nstpes: []\n").unwrap();
    let good = dir.path().join("b-good.yaml");
    std::fs::write(
        &good,
        "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\nuntil: 1m\nexpect: []\n",
    )
    .unwrap();
    let (code, out, err) = run(&["test", bad.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("ERROR ") && out.contains("a-bad.yaml"),
        "{out}"
    );
    assert!(err.starts_with("error: ") && err.contains("stpes"), "{err}");
    assert!(
        out.contains("PASS  ") && out.contains("b-good.yaml"),
        "{out}"
    );
    assert!(
        out.contains("1 passed, 0 failed, 1 could not be read"),
        "{out}"
    );
    let (code, v) = json_out(&[
        "test",
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 2);
    assert_eq!(v["unusable"], json!(1));
    assert_eq!(v["passed"], json!(1));
    assert!(
        v["scenarios"][0]["error"]
            .as_str()
            .unwrap()
            .contains("stpes"),
        "{v}"
    );
}

#[test]
fn a_retried_drain_prints_as_one_kubectl_drain_over_time() {
    // kubectl's evictPods: each attempt prints `evicting pod`, then its result; a 429 is
    // retried 5 s later with `evicting pod` again; the node is cordoned (and said so) once.
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/drain-with-pdb.yaml")
        .display()
        .to_string();
    let (code, v) = json_out(&["simulate", &example, "-o", "json"]);
    assert_eq!(code, 0);
    let drain = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"].as_str().unwrap().starts_with("kubectl drain"))
        .unwrap();
    let out: Vec<&str> = drain["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let (a, b) = ("web-857968576-qtd9x", "web-857968576-vms75");
    assert_eq!(
        out,
        [
            "node/node-a cordoned".to_string(),
            format!("evicting pod default/{a}"),
            format!("evicting pod default/{b}"),
            format!(
                "error when evicting pods/\"{b}\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."
            ),
            format!("pod/{a} evicted"),
            format!("evicting pod default/{b}"),
            format!("pod/{b} evicted"),
            "node/node-a drained".to_string(),
        ]
    );
}
