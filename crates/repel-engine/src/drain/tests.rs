//! Drain what-ifs: cluster-autoscaler's rules one by one (after upstream's
//! `drainability/rules/*/rule_test.go` cases), its simulation, kubectl's filters and
//! evictions, and a sequence of drains against independent ones.

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use serde_json::{Value, json};

use super::ca::{Options, State, Status, drainable};
use super::*;

fn node(name: &str, pods: &str) -> Node {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": pods},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    }))
    .unwrap_or_default()
}

fn owner(kind: &str, name: &str) -> Value {
    json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": format!("u-{name}"),
            "controller": true}])
}

/// A pod on `node` in `ns`, changed by `f` (its JSON).
fn pod(ns: &str, name: &str, node: &str, f: impl FnOnce(&mut Value)) -> Pod {
    let mut v = json!({
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running"}
    });
    f(&mut v);
    serde_json::from_value(v).unwrap_or_default()
}

fn replicated(v: &mut Value) {
    v["metadata"]["ownerReferences"] = owner("ReplicaSet", "web");
    v["metadata"]["labels"] = json!({"app": "web"});
}

fn pdb(ns: &str, allowed: i32) -> PodDisruptionBudget {
    serde_json::from_value(json!({
        "metadata": {"name": "budget", "namespace": ns},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1,
                   "expectedPods": 1}
    }))
    .unwrap_or_default()
}

fn opts() -> Options {
    Options {
        controllers: vec![
            ("ReplicaSet".into(), "default".into(), "web".into()),
            ("ReplicaSet".into(), "kube-system".into(), "web".into()),
            ("DaemonSet".into(), "default".into(), "agent".into()),
        ]
        .into_iter()
        .collect(),
        ..Options::default()
    }
}

const NOW: i64 = 2_000_000_000;

fn rule(p: Pod, pdbs: Vec<PodDisruptionBudget>, o: &Options) -> Status {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.pdbs = pdbs;
    let id = c.add_pod(p);
    let state = State::new(&c);
    drainable(&c, id, o, &state, NOW)
}

fn blocked(reason: &'static str, message: &str) -> Status {
    Status::Block(reason, message.to_string())
}

