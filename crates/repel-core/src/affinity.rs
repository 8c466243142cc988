//! Node selection as the scheduler does it: upstream
//! `k8s.io/component-helpers/scheduling/corev1/nodeaffinity` (`nodeaffinity.go`, v1.35).
//!
//! [`RequiredNodeAffinity`] is a pod's `spec.nodeSelector` AND its required node affinity
//! (upstream `GetRequiredNodeAffinity`); [`NodeSelectorMatcher`] is one compiled
//! `v1.NodeSelector` (terms ORed, requirements within a term ANDed); [`PreferredSchedulingTerms`]
//! sums the weights of matching preferred terms for the NodeAffinity score.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, PreferredSchedulingTerm,
};

use crate::labels::{
    FieldPath, LabelSelector, Operator, SelectorFieldError, aggregate_message, invalid_list,
    new_requirement, not_supported,
};

/// `v1.NodeSelectorOpIn`.
pub const NODE_SELECTOR_OP_IN: &str = "In";
/// `v1.NodeSelectorOpNotIn`.
pub const NODE_SELECTOR_OP_NOT_IN: &str = "NotIn";
/// `v1.NodeSelectorOpExists`.
pub const NODE_SELECTOR_OP_EXISTS: &str = "Exists";
/// `v1.NodeSelectorOpDoesNotExist`.
pub const NODE_SELECTOR_OP_DOES_NOT_EXIST: &str = "DoesNotExist";
/// `v1.NodeSelectorOpGt`.
pub const NODE_SELECTOR_OP_GT: &str = "Gt";
/// `v1.NodeSelectorOpLt`.
pub const NODE_SELECTOR_OP_LT: &str = "Lt";
/// The only node field `matchFields` can see (`metav1.ObjectNameField`).
pub const OBJECT_NAME_FIELD: &str = "metadata.name";
/// `nodeSelectorRequirementsAsFieldSelector` detail for an `In`/`NotIn` without exactly one value.
pub const ERR_FIELD_ONE_ELEMENT: &str = "must have one element";

/// Upstream `validSelectorOperators`, the order of the "supported values" list.
const VALID_SELECTOR_OPERATORS: [&str; 6] = [
    NODE_SELECTOR_OP_IN,
    NODE_SELECTOR_OP_NOT_IN,
    NODE_SELECTOR_OP_EXISTS,
    NODE_SELECTOR_OP_DOES_NOT_EXIST,
    NODE_SELECTOR_OP_GT,
    NODE_SELECTOR_OP_LT,
];
/// Upstream `validFieldSelectorOperators`.
const VALID_FIELD_SELECTOR_OPERATORS: [&str; 2] = [NODE_SELECTOR_OP_IN, NODE_SELECTOR_OP_NOT_IN];

/// Parse errors of node selector terms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AffinityError {
    /// Terms that could not be parsed, their field errors flattened in term order
    /// (upstream `errors.Flatten(errors.NewAggregate(errs))`); shown as upstream's aggregate,
    /// one message alone or several as `[a, b]`.
    #[error("{}", aggregate_message(.0))]
    Invalid(Vec<SelectorFieldError>),
}

impl AffinityError {
    /// The individual field errors.
    pub fn errors(&self) -> &[SelectorFieldError] {
        match self {
            AffinityError::Invalid(errs) => errs,
        }
    }
}

/// One `matchFields` clause: `fields[key] == value` (`In`) or `!=` (`NotIn`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldTerm {
    key: String,
    value: String,
    equal: bool,
}

/// A compiled `v1.NodeSelectorTerm` (upstream `nodeSelectorTerm`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct CompiledTerm {
    match_labels: Option<LabelSelector>,
    match_fields: Option<Vec<FieldTerm>>,
    parse_errs: Vec<SelectorFieldError>,
}

/// Upstream `isEmptyNodeSelectorTerm`: no expressions and no fields.
fn is_empty_term(term: &NodeSelectorTerm) -> bool {
    term.match_expressions
        .as_deref()
        .unwrap_or_default()
        .is_empty()
        && term.match_fields.as_deref().unwrap_or_default().is_empty()
}

