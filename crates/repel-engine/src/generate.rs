//! A seeded generator of realistic clusters, as the objects users apply (`repel generate`,
//! `repel bench`). Pure: the same [`GenerateOptions`] give the same objects, names included.
//! Two shapes ([`ClusterShape`]): this module's default one, many small workloads over ten
//! pools (below), and [`large`]'s, tens of large Deployments over four.
//!
//! # Node pools (shares of the nodes, AKS-style names `aks-<pool>-vmss<NNNNNN>`)
//!
//! | pool | share | machine | taint | label selected by its workloads |
//! |---|---|---|---|---|
//! | `general` | 42 % (and the rounding) | 70 % D8, 30 % D16 | — | — |
//! | `system` | 6 % | D4 | `CriticalAddonsOnly=true:NoSchedule` | `kubernetes.azure.com/mode=system` |
//! | `spot` | 15 % | D8 | `kubernetes.azure.com/scalesetpriority=spot:NoSchedule` | the same, by node affinity |
//! | `gpu` | 5 % | NC24, 4 × `nvidia.com/gpu` | `nvidia.com/gpu=present:NoSchedule` | `accelerator=nvidia` |
//! | `team1`…`team3` | 6 % each | D16 | `dedicated=team-N:NoSchedule` | `dedicated=team-N` |
//! | `sla999`, `sla950`, `sla800` | 4, 5, 5 % | D8 | `servicelevel.organization.example/agreed-service-level=<int>:NoSchedule` | the same label, node affinity `Gt <int − 1>` |
//!
//! Every pool has at least one node from ten nodes on (below that, pools in
//! [`nodes::Pool::all`]'s order get one each). A pool's nodes go round-robin over three zones
//! (`topology.kubernetes.io/zone`); every node has `kubernetes.io/hostname`, allocatable cpu,
//! memory, `pods: 110`, ephemeral-storage and `Ready=True`. With `taints_per_node = K`, every
//! node also carries `bench.repel.dev/t0 … t(K-1)` (`=v`, even ones `PreferNoSchedule`, odd
//! ones `NoSchedule`): every pod tolerates the `NoSchedule` ones, 85 % of pods the
//! `PreferNoSchedule` ones too.
//!
//! # Workloads
//!
//! Three node agents first, while their pods fit in half the total (`kube-proxy` tolerating
//! everything whenever there are no more nodes than pods): `kube-proxy` on every node,
//! `log-agent` on general, system and spot nodes, `nvidia-device-plugin` on GPU nodes; their
//! pods count towards `pods`. The rest is split over the pools by their share of the
//! allocatable CPU, each pool's requests sized so that about 78 % of its CPU is requested
//! (less where 2 cores a pod is not enough): per workload a factor of ¼ … 1¾ of the pool's
//! mean, clamped to 50m … 2, memory 1–3 MiB per millicore clamped to 64Mi … 4Gi.
//!
//! - Kinds: general 75 % Deployments, 10 % StatefulSets, 13 % Jobs, 2 % bare Pods; system
//!   Deployments; spot half Jobs; GPU 60 % Jobs (70 % of the GPU workloads take one GPU a pod
//!   until 105 % of the GPUs are asked for, so a few GPU pods stay pending); team and SLA
//!   pools 80/10/10.
//! - Replicas: Deployments 1–4 (60 %), 5–15 (30 %), 16–50 (10 %); StatefulSets 1–5; Jobs 1–8.
//! - Topology spread (replicated non-Jobs): 26 % zone + hostname `ScheduleAnyway`; in the
//!   general pool 4 % zone `DoNotSchedule` instead.
//! - Priorities: DaemonSets `system-node-critical`, system pool `system-cluster-critical`,
//!   Jobs `batch-low` (never preempts), spot half `batch-low`; otherwise 10 %
//!   `business-critical`, 25 % `high-priority`, 55 % `standard`, 10 % none.

pub mod large;
pub mod nodes;
pub mod workloads;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use repel_core::FeatureGates;
use repel_core::workload::{Workload, daemon_nodes};

use crate::load::ClusterInput;
use crate::rng::Rng;
use nodes::{POOL_LABEL, Pool};
use workloads::{Kind, PC_BATCH, PC_CRITICAL, PC_HIGH, PC_STANDARD, PodShape, Spread};

