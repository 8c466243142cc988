//! NodeAffinity (upstream v1.35): Filter on `spec.nodeSelector` and required node affinity,
//! PreFilter narrowing to the nodes named by `matchFields metadata.name In`, Score by the
//! weights of the matching preferred terms.

use std::collections::BTreeSet;

use repel_core::affinity::{PreferredSchedulingTerms, RequiredNodeAffinity};
use repel_core::explain::ERR_REASON_NODE_AFFINITY;
use repel_core::taint::default_normalize_score;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, MAX_NODE_SCORE, Plugin, PreFilterResult, Status};

/// The plugin's name.
pub const NAME: &str = "NodeAffinity";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 2;
/// Upstream `errReasonConflict`: every term names disjoint nodes.
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

/// The NodeAffinity plugin.
#[derive(Debug, Default)]
pub struct NodeAffinity;

#[derive(Debug, Clone)]
struct PreFilterState(RequiredNodeAffinity);

#[derive(Debug, Clone)]
struct PreScoreState(PreferredSchedulingTerms);

impl Plugin for NodeAffinity {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Upstream `NodeAffinity.PreFilter`: Skip without selector or required affinity; otherwise
    /// the union over terms of the `metadata.name In` values (intersected within a term), when
    /// every term has one; an empty union is "pod affinity terms conflict".
    fn pre_filter(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &Cluster,
    ) -> (Status, PreFilterResult) {
        let spec = pod.spec();
        let required = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| {
                n.required_during_scheduling_ignored_during_execution
                    .as_ref()
            });
        if required.is_none() && spec.node_selector.is_none() {
            return (Status::skip(), None);
        }
        state.write(
            NAME,
            PreFilterState(RequiredNodeAffinity::from_pod_spec(spec)),
        );
        let Some(required) = required.filter(|r| !r.node_selector_terms.is_empty()) else {
            return (Status::success(), None);
        };
        let mut names: Option<BTreeSet<String>> = None;
        for term in &required.node_selector_terms {
            let mut term_names: Option<BTreeSet<String>> = None;
            for r in term.match_fields.iter().flatten() {
                if r.key == "metadata.name" && r.operator == "In" {
                    let s: BTreeSet<String> = r.values.iter().flatten().cloned().collect();
                    term_names = Some(match term_names {
                        None => s,
                        Some(t) => t.intersection(&s).cloned().collect(),
                    });
                }
            }
            let Some(t) = term_names else {
                return (Status::success(), None);
            };
            names.get_or_insert_with(BTreeSet::new).extend(t);
        }
        match names {
            Some(n) if n.is_empty() => (Status::unresolvable(NAME, ERR_REASON_CONFLICT), None),
            other => (Status::success(), other),
        }
    }

    fn filter(&self, state: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        let fresh;
        let required = match state.read::<PreFilterState>(NAME) {
            Some(s) => &s.0,
            None => {
                fresh = RequiredNodeAffinity::from_pod_spec(pod.spec());
                &fresh
            }
        };
        if required.matches(&node.node).unwrap_or(false) {
            Status::success()
        } else {
            Status::unresolvable(NAME, ERR_REASON_NODE_AFFINITY)
        }
    }

    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &[&NodeInfo],
        _: &Cluster,
    ) -> Status {
        match PreferredSchedulingTerms::from_pod_spec(pod.spec()) {
            Ok(terms) if terms.is_empty() => Status::skip(),
            Ok(terms) => {
                state.write(NAME, PreScoreState(terms));
                Status::success()
            }
            Err(e) => Status::error(NAME, e.to_string()),
        }
    }

    fn score(
        &self,
        state: &CycleState,
        _: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) -> Result<i64, Status> {
        Ok(state
            .read::<PreScoreState>(NAME)
            .map_or(0, |s| s.0.score(&node.node)))
    }

    fn normalize_score(&self, _: &CycleState, _: &PodInfo, scores: &mut [i64]) {
        default_normalize_score(MAX_NODE_SCORE, false, scores);
    }
}

#[cfg(test)]
mod tests;
