//! PodTopologySpread (upstream `pkg/scheduler/framework/plugins/podtopologyspread`, v1.35):
//! `topologySpreadConstraints` with `whenUnsatisfiable: DoNotSchedule` filter nodes whose domain
//! would exceed `maxSkew`; `ScheduleAnyway` ones score nodes by how few matching pods their
//! domains hold.
//!
//! `nodeAffinityPolicy` (default Honor) and `nodeTaintsPolicy` (default Ignore) decide which
//! nodes count as domains: with `nodeTaintsPolicy: Honor`, a node whose `NoSchedule`/`NoExecute`
//! taints the pod does not tolerate is not a domain, so it neither holds pods that count nor
//! sets the global minimum.
//!
//! Upstream's default profile also spreads pods that have no constraints, by the system
//! defaults (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) with the selector of the
//! Service/ReplicaSet/StatefulSet that selects the pod. repel's cluster keeps no such objects,
//! so that selector is empty and no default constraints apply (see
//! [`common::default_selector`]); the rest of the defaulting is in place.
//!
//! # Layout
//! - [`common`]: the parsed constraint, node-inclusion policies, defaults, pod counting.
//! - [`filtering`]: PreFilter state, critical paths, AddPod/RemovePod, Filter.
//! - [`scoring`]: PreScore state, Score, NormalizeScore.

pub mod common;
pub mod filtering;
pub mod scoring;

#[cfg(test)]
mod tests;

use repel_core::FeatureGates;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, Plugin, PreFilterResult, Status};
pub use common::{NodeInclusionPolicy, TopologySpreadConstraint};
pub use filtering::{CriticalPath, CriticalPaths, PRE_FILTER_STATE_KEY, PreFilterState};
pub use scoring::{PRE_SCORE_STATE_KEY, PreScoreState};

/// The plugin's name.
pub const NAME: &str = "PodTopologySpread";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 2;
/// Upstream `ErrReasonConstraintsNotMatch`: placing the pod would exceed `maxSkew`.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// Upstream `ErrReasonNodeLabelNotMatch`: the node lacks a constraint's topology key.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";
/// Upstream's default profile uses `defaultingType: System`.
const SYSTEM_DEFAULTED: bool = true;

/// The PodTopologySpread plugin.
#[derive(Debug, Default)]
pub struct PodTopologySpread {
    /// Feature gates (taint matching for `nodeTaintsPolicy: Honor`).
    pub gates: FeatureGates,
}

impl Plugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Upstream `PreFilter`: the state of [`filtering::cal_pre_filter_state`]; Skip when the pod
    /// has no hard constraints; an unparsable selector is an Error.
    fn pre_filter(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        cluster: &Cluster,
    ) -> (Status, PreFilterResult) {
        match filtering::cal_pre_filter_state(pod, cluster, &self.gates) {
            Err(e) => (Status::error(NAME, e), None),
            Ok(s) if s.constraints.is_empty() => (Status::skip(), None),
            Ok(s) => {
                state.write(PRE_FILTER_STATE_KEY, s);
                (Status::success(), None)
            }
        }
    }

    /// Upstream `RemovePod`: [`filtering::update_with_pod`] with -1.
    fn remove_pod(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        victim: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) {
        if let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_STATE_KEY) {
            filtering::update_with_pod(s, victim, pod, node, -1, &self.gates);
        }
    }

    /// Upstream `AddPod`: [`filtering::update_with_pod`] with +1.
    fn add_pod(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        added: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) {
        if let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_STATE_KEY) {
            filtering::update_with_pod(s, added, pod, node, 1, &self.gates);
        }
    }

    /// Upstream `Filter`: [`filtering::filter`]; without PreFilter's state, an Error.
    fn filter(&self, state: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        match state.read::<PreFilterState>(PRE_FILTER_STATE_KEY) {
            Some(s) => filtering::filter(s, pod, node),
            None => Status::error(
                NAME,
                format!("reading {PRE_FILTER_STATE_KEY:?} from cycleState: not found"),
            ),
        }
    }

    /// Upstream `PreScore`: [`scoring::pre_score`] with system defaulting.
    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        feasible: &[&NodeInfo],
        cluster: &Cluster,
    ) -> Status {
        let selector = common::default_selector(pod, cluster);
        match scoring::pre_score(
            pod,
            feasible,
            cluster,
            &self.gates,
            SYSTEM_DEFAULTED,
            &selector,
        ) {
            Err(e) => Status::error(NAME, e),
            Ok(None) => Status::skip(),
            Ok(Some(s)) => {
                state.write(PRE_SCORE_STATE_KEY, s);
                Status::success()
            }
        }
    }

    /// Upstream `Score`: [`scoring::score`].
    fn score(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) -> Result<i64, Status> {
        match state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) {
            Some(s) => Ok(scoring::score(s, pod, node, cluster)),
            None => Err(Status::error(
                NAME,
                format!("error reading {PRE_SCORE_STATE_KEY:?} from cycleState: not found"),
            )),
        }
    }

    /// Upstream `NormalizeScore`: [`scoring::normalize_score`].
    fn normalize_score(&self, state: &CycleState, _: &PodInfo, scores: &mut [i64]) {
        if let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) {
            scoring::normalize_score(s, scores);
        }
    }
}
