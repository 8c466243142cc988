//! TaintToleration (upstream v1.35): Filter on NoSchedule/NoExecute taints, Score by the count of
//! untolerated PreferNoSchedule taints, normalised in reverse. The semantics live in repel-core.

use repel_core::FeatureGates;
use repel_core::explain::ERR_REASON_UNTOLERATED;
use repel_core::k8s_openapi::api::core::v1::Toleration;
use repel_core::taint::{
    PREFER_NO_SCHEDULE, count_intolerable_prefer_no_schedule, default_normalize_score,
    find_matching_untolerated_taint, is_do_not_schedule,
};

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, MAX_NODE_SCORE, Plugin, Status};

/// The plugin's name.
pub const NAME: &str = "TaintToleration";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 3;

/// The TaintToleration plugin.
#[derive(Debug, Default)]
pub struct TaintToleration {
    /// Feature gates (`TaintTolerationComparisonOperators`).
    pub gates: FeatureGates,
}

/// PreScore state: the pod's tolerations with an empty or PreferNoSchedule effect.
#[derive(Debug, Clone)]
struct PreScoreState(Vec<Toleration>);

impl Plugin for TaintToleration {
    fn name(&self) -> &'static str {
        NAME
    }

    fn filter(&self, _: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        match find_matching_untolerated_taint(
            &node.taints,
            pod.tolerations(),
            is_do_not_schedule,
            &self.gates,
        ) {
            None => Status::success(),
            Some(_) => Status::unresolvable(NAME, ERR_REASON_UNTOLERATED),
        }
    }

    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &[&NodeInfo],
        _: &Cluster,
    ) -> Status {
        let soft: Vec<Toleration> = pod
            .tolerations()
            .iter()
            .filter(|t| {
                matches!(
                    t.effect.as_deref(),
                    None | Some("") | Some(PREFER_NO_SCHEDULE)
                )
            })
            .cloned()
            .collect();
        state.write(NAME, PreScoreState(soft));
        Status::success()
    }

    fn score(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) -> Result<i64, Status> {
        let tols = state
            .read::<PreScoreState>(NAME)
            .map_or(pod.tolerations(), |s| s.0.as_slice());
        Ok(count_intolerable_prefer_no_schedule(&node.taints, tols, &self.gates) as i64)
    }

    fn normalize_score(&self, _: &CycleState, _: &PodInfo, scores: &mut [i64]) {
        default_normalize_score(MAX_NODE_SCORE, true, scores);
    }
}

#[cfg(test)]
mod tests;
