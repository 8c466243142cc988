//! Field management (`metadata.managedFields`) and server-side apply, as kube-apiserver's
//! field manager (structured-merge-diff) does them for the served kinds.
//!
//! A field set is kept in its wire form, the `FieldsV1` tree: `f:<name>` for a field, `k:<json>`
//! for an item of a list keyed by its merge key, `v:<json>` for an item of a list of scalars
//! that merges by value, `.` for a list item itself; a leaf is `{}`.
//!
//! Which lists are keyed comes from the strategic-merge metadata of [`crate::patch`]: a list with
//! a `patchMergeKey` is a map keyed by it (upstream's `x-kubernetes-list-map-keys` add
//! `protocol` to a container port's key: here the port number alone keys it), a merging list of
//! scalars is a set, every other list is atomic (owned whole, replaced whole) and every object
//! is granular. A custom resource's lists are atomic (its CRD schema is not read).
//!
//! Not tracked, as upstream: `apiVersion`, `kind`, the object's identity and system metadata
//! (name, namespace, uid, resourceVersion, generation, creationTimestamp, deletion marks,
//! managedFields) and, for a write to the main resource, `status` (for a write to `status`,
//! everything but `status`).

use serde_json::{Map, Value, json};

use crate::patch::schema::{self, Strategy, Ty};

