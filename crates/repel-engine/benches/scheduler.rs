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
                && repel_core::workload::controller_of(&p.pod)
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

criterion_group!(benches, one_pod_over_5000_nodes);
criterion_main!(benches);
