//! Unknown and duplicate fields, read as the API server reads them under strict field
//! validation: `repel check` refuses them with upstream's text (exit 1), every other
//! command warns once per object and goes on, and `--validate=strict|warn|ignore` chooses.
//! Upstream's strict-decoding cases: an unknown field at the top level, nested, in a list item,
//! a duplicate field; the capital-N spread policy of upstream's scheduler benchmark templates;
//! a scenario's own typo.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::run;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// One untainted node and four tainted ones, with allocatable.
fn nodes() -> Value {
    let items: Vec<Value> = (0..5)
        .map(|i| {
            let mut n = json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": format!("n{i}"), "labels": {"kubernetes.io/hostname": format!("n{i}")}},
                "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}});
            if i > 0 {
                n["spec"] = json!({"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]});
            }
            n
        })
        .collect();
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// A Deployment of 8 spread one per node (DoNotSchedule) over the nodes whose taints it
/// tolerates: `policy` is the field's spelling.
fn spread_deployment(policy: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 8, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}],
                    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                        "whenUnsatisfiable": "DoNotSchedule", policy: "Honor",
                        "labelSelector": {"matchLabels": {"app": "web"}}}]}}}})
}

fn placed(out: &str) -> (usize, usize) {
    let v: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    (
        v["placements"].as_array().unwrap().len(),
        v["unschedulable"].as_array().unwrap().len(),
    )
}

#[test]
fn upstreams_strict_decoding_cases_in_check() {
    let dir = tempfile::tempdir().unwrap();
    // (case, file name, text, the strict decoding errors upstream lists, in document order)
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            "an unknown field at the top level",
            "top.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspex: {}\nspec:\n  containers: [{name: c, image: nginx}]\n",
            r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spex""#,
        ),
        (
            "an unknown nested field",
            "nested.yaml",
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-a\n  labelz: {a: b}\nspec: {}\n",
            r#"Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "metadata.labelz""#,
        ),
        (
            "an unknown field in a list item",
            "item.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: nginx}]\n  tolerations:\n  - {key: k, operator: Exists}\n  - {key: k, operator: Exists, tolerationSecond: 5}\n",
            r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.tolerations[1].tolerationSecond""#,
        ),
        (
            "a duplicate field",
            "dup.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  name: q\nspec:\n  containers: [{name: c, image: nginx}]\n",
            r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name""#,
        ),
        (
            "duplicate and unknown fields together, in document order, nothing inside an unknown field",
            "both.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  name: d\n  unknownMeta: {x: 1, x: 2}\nspec:\n  selector: {matchLabels: {a: b}}\n  unknown1: 1\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: nginx}]}\n",
            r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: duplicate field "metadata.name", unknown field "metadata.unknownMeta", unknown field "spec.unknown1""#,
        ),
        (
            "JSON input: a duplicate key and an unknown one",
            "dup.json",
            r#"{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "name": "b"}, "spec": {"finalizerz": []}}"#,
            r#"Namespace in version "v1" cannot be handled as a Namespace: strict decoding error: duplicate field "metadata.name", unknown field "spec.finalizerz""#,
        ),
    ];
    for (case, name, text, want) in cases {
        let f = write(dir.path(), name, text);
        let (code, out, err) = run(&["check", "-f", f.to_str().unwrap()]);
        assert_eq!(code, 1, "{case}: {out}{err}");
        let line = format!(
            "Error from server (BadRequest): error when creating \"{}\": {want}",
            f.display()
        );
        assert!(
            out.lines().any(|l| l == line),
            "{case}:\n{out}\nwant: {line}"
        );
        assert!(
            out.contains("1 object(s) checked: 1 invalid"),
            "{case}: {out}"
        );
        // Every other command warns once and goes on; --validate=strict refuses (exit 2) with
        // the same text; --validate=ignore says nothing.
        let (code, _, err) = run(&["admit", "-f", f.to_str().unwrap()]);
        assert!(code == 0 || code == 1, "{case}: admit {code}: {err}");
        assert_eq!(err.matches("warning: ").count(), 1, "{case}: {err}");
        let (code, _, err) = run(&["admit", "-f", f.to_str().unwrap(), "--validate=strict"]);
        assert_eq!(code, 2, "{case}: {err}");
        assert!(err.lines().any(|l| l == line), "{case}: {err}");
        let (_, _, err) = run(&["admit", "-f", f.to_str().unwrap(), "--validate=ignore"]);
        assert!(!err.contains("field"), "{case}: {err}");
        // check with --validate=false (kubectl's spelling of ignore) passes the object.
        let (code, out, _) = run(&["check", "-f", f.to_str().unwrap(), "--validate=false"]);
        assert_eq!(code, 0, "{case}: {out}");
    }
}

