//! Strategic merge patch cases ported from upstream `strategicpatch/patch_test.go` (on its
//! `MergeItem` test struct), then the patches kubectl sends (kubectl-wire.md) on real kinds,
//! then errors with upstream's texts and HTTP answers.

use serde_json::{Value, json};

use super::schema::Ty;
use super::*;

fn smp_test_item(original: Value, patch: Value) -> Result<Value, PatchError> {
    let (Value::Object(o), Value::Object(p)) = (original, patch) else {
        return Err(PatchError::BadJsonDoc);
    };
    smp::merge_map(o, p, Ty::MergeItem).map(Value::Object)
}

#[test]
fn upstream_merge_item_cases() {
    let cases = [
        (
            "unique scalars when merging lists",
            json!({"mergingIntList": [1, 2]}),
            json!({"mergingIntList": [2, 3]}),
            json!({"mergingIntList": [1, 2, 3]}),
        ),
        (
            "delete map from nested map",
            json!({"simpleMap": {"key1": 1, "key2": 1}}),
            json!({"simpleMap": {"$patch": "delete"}}),
            json!({"simpleMap": {}}),
        ),
        (
            "delete all items from merging list",
            json!({"mergingList": [{"name": 1}, {"name": 2}]}),
            json!({"mergingList": [{"$patch": "replace"}]}),
            json!({"mergingList": []}),
        ),
        (
            "merge empty merging lists",
            json!({"mergingList": []}),
            json!({"mergingList": []}),
            json!({"mergingList": []}),
        ),
        (
            "delete all keys from map",
            json!({"name": 1, "value": 1}),
            json!({"$patch": "replace"}),
            json!({}),
        ),
        (
            "add key and delete all keys from map",
            json!({"name": 1, "value": 1}),
            json!({"other": "a", "$patch": "replace"}),
            json!({"other": "a"}),
        ),
        (
            "a delete directive removes every entry with that merge key",
            json!({"mergingList": [{"name": 1}, {"name": 1}, {"name": 2, "value": "a"}, {"name": 3}, {"name": 3}]}),
            json!({"mergingList": [{"name": 1, "$patch": "delete"}, {"name": 3, "$patch": "delete"}]}),
            json!({"mergingList": [{"name": 2, "value": "a"}]}),
        ),
        (
            "retainKeys map can add a field when no retainKeys directive present",
            json!({"retainKeysMap": {"name": "foo"}}),
            json!({"retainKeysMap": {"value": "bar"}}),
            json!({"retainKeysMap": {"name": "foo", "value": "bar"}}),
        ),
        (
            "retainKeys map can delete a field when no retainKeys directive present",
            json!({"retainKeysMap": {"name": "foo", "value": "a"}}),
            json!({"retainKeysMap": {"value": null}}),
            json!({"retainKeysMap": {"name": "foo"}}),
        ),
        (
            "retainKeys map merge an empty map",
            json!({"retainKeysMap": {"name": "foo", "value": "a"}}),
            json!({"retainKeysMap": {}}),
            json!({"retainKeysMap": {"name": "foo", "value": "a"}}),
        ),
        (
            "retainKeys list can change a field when no retainKeys directive present",
            json!({"retainKeysMergingList": [{"name": "bar"}, {"name": "foo", "value": "a"}]}),
            json!({"retainKeysMergingList": [{"name": "foo", "value": "b"}]}),
            json!({"retainKeysMergingList": [{"name": "bar"}, {"name": "foo", "value": "b"}]}),
        ),
        (
            "preserve the order from the patch in a merging list",
            json!({"mergingList": [{"name": 1}, {"name": 2, "value": "b"}, {"name": 3}]}),
            json!({"mergingList": [{"name": 3, "value": "c"}, {"name": 1, "value": "a"}, {"name": 2, "other": "x"}]}),
            json!({"mergingList": [{"name": 3, "value": "c"}, {"name": 1, "value": "a"}, {"name": 2, "value": "b", "other": "x"}]}),
        ),
        (
            "preserve the order from the patch in a merging list 2",
            json!({"mergingList": [{"name": 1}, {"name": 2, "value": "b"}, {"name": 3}]}),
            json!({"mergingList": [{"name": 3, "value": "c"}, {"name": 1, "value": "a"}]}),
            json!({"mergingList": [{"name": 2, "value": "b"}, {"name": 3, "value": "c"}, {"name": 1, "value": "a"}]}),
        ),
        (
            "preserve the order from the patch in a merging int list",
            json!({"mergingIntList": [1, 2, 3]}),
            json!({"mergingIntList": [3, 1, 2]}),
            json!({"mergingIntList": [3, 1, 2]}),
        ),
        (
            "preserve the order from the patch in a merging int list, live-only items first",
            json!({"mergingIntList": [1, 2, 3]}),
            json!({"mergingIntList": [3, 1]}),
            json!({"mergingIntList": [2, 3, 1]}),
        ),
        (
            "$setElementOrder contains item that is not present in the list to be merged",
            json!({"mergingList": [{"name": 1}, {"name": 3}]}),
            json!({"$setElementOrder/mergingList": [{"name": 3}, {"name": 2}, {"name": 1}],
                   "mergingList": [{"name": 3, "value": 3}, {"name": 1, "value": 1}]}),
            json!({"mergingList": [{"name": 3, "value": 3}, {"name": 1, "value": 1}]}),
        ),
        (
            "$setElementOrder contains item that is not present in the int list to be merged",
            json!({"mergingIntList": [1, 3]}),
            json!({"$setElementOrder/mergingIntList": [3, 2, 1]}),
            json!({"mergingIntList": [3, 1]}),
        ),
        (
            "nil original",
            json!({}),
            json!({"name": 1, "value": 1}),
            json!({"name": 1, "value": 1}),
        ),
        (
            "nil patch",
            json!({"name": 1}),
            json!({}),
            json!({"name": 1}),
        ),
        (
            "add field and delete field from map",
            json!({"name": 1}),
            json!({"name": null, "value": 1}),
            json!({"value": 1}),
        ),
        (
            "delete field from nested map",
            json!({"simpleMap": {"key1": 1, "key2": 1}}),
            json!({"simpleMap": {"key2": null}}),
            json!({"simpleMap": {"key1": 1}}),
        ),
        (
            "delete all fields from map",
            json!({"name": 1, "value": 1}),
            json!({"name": null, "value": null}),
            json!({}),
        ),
        (
            "replace list of scalars",
            json!({"nonMergingIntList": [1, 2]}),
            json!({"nonMergingIntList": [2, 3]}),
            json!({"nonMergingIntList": [2, 3]}),
        ),
        (
            "delete all maps from merging list",
            json!({"mergingList": [{"name": 1}, {"name": 2}]}),
            json!({"mergingList": [{"name": 1, "$patch": "delete"}, {"name": 2, "$patch": "delete"}]}),
            json!({"mergingList": []}),
        ),
        (
            "defined null values should not be stored (twoWayResult)",
            json!({"name": 2}),
            json!({"name": 1, "value": 1, "other": null}),
            json!({"name": 1, "value": 1}),
        ),
        (
            "delete items in lists of scalars",
            json!({"mergingIntList": [1, 2, 3, 4]}),
            json!({"$setElementOrder/mergingIntList": [1, 2], "$deleteFromPrimitiveList/mergingIntList": [3]}),
            json!({"mergingIntList": [1, 2, 4]}),
        ),
        (
            "delete all duplicate items in lists of scalars",
            json!({"mergingIntList": [1, 2, 3, 3, 4]}),
            json!({"$setElementOrder/mergingIntList": [1, 2], "$deleteFromPrimitiveList/mergingIntList": [3]}),
            json!({"mergingIntList": [1, 2, 4]}),
        ),
        (
            "add and delete items in lists of scalars",
            json!({"mergingIntList": [1, 2, 3]}),
            json!({"$setElementOrder/mergingIntList": [1, 2, 4], "$deleteFromPrimitiveList/mergingIntList": [3], "mergingIntList": [4]}),
            json!({"mergingIntList": [1, 2, 4]}),
        ),
        (
            "merge lists of maps",
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 4}, {"name": 1}, {"name": 2}, {"name": 3}],
                   "mergingList": [{"name": 4, "value": 4}, {"name": 3, "value": 3}]}),
            json!({"mergingList": [{"name": 4, "value": 4}, {"name": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}, {"name": 3, "value": 3}]}),
        ),
        (
            "merge lists of maps with conflict",
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 2, "value": 3, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}, {"name": 3}],
                   "mergingList": [{"name": 2, "value": 2}, {"name": 3, "value": 3}]}),
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}, {"name": 3, "value": 3}]}),
        ),
        (
            "add field to map in merging list",
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}], "mergingList": [{"name": 1, "value": 1}]}),
            json!({"mergingList": [{"name": 1, "other": "a", "value": 1}, {"name": 2, "value": 2, "other": "b"}]}),
        ),
        (
            "add map and delete map from merging list (three-way result)",
            json!({"mergingList": [{"name": 1}, {"name": 2, "other": "b"}, {"name": 4, "other": "c"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 2}, {"name": 3}],
                   "mergingList": [{"name": 3}, {"name": 1, "$patch": "delete"}]}),
            json!({"mergingList": [{"name": 2, "other": "b"}, {"name": 4, "other": "c"}, {"name": 3}]}),
        ),
        (
            "add map and delete map from merging list with conflict (three-way result)",
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 4, "other": "c"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 2}, {"name": 3}],
                   "mergingList": [{"name": 2}, {"name": 3}, {"name": 1, "$patch": "delete"}]}),
            json!({"mergingList": [{"name": 4, "other": "c"}, {"name": 2}, {"name": 3}]}),
        ),
        (
            "delete field from map in merging list",
            json!({"mergingList": [{"name": 1, "value": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}], "mergingList": [{"name": 1, "value": null}]}),
            json!({"mergingList": [{"name": 1, "other": "a"}, {"name": 2, "value": 2, "other": "b"}]}),
        ),
        (
            "replace non merging list nested in merging list",
            json!({"mergingList": [{"name": 1, "other": "a", "nonMergingList": [{"name": 1}, {"name": 2, "value": 2}]}, {"name": 2, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}],
                   "mergingList": [{"name": 1, "nonMergingList": [{"name": 1, "value": 1}]}]}),
            json!({"mergingList": [{"name": 1, "other": "a", "nonMergingList": [{"name": 1, "value": 1}]}, {"name": 2, "other": "b"}]}),
        ),
        (
            "add field to map in merging list nested in merging list, nested $setElementOrder",
            json!({"mergingList": [{"name": 1, "other": "a", "mergingList": [{"name": 2, "value": 2, "other": "d"}]}, {"name": 2, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}],
                   "mergingList": [{"$setElementOrder/mergingList": [{"name": 2}, {"name": 1}], "name": 1, "mergingList": [{"name": 1, "value": 1}]}]}),
            json!({"mergingList": [{"name": 1, "other": "a", "mergingList": [{"name": 2, "value": 2, "other": "d"}, {"name": 1, "value": 1}]}, {"name": 2, "other": "b"}]}),
        ),
        (
            "add field to map in merging list nested in merging list with value conflict",
            json!({"mergingList": [{"name": 1, "other": "a", "mergingList": [{"name": 1, "value": "a", "other": "c"}, {"name": 2, "value": "b", "other": "d"}]}, {"name": 2, "other": "b"}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}],
                   "mergingList": [{"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}], "name": 1,
                                    "mergingList": [{"name": 1, "value": 1}, {"name": 2, "value": 2}]}]}),
            json!({"mergingList": [{"name": 1, "other": "a", "mergingList": [{"name": 1, "value": 1, "other": "c"}, {"name": 2, "value": 2, "other": "d"}]}, {"name": 2, "other": "b"}]}),
        ),
        (
            "add map to merging list by pointer",
            json!({"mergeItemPtr": [{"name": 1, "other": "a"}, {"name": 3}]}),
            json!({"$setElementOrder/mergeItemPtr": [{"name": 1}, {"name": 2}], "mergeItemPtr": [{"name": 2}]}),
            json!({"mergeItemPtr": [{"name": 1, "other": "a"}, {"name": 2}, {"name": 3}]}),
        ),
        (
            "add map to merging list by pointer with conflict",
            json!({"mergeItemPtr": [{"name": 3}]}),
            json!({"$setElementOrder/mergeItemPtr": [{"name": 1}, {"name": 2}], "mergeItemPtr": [{"name": 1}, {"name": 2}]}),
            json!({"mergeItemPtr": [{"name": 1}, {"name": 2}, {"name": 3}]}),
        ),
        (
            "retainKeys map deletes nested merging int list",
            json!({"retainKeysMap": {"name": "foo", "mergingIntList": [1, 2, 3]}}),
            json!({"retainKeysMap": {"$retainKeys": ["name"], "mergingIntList": null}}),
            json!({"retainKeysMap": {"name": "foo"}}),
        ),
        (
            "retainKeys map nested merging list with no change",
            json!({"retainKeysMap": {"name": "foo", "mergingList": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}}),
            json!({"retainKeysMap": {"$retainKeys": ["mergingList", "name", "value"],
                                     "$setElementOrder/mergingList": [{"name": "a"}, {"name": "b"}], "value": "bar"}}),
            json!({"retainKeysMap": {"name": "foo", "mergingList": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "value": "bar"}}),
        ),
        (
            "retainKeys map adds an item in nested merging list",
            json!({"retainKeysMap": {"name": "foo", "mergingList": [{"name": "a"}, {"name": "b"}, {"name": "x"}]}}),
            json!({"retainKeysMap": {"$retainKeys": ["mergingList", "name"],
                                     "$setElementOrder/mergingList": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                                     "mergingList": [{"name": "c"}]}}),
            json!({"retainKeysMap": {"name": "foo", "mergingList": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "x"}]}}),
        ),
        (
            "retainKeys map deletes an item in nested merging list",
            json!({"retainKeysMap": {"name": "foo", "mergingList": [{"name": "a"}, {"name": "b"}, {"name": "x"}]}}),
            json!({"retainKeysMap": {"$retainKeys": ["mergingList", "name"],
                                     "$setElementOrder/mergingList": [{"name": "a"}],
                                     "mergingList": [{"name": "b", "$patch": "delete"}]}}),
            json!({"retainKeysMap": {"name": "foo", "mergingList": [{"name": "a"}, {"name": "x"}]}}),
        ),
        (
            "retainKeys list of maps clears a field",
            json!({"retainKeysMergingList": [{"name": "bar"}, {"name": "foo", "value": "a", "other": "x"}]}),
            json!({"$setElementOrder/retainKeysMergingList": [{"name": "bar"}, {"name": "foo"}],
                   "retainKeysMergingList": [{"$retainKeys": ["name", "value"], "name": "foo"}]}),
            json!({"retainKeysMergingList": [{"name": "bar"}, {"name": "foo", "value": "a"}]}),
        ),
        (
            "retainKeys list of maps deletes a field and clear a field",
            json!({"retainKeysMergingList": [{"name": "bar"}, {"name": "foo", "value": "a", "other": "x"}]}),
            json!({"$setElementOrder/retainKeysMergingList": [{"name": "bar"}, {"name": "foo"}],
                   "retainKeysMergingList": [{"$retainKeys": ["name"], "name": "foo", "value": null}]}),
            json!({"retainKeysMergingList": [{"name": "bar"}, {"name": "foo"}]}),
        ),
        (
            "delete and reorder in one list, reorder in another",
            json!({"mergingList": [{"name": "a", "value": "a"}, {"name": "b", "value": "b"}],
                   "mergeItemPtr": [{"name": "c", "value": "c"}, {"name": "d", "value": "d"}]}),
            json!({"$setElementOrder/mergingList": [{"name": "b"}], "$setElementOrder/mergeItemPtr": [{"name": "d"}, {"name": "c"}],
                   "mergingList": [{"$patch": "delete", "name": "a"}]}),
            json!({"mergingList": [{"name": "b", "value": "b"}],
                   "mergeItemPtr": [{"name": "d", "value": "d"}, {"name": "c", "value": "c"}]}),
        ),
        (
            "without $setElementOrder a new item goes before the live ones",
            json!({"mergingList": [{"name": 1}, {"name": 2}]}),
            json!({"mergingList": [{"name": 3}]}),
            json!({"mergingList": [{"name": 3}, {"name": 1}, {"name": 2}]}),
        ),
        (
            "a field tagged replace is replaced whole",
            json!({"replacingItem": {"a": 1, "b": 2}}),
            json!({"replacingItem": {"c": 3}}),
            json!({"replacingItem": {"c": 3}}),
        ),
        (
            "$retainKeys drops unlisted live keys",
            json!({"retainKeysMap": {"name": "foo", "value": "a", "other": "b"}}),
            json!({"retainKeysMap": {"$retainKeys": ["name", "other"], "other": "c"}}),
            json!({"retainKeysMap": {"name": "foo", "other": "c"}}),
        ),
        (
            "a nested merging list merges in a merged item",
            json!({"mergingList": [{"name": 1, "mergingList": [{"name": "a", "value": "x"}]}]}),
            json!({"mergingList": [{"name": 1, "mergingList": [{"name": "a", "other": "y"}]}]}),
            json!({"mergingList": [{"name": 1, "mergingList": [{"name": "a", "value": "x", "other": "y"}]}]}),
        ),
        (
            "directives inside a value the original lacks are applied, not stored",
            json!({}),
            json!({"mergingList": [{"name": 1, "simpleMap": {"a": "1", "b": null}}, {"name": 2, "$patch": "delete"}],
                   "simpleMap": {"$patch": "replace", "k": "v"}}),
            json!({"mergingList": [{"name": 1, "simpleMap": {"a": "1"}}], "simpleMap": {"k": "v"}}),
        ),
        (
            "deleting from a primitive list the original lacks is a no-op",
            json!({"name": "a"}),
            json!({"$deleteFromPrimitiveList/mergingIntList": [1]}),
            json!({"name": "a"}),
        ),
        (
            "values of different types: the patch wins",
            json!({"name": {"a": 1}}),
            json!({"name": "x"}),
            json!({"name": "x"}),
        ),
    ];
    for (name, original, patch, want) in cases {
        let got = smp_test_item(original, patch);
        assert_eq!(got, Ok(want), "{name}");
    }
}

