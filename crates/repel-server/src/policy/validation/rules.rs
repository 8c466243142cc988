//! `validateMatchResources` and the rules it holds (`validateNamedRuleWithOperations`,
//! `validateRuleWithOperations`, `validateRule`, `validateResources`), shared by policies'
//! `matchConstraints` and bindings' `matchResources`.

use std::collections::HashSet;

use repel_core::validation::meta::is_valid_path_segment_name;
use repel_core::validation::{BadValue, FieldError};
use serde_json::Value;

use super::{MATCH_POLICIES, OPERATIONS, SCOPES, json_list, str_of, strs};

/// `validateResources`: subresource wildcards and their conflicts.
fn validate_resources(resources: &[String], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if resources.is_empty() {
        errs.push(FieldError::required(path, ""));
    }
    let mut with_wild_sub: HashSet<&str> = HashSet::new();
    let mut sub_with_wild_res: HashSet<&str> = HashSet::new();
    let mut double = false;
    let mut single = false;
    let mut without_sub = false;
    for (i, rs) in resources.iter().enumerate() {
        let p = format!("{path}[{i}]");
        if rs.is_empty() {
            errs.push(FieldError::required(p, ""));
            continue;
        }
        if rs == "*/*" {
            double = true;
        }
        if rs == "*" {
            single = true;
        }
        let Some((res, sub)) = rs.split_once('/') else {
            without_sub = rs != "*";
            continue;
        };
        if with_wild_sub.contains(res) {
            errs.push(FieldError::invalid(
                &p,
                BadValue::Str(rs.clone()),
                format!("if '{res}/*' is present, must not specify {rs}"),
            ));
        }
        if sub_with_wild_res.contains(sub) {
            errs.push(FieldError::invalid(
                &p,
                BadValue::Str(rs.clone()),
                format!("if '*/{sub}' is present, must not specify {rs}"),
            ));
        }
        if sub == "*" {
            with_wild_sub.insert(res);
        }
        if res == "*" {
            sub_with_wild_res.insert(sub);
        }
    }
    if resources.len() > 1 && double {
        errs.push(FieldError::invalid(
            path,
            json_list(resources),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if single && without_sub {
        errs.push(FieldError::invalid(
            path,
            json_list(resources),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
    errs
}

/// `validateRuleWithOperations` and `validateRule` (subresources allowed).
fn validate_rule_with_operations(rule: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ops = strs(rule.get("operations")).unwrap_or_default();
    if ops.is_empty() {
        errs.push(FieldError::required(format!("{path}.operations"), ""));
    }
    if ops.len() > 1 && ops.iter().any(|o| o == "*") {
        errs.push(FieldError::invalid(
            format!("{path}.operations"),
            json_list(&ops),
            "if '*' is present, must not specify other operations",
        ));
    }
    for (i, op) in ops.iter().enumerate() {
        if !OPERATIONS.contains(&op.as_str()) {
            errs.push(FieldError::not_supported(
                format!("{path}.operations[{i}]"),
                op,
                OPERATIONS,
            ));
        }
    }
    let groups = strs(rule.get("apiGroups")).unwrap_or_default();
    if groups.is_empty() {
        errs.push(FieldError::required(format!("{path}.apiGroups"), ""));
    }
    if groups.len() > 1 && groups.iter().any(|g| g == "*") {
        errs.push(FieldError::invalid(
            format!("{path}.apiGroups"),
            json_list(&groups),
            "if '*' is present, must not specify other API groups",
        ));
    }
    let versions = strs(rule.get("apiVersions")).unwrap_or_default();
    if versions.is_empty() {
        errs.push(FieldError::required(format!("{path}.apiVersions"), ""));
    }
    if versions.len() > 1 && versions.iter().any(|v| v == "*") {
        errs.push(FieldError::invalid(
            format!("{path}.apiVersions"),
            json_list(&versions),
            "if '*' is present, must not specify other API versions",
        ));
    }
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() {
            errs.push(FieldError::required(format!("{path}.apiVersions[{i}]"), ""));
        }
    }
    let resources = strs(rule.get("resources")).unwrap_or_default();
    errs.extend(validate_resources(&resources, &format!("{path}.resources")));
    if let Some(scope) = str_of(rule, "scope")
        && !SCOPES.contains(&scope)
    {
        errs.push(FieldError::not_supported(
            format!("{path}.scope"),
            scope,
            SCOPES,
        ));
    }
    errs
}

/// `validateNamedRuleWithOperations`: resource names are path segments, not repeated.
fn validate_named_rule(rule: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen = HashSet::new();
    for (i, name) in strs(rule.get("resourceNames"))
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let p = format!("{path}.resourceNames[{i}]");
        for msg in is_valid_path_segment_name(name) {
            errs.push(FieldError::invalid(&p, BadValue::Str(name.clone()), msg));
        }
        if !seen.insert(name.clone()) {
            errs.push(FieldError::duplicate(&p, BadValue::Str(name.clone())));
        }
    }
    errs.extend(validate_rule_with_operations(rule, path));
    errs
}

/// `validateMatchResources`.
pub(super) fn validate_match_resources(m: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match str_of(m, "matchPolicy") {
        None => errs.push(FieldError::required(format!("{path}.matchPolicy"), "")),
        Some(p) if !MATCH_POLICIES.contains(&p) => errs.push(FieldError::not_supported(
            format!("{path}.matchPolicy"),
            p,
            MATCH_POLICIES,
        )),
        Some(_) => {}
    }
    for sel in ["namespaceSelector", "objectSelector"] {
        if m.get(sel).is_none_or(Value::is_null) {
            errs.push(FieldError::required(format!("{path}.{sel}"), ""));
        }
    }
    for key in ["resourceRules", "excludeResourceRules"] {
        for (i, r) in m
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            errs.extend(validate_named_rule(r, &format!("{path}.{key}[{i}]")));
        }
    }
    errs
}
