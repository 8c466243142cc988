//! Which requests a policy's `matchConstraints` and a binding's `matchResources` select:
//! upstream's `plugin/cel/matching` `Matcher.Matches` and `webhook/predicates/rules`
//! `Matcher` (k8s.io/apiserver v1.35), for the one version repel serves of each resource
//! (`matchPolicy: Equivalent` finds no other version to convert to).

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::{MatchResources, NamedRuleWithOperations};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use repel_core::labels::label_selector_from_api;
use serde_json::Value;

use super::Attributes;

/// `exactOrWildcard`: `*` or the requested value is in `items`.
fn exact_or_wildcard(items: Option<&Vec<String>>, requested: &str) -> bool {
    items
        .into_iter()
        .flatten()
        .any(|i| i == "*" || i == requested)
}

/// `rules.Matcher.Matches`: scope, operation, group, version, resource and subresource.
///
/// 1. Scope `*` (or unset) matches everything; `Namespaced` a namespaced request that is not
///    for a Namespace; `Cluster` a Namespace or a request without a namespace.
/// 2. Operations: `*` or the request's operation.
/// 3. Groups and versions: `*` or the resource's.
/// 4. Resources: `res/sub` where each part is `*` or the request's (no `/`: no subresource).
pub fn rule_matches(rule: &NamedRuleWithOperations, a: &Attributes) -> bool {
    let is_namespace = a.resource.group.is_empty() && a.resource.name == "namespaces";
    let scope = match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => !is_namespace && !a.namespace.is_empty(),
        Some("Cluster") => is_namespace || a.namespace.is_empty(),
        Some(_) => false,
    };
    let operation = rule
        .operations
        .iter()
        .flatten()
        .any(|o| o == "*" || o == a.operation);
    let resource = rule.resources.iter().flatten().any(|r| {
        let (res, sub) = r.split_once('/').unwrap_or((r.as_str(), ""));
        (res == "*" || res == a.resource.name) && (sub == "*" || sub == a.subresource)
    });
    scope
        && operation
        && exact_or_wildcard(rule.api_groups.as_ref(), &a.resource.group)
        && exact_or_wildcard(rule.api_versions.as_ref(), &a.resource.version)
        && resource
}

/// `matchesResourceRules`: a rule matches, and its `resourceNames` are empty or hold the
/// request's name.
fn matches_rules(rules: Option<&Vec<NamedRuleWithOperations>>, a: &Attributes) -> bool {
    rules.into_iter().flatten().any(|r| {
        rule_matches(r, a)
            && r.resource_names
                .as_ref()
                .is_none_or(|names| names.is_empty() || names.iter().any(|n| n == a.name))
    })
}

fn labels_of(obj: &Value) -> BTreeMap<String, String> {
    obj.pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// A selector's verdict on `labels`: an unparsable selector matches nothing (validation
/// refuses one on write).
fn selects(sel: Option<&LabelSelector>, labels: impl Fn() -> BTreeMap<String, String>) -> bool {
    match sel.map(label_selector_from_api) {
        None => true,
        Some(Ok(s)) if s.is_empty() => true,
        Some(Ok(s)) => s.matches(&labels()),
        Some(Err(_)) => false,
    }
}

/// `Matcher.Matches` of one `MatchResources` against a request:
///
/// 1. `namespaceSelector`: a cluster-scoped request other than a Namespace always matches;
///    otherwise the selector must select the namespace's labels (a Namespace's own, for a
///    request on one).
/// 2. `objectSelector`: it must select the object's or the old object's labels.
/// 3. A request an `excludeResourceRules` rule matches is not matched.
/// 4. No `resourceRules` matches every resource; otherwise one of them must match.
pub fn matches(m: &MatchResources, a: &Attributes) -> bool {
    let is_namespace = a.resource.group.is_empty() && a.resource.name == "namespaces";
    let ns_ok = if a.namespace.is_empty() && !is_namespace {
        true
    } else {
        selects(m.namespace_selector.as_ref(), || {
            if is_namespace {
                labels_of(a.object.or(a.old).unwrap_or(&Value::Null))
            } else {
                labels_of(a.namespace_object)
            }
        })
    };
    if !ns_ok {
        return false;
    }
    let obj_ok = match m.object_selector.as_ref().map(label_selector_from_api) {
        None => true,
        Some(Ok(s)) if s.is_empty() => true,
        Some(Ok(s)) => [a.object, a.old]
            .into_iter()
            .flatten()
            .any(|o| s.matches(&labels_of(o))),
        Some(Err(_)) => false,
    };
    if !obj_ok {
        return false;
    }
    if matches_rules(m.exclude_resource_rules.as_ref(), a) {
        return false;
    }
    match &m.resource_rules {
        Some(rules) if !rules.is_empty() => matches_rules(Some(rules), a),
        _ => true,
    }
}

#[cfg(test)]
mod tests;
