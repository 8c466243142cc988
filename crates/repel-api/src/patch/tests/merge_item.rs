//! Upstream `TestStrategicMergePatch`'s `MergeItem` cases (`strategicpatch/patch_test.go`) and its error cases, names verbatim.

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
