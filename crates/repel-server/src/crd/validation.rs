//! Upstream `ValidateCustomResourceDefinition` (apiextensions-apiserver
//! `pkg/apis/apiextensions/validation/validation.go`, v1.32), on the fields repel serves by,
//! with upstream's field errors byte for byte.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::names::{is_dns1035_label, is_dns1123_subdomain};
use repel_core::validation::meta;
use repel_core::validation::{BadValue, ErrorType, FieldError};
use serde_json::{Value, json};

use super::{flag, storage_version, str_at, versions};

/// The annotation a CRD of a protected group (`*.k8s.io`, `*.kubernetes.io`) must carry.
pub const API_APPROVED_ANNOTATION: &str = "api-approved.kubernetes.io";

/// The upstream reason when a protected group's CRD lacks [`API_APPROVED_ANNOTATION`].
pub fn approval_missing() -> String {
    format!(
        "protected groups must have approval annotation \"{API_APPROVED_ANNOTATION}\", see https://github.com/kubernetes/enhancements/pull/1111"
    )
}

/// The upstream reason when [`API_APPROVED_ANNOTATION`] is neither a URL nor `unapproved…`.
pub fn approval_invalid() -> String {
    format!(
        "protected groups must have approval annotation \"{API_APPROVED_ANNOTATION}\" with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"
    )
}

/// Upstream's `IsProtectedCommunityGroup`.
fn is_protected_group(group: &str) -> bool {
    group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io")
}

/// Whether `s` parses as a URL with a scheme and a host (`url.ParseRequestURI`'s success with
/// both set).
fn is_url_with_host(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    scheme_ok && !host.is_empty() && !s.contains(' ')
}

/// Upstream `validateAPIApproval` on a create (or an update whose approval state changed).
fn api_approval_errors(crd: &Value, old: Option<&Value>) -> Vec<FieldError> {
    if !is_protected_group(str_at(crd, "/spec/group")) {
        return Vec::new();
    }
    let state = |c: &Value| {
        let a = c
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(API_APPROVED_ANNOTATION))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let s = if a.is_empty() {
            0
        } else if a.starts_with("unapproved") || is_url_with_host(&a) {
            1
        } else {
            2
        };
        (s, a)
    };
    let (new_state, value) = state(crd);
    if old.is_some_and(|o| state(o).0 == new_state) {
        return Vec::new();
    }
    let path = format!("metadata.annotations[{API_APPROVED_ANNOTATION}]");
    match new_state {
        0 => vec![FieldError::required(path, approval_missing())],
        2 => vec![FieldError::invalid(
            path,
            BadValue::Str(value),
            approval_invalid(),
        )],
        _ => Vec::new(),
    }
}

/// Go's JSON of the internal `CustomResourceDefinitionVersion` list, as upstream's field
/// errors print `spec.versions` (v1.34+ `ErrorBody`). The schemas, subresources and columns
/// that every version shares were moved to the spec's top level by the v1 → internal
/// conversion and print `null`; a version's own schema prints as `{}` here (upstream prints
/// the whole internal schema struct).
fn versions_value(crd: &Value) -> BadValue {
    let Some(list) = crd.pointer("/spec/versions").and_then(Value::as_array) else {
        return BadValue::Json("null".to_string());
    };
    let all_same = |key: &str| list.iter().all(|v| v.get(key) == list[0].get(key));
    let hoisted = |key: &str| all_same(key) || list.iter().all(|v| v.get(key).is_none());
    let items: Vec<String> = list
        .iter()
        .map(|v| {
            let warning = match v.get("deprecationWarning").and_then(Value::as_str) {
                Some(w) => json!(w).to_string(),
                None => "null".to_string(),
            };
            let schema = if hoisted("schema") || v.get("schema").is_none() {
                "null".to_string()
            } else {
                "{}".to_string()
            };
            let subresources = match v.get("subresources") {
                Some(s) if !hoisted("subresources") => {
                    let status = if s.get("status").is_some() { "{}" } else { "null" };
                    let scale = match s.get("scale") {
                        Some(sc) => format!(
                            "{{\"SpecReplicasPath\":{},\"StatusReplicasPath\":{},\"LabelSelectorPath\":{}}}",
                            json!(str_at(sc, "/specReplicasPath")),
                            json!(str_at(sc, "/statusReplicasPath")),
                            sc.get("labelSelectorPath")
                                .and_then(Value::as_str)
                                .map_or("null".to_string(), |p| json!(p).to_string()),
                        ),
                        None => "null".to_string(),
                    };
                    format!("{{\"Status\":{status},\"Scale\":{scale}}}")
                }
                _ => "null".to_string(),
            };
            let columns = match v.get("additionalPrinterColumns").and_then(Value::as_array) {
                Some(cs) if !hoisted("additionalPrinterColumns") => {
                    let cs: Vec<String> = cs
                        .iter()
                        .map(|c| {
                            format!(
                                "{{\"Name\":{},\"Type\":{},\"Format\":{},\"Description\":{},\"Priority\":{},\"JSONPath\":{}}}",
                                json!(str_at(c, "/name")),
                                json!(str_at(c, "/type")),
                                json!(str_at(c, "/format")),
                                json!(str_at(c, "/description")),
                                c.get("priority").and_then(Value::as_i64).unwrap_or(0),
                                json!(str_at(c, "/jsonPath")),
                            )
                        })
                        .collect();
                    format!("[{}]", cs.join(","))
                }
                _ => "null".to_string(),
            };
            format!(
                "{{\"Name\":{},\"Served\":{},\"Storage\":{},\"Deprecated\":{},\"DeprecationWarning\":{warning},\"Schema\":{schema},\"Subresources\":{subresources},\"AdditionalPrinterColumns\":{columns},\"SelectableFields\":null}}",
                json!(str_at(v, "/name")),
                flag(v, "served"),
                flag(v, "storage"),
                flag(v, "deprecated"),
            )
        })
        .collect();
    BadValue::Json(format!("[{}]", items.join(",")))
}

