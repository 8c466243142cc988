//! Strategic merge patch on JSON values: upstream
//! `k8s.io/apimachinery/pkg/util/strategicpatch` `StrategicMergeMapPatch` (v1.32), i.e.
//! `mergeMap` with `MergeParallelList` and `IgnoreUnmatchedNulls` set.
//!
//! Upstream's rules, in the order `mergeMap` applies them:
//! 1. `$patch: replace` in a map: the patch (without the directive) replaces the map;
//!    `$patch: delete`: the map becomes empty; any other value is an error.
//! 2. `$retainKeys: [..]`: keys of the original not listed are dropped; a non-null patch key not
//!    listed is an error (`invalid patch format of retainKeys`).
//! 3. `$setElementOrder/<list>: [..]`: the list is merged (if the patch also has it), then ordered:
//!    items named in the directive in its order, the others in the live order, interleaved.
//! 4. Each other patch key: `$deleteFromPrimitiveList/<list>: [..]` removes those scalars from
//!    the list; `null` deletes the key; a key the original lacks takes the patch value; values of
//!    different JSON types: the patch wins; maps merge recursively (unless the field is tagged
//!    `replace`); lists merge when tagged `merge` (maps by merge key, with `$patch: delete` /
//!    `$patch: replace` elements; scalars as a set) and are replaced otherwise; scalars: the
//!    patch wins.
//! 5. Merged lists keep patch items in patch order and live-only items in live order
//!    (`normalizeElementOrder`).
//!
//! Deliberate differences, because this result is stored as JSON and not decoded into a Go
//! struct (which silently drops unknown `$` keys and nulls):
//! - a value taken from the patch for a key the original lacks is merged into an empty value,
//!   so its nested directives are applied and its nulls dropped (as RFC 7386 does too);
//! - the elements of an atomic list are kept as sent, minus directive keys at any depth;
//! - a `$deleteFromPrimitiveList` for a list the original lacks is a no-op.
//!
//! No directive ever reaches the stored object. A property test checks that on a type without
//! patch metadata a patch without directives gives exactly the RFC 7386 merge patch result.

use serde_json::{Map, Value};

use super::PatchError;
use super::schema::{FieldMeta, Strategy, Ty, lookup};
use crate::gofmt::{go_s, go_type, go_value};

mod order;
use order::{
    merge_set_element_order, normalize_element_order, partition_maps, partition_primitives,
    validate_merge_keys,
};

const DIRECTIVE_MARKER: &str = "$patch";
const REPLACE: &str = "replace";
const DELETE: &str = "delete";
const MERGE: &str = "merge";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER_PREFIX: &str = "$setElementOrder";
const DELETE_FROM_PRIMITIVE_LIST_PREFIX: &str = "$deleteFromPrimitiveList";

/// The JSON type of a value, as Go's `reflect.TypeOf` distinguishes decoded values (integers
/// that fit an `int64` are `int64`, other numbers `float64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
    String,
    Slice,
    Map,
}

impl Kind {
    fn of(v: &Value) -> Kind {
        match v {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(n) if n.is_i64() => Kind::Int,
            Value::Number(_) => Kind::Float,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Slice,
            Value::Object(_) => Kind::Map,
        }
    }
}

/// Go's name of the type `mergepatch.ErrBadArgType` expected: `map[string]interface {}`.
const GO_MAP: &str = "map[string]interface {}";
/// Go's name of the type `mergepatch.ErrBadArgType` expected: `[]interface {}`.
const GO_SLICE: &str = "[]interface {}";

/// `mergeMap`: merge `patch` into `original` for a value of type `ty`.
pub(crate) fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    ty: Ty,
) -> Result<Map<String, Value>, PatchError> {
    if let Some(directive) = patch.get(DIRECTIVE_MARKER) {
        return match directive.as_str() {
            Some(REPLACE) => {
                patch.remove(DIRECTIVE_MARKER);
                merge_map(Map::new(), patch, ty)
            }
            Some(DELETE) => Ok(Map::new()),
            _ => Err(bad_patch_type(directive, &patch)),
        };
    }

    apply_retain_keys(&mut original, &mut patch)?;
    merge_set_element_order(&mut original, &mut patch, ty)?;

    for (key, patch_v) in patch {
        let (key, is_delete_list) = if key.starts_with(DELETE_FROM_PRIMITIVE_LIST_PREFIX) {
            match extract_key(&key, DELETE_FROM_PRIMITIVE_LIST_PREFIX) {
                Some(k) => (k.to_string(), true),
                None => return Err(PatchError::BadFormatPrimitiveList),
            }
        } else {
            (key, false)
        };

        if patch_v.is_null() {
            original.shift_remove(&key);
            continue;
        }
        let meta = lookup(ty, &key);
        let Some(orig_v) = original.get_mut(&key) else {
            if !is_delete_list {
                let cleaned = clean_new(patch_v, meta)?;
                original.insert(key, cleaned);
            }
            continue;
        };
        if Kind::of(orig_v) != Kind::of(&patch_v) {
            *orig_v = clean_new(patch_v, meta)?;
            continue;
        }
        let current = orig_v.take();
        *orig_v = match (current, patch_v) {
            (Value::Object(o), Value::Object(p)) => {
                if meta.strategy == Strategy::Replace {
                    Value::Object(merge_map(Map::new(), p, meta.ty)?)
                } else {
                    Value::Object(merge_map(o, p, meta.ty)?)
                }
            }
            (Value::Array(o), Value::Array(p)) => {
                Value::Array(merge_slice_handler(o, p, meta, is_delete_list)?)
            }
            (_, p) => p,
        };
    }
    Ok(original)
}

