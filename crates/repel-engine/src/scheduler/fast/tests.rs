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

/// One cycle per pod of `queue` with both (no retry after a nomination); the outcomes, which
/// must be equal, and the compiled scheduler (`FastScheduler`)'s stats.
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

mod classes;
mod fit_errors;
mod images;
mod placements;
