//! The defaulting and validation of ValidatingAdmissionPolicies and their bindings:
//! `SetDefaults_ValidatingAdmissionPolicySpec`, `SetDefaults_MatchResources`,
//! `SetDefaults_Rule` (pkg/apis/admissionregistration/v1) and
//! `ValidateValidatingAdmissionPolicy` / `ValidateValidatingAdmissionPolicyBinding`
//! (pkg/apis/admissionregistration/validation, v1.35), with upstream's paths and messages.
//!
//! Expressions are compiled with [`super::cel::compile`], which finds syntax errors,
//! undeclared variables and the result type of an expression whose type is evident from its
//! outermost operator or literal; upstream's type checker finds more (`found no matching
//! overload …`), which here surface when the expression runs. Label selectors' key and value
//! syntax (`ValidateLabelSelector`) is not checked: a selector that does not parse selects
//! nothing.

use std::collections::HashSet;

use repel_core::names::{is_dns1035_label, is_dns1123_subdomain, is_qualified_name};
use repel_core::validation::{BadValue, FieldError};
use serde_json::{Value, json};

use super::cel::{self, Kind};

mod binding;
mod rules;

pub use binding::validate_binding;
use rules::validate_match_resources;

/// `supportedFailurePolicies`, sorted as `sets.String.List()` sorts them.
const FAILURE_POLICIES: &[&str] = &["Fail", "Ignore"];
/// `supportedMatchPolicies`.
const MATCH_POLICIES: &[&str] = &["Equivalent", "Exact"];
/// `supportedOperations`.
const OPERATIONS: &[&str] = &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
/// `validScopes`.
const SCOPES: &[&str] = &["*", "Cluster", "Namespaced"];
/// `supportedValidationPolicyReason`.
const REASONS: &[&str] = &["Forbidden", "Invalid", "RequestEntityTooLarge"];
/// `validValidationActions`.
const VALIDATION_ACTIONS: &[&str] = &["Audit", "Deny", "Warn"];
/// `maxAuditAnnotations`.
const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// `maxAuditAnnotationValueExpressionLength`.
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH: usize = 5 * 1024;
/// The validation action message when both `Deny` and `Warn` are given.
pub const DENY_AND_WARN: &str = "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)";

fn defaults_match_resources(m: &mut Value) {
    if !m.is_object() {
        return;
    }
    if m.get("matchPolicy").is_none_or(Value::is_null) {
        m["matchPolicy"] = json!("Equivalent");
    }
    for sel in ["namespaceSelector", "objectSelector"] {
        if m.get(sel).is_none_or(Value::is_null) {
            m[sel] = json!({});
        }
    }
    for rules in ["resourceRules", "excludeResourceRules"] {
        if let Some(list) = m.get_mut(rules).and_then(Value::as_array_mut) {
            for r in list {
                if r.is_object() && r.get("scope").is_none_or(Value::is_null) {
                    r["scope"] = json!("*");
                }
            }
        }
    }
}

/// `SetDefaults_ValidatingAdmissionPolicySpec` and what it nests: `failurePolicy: Fail`;
/// `matchConstraints`' `matchPolicy: Equivalent`, empty selectors and rule `scope: "*"`.
pub fn set_policy_defaults(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    if spec.get("failurePolicy").is_none_or(Value::is_null) {
        spec["failurePolicy"] = json!("Fail");
    }
    if let Some(m) = spec.get_mut("matchConstraints") {
        defaults_match_resources(m);
    }
}

/// The defaults of a binding: its `matchResources` as a policy's `matchConstraints`.
pub fn set_binding_defaults(obj: &mut Value) {
    if let Some(m) = obj.pointer_mut("/spec/matchResources") {
        defaults_match_resources(m);
    }
}

fn strs(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .map(|x| x.as_str().unwrap_or("").to_string())
            .collect()
    })
}