/// Upstream `nodeSelectorRequirementsAsSelector`: operators mapped to label operators, each
/// requirement built by `labels.NewRequirement` with its path; an unknown operator is
/// "Unsupported value" on `…operator`.
fn requirements_as_selector(
    reqs: &[NodeSelectorRequirement],
    path: &FieldPath,
) -> Result<LabelSelector, Vec<SelectorFieldError>> {
    let mut errs = Vec::new();
    let mut out = Vec::new();
    for (i, expr) in reqs.iter().enumerate() {
        let p = path.index(i);
        let op = match expr.operator.as_str() {
            NODE_SELECTOR_OP_IN => Operator::In,
            NODE_SELECTOR_OP_NOT_IN => Operator::NotIn,
            NODE_SELECTOR_OP_EXISTS => Operator::Exists,
            NODE_SELECTOR_OP_DOES_NOT_EXIST => Operator::DoesNotExist,
            NODE_SELECTOR_OP_GT => Operator::GreaterThan,
            NODE_SELECTOR_OP_LT => Operator::LessThan,
            other => {
                errs.push(not_supported(
                    &p.child("operator"),
                    other,
                    &VALID_SELECTOR_OPERATORS,
                ));
                continue;
            }
        };
        match new_requirement(&expr.key, op, expr.values.as_deref(), &p) {
            Ok(r) => out.push(r),
            Err(e) => errs.extend(e),
        }
    }
    if errs.is_empty() {
        Ok(LabelSelector::from_requirements(out))
    } else {
        Err(errs)
    }
}

/// Upstream `nodeSelectorRequirementsAsFieldSelector`: only `In`/`NotIn` with exactly one value.
fn requirements_as_field_selector(
    reqs: &[NodeSelectorRequirement],
    path: &FieldPath,
) -> Result<Vec<FieldTerm>, Vec<SelectorFieldError>> {
    let mut errs = Vec::new();
    let mut out = Vec::new();
    for (i, expr) in reqs.iter().enumerate() {
        let p = path.index(i);
        let equal = match expr.operator.as_str() {
            NODE_SELECTOR_OP_IN => true,
            NODE_SELECTOR_OP_NOT_IN => false,
            other => {
                errs.push(not_supported(
                    &p.child("operator"),
                    other,
                    &VALID_FIELD_SELECTOR_OPERATORS,
                ));
                continue;
            }
        };
        match expr.values.as_deref() {
            Some([only]) => out.push(FieldTerm {
                key: expr.key.clone(),
                value: only.clone(),
                equal,
            }),
            values => errs.push(invalid_list(
                &p.child("values"),
                values,
                ERR_FIELD_ONE_ELEMENT,
            )),
        }
    }
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}

impl CompiledTerm {
    /// Upstream `newNodeSelectorTerm`.
    fn new(term: &NodeSelectorTerm, path: &FieldPath) -> Self {
        let mut parse_errs = Vec::new();
        let mut match_labels = None;
        let mut match_fields = None;
        let exprs = term.match_expressions.as_deref().unwrap_or_default();
        if !exprs.is_empty() {
            match requirements_as_selector(exprs, &path.child("matchExpressions")) {
                Ok(sel) => match_labels = Some(sel),
                Err(e) => parse_errs.extend(e),
            }
        }
        let fields = term.match_fields.as_deref().unwrap_or_default();
        if !fields.is_empty() {
            match requirements_as_field_selector(fields, &path.child("matchFields")) {
                Ok(f) => match_fields = Some(f),
                Err(e) => parse_errs.extend(e),
            }
        }
        CompiledTerm {
            match_labels,
            match_fields,
            parse_errs,
        }
    }

    /// Upstream `nodeSelectorTerm.match`: labels must match; fields are checked only when the
    /// node has a name (the node's field set is `{metadata.name: name}`, empty without a name).
    fn matches(&self, labels: &BTreeMap<String, String>, name: &str) -> bool {
        if let Some(sel) = &self.match_labels
            && !sel.matches(labels)
        {
            return false;
        }
        if let Some(fields) = &self.match_fields
            && !name.is_empty()
        {
            let get = |key: &str| if key == OBJECT_NAME_FIELD { name } else { "" };
            return fields.iter().all(|f| (get(&f.key) == f.value) == f.equal);
        }
        true
    }
}