/// kubectl's client-side apply annotation.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The manager entries of an object (`metadata.managedFields`).
pub fn entries(obj: &Value) -> Vec<Value> {
    obj["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A write's identity: who, how, at which version, on which subresource, when.
#[derive(Debug, Clone)]
pub struct Writer<'a> {
    /// `fieldManager`, or the user agent's product name.
    pub manager: &'a str,
    /// `Apply` or `Update`.
    pub apply: bool,
    /// The apiVersion written at.
    pub api_version: &'a str,
    /// `status` or empty.
    pub subresource: &'a str,
    /// RFC 3339 seconds.
    pub time: &'a str,
}

/// The manager a write without `fieldManager` is recorded under: the user agent up to its
/// first `/` (upstream `prefixFromUserAgent`), `unknown` when there is none.
pub fn manager_from_user_agent(ua: &str) -> String {
    let p = ua.split('/').next().unwrap_or("").trim();
    if p.is_empty() {
        "unknown".into()
    } else {
        p.chars().take(128).collect()
    }
}

// ---- field sets ----

fn is_ignored(path: &[String], subresource: &str) -> bool {
    match path {
        [f] => {
            matches!(f.as_str(), "f:apiVersion" | "f:kind")
                || (subresource.is_empty() && f == "f:status")
                || (subresource == "status" && f != "f:status")
        }
        [m, f] if m == "f:metadata" => matches!(
            f.as_str(),
            "f:name"
                | "f:namespace"
                | "f:generateName"
                | "f:uid"
                | "f:resourceVersion"
                | "f:generation"
                | "f:creationTimestamp"
                | "f:deletionTimestamp"
                | "f:deletionGracePeriodSeconds"
                | "f:managedFields"
                | "f:selfLink"
        ),
        _ => false,
    }
}

/// Whether a field is atomic (owned and replaced whole) in upstream's schema: the
/// `+structType=atomic` `LabelSelector` of a workload or a PodDisruptionBudget and the
/// `+mapType=atomic` `nodeSelector` of a pod (k8s.io/api v1.32), among the types repel's
/// schema reaches.
fn atomic(ty: Ty, field: &str) -> bool {
    matches!(
        (ty, field),
        (Ty::WorkloadSpec | Ty::PdbSpec, "selector") | (Ty::PodSpec, "nodeSelector")
    )
}

/// The key of a list item: `{"name":"x"}` for a keyed list, the value for a set.
fn item_key(item: &Value, key: &str) -> Option<String> {
    if key.is_empty() {
        return Some(format!("v:{item}"));
    }
    let k = item.get(key)?;
    let mut m = Map::new();
    m.insert(key.to_string(), k.clone());
    Some(format!("k:{}", Value::Object(m)))
}

/// The field set of `obj` (a kind's root `ty`), in FieldsV1 form.
pub fn field_set(kind: &str, obj: &Value, subresource: &str, custom: bool) -> Value {
    let ty = if custom {
        Ty::Other
    } else {
        schema::root(kind)
    };
    let mut path = Vec::new();
    Value::Object(set_of(ty, obj, &mut path, subresource, custom))
}

fn set_of(
    ty: Ty,
    v: &Value,
    path: &mut Vec<String>,
    sub: &str,
    custom: bool,
) -> Map<String, Value> {
    let mut out = Map::new();
    let Value::Object(m) = v else {
        return out;
    };
    for (k, child) in m {
        let name = format!("f:{k}");
        path.push(name.clone());
        if !is_ignored(path, sub) && !child.is_null() {
            let meta = if custom {
                schema::lookup(Ty::Other, "")
            } else {
                schema::lookup(ty, k)
            };
            let node = match child {
                Value::Object(_) if !custom && atomic(ty, k) => json!({}),
                Value::Object(cm) => {
                    let set = set_of(meta.ty, child, path, sub, custom);
                    // An object all of whose fields are stripped (`metadata` holding only
                    // `name`) is no field of its own; an empty one is.
                    if set.is_empty() && !cm.is_empty() {
                        path.pop();
                        continue;
                    }
                    Value::Object(set)
                }
                Value::Array(items) if meta.strategy == Strategy::Merge && !custom => {
                    let mut lm = Map::new();
                    for item in items {
                        let Some(key) = item_key(item, meta.merge_key) else {
                            continue;
                        };
                        path.push(key.clone());
                        let mut node = if item.is_object() && !meta.merge_key.is_empty() {
                            set_of(meta.ty, item, path, sub, custom)
                        } else {
                            Map::new()
                        };
                        path.pop();
                        if !meta.merge_key.is_empty() {
                            node.insert(".".into(), json!({}));
                        }
                        lm.insert(key, Value::Object(node));
                    }
                    Value::Object(lm)
                }
                _ => json!({}),
            };
            out.insert(name, node);
        }
        path.pop();
    }
    out
}

/// Every leaf path of a set (a path ends where its node is `{}`), with `.` items as leaves.
fn leaves(set: &Value) -> Vec<Vec<String>> {
    fn walk(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        let Value::Object(m) = v else { return };
        if m.is_empty() {
            out.push(path.clone());
            return;
        }
        for (k, c) in m {
            path.push(k.clone());
            if k == "." {
                out.push(path.clone());
            } else {
                walk(c, path, out);
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(set, &mut Vec::new(), &mut out);
    out
}

fn contains(set: &Value, path: &[String]) -> bool {
    let mut cur = set;
    for p in path {
        match cur.get(p) {
            Some(c) => cur = c,
            None => return false,
        }
    }
    true
}

fn insert(set: &mut Value, path: &[String]) {
    let mut cur = set;
    for p in path {
        if !cur.is_object() {
            *cur = json!({});
        }
        let Value::Object(m) = cur else { return };
        cur = m.entry(p.clone()).or_insert_with(|| json!({}));
    }
}

/// Removes `path` from `set`, and every parent left empty by it.
fn remove(set: &mut Value, path: &[String]) {
    fn rec(v: &mut Value, path: &[String]) -> bool {
        let Value::Object(m) = v else { return false };
        match path {
            [] => false,
            [last] => {
                m.shift_remove(last);
                m.is_empty()
            }
            [first, rest @ ..] => {
                let Some(c) = m.get_mut(first) else {
                    return false;
                };
                if rec(c, rest) {
                    m.shift_remove(first);
                }
                m.is_empty()
            }
        }
    }
    rec(set, path);
}

/// The value at a set path in an object (`None` when absent).
fn value_at<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut cur = obj;
    for p in path {
        if p == "." {
            return Some(cur);
        }
        if let Some(f) = p.strip_prefix("f:") {
            cur = cur.get(f)?;
        } else if let Some(k) = p.strip_prefix("k:") {
            let want: Map<String, Value> = serde_json::from_str(k).ok()?;
            cur = cur
                .as_array()?
                .iter()
                .find(|i| want.iter().all(|(kk, vv)| i.get(kk) == Some(vv)))?;
        } else if let Some(v) = p.strip_prefix("v:") {
            let want: Value = serde_json::from_str(v).ok()?;
            cur = cur.as_array()?.iter().find(|i| **i == want)?;
        } else {
            return None;
        }
    }
    Some(cur)
}

/// Whether a set path's value differs between two objects (a list item's `.` by presence only:
/// its fields are paths of their own).
fn differs(a: Option<&Value>, b: Option<&Value>, path: &[String]) -> bool {
    let (va, vb) = (
        a.and_then(|o| value_at(o, path)),
        b.and_then(|o| value_at(o, path)),
    );
    if path.last().is_some_and(|p| p == ".") {
        va.is_some() != vb.is_some()
    } else {
        va != vb
    }
}

/// A set path as upstream prints it: `.spec.replicas`, `.spec.containers[name="c"].image`,
/// `.metadata.finalizers[="x"]`.
pub fn path_string(path: &[String]) -> String {
    let mut s = String::new();
    for p in path {
        if let Some(f) = p.strip_prefix("f:") {
            s.push('.');
            s.push_str(f);
        } else if let Some(k) = p.strip_prefix("k:") {
            let m: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
            let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!("[{}]", parts.join(",")));
        } else if let Some(v) = p.strip_prefix("v:") {
            s.push_str(&format!("[={v}]"));
        }
    }
    s
}

// ---- managers ----

fn identity(e: &Value) -> (String, String, String, String) {
    let apply = e["operation"] == "Apply";
    (
        e["manager"].as_str().unwrap_or("").to_string(),
        e["operation"].as_str().unwrap_or("").to_string(),
        // An applier is the same manager at every apiVersion.
        if apply {
            String::new()
        } else {
            e["apiVersion"].as_str().unwrap_or("").to_string()
        },
        e["subresource"].as_str().unwrap_or("").to_string(),
    )
}

/// How upstream names a manager in a conflict: `"kubectl"`, `"x" with subresource "status"`,
/// `"kubectl-client-side-apply" using apps/v1` for an updater.
fn print_manager(e: &Value) -> String {
    let mut s = format!("{:?}", e["manager"].as_str().unwrap_or(""));
    if let Some(sub) = e["subresource"].as_str().filter(|s| !s.is_empty()) {
        s = format!("{s} with subresource {sub:?}");
    }
    if e["operation"] == "Update" {
        s = format!("{s} using {}", e["apiVersion"].as_str().unwrap_or(""));
    }
    s
}

/// Upstream's order of managedFields: Apply before Update, then by time, manager, apiVersion,
/// subresource; entries owning nothing dropped.
fn finish(mut list: Vec<Value>) -> Vec<Value> {
    list.retain(|e| e["fieldsV1"].as_object().is_some_and(|m| !m.is_empty()));
    list.sort_by(|p, q| {
        let s = |e: &Value, k: &str| e[k].as_str().unwrap_or("").to_string();
        (
            s(p, "operation"),
            s(p, "time"),
            s(p, "manager"),
            s(p, "apiVersion"),
            s(p, "subresource"),
        )
            .cmp(&(
                s(q, "operation"),
                s(q, "time"),
                s(q, "manager"),
                s(q, "apiVersion"),
                s(q, "subresource"),
            ))
    });
    list
}

fn entry(w: &Writer<'_>, set: Value) -> Value {
    let mut e = json!({
        "manager": w.manager,
        "operation": if w.apply { "Apply" } else { "Update" },
        "apiVersion": w.api_version,
        "time": w.time,
        "fieldsType": "FieldsV1",
        "fieldsV1": set,
    });
    if !w.subresource.is_empty() {
        e["subresource"] = json!(w.subresource);
    }
    e
}

/// The managedFields after a non-apply write (create, update, patch) from `old` (none for a
/// create) to `new`: the writer owns every field it added or changed (taken from whoever
/// owned it), a removed field leaves every set. When the write itself set
/// `metadata.managedFields` to something other than what was there, that is kept as written.
pub fn after_update(
    kind: &str,
    custom: bool,
    old: Option<&Value>,
    new: &Value,
    w: &Writer<'_>,
) -> Vec<Value> {
    let old_entries = old.map(entries).unwrap_or_default();
    if let Some(given) = new["metadata"]["managedFields"].as_array()
        && *given != old_entries
    {
        return given.clone();
    }
    let new_set = field_set(kind, new, w.subresource, custom);
    let old_set = old.map(|o| field_set(kind, o, w.subresource, custom));
    let mut changed = Vec::new();
    for p in leaves(&new_set) {
        if differs(old, Some(new), &p) || old_set.as_ref().is_some_and(|s| !contains(s, &p)) {
            changed.push(p);
        }
    }
    let removed: Vec<Vec<String>> = old_set
        .as_ref()
        .map(|s| {
            leaves(s)
                .into_iter()
                .filter(|p| !contains(&new_set, p))
                .collect()
        })
        .unwrap_or_default();
    let me = identity(&entry(w, json!({})));
    let mut list = Vec::new();
    let mut mine = json!({});
    for mut e in old_entries {
        let set = &mut e["fieldsV1"];
        for p in changed.iter().chain(&removed) {
            remove(set, p);
        }
        if identity(&e) == me {
            mine = e["fieldsV1"].take();
            continue;
        }
        list.push(e);
    }
    for p in &changed {
        insert(&mut mine, p);
    }
    if mine.as_object().is_some_and(|m| !m.is_empty()) {
        list.push(entry(w, mine));
    }
    finish(list)
}

/// A server-side apply's conflict: 409 with upstream's message and causes.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflicts {
    /// (manager as printed, path as printed), in the managers' order.
    pub list: Vec<(String, String)>,
}

impl Conflicts {
    /// Upstream's `getConflictMessage`.
    pub fn message(&self) -> String {
        if let [(m, p)] = self.list.as_slice() {
            return format!("Apply failed with 1 conflict: conflict with {m}: {p}");
        }
        let mut managers: Vec<&String> = self.list.iter().map(|(m, _)| m).collect();
        managers.sort();
        managers.dedup();
        let mut lines = Vec::new();
        for m in managers {
            lines.push(format!("conflicts with {m}:"));
            for (_, p) in self.list.iter().filter(|(mm, _)| mm == m) {
                lines.push(format!("- {p}"));
            }
        }
        format!(
            "Apply failed with {} conflicts: {}",
            self.list.len(),
            lines.join("\n")
        )
    }

    /// The 409 Status (`reason: Conflict`, one `FieldManagerConflict` cause per path).
    pub fn status(&self, qualified: &str, name: &str) -> Value {
        let causes: Vec<Value> = self
            .list
            .iter()
            .map(|(m, p)| json!({"reason": "FieldManagerConflict", "message": format!("conflict with {m}"), "field": p}))
            .collect();
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message(),
            "reason": "Conflict",
            "details": {"name": name, "kind": qualified, "causes": causes},
            "code": 409
        })
    }
}

