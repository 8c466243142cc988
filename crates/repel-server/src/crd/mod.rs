//! CustomResourceDefinitions (`apiextensions.k8s.io/v1`): what kube-apiserver's
//! apiextensions-apiserver does to one before storing it (defaults, `validation` with
//! upstream's field errors), what its naming and establishing controllers then write in its
//! status (`naming`), and the resources it serves ([`served_resources`], kept in
//! [`crate::registry::Registry`]).
//!
//! Custom objects are stored as sent: they are not validated against the CRD's
//! `openAPIV3Schema`, nor pruned or defaulted by it (the README says so).
//!
//! # Layout
//! - `mod.rs`: defaults, the strategy's `storedVersions`, the resources a CRD serves.
//! - `validation`: `ValidateCustomResourceDefinition` and its update, upstream's texts.
//! - `naming`: the naming and establishing controllers (`NamesAccepted`, `Established`).

mod naming;
mod validation;

use serde_json::{Value, json};

use crate::registry::{ApiResource, Custom};

pub use naming::name_and_establish;
pub use validation::{
    API_APPROVED_ANNOTATION, approval_invalid, approval_missing, validate_create, validate_update,
};

/// The string at a JSON pointer, `""` when absent.
pub(crate) fn str_at<'a>(v: &'a Value, path: &str) -> &'a str {
    v.pointer(path).and_then(Value::as_str).unwrap_or("")
}

/// `spec.versions`.
pub(crate) fn versions(crd: &Value) -> &[Value] {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A boolean field, false when absent.
pub(crate) fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The storage version's name (`storage: true`), if any.
pub fn storage_version(crd: &Value) -> Option<String> {
    versions(crd)
        .iter()
        .find(|v| flag(v, "storage"))
        .and_then(|v| v.get("name").and_then(Value::as_str))
        .map(str::to_string)
}

/// Upstream `SetDefaults_CustomResourceDefinitionSpec` (v1.32):
/// 1. `names.singular` is the lower-cased kind;
/// 2. `names.listKind` is `<kind>List` when there is a kind;
/// 3. `conversion` is `{strategy: None}`.
pub fn set_defaults(crd: &mut Value) {
    if !crd["spec"].is_object() {
        crd["spec"] = json!({});
    }
    if !crd["spec"]["names"].is_object() {
        crd["spec"]["names"] = json!({});
    }
    let kind = str_at(crd, "/spec/names/kind").to_string();
    let names = &mut crd["spec"]["names"];
    if str_at(names, "/singular").is_empty() {
        names["singular"] = json!(kind.to_lowercase());
    }
    if str_at(names, "/listKind").is_empty() && !kind.is_empty() {
        names["listKind"] = json!(format!("{kind}List"));
    }
    if crd["spec"].get("conversion").is_none_or(Value::is_null) {
        crd["spec"]["conversion"] = json!({"strategy": "None"});
    }
}

/// Upstream's strategy before a CRD is stored (`PrepareForCreate`, `PrepareForUpdate`): the
/// storage version joins `status.storedVersions` (a create starts from an empty status).
pub fn prepare(crd: &mut Value, create: bool) {
    let mut stored: Vec<Value> = if create {
        Vec::new()
    } else {
        crd.pointer("/status/storedVersions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    if let Some(v) = storage_version(crd)
        && !stored.contains(&json!(v))
    {
        stored.push(json!(v));
    }
    if create || !crd["status"].is_object() {
        crd["status"] = json!({});
    }
    crd["status"]["storedVersions"] = json!(stored);
}

/// The strings of a list field.
pub(crate) fn strings_at(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The resources a stored CRD serves, one per version with `served: true`, under its accepted
/// names; none until it is established.
pub fn served_resources(crd: &Value) -> Vec<ApiResource> {
    let established = crd
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Established" && c["status"] == "True")
        });
    let names = &crd["status"]["acceptedNames"];
    let group = str_at(crd, "/spec/group");
    let Some(storage) = storage_version(crd) else {
        return Vec::new();
    };
    if !established || group.is_empty() || str_at(names, "/plural").is_empty() {
        return Vec::new();
    }
    let list = strings_at;
    versions(crd)
        .iter()
        .filter(|v| flag(v, "served"))
        .map(|v| {
            let mut subresources = Vec::new();
            if v.pointer("/subresources/scale").is_some() {
                subresources.push("scale".to_string());
            }
            if v.pointer("/subresources/status").is_some() {
                subresources.push("status".to_string());
            }
            let columns = v
                .get("additionalPrinterColumns")
                .and_then(Value::as_array)
                .map(|cs| {
                    cs.iter()
                        .filter_map(repel_api::table::PrinterColumn::from_crd)
                        .collect()
                })
                .unwrap_or_default();
            ApiResource {
                group: group.to_string(),
                version: str_at(v, "/name").to_string(),
                name: str_at(names, "/plural").to_string(),
                singular: str_at(names, "/singular").to_string(),
                kind: str_at(names, "/kind").to_string(),
                namespaced: str_at(crd, "/spec/scope") != "Cluster",
                short_names: list(names, "shortNames"),
                subresources,
                categories: list(names, "categories"),
                custom: Some(Custom {
                    crd: str_at(crd, "/metadata/name").to_string(),
                    list_kind: str_at(names, "/listKind").to_string(),
                    storage_version: storage.clone(),
                    columns,
                    schema: v
                        .pointer("/schema/openAPIV3Schema")
                        .cloned()
                        .unwrap_or(Value::Null),
                    scale: v
                        .pointer("/subresources/scale")
                        .map(crate::registry::ScalePaths::from_crd),
                    selectable: v
                        .get("selectableFields")
                        .and_then(Value::as_array)
                        .map(|fs| {
                            fs.iter()
                                .filter_map(|f| f.get("jsonPath").and_then(Value::as_str))
                                .map(|p| p.trim_start_matches('.').to_string())
                                .collect()
                        })
                        .unwrap_or_default(),
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
