//! kubectl's `daemonSetFilter` on a pod whose DaemonSet is not found.

use super::*;

/// kubectl `pkg/drain/filters.go` `daemonSetFilter`: the DaemonSet a pod names is looked up;
/// when the API server has none, its NotFound error fails the drain unless `--force`
/// (`--ignore-daemonsets` does not help), and `--force` deletes the pod for good.
#[test]
fn kubectl_daemon_set_filter_on_an_orphaned_daemon_set_pod() {
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    c.add_pod(pod("default", "agent-x", "a", |v| {
        v["metadata"]["ownerReferences"] = owner("DaemonSet", "agent");
    }));
    c.add_pod(pod("default", "web-1", "a", replicated));
    let known = |names: &[&str]| {
        Some(std::sync::Arc::new(
            names
                .iter()
                .map(|n| ("default".to_string(), n.to_string()))
                .collect(),
        ))
    };
    let kubectl = |o: DrainOptions| on_copy(&c, &["a"], &cfg(Decider::Kubectl(o), true));
    let not_found = "cannot delete daemonsets.apps \"agent\" not found: default/agent-x";
    for (name, ignore_daemonsets) in [
        ("orphaned DaemonSet pod", false),
        ("orphaned DaemonSet pod with --ignore-daemonsets", true),
    ] {
        let v = &kubectl(DrainOptions {
            ignore_daemonsets,
            daemon_sets: known(&[]),
            ..Default::default()
        })
        .nodes[0];
        assert!(!v.drainable, "{name}: {v:?}");
        assert_eq!(v.reason.as_deref(), Some("BlockedByPod"), "{name}");
        assert_eq!(v.message.as_deref(), Some(not_found), "{name}");
        assert_eq!(
            action(v, "default/agent-x"),
            PodAction::Blocked {
                reason: "DaemonSetNotFound".into(),
                message: not_found.into()
            },
            "{name}"
        );
    }
    // --force deletes it, with or without --ignore-daemonsets; nothing recreates it.
    for ignore_daemonsets in [false, true] {
        let v = &kubectl(DrainOptions {
            force: true,
            ignore_daemonsets,
            daemon_sets: known(&[]),
            ..Default::default()
        })
        .nodes[0];
        assert!(v.drainable, "{v:?}");
        assert!(
            matches!(action(v, "default/agent-x"), PodAction::Gone { .. }),
            "{v:?}"
        );
        assert_eq!(
            action(v, "default/web-1"),
            PodAction::Move { to: "b".into() }
        );
    }
    // The DaemonSet found: kubectl's usual DaemonSet filter.
    let v = &kubectl(DrainOptions {
        daemon_sets: known(&["agent"]),
        ..Default::default()
    })
    .nodes[0];
    assert_eq!(
        v.message.as_deref(),
        Some(
            "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): \
             default/agent-x"
        )
    );
    let v = &kubectl(DrainOptions {
        ignore_daemonsets: true,
        daemon_sets: known(&["agent"]),
        ..Default::default()
    })
    .nodes[0];
    assert!(v.drainable, "{v:?}");
    assert!(matches!(
        action(v, "default/agent-x"),
        PodAction::Stays { .. }
    ));
}
