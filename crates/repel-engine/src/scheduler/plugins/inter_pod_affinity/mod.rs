//! InterPodAffinity (upstream `pkg/scheduler/framework/plugins/interpodaffinity`, v1.35):
//! Filter on required pod affinity and anti-affinity, the incoming pod's and (symmetrically)
//! the existing pods' anti-affinity; Score on preferred terms of both sides, and on existing
//! pods' required affinity with `hardPodAffinityWeight`.
//!
//! # Layout
//! - `terms`: parsed affinity terms and how a term matches a pod.
//! - `filtering`: PreFilter's counts per topology pair, AddPod/RemovePod, Filter.
//! - `scoring`: PreScore's weights per topology pair, Score, NormalizeScore.

mod filtering;
mod scoring;
mod terms;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, Plugin, PreFilterResult, Status};

/// The plugin's name.
pub const NAME: &str = "InterPodAffinity";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 2;
/// Upstream `ErrReasonExistingAntiAffinityRulesNotMatch`.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// Upstream `ErrReasonAffinityRulesNotMatch`.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// Upstream `ErrReasonAntiAffinityRulesNotMatch`.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod anti-affinity rules";
/// Upstream `v1.DefaultHardPodAffinitySymmetricWeight`, the default `hardPodAffinityWeight`.
pub const DEFAULT_HARD_POD_AFFINITY_WEIGHT: i32 = 1;

/// The InterPodAffinity plugin with upstream's `InterPodAffinityArgs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterPodAffinity {
    /// `hardPodAffinityWeight`: the score weight of an existing pod's required affinity term
    /// the incoming pod matches (default 1; 0 turns it off).
    pub hard_pod_affinity_weight: i32,
    /// `ignorePreferredTermsOfExistingPods`: skip scoring when the incoming pod has no preferred
    /// terms (default false).
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for InterPodAffinity {
    /// Upstream's defaults: `hardPodAffinityWeight: 1`, `ignorePreferredTermsOfExistingPods: false`.
    fn default() -> Self {
        InterPodAffinity {
            hard_pod_affinity_weight: DEFAULT_HARD_POD_AFFINITY_WEIGHT,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

impl Plugin for InterPodAffinity {
    fn name(&self) -> &'static str {
        NAME
    }

    /// See `filtering::pre_filter`.
    fn pre_filter(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        cluster: &Cluster,
    ) -> (Status, PreFilterResult) {
        filtering::pre_filter(state, pod, cluster)
    }

    /// Upstream `InterPodAffinity.RemovePod`: `updateWithPod` with multiplier -1.
    fn remove_pod(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        victim: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) {
        filtering::update_with_pod(state, pod, victim, node, -1, cluster);
    }

    /// Upstream `InterPodAffinity.AddPod`: `updateWithPod` with multiplier 1.
    fn add_pod(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        added: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) {
        filtering::update_with_pod(state, pod, added, node, 1, cluster);
    }

    /// See `filtering::filter`.
    fn filter(&self, state: &CycleState, _: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        filtering::filter(state, node)
    }

    /// See `scoring::pre_score`.
    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &[&NodeInfo],
        cluster: &Cluster,
    ) -> Status {
        scoring::pre_score(
            state,
            pod,
            cluster,
            self.hard_pod_affinity_weight,
            self.ignore_preferred_terms_of_existing_pods,
        )
    }

    /// See `scoring::score`.
    fn score(
        &self,
        state: &CycleState,
        _: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) -> Result<i64, Status> {
        scoring::score(state, node)
    }

    /// See `scoring::normalize_score`.
    fn normalize_score(&self, state: &CycleState, _: &PodInfo, scores: &mut [i64]) {
        scoring::normalize_score(state, scores);
    }
}

#[cfg(test)]
mod tests;