fn str_of<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn json_list(items: &[String]) -> BadValue {
    BadValue::Json(serde_json::to_string(items).unwrap_or_default())
}

/// A compile error as `convertCELErrorToValidationError` reports it: `Invalid` with the
/// expression as the value.
fn compile_errors(
    path: &str,
    expression: &str,
    declared: &[&str],
    want: &[Kind],
) -> Vec<FieldError> {
    compile_errors_shown(path, expression, expression, declared, want)
}

/// [`compile_errors`] of `compiled` (a trimmed expression), showing `expression` as written.
fn compile_errors_shown(
    path: &str,
    expression: &str,
    compiled: &str,
    declared: &[&str],
    want: &[Kind],
) -> Vec<FieldError> {
    match cel::check(compiled, declared, want) {
        Ok(()) => Vec::new(),
        Err(detail) => vec![FieldError::invalid(
            path,
            BadValue::Str(expression.to_string()),
            detail,
        )],
    }
}

/// `isCELIdentifier`.
fn is_cel_identifier(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !RESERVED.contains(&name)
}

/// Upstream `validateValidatingAdmissionPolicySpec` of a policy (its metadata is validated
/// with every kind's): failure policy, paramKind, match constraints, match conditions,
/// variables, validations and audit annotations — every error, in upstream's order.
pub fn validate_policy(obj: &Value) -> Vec<FieldError> {
    let spec = obj.get("spec").cloned().unwrap_or(json!({}));
    let mut errs = Vec::new();
    match str_of(&spec, "failurePolicy") {
        None => errs.push(FieldError::required("spec.failurePolicy", "")),
        Some(p) if !FAILURE_POLICIES.contains(&p) => errs.push(FieldError::not_supported(
            "spec.failurePolicy",
            p,
            FAILURE_POLICIES,
        )),
        Some(_) => {}
    }
    let has_params = spec.get("paramKind").is_some_and(Value::is_object);
    if let Some(pk) = spec.get("paramKind").filter(|p| p.is_object()) {
        errs.extend(validate_param_kind(pk));
    }
    match spec.get("matchConstraints").filter(|m| !m.is_null()) {
        None => errs.push(FieldError::required("spec.matchConstraints", "")),
        Some(m) => {
            errs.extend(validate_match_resources(m, "spec.matchConstraints"));
            if m.get("resourceRules")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
            {
                errs.push(FieldError::required(
                    "spec.matchConstraints.resourceRules",
                    "",
                ));
            }
        }
    }
    let has_variables = spec
        .get("variables")
        .and_then(Value::as_array)
        .is_some_and(|v| !v.is_empty());
    let mut declared: Vec<&str> = vec!["object", "oldObject", "request", "namespaceObject"];
    if has_params {
        declared.push("params");
    }
    if has_variables {
        declared.push("variables");
    }
    // Match conditions and validations may call the authorizer; message expressions may not.
    let mut with_authorizer = declared.clone();
    with_authorizer.push("authorizer");
    errs.extend(validate_match_conditions(&spec, &with_authorizer));
    for (i, v) in spec
        .get("variables")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let p = format!("spec.variables[{i}]");
        let name = str_of(v, "name").unwrap_or("");
        if name.trim().is_empty() {
            errs.push(FieldError::required(
                format!("{p}.name"),
                "name is not specified",
            ));
        } else if !is_cel_identifier(name) {
            errs.push(FieldError::invalid(
                format!("{p}.name"),
                BadValue::Str(name.to_string()),
                "name is not a valid CEL identifier",
            ));
        }
        let expr = str_of(v, "expression").unwrap_or("");
        if expr.trim().is_empty() {
            errs.push(FieldError::required(
                format!("{p}.expression"),
                "expression is not specified",
            ));
        } else {
            errs.extend(compile_errors(
                &format!("{p}.expression"),
                expr,
                &with_authorizer,
                &[],
            ));
        }
    }
    let validations = spec.get("validations").and_then(Value::as_array);
    let audits = spec.get("auditAnnotations").and_then(Value::as_array);
    if validations.is_none_or(Vec::is_empty) && audits.is_none_or(Vec::is_empty) {
        let msg = "validations or auditAnnotations must contain at least one item";
        errs.push(FieldError::required("spec.validations", msg));
        errs.push(FieldError::required("spec.auditAnnotations", msg));
        return errs;
    }
    for (i, v) in validations.into_iter().flatten().enumerate() {
        errs.extend(validate_validation(
            v,
            &format!("spec.validations[{i}]"),
            &with_authorizer,
            &declared,
        ));
    }
    if let Some(audits) = audits {
        if audits.len() > MAX_AUDIT_ANNOTATIONS {
            errs.push(FieldError::invalid(
                "spec.auditAnnotations",
                BadValue::Json(serde_json::to_string(audits).unwrap_or_default()),
                format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
            ));
        }
        let policy_name = obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut keys = HashSet::new();
        for (i, a) in audits.iter().enumerate() {
            let p = format!("spec.auditAnnotations[{i}]");
            let key = str_of(a, "key").unwrap_or("");
            if policy_name.is_empty() {
                errs.push(FieldError::invalid(
                    format!("{p}.key"),
                    BadValue::Str(key.to_string()),
                    "requires metadata.name be non-empty",
                ));
            } else {
                let qualified = format!("{policy_name}/{key}");
                for msg in is_qualified_name(&qualified) {
                    errs.push(FieldError::invalid(
                        format!("{p}.key"),
                        BadValue::Str(qualified.clone()),
                        msg,
                    ));
                }
            }
            let value = str_of(a, "valueExpression").unwrap_or("");
            let trimmed = value.trim();
            if trimmed.is_empty() {
                errs.push(FieldError::required(
                    format!("{p}.valueExpression"),
                    "valueExpression is not specified",
                ));
            } else if trimmed.len() > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH {
                errs.push(FieldError::required(
                    format!("{p}.valueExpression"),
                    format!(
                        "must not exceed {MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"
                    ),
                ));
            } else {
                errs.extend(compile_errors_shown(
                    &format!("{p}.valueExpression"),
                    value,
                    trimmed,
                    &with_authorizer,
                    &[Kind::String, Kind::Null],
                ));
            }
            if !keys.insert(key.to_string()) {
                errs.push(FieldError::duplicate(
                    format!("{p}.key"),
                    BadValue::Str(key.to_string()),
                ));
            }
        }
    }
    errs
}