#[test]
fn upstream_merge_item_errors() {
    let cases = [
        (
            "should check if order in $setElementOrder and patch list match",
            json!({"mergingList": [{"name": 1}, {"name": 3}, {"name": 2}]}),
            json!({"$setElementOrder/mergingList": [{"name": 1}, {"name": 2}, {"name": 3}],
                   "mergingList": [{"name": 3, "value": 3}, {"name": 1, "value": 1}]}),
            "doesn't match",
        ),
        (
            "should check if order in $setElementOrder and patch int list match",
            json!({"mergingIntList": [1, 3, 2]}),
            json!({"$setElementOrder/mergingIntList": [1, 2, 3], "mergingIntList": [3, 1]}),
            "doesn't match",
        ),
        (
            "missing merge key should error out",
            json!({"mergingList": [{"name": 1, "value": "a"}]}),
            json!({"mergingList": [{"value": "b"}]}),
            "map: map[value:b] does not contain declared merge key: name",
        ),
        (
            "an unknown $patch value in a map",
            json!({"simpleMap": {"a": "1"}}),
            json!({"simpleMap": {"$patch": "frobnicate"}}),
            "unknown patch type: frobnicate in map: map[$patch:frobnicate]",
        ),
        (
            "$patch: merge in a list",
            json!({"mergingList": [{"name": 1}]}),
            json!({"mergingList": [{"name": 1, "$patch": "merge"}]}),
            "merging lists cannot yet be specified in the patch",
        ),
        (
            "a patch key outside $retainKeys",
            json!({"retainKeysMap": {"name": "foo"}}),
            json!({"retainKeysMap": {"$retainKeys": ["name"], "value": "x"}}),
            "invalid patch format of retainKeys",
        ),
        (
            "lists of lists",
            json!({"mergingIntList": [[1]]}),
            json!({"mergingIntList": [[2]]}),
            "lists of lists are not supported",
        ),
    ];
    for (name, original, patch, want) in cases {
        match smp_test_item(original, patch) {
            Ok(v) => panic!("{name}: expected an error, got {v}"),
            Err(e) => assert!(e.to_string().contains(want), "{name}: {e}"),
        }
    }
}

fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
        "spec": {"taints": [{"key": "key1", "value": "value1", "effect": "NoSchedule"}]},
        "status": {
            "conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}
            ],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname", "address": "node1"}]
        }
    })
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "web"},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
                     "finalizers": ["a", "b"],
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u1", "controller": true}]},
        "spec": {
            "containers": [
                {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                 "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "busybox"}
            ],
            "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}],
            "nodeName": "node1"
        }
    })
}

#[test]
fn kubectl_patches_on_served_kinds() {
    let cases = [
        (
            "kubectl taint adds a taint: the taint list is atomic and replaced",
            "Node",
            node(),
            json!({"spec": {"taints": [{"effect": "NoExecute", "key": "key2", "value": "v2"}, {"effect": "NoSchedule", "key": "key1", "value": "value1"}]}}),
            "/spec/taints",
            json!([{"effect": "NoExecute", "key": "key2", "value": "v2"}, {"effect": "NoSchedule", "key": "key1", "value": "value1"}]),
        ),
        (
            "kubectl taint removing the last taint sends null: the field goes",
            "Node",
            node(),
            json!({"spec": {"taints": null}}),
            "/spec",
            json!({}),
        ),
        (
            "kubectl cordon sets unschedulable",
            "Node",
            node(),
            json!({"spec": {"unschedulable": true}}),
            "/spec/unschedulable",
            json!(true),
        ),
        (
            "a node condition merges by type, in place",
            "Node",
            node(),
            json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]}}),
            "/status/conditions",
            json!([{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]),
        ),
        (
            "node addresses merge by type",
            "Node",
            node(),
            json!({"status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.9"}]}}),
            "/status/addresses",
            json!([{"type": "InternalIP", "address": "10.0.0.9"}, {"type": "Hostname", "address": "node1"}]),
        ),
        (
            "labels merge key by key",
            "Node",
            node(),
            json!({"metadata": {"labels": {"tier": "gpu"}}}),
            "/metadata/labels",
            json!({"kubernetes.io/hostname": "node1", "tier": "gpu"}),
        ),
        (
            "kubectl apply: $setElementOrder/containers and a container merged by name",
            "Pod",
            pod(),
            json!({"metadata": {"labels": {"tier": "web"}},
                   "spec": {"$setElementOrder/containers": [{"name": "nginx"}, {"name": "sidecar"}],
                            "containers": [{"image": "nginx:1.27", "name": "nginx"}]}}),
            "/spec/containers",
            json!([
                {"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}], "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "busybox"}
            ]),
        ),
        (
            "$setElementOrder reorders containers",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "nginx"}]}}),
            "/spec/containers/0/name",
            json!("sidecar"),
        ),
        (
            "a container deleted with $patch: delete",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}),
            "/spec/containers",
            json!([{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}], "env": [{"name": "A", "value": "1"}]}]),
        ),
        (
            "env merges by name inside a container",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "nginx", "env": [{"name": "B", "value": "2"}]}]}}),
            "/spec/containers/0/env",
            json!([{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]),
        ),
        (
            "ports merge by containerPort",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "nginx", "ports": [{"containerPort": 80, "name": "http"}]}]}}),
            "/spec/containers/0/ports",
            json!([{"containerPort": 80, "protocol": "TCP", "name": "http"}]),
        ),
        (
            "tolerations are atomic: the patch list replaces them",
            "Pod",
            pod(),
            json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}),
            "/spec/tolerations",
            json!([{"key": "b", "operator": "Exists"}]),
        ),
        (
            "finalizers merge as a set; a new item before the live ones it precedes",
            "Pod",
            pod(),
            json!({"metadata": {"finalizers": ["c", "a"]}}),
            "/metadata/finalizers",
            json!(["c", "a", "b"]),
        ),
        (
            "$deleteFromPrimitiveList removes a finalizer",
            "Pod",
            pod(),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
            "/metadata/finalizers",
            json!(["b"]),
        ),
        (
            "ownerReferences merge by uid",
            "Pod",
            pod(),
            json!({"metadata": {"ownerReferences": [{"uid": "u1", "blockOwnerDeletion": true}]}}),
            "/metadata/ownerReferences",
            json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u1", "controller": true, "blockOwnerDeletion": true}]),
        ),
        (
            "a deployment's template containers merge by name",
            "Deployment",
            json!({"spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}}}),
            json!({"spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "b", "image": "z"}]}}}}),
            "/spec",
            json!({"replicas": 3, "template": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "z"}]}}}),
        ),
        (
            "a PDB selector is replaced, not merged",
            "PodDisruptionBudget",
            json!({"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web", "tier": "x"}}}}),
            json!({"spec": {"selector": {"matchLabels": {"app": "db"}}}}),
            "/spec/selector",
            json!({"matchLabels": {"app": "db"}}),
        ),
        (
            "a Lease spec merges as JSON merge patch",
            "Lease",
            json!({"spec": {"holderIdentity": "node1", "renewTime": "2026-01-01T00:00:00.000000Z"}}),
            json!({"spec": {"renewTime": "2026-01-01T00:00:10.000000Z"}}),
            "/spec",
            json!({"holderIdentity": "node1", "renewTime": "2026-01-01T00:00:10.000000Z"}),
        ),
    ];
    for (name, kind, original, patch, pointer, want) in cases {
        let got =
            strategic_merge(kind, &original, &patch).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.pointer(pointer), Some(&want), "{name}: {got}");
        assert!(
            !got.to_string().contains("\"$"),
            "{name}: a directive was stored: {got}"
        );
    }
}

