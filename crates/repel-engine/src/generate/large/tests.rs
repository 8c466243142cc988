use std::collections::BTreeMap;

use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_core::workload::{Workload, expand_pods};

use super::{NODEGROUP_LABEL, Pool, ZONES, generate};
use crate::generate::nodes::{GPU_RESOURCE, ZONE_LABEL};
use crate::generate::{ClusterShape, GenerateOptions, Generated};
use crate::load::build_cluster;
use crate::scheduler::fast::FastScheduler;
use crate::scheduler::{Scheduler, schedule_all};

fn opts(nodes: usize, pods: usize, seed: u64, taints_per_node: usize) -> GenerateOptions {
    GenerateOptions {
        nodes,
        pods,
        seed,
        taints_per_node,
    }
}

fn deployments(g: &Generated) -> Vec<(&str, usize)> {
    g.workloads
        .iter()
        .filter_map(|w| match w {
            Workload::Deployment(d) => Some((
                d.metadata.namespace.as_deref().unwrap_or_default(),
                usize::try_from(d.spec.replicas.unwrap_or(1)).unwrap_or(0),
            )),
            _ => None,
        })
        .collect()
}

fn gpus(g: &Generated) -> usize {
    g.nodes
        .iter()
        .filter_map(|n| n.status.as_ref()?.allocatable.as_ref()?.get(GPU_RESOURCE))
        .filter_map(|q| q.0.parse::<usize>().ok())
        .sum()
}

fn gpu_pods(g: &Generated) -> usize {
    deployments(g)
        .iter()
        .filter(|(ns, _)| *ns == "ml")
        .map(|(_, n)| n)
        .sum()
}

#[test]
fn the_same_seed_gives_the_same_objects_and_another_seed_others() {
    for k in [0, 2] {
        let a = format!("{:?}", generate(&opts(80, 4_000, 42, k)));
        let b = format!("{:?}", generate(&opts(80, 4_000, 42, k)));
        let c = format!("{:?}", generate(&opts(80, 4_000, 43, k)));
        assert_eq!(a, b, "taints_per_node {k}: same seed");
        assert_ne!(a, c, "taints_per_node {k}: different seed");
    }
    let by_shape = format!(
        "{:?}",
        ClusterShape::LargeWorkloads.generate(&opts(80, 4_000, 42, 0))
    );
    assert_eq!(
        by_shape,
        format!("{:?}", generate(&opts(80, 4_000, 42, 0))),
        "ClusterShape::generate is this generator"
    );
}

#[test]
fn nodes_and_pods_are_exact_after_expansion() {
    let cases = [
        ("no nodes", opts(0, 100, 1, 0)),
        ("fewer nodes than pools", opts(2, 50, 2, 0)),
        ("one node a pool", opts(4, 500, 3, 0)),
        ("fewer pods than node agents", opts(50, 60, 4, 0)),
        ("a small cluster", opts(100, 3_000, 5, 0)),
        (
            "a medium cluster with synthetic taints",
            opts(600, 18_000, 6, 2),
        ),
    ];
    let gates = FeatureGates::default();
    for (name, o) in cases {
        let g = generate(&o);
        assert_eq!(g.nodes.len(), o.nodes, "{name}: nodes");
        let expanded = g.pods.len()
            + g.workloads
                .iter()
                .map(|w| expand_pods(w, &g.nodes, &gates, 7).len())
                .sum::<usize>();
        assert_eq!(expanded, o.pods, "{name}: pods after expansion");
        assert_eq!(g.pod_count(), o.pods, "{name}: pod_count");
    }
}

