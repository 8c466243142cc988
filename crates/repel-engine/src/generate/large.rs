//! The `large-workloads` shape (`repel generate --shape large-workloads`): a big cluster run by
//! few, large workloads — tens of Deployments of 100 to 3,000 replicas and a handful of node
//! agents — where [`super::generate`] makes tens of thousands of small ones. EKS-style names
//! and labels. Pure and seeded like the default shape: the same [`GenerateOptions`] give the
//! same objects.
//!
//! # Node pools (`eks.amazonaws.com/nodegroup`, nodes `ip-10-<pool>-<i / 250>-<i % 250 + 10>.ec2.internal`)
//!
//! | pool | share | machine | taint | its Deployments select it by |
//! |---|---|---|---|---|
//! | `general` | 80 % (and the rounding) | 75 % m5.4xlarge, 25 % m5.8xlarge | — | nothing (the others are tainted) |
//! | `spot` | 14 % | m5.4xlarge | `node.kubernetes.io/lifecycle=spot:NoSchedule` | half required node affinity, half preferred |
//! | `system` | 3 % | m5.xlarge, 58 pods | `CriticalAddonsOnly=true:NoSchedule` | nodeSelector on the nodegroup |
//! | `gpu` | 3 % | p3.8xlarge, 4 × `nvidia.com/gpu` | `nvidia.com/gpu:NoSchedule` | nodeSelector `k8s.amazonaws.com/accelerator` |
//!
//! Every pool has a node from four nodes on (below that, general, system, spot). A pool's
//! nodes go round-robin over three zones (`topology.kubernetes.io/zone`). Synthetic taints
//! (`taints_per_node`) are as in the default shape, and tolerated the same way.
//!
//! # Workloads
//!
//! - Node agents (`system-node-critical`), while their pods fit in `pods`: `kube-proxy` and
//!   `node-exporter` tolerate everything (every node), `fluent-bit` tolerates the system and
//!   spot taints (every node but the GPU pool), `security-agent` tolerates nothing (the
//!   general pool only), `nvidia-device-plugin` runs on GPU nodes.
//! - The rest are Deployments: GPU ones of 100–300 replicas taking one GPU a pod, a third more
//!   pods than there are GPUs (those pods fit nowhere: 200 at 5,000 nodes; nothing else can
//!   be preempted for them, all GPU pods having one priority); then of the pods left, 3 % on
//!   the system pool (100–1,000 replicas), 18 % on spot and the rest on the general pool
//!   (100–3,000 replicas). Each pool's CPU is requested to about 70 % (per Deployment a factor
//!   of ½ … 1½ of what is left per pod), memory in proportion to the pool's machines.
//! - Spread: half the replicated Deployments zone + hostname `ScheduleAnyway`; a fifth of the
//!   general ones zone `DoNotSchedule` (`maxSkew: 1`) instead.
//! - Priorities as the default shape's (the system pool `system-cluster-critical`, half the
//!   spot Deployments `batch-low`); GPU Deployments `standard`.

mod pools;
mod template;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Toleration;
use repel_core::FeatureGates;
use repel_core::workload::{Workload, daemon_nodes};

use super::nodes::{CRITICAL_ADDONS_ONLY, GPU_RESOURCE};
use super::workloads::{
    PC_BATCH, PC_CRITICAL, PC_HIGH, PC_STANDARD, Spread, bench_tolerations, daemon_set,
    priority_classes, toleration,
};
use super::{APPS, GenerateOptions, Generated, ROLES, pick, range};
use crate::rng::Rng;
pub use pools::{
    ACCELERATOR_LABEL, LIFECYCLE_KEY, NODEGROUP_LABEL, Pool, TARGET_CPU_PERMILLE, ZONES, pool_sizes,
};
use pools::{machine, node};
use template::{PodTemplate, deployment};

/// A pool's totals.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    cpu_m: u64,
    mem_mi: u64,
    gpus: u64,
    daemon_cpu_m: u64,
    pods: usize,
}

