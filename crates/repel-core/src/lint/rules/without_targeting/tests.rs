//! Unit tests of `crate::lint::rules::without_targeting`.

use serde_json::json;

use crate::lint::testing::{check_table, deployment, node, pod};

#[test]
fn toleration_without_targeting() {
    let gpu_node = node(
        "gpu-1",
        json!({"sku": "gpu"}),
        json!([{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]),
    );
    let plain = node("plain-1", json!({}), json!([]));
    check_table(
        "toleration-without-targeting",
        &[
            (
                "sku=gpu toleration with no selector, no nodes in the input (karpenter-provider-azure samples-mnist, without its GPU limit)",
                vec![deployment(
                    "mnist",
                    json!({"tolerations": [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]}),
                )],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "has no nodeSelector or required node affinity",
                )],
            ),
            (
                "the same with its nvidia.com/gpu limit (samples-mnist as written)",
                vec![deployment(
                    "mnist",
                    json!({"tolerations": [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
                    "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}),
                )],
                vec![],
            ),
            (
                "kwok toleration with node affinity type=kwok (kwok failed-pod)",
                vec![pod(
                    "p",
                    json!({"tolerations": [{"key": "kwok.x-k8s.io/node", "operator": "Exists", "effect": "NoSchedule"}],
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "type", "operator": "In", "values": ["kwok"]}]}]}}}}),
                )],
                vec![],
            ),
            (
                "a pool taint tolerated, untainted nodes in reach",
                vec![
                    gpu_node.clone(),
                    plain.clone(),
                    deployment(
                        "train",
                        json!({"tolerations": [{"key": "sku", "operator": "Exists", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "they may land on node/plain-1 as well",
                )],
            ),
            (
                "a pool taint tolerated and selected",
                vec![
                    gpu_node,
                    plain,
                    deployment(
                        "train",
                        json!({"nodeSelector": {"sku": "gpu"}, "tolerations": [{"key": "sku", "operator": "Exists", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![],
            ),
            (
                "a well-known taint (CriticalAddonsOnly, coredns)",
                vec![deployment(
                    "coredns",
                    json!({"tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}),
                )],
                vec![],
            ),
        ],
    );
}
