//! Unit tests of `crate::lint::rules::targeting_without_toleration`.

use serde_json::json;

use crate::lint::testing::{check_table, deployment, node};

#[test]
fn targeting_without_toleration() {
    let gpu = node(
        "gpu-1",
        json!({"sku": "gpu"}),
        json!([{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]),
    );
    let cp = node(
        "cp-1",
        json!({"node-role.kubernetes.io/control-plane": ""}),
        json!([{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]),
    );
    check_table(
        "targeting-without-toleration",
        &[
            (
                "selects the GPU nodes without tolerating them",
                vec![
                    gpu.clone(),
                    deployment("train", json!({"nodeSelector": {"sku": "gpu"}})),
                ],
                vec![(
                    "spec.template.spec.nodeSelector",
                    "node/gpu-1 (sku=gpu:NoSchedule)",
                )],
            ),
            (
                "selects and tolerates",
                vec![
                    gpu.clone(),
                    deployment(
                        "train",
                        json!({"nodeSelector": {"sku": "gpu"},
                    "tolerations": [{"key": "sku", "operator": "Exists", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![],
            ),
            (
                "control-plane affinity with a toleration that never matches (cluster-autoscaler aws run-on-control-plane, kubeadm nodes)",
                vec![
                    cp.clone(),
                    deployment(
                        "cluster-autoscaler",
                        json!({
                    "nodeSelector": {"node-role.kubernetes.io/control-plane": ""},
                    "tolerations": [{"effect": "NoSchedule", "operator": "Equal", "value": "true", "key": "node-role.kubernetes.io/control-plane"}]}),
                    ),
                ],
                vec![(
                    "spec.template.spec.nodeSelector",
                    "node/cp-1 (node-role.kubernetes.io/control-plane:NoSchedule)",
                )],
            ),
            (
                "control-plane affinity tolerated (hetzner cluster-autoscaler)",
                vec![
                    cp,
                    deployment(
                        "cluster-autoscaler",
                        json!({
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}]}]}}},
                    "tolerations": [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]}),
                    ),
                ],
                vec![],
            ),
            (
                "a selector no node of the input matches says nothing",
                vec![
                    gpu,
                    deployment(
                        "web",
                        json!({"nodeSelector": {"kubernetes.io/os": "windows"}}),
                    ),
                ],
                vec![],
            ),
        ],
    );
}