fn node_labels(node: &Node) -> &BTreeMap<String, String> {
    static EMPTY: BTreeMap<String, String> = BTreeMap::new();
    node.metadata.labels.as_ref().unwrap_or(&EMPTY)
}

fn node_name(node: &Node) -> &str {
    node.metadata.name.as_deref().unwrap_or_default()
}

/// A compiled `v1.NodeSelector` with upstream's `LazyErrorNodeSelector` semantics: parse errors
/// are kept per term and reported only when no term matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSelectorMatcher {
    terms: Vec<CompiledTerm>,
}

impl NodeSelectorMatcher {
    /// Upstream `NewLazyErrorNodeSelector` (v1.35):
    ///
    /// 1. Empty terms (no `matchExpressions`, no `matchFields`) are dropped: they select nothing.
    /// 2. Every other term is compiled; a term's parse errors stay with it, with paths
    ///    `nodeSelectorTerms[i].matchExpressions[j]…` / `…matchFields[j]…`.
    pub fn new(sel: &NodeSelector) -> Self {
        Self::with_root(sel, &FieldPath::default())
    }

    fn with_root(sel: &NodeSelector, root: &FieldPath) -> Self {
        let path = root.child("nodeSelectorTerms");
        let terms = sel
            .node_selector_terms
            .iter()
            .enumerate()
            .filter(|(_, t)| !is_empty_term(t))
            .map(|(i, t)| CompiledTerm::new(t, &path.index(i)))
            .collect();
        NodeSelectorMatcher { terms }
    }

    /// Upstream `NewNodeSelector` (v1.35): like [`NodeSelectorMatcher::new`], but any term's
    /// parse error fails the whole selector, all terms' errors flattened in order.
    pub fn try_new(sel: &NodeSelector) -> Result<Self, AffinityError> {
        let matcher = Self::new(sel);
        let errs: Vec<SelectorFieldError> = matcher
            .terms
            .iter()
            .flat_map(|t| t.parse_errs.iter().cloned())
            .collect();
        if errs.is_empty() {
            Ok(matcher)
        } else {
            Err(AffinityError::Invalid(errs))
        }
    }

    /// Upstream `LazyErrorNodeSelector.Match` (v1.35):
    ///
    /// 1. Terms are ORed: the first term that matches gives `Ok(true)`.
    /// 2. Within a term, every `matchExpressions` requirement and every `matchFields`
    ///    requirement must match (ANDed).
    /// 3. A term with parse errors is skipped; its errors are collected.
    /// 4. When no term matches: `Err` with the collected errors (so `Err` always means "does
    ///    not match"), or `Ok(false)` when there were none. No terms never match.
    pub fn matches(&self, node: &Node) -> Result<bool, AffinityError> {
        let labels = node_labels(node);
        let name = node_name(node);
        let mut errs = Vec::new();
        for term in &self.terms {
            if !term.parse_errs.is_empty() {
                errs.extend(term.parse_errs.iter().cloned());
                continue;
            }
            if term.matches(labels, name) {
                return Ok(true);
            }
        }
        if errs.is_empty() {
            Ok(false)
        } else {
            Err(AffinityError::Invalid(errs))
        }
    }

    /// Upstream `NodeSelector.Match`: the match with parse errors ignored (terms that failed to
    /// parse never match).
    pub fn matches_ignoring_errors(&self, node: &Node) -> bool {
        self.matches(node).unwrap_or(false)
    }
}

/// A pod's required node placement: `spec.nodeSelector` AND
/// `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution` (upstream
/// `RequiredNodeAffinity`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequiredNodeAffinity {
    label_selector: Option<LabelSelector>,
    node_selector: Option<NodeSelectorMatcher>,
}

