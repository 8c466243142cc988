//! `ValidateValidatingAdmissionPolicyBinding`: the policy's name, the paramRef, the match
//! resources and the validation actions.

use std::collections::HashSet;

use repel_core::names::is_dns1123_subdomain;
use repel_core::validation::meta::is_valid_path_segment_name;
use repel_core::validation::{BadValue, FieldError};
use serde_json::{Value, json};

use super::rules::validate_match_resources;
use super::{DENY_AND_WARN, VALIDATION_ACTIONS, json_list, str_of, strs};

/// Upstream `validateValidatingAdmissionPolicyBindingSpec`: the policy's name, the paramRef,
/// the match resources (at upstream's misspelt path `spec.matchResouces`) and the validation
/// actions.
pub fn validate_binding(obj: &Value) -> Vec<FieldError> {
    let spec = obj.get("spec").cloned().unwrap_or(json!({}));
    let mut errs = Vec::new();
    let policy = str_of(&spec, "policyName").unwrap_or("");
    if policy.is_empty() {
        errs.push(FieldError::required("spec.policyName", ""));
    } else {
        for msg in is_dns1123_subdomain(policy) {
            errs.push(FieldError::invalid(
                "spec.policyName",
                BadValue::Str(policy.to_string()),
                msg,
            ));
        }
    }
    if let Some(pr) = spec.get("paramRef").filter(|p| p.is_object()) {
        errs.extend(validate_param_ref(pr));
    }
    if let Some(m) = spec.get("matchResources").filter(|m| m.is_object()) {
        errs.extend(validate_match_resources(m, "spec.matchResouces"));
    }
    let actions = strs(spec.get("validationActions")).unwrap_or_default();
    let path = "spec.validationActions";
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, a) in actions.iter().enumerate() {
        if !VALIDATION_ACTIONS.contains(&a.as_str()) {
            errs.push(FieldError::not_supported(
                format!("{path}[{i}]"),
                a,
                VALIDATION_ACTIONS,
            ));
        }
        if !seen.insert(a) {
            errs.push(FieldError::duplicate(
                format!("{path}[{i}]"),
                BadValue::Str(a.clone()),
            ));
        }
    }
    if seen.contains("Deny") && seen.contains("Warn") {
        errs.push(FieldError::invalid(
            path,
            json_list(&actions),
            DENY_AND_WARN,
        ));
    }
    if seen.is_empty() {
        errs.push(FieldError::required(
            path,
            "at least one validation action is required",
        ));
    }
    errs
}

/// `validateParamRef`.
fn validate_param_ref(pr: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let path = "spec.paramRef";
    let name = str_of(pr, "name").unwrap_or("");
    let selector = pr.get("selector").filter(|s| !s.is_null());
    if !name.is_empty() {
        for msg in is_valid_path_segment_name(name) {
            errs.push(FieldError::invalid(
                format!("{path}.name"),
                BadValue::Str(name.to_string()),
                msg,
            ));
        }
        if selector.is_some() {
            errs.push(FieldError::forbidden(
                format!("{path}.name"),
                "name and selector are mutually exclusive",
            ));
        }
    }
    if selector.is_some() && !name.is_empty() {
        errs.push(FieldError::forbidden(
            format!("{path}.selector"),
            "name and selector are mutually exclusive",
        ));
    }
    if name.is_empty() && selector.is_none() {
        errs.push(FieldError::required(
            path,
            "one of name or selector must be specified",
        ));
    }
    match str_of(pr, "parameterNotFoundAction") {
        None | Some("") => errs.push(FieldError::required(
            format!("{path}.parameterNotFoundAction"),
            "",
        )),
        Some(a) if a != "Deny" && a != "Allow" => errs.push(FieldError::not_supported(
            format!("{path}.parameterNotFoundAction"),
            a,
            &["Deny", "Allow"],
        )),
        Some(_) => {}
    }
    errs
}
