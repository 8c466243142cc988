//! cluster-autoscaler's drainability rules in their order (after upstream's `drainability/rules/*/rule_test.go`).

use super::*;

#[test]
fn cluster_autoscaler_rules_in_their_order() {
    let o = opts();
    let cases: Vec<(&str, Pod, Vec<PodDisruptionBudget>, Drainability)> = vec![
        (
            "mirror",
            pod("default", "m", "a", |v| {
                v["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "x"});
            }),
            vec![],
            Drainability::SkipDrain,
        ),
        (
            "long terminating",
            pod("default", "t", "a", |v| {
                v["metadata"]["deletionTimestamp"] = json!("2020-01-01T00:00:00Z");
            }),
            vec![],
            Drainability::SkipDrain,
        ),
        (
            "daemonset",
            pod("default", "d", "a", |v| {
                v["metadata"]["ownerReferences"] = owner("DaemonSet", "agent");
            }),
            vec![],
            Drainability::DrainOk,
        ),
        (
            "bare",
            pod("default", "bare", "a", |_| {}),
            vec![],
            blocked("NotReplicated", "default/bare is not replicated"),
        ),
        (
            "bare, safe-to-evict",
            pod("default", "bare", "a", |v| {
                v["metadata"]["annotations"] =
                    json!({"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"});
            }),
            vec![],
            Drainability::DrainOk,
        ),
        (
            "bare, failed",
            pod("default", "bare", "a", |v| {
                v["status"]["phase"] = json!("Failed");
            }),
            vec![],
            Drainability::DrainOk,
        ),
        (
            "replicated",
            pod("default", "p", "a", replicated),
            vec![],
            Drainability::Undefined,
        ),
        (
            "controller missing",
            pod("default", "p", "a", |v| {
                v["metadata"]["ownerReferences"] = owner("ReplicaSet", "gone");
            }),
            vec![],
            blocked(
                "ControllerNotFound",
                "replication controller for default/p is not available, err: replicaset.apps \"gone\" not found",
            ),
        ),
        (
            "job missing",
            pod("default", "p", "a", |v| {
                v["metadata"]["ownerReferences"] = owner("Job", "pi");
            }),
            vec![],
            blocked(
                "ControllerNotFound",
                "job for default/p is not available: err: job.batch \"pi\" not found",
            ),
        ),
        (
            "owned by a Deployment directly (a custom controller)",
            pod("default", "p", "a", |v| {
                v["metadata"]["ownerReferences"] = owner("Deployment", "web");
            }),
            vec![],
            blocked("NotReplicated", "default/p is not replicated"),
        ),
        (
            "on-completion",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["metadata"]["annotations"] =
                    json!({"cluster-autoscaler.kubernetes.io/safe-to-evict": "on-completion"});
            }),
            vec![],
            Drainability::WaitForCompletion,
        ),
        (
            "kube-system without a budget",
            pod("kube-system", "dns", "a", replicated),
            vec![],
            blocked(
                "UnmovableKubeSystemPod",
                "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: dns",
            ),
        ),
        (
            "kube-system with a budget",
            pod("kube-system", "dns", "a", replicated),
            vec![pdb("kube-system", 1)],
            Drainability::Undefined,
        ),
        (
            "kube-system, older than the timeout",
            pod("kube-system", "dns", "a", |v| {
                replicated(v);
                v["metadata"]["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
            }),
            vec![],
            Drainability::Undefined,
        ),
        (
            "not safe to evict",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["metadata"]["annotations"] =
                    json!({"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"});
            }),
            vec![],
            blocked(
                "NotSafeToEvictAnnotation",
                "pod annotated as not safe to evict present: p",
            ),
        ),
        (
            "emptyDir",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["spec"]["volumes"] = json!([{"name": "scratch", "emptyDir": {}}]);
            }),
            vec![],
            blocked("LocalStorageRequested", "pod with local storage present: p"),
        ),
        (
            "emptyDir in memory",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["spec"]["volumes"] =
                    json!([{"name": "scratch", "emptyDir": {"medium": "Memory"}}]);
            }),
            vec![],
            Drainability::Undefined,
        ),
        (
            "emptyDir listed safe",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["spec"]["volumes"] = json!([{"name": "scratch", "emptyDir": {}}]);
                v["metadata"]["annotations"] = json!({"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "other,scratch"});
            }),
            vec![],
            Drainability::Undefined,
        ),
        (
            "hostPath",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["spec"]["volumes"] = json!([{"name": "h", "hostPath": {"path": "/x"}}]);
            }),
            vec![],
            blocked("LocalStorageRequested", "pod with local storage present: p"),
        ),
        (
            "budget exhausted",
            pod("default", "p", "a", replicated),
            vec![pdb("default", 0)],
            blocked(
                "NotEnoughPdb",
                "not enough pod disruption budget to move default/p",
            ),
        ),
        (
            "budget left",
            pod("default", "p", "a", replicated),
            vec![pdb("default", 1)],
            Drainability::Undefined,
        ),
    ];
    for (what, p, pdbs, want) in cases {
        assert_eq!(rule(p, pdbs, &o), want, "{what}");
    }
    // With --skip-nodes-with-custom-controller-pods=false any controller replicates, and the
    // listers are not asked.
    let loose = Options {
        skip_nodes_with_custom_controller_pods: false,
        ..Options::default()
    };
    let p = pod("default", "p", "a", |v| {
        v["metadata"]["ownerReferences"] = owner("Deployment", "web")
    });
    assert_eq!(rule(p, vec![], &loose), Drainability::Undefined);
    let no_system = Options {
        skip_nodes_with_system_pods: false,
        ..opts()
    };
    assert_eq!(
        rule(
            pod("kube-system", "dns", "a", replicated),
            vec![],
            &no_system
        ),
        Drainability::Undefined
    );
}