/// Merges `applied` into `live`: objects key by key, keyed lists item by item (by merge key),
/// everything else replaced.
fn merge(ty: Ty, live: &Value, applied: &Value, custom: bool) -> Value {
    let (Value::Object(l), Value::Object(a)) = (live, applied) else {
        return applied.clone();
    };
    let mut out = l.clone();
    for (k, av) in a {
        let meta = if custom {
            schema::lookup(Ty::Other, "")
        } else {
            schema::lookup(ty, k)
        };
        let merged = match (out.get(k), av) {
            _ if !custom && atomic(ty, k) => av.clone(),
            (Some(lv @ Value::Object(_)), Value::Object(_)) => merge(meta.ty, lv, av, custom),
            (Some(Value::Array(li)), Value::Array(ai))
                if meta.strategy == Strategy::Merge && !custom =>
            {
                let key = meta.merge_key;
                let mut items = li.clone();
                for a_item in ai {
                    let ak = item_key(a_item, key);
                    match items
                        .iter_mut()
                        .find(|i| ak.is_some() && item_key(i, key) == ak)
                    {
                        Some(i) if !key.is_empty() => *i = merge(meta.ty, i, a_item, custom),
                        Some(_) => {}
                        None => items.push(a_item.clone()),
                    }
                }
                Value::Array(items)
            }
            _ => av.clone(),
        };
        out.insert(k.clone(), merged);
    }
    Value::Object(out)
}

