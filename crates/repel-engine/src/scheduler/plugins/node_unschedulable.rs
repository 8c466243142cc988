//! NodeUnschedulable: a cordoned node (`spec.unschedulable`) takes only pods that tolerate the
//! `node.kubernetes.io/unschedulable:NoSchedule` taint (upstream v1.35).

use repel_core::FeatureGates;
use repel_core::explain::{ERR_REASON_UNSCHEDULABLE, unschedulable_taint};
use repel_core::taint::tolerations_tolerate_taint;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, Plugin, Status};

/// The plugin's name.
pub const NAME: &str = "NodeUnschedulable";

/// The NodeUnschedulable plugin.
#[derive(Debug, Default)]
pub struct NodeUnschedulable {
    /// Feature gates for matching.
    pub gates: FeatureGates,
}

impl Plugin for NodeUnschedulable {
    fn name(&self) -> &'static str {
        NAME
    }

    fn filter(&self, _: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        if !node.unschedulable
            || tolerations_tolerate_taint(pod.tolerations(), &unschedulable_taint(), &self.gates)
        {
            return Status::success();
        }
        Status::unresolvable(NAME, ERR_REASON_UNSCHEDULABLE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::plugins::test_support::{node, pod};
    use repel_core::k8s_openapi::api::core::v1::Toleration;

    #[test]
    fn cordoned_nodes() {
        let tol = |k: &str, op: &str, e: &str| Toleration {
            key: Some(k.into()).filter(|s: &String| !s.is_empty()),
            operator: Some(op.into()),
            effect: Some(e.into()).filter(|s: &String| !s.is_empty()),
            ..Default::default()
        };
        #[rustfmt::skip]
        let cases = [
            ("a schedulable node admits any pod", false, vec![], true),
            ("a cordoned node rejects a pod without the toleration", true, vec![], false),
            ("the unschedulable toleration admits", true, vec![tol("node.kubernetes.io/unschedulable", "Exists", "NoSchedule")], true),
            ("a toleration without effect for the key admits", true, vec![tol("node.kubernetes.io/unschedulable", "Exists", "")], true),
            ("an empty-key Exists toleration admits", true, vec![tol("", "Exists", "")], true),
            ("a NoExecute toleration for the key does not", true, vec![tol("node.kubernetes.io/unschedulable", "Exists", "NoExecute")], false),
        ];
        for (name, cordoned, tols, want) in cases {
            let mut n = node("n", vec![]);
            n.unschedulable = cordoned;
            let p = pod("p", |s| s.tolerations = Some(tols.clone()));
            let st = NodeUnschedulable::default().filter(
                &CycleState::default(),
                &p,
                &n,
                &Cluster::new(),
            );
            assert_eq!(st.is_success(), want, "{name}");
            if !want {
                assert_eq!(
                    st.reasons,
                    vec!["node(s) were unschedulable".to_string()],
                    "{name}"
                );
                assert_eq!(
                    st.code,
                    crate::scheduler::framework::Code::UnschedulableAndUnresolvable,
                    "{name}"
                );
            }
        }
    }
}
