//! Each decider's verdicts: cluster-autoscaler moves and blocks, kubectl's filters and retries, sequences, consolidation and the report's shape.

use super::*;

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
