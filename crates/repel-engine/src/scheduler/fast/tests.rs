//! The compiled scheduler against the reference, pod by pod.

use super::*;
use crate::generate::{ClusterShape, GenerateOptions, generate};
use crate::load::build_cluster;
use crate::scheduler::schedule_all;
use repel_core::admission::AdmissionConfig;

fn cluster(nodes: usize, pods: usize, seed: u64, taints_per_node: usize) -> Cluster {
    let g = generate(&GenerateOptions {
        nodes,
        pods,
        seed,
        taints_per_node,
    });
    build_cluster(
        g.input(),
        &FeatureGates::default(),
        &AdmissionConfig::default(),
        seed,
    )
    .cluster
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Scheduled { node, score } => format!("scheduled {node} {score:?}"),
        Outcome::Unschedulable { message, nominated } => {
            format!("unschedulable {message} {nominated:?}")
        }
    }
}

/// Schedules the same cluster with both and compares every placement; returns the stats.
fn compare(c: &Cluster, pct: Option<i64>, seed: u64) -> FastStats {
    let gates = FeatureGates::default();
    let mut a = c.clone();
    let mut reference = Scheduler::new(gates, pct, seed);
    let want = schedule_all(&mut reference, &mut a);
    let mut b = c.clone();
    let mut fast = FastScheduler::new(gates, pct, seed);
    let got = fast.schedule_all(&mut b);
    assert_eq!(want.len(), got.len());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(w.pod, g.pod, "placement {i}: pod order");
        assert_eq!(
            describe(&w.outcome),
            describe(&g.outcome),
            "placement {i}: pod {}",
            c.pods[w.pod].key()
        );
    }
    assert_eq!(
        reference.next_start_node_index,
        fast.reference.next_start_node_index
    );
    if std::env::var_os("REPEL_SHOW").is_some() {
        let mut seen = BTreeSet::new();
        for w in &want {
            if seen.insert(
                describe(&w.outcome)
                    .split(' ')
                    .skip(2)
                    .collect::<Vec<_>>()
                    .join(" "),
            ) && matches!(w.outcome, Outcome::Unschedulable { .. })
            {
                eprintln!("{}", describe(&w.outcome));
            }
        }
    }
    fast.stats
}

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