/// `validateParamKind`.
fn validate_param_kind(pk: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let path = "spec.paramKind";
    let api_version = str_of(pk, "apiVersion").unwrap_or("");
    if api_version.is_empty() {
        errs.push(FieldError::required(format!("{path}.apiVersion"), ""));
    } else {
        let (group, version) = match api_version.matches('/').count() {
            0 => ("", api_version),
            1 => api_version.split_once('/').unwrap_or(("", api_version)),
            _ => {
                errs.push(FieldError::invalid(
                    format!("{path}.apiVersion"),
                    BadValue::Str(api_version.to_string()),
                    format!("unexpected GroupVersion string: {api_version}"),
                ));
                ("", "")
            }
        };
        if !group.is_empty() {
            let e = is_dns1123_subdomain(group);
            if !e.is_empty() {
                errs.push(FieldError::invalid(
                    format!("{path}.apiVersion"),
                    BadValue::Str(group.to_string()),
                    e.join(","),
                ));
            }
        }
        if version.is_empty() {
            errs.push(FieldError::invalid(
                format!("{path}.apiVersion"),
                BadValue::Str(api_version.to_string()),
                "version must be specified",
            ));
        } else {
            let e = is_dns1035_label(version);
            if !e.is_empty() {
                errs.push(FieldError::invalid(
                    format!("{path}.apiVersion"),
                    BadValue::Str(version.to_string()),
                    e.join(","),
                ));
            }
        }
    }
    let kind = str_of(pk, "kind").unwrap_or("");
    if kind.is_empty() {
        errs.push(FieldError::required(format!("{path}.kind"), ""));
    } else {
        let e = is_dns1035_label(&kind.to_lowercase());
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                format!("{path}.kind"),
                BadValue::Str(kind.to_string()),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    e.join(",")
                ),
            ));
        }
    }
    errs
}