/// Removes the field or list item at a set path from `obj`.
fn remove_value(obj: &mut Value, path: &[String]) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    let (target, parent) = if last == "." {
        match parent.split_last() {
            Some((item, p)) => (item, p),
            None => return,
        }
    } else {
        (last, parent)
    };
    let mut cur = obj;
    for p in parent {
        let next = if let Some(f) = p.strip_prefix("f:") {
            cur.get_mut(f)
        } else if let Some(k) = p.strip_prefix("k:") {
            let want: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
            cur.as_array_mut().and_then(|a| {
                a.iter_mut()
                    .find(|i| want.iter().all(|(kk, vv)| i.get(kk) == Some(vv)))
            })
        } else {
            None
        };
        match next {
            Some(n) => cur = n,
            None => return,
        }
    }
    if let Some(f) = target.strip_prefix("f:") {
        if let Value::Object(m) = cur {
            m.shift_remove(f);
        }
    } else if let Some(k) = target.strip_prefix("k:") {
        let want: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
        if let Value::Array(a) = cur {
            a.retain(|i| !want.iter().all(|(kk, vv)| i.get(kk) == Some(vv)));
        }
    } else if let Some(v) = target.strip_prefix("v:") {
        let want: Value = serde_json::from_str(v).unwrap_or(Value::Null);
        if let Value::Array(a) = cur {
            a.retain(|i| *i != want);
        }
    }
}