/// The node agents with their pods' CPU request (see the module docs).
fn node_agents(bench_taints: usize) -> Vec<(Workload, u64)> {
    let everything = || {
        vec![Toleration {
            operator: Some("Exists".to_string()),
            ..Default::default()
        }]
    };
    let with_bench = |mut t: Vec<Toleration>| {
        t.extend(bench_tolerations(bench_taints, true));
        t
    };
    let logs = with_bench(vec![
        toleration(CRITICAL_ADDONS_ONLY, "Exists", None, None),
        toleration(LIFECYCLE_KEY, "Equal", Some("spot"), Some("NoSchedule")),
    ]);
    let gpu = with_bench(vec![toleration(
        GPU_RESOURCE,
        "Exists",
        None,
        Some("NoSchedule"),
    )]);
    let gpu_nodes = Some((ACCELERATOR_LABEL, "nvidia-tesla-v100"));
    [
        ("kube-proxy", everything(), None, 100, 128),
        ("node-exporter", everything(), None, 50, 64),
        ("fluent-bit", logs, None, 100, 200),
        ("security-agent", with_bench(Vec::new()), None, 200, 256),
        ("nvidia-device-plugin", gpu, gpu_nodes, 50, 64),
    ]
    .into_iter()
    .map(|(name, tol, sel, cpu_m, mem_mi)| (daemon_set(name, tol, sel, cpu_m, mem_mi), cpu_m))
    .collect()
}

/// Generates a cluster of this shape; see the module docs.
pub fn generate(opts: &GenerateOptions) -> Generated {
    let mut rng = Rng::new(opts.seed);
    let mut out = Generated {
        priority_classes: priority_classes(),
        ..Default::default()
    };
    let mut totals: BTreeMap<Pool, Totals> = BTreeMap::new();
    let mut pool_by_name: BTreeMap<&str, Pool> = BTreeMap::new();
    for (pool, count) in pool_sizes(opts.nodes) {
        pool_by_name.insert(pool.name(), pool);
        let t = totals.entry(pool).or_default();
        for i in 0..count {
            let m = machine(pool, &mut rng);
            t.cpu_m += m.cpu_m;
            t.mem_mi += m.mem_mi;
            t.gpus += m.gpus;
            out.nodes.push(node(pool, i, m, opts.taints_per_node));
        }
    }
    let gates = FeatureGates::default();
    let mut daemon_pods = 0;
    for (agent, cpu_m) in node_agents(opts.taints_per_node) {
        let Workload::DaemonSet(ds) = &agent else {
            continue;
        };
        let on = daemon_nodes(ds, &out.nodes, &gates);
        if on.is_empty() || daemon_pods + on.len() > opts.pods {
            continue;
        }
        for n in &on {
            let pool = n
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(NODEGROUP_LABEL))
                .and_then(|p| pool_by_name.get(p.as_str()));
            if let Some(t) = pool.and_then(|p| totals.get_mut(p)) {
                t.daemon_cpu_m += cpu_m;
            }
        }
        daemon_pods += on.len();
        out.workloads.push(agent);
    }
    split_pods(&mut totals, opts.pods - daemon_pods);
    let mut counter = 0;
    for (pool, t) in &totals {
        add_deployments(opts, *pool, t, &mut rng, &mut counter, &mut out);
    }
    out
}

/// Splits the Deployments' pods over the pools (see the module docs); a pool without nodes
/// gets none, and with no nodes at all everything goes to the general pool.
fn split_pods(totals: &mut BTreeMap<Pool, Totals>, pods: usize) {
    let gpus = totals.get(&Pool::Gpu).map_or(0, |t| t.gpus);
    let gpu_pods = usize::try_from(gpus + gpus.div_ceil(3)).unwrap_or(usize::MAX);
    let mut left = pods;
    let mut give = |pool: Pool, want: usize| {
        if let Some(t) = totals.get_mut(&pool) {
            t.pods = want.min(left);
            left -= t.pods;
        }
    };
    give(Pool::Gpu, gpu_pods);
    let rest = pods - gpu_pods.min(pods);
    give(Pool::System, rest * 3 / 100);
    give(Pool::Spot, rest * 18 / 100);
    totals.entry(Pool::General).or_default().pods = left;
}