#[test]
fn check_json_lists_each_field_beside_validation_errors() {
    let dir = tempfile::tempdir().unwrap();
    let pod = json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ok"},
         "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad", "namespace": "team"},
         "spec": {"containers": [{"name": "c", "image": "nginx", "imagePullPolicyy": "Always"}],
                  "tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}}]});
    let f = write(dir.path(), "pods.json", &pod.to_string());
    let (code, out, err) = run(&["check", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["valid"], false);
    let rows: Vec<(String, String, String)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["object"].as_str().unwrap().to_string(),
                r["field"].as_str().unwrap().to_string(),
                r["type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        rows.contains(&(
            "Pod/team/bad".into(),
            "spec.tolerations[0].operator".into(),
            "Invalid value".into()
        )),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(
            "Pod/team/bad".into(),
            "spec.containers[0].imagePullPolicyy".into(),
            "Unknown field".into()
        )),
        "{rows:?}"
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    let unknown = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Unknown field")
        .unwrap();
    assert_eq!(
        unknown["message"],
        r#"unknown field "spec.containers[0].imagePullPolicyy""#
    );
    assert_eq!(
        unknown["source"],
        format!("{}: document 1, items[1]", f.display())
    );
}

#[test]
fn duplicates_in_a_list_item_are_named_from_the_item() {
    let dir = tempfile::tempdir().unwrap();
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    labels: {x: '1', x: '2'}\n";
    let f = write(dir.path(), "list.yaml", text);
    let (code, out, _) = run(&["check", "-f", f.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(r#"Node in version "v1" cannot be handled as a Node: strict decoding error: duplicate field "metadata.labels.x""#),
        "{out}"
    );
    // The last value is kept, as upstream's decoder keeps it: a pod selecting x=2 goes to b.
    let pod = write(
        dir.path(),
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {x: '2'}\n  containers: [{name: c, image: nginx}]\n",
    );
    let (code, out, err) = run(&[
        "schedule",
        "-f",
        f.to_str().unwrap(),
        "-f",
        pod.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(r#"duplicate field "metadata.labels.x""#),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placements"][0]["node"], "b", "{out}");
}

#[test]
fn a_capital_n_spread_policy_is_refused_by_check_and_dropped_with_a_warning_elsewhere() {
    // Upstream's scheduler benchmark templates spell nodeTaintsPolicy `NodeTaintsPolicy`: a
    // real cluster refuses the object; a repel that dropped the field silently would place
    // 1 pod where the author meant 8 (the tainted nodes count as empty domains).
    let dir = tempfile::tempdir().unwrap();
    let nodes = write(dir.path(), "nodes.json", &nodes().to_string());
    let right = write(
        dir.path(),
        "right.json",
        &spread_deployment("nodeTaintsPolicy").to_string(),
    );
    let capital = write(
        dir.path(),
        "capital.json",
        &spread_deployment("NodeTaintsPolicy").to_string(),
    );
    let (n, r, c) = (
        nodes.to_str().unwrap(),
        right.to_str().unwrap(),
        capital.to_str().unwrap(),
    );
    let (code, out, err) = run(&["schedule", "-f", n, "-f", r, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(placed(&out), (8, 0));
    assert!(!err.contains("unknown field"), "{err}");

    let (code, out, err) = run(&["check", "-f", n, "-f", c]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.topologySpreadConstraints[0].NodeTaintsPolicy""#),
        "{out}"
    );
    let (code, out, err) = run(&["schedule", "-f", n, "-f", c, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(placed(&out), (1, 7));
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("warning: ") && l.contains("unknown field"))
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.contains(r#"(Deployment web): unknown field "spec.template.spec.topologySpreadConstraints[0].NodeTaintsPolicy""#),
        "{err}"
    );
    let (code, _, err) = run(&["schedule", "-f", n, "-f", c, "--validate", "strict"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_scenario_typo_is_an_error_and_its_objects_are_read_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let typo = write(
        dir.path(),
        "typo.yaml",
        "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\nstpes: []\nuntill: 1m\n",
    );
    let (code, _, err) = run(&["simulate", typo.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"stpes: unknown field (did you mean "steps"?)"#),
        "{err}"
    );
    assert!(
        err.contains(r#"untill: unknown field (did you mean "until"?)"#),
        "{err}"
    );

    let objects = write(
        dir.path(),
        "objects.yaml",
        "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, spec: {taintz: []}}\nuntil: 1m\n",
    );
    let o = objects.to_str().unwrap();
    let (code, _, err) = run(&["simulate", o]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(r#"(Node n1): unknown field "spec.taintz""#),
        "{err}"
    );
    let (code, _, err) = run(&["simulate", o, "--validate=strict"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "spec.taintz""#),
        "{err}"
    );
}

#[test]
fn taint_warns_about_its_nodes_fields_and_refuses_them_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-a\n  name: node-a\nspec:\n  taintz: []\n";
    let f = write(dir.path(), "nodes.yaml", text);
    let p = f.to_str().unwrap();
    let (code, out, err) = run(&["taint", "nodes", "node-a", "k=v:NoSchedule", "-f", p]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("node/node-a tainted"), "{out}");
    assert!(
        err.contains(
            r#"(Node node-a): duplicate field "metadata.name", unknown field "spec.taintz""#
        ),
        "{err}"
    );
    // The rewritten file keeps the unknown field (the repeated key is written once).
    let before = std::fs::read_to_string(&f).unwrap();
    let (code, _, err) = run(&[
        "taint",
        "nodes",
        "node-a",
        "x=y:NoSchedule",
        "-f",
        p,
        "--validate=strict",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "spec.taintz""#),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn serve_refuses_to_start_on_refused_fields_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: nginx}]\n  tolerationz: []\n",
    );
    let (code, _, err) = run(&[
        "serve",
        "-f",
        f.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--validate=strict",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.tolerationz""#),
        "{err}"
    );
}