/// At upstream's largest cluster: the documented pools, tens of Deployments of 100–3,000
/// replicas, five node agents, and 100–300 more GPU pods than GPUs (the pods that fit nowhere).
#[test]
fn at_5000_nodes_and_150000_pods_the_shape_is_as_documented() {
    let g = generate(&opts(5_000, 150_000, 1, 0));
    assert_eq!(g.nodes.len(), 5_000);
    assert_eq!(g.pod_count(), 150_000);
    let mut pools: BTreeMap<String, usize> = BTreeMap::new();
    let mut zones: BTreeMap<String, usize> = BTreeMap::new();
    for n in &g.nodes {
        let labels = n.metadata.labels.clone().unwrap_or_default();
        *pools
            .entry(labels.get(NODEGROUP_LABEL).cloned().unwrap_or_default())
            .or_default() += 1;
        *zones
            .entry(labels.get(ZONE_LABEL).cloned().unwrap_or_default())
            .or_default() += 1;
        let pool = Pool::ALL
            .into_iter()
            .find(|p| Some(p.name()) == labels.get(NODEGROUP_LABEL).map(String::as_str));
        let taints = n.spec.as_ref().and_then(|s| s.taints.clone());
        assert_eq!(
            taints,
            pool.and_then(Pool::taint).map(|t| vec![t]),
            "{:?}: its pool's taint",
            n.metadata.name
        );
    }
    let want: BTreeMap<String, usize> = [("general", 4000), ("spot", 700), ("system", 150)]
        .into_iter()
        .chain([("gpu", 150)])
        .map(|(p, n)| (p.to_string(), n))
        .collect();
    assert_eq!(pools, want, "pools");
    assert_eq!(zones.len(), ZONES.len(), "zones: {zones:?}");
    let deps = deployments(&g);
    assert!(
        (20..100).contains(&deps.len()),
        "{} Deployments: tens",
        deps.len()
    );
    for (ns, n) in &deps {
        assert!((100..=3000).contains(n), "a Deployment in {ns} of {n}");
    }
    let daemons = g.workloads.iter().filter(|w| w.kind() == "DaemonSet");
    assert_eq!(daemons.count(), 5, "node agents");
    let excess = gpu_pods(&g) - gpus(&g);
    assert!(
        (100..=300).contains(&excess),
        "{excess} GPU pods fit nowhere"
    );
}

/// A small instance schedules whole: every pod but the GPU pods beyond the GPUs is placed,
/// nothing is preempted, and the compiled engine agrees with the reference pod by pod.
#[test]
fn a_small_instance_places_every_pod_but_the_gpu_overflow() {
    for (nodes, pods, seed, taints) in [(100, 3_000, 3, 0), (60, 2_000, 8, 2)] {
        let name = format!("{nodes} nodes, {pods} pods, seed {seed}");
        let g = generate(&opts(nodes, pods, seed, taints));
        let excess = gpu_pods(&g) - gpus(&g);
        assert!(excess > 0, "{name}: some GPU pods wait");
        let gates = FeatureGates::default();
        let built = build_cluster(g.input(), &gates, &AdmissionConfig::default(), seed);
        assert!(built.rejected.is_empty(), "{name}: {:?}", built.rejected);
        assert_eq!(built.cluster.pods.len(), pods, "{name}: pods admitted");
        let mut fast = built.cluster.clone();
        let got = FastScheduler::new(gates, Some(100), seed).schedule_all(&mut fast);
        let mut reference = built.cluster;
        let want = schedule_all(&mut Scheduler::new(gates, Some(100), seed), &mut reference);
        let outcomes = |p: &[crate::scheduler::Placement]| -> Vec<String> {
            p.iter()
                .map(|p| format!("{} {:?}", p.pod, p.outcome))
                .collect()
        };
        assert_eq!(
            outcomes(&got),
            outcomes(&want),
            "{name}: compiled = reference"
        );
        assert!(
            fast.pods.iter().all(|p| !p.deleted),
            "{name}: nothing preempted"
        );
        let pending: Vec<String> = fast
            .pods
            .iter()
            .filter(|p| p.node.is_none())
            .map(|p| p.key())
            .collect();
        assert_eq!(pending.len(), excess, "{name}: pending {pending:?}");
        assert!(
            pending.iter().all(|k| k.starts_with("ml/")),
            "{name}: only GPU pods wait: {pending:?}"
        );
    }
}
