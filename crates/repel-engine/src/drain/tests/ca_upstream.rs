//! cluster-autoscaler's upstream tables, ported: the replica-count rule's lookups, scale-down
//! eligibility, and a GPU node's utilisation.

use super::*;

/// A node with `cpu` cores and `gpus` `nvidia.com/gpu` allocatable, labelled `labels`.
fn gpu_node(name: &str, cpu: &str, gpus: &str, labels: Value) -> Node {
    let mut v = json!({
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    });
    if gpus != "0" {
        v["status"]["allocatable"]["nvidia.com/gpu"] = json!(gpus);
    }
    if let Value::Object(extra) = labels {
        for (k, l) in extra {
            v["metadata"]["labels"][k] = l;
        }
    }
    serde_json::from_value(v).unwrap_or_default()
}

/// A replicated pod on `node` requesting `cpu` and `gpus` `nvidia.com/gpu`.
fn gpu_pod(name: &str, node: &str, cpu: &str, gpus: i64) -> Pod {
    pod("default", name, node, |v| {
        replicated(v);
        let mut r = json!({"cpu": cpu});
        if gpus > 0 {
            r["nvidia.com/gpu"] = json!(gpus.to_string());
        }
        v["spec"]["containers"][0]["resources"] = json!({"requests": r, "limits": r});
    })
}

/// cluster-autoscaler `simulator/utilization/info_test.go` `TestCalculate` (its GPU cases)
/// and `utils/gpu/gpu.go` `NodeHasGpu`: a GPU node's utilisation is its GPU's alone.
#[test]
fn test_calculate_a_gpu_node_by_its_gpus_alone() {
    use crate::drain::consolidate::{Utilization, utilization};
    let cases: Vec<(&str, Node, Vec<Pod>, Utilization)> = vec![
        (
            // AddGpusToNode(gpuNode, 1); the GPU pod requests 1 of 1; two CPU pods besides.
            "gpu node: the GPU pod's request over the node's GPUs",
            gpu_node("n", "2", "1", json!({})),
            vec![
                gpu_pod("p1", "n", "100m", 0),
                gpu_pod("p2", "n", "100m", 0),
                gpu_pod("gpu-pod", "n", "100m", 1),
            ],
            Utilization {
                cpu: 0.0,
                memory: 0.0,
                gpu: Some(("nvidia.com/gpu", 1.0)),
                utilization: 1.0,
            },
        ),
        (
            // AddGpuLabelToNode: the label, no GPU allocatable yet.
            "Node with Unready GPU",
            gpu_node(
                "n",
                "2",
                "0",
                json!({"cloud.google.com/gke-accelerator": "nvidia-tesla-k80"}),
            ),
            vec![gpu_pod("p1", "n", "1500m", 0)],
            Utilization {
                cpu: 0.0,
                memory: 0.0,
                gpu: Some(("nvidia.com/gpu", 0.0)),
                utilization: 0.0,
            },
        ),
        (
            "a node using 3 of its 4 GPUs and little CPU",
            gpu_node("n", "4", "4", json!({})),
            vec![gpu_pod("train", "n", "400m", 3)],
            Utilization {
                cpu: 0.0,
                memory: 0.0,
                gpu: Some(("nvidia.com/gpu", 0.75)),
                utilization: 0.75,
            },
        ),
        (
            "a node without GPU: the larger of cpu and memory",
            gpu_node("n", "4", "0", json!({})),
            vec![gpu_pod("web", "n", "3", 0)],
            Utilization {
                cpu: 0.75,
                memory: 0.0,
                gpu: None,
                utilization: 0.75,
            },
        ),
    ];
    for (name, n, pods, want) in cases {
        let mut c = Cluster::new();
        c.add_node(n);
        for p in pods {
            c.add_pod(p);
        }
        assert_eq!(utilization(&c, 0), want, "{name}");
    }
}

/// cluster-autoscaler `core/scaledown/eligibility/eligibility.go`
/// (`isNodeAtOrBelowUtilizationThreshold`): a GPU node is kept or eligible by its GPUs and
/// `--scale-down-gpu-utilization-threshold`, whatever its CPU.
#[test]
fn consolidation_judges_a_gpu_node_by_the_gpu_threshold() {
    use crate::drain::consolidate::cluster_autoscaler;
    let mut c = Cluster::new();
    c.add_node(gpu_node("busy-gpus", "4", "4", json!({})));
    c.add_node(gpu_node("busy-cpus", "4", "4", json!({})));
    c.add_node(gpu_node("spare", "16", "8", json!({})));
    c.add_pod(gpu_pod("train", "busy-gpus", "400m", 3));
    c.add_pod(gpu_pod("infer", "busy-cpus", "3", 1));
    let r = cluster_autoscaler(&c, &opts(), 0.5, &ca_cfg(false));
    let kept: Vec<(&str, &str)> = r
        .kept
        .iter()
        .map(|k| (k.node.as_str(), k.reason.as_str()))
        .collect();
    assert_eq!(kept, [("busy-gpus", "NotUnderutilized")], "{r:?}");
    assert_eq!(
        r.kept[0].message,
        "utilization 0.75 (nvidia.com/gpu 0.75: a GPU node, judged by its GPUs alone) is above \
         the GPU threshold 0.5"
    );
    let removed: Vec<&str> = r.removable.iter().map(|n| n.node.as_str()).collect();
    assert!(removed.contains(&"busy-cpus"), "{r:?}");
    // The GPU threshold raised: the node using 3 of 4 GPUs is eligible, and goes.
    let high = Options {
        scale_down_gpu_utilization_threshold: 0.8,
        ..opts()
    };
    let r = cluster_autoscaler(&c, &high, 0.5, &ca_cfg(false));
    assert!(
        !r.kept.iter().any(|k| k.reason == "NotUnderutilized"),
        "{r:?}"
    );
}
