//! Properties of merge patches and strategic merge patches (RFC 7386 and upstream
//! `strategicpatch` rules) over generated JSON objects and container lists.

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
        ("[x-z]{1,2}", any::<bool>()).prop_map(|(image, drop_dir)| Item::Merge { image, drop_dir }),
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
