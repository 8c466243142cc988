//! Same placements as the reference on generated clusters: large workloads, spread chains, adaptive percentages, full clusters, soft constraints.

use super::*;

/// A `ScheduleAnyway` spread constraint over the pods with label `app`.
fn soft_constraint(
    key: &str,
    max_skew: i32,
    app: &str,
    node_taints_policy: Option<String>,
) -> k8s_openapi::api::core::v1::TopologySpreadConstraint {
    k8s_openapi::api::core::v1::TopologySpreadConstraint {
        max_skew,
        topology_key: key.to_string(),
        when_unsatisfiable: SCHEDULE_ANYWAY.to_string(),
        label_selector: Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
                match_labels: Some([("app".to_string(), app.to_string())].into()),
                ..Default::default()
            },
        ),
        node_taints_policy,
        ..Default::default()
    }
}

#[test]
fn same_placements_every_node_scored() {
    for seed in [1, 2, 3] {
        let c = cluster(120, 2_500, seed, 0);
        let stats = compare(&c, Some(100), seed);
        eprintln!("seed {seed}: {stats:?}");
        // The compiled path must carry the load, not the fallback; pods like the one before
        // take the repeat path.
        assert!(
            stats.compiled > stats.reference * 5,
            "seed {seed}: {stats:?}"
        );
        assert!(
            stats.repeated * 3 > stats.compiled,
            "seed {seed}: {stats:?}"
        );
    }
}

#[test]
fn same_placements_on_large_workloads() {
    // Deployments of hundreds of replicas spread over most nodes (system-default and explicit
    // soft spread on hostname and zone, zone DoNotSchedule), node agents on every node,
    // tainted pools: long chains of like pods whose nodes move between hostname-count groups.
    for seed in [1, 5] {
        let g = ClusterShape::LargeWorkloads.generate(&GenerateOptions {
            nodes: 150,
            pods: 6_000,
            seed,
            taints_per_node: 0,
        });
        let c = build_cluster(
            g.input(),
            &FeatureGates::default(),
            &AdmissionConfig::default(),
            seed,
        )
        .cluster;
        let stats = compare(&c, Some(100), seed);
        eprintln!("seed {seed}: {stats:?}");
        assert!(
            stats.repeated * 2 > stats.compiled,
            "seed {seed}: {stats:?}"
        );
    }
}

#[test]
fn same_placements_on_large_workloads_scoring_a_few_nodes() {
    // 10 % of 300 nodes: 100 feasible nodes are scored while a Deployment's pods are on two or
    // three times as many, so their own hostname scores are read off the feasible nodes.
    let g = ClusterShape::LargeWorkloads.generate(&GenerateOptions {
        nodes: 300,
        pods: 6_000,
        seed: 3,
        taints_per_node: 0,
    });
    let c = build_cluster(
        g.input(),
        &FeatureGates::default(),
        &AdmissionConfig::default(),
        3,
    )
    .cluster;
    let stats = compare(&c, Some(10), 3);
    assert_eq!(stats.repeated, 0, "{stats:?}");
    assert!(stats.compiled > 5_000, "{stats:?}");
}