/// The share of each pool's allocatable CPU its pods request, in thousandths.
pub const TARGET_CPU_PERMILLE: u64 = 780;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateOptions {
    /// Nodes, exactly.
    pub nodes: usize,
    /// Pods in total, DaemonSet pods included (exactly, after expansion).
    pub pods: usize,
    /// The seed.
    pub seed: u64,
    /// Extra synthetic taints per node (default 0).
    pub taints_per_node: usize,
}

impl Default for GenerateOptions {
    /// Upstream's largest supported cluster: 5,000 nodes, 150,000 pods; seed 1, no extra taints.
    fn default() -> Self {
        GenerateOptions {
            nodes: 5_000,
            pods: 150_000,
            seed: 1,
            taints_per_node: 0,
        }
    }
}

/// Which cluster to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClusterShape {
    /// [`generate`]: tens of thousands of small workloads over ten pools (`default`).
    #[default]
    Default,
    /// [`large::generate`]: tens of Deployments of 100–3,000 replicas, node agents, four pools
    /// (`large-workloads`).
    LargeWorkloads,
}

impl ClusterShape {
    /// Every shape.
    pub const ALL: [ClusterShape; 2] = [ClusterShape::Default, ClusterShape::LargeWorkloads];

    /// The shape's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ClusterShape::Default => "default",
            ClusterShape::LargeWorkloads => "large-workloads",
        }
    }

    /// Generates a cluster of this shape.
    pub fn generate(self, opts: &GenerateOptions) -> Generated {
        match self {
            ClusterShape::Default => generate(opts),
            ClusterShape::LargeWorkloads => large::generate(opts),
        }
    }
}