#[test]
fn strategic_merge_leaves_the_rest_alone() {
    let got =
        strategic_merge("Node", &node(), &json!({"spec": {"unschedulable": true}})).expect("patch");
    let mut want = node();
    want["spec"]["unschedulable"] = json!(true);
    assert_eq!(got, want);
}

#[test]
fn directives_never_reach_the_result() {
    // Found by the `patch` fuzz target: a list without patch metadata is atomic, and the
    // directives nested in its elements were kept.
    let cases = [
        (
            "a $patch nested in an element of a list of an unknown field",
            json!({"spec": {"co$tainers": [{"name": "app", "ports": [{"containerPort": 80, "$patch": "delete"}]}]}}),
            json!({"name": "app", "ports": [{"containerPort": 80}]}),
        ),
        (
            "directives in a nested map of an atomic list's element",
            json!({"spec": {"co$tainers": [{"name": "app", "m": {"$retainKeys": ["a"], "a": 1, "$setElementOrder/l": []}}]}}),
            json!({"name": "app", "m": {"a": 1}}),
        ),
        (
            "a directive at the top of an atomic list's element",
            json!({"spec": {"co$tainers": [{"name": "app", "$patch": "replace"}]}}),
            json!({"name": "app"}),
        ),
    ];
    for (name, patch, want) in cases {
        let got = strategic_merge("Pod", &pod(), &patch).expect(name);
        assert_eq!(got["spec"]["co$tainers"], json!([want]), "{name}");
    }
    let tolerations = strategic_merge(
        "Pod",
        &pod(),
        &json!({"spec": {"tolerations": [{"key": "k", "operator": "Exists", "x": [{"$patch": "delete"}]}]}}),
    )
    .expect("tolerations");
    assert_eq!(
        tolerations["spec"]["tolerations"],
        json!([{"key": "k", "operator": "Exists", "x": [{}]}]),
        "an atomic list of a served kind"
    );
}

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

