//! Patch errors answered with upstream's Status, content types, and merge and JSON patches.

use super::*;

#[test]
fn patch_errors_answer_upstreams_status() {
    let cases = [
        (
            "a non-object patch is a bad JSON doc",
            PatchError::BadJsonDoc,
            400,
            "BadRequest",
            "invalid JSON document",
        ),
        (
            "bad retainKeys is a 400",
            PatchError::BadFormatRetainKeys,
            400,
            "BadRequest",
            "invalid patch format of retainKeys",
        ),
        (
            "lists of lists is a generic 422",
            PatchError::NoListOfLists,
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        ),
        (
            "a missing merge key is a 400 with upstream's text (upstream: a 500)",
            PatchError::NoMergeKey(
                "map: map[value:b] does not contain declared merge key: name".into(),
            ),
            400,
            "BadRequest",
            "map: map[value:b] does not contain declared merge key: name",
        ),
        (
            "a failed JSON patch op is a 422",
            PatchError::JsonPatchApply("x".into()),
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        ),
    ];
    for (name, err, code, reason, message) in cases {
        let (c, v) = err.status();
        assert_eq!(c, code, "{name}");
        assert_eq!(v["code"], json!(code), "{name}");
        assert_eq!(
            v.get("reason").and_then(Value::as_str).unwrap_or(""),
            reason,
            "{name}"
        );
        assert_eq!(v["message"], message, "{name}");
    }
    assert_eq!(
        strategic_merge("Node", &json!([]), &json!({})),
        Err(PatchError::BadJsonDoc),
        "an array is not a JSON document to patch"
    );
}

#[test]
fn content_types() {
    let cases = [
        (
            "strategic",
            "application/strategic-merge-patch+json",
            Some(PatchType::Strategic),
        ),
        (
            "parameters are dropped",
            "application/merge-patch+json; charset=utf-8",
            Some(PatchType::Merge),
        ),
        (
            "json patch",
            "application/json-patch+json",
            Some(PatchType::Json),
        ),
        (
            "apply",
            "application/apply-patch+yaml",
            Some(PatchType::Apply),
        ),
        (
            "case-insensitive",
            "Application/JSON-Patch+JSON",
            Some(PatchType::Json),
        ),
        ("plain json is not a patch type", "application/json", None),
        ("empty", "", None),
    ];
    for (name, ct, want) in cases {
        assert_eq!(PatchType::from_content_type(ct), want, "{name}");
        if let Some(t) = want {
            assert_eq!(
                PatchType::from_content_type(t.content_type()),
                Some(t),
                "{name}: round trip"
            );
        }
    }
}

#[test]
fn merge_and_json_patch() {
    let original =
        json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"taints": [{"key": "k"}]}});
    let merged = merge_patch(
        &original,
        &json!({"metadata": {"labels": {"a": null, "c": "3"}}, "spec": {"taints": []}}),
    );
    assert_eq!(
        merged,
        json!({"metadata": {"labels": {"b": "2", "c": "3"}}, "spec": {"taints": []}}),
        "RFC 7386: null deletes, lists replace"
    );

    let patched = json_patch(
        &original,
        &json!([
            {"op": "replace", "path": "/metadata/labels/a", "value": "9"},
            {"op": "add", "path": "/spec/taints/-", "value": {"key": "k2"}}
        ]),
    )
    .expect("json patch");
    assert_eq!(
        patched,
        json!({"metadata": {"labels": {"a": "9", "b": "2"}}, "spec": {"taints": [{"key": "k"}, {"key": "k2"}]}})
    );

    let failed = json_patch(
        &original,
        &json!([{"op": "test", "path": "/metadata/labels/a", "value": "2"}]),
    );
    assert!(
        matches!(failed, Err(PatchError::JsonPatchApply(_))),
        "a failed test op: {failed:?}"
    );
    let bad = json_patch(&original, &json!({"op": "add"}));
    assert!(
        matches!(bad, Err(PatchError::JsonPatchDecode(_))),
        "not an array: {bad:?}"
    );

    let via_body = apply(
        "Node",
        PatchType::Strategic,
        &node(),
        br#"{"spec":{"unschedulable":true}}"#,
    )
    .expect("apply");
    assert_eq!(via_body["spec"]["unschedulable"], json!(true));
    assert!(matches!(
        apply("Node", PatchType::Strategic, &node(), b"{nope"),
        Err(PatchError::Decode(_))
    ));
    assert_eq!(
        apply("Node", PatchType::Apply, &node(), b"{}"),
        Err(PatchError::Unsupported)
    );
    assert_eq!(PatchError::Unsupported.status().0, 415);
}