/// A server-side apply of `applied` by `w` onto `live` (none: the object is created): the
/// merged object with its managedFields, or the conflicts with other managers (unless
/// `force`, which takes the fields from them).
pub fn apply(
    kind: &str,
    custom: bool,
    live: Option<&Value>,
    applied: &Value,
    w: &Writer<'_>,
    force: bool,
) -> Result<Value, Conflicts> {
    let applied_set = field_set(kind, applied, w.subresource, custom);
    let me = identity(&entry(w, json!({})));
    let ty = if custom {
        Ty::Other
    } else {
        schema::root(kind)
    };
    let Some(live) = live else {
        let mut obj = applied.clone();
        obj["metadata"]["managedFields"] = Value::Array(finish(vec![entry(w, applied_set)]));
        update_last_applied(&mut obj, applied, w.manager);
        return Ok(obj);
    };
    let mut merged = merge(ty, live, applied, custom);
    let old_entries = entries(live);
    let mut previous = json!({});
    let mut others = Vec::new();
    for e in old_entries {
        if identity(&e) == me {
            previous = e["fieldsV1"].clone();
        } else {
            others.push(e);
        }
    }
    // Conflicts: a field the applier sets to another value than the live one, owned by
    // another manager.
    let mut conflicts = Vec::new();
    let mut conflict_paths = Vec::new();
    let changed: Vec<Vec<String>> = leaves(&applied_set)
        .into_iter()
        .filter(|p| differs(Some(live), Some(applied), p))
        .collect();
    for e in &others {
        for p in &changed {
            if contains(&e["fieldsV1"], p) {
                conflicts.push((print_manager(e), path_string(p)));
                conflict_paths.push(p.clone());
            }
        }
    }
    if !conflicts.is_empty() && !force {
        // Upstream's lastAppliedManager: `kubectl`'s server-side apply of an object it applied
        // client-side may take, without a conflict, the fields of its last-applied annotation
        // whose values the live object still has; the other conflicts stand.
        let allowed = if w.manager == "kubectl" {
            allowed_from_last_applied(kind, custom, live, w.subresource)
        } else {
            None
        };
        let Some(allowed) = allowed else {
            return Err(Conflicts { list: conflicts });
        };
        let left: Vec<(String, String)> = conflicts
            .into_iter()
            .zip(&conflict_paths)
            .filter(|(_, p)| !has_leaf(&allowed, p))
            .map(|(c, _)| c)
            .collect();
        if !left.is_empty() {
            return Err(Conflicts { list: left });
        }
    }
    for e in &mut others {
        for p in &changed {
            remove(&mut e["fieldsV1"], p);
        }
    }
    // Fields the applier owned before and no longer applies go, unless another owns them.
    for p in leaves(&previous) {
        if !contains(&applied_set, &p) && !others.iter().any(|e| contains(&e["fieldsV1"], &p)) {
            remove_value(&mut merged, &p);
        }
    }
    others.push(entry(w, applied_set));
    merged["metadata"]["managedFields"] = Value::Array(finish(others));
    update_last_applied(&mut merged, applied, w.manager);
    Ok(merged)
}