/// A patch value for a key the original lacks, with its directives applied and nulls dropped.
fn clean_new(v: Value, meta: FieldMeta) -> Result<Value, PatchError> {
    Ok(match v {
        Value::Object(p) => Value::Object(merge_map(Map::new(), p, meta.ty)?),
        Value::Array(p) => Value::Array(merge_slice_handler(Vec::new(), p, meta, false)?),
        other => other,
    })
}

/// `mergeSliceHandler`: merge lists tagged `merge`, replace the others.
fn merge_slice_handler(
    original: Vec<Value>,
    patch: Vec<Value>,
    meta: FieldMeta,
    is_delete_list: bool,
) -> Result<Vec<Value>, PatchError> {
    if meta.strategy == Strategy::Merge {
        merge_slice(original, patch, meta, is_delete_list)
    } else {
        // An atomic list: the patch list replaces it as it is (as upstream's `mergeMap`
        // takes it), except that directive keys, which a typed decode would drop, go, at any
        // depth of its elements.
        Ok(patch.into_iter().map(strip_directives).collect())
    }
}

/// `v` without directive keys in any of its objects, however deep.
fn strip_directives(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| !is_directive(k))
                .map(|(k, v)| (k, strip_directives(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_directives).collect()),
        other => other,
    }
}

/// Whether a key is a strategic merge patch directive.
fn is_directive(key: &str) -> bool {
    key == DIRECTIVE_MARKER
        || key == RETAIN_KEYS
        || key.starts_with(SET_ELEMENT_ORDER_PREFIX)
        || key.starts_with(DELETE_FROM_PRIMITIVE_LIST_PREFIX)
}

/// `mergeSlice`: merge two lists tagged `merge`.
fn merge_slice(
    original: Vec<Value>,
    patch: Vec<Value>,
    meta: FieldMeta,
    is_delete_list: bool,
) -> Result<Vec<Value>, PatchError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = slice_element_kind(&original, &patch)?;
    let merge_key = meta.merge_key;
    if kind != Kind::Map {
        if is_delete_list {
            return Ok(original
                .into_iter()
                .filter(|v| !patch.contains(v))
                .collect());
        }
        let mut merged: Vec<Value> = Vec::with_capacity(original.len() + patch.len());
        for v in original.iter().chain(patch.iter()) {
            if !merged.contains(v) {
                merged.push(v.clone());
            }
        }
        let (patch_items, server_only) = partition_primitives(merged, &patch);
        return Ok(normalize_element_order(
            patch_items,
            server_only,
            &patch,
            &original,
            "",
            kind,
        ));
    }
    if merge_key.is_empty() {
        // Upstream names the Go kind of the list's element type; every list repel serves
        // that merges without a key (`finalizers`, `podCIDRs`) is a `[]string`.
        return Err(PatchError::Other(
            "cannot merge lists without merge key for string".to_string(),
        ));
    }
    let (original, patch) = merge_slice_with_special_elements(original, patch, merge_key)?;
    let order_original = original.clone();
    let merged = merge_slice_without_special_elements(original, &patch, meta)?;
    let (patch_items, server_only) = partition_maps(merged, &patch, merge_key)?;
    validate_merge_keys(merge_key, &patch_items)?;
    validate_merge_keys(merge_key, &server_only)?;
    Ok(normalize_element_order(
        patch_items,
        server_only,
        &patch,
        &order_original,
        merge_key,
        kind,
    ))
}