/// `validateMatchConditions`: at most 64, each named (a qualified name, not repeated) with an
/// expression that compiles to a bool.
fn validate_match_conditions(spec: &Value, declared: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(list) = spec.get("matchConditions").and_then(Value::as_array) else {
        return errs;
    };
    if list.len() > 64 {
        errs.push(FieldError::invalid(
            "spec.matchConditions",
            BadValue::Int(list.len() as i64),
            "must have at most 64 items",
        ));
        if let Some(e) = errs.last_mut() {
            e.error_type = repel_core::validation::ErrorType::TooMany;
        }
    }
    let mut names = HashSet::new();
    for (i, mc) in list.iter().enumerate() {
        let p = format!("spec.matchConditions[{i}]");
        let expr = str_of(mc, "expression").unwrap_or("").trim();
        if expr.is_empty() {
            errs.push(FieldError::required(format!("{p}.expression"), ""));
        } else {
            errs.extend(compile_errors(
                &format!("{p}.expression"),
                expr,
                declared,
                &[Kind::Bool],
            ));
        }
        let name = str_of(mc, "name").unwrap_or("");
        if name.is_empty() {
            errs.push(FieldError::required(format!("{p}.name"), ""));
        } else {
            for msg in is_qualified_name(name) {
                errs.push(FieldError::invalid(
                    format!("{p}.name"),
                    BadValue::Str(name.to_string()),
                    msg,
                ));
            }
        }
        if !name.is_empty() && !names.insert(name.to_string()) {
            errs.push(FieldError::duplicate(
                format!("{p}.name"),
                BadValue::Str(name.to_string()),
            ));
        }
    }
    errs
}

/// `validateValidation`.
fn validate_validation(
    v: &Value,
    path: &str,
    declared: &[&str],
    message_declared: &[&str],
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let expr = str_of(v, "expression").unwrap_or("");
    let message = str_of(v, "message").unwrap_or("");
    let message_expression = str_of(v, "messageExpression").unwrap_or("");
    if expr.trim().is_empty() {
        errs.push(FieldError::required(
            format!("{path}.expression"),
            "expression is not specified",
        ));
    } else {
        errs.extend(compile_errors(
            &format!("{path}.expression"),
            expr,
            declared,
            &[Kind::Bool],
        ));
    }
    if !message_expression.is_empty() && message_expression.trim().is_empty() {
        errs.push(FieldError::invalid(
            format!("{path}.messageExpression"),
            BadValue::Str(message_expression.to_string()),
            "must be non-empty if specified",
        ));
    } else if !message_expression.trim().is_empty() {
        errs.extend(compile_errors(
            &format!("{path}.messageExpression"),
            message_expression,
            message_declared,
            &[Kind::String],
        ));
    }
    let trimmed = message.trim();
    if !message.is_empty() && trimmed.is_empty() {
        errs.push(FieldError::invalid(
            format!("{path}.message"),
            BadValue::Str(message.to_string()),
            "message must be non-empty if specified",
        ));
    } else if trimmed.contains(['\n', '\r']) {
        errs.push(FieldError::invalid(
            format!("{path}.message"),
            BadValue::Str(message.to_string()),
            "message must not contain line breaks",
        ));
    }
    if let Some(reason) = str_of(v, "reason")
        && !REASONS.contains(&reason)
    {
        errs.push(FieldError::not_supported(
            format!("{path}.reason"),
            reason,
            REASONS,
        ));
    }
    errs
}

#[cfg(test)]
mod tests;