impl RequiredNodeAffinity {
    /// Upstream `GetRequiredNodeAffinity` (v1.35):
    ///
    /// 1. A non-empty `nodeSelector` map becomes `key=value` requirements (unvalidated,
    ///    `labels.SelectorFromSet`).
    /// 2. A present `requiredDuringSchedulingIgnoredDuringExecution` is compiled with
    ///    [`NodeSelectorMatcher::new`] (lazy errors), even when it has no terms.
    pub fn from_pod_spec(spec: &PodSpec) -> Self {
        let label_selector = spec
            .node_selector
            .as_ref()
            .filter(|m| !m.is_empty())
            .map(LabelSelector::from_set);
        let node_selector = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|na| {
                na.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })
            .map(NodeSelectorMatcher::new);
        RequiredNodeAffinity {
            label_selector,
            node_selector,
        }
    }

    /// Upstream `RequiredNodeAffinity.Match` (v1.35):
    ///
    /// 1. If the pod has a `nodeSelector` and the node's labels do not satisfy it: `Ok(false)`.
    /// 2. If the pod has required node affinity: its [`NodeSelectorMatcher::matches`] result.
    /// 3. Otherwise `Ok(true)`.
    pub fn matches(&self, node: &Node) -> Result<bool, AffinityError> {
        if let Some(sel) = &self.label_selector
            && !sel.matches(node_labels(node))
        {
            return Ok(false);
        }
        match &self.node_selector {
            Some(ns) => ns.matches(node),
            None => Ok(true),
        }
    }

    /// True when the pod has neither a `nodeSelector` nor required node affinity, so every
    /// node matches.
    pub fn is_empty(&self) -> bool {
        self.label_selector.is_none() && self.node_selector.is_none()
    }
}

/// One parsed preferred term with its weight.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WeightedTerm {
    term: CompiledTerm,
    weight: i32,
}

/// The scheduler's preferred-affinity score input: the weights of the pod's
/// `preferredDuringSchedulingIgnoredDuringExecution` terms (upstream `PreferredSchedulingTerms`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PreferredSchedulingTerms {
    terms: Vec<WeightedTerm>,
}

impl PreferredSchedulingTerms {
    /// Upstream `NewPreferredSchedulingTerms` (v1.35):
    ///
    /// 1. Terms with weight 0 or an empty preference are skipped, even if malformed.
    /// 2. Every other term is compiled (paths `[i].matchExpressions[j]…`).
    /// 3. Any parse error fails the whole list, all errors flattened in order.
    pub fn from_terms(terms: &[PreferredSchedulingTerm]) -> Result<Self, AffinityError> {
        let root = FieldPath::default();
        let mut errs = Vec::new();
        let mut parsed = Vec::new();
        for (i, t) in terms.iter().enumerate() {
            if t.weight == 0 || is_empty_term(&t.preference) {
                continue;
            }
            let term = CompiledTerm::new(&t.preference, &root.index(i));
            if term.parse_errs.is_empty() {
                parsed.push(WeightedTerm {
                    term,
                    weight: t.weight,
                });
            } else {
                errs.extend(term.parse_errs);
            }
        }
        if errs.is_empty() {
            Ok(PreferredSchedulingTerms { terms: parsed })
        } else {
            Err(AffinityError::Invalid(errs))
        }
    }

    /// [`PreferredSchedulingTerms::from_terms`] on the pod's
    /// `affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution` (none: no terms).
    pub fn from_pod_spec(spec: &PodSpec) -> Result<Self, AffinityError> {
        let terms = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|na| {
                na.preferred_during_scheduling_ignored_during_execution
                    .as_deref()
            })
            .unwrap_or_default();
        Self::from_terms(terms)
    }

    /// Upstream `PreferredSchedulingTerms.Score` (v1.35): the sum of the weights of the terms
    /// that match the node (terms matched as in [`NodeSelectorMatcher::matches`]).
    pub fn score(&self, node: &Node) -> i64 {
        let labels = node_labels(node);
        let name = node_name(node);
        self.terms
            .iter()
            .filter(|t| t.term.matches(labels, name))
            .map(|t| i64::from(t.weight))
            .sum()
    }

    /// True when no term contributes to the score.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

#[cfg(test)]
mod tests;
