//! Micro-benchmarks of the scheduler: filter and score of one pod over 5,000 generated nodes
//! (what `repel explain` does), and one scheduling cycle.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use repel_core::admission::AdmissionConfig;
use repel_engine::generate::{GenerateOptions, generate};
use repel_engine::load::build_cluster;
use repel_engine::scheduler::Scheduler;

fn one_pod_over_5000_nodes(c: &mut Criterion) {
    let g = generate(&GenerateOptions {
        nodes: 5000,
        pods: 30000,
        seed: 1,
        taints_per_node: 0,
    });
    let built = build_cluster(
        g.input(),
        &Default::default(),
        &AdmissionConfig::default(),
        1,
    );
    let cluster = built.cluster;
    // A Deployment pod: every node is filtered, the feasible ones scored.
    let pod = cluster
        .pods
        .iter()
        .find(|p| {
            let spec = p.spec();
            p.node.is_none()
                && spec.node_selector.is_none()
                && spec.affinity.is_none()
                && repel_core::workload::controller_of(&p.meta)
                    .is_some_and(|(k, _)| k == "ReplicaSet")
        })
        .cloned();
    let pod = pod.expect("the generated cluster has Deployment pods");
    let mut group = c.benchmark_group("scheduler");
    group.sample_size(10);
    group.bench_function("filter and score one pod, 5,000 nodes", |b| {
        let mut s = Scheduler::new(Default::default(), Some(100), 1);
        b.iter(|| s.evaluate(black_box(&cluster), black_box(&pod)))
    });
    group.finish();
}

/// A whole batch: 10,000 generated pods onto 500 nodes, every node scored, with the compiled
/// engine and with the reference one (the same placements).
fn batch_of_10000_pods_over_500_nodes(c: &mut Criterion) {
    let gates = repel_core::FeatureGates::default();
    let g = generate(&GenerateOptions {
        nodes: 500,
        pods: 10_000,
        seed: 1,
        taints_per_node: 0,
    });
    let cluster = build_cluster(g.input(), &gates, &AdmissionConfig::default(), 1).cluster;
    let mut group = c.benchmark_group("schedule_all_10000_pods_500_nodes");
    group.sample_size(10);
    group.bench_function("compiled", |b| {
        b.iter_batched(
            || cluster.clone(),
            |mut cl| {
                let mut s = repel_engine::scheduler::fast::FastScheduler::new(gates, Some(100), 1);
                black_box(s.schedule_all(&mut cl).len())
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("reference", |b| {
        b.iter_batched(
            || cluster.clone(),
            |mut cl| {
                let mut s = Scheduler::new(gates, Some(100), 1);
                black_box(repel_engine::scheduler::schedule_all(&mut s, &mut cl).len())
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(
    benches,
    one_pod_over_5000_nodes,
    batch_of_10000_pods_over_500_nodes
);
criterion_main!(benches);
