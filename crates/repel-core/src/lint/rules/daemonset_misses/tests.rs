//! Unit tests of `crate::lint::rules::daemonset_misses`.

use serde_json::json;

use crate::lint::testing::{check_table, daemonset, node};

#[test]
fn daemonset_misses_nodes() {
    let gpu_affinity = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In", "values": ["true"]}]},
        {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]}]}}});
    let gpu_node = node(
        "gpu-1",
        json!({"nvidia.com/gpu.present": "true"}),
        json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]),
    );
    let plain = node("cpu-1", json!({}), json!([]));
    check_table(
        "daemonset-misses-nodes",
        &[
            (
                "GPU feature discovery without the GPU toleration, no nodes (nvidia-device-plugin gpu-feature-discovery-daemonset)",
                vec![daemonset(
                    "gpu-feature-discovery",
                    json!({"affinity": gpu_affinity}),
                )],
                vec![(
                    "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                    "does not tolerate nvidia.com/gpu",
                )],
            ),
            (
                "the device plugin tolerating nvidia.com/gpu (nvidia-device-plugin.yml)",
                vec![daemonset(
                    "nvidia-device-plugin-daemonset",
                    json!({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}),
                )],
                vec![],
            ),
            (
                "a device plugin kept off a tainted GPU node of the input",
                vec![
                    gpu_node.clone(),
                    plain.clone(),
                    daemonset("nvidia-device-plugin-daemonset", json!({})),
                ],
                vec![(
                    "spec.template.spec",
                    "runs on 1 of 2 intended nodes: taints it does not tolerate keep it off the others (nvidia.com/gpu:NoSchedule on node/gpu-1); this is a device plugin",
                )],
            ),
            (
                "a node agent tolerating everything (kube-prometheus node-exporter)",
                vec![
                    gpu_node,
                    plain,
                    daemonset(
                        "node-exporter",
                        json!({"tolerations": [{"operator": "Exists"}]}),
                    ),
                ],
                vec![],
            ),
        ],
    );
}