#[test]
fn cluster_autoscaler_rules_in_their_order() {
    let o = opts();
    let cases: Vec<(&str, Pod, Vec<PodDisruptionBudget>, Status)> = vec![
        (
            "mirror",
            pod("default", "m", "a", |v| {
                v["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "x"});
            }),
            vec![],
            Status::SkipDrain,
        ),
        (
            "long terminating",
            pod("default", "t", "a", |v| {
                v["metadata"]["deletionTimestamp"] = json!("2020-01-01T00:00:00Z");
            }),
            vec![],
            Status::SkipDrain,
        ),
        (
            "daemonset",
            pod("default", "d", "a", |v| {
                v["metadata"]["ownerReferences"] = owner("DaemonSet", "agent");
            }),
            vec![],
            Status::DrainOk,
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
            Status::DrainOk,
        ),
        (
            "bare, failed",
            pod("default", "bare", "a", |v| {
                v["status"]["phase"] = json!("Failed");
            }),
            vec![],
            Status::DrainOk,
        ),
        (
            "replicated",
            pod("default", "p", "a", replicated),
            vec![],
            Status::Undefined,
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
            Status::WaitForCompletion,
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
            Status::Undefined,
        ),
        (
            "kube-system, older than the timeout",
            pod("kube-system", "dns", "a", |v| {
                replicated(v);
                v["metadata"]["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
            }),
            vec![],
            Status::Undefined,
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
            Status::Undefined,
        ),
        (
            "emptyDir listed safe",
            pod("default", "p", "a", |v| {
                replicated(v);
                v["spec"]["volumes"] = json!([{"name": "scratch", "emptyDir": {}}]);
                v["metadata"]["annotations"] = json!({"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "other,scratch"});
            }),
            vec![],
            Status::Undefined,
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
            Status::Undefined,
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
    assert_eq!(rule(p, vec![], &loose), Status::Undefined);
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
        Status::Undefined
    );
}

fn cfg(decider: Decider, independent: bool) -> DrainConfig {
    DrainConfig {
        decider,
        independent,
        now_unix: NOW,
        gates: repel_core::FeatureGates::default(),
        seed: 0,
    }
}

fn ca_cfg(independent: bool) -> DrainConfig {
    cfg(Decider::ClusterAutoscaler(opts()), independent)
}

fn action(v: &NodeVerdict, pod: &str) -> PodAction {
    v.pods
        .iter()
        .find(|p| p.pod == pod)
        .map(|p| p.action.clone())
        .unwrap_or_else(|| panic!("{pod} not in {v:?}"))
}

#[test]
fn cluster_autoscaler_moves_a_replicated_pod_and_a_bare_pod_blocks() {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "web-1", "a", replicated));
    c.add_pod(pod("default", "bare", "b", |_| {}));
    let r = on_copy(&c, &["a", "b"], &ca_cfg(true));
    assert_eq!(r.as_, "cluster-autoscaler");
    let (a, b) = (&r.nodes[0], &r.nodes[1]);
    assert!(a.drainable && a.reason.is_none(), "{a:?}");
    assert_eq!(
        action(a, "default/web-1"),
        PodAction::Move { to: "b".into() }
    );
    assert!(!b.drainable);
    assert_eq!(b.reason.as_deref(), Some("BlockedByPod"));
    assert_eq!(b.message.as_deref(), Some("default/bare is not replicated"));
    assert_eq!(
        action(b, "default/bare"),
        PodAction::Blocked {
            reason: "NotReplicated".into(),
            message: "default/bare is not replicated".into()
        }
    );
}

#[test]
fn a_pod_that_fits_nowhere_else_keeps_the_node() {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "pinned", "a", |v| {
        replicated(v);
        v["spec"]["nodeSelector"] = json!({"kubernetes.io/hostname": "a"});
    }));
    let r = on_copy(&c, &["a"], &ca_cfg(true));
    let a = &r.nodes[0];
    assert!(!a.drainable);
    assert_eq!(a.reason.as_deref(), Some("NoPlaceToMovePods"));
    assert_eq!(
        a.message.as_deref(),
        Some("can reschedule only 0 out of 1 pods")
    );
    // The FitError: the ghost node is tainted, the other does not match the selector.
    match action(a, "default/pinned") {
        PodAction::Pending { message } => {
            assert!(message.starts_with("0/2 nodes are available:"), "{message}");
            assert!(
                message.contains("1 node(s) had untolerated taint"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    // The same as kubectl: the node is cordoned, the replacement fits nowhere.
    let r = on_copy(
        &c,
        &["a"],
        &cfg(Decider::Kubectl(DrainOptions::default()), true),
    );
    assert_eq!(r.nodes[0].reason.as_deref(), Some("NoPlaceToMovePods"));
    match action(&r.nodes[0], "default/pinned") {
        PodAction::Pending { message } => {
            assert!(message.contains("node(s) were unschedulable"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    // As Karpenter: the what-if launches no replacement node, and says so rather than
    // claiming no NodePool was read.
    let r = on_copy(&c, &["a"], &cfg(Decider::Karpenter, true));
    assert_eq!(r.nodes[0].reason.as_deref(), Some("NoPlaceToMovePods"));
    assert_eq!(
        r.nodes[0].message.as_deref(),
        Some(
            "1 pod(s) would schedule on no remaining node (the what-if launches no replacement node, whatever NodePools were read)"
        )
    );
}

#[test]
fn kubectl_filters_force_daemonsets_and_budgets() {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "bare", "a", |_| {}));
    c.add_pod(pod("default", "agent", "a", |v| {
        v["metadata"]["ownerReferences"] = owner("DaemonSet", "agent");
    }));
    c.add_pod(pod("default", "web-1", "a", replicated));
    let kubectl = |o: DrainOptions| cfg(Decider::Kubectl(o), true);
    let r = on_copy(&c, &["a"], &kubectl(DrainOptions::default()));
    let a = &r.nodes[0];
    assert!(!a.drainable);
    assert_eq!(a.reason.as_deref(), Some("BlockedByPod"));
    let message = a.message.clone().unwrap_or_default();
    assert!(
        message.contains(
            "cannot delete Pods that declare no controller (use --force to override): default/bare"
        ),
        "{message}"
    );
    assert!(
        message.contains("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/agent"),
        "{message}"
    );
    let o = DrainOptions {
        force: true,
        ignore_daemonsets: true,
        ..Default::default()
    };
    let r = on_copy(&c, &["a"], &kubectl(o.clone()));
    let a = &r.nodes[0];
    assert!(a.drainable, "{a:?}");
    assert!(matches!(action(a, "default/bare"), PodAction::Gone { .. }));
    assert_eq!(
        action(a, "default/agent"),
        PodAction::Stays {
            why: "DaemonSet pod".into()
        }
    );
    assert_eq!(
        action(a, "default/web-1"),
        PodAction::Move { to: "b".into() }
    );
    // A budget that allows no disruption refuses the eviction, with kubectl's words.
    let mut c2 = c.clone();
    c2.pdbs = vec![pdb("default", 0)];
    let r = on_copy(&c2, &["a"], &kubectl(o.clone()));
    let a = &r.nodes[0];
    assert_eq!(a.reason.as_deref(), Some("EvictionRefused"));
    assert_eq!(
        a.message.as_deref(),
        Some(
            "error when evicting pods/\"web-1\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."
        )
    );
    // --disable-eviction deletes without asking the budget.
    let r = on_copy(
        &c2,
        &["a"],
        &kubectl(DrainOptions {
            disable_eviction: true,
            ..o
        }),
    );
    assert!(r.nodes[0].drainable);
}

#[test]
fn a_sequence_carries_each_drain_into_the_next_and_independent_does_not() {
    // Room for one pod per node: a's pod goes to c; then b's has nowhere to go (a is cordoned
    // or removed, c is full). Judged independently, each fits on c.
    let mut c = Cluster::new();
    for n in ["a", "b", "c"] {
        c.add_node(node(n, "1"));
    }
    c.add_pod(pod("default", "web-1", "a", replicated));
    c.add_pod(pod("default", "web-2", "b", replicated));
    for decider in [
        Decider::Kubectl(DrainOptions::default()),
        Decider::ClusterAutoscaler(opts()),
    ] {
        let seq = on_copy(&c, &["a", "b"], &cfg(decider.clone(), false));
        assert!(seq.nodes[0].drainable, "{seq:?}");
        assert_eq!(
            action(&seq.nodes[0], "default/web-1"),
            PodAction::Move { to: "c".into() }
        );
        assert!(!seq.nodes[1].drainable, "{seq:?}");
        assert_eq!(seq.nodes[1].reason.as_deref(), Some("NoPlaceToMovePods"));
        let ind = on_copy(&c, &["a", "b"], &cfg(decider, true));
        assert!(ind.nodes.iter().all(|n| n.drainable), "{ind:?}");
    }
    // The input is never changed.
    assert_eq!(c.pods.iter().filter(|p| p.node.is_some()).count(), 2);
}

#[test]
fn the_report_serialises_as_the_contract_says() {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "web-1", "a", replicated));
    c.add_pod(pod("default", "bare", "b", |_| {}));
    let r = on_copy(&c, &["a", "b"], &ca_cfg(true));
    let v = serde_json::to_value(&r).unwrap_or_default();
    assert_eq!(v["as"], "cluster-autoscaler");
    assert_eq!(
        v["nodes"][0],
        json!({"node": "a", "drainable": true, "reason": null, "message": null,
               "pods": [{"pod": "default/web-1", "action": "move", "to": "b"}]})
    );
    assert_eq!(
        v["nodes"][1]["pods"][0],
        json!({"pod": "default/bare", "action": "blocked", "reason": "NotReplicated",
               "message": "default/bare is not replicated"})
    );
}

fn sized(name: &str, cpu: &str) -> Node {
    let mut n = node(name, "110");
    if let Some(s) = n.status.as_mut() {
        s.allocatable = Some(
            [
                (
                    "cpu".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity(cpu.into()),
                ),
                (
                    "memory".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("8Gi".into()),
                ),
                (
                    "pods".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("110".into()),
                ),
            ]
            .into_iter()
            .collect(),
        );
    }
    n
}

fn requesting(name: &str, node: &str, cpu: &str) -> Pod {
    pod("default", name, node, |v| {
        replicated(v);
        v["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": cpu}});
    })
}

#[test]
fn consolidation_keeps_busy_and_disabled_nodes_and_removes_empty_ones_first() {
    use super::consolidate::{cluster_autoscaler, utilization};
    let mut c = Cluster::new();
    c.add_node(sized("busy", "4")); // 3 of 4 cores: 0.75
    c.add_node(sized("light", "4")); // 1 of 4: 0.25
    c.add_node(sized("empty", "4"));
    let mut off = sized("off", "4");
    off.metadata.annotations = Some(
        [(ca::SCALE_DOWN_DISABLED.to_string(), "true".to_string())]
            .into_iter()
            .collect(),
    );
    c.add_node(off);
    c.add_pod(requesting("a", "busy", "3"));
    c.add_pod(requesting("b", "light", "1"));
    assert_eq!(utilization(&c, 0).cpu, 0.75);
    let r = cluster_autoscaler(&c, &opts(), 0.5, &ca_cfg(false));
    let removed: Vec<&str> = r.removable.iter().map(|n| n.node.as_str()).collect();
    // The empty node first; then "light", whose pod moves to "busy" (one core left) or "off"
    // (a node kept from scale-down still takes pods) — not to "empty", removed before it.
    assert_eq!(removed[0], "empty", "{r:?}");
    assert!(removed.contains(&"light"), "{r:?}");
    let light = r
        .removable
        .iter()
        .find(|n| n.node == "light")
        .unwrap_or_else(|| panic!("{r:?}"));
    assert_eq!(light.pods.len(), 1);
    assert_ne!(light.pods[0].to, "empty", "an earlier removal is committed");
    let kept: Vec<(&str, &str)> = r
        .kept
        .iter()
        .map(|k| (k.node.as_str(), k.reason.as_str()))
        .collect();
    assert_eq!(
        kept,
        [
            ("busy", "NotUnderutilized"),
            ("off", "ScaleDownDisabledAnnotation")
        ]
    );
    assert!(
        r.kept[0]
            .message
            .starts_with("utilization 0.75 (cpu 0.75, memory 0.00)"),
        "{:?}",
        r.kept[0]
    );
    // Exactly at the threshold is eligible.
    let r = cluster_autoscaler(&c, &opts(), 0.75, &ca_cfg(false));
    assert!(
        !r.kept
            .iter()
            .any(|k| k.node == "busy" && k.reason == "NotUnderutilized"),
        "{r:?}"
    );
}

#[test]
fn kubectl_retries_a_refused_eviction_once_the_replacement_runs() {
    // minAvailable 1 over two replicas on a: the first eviction is allowed, the second only
    // once the first's replacement runs on b (kubectl's retry).
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "web-1", "a", replicated));
    c.add_pod(pod("default", "web-2", "a", replicated));
    let mut budget = pdb("default", 1);
    budget.status = None;
    c.pdbs = vec![budget.clone()];
    let kubectl = cfg(Decider::Kubectl(DrainOptions::default()), true);
    let r = on_copy(&c, &["a"], &kubectl);
    assert!(r.nodes[0].drainable, "{r:?}");
    assert_eq!(
        action(&r.nodes[0], "default/web-2"),
        PodAction::Move { to: "b".into() }
    );
    // A budget whose status says 1 is recomputed as the disruption controller would.
    c.pdbs = vec![pdb("default", 1)];
    assert!(on_copy(&c, &["a"], &kubectl).nodes[0].drainable);
    // With nowhere to go, the second eviction waits for ever.
    let mut alone = Cluster::new();
    alone.add_node(node("a", "110"));
    alone.add_pod(pod("default", "web-1", "a", replicated));
    alone.add_pod(pod("default", "web-2", "a", replicated));
    alone.pdbs = vec![budget];
    let r = on_copy(&alone, &["a"], &kubectl);
    assert_eq!(
        r.nodes[0].reason.as_deref(),
        Some("EvictionRefused"),
        "{r:?}"
    );
    assert!(matches!(
        action(&r.nodes[0], "default/web-1"),
        PodAction::Pending { .. }
    ));
}

#[test]
fn karpenter_do_not_disrupt_budgets_disrupted_tolerations_and_hard_prefer_no_schedule() {
    let karpenter = cfg(Decider::Karpenter, true);
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    let mut b = node("b", "110");
    b.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
        taints: Some(vec![k8s_openapi::api::core::v1::Taint {
            key: "soft".into(),
            effect: "PreferNoSchedule".into(),
            ..Default::default()
        }]),
        ..Default::default()
    });
    c.add_node(b);
    c.add_node(node("c", "110"));
    c.add_pod(pod("default", "web-1", "a", replicated));
    c.add_pod(pod("default", "bare", "a", |_| {}));
    c.add_pod(pod("default", "stayer", "a", |v| {
        replicated(v);
        v["spec"]["tolerations"] = json!([{"key": "karpenter.sh/disrupted", "operator": "Exists"}]);
    }));
    let r = on_copy(&c, &["a"], &karpenter);
    let a = &r.nodes[0];
    assert_eq!(r.as_, "karpenter");
    assert!(a.drainable, "{a:?}");
    // b's PreferNoSchedule taint is hard for Karpenter: web-1 goes to c.
    assert_eq!(
        action(a, "default/web-1"),
        PodAction::Move { to: "c".into() }
    );
    assert!(matches!(action(a, "default/bare"), PodAction::Gone { .. }));
    assert!(matches!(
        action(a, "default/stayer"),
        PodAction::Stays { .. }
    ));
    // The same node as kube-scheduler sees it: b is only dispreferred.
    let k = on_copy(
        &c,
        &["a"],
        &cfg(
            Decider::Kubectl(DrainOptions {
                force: true,
                ..Default::default()
            }),
            true,
        ),
    );
    assert!(k.nodes[0].drainable);

    // do-not-disrupt on a pod, then on the node.
    let mut d = c.clone();
    let id = d.pod_id("default", "web-1").unwrap_or(usize::MAX);
    let mut meta = (*d.pods[id].meta).clone();
    meta.annotations = Some(
        [(karpenter_dnd(), "true".to_string())]
            .into_iter()
            .collect(),
    );
    d.set_pod_meta(id, meta);
    let v = &on_copy(&d, &["a"], &karpenter).nodes[0];
    assert_eq!(v.reason.as_deref(), Some("BlockedByPod"));
    assert_eq!(
        v.message.as_deref(),
        Some("pod has \"karpenter.sh/do-not-disrupt\" annotation (Pod=default/web-1)")
    );
    let mut n = c.clone();
    let mut node_a = (*n.nodes[0].node).clone();
    node_a.metadata.annotations = Some(
        [(karpenter_dnd(), "true".to_string())]
            .into_iter()
            .collect(),
    );
    n.replace_node(0, node_a);
    let v = &on_copy(&n, &["a"], &karpenter).nodes[0];
    assert_eq!(v.reason.as_deref(), Some("DoNotDisrupt"));
    assert_eq!(
        v.message.as_deref(),
        Some("disruption is blocked through the \"karpenter.sh/do-not-disrupt\" annotation")
    );
    // A budget allowing nothing.
    let mut p = c.clone();
    p.pdbs = vec![pdb("default", 0)];
    let v = &on_copy(&p, &["a"], &karpenter).nodes[0];
    assert_eq!(
        action(v, "default/web-1"),
        PodAction::Blocked {
            reason: "PDBViolation".into(),
            message: "pdb prevents pod evictions (PodDisruptionBudget=[default/budget])".into()
        }
    );
}

