//! cluster-autoscaler's upstream tables, ported: the replica-count rule's lookups, scale-down
//! eligibility, and a GPU node's utilisation.

use super::*;

/// cluster-autoscaler `simulator/drainability/rules/replicacount/rule_test.go`
/// `TestDrainable`, its cases by name, judged by the whole chain of rules: which blocks with
/// `ControllerNotFound`. Every listed object exists (rc, ds, job, ss, rs); `missing` does not.
#[test]
fn replicacount_test_drainable() {
    let o = Options {
        controllers: [
            ("ReplicationController", "rc"),
            ("DaemonSet", "ds"),
            ("Job", "job"),
            ("StatefulSet", "ss"),
            ("ReplicaSet", "rs"),
        ]
        .into_iter()
        .map(|(k, n)| (k.to_string(), "default".to_string(), n.to_string()))
        .collect(),
        ..Options::default()
    };
    let owned = |name: &str, kind: &str, api: &str, annotations: Value| {
        pod("default", "bar", "a", |v| {
            v["metadata"]["ownerReferences"] = json!([{"apiVersion": api, "kind": kind,
                "name": name, "uid": "", "blockOwnerDeletion": true, "controller": true}]);
            v["metadata"]["annotations"] = annotations;
        })
    };
    let ds_pod = json!({"cluster-autoscaler.kubernetes.io/daemonset-pod": "true"});
    let none = Value::Null;
    let cases: Vec<(&str, Pod, Option<&str>)> = vec![
        (
            "RC-managed pod",
            owned("rc", "ReplicationController", "core/v1", none.clone()),
            None,
        ),
        (
            "RC-managed pod with missing reference",
            owned("missing", "ReplicationController", "core/v1", none.clone()),
            Some(
                "replication controller for default/bar is not available, err: \
                 replicationcontroller \"missing\" not found",
            ),
        ),
        (
            "DS-managed pod",
            owned("ds", "DaemonSet", "apps/v1", none.clone()),
            None,
        ),
        (
            "DS-managed pod with missing reference",
            owned("missing", "DaemonSet", "apps/v1", none.clone()),
            Some(
                "daemonset for default/bar is not present, err: daemonset.apps \"missing\" not \
                 found",
            ),
        ),
        (
            "DS-managed pod by a custom API Group",
            owned("ds", "DaemonSet", "crd/v1", none.clone()),
            None,
        ),
        (
            "DS-managed pod by a custom API Group with missing reference",
            owned("missing", "DaemonSet", "crd/v1", none.clone()),
            None,
        ),
        (
            "DS-managed pod by a custom Daemonset",
            owned("ds", "CustomDaemonSet", "crd/v1", ds_pod.clone()),
            None,
        ),
        (
            "DS-managed pod by a custom Daemonset with missing reference",
            owned("missing", "CustomDaemonSet", "crd/v1", ds_pod.clone()),
            None,
        ),
        (
            "Job-managed pod",
            owned("job", "Job", "batch/v1", none.clone()),
            None,
        ),
        (
            "Job-managed pod with missing reference",
            owned("missing", "Job", "batch/v1", none.clone()),
            Some("job for default/bar is not available: err: job.batch \"missing\" not found"),
        ),
        (
            "SS-managed pod",
            owned("ss", "StatefulSet", "apps/v1", none.clone()),
            None,
        ),
        (
            "SS-managed pod with missing reference",
            owned("missing", "StatefulSet", "apps/v1", none.clone()),
            Some(
                "statefulset for default/bar is not available: err: statefulset.apps \"missing\" \
                 not found",
            ),
        ),
        (
            "SS-managed pod by a custom API Group",
            owned("ss", "StatefulSet", "kruise/v1", none.clone()),
            None,
        ),
        (
            "SS-managed pod by a custom API Group with missing reference",
            owned("missing", "StatefulSet", "kruise/v1", none.clone()),
            None,
        ),
        (
            "RS-managed pod",
            owned("rs", "ReplicaSet", "apps/v1", none.clone()),
            None,
        ),
        (
            "RS-managed pod that is being deleted",
            pod("default", "bar", "a", |v| {
                v["metadata"]["ownerReferences"] = owner("ReplicaSet", "rs");
                v["metadata"]["deletionTimestamp"] = json!("2020-12-18T16:00:00Z");
            }),
            None,
        ),
        (
            "RS-managed pod with missing reference",
            owned("missing", "ReplicaSet", "apps/v1", none.clone()),
            Some(
                "replication controller for default/bar is not available, err: \
                 replicaset.apps \"missing\" not found",
            ),
        ),
    ];
    for (name, p, want) in cases {
        let got = rule(p, vec![], &o);
        match want {
            Some(message) => assert_eq!(got, blocked("ControllerNotFound", message), "{name}"),
            None => assert!(!matches!(got, Drainability::Block(..)), "{name}: {got:?}"),
        }
    }
}

