//! `$setElementOrder` and list ordering: upstream's `mergePatchIntoOriginal`,
//! `normalizeElementOrder`, `mergeSortedSlice` and their helpers (strategicpatch, v1.32).

use serde_json::{Map, Value};

use super::super::PatchError;
use super::super::schema::{Strategy, Ty, lookup};
use super::{
    DELETE, DIRECTIVE_MARKER, GO_MAP, GO_SLICE, Kind, REPLACE, SET_ELEMENT_ORDER_PREFIX,
    bad_arg_type, extract_key, merge_slice_handler, no_merge_key, slice_element_kind,
};
use crate::gofmt::go_value;

/// `mergePatchIntoOriginal`: handle every `$setElementOrder/<list>` directive.
pub(super) fn merge_set_element_order(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    ty: Ty,
) -> Result<(), PatchError> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER_PREFIX))
        .cloned()
        .collect();
    for key in keys {
        let Some(order_v) = patch.shift_remove(&key) else {
            continue;
        };
        let Value::Array(order) = order_v else {
            return Err(bad_arg_type(GO_SLICE, &order_v));
        };
        let Some(list_key) = extract_key(&key, SET_ELEMENT_ORDER_PREFIX) else {
            return Err(PatchError::BadFormatSetElementOrder);
        };
        let list_key = list_key.to_string();
        let original_list = match original.get(&list_key) {
            None => None,
            Some(Value::Array(l)) => Some(l.clone()),
            Some(other) => return Err(bad_arg_type(GO_SLICE, other)),
        };
        let patch_list = match patch.get(&list_key) {
            None => None,
            Some(Value::Array(l)) => Some(l.clone()),
            Some(other) => return Err(bad_arg_type(GO_SLICE, other)),
        };
        let meta = lookup(ty, &list_key);
        let merge_key = if meta.strategy == Strategy::Merge {
            meta.merge_key
        } else {
            ""
        };
        validate_patch_with_set_order_list(patch_list.as_deref(), &order, merge_key)?;

        let merged = match (&original_list, &patch_list) {
            (Some(o), None) => o.clone(),
            (None, Some(p)) => merge_slice_handler(Vec::new(), p.clone(), meta, false)?,
            (Some(o), Some(p)) => merge_slice_handler(o.clone(), p.clone(), meta, false)?,
            (None, None) => continue,
        };
        // The live order the result is sorted by, as upstream sees it after merging.
        let original_items = match (&original_list, &patch_list) {
            (Some(o), Some(p)) if !merge_key.is_empty() => aliased_original(o, p, merge_key),
            _ => original_list.clone().unwrap_or_default(),
        };
        let (patch_items, server_only) = if merge_key.is_empty() {
            partition_primitives(merged, &order)
        } else {
            partition_maps(merged, &order, merge_key)?
        };
        let kind = slice_element_kind(&original_items, patch_list.as_deref().unwrap_or(&[]))?;
        if kind == Kind::Map {
            validate_merge_keys(merge_key, &patch_items)?;
            validate_merge_keys(merge_key, &order)?;
            validate_merge_keys(merge_key, &server_only)?;
            validate_merge_keys(merge_key, &original_items)?;
        }
        let both = normalize_element_order(
            patch_items,
            server_only,
            &order,
            &original_items,
            merge_key,
            kind,
        );
        original.insert(list_key.clone(), Value::Array(both));
        patch.shift_remove(&list_key);
    }
    Ok(())
}

/// What upstream's `originalFieldValue` holds once `mergeSlice` has run on it: Go's
/// `append(original[:k], original[k+1:]...)` (a `$patch: delete`) shifts the shared backing
/// array left in place, and `append(original, item)` (a new item) then writes into the freed
/// slots, while `originalFieldValue` keeps its old length. `$setElementOrder` sorts live-only
/// items by this view, so new items interleave with them as upstream's do (upstream's test
/// "add map and delete map from merging list": live `[1, 2, 4]`, patch order `[2, 3]`, delete
/// `1`, add `3` → `[2, 4, 3]`). Only merge-key values matter here.
fn aliased_original(original: &[Value], patch: &[Value], merge_key: &str) -> Vec<Value> {
    let key_of = |v: &Value| v.get(merge_key).cloned();
    let mut backing = original.to_vec();
    let limit = backing.len();
    let mut len = limit;
    let mut replace = false;
    for v in patch {
        match v.get(DIRECTIVE_MARKER).and_then(Value::as_str) {
            Some(DELETE) => {
                let Some(want) = key_of(v) else { continue };
                while let Some(k) = backing[..len]
                    .iter()
                    .position(|o| key_of(o).as_ref() == Some(&want))
                {
                    for j in k..len - 1 {
                        backing[j] = backing[j + 1].clone();
                    }
                    len -= 1;
                }
            }
            Some(REPLACE) => replace = true,
            _ => {}
        }
    }
    if replace {
        return backing;
    }
    for v in patch.iter().filter(|v| v.get(DIRECTIVE_MARKER).is_none()) {
        let want = key_of(v);
        if len >= limit {
            // Every later write lands past what the view shows.
            break;
        }
        if backing[..len].iter().any(|o| key_of(o) == want) {
            continue;
        }
        backing[len] = v.clone();
        len += 1;
    }
    backing
}

