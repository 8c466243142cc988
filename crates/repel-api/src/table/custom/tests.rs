//! Unit tests of `crate::table::custom`.

use super::*;

fn col(name: &str, ty: &str, path: &str) -> PrinterColumn {
    PrinterColumn {
        name: name.into(),
        column_type: ty.into(),
        format: String::new(),
        description: String::new(),
        priority: 0,
        json_path: path.into(),
    }
}

#[test]
fn an_escaped_dot_is_part_of_the_field_name() {
    let obj = serde_json::json!({"metadata": {"labels": {"node.kubernetes.io/instance-type": "m5.large"}}});
    assert_eq!(
        find(
            &obj,
            ".metadata.labels.node\\.kubernetes\\.io/instance-type"
        ),
        vec![&serde_json::json!("m5.large")]
    );
}

#[test]
fn json_paths_find_fields_indices_and_filtered_items() {
    let obj = json!({"spec": {"cidr": "10.0.0.0/16", "n": 3, "list": ["a", "b"],
        "m": {"b": 1, "a": {"y": 2, "x": 1}}},
        "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}});
    let cases: &[(&str, &str, Value)] = &[
        (
            "a dotted path finds a field",
            ".spec.cidr",
            json!(["10.0.0.0/16"]),
        ),
        ("an index picks one item", ".spec.list[1]", json!(["b"])),
        (
            "a wildcard takes every item",
            ".spec.list[*]",
            json!(["a", "b"]),
        ),
        (
            "a quoted key is a field",
            ".spec['cidr']",
            json!(["10.0.0.0/16"]),
        ),
        (
            "a filter keeps the matching items",
            ".status.conditions[?(@.type==\"Ready\")].status",
            json!(["True"]),
        ),
        ("braces are allowed", "{.spec.n}", json!([3])),
        ("a missing field finds nothing", ".spec.nope", json!([])),
        ("garbage finds nothing", "spec..x", json!([])),
    ];
    for (name, path, want) in cases {
        let got: Vec<Value> = find(&obj, path).into_iter().cloned().collect();
        assert_eq!(json!(got), *want, "{name}");
    }
}

#[test]
fn cells_are_printed_as_the_tableconvertor_prints_them() {
    let now: Timestamp = "2026-01-01T01:00:00Z".parse().unwrap();
    let obj = json!({"metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"n": 3, "f": 2.5, "ok": true, "s": "x", "m": {"b": 1, "a": 2}, "bad": "yesterday"}});
    let cols = [
        col("S", "string", ".spec.s"),
        col("N as string", "string", ".spec.n"),
        col("Map", "string", ".spec.m"),
        col("F", "integer", ".spec.f"),
        col("Num", "number", ".spec.n"),
        col("Ok", "boolean", ".spec.ok"),
        col("Wrong type", "boolean", ".spec.s"),
        col("Missing", "string", ".spec.none"),
        col("Age", "date", ".metadata.creationTimestamp"),
        col("Bad date", "date", ".spec.bad"),
    ];
    assert_eq!(
        json!(custom_cells(&cols, &obj, now)),
        json!([
            "p",
            "x",
            "3",
            "{\"a\":2,\"b\":1}",
            2,
            3.0,
            true,
            null,
            null,
            "60m",
            "<invalid>"
        ])
    );
    assert_eq!(json!(custom_cells(&[], &obj, now)), json!(["p", "60m"]));
    let defs = custom_columns(&[]);
    assert_eq!(defs[0]["name"], "Name");
    assert_eq!(defs[1]["name"], "Age");
    assert_eq!(defs[1]["type"], "date");
}
