//! Strategic merge patches that are wrong: upstream's texts byte for byte
//! (`mergepatch.ErrBadPatchType`, `ErrNoMergeKey`, `ErrBadArgType`, the sentinel errors) and
//! the status each is answered with. Ported from upstream `strategicpatch/patch_test.go` ("missing
//! merge key should error out", "should check if order in $setElementOrder and patch list
//! match", "bad patch") and from the paths of `mergeMap`, `mergeSlice` and
//! `mergePatchIntoOriginal` that raise each error, on the kinds `repel serve` serves.

use serde_json::{Value, json};

use super::*;

fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node1", "labels": {"a": "1"}},
        "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}
    })
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "finalizers": ["a"]},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}
    })
}

#[test]
fn strategic_merge_patch_errors_are_4xx_with_upstreams_text() {
    let cases: Vec<(&str, &str, Value, Value, u16, &str)> = vec![
        (
            "an unknown $patch in a map",
            "Node",
            node(),
            json!({"metadata": {"labels": {"$patch": "bogus"}}}),
            400,
            "unknown patch type: bogus in map: map[$patch:bogus]",
        ),
        (
            "an unknown $patch at the top, printed with the map's other keys",
            "Node",
            node(),
            json!({"$patch": "bogus", "spec": {"unschedulable": true}}),
            400,
            "unknown patch type: bogus in map: map[$patch:bogus spec:map[unschedulable:true]]",
        ),
        (
            "a $patch that is a number is printed with %s as Go does",
            "Node",
            node(),
            json!({"spec": {"$patch": 1}}),
            400,
            "unknown patch type: %!s(int64=1) in map: map[$patch:1]",
        ),
        (
            "a $patch that is null",
            "Node",
            node(),
            json!({"spec": {"$patch": null}}),
            400,
            "unknown patch type: %!s(<nil>) in map: map[$patch:<nil>]",
        ),
        (
            "a $patch that is a map",
            "Node",
            node(),
            json!({"spec": {"$patch": {"a": true}}}),
            400,
            "unknown patch type: map[a:%!s(bool=true)] in map: map[$patch:map[a:true]]",
        ),
        (
            "an unknown $patch in an element of a merging list",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "c", "$patch": "bogus"}]}}),
            400,
            "unknown patch type: bogus in map: map[$patch:bogus name:c]",
        ),
        (
            "missing merge key should error out",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"image": "busybox"}]}}),
            400,
            "map: map[image:busybox] does not contain declared merge key: name",
        ),
        (
            "a missing merge key in a node condition",
            "Node",
            node(),
            json!({"status": {"conditions": [{"status": "False"}]}}),
            400,
            "map: map[status:False] does not contain declared merge key: type",
        ),
        (
            "a $patch: delete element without its merge key",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"$patch": "delete"}]}}),
            400,
            "map: map[$patch:delete] does not contain declared merge key: name",
        ),
        (
            "$patch: merge in a list",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "c", "$patch": "merge"}]}}),
            400,
            "merging lists cannot yet be specified in the patch",
        ),
        (
            "a $setElementOrder that is a string",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": "c"}}),
            400,
            "expected a []interface {}, but received a string",
        ),
        (
            "a $setElementOrder that is a map",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": {"name": "c"}}}),
            400,
            "expected a []interface {}, but received a map[string]interface {}",
        ),
        (
            "a $setElementOrder that is a number",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": 3}}),
            400,
            "expected a []interface {}, but received a int64",
        ),
        (
            "a $setElementOrder that is a float",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": 0.5}}),
            400,
            "expected a []interface {}, but received a float64",
        ),
        (
            "a $setElementOrder that is null",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": null}}),
            400,
            "expected a []interface {}, but received a %!s(<nil>)",
        ),
        (
            "a $setElementOrder that is a bool",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": false}}),
            400,
            "expected a []interface {}, but received a bool",
        ),
        (
            "a $setElementOrder whose list in the patch is not a list",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": [{"name": "c"}], "containers": {"name": "c"}}}),
            400,
            "expected a []interface {}, but received a map[string]interface {}",
        ),
        (
            "a $setElementOrder element without the merge key",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": [{"image": "x"}], "containers": [{"name": "c", "image": "y"}]}}),
            400,
            "map: map[image:x] does not contain declared merge key: name",
        ),
        (
            "a $setElementOrder element that is not a map",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": ["c"], "containers": [{"name": "c"}]}}),
            400,
            "expected a map[string]interface {}, but received a string",
        ),
        (
            "should check if order in $setElementOrder and patch list match",
            "Pod",
            json!({"spec": {"containers": [{"name": "1"}, {"name": "3"}, {"name": "2"}]}}),
            json!({"spec": {"$setElementOrder/containers": [{"name": "1"}, {"name": "2"}, {"name": "3"}],
                            "containers": [{"name": "3", "image": "c"}, {"name": "1", "image": "a"}]}}),
            400,
            "The order in patch list:\n[map[image:c name:3] map[image:a name:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
        ),
        (
            "a $setElementOrder key without a list name",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder": []}}),
            400,
            "invalid patch format of setElementOrder list",
        ),
        (
            "a $deleteFromPrimitiveList key without a list name",
            "Pod",
            pod(),
            json!({"metadata": {"$deleteFromPrimitiveList": ["a"]}}),
            400,
            "invalid patch format of primitive list",
        ),
        (
            "a $retainKeys that is not a list",
            "Pod",
            pod(),
            json!({"spec": {"$retainKeys": "containers"}}),
            400,
            "invalid patch format of retainKeys",
        ),
        (
            "elements of another type than the list's",
            "Pod",
            pod(),
            json!({"metadata": {"finalizers": [1]}}),
            400,
            "list element types are not identical: [[a] [1]]",
        ),
        (
            "a merging list given scalars",
            "Pod",
            pod(),
            json!({"spec": {"containers": ["c"]}}),
            400,
            "list element types are not identical: [[map[image:nginx name:c]] [c]]",
        ),
        (
            "lists of lists are a generic 422",
            "Pod",
            json!({"metadata": {"name": "p", "finalizers": []}}),
            json!({"metadata": {"finalizers": [["a"]]}}),
            422,
            "the server rejected our request due to an error in our request",
        ),
    ];
    for (name, kind, original, patch, code, message) in cases {
        let body = patch.to_string();
        let err = match apply(kind, PatchType::Strategic, &original, body.as_bytes()) {
            Ok(v) => panic!("{name}: expected an error, got {v}"),
            Err(e) => e,
        };
        let (c, status) = err.status();
        assert_eq!(c, code, "{name}: {err}");
        assert_eq!(status["code"], json!(code), "{name}");
        let want_reason = if code == 400 { "BadRequest" } else { "Invalid" };
        assert_eq!(status["reason"], json!(want_reason), "{name}");
        assert_eq!(status["message"], json!(message), "{name}");
        if code == 400 {
            assert_eq!(err.to_string(), message, "{name}: the error's text");
        }
    }
}

#[test]
fn bad_patch_documents_are_400s() {
    let cases: [(&str, &[u8], Option<&str>); 4] = [
        // The decoder's own message is serde_json's, not Go's `encoding/json` text.
        ("bad patch: not JSON", b"<THIS IS NOT JSON>", None),
        (
            "a list is not a strategic merge patch",
            b"[]",
            Some("json: cannot unmarshal array into Go value of type map[string]interface {}"),
        ),
        (
            "a string is not a strategic merge patch",
            b"\"x\"",
            Some("json: cannot unmarshal string into Go value of type map[string]interface {}"),
        ),
        (
            "a number is not a strategic merge patch",
            b"1",
            Some("json: cannot unmarshal number into Go value of type map[string]interface {}"),
        ),
    ];
    for (name, body, message) in cases {
        let err = match apply("Node", PatchType::Strategic, &node(), body) {
            Ok(v) => panic!("{name}: expected an error, got {v}"),
            Err(e) => e,
        };
        let (code, status) = err.status();
        assert_eq!(code, 400, "{name}");
        assert_eq!(status["reason"], json!("BadRequest"), "{name}");
        if let Some(message) = message {
            assert_eq!(status["message"], json!(message), "{name}");
        }
    }
}