/// `validatePatchWithSetOrderList`: the patch items (deletions aside) appear in the
/// `$setElementOrder` list, in the same relative order.
fn validate_patch_with_set_order_list(
    patch_list: Option<&[Value]>,
    order: &[Value],
    merge_key: &str,
) -> Result<(), PatchError> {
    let patch_list = patch_list.unwrap_or(&[]);
    if order.is_empty() || patch_list.is_empty() {
        return Ok(());
    }
    let non_delete: Vec<&Value> = if merge_key.is_empty() {
        patch_list.iter().collect()
    } else {
        let mut nd = Vec::new();
        for v in patch_list {
            let Value::Object(m) = v else {
                return Err(bad_arg_type(GO_MAP, v));
            };
            if m.get(DIRECTIVE_MARKER).and_then(Value::as_str) != Some(DELETE) {
                nd.push(v);
            }
        }
        nd
    };
    let (mut pi, mut oi) = (0, 0);
    while pi < non_delete.len() && oi < order.len() {
        let item = non_delete[pi];
        if item.get(DIRECTIVE_MARKER).is_some() {
            pi += 1;
            continue;
        }
        let equal = if merge_key.is_empty() {
            item == &order[oi]
        } else {
            let (Value::Object(l), Value::Object(r)) = (item, &order[oi]) else {
                return Err(bad_arg_type(GO_MAP, &order[oi]));
            };
            let Some(lk) = l.get(merge_key) else {
                return Err(no_merge_key(l, merge_key));
            };
            let Some(rk) = r.get(merge_key) else {
                return Err(no_merge_key(r, merge_key));
            };
            lk == rk
        };
        if equal {
            pi += 1;
        }
        oi += 1;
    }
    if pi < non_delete.len() && oi >= order.len() {
        return Err(PatchError::Other(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER_PREFIX} list:\n{}\n",
            go_value(&Value::Array(patch_list.to_vec())),
            go_value(&Value::Array(order.to_vec()))
        )));
    }
    Ok(())
}

pub(super) fn partition_primitives(merged: Vec<Value>, by: &[Value]) -> (Vec<Value>, Vec<Value>) {
    merged.into_iter().partition(|v| by.contains(v))
}

pub(super) fn partition_maps(
    merged: Vec<Value>,
    by: &[Value],
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>), PatchError> {
    let mut patch = Vec::new();
    let mut server_only = Vec::new();
    for v in merged {
        let Value::Object(m) = &v else {
            return Err(bad_arg_type(GO_MAP, &v));
        };
        let Some(key_value) = m.get(merge_key) else {
            return Err(no_merge_key(m, merge_key));
        };
        if by.iter().any(|b| b.get(merge_key) == Some(key_value)) {
            patch.push(v);
        } else {
            server_only.push(v);
        }
    }
    Ok((patch, server_only))
}

pub(super) fn validate_merge_keys(merge_key: &str, list: &[Value]) -> Result<(), PatchError> {
    for v in list {
        let Value::Object(m) = v else {
            return Err(bad_arg_type(GO_MAP, v));
        };
        if !m.contains_key(merge_key) {
            return Err(no_merge_key(m, merge_key));
        }
    }
    Ok(())
}

/// `index`: the position of `v` in `list`, comparing merge key values for maps.
fn index(list: &[Value], v: &Value, merge_key: &str, kind: Kind) -> Option<usize> {
    if kind == Kind::Map {
        let want = v.get(merge_key);
        list.iter().position(|x| x.get(merge_key) == want)
    } else {
        list.iter().position(|x| x == v)
    }
}

/// `normalizeSliceOrder`: a stable sort by position in `order` (deletions last).
fn normalize_slice_order(
    to_sort: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: Kind,
) -> Vec<Value> {
    let (mut keep, delete): (Vec<Value>, Vec<Value>) = if kind == Kind::Map {
        to_sort
            .into_iter()
            .partition(|v| v.get(DIRECTIVE_MARKER).and_then(Value::as_str) != Some(DELETE))
    } else {
        (to_sort, Vec::new())
    };
    keep.sort_by_key(|v| index(order, v, merge_key, kind).unwrap_or(usize::MAX));
    keep.extend(delete);
    keep
}

/// `normalizeElementOrder` + `mergeSortedSlice`: patch items in patch order, server-only items
/// in live order, interleaved by their live positions.
pub(super) fn normalize_element_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: Kind,
) -> Vec<Value> {
    let right = normalize_slice_order(patch, patch_order, merge_key, kind);
    let left = normalize_slice_order(server_only, server_order, merge_key, kind);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => out.extend(left.by_ref()),
            (None, Some(_)) => out.extend(right.by_ref()),
            (Some(l), Some(r)) => {
                let li = index(server_order, l, merge_key, kind);
                let ri = index(server_order, r, merge_key, kind);
                let take_left = matches!((li, ri), (Some(a), Some(b)) if a < b);
                let next = if take_left { left.next() } else { right.next() };
                out.extend(next);
            }
        }
    }
    out
}