impl std::fmt::Display for ClusterShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A shape name that is none of [`ClusterShape::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown cluster shape {0:?} (expected default or large-workloads)")]
pub struct UnknownShape(pub String);

impl std::str::FromStr for ClusterShape {
    type Err = UnknownShape;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClusterShape::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| UnknownShape(s.to_string()))
    }
}

/// A generated cluster.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// DaemonSets, Deployments, StatefulSets and Jobs.
    pub workloads: Vec<Workload>,
    /// Bare pods.
    pub pods: Vec<Pod>,
    /// The PriorityClasses the pods name (besides the built-in `system-*` ones).
    pub priority_classes: Vec<PriorityClass>,
}

impl Generated {
    /// The objects as [`crate::load::build_cluster`] takes them.
    pub fn input(&self) -> ClusterInput {
        ClusterInput {
            nodes: self.nodes.clone(),
            pods: self.pods.clone(),
            workloads: self.workloads.clone(),
            priority_classes: self.priority_classes.clone(),
            ..Default::default()
        }
    }

    /// [`Generated::input`] without copying: the objects move into it.
    pub fn into_input(self) -> ClusterInput {
        ClusterInput {
            nodes: self.nodes,
            pods: self.pods,
            workloads: self.workloads,
            priority_classes: self.priority_classes,
            ..Default::default()
        }
    }

    /// How many pods there are once the workloads are expanded (default feature gates).
    pub fn pod_count(&self) -> usize {
        let gates = FeatureGates::default();
        self.pods.len()
            + self
                .workloads
                .iter()
                .map(|w| match w {
                    Workload::DaemonSet(ds) => daemon_nodes(ds, &self.nodes, &gates).len(),
                    w => w.pod_count(),
                })
                .sum::<usize>()
    }
}

/// A pool's totals.
#[derive(Debug, Clone, Copy, Default)]
struct PoolStats {
    nodes: usize,
    cpu_m: u64,
    gpus: u64,
    daemon_cpu_m: u64,
    pods: usize,
}

/// Generates a cluster; see the module docs for its shape.
pub fn generate(opts: &GenerateOptions) -> Generated {
    let mut rng = Rng::new(opts.seed);
    let mut stats: BTreeMap<Pool, PoolStats> = BTreeMap::new();
    let mut pool_by_name: BTreeMap<String, Pool> = BTreeMap::new();
    let mut out = Generated {
        priority_classes: workloads::priority_classes(),
        ..Default::default()
    };
    for (pool, count) in nodes::pool_sizes(opts.nodes) {
        pool_by_name.insert(pool.name(), pool);
        let st = stats.entry(pool).or_default();
        for i in 0..count {
            let shape = nodes::shape(pool, &mut rng);
            st.nodes += 1;
            st.cpu_m += shape.cpu_m;
            st.gpus += u64::from(shape.gpus);
            out.nodes
                .push(nodes::node(pool, i, shape, opts.taints_per_node));
        }
    }
    let daemon_pods = add_node_agents(opts, &mut out, &mut stats, &pool_by_name);
    let rest = opts.pods.saturating_sub(daemon_pods);
    split_pods(&mut stats, rest);
    let mut counter = 0;
    for (pool, st) in &stats {
        add_pool_workloads(opts, *pool, st, &mut rng, &mut counter, &mut out);
    }
    out
}

/// Adds the node agents whose pods fit (see the module docs); returns their pod count and
/// charges their CPU to the pools.
fn add_node_agents(
    opts: &GenerateOptions,
    out: &mut Generated,
    stats: &mut BTreeMap<Pool, PoolStats>,
    pool_by_name: &BTreeMap<String, Pool>,
) -> usize {
    let gates = FeatureGates::default();
    let mut daemon_pods = 0;
    for (i, (agent, cpu_m)) in workloads::node_agents(opts.taints_per_node)
        .into_iter()
        .enumerate()
    {
        let Workload::DaemonSet(ds) = &agent else {
            continue;
        };
        let on = daemon_nodes(ds, &out.nodes, &gates);
        let limit = if i == 0 { opts.pods } else { opts.pods / 2 };
        if on.is_empty() || daemon_pods + on.len() > limit {
            continue;
        }
        for node in &on {
            let pool = node
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(POOL_LABEL))
                .and_then(|p| pool_by_name.get(p));
            if let Some(st) = pool.and_then(|p| stats.get_mut(p)) {
                st.daemon_cpu_m += cpu_m;
            }
        }
        daemon_pods += on.len();
        out.workloads.push(agent);
    }
    daemon_pods
}

/// Splits `pods` over the pools by allocatable CPU (largest remainder); with no nodes, all to
/// a general pool.
fn split_pods(stats: &mut BTreeMap<Pool, PoolStats>, pods: usize) {
    let total: u64 = stats.values().map(|s| s.cpu_m).sum();
    if total == 0 {
        stats.clear();
        stats.insert(
            Pool::General,
            PoolStats {
                pods,
                ..Default::default()
            },
        );
        return;
    }
    let pods64 = pods as u64;
    let mut rems = Vec::new();
    let mut given = 0;
    for (pool, st) in stats.iter_mut() {
        let share = pods64 * st.cpu_m;
        st.pods = usize::try_from(share / total).unwrap_or(0);
        given += st.pods;
        rems.push((share % total, *pool));
    }
    rems.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, pool) in rems.into_iter().cycle().take(pods - given) {
        if let Some(st) = stats.get_mut(&pool) {
            st.pods += 1;
        }
    }
}

const APPS: [&str; 16] = [
    "checkout",
    "cart",
    "search",
    "auth",
    "payments",
    "orders",
    "catalog",
    "inventory",
    "notifications",
    "recommendations",
    "billing",
    "reports",
    "gateway",
    "frontend",
    "profile",
    "shipping",
];
const ROLES: [&str; 6] = ["api", "worker", "web", "cache", "consumer", "sync"];
const NAMESPACES: [&str; 5] = ["shop", "payments", "search", "platform", "data"];

fn pick(rng: &mut Rng, items: &[&'static str]) -> &'static str {
    let i = usize::try_from(rng.below(items.len() as u64)).unwrap_or(0);
    items.get(i).copied().unwrap_or_default()
}

fn range(rng: &mut Rng, lo: usize, hi: usize) -> usize {
    lo + usize::try_from(rng.below((hi - lo + 1) as u64)).unwrap_or(0)
}

/// A workload kind for `pool` (`None`: a bare pod).
fn kind(pool: Pool, rng: &mut Rng) -> Option<Kind> {
    let r = rng.below(100);
    let (deploy, sts, job) = match pool {
        Pool::General => (75, 85, 98),
        Pool::System => (100, 100, 100),
        Pool::Spot => (50, 50, 100),
        Pool::Gpu => (40, 40, 100),
        Pool::Team(_) | Pool::Sla(_) => (80, 90, 100),
    };
    if r < deploy {
        Some(Kind::Deployment)
    } else if r < sts {
        Some(Kind::StatefulSet)
    } else if r < job {
        Some(Kind::Job)
    } else {
        None
    }
}

fn replicas(kind: Option<Kind>, pool: Pool, rng: &mut Rng) -> usize {
    match (kind, pool) {
        (None, _) => 1,
        (Some(Kind::Deployment), Pool::System) => range(rng, 2, 4),
        (Some(Kind::Deployment), _) => match rng.below(100) {
            0..60 => range(rng, 1, 4),
            60..90 => range(rng, 5, 15),
            _ => range(rng, 16, 50),
        },
        (Some(Kind::StatefulSet), _) => range(rng, 1, 5),
        (Some(Kind::Job), _) => range(rng, 1, 8),
    }
}

fn priority(kind: Option<Kind>, pool: Pool, rng: &mut Rng) -> Option<&'static str> {
    let r = rng.below(100);
    match (kind, pool) {
        (_, Pool::System) => Some("system-cluster-critical"),
        (Some(Kind::Job), _) => Some(PC_BATCH),
        (_, Pool::Spot) if r < 50 => Some(PC_BATCH),
        _ => match r {
            0..10 => Some(PC_CRITICAL),
            10..35 => Some(PC_HIGH),
            35..90 => Some(PC_STANDARD),
            _ => None,
        },
    }
}

fn namespace(pool: Pool, rng: &mut Rng) -> String {
    match pool {
        Pool::General => pick(rng, &NAMESPACES).to_string(),
        Pool::System => "kube-system".to_string(),
        Pool::Spot => "batch".to_string(),
        Pool::Gpu => "ml".to_string(),
        Pool::Team(n) => nodes::team(n),
        Pool::Sla(t) => format!("sla-{t}"),
    }
}

/// Adds `st.pods` pods' worth of workloads for `pool`.
fn add_pool_workloads(
    opts: &GenerateOptions,
    pool: Pool,
    st: &PoolStats,
    rng: &mut Rng,
    counter: &mut usize,
    out: &mut Generated,
) {
    if st.pods == 0 {
        return;
    }
    // What is left to request; each workload's mean is what is left per pod left, so the
    // random factors do not drift the total.
    let mut target = (st.cpu_m * TARGET_CPU_PERMILLE / 1000).saturating_sub(st.daemon_cpu_m);
    // 5 % more GPUs asked for than there are: a few GPU pods wait, as they do.
    let mut gpus_left = usize::try_from(st.gpus + st.gpus.div_ceil(20)).unwrap_or(0);
    let mut left = st.pods;
    while left > 0 {
        *counter += 1;
        let kind = kind(pool, rng);
        let mut n = replicas(kind, pool, rng).min(left);
        let gpu = pool == Pool::Gpu && gpus_left > 0 && rng.below(10) < 7;
        if gpu {
            n = n.min(gpus_left);
            gpus_left -= n;
        }
        let mean_m = if st.cpu_m == 0 {
            500
        } else {
            (target / left as u64).clamp(50, 2000)
        };
        let factor = 25 * (1 + rng.below(7));
        let cpu_m = (mean_m * factor / 100 / 10 * 10).clamp(50, 2000);
        let mem_mi = (cpu_m * (1 + rng.below(3))).div_ceil(64) * 64;
        let spread = match rng.below(100) {
            _ if n < 3 || kind == Some(Kind::Job) || kind.is_none() => Spread::None,
            0..4 if pool == Pool::General => Spread::Hard,
            0..30 => Spread::Soft,
            _ => Spread::None,
        };
        let role = match kind {
            Some(Kind::Job) => "batch",
            Some(Kind::StatefulSet) => "db",
            _ => pick(rng, &ROLES),
        };
        let name = format!("{}-{role}-{:05}", pick(rng, &APPS), *counter);
        let shape = PodShape {
            app: name.clone(),
            pool,
            cpu_m,
            mem_mi: mem_mi.clamp(64, 4096),
            gpu,
            priority_class: priority(kind, pool, rng),
            spread,
            bench_taints: opts.taints_per_node,
            tolerate_prefer: rng.below(100) < 85,
            restart_never: kind == Some(Kind::Job),
        };
        let ns = namespace(pool, rng);
        match kind {
            Some(kind) => out
                .workloads
                .push(workloads::workload(kind, &name, &ns, n, &shape)),
            None => out.pods.push(workloads::bare_pod(&name, &ns, &shape)),
        }
        left -= n;
        target = target.saturating_sub(cpu_m * n as u64);
    }
}