/// Whether `path` is a leaf (an owned field) of `set`.
fn has_leaf(set: &Value, path: &[String]) -> bool {
    let mut cur = set;
    for p in path {
        match cur.get(p) {
            Some(c) => cur = c,
            None => return false,
        }
    }
    cur.as_object().is_some_and(|m| m.is_empty())
}

/// Upstream `lastAppliedManager.allowedConflictsFromLastApplied` (k8s.io/apimachinery
/// `util/managedfields/internal/lastappliedmanager.go`, v1.32): the fields of the live
/// object's last-applied annotation less those whose value the live object changed since.
/// 1. The annotation missing or empty allows nothing (`None`).
/// 2. So does one that is not a JSON object of the live object's apiVersion and kind
///    (upstream's type converter cannot read it).
/// 3. Otherwise every leaf of its field set is allowed unless both it and the live object
///    have the field with different values (upstream's `Compare(...).Modified`).
fn allowed_from_last_applied(
    kind: &str,
    custom: bool,
    live: &Value,
    subresource: &str,
) -> Option<Value> {
    let text = live["metadata"]["annotations"][LAST_APPLIED]
        .as_str()
        .filter(|t| !t.is_empty())?;
    let last: Value = serde_json::from_str(text).ok()?;
    if !last.is_object() || last["apiVersion"] != live["apiVersion"] || last["kind"] != live["kind"]
    {
        return None;
    }
    let set = field_set(kind, &last, subresource, custom);
    let mut allowed = json!({});
    for p in leaves(&set) {
        let modified = match (value_at(&last, &p), value_at(live, &p)) {
            (Some(a), Some(b)) => p.last().is_none_or(|l| l != ".") && a != b,
            _ => false,
        };
        if !modified {
            insert(&mut allowed, &p);
        }
    }
    Some(allowed)
}

/// Upstream's limit on the total size of an object's annotations
/// (`apimachinery/pkg/api/validation.TotalAnnotationSizeLimitB`).
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// Upstream `lastAppliedUpdater.Apply` (k8s.io/apimachinery
/// `util/managedfields/internal/lastappliedupdater.go`, v1.32): after a successful apply,
/// 1. only by the manager `kubectl`,
/// 2. only when the object already has a non-empty last-applied annotation,
/// 3. the annotation becomes the applied configuration without that annotation, encoded as Go
///    encodes an unstructured object (keys sorted, HTML characters escaped, a final newline);
/// 4. when the annotations would then exceed 256 KiB, the annotation is removed
///    (`SetLastApplied`).
fn update_last_applied(obj: &mut Value, applied: &Value, manager: &str) {
    if manager != "kubectl"
        || obj["metadata"]["annotations"][LAST_APPLIED]
            .as_str()
            .is_none_or(str::is_empty)
    {
        return;
    }
    let mut config = applied.clone();
    if let Some(a) = config["metadata"]["annotations"].as_object_mut() {
        a.shift_remove(LAST_APPLIED);
    }
    let text = format!("{}\n", go_json(&config));
    let Some(annotations) = obj["metadata"]["annotations"].as_object_mut() else {
        return;
    };
    annotations.insert(LAST_APPLIED.into(), Value::String(text));
    let size: usize = annotations
        .iter()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        annotations.shift_remove(LAST_APPLIED);
    }
}

/// A value as Go's `encoding/json` writes a `map[string]interface{}`: keys sorted, `<`, `>`,
/// `&`, U+2028 and U+2029 escaped.
fn go_json(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v)
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests;
