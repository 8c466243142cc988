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
mod tests {
    use super::*;
    use crate::scheduler::plugins::test_support::{node, pod, taint, tol};

    /// Upstream `TestTaintTolerationFilter` (v1.35 reason text).
    #[test]
    fn filter_cases() {
        #[rustfmt::skip]
        let cases = [
            ("a pod without tolerations cannot be scheduled onto a node with taints",
                vec![], vec![taint("dedicated", "user1", "NoSchedule")], false),
            ("a pod with a matching toleration can be scheduled",
                vec![tol("dedicated", "Equal", "user1", "NoSchedule")], vec![taint("dedicated", "user1", "NoSchedule")], true),
            ("a pod whose toleration value differs cannot",
                vec![tol("dedicated", "Equal", "user2", "NoSchedule")], vec![taint("dedicated", "user1", "NoSchedule")], false),
            ("a pod with Exists tolerates the key",
                vec![tol("foo", "Exists", "", "NoSchedule")], vec![taint("foo", "bar", "NoSchedule")], true),
            ("a pod with multiple tolerations can be scheduled onto a node with multiple taints",
                vec![tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", "", "NoSchedule")],
                vec![taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], true),
            ("a pod whose toleration effect differs cannot",
                vec![tol("foo", "Equal", "bar", "PreferNoSchedule")], vec![taint("foo", "bar", "NoSchedule")], false),
            ("the effect of the toleration is empty: tolerates every effect",
                vec![tol("foo", "Equal", "bar", "")], vec![taint("foo", "bar", "NoSchedule")], true),
            ("a PreferNoSchedule taint never filters",
                vec![], vec![taint("foo", "bar", "PreferNoSchedule")], true),
            ("an untolerated NoExecute taint filters",
                vec![], vec![taint("foo", "bar", "NoExecute")], false),
        ];
        for (name, tols, taints, fits) in cases {
            let p = pod("p", |s| s.tolerations = Some(tols.clone()));
            let st = TaintToleration::default().filter(
                &CycleState::default(),
                &p,
                &node("n", taints),
                &Cluster::new(),
            );
            assert_eq!(st.is_success(), fits, "{name}");
            if !fits {
                assert_eq!(
                    st.reasons,
                    vec!["node(s) had untolerated taint(s)".to_string()],
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn score_and_normalize() {
        let pns = "PreferNoSchedule";
        let pl = TaintToleration::default();
        let p = pod("p", |s| {
            s.tolerations = Some(vec![
                tol("foo", "Equal", "bar", pns),
                tol("x", "Exists", "", "NoSchedule"),
            ])
        });
        let nodes = [
            node("a", vec![taint("foo", "bar", pns)]),
            node("b", vec![taint("x", "", pns)]),
            node("c", vec![taint("x", "", pns), taint("y", "", pns)]),
        ];
        let mut st = CycleState::default();
        let refs: Vec<&NodeInfo> = nodes.iter().collect();
        pl.pre_score(&mut st, &p, &refs, &Cluster::new());
        let mut scores: Vec<i64> = nodes
            .iter()
            .map(|n| pl.score(&st, &p, n, &Cluster::new()).unwrap_or(-1))
            .collect();
        assert_eq!(
            scores,
            vec![0, 1, 2],
            "a NoSchedule toleration does not count for scoring"
        );
        pl.normalize_score(&st, &p, &mut scores);
        assert_eq!(scores, vec![100, 50, 0]);
    }
}