fn karpenter_dnd() -> String {
    super::karpenter::DO_NOT_DISRUPT.to_string()
}

#[test]
fn karpenter_consolidation_emptiness_then_multi_node_and_what_stays() {
    use super::consolidate::{KarpenterPool, karpenter};
    let labelled = |name: &str, pool: Option<&str>, dnd: bool| {
        let mut n = node(name, "110");
        if let Some(p) = pool {
            n.metadata
                .labels
                .get_or_insert_with(Default::default)
                .insert("karpenter.sh/nodepool".into(), p.into());
        }
        if dnd {
            n.metadata.annotations = Some(
                [(karpenter_dnd(), "true".to_string())]
                    .into_iter()
                    .collect(),
            );
        }
        n
    };
    let mut c = Cluster::new();
    c.add_node(labelled("a", Some("general"), false));
    c.add_node(labelled("b", Some("general"), false));
    c.add_node(labelled("c", Some("general"), false));
    c.add_node(labelled("d", None, false));
    c.add_node(labelled("e", Some("frozen"), false));
    c.add_node(labelled("f", Some("general"), true));
    c.add_node(labelled("g", Some("quiet"), false));
    c.add_pod(pod("default", "on-a", "a", replicated));
    c.add_pod(pod("default", "on-b", "b", replicated));
    c.add_pod(pod("default", "on-g", "g", replicated));
    let pools = vec![
        KarpenterPool {
            name: "general".into(),
            policy: None,
            consolidate_after: Some("0s".into()),
        },
        KarpenterPool {
            name: "frozen".into(),
            policy: None,
            consolidate_after: None,
        },
        KarpenterPool {
            name: "quiet".into(),
            policy: Some("WhenEmpty".into()),
            consolidate_after: Some("1m".into()),
        },
    ];
    let r = karpenter(&c, &pools, &cfg(Decider::Karpenter, false));
    assert_eq!(r.as_, "karpenter");
    let removed: Vec<&str> = r.removable.iter().map(|n| n.node.as_str()).collect();
    // c is empty: emptiness first; then a and b together (multi-node), their pods elsewhere.
    assert_eq!(removed, ["c", "a", "b"], "{r:?}");
    for n in &r.removable[1..] {
        assert_eq!(n.pods.len(), 1);
        assert!(!["a", "b", "c"].contains(&n.pods[0].to.as_str()), "{r:?}");
    }
    let kept: Vec<(&str, &str)> = r
        .kept
        .iter()
        .map(|k| (k.node.as_str(), k.reason.as_str()))
        .collect();
    assert_eq!(
        kept,
        [
            ("d", "NotManaged"),
            ("e", "ConsolidationDisabled"),
            ("f", "DoNotDisrupt"),
            ("g", "WhenEmpty")
        ]
    );
    assert_eq!(r.kept[0].message, "node isn't managed by karpenter");
    assert_eq!(
        r.kept[1].message,
        "NodePool \"frozen\" has consolidation disabled"
    );
    // consolidation.go ShouldDisrupt's text for a WhenEmpty pool's busy node.
    assert_eq!(
        r.kept[3].message,
        "NodePool \"quiet\" has non-empty consolidation disabled"
    );
}