/// One cycle per pod of `queue` with both (no retry after a nomination); the outcomes, which
/// must be equal, and the compiled scheduler's stats.
fn compare_each(c: &Cluster, queue: &[PodId], seed: u64) -> (Vec<String>, FastStats) {
    let gates = FeatureGates::default();
    let mut a = c.clone();
    let mut reference = Scheduler::new(gates, Some(100), seed);
    let want: Vec<String> = queue
        .iter()
        .map(|p| describe(&reference.schedule_one(&mut a, *p)))
        .collect();
    let mut b = c.clone();
    let mut fast = FastScheduler::new(gates, Some(100), seed);
    let got: Vec<String> = fast
        .schedule_each(&mut b, queue)
        .iter()
        .map(|p| describe(&p.outcome))
        .collect();
    assert_eq!(want, got);
    (want, fast.stats)
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

/// The first of `pods` without node affinity or a nodeSelector.
fn free_pod(c: &Cluster, pods: &[PodId]) -> PodId {
    pods.iter()
        .copied()
        .find(|p| {
            let spec = c.pods[*p].spec();
            spec.affinity.is_none() && spec.node_selector.is_none()
        })
        .unwrap()
}

/// A pod like `template` (a pending pod without node selection), renamed, unbound, adjusted
/// by `edit`, added to `c`.
fn pod_like(
    c: &mut Cluster,
    template: PodId,
    name: &str,
    edit: impl FnOnce(&mut k8s_openapi::api::core::v1::Pod),
) -> PodId {
    let mut pod = c.pods[template].to_pod();
    pod.metadata.name = Some(name.to_string());
    pod.metadata.uid = None;
    if let Some(spec) = pod.spec.as_mut() {
        spec.node_name = None;
    }
    edit(&mut pod);
    c.add_pod(pod)
}

/// Requests of `cpu` and `memory` on every container.
fn requests(pod: &mut k8s_openapi::api::core::v1::Pod, cpu: &str, memory: &str) {
    use k8s_openapi::api::core::v1::ResourceRequirements;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    for ctr in pod.spec.iter_mut().flat_map(|s| s.containers.iter_mut()) {
        ctr.resources = Some(ResourceRequirements {
            requests: Some(
                [
                    ("cpu".to_string(), Quantity(cpu.to_string())),
                    ("memory".to_string(), Quantity(memory.to_string())),
                ]
                .into(),
            ),
            ..Default::default()
        });
    }
}

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

#[test]
fn the_static_filters_come_first_in_the_profile() {
    // The compiled FitError gives a statically rejected node its static status: that is what
    // `run_filters` returns only if no other filter runs before them.
    let profile = super::super::Profile::default_profile(FeatureGates::default());
    let first: Vec<&str> = profile
        .filters()
        .map(|pl| pl.name())
        .take(STATIC_FILTERS.len())
        .collect();
    assert_eq!(first, STATIC_FILTERS);
}

#[test]
fn class_keys_found_together_are_each_pods_own() {
    // `class_keys` reuses the keys of the pod before when a pod is alike, and a spec's
    // requests by their key: every pod must still get the keys computed for it alone.
    for (c, what) in [
        (cluster(60, 1_500, 4, 1), "generated"),
        (
            build_cluster(
                ClusterShape::LargeWorkloads
                    .generate(&GenerateOptions {
                        nodes: 60,
                        pods: 2_000,
                        seed: 4,
                        taints_per_node: 0,
                    })
                    .input(),
                &FeatureGates::default(),
                &AdmissionConfig::default(),
                4,
            )
            .cluster,
            "large workloads",
        ),
    ] {
        let mut queue = c.pending();
        Scheduler::queue_order(&c, &mut queue);
        let found = class_keys(&c, &queue, true);
        assert_eq!(found.keys.len(), queue.len());
        let mut alone = SpecKeys::default();
        let mut distinct = BTreeSet::new();
        for (&pod, &(key, label)) in queue.iter().zip(&found.keys) {
            let p = &c.pods[pod];
            assert_eq!(label, label_key(p), "{what}: label key of {}", p.key());
            assert_eq!(
                key,
                class_key(p, &mut SpecKeys::default()),
                "{what}: class key of {}",
                p.key()
            );
            assert_eq!(key, class_key(p, &mut alone), "{what}: {}", p.key());
            distinct.insert(key);
        }
        // Pods of different workloads (labels, owners) are different classes.
        assert!(distinct.len() > 10, "{what}: {} classes", distinct.len());
    }
}

#[test]
fn keys_tell_apart_what_they_read() {
    use k8s_openapi::api::core::v1::{Container, ResourceRequirements, Toleration};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    let with_cpu = |cpu: &str| PodSpec {
        containers: vec![Container {
            name: "c".into(),
            resources: Some(ResourceRequirements {
                requests: Some([("cpu".to_string(), Quantity(cpu.into()))].into()),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let (a, b) = (with_cpu("100m"), with_cpu("1000m"));
    assert_ne!(requests_key_of(&a), requests_key_of(&b));
    assert_eq!(requests_key_of(&a), requests_key_of(&with_cpu("100m")));
    let s = static_key_of(&a);
    assert_ne!(
        spec_key(s, requests_key_of(&a), &a, false),
        spec_key(s, requests_key_of(&b), &b, false)
    );
    // A field present or absent, and the same text under another field, are told apart.
    let tol = |key: Option<&str>, value: Option<&str>| {
        let mut spec = a.clone();
        spec.tolerations = Some(vec![Toleration {
            key: key.map(str::to_string),
            value: value.map(str::to_string),
            ..Default::default()
        }]);
        static_key_of(&spec)
    };
    let keys = [
        static_key_of(&a),
        tol(None, None),
        tol(Some("x"), None),
        tol(None, Some("x")),
        tol(Some("x"), Some("x")),
        tol(Some(""), None),
    ];
    let distinct: BTreeSet<u128> = keys.iter().copied().collect();
    assert_eq!(distinct.len(), keys.len(), "{keys:?}");
    // A key longer than the buffer (fed to the streaming hasher) is the one-shot key of the
    // same bytes.
    let long = "x".repeat(KEY_BUF * 3 + 7);
    let mut h = KeyHasher::new();
    h.feed(b"ab");
    h.feed(long.as_bytes());
    h.feed(b"c");
    let mut whole = b"ab".to_vec();
    whole.extend_from_slice(long.as_bytes());
    whole.push(b'c');
    assert_eq!(h.finish(), xxhash_rust::xxh3::xxh3_128(&whole));
    let mut pieces = KeyHasher::new();
    for b in &whole {
        pieces.feed(std::slice::from_ref(b));
    }
    assert_eq!(pieces.finish(), h.finish());
}

/// `input`'s nodes report images: each of the images its workloads' pods use on about one node
/// in `every`, some under a second name (a digest), sizes from 10 MB to 1.5 GB; a few
/// workloads' containers name their image without the tag and the nodes list it as `:latest`
/// (upstream's `normalizedImageName`), one with an init container of another workload's image.
fn with_node_images(input: &mut crate::load::ClusterInput, every: usize) -> usize {
    use k8s_openapi::api::core::v1::{ContainerImage, NodeStatus};
    use repel_core::workload::Workload;
    let mut images: Vec<String> = Vec::new();
    for (i, w) in input.workloads.iter_mut().enumerate() {
        let spec = match w {
            Workload::Deployment(d) => d.spec.template.spec.as_mut(),
            Workload::StatefulSet(s) => s.spec.template.spec.as_mut(),
            Workload::DaemonSet(d) => d.spec.template.spec.as_mut(),
            _ => None,
        };
        let Some(spec) = spec else { continue };
        for c in &mut spec.containers {
            let Some(image) = c.image.as_mut() else {
                continue;
            };
            if i % 7 == 3
                && let Some(bare) = image.strip_suffix(":1.0")
            {
                *image = bare.to_string();
            }
            images.push(image.clone());
        }
        if i % 11 == 5
            && let Some(other) = images.first().cloned()
        {
            let mut init = spec.containers[0].clone();
            init.name = "init".into();
            init.image = Some(other);
            spec.init_containers = Some(vec![init]);
        }
    }
    images.sort();
    images.dedup();
    let mb = 1024 * 1024;
    for (n, node) in input.nodes.iter_mut().enumerate() {
        let list: Vec<ContainerImage> = images
            .iter()
            .enumerate()
            .filter(|(j, _)| (n * 7 + j * 13) % every == 0)
            .map(|(j, name)| {
                let listed = if name.contains(':') {
                    name.clone()
                } else {
                    format!("{name}:latest")
                };
                let mut names = vec![listed];
                if j % 2 == 0 {
                    names.push(format!("{name}@sha256:{j:064x}"));
                }
                ContainerImage {
                    names: Some(names),
                    size_bytes: Some((10 + (j as i64 * 97) % 1490) * mb),
                }
            })
            .collect();
        let status = node.status.get_or_insert_with(NodeStatus::default);
        status.images = Some(list);
    }
    images.len()
}

#[test]
fn same_placements_with_node_images() {
    // ImageLocality scores the nodes holding a pod's images: such classes are scored node by
    // node (not by node class, not by the repeat path), every other class as before.
    for (seed, shape, nodes, pods, pct) in [
        (1, ClusterShape::Default, 120, 2_500, Some(100)),
        (2, ClusterShape::Default, 150, 3_000, None),
        (5, ClusterShape::LargeWorkloads, 150, 6_000, Some(100)),
    ] {
        let g = shape.generate(&GenerateOptions {
            nodes,
            pods,
            seed,
            taints_per_node: 0,
        });
        let mut input = g.input();
        let images = with_node_images(&mut input, 3);
        let c = build_cluster(
            input,
            &FeatureGates::default(),
            &AdmissionConfig::default(),
            seed,
        )
        .cluster;
        assert!(!c.image_index().is_empty());
        // The images do score: some pending pod scores above 0 on some node.
        let scored = c
            .pending()
            .iter()
            .filter(|p| !c.image_index().scores(c.pods[**p].spec()).is_empty())
            .count();
        assert!(
            scored > pods / 10,
            "seed {seed}: {scored} pods of {images} images"
        );
        let stats = compare(&c, pct, seed);
        eprintln!("seed {seed}: {stats:?}");
        assert!(
            stats.compiled > stats.reference * 5,
            "seed {seed}: {stats:?}"
        );
    }
}

#[test]
fn what_if_placements_with_node_images_match_the_reference() {
    // A drain what-if's placements (`FirstFit::place`, node 0 cordoned, every node scored
    // from the first) on a cluster whose nodes hold the pods' images, against the reference's
    // evaluation of the same cluster with node 0 cordoned, pod by pod.
    let g = ClusterShape::Default.generate(&GenerateOptions {
        nodes: 60,
        pods: 1_200,
        seed: 4,
        taints_per_node: 0,
    });
    let mut input = g.input();
    with_node_images(&mut input, 2);
    let gates = FeatureGates::default();
    let mut c = build_cluster(input, &gates, &AdmissionConfig::default(), 4).cluster;
    let mut queue = c.pending();
    Scheduler::queue_order(&c, &mut queue);
    let mut r = c.clone();
    r.set_unschedulable(0, true);
    let mut ff = first_fit::FirstFit::new(gates, &c);
    let mut reference = Scheduler::new(gates, Some(100), 0);
    let (mut placed, mut scored, mut uncovered) = (0, 0, 0);
    for &pod in queue.iter().take(400) {
        let got = ff.place(&mut c, pod, 0);
        let info = r.pods[pod].clone();
        let eval = reference.evaluate(&r, &info);
        let want = match eval.feasible.as_slice() {
            [one] => Some(*one),
            _ if eval.scores.is_empty() => None,
            _ => reference.select_host(&eval.scores),
        };
        if eval.scores.iter().any(|s| {
            s.plugins
                .iter()
                .any(|p| p.plugin == image_locality::NAME && p.score > 0)
        }) {
            scored += 1;
        }
        match got {
            Some(got) => assert_eq!(got, want, "pod {}", info.key()),
            // A pod the compiled path does not cover (a DaemonSet's, pinned to its node): the
            // caller asks the reference.
            None => uncovered += 1,
        }
        if let Some(n) = want {
            c.bind(pod, n);
            ff.moved(&c, pod, n, 1);
            r.bind(pod, n);
            placed += 1;
        }
    }
    assert!(
        placed > 300 && scored > 100 && uncovered < placed / 2,
        "{placed} placed, {scored} scored by images, {uncovered} not covered"
    );
}
