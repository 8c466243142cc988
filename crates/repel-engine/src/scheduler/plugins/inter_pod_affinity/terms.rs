//! Pod (anti-)affinity terms as the scheduler parses them (upstream `fwk.AffinityTerm`,
//! `fwk.WeightedAffinityTerm` and the term fields of `framework.PodInfo`, v1.35).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{PodAffinityTerm, WeightedPodAffinityTerm};
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use repel_core::labels::{LabelSelector, LabelSelectorError, label_selector_from_api};

use crate::cluster::{Cluster, PodInfo};

/// A parsed `PodAffinityTerm` (upstream `fwk.AffinityTerm`).
#[derive(Debug, Clone)]
pub(super) struct AffinityTerm {
    /// `namespaces`, or the owning pod's namespace when neither `namespaces` nor
    /// `namespaceSelector` is set.
    pub namespaces: BTreeSet<String>,
    /// `labelSelector` (with `matchLabelKeys`/`mismatchLabelKeys` merged); nil selects nothing.
    pub selector: LabelSelector,
    /// `topologyKey`.
    pub topology_key: String,
    /// `namespaceSelector`; nil selects nothing, `{}` every namespace.
    pub namespace_selector: LabelSelector,
}

/// A parsed `WeightedPodAffinityTerm` (upstream `fwk.WeightedAffinityTerm`).
#[derive(Debug, Clone)]
pub(super) struct WeightedAffinityTerm {
    /// The term.
    pub term: AffinityTerm,
    /// Its weight.
    pub weight: i32,
}

static NO_LABELS: BTreeMap<String, String> = BTreeMap::new();

/// The labels of namespace `name`: those of the Namespace given, none when it was not given
/// (repel takes every namespace to exist; upstream's lister knows them all).
pub(super) fn namespace_labels<'a>(
    cluster: &'a Cluster,
    name: &str,
) -> &'a BTreeMap<String, String> {
    cluster
        .namespace(name)
        .and_then(|n| n.metadata.labels.as_ref())
        .unwrap_or(&NO_LABELS)
}

impl AffinityTerm {
    /// Upstream `AffinityTerm.Matches` (v1.35), with the namespace labels looked up lazily:
    ///
    /// 1. The pod's namespace is listed, or the namespace selector matches its namespace's labels.
    /// 2. And the label selector matches the pod's labels.
    ///
    /// For the incoming pod's own terms upstream first unrolls a non-empty `namespaceSelector`
    /// into the namespaces the lister knows (`mergeAffinityTermNamespacesIfNotEmpty`); matching
    /// the selector against the target pod's namespace labels is the same test.
    pub fn matches(&self, pod: &PodInfo, cluster: &Cluster) -> bool {
        let ns_ok = self.namespaces.contains(&pod.namespace)
            || (!self.namespace_selector.is_nothing()
                && (self.namespace_selector.is_empty()
                    || self
                        .namespace_selector
                        .matches(namespace_labels(cluster, &pod.namespace))));
        ns_ok && self.selector.matches(pod.labels())
    }
}

/// Upstream `podMatchesAllAffinityTerms`: false without terms, else every term matches.
pub(super) fn matches_all(terms: &[AffinityTerm], pod: &PodInfo, cluster: &Cluster) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod, cluster))
}

/// A pod's four lists of parsed terms (the term fields of upstream `framework.PodInfo`).
#[derive(Debug, Clone, Default)]
pub(super) struct PodTerms {
    /// `podAffinity.requiredDuringSchedulingIgnoredDuringExecution`.
    pub required_affinity: Vec<AffinityTerm>,
    /// `podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution`.
    pub required_anti_affinity: Vec<AffinityTerm>,
    /// `podAffinity.preferredDuringSchedulingIgnoredDuringExecution`.
    pub preferred_affinity: Vec<WeightedAffinityTerm>,
    /// `podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution`.
    pub preferred_anti_affinity: Vec<WeightedAffinityTerm>,
}