/// A generated cluster with every pod placed, as `repel drain` loads one, and the controllers
/// of its pods (so that cluster-autoscaler finds them all).
/// A generated cluster as read, its pods not scheduled yet.
fn generated(
    shape: crate::generate::ClusterShape,
    nodes: usize,
    pods: usize,
    seed: u64,
) -> Cluster {
    let g = shape.generate(&crate::generate::GenerateOptions {
        nodes,
        pods,
        seed,
        taints_per_node: 0,
    });
    crate::load::build_cluster(
        g.input(),
        &repel_core::FeatureGates::default(),
        &repel_core::admission::AdmissionConfig::default(),
        seed,
    )
    .cluster
}

fn placed(
    shape: crate::generate::ClusterShape,
    nodes: usize,
    pods: usize,
    seed: u64,
) -> (Cluster, Options) {
    let gates = repel_core::FeatureGates::default();
    let mut c = generated(shape, nodes, pods, seed);
    crate::scheduler::fast::FastScheduler::new(gates, None, seed).schedule_all(&mut c);
    let opts = Options {
        controllers: super::ca::pod_controllers(&c),
        ..Options::default()
    };
    (c, opts)
}

/// What a what-if may change, node by node and pod by pod.
fn fingerprint(c: &Cluster) -> String {
    let mut out = String::new();
    for n in &c.nodes {
        out += &format!(
            "{} {:?} {:?} {:?} {:?} {:?} {} {:?} {}\n",
            n.name,
            n.pods,
            n.requested,
            n.non_zero_requested,
            n.taints,
            n.used_ports,
            n.unschedulable,
            n.pods_with_required_anti_affinity,
            serde_json::to_string(&*n.node).unwrap_or_default()
        );
    }
    for p in &c.pods {
        out += &format!(
            "{} {:?} {:?} {:?} {:?} {}\n",
            p.key(),
            p.node,
            p.phase,
            p.nominated,
            p.spec_node_name(),
            p.deleted
        );
    }
    out
}

