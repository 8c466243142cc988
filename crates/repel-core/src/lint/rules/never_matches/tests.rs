//! Unit tests of `crate::lint::rules::never_matches`.

use serde_json::json;

use crate::lint::testing::{check_table, deployment, node, pod};

/// Cases cut from the real manifests of ../shared/corpus/real (file named in each case).
#[test]
fn toleration_never_matches() {
    check_table(
        "toleration-never-matches",
        &[
            (
                "Equal \"true\" against kubeadm's valueless control-plane taint (cluster-autoscaler aws run-on-control-plane)",
                vec![deployment(
                    "cluster-autoscaler",
                    json!({"tolerations": [
                    {"effect": "NoSchedule", "operator": "Equal", "value": "true", "key": "node-role.kubernetes.io/control-plane"}]}),
                )],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "the taint has no value, so value \"true\" never matches it",
                )],
            ),
            (
                "operator omitted, no value, matches kubeadm's taint (cluster-autoscaler clusterapi deployment)",
                vec![deployment(
                    "cluster-autoscaler",
                    json!({"tolerations": [
                    {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]}),
                )],
                vec![],
            ),
            (
                "value \"True\" against CriticalAddonsOnly=true (magnum cluster-autoscaler)",
                vec![deployment(
                    "cluster-autoscaler",
                    json!({"tolerations": [
                    {"key": "CriticalAddonsOnly", "value": "True"},
                    {"key": "dedicated", "value": "control-plane"}]}),
                )],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "differs from the taint's \"true\" only by case",
                )],
            ),
            (
                "CriticalAddonsOnly Exists (coredns)",
                vec![deployment(
                    "coredns",
                    json!({"tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}),
                )],
                vec![],
            ),
            (
                "misspelled not-reachable (console-operator downloads)",
                vec![deployment(
                    "downloads",
                    json!({"tolerations": [
                    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
                    {"key": "node.kubernetes.io/not-reachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120}]}),
                )],
                vec![(
                    "spec.template.spec.tolerations[1]",
                    "did you mean \"node.kubernetes.io/unreachable\"",
                )],
            ),
            (
                "nvidia.com/gpu with Equal and no value against GKE's nvidia.com/gpu=present (tensorflow-notebook)",
                vec![deployment(
                    "tf",
                    json!({"tolerations": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}),
                )],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "the taint's value is \"present\"",
                )],
            ),
            (
                "nvidia.com/gpu Exists (nvidia-device-plugin job-1)",
                vec![deployment(
                    "gpu",
                    json!({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}),
                )],
                vec![],
            ),
            (
                "Equal on cluster-autoscaler's timestamped taint",
                vec![pod(
                    "p",
                    json!({"tolerations": [{"key": "ToBeDeletedByClusterAutoscaler", "value": "true", "effect": "NoSchedule"}]}),
                )],
                vec![("spec.tolerations[0]", "only operator Exists matches it")],
            ),
            (
                "a key the input's nodes carry, value differs (kwok fake node)",
                vec![
                    node(
                        "fake-node",
                        json!({"type": "kwok"}),
                        json!([{"key": "kwok-controller/provider", "value": "fake", "effect": "NoSchedule"}]),
                    ),
                    pod(
                        "p",
                        json!({"tolerations": [{"key": "kwok-controller/provider", "value": "Fake", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![(
                    "spec.tolerations[0]",
                    "kwok-controller/provider=fake:NoSchedule",
                )],
            ),
            (
                "a key the input's nodes carry, tolerated (kwok fake deployment)",
                vec![
                    node(
                        "fake-node",
                        json!({"type": "kwok"}),
                        json!([{"key": "kwok-controller/provider", "value": "fake", "effect": "NoSchedule"}]),
                    ),
                    pod(
                        "p",
                        json!({"tolerations": [{"key": "kwok-controller/provider", "operator": "Exists", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![],
            ),
        ],
    );
}