impl PodTerms {
    /// Upstream `PodInfo.Update` (v1.35): parses each list; a list whose selector fails to parse
    /// is left empty and its error, prefixed by the list's name, joins the aggregate message
    /// (`Err` holds it). Existing pods use the partial result as upstream's cache does.
    pub fn parse(pod: &PodInfo) -> (PodTerms, Option<String>) {
        let affinity = pod.spec().affinity.as_ref();
        let pa = affinity.and_then(|a| a.pod_affinity.as_ref());
        let paa = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        let mut errs = Vec::new();
        let mut required = |name: &str, terms: Option<&Vec<PodAffinityTerm>>| {
            let terms = terms.map(Vec::as_slice).unwrap_or_default();
            let parsed: Result<Vec<_>, _> = terms.iter().map(|t| new_term(pod, t)).collect();
            match parsed {
                Ok(v) => v,
                Err(e) => {
                    errs.push(format!("{name}: {e}"));
                    Vec::new()
                }
            }
        };
        let required_affinity = required(
            "requiredAffinityTerms",
            pa.and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
        );
        let required_anti_affinity = required(
            "requiredAntiAffinityTerms",
            paa.and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
        );
        let mut preferred = |name: &str, terms: Option<&Vec<WeightedPodAffinityTerm>>| {
            let terms = terms.map(Vec::as_slice).unwrap_or_default();
            let parsed: Result<Vec<_>, _> = terms
                .iter()
                .map(|t| {
                    new_term(pod, &t.pod_affinity_term).map(|term| WeightedAffinityTerm {
                        term,
                        weight: t.weight,
                    })
                })
                .collect();
            parsed.unwrap_or_else(|e| {
                errs.push(format!("{name}: {e}"));
                Vec::new()
            })
        };
        let preferred_affinity = preferred(
            "preferredAffinityTerms",
            pa.and_then(|a| {
                a.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
        );
        let preferred_anti_affinity = preferred(
            "preferredAntiAffinityTerms",
            paa.and_then(|a| {
                a.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
        );
        let terms = PodTerms {
            required_affinity,
            required_anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
        };
        (terms, aggregate(errs))
    }
}

/// Upstream `utilerrors.NewAggregate(...).Error()`: nothing for no errors, the message for one,
/// `[a, b]` (repeats dropped) for several.
fn aggregate(mut errs: Vec<String>) -> Option<String> {
    let mut seen = BTreeSet::new();
    errs.retain(|e| seen.insert(e.clone()));
    match errs.len() {
        0 => None,
        1 => errs.pop(),
        _ => Some(format!("[{}]", errs.join(", "))),
    }
}

/// Upstream `newAffinityTerm` (v1.35):
///
/// 1. The label selector, nil selecting nothing (`LabelSelectorAsSelector`).
/// 2. `matchLabelKeys` / `mismatchLabelKeys` merged into it as `key in (v)` / `key notin (v)`
///    for each key the pod carries, when the selector is set. Upstream's API server does this
///    at pod creation (`MatchLabelKeysInPodAffinity`, GA and locked on since v1.33); repel's
///    pods do not pass through it, so the scheduler does it here (merging twice is harmless).
/// 3. The namespaces: the pod's own when neither `namespaces` nor `namespaceSelector` is set.
/// 4. The namespace selector, nil selecting nothing.
fn new_term(pod: &PodInfo, term: &PodAffinityTerm) -> Result<AffinityTerm, LabelSelectorError> {
    let selector = match term.label_selector.as_ref() {
        None => LabelSelector::nothing(),
        Some(sel) => label_selector_from_api(&with_label_keys(sel, term, pod.labels()))?,
    };
    let listed = term.namespaces.as_deref().unwrap_or_default();
    let namespaces = if listed.is_empty() && term.namespace_selector.is_none() {
        BTreeSet::from([pod.namespace.clone()])
    } else {
        listed.iter().cloned().collect()
    };
    let namespace_selector = match term.namespace_selector.as_ref() {
        None => LabelSelector::nothing(),
        Some(sel) => label_selector_from_api(sel)?,
    };
    Ok(AffinityTerm {
        namespaces,
        selector,
        topology_key: term.topology_key.clone(),
        namespace_selector,
    })
}

/// Upstream `applyMatchLabelKeysAndMismatchLabelKeys` (pod strategy, v1.35).
fn with_label_keys(
    sel: &metav1::LabelSelector,
    term: &PodAffinityTerm,
    labels: &BTreeMap<String, String>,
) -> metav1::LabelSelector {
    let mut sel = sel.clone();
    let keys = [
        (term.match_label_keys.as_deref(), "In"),
        (term.mismatch_label_keys.as_deref(), "NotIn"),
    ];
    for (keys, op) in keys {
        for key in keys.unwrap_or_default() {
            if let Some(v) = labels.get(key) {
                sel.match_expressions.get_or_insert_with(Vec::new).push(
                    metav1::LabelSelectorRequirement {
                        key: key.clone(),
                        operator: op.to_string(),
                        values: Some(vec![v.clone()]),
                    },
                );
            }
        }
    }
    sel
}