#[test]
fn the_compiled_first_fit_judges_every_node_as_the_reference_and_undo_restores_the_cluster() {
    use crate::generate::ClusterShape;
    for (shape, nodes, pods, seed) in [
        (ClusterShape::Default, 40, 1_200, 1),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2),
        (ClusterShape::LargeWorkloads, 60, 2_400, 5),
    ] {
        let (c, opts) = placed(shape, nodes, pods, seed);
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for independent in [true, false] {
            let cfg = cfg(Decider::ClusterAutoscaler(opts.clone()), independent);
            let mut a = c.clone();
            let (got, answered) = drain_ca_on(&mut a, &names, &opts, &cfg, &mut None, true);
            let mut b = c.clone();
            let (want, _) = drain_ca_on(&mut b, &names, &opts, &cfg, &mut None, false);
            assert!(answered.0 > 10 * answered.1, "{answered:?}");
            assert_eq!(got, want, "{shape} seed {seed} independent {independent}");
            assert_eq!(fingerprint(&a), fingerprint(&b));
            if independent {
                assert_eq!(fingerprint(&a), fingerprint(&c), "{shape} seed {seed}");
            }
            let moved = got
                .nodes
                .iter()
                .flat_map(|n| &n.pods)
                .filter(|p| matches!(p.action, PodAction::Move { .. }))
                .count();
            assert!(moved > 100, "{shape} seed {seed}: {moved} pods moved");
            assert!(got.nodes.iter().any(|n| n.drainable), "{shape} seed {seed}");
            assert!(
                got.nodes.iter().any(|n| !n.drainable),
                "{shape} seed {seed}"
            );
        }
    }
}

