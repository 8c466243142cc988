//! Unit tests of `crate::lint::rules::wildcard`.

use serde_json::json;

use crate::lint::testing::{check_table, daemonset, deployment, node};

#[test]
fn wildcard_toleration() {
    check_table(
        "wildcard-toleration",
        &[
            (
                "keyless Exists NoExecute and NoSchedule on a Deployment (calico tigera-operator)",
                vec![deployment(
                    "tigera-operator",
                    json!({"tolerations": [
                    {"effect": "NoExecute", "operator": "Exists"},
                    {"effect": "NoSchedule", "operator": "Exists"}]}),
                )],
                vec![
                    (
                        "spec.template.spec.tolerations[0]",
                        "tolerates every NoExecute taint",
                    ),
                    (
                        "spec.template.spec.tolerations[1]",
                        "tolerates every NoSchedule taint",
                    ),
                ],
            ),
            (
                "keyless Exists on a node agent (kube-prometheus node-exporter)",
                vec![daemonset(
                    "node-exporter",
                    json!({"tolerations": [{"operator": "Exists"}]}),
                )],
                vec![],
            ),
            (
                "keyless Exists NoExecute with tolerationSeconds 300 (aws-ebs-csi controller)",
                vec![deployment(
                    "ebs-csi-controller",
                    json!({"tolerations": [
                    {"key": "CriticalAddonsOnly", "operator": "Exists"},
                    {"effect": "NoExecute", "operator": "Exists", "tolerationSeconds": 300}]}),
                )],
                vec![],
            ),
            (
                "keyless Exists DaemonSet with Fargate nodes in the input (aws-node)",
                vec![
                    node(
                        "fargate-ip-1",
                        json!({"eks.amazonaws.com/compute-type": "fargate"}),
                        json!([{"key": "eks.amazonaws.com/compute-type", "value": "fargate", "effect": "NoSchedule"}]),
                    ),
                    daemonset("aws-node", json!({"tolerations": [{"operator": "Exists"}]})),
                ],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "placed on node/fargate-ip-1",
                )],
            ),
            (
                "the same DaemonSet keeping off Fargate by affinity (aws-ebs-csi node)",
                vec![
                    node(
                        "fargate-ip-1",
                        json!({"eks.amazonaws.com/compute-type": "fargate"}),
                        json!([{"key": "eks.amazonaws.com/compute-type", "value": "fargate", "effect": "NoSchedule"}]),
                    ),
                    daemonset(
                        "ebs-csi-node",
                        json!({"tolerations": [{"operator": "Exists"}],
                        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate", "auto", "hybrid"]}]}]}}}}),
                    ),
                ],
                vec![],
            ),
        ],
    );
}
