//! Micro-benchmarks of taint matching: one toleration against one taint per operator, and the
//! first untolerated taint over 0, 10 and 100 taints per node (the benchmark upstream lacks).
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use k8s_openapi::api::core::v1::{Taint, Toleration};
use repel_core::taint::{find_matching_untolerated_taint, is_do_not_schedule, new_taint};
use repel_core::testing::tol;
use repel_core::{FeatureGates, tolerates};

fn operators(c: &mut Criterion) {
    let on = FeatureGates::with_comparison_operators();
    let taint = new_taint(
        "servicelevel.organization.example/agreed-service-level",
        "950",
        "NoSchedule",
    );
    let mut g = c.benchmark_group("tolerates");
    for (name, t) in [
        (
            "Equal",
            tol(
                "servicelevel.organization.example/agreed-service-level",
                "Equal",
                "950",
                "NoSchedule",
            ),
        ),
        (
            "Exists",
            tol(
                "servicelevel.organization.example/agreed-service-level",
                "Exists",
                "",
                "NoSchedule",
            ),
        ),
        (
            "Gt",
            tol(
                "servicelevel.organization.example/agreed-service-level",
                "Gt",
                "900",
                "NoSchedule",
            ),
        ),
        (
            "Lt",
            tol(
                "servicelevel.organization.example/agreed-service-level",
                "Lt",
                "1000",
                "NoSchedule",
            ),
        ),
        ("wildcard", tol("", "Exists", "", "")),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| tolerates(black_box(&t), black_box(&taint), &on))
        });
    }
    g.finish();
}

fn first_untolerated(c: &mut Criterion) {
    let gates = FeatureGates::default();
    let mut g = c.benchmark_group("find_matching_untolerated_taint");
    for n in [0usize, 10, 100] {
        let taints: Vec<Taint> = (0..n)
            .map(|i| new_taint(&format!("pool.example/t{i}"), "v", "NoSchedule"))
            .collect();
        // Tolerate all of them (the worst case: every taint is checked against every toleration).
        let tolerations: Vec<Toleration> = (0..n)
            .map(|i| tol(&format!("pool.example/t{i}"), "Equal", "v", "NoSchedule"))
            .collect();
        g.bench_function(format!("{n} taints"), |b| {
            b.iter(|| {
                find_matching_untolerated_taint(
                    black_box(&taints),
                    black_box(&tolerations),
                    is_do_not_schedule,
                    &gates,
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, operators, first_untolerated);
criterion_main!(benches);