/// `mergeSliceWithSpecialElements`: apply `$patch: delete` and `$patch: replace` elements.
fn merge_slice_with_special_elements(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>), PatchError> {
    let mut without_special = Vec::with_capacity(patch.len());
    let mut replace = false;
    for v in patch {
        let Value::Object(m) = &v else {
            without_special.push(v);
            continue;
        };
        match m.get(DIRECTIVE_MARKER) {
            None => without_special.push(v),
            Some(d) => match d.as_str() {
                Some(DELETE) => match m.get(merge_key) {
                    Some(key_value) => {
                        let key_value = key_value.clone();
                        original.retain(|o| o.get(merge_key) != Some(&key_value));
                    }
                    None => return Err(no_merge_key(m, merge_key)),
                },
                Some(REPLACE) => replace = true,
                Some(MERGE) => {
                    return Err(PatchError::Other(
                        "merging lists cannot yet be specified in the patch".to_string(),
                    ));
                }
                _ => return Err(bad_patch_type(d, m)),
            },
        }
    }
    if replace {
        Ok((without_special, Vec::new()))
    } else {
        Ok((original, without_special))
    }
}

/// `mergeSliceWithoutSpecialElements`: merge each patch item into the original item with the
/// same merge key value, or append it.
fn merge_slice_without_special_elements(
    mut original: Vec<Value>,
    patch: &[Value],
    meta: FieldMeta,
) -> Result<Vec<Value>, PatchError> {
    let key = meta.merge_key;
    for v in patch {
        let Value::Object(pm) = v else {
            return Err(bad_arg_type(GO_MAP, v));
        };
        let Some(key_value) = pm.get(key) else {
            return Err(no_merge_key(pm, key));
        };
        let mut found = None;
        for (i, o) in original.iter().enumerate() {
            let Value::Object(om) = o else {
                return Err(PatchError::Other(format!("value for key {i} is not a map")));
            };
            if om.get(key) == Some(key_value) {
                found = Some(i);
                break;
            }
        }
        match found {
            Some(i) => {
                let current = original[i].take();
                let Value::Object(om) = current else {
                    return Err(bad_arg_type(GO_MAP, &current));
                };
                original[i] = Value::Object(merge_map(om, pm.clone(), meta.ty)?);
            }
            None => original.push(Value::Object(merge_map(Map::new(), pm.clone(), meta.ty)?)),
        }
    }
    Ok(original)
}

/// `applyRetainKeysDirective` (with `MergeParallelList`).
fn apply_retain_keys(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
) -> Result<(), PatchError> {
    let Some(retain) = patch.shift_remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(list) = retain else {
        return Err(PatchError::BadFormatRetainKeys);
    };
    let listed = |k: &str| list.iter().any(|v| v.as_str() == Some(k));
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST_PREFIX)
            || k.starts_with(SET_ELEMENT_ORDER_PREFIX)
        {
            continue;
        }
        if !listed(k) {
            return Err(PatchError::BadFormatRetainKeys);
        }
    }
    original.retain(|k, _| listed(k));
    Ok(())
}

/// `sliceElementType`: every element of both lists has one JSON type, which is not a list.
fn slice_element_kind(a: &[Value], b: &[Value]) -> Result<Kind, PatchError> {
    let mut prev: Option<Kind> = None;
    for v in a.iter().chain(b.iter()) {
        let k = Kind::of(v);
        match prev {
            None => {
                if k == Kind::Slice {
                    return Err(PatchError::NoListOfLists);
                }
                prev = Some(k);
            }
            Some(p) if p != k => {
                return Err(PatchError::Other(format!(
                    "list element types are not identical: [{} {}]",
                    go_value(&Value::Array(a.to_vec())),
                    go_value(&Value::Array(b.to_vec()))
                )));
            }
            Some(_) => {}
        }
    }
    prev.ok_or_else(|| PatchError::Other("no elements in any of the given slices".to_string()))
}

/// `extractKey`: `"$prefix/field"` → `"field"`.
fn extract_key<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    match s.split_once('/') {
        Some((p, rest)) if p == prefix => Some(rest),
        _ => None,
    }
}

/// `mergepatch.ErrNoMergeKey`.
fn no_merge_key(m: &Map<String, Value>, key: &str) -> PatchError {
    PatchError::NoMergeKey(format!(
        "map: {} does not contain declared merge key: {key}",
        go_value(&Value::Object(m.clone()))
    ))
}

/// `mergepatch.ErrBadArgType(expected, actual)`: `expected a <Go type>, but received a <Go
/// type>`, the types as `reflect.TypeOf` names them (`expected a []interface {}, but received
/// a string`).
fn bad_arg_type(expected: &str, actual: &Value) -> PatchError {
    PatchError::Other(format!(
        "expected a {expected}, but received a {}",
        go_type(actual)
    ))
}

/// `mergepatch.ErrBadPatchType(t, m)`: `unknown patch type: %s in map: %v`, the directive's
/// value printed with `%s` (`%!s(int64=1)` for a number) and the map with `%v`.
fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> PatchError {
    PatchError::BadPatchType(format!(
        "unknown patch type: {} in map: {}",
        go_s(directive),
        go_value(&Value::Object(map.clone()))
    ))
}