mod properties {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::super::{merge_patch, strategic_merge};

    /// JSON values with keys from a small alphabet (no `$` directives, no `metadata`).
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(Value::from),
            "[a-c]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[a-d]", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
            ]
        })
    }

    fn json_object() -> impl Strategy<Value = Value> {
        prop::collection::btree_map("[a-d]", json_value(), 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>()))
    }

    proptest! {
        /// On a type without patch metadata, a patch without directives merges exactly as an
        /// RFC 7386 merge patch: maps merge, null deletes, lists and scalars replace.
        #[test]
        fn strategic_merge_without_metadata_is_merge_patch(original in json_object(), patch in json_object()) {
            let smp = strategic_merge("Widget", &original, &patch);
            prop_assert_eq!(smp, Ok(merge_patch(&original, &patch)));
        }

        /// Applying the same patch twice changes nothing the second time.
        #[test]
        fn strategic_merge_is_idempotent(original in json_object(), patch in json_object()) {
            let once = strategic_merge("Widget", &original, &patch).expect("patch");
            let twice = strategic_merge("Widget", &once, &patch).expect("patch");
            prop_assert_eq!(once, twice);
        }
    }

    /// A pod's containers (merge key `name`): distinct names, each with an image and maybe a
    /// working dir.
    fn containers() -> impl Strategy<Value = Vec<(String, String, Option<String>)>> {
        prop::collection::btree_map("[a-d]", ("[x-z]{1,2}", prop::option::of("/[x-z]")), 0..4)
            .prop_map(|m| m.into_iter().map(|(n, (i, w))| (n, i, w)).collect())
    }

    /// One item of a patch's container list: merge fields into the named container (a new
    /// image, and maybe `workingDir: null` to drop it), or `$patch: delete` it.
    #[derive(Clone, Debug)]
    enum Item {
        Merge { image: String, drop_dir: bool },
        Delete,
    }

    fn items() -> impl Strategy<Value = Vec<(String, Item)>> {
        let item = prop_oneof![
            ("[x-z]{1,2}", any::<bool>())
                .prop_map(|(image, drop_dir)| Item::Merge { image, drop_dir }),
            Just(Item::Delete),
        ];
        prop::collection::btree_map("[a-e]", item, 0..4).prop_map(|m| m.into_iter().collect())
    }

    fn container(name: &str, image: &str, dir: Option<&str>) -> Value {
        let mut c = serde_json::json!({"name": name, "image": image});
        if let Some(d) = dir {
            c["workingDir"] = Value::from(d);
        }
        c
    }

    /// The containers of a strategic-merge result by name, each as its JSON.
    fn by_name(pod: &Value) -> std::collections::BTreeMap<String, Value> {
        pod["spec"]["containers"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| (c["name"].as_str().unwrap_or("").to_string(), c.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    proptest! {
        /// Containers merge by their merge key `name`, with `$patch: delete` items and a
        /// list-level `$patch: replace`, judged by an oracle that keys the lists by name: an
        /// item merges its fields into the container of its name (`null` drops one) or adds
        /// it, a delete item removes its container (none: nothing), `replace` makes the list
        /// the patch's items; no directive is left in the result.
        #[test]
        fn containers_merge_by_name_with_directives(orig in containers(), patch_items in items(), replace in any::<bool>()) {
            let original = serde_json::json!({"spec": {"containers":
                orig.iter().map(|(n, i, w)| container(n, i, w.as_deref())).collect::<Vec<_>>()}});
            let mut list: Vec<Value> = patch_items
                .iter()
                .filter(|(_, item)| !(replace && matches!(item, Item::Delete)))
                .map(|(name, item)| match item {
                    Item::Merge { image, drop_dir } => {
                        // `null` only where there is a field to drop (a `replace` list is
                        // taken as written, nulls and all): what a null in a container the
                        // original lacks leaves is not this test's claim.
                        let mut c = serde_json::json!({"name": name, "image": image});
                        if *drop_dir && !replace && orig.iter().any(|(n, _, _)| n == name) {
                            c["workingDir"] = Value::Null;
                        }
                        c
                    }
                    Item::Delete => serde_json::json!({"name": name, "$patch": "delete"}),
                })
                .collect();
            if replace {
                list.push(serde_json::json!({"$patch": "replace"}));
            }
            let patch = serde_json::json!({"spec": {"containers": list}});

            let mut want: std::collections::BTreeMap<String, Value> = if replace {
                Default::default()
            } else {
                orig.iter()
                    .map(|(n, i, w)| (n.clone(), container(n, i, w.as_deref())))
                    .collect()
            };
            for (name, item) in &patch_items {
                match item {
                    Item::Delete if replace => {}
                    Item::Delete => {
                        want.remove(name);
                    }
                    Item::Merge { image, drop_dir } => {
                        let c = want
                            .entry(name.clone())
                            .or_insert_with(|| serde_json::json!({"name": name}));
                        c["image"] = Value::from(image.as_str());
                        if *drop_dir && !replace && let Some(m) = c.as_object_mut() {
                            m.remove("workingDir");
                        }
                    }
                }
            }

            let got = strategic_merge("Pod", &original, &patch).expect("patch");
            let text = got.to_string();
            prop_assert!(!text.contains("$patch"), "a directive left in {}", text);
            let names = got["spec"]["containers"].as_array().map_or(0, Vec::len);
            prop_assert_eq!(names, want.len(), "one container per name in {}", text);
            prop_assert_eq!(by_name(&got), want, "patch {} on {}", patch, original);
        }
    }
}
