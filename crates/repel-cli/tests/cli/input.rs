//! Reading input and `repel check`: upstream's field errors, kubectl's messages, bad input named by file, document and field.

use super::*;

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