/// Replicas between `lo` and `hi`, no more than `left`, and never leaving fewer than `lo`.
fn replicas(rng: &mut Rng, lo: usize, hi: usize, left: usize) -> usize {
    if left <= hi.max(lo) {
        return left;
    }
    let n = range(rng, lo, hi);
    if left - n < lo { left - lo } else { n }
}

const NAMESPACES: [&str; 5] = ["shop", "search", "payments", "media", "platform"];

/// Adds the Deployments of `pool`, `t.pods` pods in all.
fn add_deployments(
    opts: &GenerateOptions,
    pool: Pool,
    t: &Totals,
    rng: &mut Rng,
    counter: &mut usize,
    out: &mut Generated,
) {
    let mut target = (t.cpu_m * TARGET_CPU_PERMILLE / 1000).saturating_sub(t.daemon_cpu_m);
    let (lo, hi, max_cpu_m) = match pool {
        Pool::General => (100, 3000, 4000),
        Pool::Spot => (100, 3000, 2000),
        Pool::System => (100, 1000, 500),
        Pool::Gpu => (100, 300, 6000),
    };
    // MiB per 1,000 millicores of the pool's machines.
    let mem_per_core = (t.mem_mi * 1000).checked_div(t.cpu_m).unwrap_or(2048);
    let mut left = t.pods;
    while left > 0 {
        *counter += 1;
        let n = replicas(rng, lo, hi, left);
        let cpu_m = if pool == Pool::Gpu {
            4000 + 500 * rng.below(5)
        } else {
            let mean = if t.cpu_m == 0 {
                500
            } else {
                target / left as u64
            };
            (mean * (50 + 10 * rng.below(11)) / 100 / 10 * 10).clamp(20, max_cpu_m)
        };
        let mem_mi = (cpu_m * mem_per_core * (30 + rng.below(41)) / 100_000)
            .div_ceil(64)
            .max(1)
            * 64;
        let spread = match rng.below(10) {
            _ if n < 3 || pool == Pool::Gpu => Spread::None,
            0..2 if pool == Pool::General => Spread::Hard,
            0..5 => Spread::Soft,
            _ => Spread::None,
        };
        let r = rng.below(100);
        let priority = match pool {
            Pool::System => Some("system-cluster-critical"),
            Pool::Gpu => Some(PC_STANDARD),
            Pool::Spot if r < 50 => Some(PC_BATCH),
            _ => match r {
                0..10 => Some(PC_CRITICAL),
                10..35 => Some(PC_HIGH),
                35..90 => Some(PC_STANDARD),
                _ => None,
            },
        };
        let (name, namespace) = match pool {
            Pool::System => (
                format!("{}-{:03}", pick(rng, &ADDONS), *counter),
                "kube-system",
            ),
            Pool::Gpu => (format!("{}-{:03}", pick(rng, &MODELS), *counter), "ml"),
            Pool::Spot => (
                format!("{}-{}-{:03}", pick(rng, &APPS), pick(rng, &ROLES), *counter),
                "workers",
            ),
            Pool::General => (
                format!("{}-{}-{:03}", pick(rng, &APPS), pick(rng, &ROLES), *counter),
                pick(rng, &NAMESPACES),
            ),
        };
        let pod = PodTemplate {
            app: &name,
            pool,
            cpu_m,
            mem_mi,
            spread,
            priority,
            required_spot: rng.below(2) == 0,
            bench_taints: opts.taints_per_node,
            tolerate_prefer: rng.below(100) < 85,
        };
        out.workloads.push(deployment(&name, namespace, n, &pod));
        left -= n;
        target = target.saturating_sub(cpu_m * n as u64);
    }
}

const ADDONS: [&str; 4] = ["coredns", "ingress-nginx", "metrics-proxy", "dns-cache"];
const MODELS: [&str; 4] = ["inference", "embeddings", "ranking", "vision"];