fn dns1035(path: &str, value: &str, prefix: &str) -> Option<FieldError> {
    let errs = is_dns1035_label(value);
    (!errs.is_empty()).then(|| {
        FieldError::invalid(
            path,
            BadValue::Str(value.to_string()),
            format!("{prefix}{}", errs.join(",")),
        )
    })
}

/// Upstream `ValidateCustomResourceDefinitionNames` on `names` at `path`.
fn names_errors(names: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mixed = "may have mixed case, but should otherwise match: ";
    for (key, prefix, lower) in [
        ("plural", "", false),
        ("singular", "", false),
        ("kind", mixed, true),
        ("listKind", mixed, true),
    ] {
        let v = str_at(names, &format!("/{key}"));
        if v.is_empty() {
            continue;
        }
        let checked = if lower {
            v.to_lowercase()
        } else {
            v.to_string()
        };
        if let Some(mut e) = dns1035(&format!("{path}.{key}"), &checked, prefix) {
            e.bad_value = BadValue::Str(v.to_string());
            errs.push(e);
        }
    }
    let list = |key: &str| -> Vec<String> {
        names
            .get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|s| s.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    for (i, s) in list("shortNames").iter().enumerate() {
        errs.extend(dns1035(&format!("{path}.shortNames[{i}]"), s, ""));
    }
    let kind = str_at(names, "/kind");
    let list_kind = str_at(names, "/listKind");
    if !kind.is_empty() && kind == list_kind {
        errs.push(FieldError::invalid(
            format!("{path}.listKind"),
            BadValue::Str(list_kind.to_string()),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in list("categories").iter().enumerate() {
        errs.extend(dns1035(&format!("{path}.categories[{i}]"), c, ""));
    }
    errs
}

/// Upstream `validateCustomResourceDefinitionSpec` (v1.32), the rules on the fields repel
/// serves by, in upstream's order (schemas are not checked beyond being present):
/// 1. `group`: required, a DNS-1123 subdomain, with at least one dot;
/// 2. `scope`: required, `Cluster` or `Namespaced`;
/// 3. every version has `schema.openAPIV3Schema`;
/// 4. version names are DNS-1035 labels, unique, and exactly one is the storage version;
/// 5. `version` (the first version's name, after the v1 → internal conversion) is a DNS-1035
///    label;
/// 6. `names.plural`, `singular`, `kind` and `listKind` are required;
/// 7. the names are DNS-1035 labels (kinds in any case), kind ≠ listKind.
fn spec_errors(crd: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let group = str_at(crd, "/spec/group");
    if group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else {
        let bad = is_dns1123_subdomain(group);
        if !bad.is_empty() {
            errs.push(FieldError::invalid(
                "spec.group",
                BadValue::Str(group.to_string()),
                bad.join(","),
            ));
        } else if !group.contains('.') {
            errs.push(FieldError::invalid(
                "spec.group",
                BadValue::Str(group.to_string()),
                "should be a domain with at least one dot",
            ));
        }
    }
    match str_at(crd, "/spec/scope") {
        "" => errs.push(FieldError::required("spec.scope", "")),
        "Cluster" | "Namespaced" => {}
        other => errs.push(FieldError::not_supported(
            "spec.scope",
            other,
            &["Cluster", "Namespaced"],
        )),
    }
    let vs = versions(crd);
    for (i, v) in vs.iter().enumerate() {
        if v.pointer("/schema/openAPIV3Schema")
            .is_none_or(Value::is_null)
        {
            errs.push(FieldError::required(
                format!("spec.versions[{i}].schema.openAPIV3Schema"),
                "",
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut unique = true;
    for (i, v) in vs.iter().enumerate() {
        let name = str_at(v, "/name");
        if seen.contains(&name) {
            unique = false;
        } else {
            seen.push(name);
        }
        errs.extend(dns1035(&format!("spec.versions[{i}].name"), name, ""));
    }
    if !unique {
        errs.push(FieldError::invalid(
            "spec.versions",
            versions_value(crd),
            "must contain unique version names",
        ));
    }
    if vs.iter().filter(|v| flag(v, "storage")).count() != 1 {
        errs.push(FieldError::invalid(
            "spec.versions",
            versions_value(crd),
            "must have exactly one version marked as storage version",
        ));
    }
    if let Some(first) = vs.first() {
        let name = str_at(first, "/name");
        if !name.is_empty() {
            errs.extend(dns1035("spec.version", name, ""));
        }
    }
    for key in ["plural", "singular", "kind", "listKind"] {
        if str_at(crd, &format!("/spec/names/{key}")).is_empty() {
            errs.push(FieldError::required(format!("spec.names.{key}"), ""));
        }
    }
    errs.extend(names_errors(&crd["spec"]["names"], "spec.names"));
    errs
}

/// The metadata errors with the CRD's name rule: a DNS-1123 subdomain that is
/// `<plural>.<group>` (for `generateName` too, as upstream's name function is called on it).
fn metadata_errors(crd: &Value, object_meta: &ObjectMeta) -> Vec<FieldError> {
    let required = format!(
        "{}.{}",
        str_at(crd, "/spec/names/plural"),
        str_at(crd, "/spec/group")
    );
    let errs = meta::strategy_errors("CustomResourceDefinition", object_meta, false, None);
    let mismatch = |field: &str, v: &str| {
        FieldError::invalid(
            field,
            BadValue::Str(v.to_string()),
            "must be spec.names.plural+\".\"+spec.group",
        )
    };
    let mut out = Vec::new();
    let generate = object_meta.generate_name.as_deref().unwrap_or("");
    let name = object_meta.name.as_deref().unwrap_or("");
    let mut rest = errs.into_iter().peekable();
    while let Some(e) = rest.next_if(|e| e.field == "metadata.generateName") {
        out.push(e);
    }
    if !generate.is_empty() && generate != required {
        out.push(mismatch("metadata.generateName", generate));
    }
    while let Some(e) = rest.next_if(|e| e.field == "metadata.name") {
        out.push(e);
    }
    if !name.is_empty() && name != required {
        out.push(mismatch("metadata.name", name));
    }
    out.extend(rest);
    out
}

/// Upstream `ValidateCustomResourceDefinition` on a create (after `PrepareForCreate`, so the
/// status holds only the storage version): metadata, [`spec_errors`], `status.storedVersions`,
/// the API approval of protected groups.
pub fn validate_create(crd: &Value) -> Vec<FieldError> {
    let object_meta: ObjectMeta = crd
        .get("metadata")
        .cloned()
        .and_then(|m| serde_json::from_value(m).ok())
        .unwrap_or_default();
    let mut errs = metadata_errors(crd, &object_meta);
    errs.extend(spec_errors(crd));
    if storage_version(crd).is_none() {
        errs.push(FieldError::invalid(
            "status.storedVersions",
            BadValue::Json("null".to_string()),
            "must have at least one stored version",
        ));
    }
    errs.extend(api_approval_errors(crd, None));
    errs
}

/// Upstream `ValidateCustomResourceDefinitionUpdate`'s rules on the fields repel serves by:
/// [`spec_errors`], then `group` and `names.plural` are immutable, and once the CRD is
/// established `scope` and `names.kind` too; the API approval when its state changed.
pub fn validate_update(crd: &Value, old: &Value) -> Vec<FieldError> {
    let object_meta: ObjectMeta = crd
        .get("metadata")
        .cloned()
        .and_then(|m| serde_json::from_value(m).ok())
        .unwrap_or_default();
    let mut errs = meta::update_errors(&object_meta);
    errs.extend(spec_errors(crd));
    let immutable = |path: &str, field: &str| -> Option<FieldError> {
        let new = crd.pointer(path).cloned().unwrap_or(json!(""));
        let was = old.pointer(path).cloned().unwrap_or(json!(""));
        (new != was).then(|| FieldError {
            field: field.to_string(),
            error_type: ErrorType::Invalid,
            bad_value: BadValue::Str(new.as_str().unwrap_or("").to_string()),
            detail: "field is immutable".to_string(),
        })
    };
    let established = old
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Established" && c["status"] == "True")
        });
    if established {
        errs.extend(immutable("/spec/scope", "spec.scope"));
        errs.extend(immutable("/spec/names/kind", "spec.names.kind"));
    }
    errs.extend(immutable("/spec/group", "spec.group"));
    errs.extend(immutable("/spec/names/plural", "spec.names.plural"));
    errs.extend(api_approval_errors(crd, Some(old)));
    errs
}
