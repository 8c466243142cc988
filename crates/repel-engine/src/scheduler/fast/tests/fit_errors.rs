//! Fit errors and preemption after a compiled fit error, as the reference words and decides them.

use super::*;

fn tolerate_everything(pod: &mut k8s_openapi::api::core::v1::Pod) {
    if let Some(spec) = pod.spec.as_mut() {
        spec.tolerations = Some(vec![k8s_openapi::api::core::v1::Toleration {
            operator: Some("Exists".to_string()),
            ..Default::default()
        }]);
    }
}

#[test]
fn fit_errors_of_the_compiled_path_match_the_reference() {
    use k8s_openapi::api::core::v1::TopologySpreadConstraint;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
        LabelSelector as Selector, LabelSelectorRequirement,
    };
    // Room for everyone: the pods below fail for their own reasons, each node's status decided
    // by a different filter.
    let mut c = cluster(30, 400, 23, 0);
    let others = c.pending();
    let template = free_pod(&c, &others);
    // Two pods labelled probe=x bound to every team node (the only nodes with `dedicated`).
    let team_nodes: Vec<String> = c
        .nodes
        .iter()
        .filter(|n| n.labels.contains_key("dedicated"))
        .map(|n| n.name.clone())
        .collect();
    assert!(team_nodes.len() >= 3, "{team_nodes:?}");
    for (i, node) in team_nodes.iter().enumerate() {
        for k in 0..2 {
            pod_like(&mut c, template, &format!("probe-{i}-{k}"), |p| {
                p.metadata.labels = Some([("probe".to_string(), "x".to_string())].into());
                tolerate_everything(p);
                if let Some(spec) = p.spec.as_mut() {
                    spec.node_name = Some(node.clone());
                }
            });
        }
    }
    // Memory beyond every node's allocatable, cpu short on the fuller nodes only: two
    // NodeResourcesFit statuses, both unresolvable.
    let huge = |c: &mut Cluster, name: &str| {
        pod_like(c, template, name, |p| {
            tolerate_everything(p);
            requests(p, "7", "1000Gi");
        })
    };
    let h1 = huge(&mut c, "huge-1");
    let h2 = huge(&mut c, "huge-2");
    // Spread over `dedicated` (nodes without it: missing required label), then over zones with
    // more domains required than exist (the minimum is 0, and every team node's zone holds
    // two matching pods: skew 2 > 1).
    let hard = |key: &str, min_domains: Option<i32>| TopologySpreadConstraint {
        max_skew: 1,
        topology_key: key.to_string(),
        when_unsatisfiable: "DoNotSchedule".to_string(),
        min_domains,
        label_selector: Some(Selector {
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "probe".to_string(),
                operator: "Exists".to_string(),
                values: None,
            }]),
            ..Default::default()
        }),
        ..Default::default()
    };
    let spread = pod_like(&mut c, template, "spread", |p| {
        tolerate_everything(p);
        requests(p, "10m", "16Mi");
        if let Some(spec) = p.spec.as_mut() {
            spec.topology_spread_constraints = Some(vec![
                hard("dedicated", None),
                hard("topology.kubernetes.io/zone", Some(10)),
            ]);
        }
    });
    let mut queue = vec![h1];
    queue.extend(&others[..200]);
    queue.extend([spread, h2]);
    let (want, stats) = compare_each(&c, &queue, 23);
    let fit_errors: Vec<&String> = want.iter().filter(|w| w.starts_with("unsch")).collect();
    for w in &fit_errors {
        eprintln!("{w}");
    }
    let (first, spread_msg, last) = (&want[0], &want[201], &want[202]);
    assert!(first.contains("Insufficient memory"), "{first}");
    assert!(last.contains("Insufficient cpu"), "{last}");
    assert!(
        spread_msg.contains(
            "node(s) didn't match pod topology spread constraints (missing required label)"
        ) && spread_msg.contains("node(s) didn't match pod topology spread constraints."),
        "{spread_msg}"
    );
    assert_eq!(stats.reference, 0, "{stats:?}");
    assert!(stats.compiled_unschedulable >= 3, "{stats:?}");
}