#[test]
fn karpenters_compiled_what_if_judges_every_node_as_the_reference_on_copies() {
    use crate::generate::ClusterShape;
    for (shape, nodes, pods, seed) in [
        (ClusterShape::Default, 40, 1_200, 1),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2),
    ] {
        let (c, _) = placed(shape, nodes, pods, seed);
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for independent in [true, false] {
            let cfg = cfg(Decider::Karpenter, independent);
            let want = on_copies(&c, &names, &cfg, |w, n| karpenter::judge(w, n, &cfg));
            let mut a = c.clone();
            let (got, answered) = drain_karpenter_on(&mut a, &names, &cfg, true);
            assert_eq!(got, want, "{shape} seed {seed} independent {independent}");
            assert!(answered.0 > 10 * answered.1, "{answered:?}");
            let mut b = c.clone();
            let (reference, _) = drain_karpenter_on(&mut b, &names, &cfg, false);
            assert_eq!(got, reference);
            if independent {
                let mut hard = c.clone();
                karpenter::harden_taints(&mut hard);
                assert_eq!(fingerprint(&a), fingerprint(&hard), "{shape} seed {seed}");
            }
            let count = |f: fn(&PodAction) -> bool| {
                got.nodes
                    .iter()
                    .flat_map(|n| &n.pods)
                    .filter(|p| f(&p.action))
                    .count()
            };
            assert!(count(|a| matches!(a, PodAction::Move { .. })) > 100);
            assert!(count(|a| matches!(a, PodAction::Pending { .. })) > 0);
            assert!(got.nodes.iter().any(|n| n.drainable));
        }
    }
}

/// Each node judged by `judge` on a copy of the cluster: of `c` when `independent`, else of the
/// cluster the last drainable node left (the what-ifs before [`Undo`], kept to check it).
fn on_copies(
    c: &Cluster,
    nodes: &[&str],
    cfg: &DrainConfig,
    judge: impl Fn(&mut Cluster, NodeId) -> NodeVerdict,
) -> DrainReport {
    let mut carried = c.clone();
    let mut out = Vec::new();
    for name in nodes {
        let mut work = if cfg.independent {
            c.clone()
        } else {
            carried.clone()
        };
        let Some(node) = work.node_id(name) else {
            continue;
        };
        let verdict = judge(&mut work, node);
        if verdict.drainable && !cfg.independent {
            carried = work;
        }
        out.push(verdict);
    }
    DrainReport {
        as_: cfg.decider.name(),
        nodes: out,
    }
}

/// Budgets on the first `n` apps of `c` (their `app` label): every other one allows one
/// disruption (in its status, and as `maxUnavailable`), the others none, so that in a what-if
/// budgets change, evictions are refused and retried, and some refusals stand.
fn with_budgets(c: &mut Cluster, n: usize) {
    use k8s_openapi::api::policy::v1::{
        PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus,
    };
    let mut apps: Vec<(String, String)> = c
        .pods
        .iter()
        .filter(|p| p.node.is_some())
        .filter_map(|p| Some((p.namespace.clone(), p.labels().get("app")?.clone())))
        .collect();
    apps.sort();
    apps.dedup();
    // Running, as a kubelet reports them: eviction consults no budget for a Pending pod.
    for p in c.pods.iter_mut().filter(|p| p.node.is_some()) {
        p.phase = crate::cluster::PodPhase::Running;
    }
    for (i, (ns, app)) in apps.into_iter().take(n).enumerate() {
        let allowed = i32::from(i % 2 == 0);
        c.pdbs.push(PodDisruptionBudget {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: Some(format!("{app}-pdb")),
                namespace: Some(ns),
                ..Default::default()
            },
            spec: Some(PodDisruptionBudgetSpec {
                max_unavailable: Some(
                    k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(allowed),
                ),
                selector: Some(
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
                        match_labels: Some([("app".to_string(), app)].into()),
                        ..Default::default()
                    },
                ),
                ..Default::default()
            }),
            status: Some(PodDisruptionBudgetStatus {
                disruptions_allowed: Some(allowed),
                ..Default::default()
            }),
        });
    }
}

