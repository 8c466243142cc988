//! Karpenter's disruption what-ifs: do-not-disrupt, budgets, tolerations and consolidation.

use super::*;

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
