//! Upstream's `ObjectMeta` validation (`k8s.io/apimachinery/pkg/api/validation/objectmeta.go`):
//! the name by each kind's rule, `generateName`, the namespace, labels and annotations, with
//! upstream's field errors byte for byte.
//!
//! kube-apiserver validates metadata twice on a create: the kind's strategy validates it with
//! the kind's name function (a DNS-1123 subdomain for most kinds, a label for namespaces and
//! StatefulSets) as part of the object's own validation, and when that passed, the generic
//! registry validates it again with the path-segment rule (`may not be '..'`,
//! `may not contain '/'`) — the only name rule for kinds whose strategy checks no name
//! (PodDisruptionBudgets, core/v1 Events). [`strategy_errors`] is the first pass,
//! [`generic_errors`] the second. Finalizers, owner references and managed fields are not
//! checked (the server keeps what it is sent).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{BadValue, ErrorType, FieldError};
use crate::names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value,
};

/// Upstream `TotalAnnotationSizeLimitB`: keys and values together, 256 KiB.
pub const TOTAL_ANNOTATION_SIZE_LIMIT_B: usize = 256 * 1024;
/// Upstream `GenerateName`'s cut: the prefix keeps at most 63 − 5 bytes.
pub const MAX_GENERATED_NAME_PREFIX: usize = 58;

/// How a kind's names are validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain` (253 characters): pods, nodes, most workloads, leases, classes.
    DnsSubdomain,
    /// `NameIsDNSLabel` (63 characters): namespaces, StatefulSets.
    DnsLabel,
    /// `NameIsDNS1035Label` (63 characters, starting with a letter): Services.
    Dns1035Label,
    /// No rule in the kind's strategy but the path-segment rule (RBAC's `ValidateRBACName`),
    /// or none at all (the generic pass applies it then).
    PathSegment,
}

/// The name rule of a served kind's strategy.
pub fn name_rule(kind: &str) -> NameRule {
    match kind {
        "Namespace" | "StatefulSet" => NameRule::DnsLabel,
        "Service" => NameRule::Dns1035Label,
        "PodDisruptionBudget"
        | "Event"
        | "Role"
        | "RoleBinding"
        | "ClusterRole"
        | "ClusterRoleBinding" => NameRule::PathSegment,
        _ => NameRule::DnsSubdomain,
    }
}

/// Upstream `maskTrailingDash`: a prefix may end in `-`; it is checked with its last two
/// bytes replaced by `a` (so `foo-` is checked as `foa`), as upstream does.
fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        let cut = name.len() - 2;
        if name.is_char_boundary(cut) {
            return format!("{}a", &name[..cut]);
        }
    }
    name.to_string()
}

/// Upstream `IsValidPathSegmentName`.
pub fn is_valid_path_segment_name(name: &str) -> Vec<String> {
    for bad in [".", ".."] {
        if name == bad {
            return vec![format!("may not be '{bad}'")];
        }
    }
    is_valid_path_segment_prefix(name)
}

/// Upstream `IsValidPathSegmentPrefix`.
pub fn is_valid_path_segment_prefix(name: &str) -> Vec<String> {
    ["/", "%"]
        .iter()
        .filter(|bad| name.contains(*bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

/// The messages of `rule` for `name` (`prefix`: a `generateName`).
pub fn check_name(rule: NameRule, name: &str, prefix: bool) -> Vec<String> {
    match rule {
        NameRule::DnsSubdomain if prefix => is_dns1123_subdomain(&mask_trailing_dash(name)),
        NameRule::DnsSubdomain => is_dns1123_subdomain(name),
        NameRule::DnsLabel if prefix => is_dns1123_label(&mask_trailing_dash(name)),
        NameRule::DnsLabel => is_dns1123_label(name),
        NameRule::Dns1035Label if prefix => is_dns1035_label(&mask_trailing_dash(name)),
        NameRule::Dns1035Label => is_dns1035_label(name),
        NameRule::PathSegment if prefix => is_valid_path_segment_prefix(name),
        NameRule::PathSegment => is_valid_path_segment_name(name),
    }
}

/// The name upstream's `SimpleNameGenerator` makes of `prefix`: at most
/// [`MAX_GENERATED_NAME_PREFIX`] bytes of it, then the 5-character `suffix`.
pub fn generated_name(prefix: &str, suffix: &str) -> String {
    let mut cut = prefix.len().min(MAX_GENERATED_NAME_PREFIX);
    while !prefix.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &prefix[..cut])
}

/// Upstream `ValidateLabels` on `metadata.labels`: each key as a qualified name, each value as
/// a label value (in key order: upstream walks a Go map, in no fixed order).
pub fn validate_labels(meta: &ObjectMeta, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in meta.labels.iter().flatten() {
        for m in is_qualified_name(k) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.clone()), m));
        }
        for m in is_valid_label_value(v) {
            errs.push(FieldError::invalid(path, BadValue::Str(v.clone()), m));
        }
    }
    errs
}