#[test]
fn kubectls_compiled_what_if_places_as_the_reference_and_undo_restores_the_cluster() {
    use crate::generate::ClusterShape;
    let mut gone = 0;
    for (shape, nodes, pods, seed, budgets) in [
        (ClusterShape::Default, 40, 1_200, 1, 0),
        (ClusterShape::Default, 40, 1_400, 3, 8),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2, 0),
        (ClusterShape::LargeWorkloads, 60, 2_400, 5, 0),
    ] {
        let (mut c, _) = placed(shape, nodes, pods, seed);
        with_budgets(&mut c, budgets);
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let opts = DrainOptions {
            ignore_daemonsets: true,
            delete_emptydir_data: true,
            force: true,
            ..DrainOptions::default()
        };
        for independent in [true, false] {
            let cfg = cfg(Decider::Kubectl(opts.clone()), independent);
            let what = format!("{shape} seed {seed} independent {independent}");
            let mut a = c.clone();
            let mut ff = None;
            let (got, answered) = drain_kubectl_on(&mut a, &names, &opts, &cfg, &mut ff, true);
            assert!(answered.0 > 10 * answered.1, "{what}: {answered:?}");
            if independent {
                // Placements answered from the cluster before each what-if (the others fit
                // one node or none: the full path's).
                let (levels, built, _) = ff.as_ref().map_or((0, 0, 0), |f| f.what_if_stats());
                assert!(levels > 100 && built > 0, "{what}: {levels} {built}");
            }
            // The reference for every placement, on one working cluster put back each time.
            let mut b = c.clone();
            let (reference, answered) =
                drain_kubectl_on(&mut b, &names, &opts, &cfg, &mut None, false);
            assert_eq!(answered.0, 0);
            assert_eq!(got, reference, "{what}");
            // The reference on a copy of the cluster per node, nothing put back.
            let want = on_copies(&c, &names, &cfg, |w, n| {
                let name = w.nodes[n].name.clone();
                let (mut r, _) = drain_kubectl_on(w, &[&name], &opts, &cfg, &mut None, false);
                r.nodes.remove(0)
            });
            assert_eq!(got, want, "{what}");
            if independent {
                assert_eq!(fingerprint(&a), fingerprint(&c), "{what}");
                assert_eq!(
                    serde_json::to_string(&a.pdbs).ok(),
                    serde_json::to_string(&c.pdbs).ok(),
                    "{what}"
                );
            }
            let count = |f: fn(&PodAction) -> bool| {
                got.nodes
                    .iter()
                    .flat_map(|n| &n.pods)
                    .filter(|p| f(&p.action))
                    .count()
            };
            let verdicts: Vec<(bool, usize)> = got
                .nodes
                .iter()
                .map(|n| (n.drainable, n.pods.len()))
                .collect();
            assert!(
                count(|a| matches!(a, PodAction::Move { .. })) > 100,
                "{what}: {verdicts:?}"
            );
            gone += count(|a| matches!(a, PodAction::Gone { .. }));
            if budgets > 0 {
                assert!(
                    count(|a| matches!(a, PodAction::Blocked { .. })) > 0,
                    "{what}"
                );
            }
            assert!(got.nodes.iter().any(|n| n.drainable), "{what}");
            if !independent {
                assert!(
                    count(|a| matches!(a, PodAction::Pending { .. })) > 0,
                    "{what}"
                );
                assert!(got.nodes.iter().any(|n| !n.drainable), "{what}");
            }
        }
    }
    // Pods without a controller, deleted for good (--force), are put back too.
    assert!(gone > 0);
}

