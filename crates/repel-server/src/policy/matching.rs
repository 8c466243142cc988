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

/// What a rule is matched against (`admission.Attributes` as `rules.Matcher` reads them).
#[derive(Debug, Clone, Copy)]
pub struct RuleRequest<'a> {
    /// The resource's API group.
    pub group: &'a str,
    /// Its version.
    pub version: &'a str,
    /// Its plural name.
    pub resource: &'a str,
    /// The subresource, or empty.
    pub subresource: &'a str,
    /// The request's namespace (empty: cluster-scoped).
    pub namespace: &'a str,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: &'a str,
}

impl<'a> RuleRequest<'a> {
    /// The request of `a`.
    pub fn of(a: &Attributes<'a>) -> RuleRequest<'a> {
        RuleRequest {
            group: &a.resource.group,
            version: &a.resource.version,
            resource: &a.resource.name,
            subresource: a.subresource,
            namespace: a.namespace,
            operation: a.operation,
        }
    }

    fn is_namespace(&self) -> bool {
        self.group.is_empty() && self.version == "v1" && self.resource == "namespaces"
    }
}

/// `Matcher.scope`: `*` (or unset) matches everything; `Namespaced` a request with a
/// namespace that is not for a Namespace; `Cluster` a Namespace or a request without one.
pub fn scope_matches(rule: &NamedRuleWithOperations, r: &RuleRequest) -> bool {
    match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => !r.is_namespace() && !r.namespace.is_empty(),
        Some("Cluster") => r.is_namespace() || r.namespace.is_empty(),
        Some(_) => false,
    }
}

/// `Matcher.operation`: `*` or the request's operation.
pub fn operation_matches(rule: &NamedRuleWithOperations, r: &RuleRequest) -> bool {
    rule.operations
        .iter()
        .flatten()
        .any(|o| o == "*" || o == r.operation)
}

/// `Matcher.group`.
pub fn group_matches(rule: &NamedRuleWithOperations, r: &RuleRequest) -> bool {
    exact_or_wildcard(rule.api_groups.as_ref(), r.group)
}

/// `Matcher.version`.
pub fn version_matches(rule: &NamedRuleWithOperations, r: &RuleRequest) -> bool {
    exact_or_wildcard(rule.api_versions.as_ref(), r.version)
}

/// `Matcher.resource`: `res/sub` where each part is `*` or the request's (no `/`: no
/// subresource).
pub fn resource_matches(rule: &NamedRuleWithOperations, r: &RuleRequest) -> bool {
    rule.resources.iter().flatten().any(|res| {
        let (res, sub) = res.split_once('/').unwrap_or((res.as_str(), ""));
        (res == "*" || res == r.resource) && (sub == "*" || sub == r.subresource)
    })
}

/// `rules.Matcher.Matches` (webhook/predicates/rules, k8s.io/apiserver v1.35): scope,
/// operation, group, version, and resource with subresource all match.
pub fn rule_matches(rule: &NamedRuleWithOperations, a: &Attributes) -> bool {
    let r = RuleRequest::of(a);
    scope_matches(rule, &r)
        && operation_matches(rule, &r)
        && group_matches(rule, &r)
        && version_matches(rule, &r)
        && resource_matches(rule, &r)
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