/// Upstream `ValidateAnnotations`: each key, lower-cased, as a qualified name; keys and values
/// together at most [`TOTAL_ANNOTATION_SIZE_LIMIT_B`] bytes.
pub fn validate_annotations(meta: &ObjectMeta, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut total = 0usize;
    for (k, v) in meta.annotations.iter().flatten() {
        for m in is_qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.clone()), m));
        }
        total = total.saturating_add(k.len()).saturating_add(v.len());
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B {
        errs.push(FieldError {
            field: path.to_string(),
            error_type: ErrorType::TooLong,
            bad_value: BadValue::Omitted,
            detail: format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes"),
        });
    }
    errs
}

fn meta_errors(meta: &ObjectMeta, namespaced: bool, rule: NameRule) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let generate = meta.generate_name.as_deref().unwrap_or("");
    if !generate.is_empty() {
        for m in check_name(rule, generate, true) {
            errs.push(FieldError::invalid(
                "metadata.generateName",
                BadValue::Str(generate.to_string()),
                m,
            ));
        }
    }
    let name = meta.name.as_deref().unwrap_or("");
    if name.is_empty() {
        errs.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        for m in check_name(rule, name, false) {
            errs.push(FieldError::invalid(
                "metadata.name",
                BadValue::Str(name.to_string()),
                m,
            ));
        }
    }
    let ns = meta.namespace.as_deref().unwrap_or("");
    if namespaced {
        if ns.is_empty() {
            errs.push(FieldError::required("metadata.namespace", ""));
        } else {
            for m in is_dns1123_label(ns) {
                errs.push(FieldError::invalid(
                    "metadata.namespace",
                    BadValue::Str(ns.to_string()),
                    m,
                ));
            }
        }
    } else if !ns.is_empty() {
        errs.push(FieldError::forbidden(
            "metadata.namespace",
            "not allowed on this type",
        ));
    }
    errs.extend(validate_labels(meta, "metadata.labels"));
    errs.extend(validate_annotations(meta, "metadata.annotations"));
    errs
}

/// The metadata errors of `kind`'s strategy on a create (none for kinds whose strategy checks
/// no metadata: PodDisruptionBudgets and core/v1 Events), with the kind's extra name rules
/// (CronJob names of at most 52 characters; PriorityClass's reserved `system-` prefix).
pub fn strategy_errors(
    kind: &str,
    meta: &ObjectMeta,
    namespaced: bool,
    priority_class: Option<(i32, bool)>,
) -> Vec<FieldError> {
    let rule = name_rule(kind);
    if rule == NameRule::PathSegment {
        return Vec::new();
    }
    let mut errs = meta_errors(meta, namespaced, rule);
    let name = meta.name.as_deref().unwrap_or("");
    if kind == "CronJob" && name.len() > 52 {
        errs.push(FieldError::invalid(
            "metadata.name",
            BadValue::Str(name.to_string()),
            "must be no more than 52 characters",
        ));
    }
    if let Some((value, global_default)) = priority_class
        && let Some(e) = system_priority_class_error(name, value, global_default)
    {
        errs.push(e);
    }
    errs
}

/// The generic registry's second pass: the same checks with the path-segment name rule. Only
/// reached when [`strategy_errors`] found nothing.
pub fn generic_errors(meta: &ObjectMeta, namespaced: bool) -> Vec<FieldError> {
    meta_errors(meta, namespaced, NameRule::PathSegment)
}

/// `ValidateObjectMetaUpdate`'s part that can change: labels and annotations (the name and
/// namespace come from the stored object).
pub fn update_errors(meta: &ObjectMeta) -> Vec<FieldError> {
    let mut errs = validate_labels(meta, "metadata.labels");
    errs.extend(validate_annotations(meta, "metadata.annotations"));
    errs
}

/// Upstream's system PriorityClasses: name, value, globalDefault.
const SYSTEM_PRIORITY_CLASSES: [(&str, i32, bool); 2] = [
    ("system-node-critical", 2_000_001_000, false),
    ("system-cluster-critical", 2_000_000_000, false),
];

/// `ValidatePriorityClass`'s rules on names with the reserved `system-` prefix
/// (`IsKnownSystemPriorityClass`), and on user values above `HighestUserDefinablePriority`.
fn system_priority_class_error(name: &str, value: i32, global_default: bool) -> Option<FieldError> {
    const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;
    if name.starts_with("system-") {
        let err = match SYSTEM_PRIORITY_CLASSES.iter().find(|c| c.0 == name) {
            None => format!("{name} is not a known system priority class"),
            Some(c) if c.1 != value => format!("value of {} PriorityClass must be {}", c.0, c.1),
            Some(c) if c.2 != global_default => {
                format!("globalDefault of {} PriorityClass must be {}", c.0, c.2)
            }
            Some(_) => return None,
        };
        return Some(FieldError::forbidden(
            "metadata.name",
            format!(
                "priority class names with 'system-' prefix are reserved for system use only. error: {err}"
            ),
        ));
    }
    (value > HIGHEST_USER_DEFINABLE_PRIORITY).then(|| {
        FieldError::forbidden(
            "value",
            format!(
                "maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
            ),
        )
    })
}

#[cfg(test)]
mod tests;