#[test]
fn kubectls_replacement_that_tolerates_the_cordon_may_land_back_on_the_node() {
    // Node a is the emptier: LeastAllocated prefers it. A replacement that tolerates
    // node.kubernetes.io/unschedulable passes NodeUnschedulable there, cordoned or not; one
    // that does not goes to b. The compiled path and the reference agree.
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    let request = |v: &mut Value, cpu: &str| {
        v["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": cpu}});
    };
    c.add_pod(pod("default", "filler", "b", |v| {
        replicated(v);
        v["metadata"]["labels"] = json!({"app": "filler"});
        request(v, "2");
    }));
    c.add_pod(pod("default", "tolerant", "a", |v| {
        replicated(v);
        request(v, "100m");
        v["spec"]["tolerations"] = json!([{"key": "node.kubernetes.io/unschedulable",
            "operator": "Exists", "effect": "NoSchedule"}]);
    }));
    c.add_pod(pod("default", "plain", "a", |v| {
        replicated(v);
        v["metadata"]["labels"] = json!({"app": "plain"});
        request(v, "100m");
    }));
    let opts = DrainOptions::default();
    let cfg = cfg(Decider::Kubectl(opts.clone()), true);
    for compiled in [true, false] {
        let mut w = c.clone();
        let (r, answered) = drain_kubectl_on(&mut w, &["a"], &opts, &cfg, &mut None, compiled);
        assert_eq!(answered.0 > 0, compiled);
        assert!(r.nodes[0].drainable, "{r:?}");
        let to = |p| match action(&r.nodes[0], p) {
            PodAction::Move { to } => to,
            other => panic!("{other:?}"),
        };
        assert_eq!(to("default/tolerant"), "a", "compiled {compiled}");
        assert_eq!(to("default/plain"), "b", "compiled {compiled}");
    }
}

#[test]
fn kubectls_what_if_scores_every_node_whatever_the_state_was_scheduled_with() {
    // `repel drain` starts from the state of the run that scheduled its input, with the
    // user's percentageOfNodesToScore (upstream's adaptive one by default); a replacement is
    // still placed against every node (more than 100 nodes, so that 10% is fewer).
    let gates = repel_core::FeatureGates::default();
    let mut c = generated(crate::generate::ClusterShape::Default, 400, 8_000, 4);
    let mut fast = crate::scheduler::fast::FastScheduler::new(gates, Some(10), 4);
    fast.keep_state();
    fast.schedule_all(&mut c);
    let kept = FirstFit::from_scheduler(fast, &c);
    let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
    let names: Vec<&str> = names.iter().take(60).map(String::as_str).collect();
    let opts = DrainOptions {
        ignore_daemonsets: true,
        delete_emptydir_data: true,
        force: true,
        ..DrainOptions::default()
    };
    let cfg = cfg(Decider::Kubectl(opts.clone()), true);
    let (got, answered) =
        drain_kubectl_on(&mut c.clone(), &names, &opts, &cfg, &mut Some(kept), true);
    assert!(answered.0 > 10 * answered.1, "{answered:?}");
    let (want, _) = drain_kubectl_on(&mut c.clone(), &names, &opts, &cfg, &mut None, false);
    assert_eq!(got, want);
}

#[test]
fn kubectls_replacements_land_where_schedule_puts_them_on_the_cordoned_cluster() {
    // `repel drain` and `repel schedule` answer the same question: a node's evicted pods
    // re-created on the cluster with the node cordoned (pods deleted for good gone) are
    // scheduled — a fresh scheduler, the same seed, every node scored, in queue order — where
    // the what-if moved them (nodes where a replacement fits nowhere are left out: the
    // scheduler would preempt).
    use crate::generate::ClusterShape;
    let mut checked = 0;
    for (shape, seed) in [
        (ClusterShape::Default, 6),
        (ClusterShape::LargeWorkloads, 7),
    ] {
        let (c, _) = placed(shape, 40, 900, seed);
        let opts = DrainOptions {
            ignore_daemonsets: true,
            delete_emptydir_data: true,
            force: true,
            ..DrainOptions::default()
        };
        let mut cfg = cfg(Decider::Kubectl(opts), true);
        cfg.seed = seed;
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let report = on_copy(&c, &names, &cfg);
        for v in report.nodes.iter().filter(|v| v.drainable) {
            let mut w = c.clone();
            let Some(node) = w.node_id(&v.node) else {
                continue;
            };
            w.set_unschedulable(node, true);
            let id_of = |w: &Cluster, key: &str| {
                (0..w.pods.len()).find(|&i| w.pods[i].key() == key && !w.pods[i].deleted)
            };
            let mut queue = Vec::new();
            let mut want = std::collections::BTreeMap::new();
            for p in &v.pods {
                let Some(id) = id_of(&w, &p.pod) else {
                    continue;
                };
                match &p.action {
                    PodAction::Move { to } => {
                        unschedule(&mut w, id);
                        queue.push(id);
                        want.insert(id, to.clone());
                    }
                    PodAction::Gone { .. } => w.force_delete_pod(id),
                    _ => {}
                }
            }
            Scheduler::queue_order(&w, &mut queue);
            let mut s = crate::scheduler::fast::FastScheduler::new(cfg.gates, Some(100), seed);
            for (id, placed) in queue.iter().zip(s.schedule_each(&mut w, &queue)) {
                match placed.outcome {
                    crate::scheduler::Outcome::Scheduled { node, .. } => {
                        assert_eq!(
                            Some(&w.nodes[node].name),
                            want.get(id),
                            "{shape}: {} from {}",
                            w.pods[*id].key(),
                            v.node
                        );
                    }
                    other => panic!("{other:?}"),
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} nodes compared");
}

mod ca_upstream;
mod karpenter_upstream;
mod kubectl_upstream;