#[test]
fn preemption_after_a_compiled_fit_error_matches_the_reference() {
    // A full cluster, then two pods that outrank everyone and fit nowhere: preemption
    // nominates a node for the first and removes its victims; the second (one cycle each, no
    // retry) sees the cluster without them.
    let mut c = cluster(20, 2_600, 29, 0);
    let mut queue = c.pending();
    Scheduler::queue_order(&c, &mut queue);
    let template = free_pod(&c, &queue);
    let vip = |c: &mut Cluster, name: &str| {
        pod_like(c, template, name, |p| {
            tolerate_everything(p);
            requests(p, "3", "1Gi");
            if let Some(spec) = p.spec.as_mut() {
                spec.priority_class_name = None;
                spec.priority = Some(1_000_000_000);
                spec.preemption_policy = None;
            }
        })
    };
    let v1 = vip(&mut c, "vip-1");
    let v2 = vip(&mut c, "vip-2");
    // Outranked by everyone, cpu beyond the system nodes' allocatable (unresolvable: not
    // helpful to preempt) and short on the others (no victims of lower priority).
    let low = pod_like(&mut c, template, "low", |p| {
        tolerate_everything(p);
        requests(p, "5", "16Mi");
        if let Some(spec) = p.spec.as_mut() {
            spec.priority_class_name = None;
            spec.priority = Some(-1_000_000_000);
        }
    });
    queue.extend([v1, v2, low]);
    let (want, stats) = compare_each(&c, &queue, 29);
    let (first, second, third) = (
        &want[want.len() - 3],
        &want[want.len() - 2],
        &want[want.len() - 1],
    );
    assert!(
        third.contains("Insufficient cpu")
            && third.contains("Preemption is not helpful")
            && third.contains("No preemption victims"),
        "{third}"
    );
    assert!(
        first.starts_with("unschedulable 0/20 nodes are available: ")
            && first.contains("Too many pods")
            && first.contains(" Some(("),
        "{first}"
    );
    // The nominated node, emptied of the victims, is held for vip-1: vip-2, of the same
    // priority, may not take it (RunFilterPluginsWithNominatedPods) and preempts elsewhere.
    let nominated = |s: &str| {
        s.split("Some((")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .map(str::to_string)
    };
    let node = nominated(first);
    assert!(
        second.starts_with("unschedulable ") && nominated(second).is_some(),
        "{second}"
    );
    assert_ne!(nominated(second), node, "{second}");
    // While nominations hold room, the reference decides (vip-2 and low).
    assert_eq!(stats.reference, 2, "{stats:?}");
    assert!(stats.compiled_unschedulable >= 1, "{stats:?}");
}

proptest::proptest! {
    /// The best nodes are drawn in filter order: node order from the round-robin start.
    #[test]
    fn the_best_are_drawn_in_node_order_from_the_start(
        n_all in 1usize..400,
        start_seed in 0usize..10_000,
        picks in proptest::collection::vec(0usize..10_000, 0..200),
    ) {
        let start = start_seed % n_all;
        let mut ordered: Vec<NodeId> = picks.iter().map(|p| p % n_all).collect();
        ordered.sort_unstable();
        ordered.dedup();
        let mut want = ordered.clone();
        want.sort_by_key(|n| (n + n_all - start) % n_all);
        let mut bits = vec![0u64; n_all.div_ceil(64)];
        for &n in &ordered {
            by_class::mark(&mut bits, n);
        }
        for j in 0..=ordered.len() {
            let got = by_class::nth_marked_in_filter_order(&bits, j, start);
            proptest::prop_assert_eq!(got, want.get(j).copied());
        }
    }
}
