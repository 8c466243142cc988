//! Unit tests of `crate::pool_nodes`.

use super::*;
use crate::pools::aks_pool;
use serde_json::json;

#[test]
fn names_as_each_provider_names_its_instances() {
    let aks = aks_pool(&json!({"name": "gpu", "type": "VirtualMachineScaleSets", "count": 2}))
        .unwrap_or_default();
    let first = node_name(&aks, 0, 0);
    assert!(first.starts_with("aks-gpu-"), "{first}");
    assert!(first.ends_with("-vmss000000"), "{first}");
    assert_eq!(first.len(), "aks-gpu-12345678-vmss000000".len());
    assert!(node_name(&aks, 37, 0).ends_with("-vmss000011"));
    let eks = Pool {
        name: "ng".into(),
        provider: "eks",
        region: Some("us-west-2".into()),
        ..Pool::default()
    };
    let n = node_name(&eks, 0, 0);
    assert!(
        n.starts_with("ip-10-0-") && n.ends_with(".us-west-2.compute.internal"),
        "{n}"
    );
    assert_ne!(n, node_name(&eks, 0, 1));
    assert_eq!(n, node_name(&eks, 0, 0));
    let east = Pool {
        region: None,
        ..eks
    };
    assert!(node_name(&east, 3, 0).ends_with(".ec2.internal"));
}

#[test]
fn a_gpu_nodes_gpus_wait_for_the_device_plugin() {
    let pool = aks_pool(&json!({
        "name": "gpu", "type": "VirtualMachineScaleSets", "count": 1,
        "vmSize": "Standard_NC6s_v3", "maxPods": 30,
        "nodeTaints": ["sku=gpu:NoSchedule"], "nodeLabels": {"team": "ml"}
    }))
    .unwrap_or_default();
    let cap = pool_resources(&pool, &BTreeMap::new());
    let node = pool_node(&pool, "aks-gpu-1-vmss000000", 0, cap.as_ref());
    let labels = node.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels["kubernetes.azure.com/agentpool"], "gpu");
    assert_eq!(labels["agentpool"], "gpu");
    assert_eq!(labels["team"], "ml");
    assert_eq!(labels["topology.kubernetes.io/zone"], "0");
    assert_eq!(
        labels["node.kubernetes.io/instance-type"],
        "Standard_NC6s_v3"
    );
    let taints = node
        .spec
        .clone()
        .unwrap_or_default()
        .taints
        .unwrap_or_default();
    assert_eq!(taints.len(), 1);
    assert_eq!(taints[0].key, "sku");
    let status = node.status.clone().unwrap_or_default();
    let cap = status.capacity.unwrap_or_default();
    assert_eq!(cap["cpu"].0, "6");
    assert_eq!(cap["memory"].0, "114688Mi");
    assert!(!cap.contains_key("nvidia.com/gpu"));
    // AKS reserves 160m of 6 cores, min(20×30+50, 25 %) = 650Mi, and evicts at 100Mi.
    let alloc = status.allocatable.unwrap_or_default();
    assert_eq!(alloc["pods"].0, "30");
    assert_eq!(alloc["cpu"].0, "5840m");
    assert_eq!(alloc["memory"].0, format!("{}Mi", 114688 - 650 - 100));
    assert!(!alloc.contains_key("nvidia.com/gpu"));
    assert_eq!(node_devices(&node), Ok(vec![("nvidia.com/gpu".into(), 1)]));
}

#[test]
fn graviton_families_are_arm64() {
    for (t, arm) in [
        ("m6g.large", true),
        ("c7gn.xlarge", true),
        ("t4g.small", true),
        ("g5.xlarge", false),
        ("m5.large", false),
        ("inf2.xlarge", false),
        ("p4d.24xlarge", false),
    ] {
        assert_eq!(is_graviton(t), arm, "{t}");
    }
}

#[test]
fn device_plugins_by_image_or_annotation() {
    for (image, want) in [
        (
            "nvcr.io/nvidia/k8s-device-plugin:v0.20.0",
            vec!["nvidia.com/gpu"],
        ),
        (
            "nvidia/k8s-device-plugin:1.0.0-beta4",
            vec!["nvidia.com/gpu"],
        ),
        (
            "gcr.io/gke-release/nvidia-gpu-device-plugin@sha256:6b25",
            vec!["nvidia.com/gpu"],
        ),
        (
            "public.ecr.aws/neuron/neuron-device-plugin:2.23.30.0",
            vec!["aws.amazon.com/neuron"],
        ),
        ("docker.io/rocm/k8s-device-plugin", vec!["amd.com/gpu"]),
        ("nginx:1.27", vec![]),
        ("example.com/not-nvidia/k8s-device-plugin-ish:1", vec![]),
    ] {
        assert_eq!(provided_resources(None, &[image]), want, "{image}");
    }
    let mut a = BTreeMap::new();
    a.insert(
        PROVIDES_ANNOTATION.to_string(),
        "example.com/fpga, example.com/npu".to_string(),
    );
    assert_eq!(
        provided_resources(Some(&a), &["nginx"]),
        vec!["example.com/fpga", "example.com/npu"]
    );
}

#[test]
fn a_devices_annotation_is_read_or_refused_by_name() {
    let mut node = Node::default();
    node.metadata.annotations = Some(BTreeMap::from([(
        DEVICES_ANNOTATION.to_string(),
        "nvidia.com/gpu=4, amd.com/gpu=x".to_string(),
    )]));
    assert_eq!(
        node_devices(&node),
        Err(
            "metadata.annotations[repel.dev/devices]: \"amd.com/gpu=x\" is not RESOURCE=COUNT"
                .to_string()
        )
    );
}