#[test]
fn same_placements_with_hard_zone_spread_chains() {
    // Every Deployment of the large-workloads shape spread DoNotSchedule over zones (maxSkew 1
    // or 3, some with minDomains above the zones there are, some also soft on the hostname):
    // like pods chain while the zones allowed change pod by pod.
    use repel_core::workload::Workload;
    let g = ClusterShape::LargeWorkloads.generate(&GenerateOptions {
        nodes: 150,
        pods: 8_000,
        seed: 9,
        taints_per_node: 0,
    });
    let mut input = g.input();
    let mut hard = 0;
    for (i, w) in input.workloads.iter_mut().enumerate() {
        let Workload::Deployment(d) = w else { continue };
        let spec = &mut d.spec;
        let Some(app) = spec
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.as_ref())
            .and_then(|l| l.get("app"))
            .cloned()
        else {
            continue;
        };
        let Some(pod) = spec.template.spec.as_mut() else {
            continue;
        };
        let mut zone = soft_constraint(
            "topology.kubernetes.io/zone",
            if i % 2 == 0 { 1 } else { 3 },
            &app,
            None,
        );
        zone.when_unsatisfiable = "DoNotSchedule".to_string();
        if i % 5 == 0 {
            zone.min_domains = Some(5);
        }
        let mut constraints = vec![zone];
        if i % 3 == 0 {
            constraints.push(soft_constraint("kubernetes.io/hostname", 1, &app, None));
        }
        pod.topology_spread_constraints = Some(constraints);
        hard += 1;
    }
    assert!(hard >= 6, "{hard} Deployments");
    let c = build_cluster(
        input,
        &FeatureGates::default(),
        &AdmissionConfig::default(),
        9,
    )
    .cluster;
    let stats = compare(&c, Some(100), 9);
    eprintln!("{stats:?}");
    assert!(stats.repeated * 2 > stats.compiled, "{stats:?}");
}

#[test]
fn same_placements_adaptive_percentage() {
    // 300 nodes: upstream's adaptive percentage scores 100 of them, from a moving start.
    let c = cluster(300, 3_000, 7, 0);
    let stats = compare(&c, None, 7);
    assert!(stats.compiled > stats.reference * 5, "{stats:?}");
    // Not every node is evaluated: the round-robin start moves, no repeat path.
    assert_eq!(stats.repeated, 0, "{stats:?}");
}

#[test]
fn same_placements_with_extra_taints_and_a_full_cluster() {
    // More pods than fit (more than 110 a node): FitErrors and preemption go through the
    // reference path.
    let c = cluster(40, 6_000, 11, 3);
    let stats = compare(&c, Some(100), 11);
    eprintln!("{stats:?}");
    assert!(stats.compiled_unschedulable > 0, "{stats:?}");
    assert!(stats.compiled > 0, "{stats:?}");
    // Like pods failing in a row on an unchanged cluster are answered at once.
    assert!(stats.repeated_unschedulable > 0, "{stats:?}");
}

#[test]
fn same_placements_with_two_hostname_spread_constraints() {
    // Two hostname constraints and a zone one: not the tabled shape, so the general spread
    // scoring runs (matching pods per node read from the sparse counts).
    let mut c = cluster(80, 1_500, 13, 0);
    for id in c.pending() {
        let Some(app) = c.pods[id].labels().get("app").cloned() else {
            continue;
        };
        let constraint = |key: &str, max_skew: i32| soft_constraint(key, max_skew, &app, None);
        c.pods[id].spec_mut().topology_spread_constraints = Some(vec![
            constraint(LABEL_HOSTNAME, 1),
            constraint("topology.kubernetes.io/zone", 2),
            constraint(LABEL_HOSTNAME, 3),
        ]);
    }
    let stats = compare(&c, Some(100), 13);
    assert!(stats.compiled > stats.reference * 5, "{stats:?}");
}

#[test]
fn inline_resource_scores_match_the_plugins() {
    use crate::scheduler::plugins::balanced_allocation::balanced_resource_score;
    use crate::scheduler::plugins::node_resources_fit::{
        default_resources, least_resource_score, resource_allocation_score,
    };
    let c = cluster(40, 600, 5, 0);
    let mut c2 = c.clone();
    let mut s = Scheduler::new(FeatureGates::default(), Some(100), 5);
    schedule_all(&mut s, &mut c2);
    let res = default_resources();
    for node in &c2.nodes {
        for (cpu, mem) in [
            (0, 0),
            (100, 200 << 20),
            (2_500, 8 << 30),
            (64_000, 1 << 40),
        ] {
            let want = resource_allocation_score("x", node, &res, &[cpu, mem], false, |r, a| {
                least_resource_score(&res, r, a)
            })
            .ok();
            assert_eq!(want, Some(least_allocated(&NodeRes::of(node), cpu, mem)));
            let want = resource_allocation_score(
                "x",
                node,
                &res,
                &[cpu, mem],
                true,
                balanced_resource_score,
            )
            .ok();
            assert_eq!(want, Some(balanced(&NodeRes::of(node), cpu, mem)));
        }
    }
}