/// cluster-autoscaler `core/scaledown/eligibility/eligibility_test.go`
/// `TestFilterOutUnremovable` (its cases without unready nodes, which repel does not judge):
/// which nodes stay candidates for scale-down, and why the others do not.
#[test]
fn test_filter_out_unremovable() {
    use crate::drain::consolidate::cluster_autoscaler;
    // BuildTestNode(name, 1000, 10): one core.
    let regular = || sized("regular", "1");
    let mut just_deleted = sized("justDeleted", "1");
    just_deleted.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
        taints: Some(vec![k8s_openapi::api::core::v1::Taint {
            key: ca::TO_BE_DELETED_TAINT.into(),
            value: Some((NOW - 30).to_string()),
            ..Default::default()
        }]),
        ..Default::default()
    });
    let mut no_scale_down = sized("noScaleDown", "1");
    no_scale_down.metadata.annotations = Some(
        [(ca::SCALE_DOWN_DISABLED.to_string(), "true".to_string())]
            .into_iter()
            .collect(),
    );
    let big_pod = || requesting("bigPod", "regular", "600m");
    let small_pod = || requesting("smallPod", "regular", "100m");
    // (case, nodes, pods, the nodes kept and why)
    type Case<'a> = (&'a str, Vec<Node>, Vec<Pod>, Vec<(&'a str, &'a str)>);
    let cases: Vec<Case> = vec![
        ("regular node stays", vec![regular()], vec![], vec![]),
        (
            "recently deleted node is filtered out",
            vec![regular(), just_deleted.clone()],
            vec![],
            vec![("justDeleted", "CurrentlyBeingDeleted")],
        ),
        (
            "marked no scale down is filtered out",
            vec![no_scale_down, regular()],
            vec![],
            vec![("noScaleDown", "ScaleDownDisabledAnnotation")],
        ),
        (
            "highly utilized node is filtered out",
            vec![regular()],
            vec![big_pod()],
            vec![("regular", "NotUnderutilized")],
        ),
        (
            "underutilized node stays",
            vec![regular()],
            vec![small_pod()],
            // Eligible; with nowhere to move its pod it then stays for that reason.
            vec![("regular", "NoPlaceToMovePods")],
        ),
    ];
    for (name, nodes, pods, want) in cases {
        let mut c = Cluster::new();
        for n in nodes {
            c.add_node(n);
        }
        for p in pods {
            c.add_pod(p);
        }
        let r = cluster_autoscaler(&c, &opts(), 0.5, &ca_cfg(false));
        let kept: Vec<(&str, &str)> = r
            .kept
            .iter()
            .map(|k| (k.node.as_str(), k.reason.as_str()))
            .collect();
        assert_eq!(kept, want, "{name}: {r:?}");
    }
    // Out of the deletion window (5 minutes), the taint no longer keeps the node; as
    // cluster-autoscaler, a drain of a node being deleted is not judged either.
    let mut c = Cluster::new();
    c.add_node(just_deleted);
    let v = &on_copy(&c, &["justDeleted"], &ca_cfg(true)).nodes[0];
    assert_eq!(v.reason.as_deref(), Some("CurrentlyBeingDeleted"), "{v:?}");
    assert_eq!(
        v.message.as_deref(),
        Some("tainted ToBeDeletedByClusterAutoscaler 30s ago: it is currently being deleted")
    );
    let mut late = ca_cfg(false);
    late.now_unix = NOW - 30 + 300;
    assert!(cluster_autoscaler(&c, &opts(), 0.5, &late).kept.is_empty());
    late.now_unix = NOW - 30 + 299;
    assert_eq!(
        cluster_autoscaler(&c, &opts(), 0.5, &late).kept[0].reason,
        "CurrentlyBeingDeleted"
    );
}

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