#[test]
fn schedule_each_matches_schedule_one_in_a_loop() {
    // A full cluster: preemption nominates nodes, and nobody is retried at once.
    let c = cluster(60, 3_000, 11, 3);
    let mut queue = c.pending();
    Scheduler::queue_order(&c, &mut queue);
    compare_each(&c, &queue, 3);
}

#[test]
fn same_placements_with_unlabelled_nodes_and_explicit_soft_constraints() {
    // The class-level selection's edge cases: nodes without the zone label (the "" domain for
    // the system defaults, ignored nodes for a pod's own constraints), nodes without the
    // hostname label, a taints policy that leaves tainted nodes out of the counts, and nodes
    // holding matching pods (scored on their own).
    let mut c = cluster(90, 2_000, 17, 0);
    for n in 0..c.nodes.len() {
        let mut labels = c.nodes[n].labels.clone();
        if n % 7 == 3 {
            labels.remove("topology.kubernetes.io/zone");
        }
        if n % 11 == 5 {
            labels.remove(LABEL_HOSTNAME);
        }
        c.set_node_labels(n, labels);
    }
    for id in c.pending() {
        let Some(app) = c.pods[id].labels().get("app").cloned() else {
            continue;
        };
        // Per workload, so that like pods follow each other.
        let i = app.bytes().map(usize::from).sum::<usize>();
        if i % 2 == 0 {
            continue;
        }
        let honor = (i % 4 == 1).then(|| "Honor".to_string());
        let constraint =
            |key: &str, max_skew: i32| soft_constraint(key, max_skew, &app, honor.clone());
        c.pods[id].spec_mut().topology_spread_constraints = Some(vec![
            constraint("topology.kubernetes.io/zone", 2),
            constraint(LABEL_HOSTNAME, 1),
        ]);
    }
    for pct in [Some(100), None] {
        let stats = compare(&c, pct, 17);
        assert!(stats.compiled > stats.reference * 5, "{stats:?}");
        // Below 100 nodes the adaptive percentage evaluates every node too.
        assert!(stats.repeated > 0, "{stats:?}");
    }
}

#[test]
fn like_unschedulable_pods_are_answered_anew_after_a_change() {
    // Two like pods no node fits (too much memory), with pods placed between them: the second
    // one's FitError counts the nodes those pods made short of cpu too, so it cannot reuse the
    // first one's answer.
    let mut c = cluster(30, 400, 19, 0);
    let others = c.pending();
    let template = free_pod(&c, &others);
    let big = |c: &mut Cluster, name: &str| {
        pod_like(c, template, name, |p| {
            requests(p, "7", "1000Gi");
            if let Some(spec) = p.spec.as_mut() {
                spec.priority = Some(0);
                spec.preemption_policy = Some("Never".to_string());
            }
        })
    };
    let a1 = big(&mut c, "big-1");
    let a2 = big(&mut c, "big-2");
    let a3 = big(&mut c, "big-3");
    // Pods that all fit between them, so that the first one's answer is the last failure.
    let mut queue = vec![a1, a2];
    queue.extend(&others[..150]);
    queue.push(a3);
    let (want, stats) = compare_each(&c, &queue, 19);
    let (first, second, last) = (&want[0], &want[1], &want[queue.len() - 1]);
    assert!(
        first.starts_with("unschedulable 0/30 nodes are available"),
        "{first}"
    );
    assert!(
        want[2..queue.len() - 1]
            .iter()
            .all(|w| w.starts_with("scheduled"))
    );
    assert_eq!(first, second);
    assert_ne!(first, last);
    assert!(stats.repeated_unschedulable >= 1, "{stats:?}");
}
