//! Node pools: their shares of the cluster, machine shapes, labels and taints.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, NodeCondition, NodeSpec, NodeStatus, Taint};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::rng::Rng;

/// The label naming a node's pool (AKS's short form; `kubernetes.azure.com/agentpool` too).
pub const POOL_LABEL: &str = "agentpool";
/// AKS's pool mode label: `system` or `user`.
pub const MODE_LABEL: &str = "kubernetes.azure.com/mode";
/// The zone label.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";
/// The hostname label.
pub const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";
/// The three zones nodes are spread over.
pub const ZONES: [&str; 3] = ["eastus-1", "eastus-2", "eastus-3"];
/// The system pool's taint key (`CriticalAddonsOnly=true:NoSchedule`).
pub const CRITICAL_ADDONS_ONLY: &str = "CriticalAddonsOnly";
/// The GPU resource, and the GPU pool's taint key (`nvidia.com/gpu=present:NoSchedule`).
pub const GPU_RESOURCE: &str = "nvidia.com/gpu";
/// The GPU pool's label (`accelerator=nvidia`).
pub const GPU_LABEL: &str = "accelerator";
/// AKS's spot taint and label key (`…=spot:NoSchedule`).
pub const SPOT_KEY: &str = "kubernetes.azure.com/scalesetpriority";
/// The dedicated team pools' taint and label key (`dedicated=team-N:NoSchedule`).
pub const DEDICATED_KEY: &str = "dedicated";
/// The SLA tiers' taint and label key, with an integer value.
pub const SLA_KEY: &str = "servicelevel.organization.example/agreed-service-level";
/// The SLA tiers' agreed service levels.
pub const SLA_TIERS: [u32; 3] = [999, 950, 800];
/// How many dedicated team pools there are.
pub const TEAMS: u8 = 3;
/// The prefix of the synthetic taints' keys (`bench.repel.dev/t0`, `…/t1`, …).
pub const BENCH_TAINT_PREFIX: &str = "bench.repel.dev/t";
/// GPUs per GPU node.
pub const GPUS_PER_NODE: u32 = 4;

/// A node pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pool {
    /// General purpose: no taint.
    General,
    /// System: `CriticalAddonsOnly=true:NoSchedule`.
    System,
    /// Spot VMs: AKS's spot taint and label.
    Spot,
    /// GPU nodes: `nvidia.com/gpu` allocatable and `nvidia.com/gpu=present:NoSchedule`.
    Gpu,
    /// A team's dedicated pool: `dedicated=team-N:NoSchedule`.
    Team(u8),
    /// An SLA tier: the agreed service level as the taint's value.
    Sla(u32),
}

impl Pool {
    /// Every pool, in the order small clusters get them (one node each).
    pub fn all() -> Vec<Pool> {
        vec![
            Pool::General,
            Pool::System,
            Pool::Spot,
            Pool::Gpu,
            Pool::Team(1),
            Pool::Sla(SLA_TIERS[1]),
            Pool::Team(2),
            Pool::Sla(SLA_TIERS[0]),
            Pool::Team(3),
            Pool::Sla(SLA_TIERS[2]),
        ]
    }

    /// The pool's name, as in the [`POOL_LABEL`] label and node names.
    pub fn name(self) -> String {
        match self {
            Pool::General => "general".to_string(),
            Pool::System => "system".to_string(),
            Pool::Spot => "spot".to_string(),
            Pool::Gpu => "gpu".to_string(),
            Pool::Team(n) => format!("team{n}"),
            Pool::Sla(t) => format!("sla{t}"),
        }
    }

    /// The pool's share of the nodes, in thousandths (they sum to 1,000).
    pub fn permille(self) -> usize {
        match self {
            Pool::General => 420,
            Pool::System => 60,
            Pool::Spot => 150,
            Pool::Gpu => 50,
            Pool::Team(_) => 60,
            Pool::Sla(t) if t == SLA_TIERS[0] => 40,
            Pool::Sla(_) => 50,
        }
    }

    /// The pool's own taint, if any.
    pub fn taint(self) -> Option<Taint> {
        let (key, value) = match self {
            Pool::General => return None,
            Pool::System => (CRITICAL_ADDONS_ONLY, "true".to_string()),
            Pool::Spot => (SPOT_KEY, "spot".to_string()),
            Pool::Gpu => (GPU_RESOURCE, "present".to_string()),
            Pool::Team(n) => (DEDICATED_KEY, team(n)),
            Pool::Sla(t) => (SLA_KEY, t.to_string()),
        };
        Some(taint(key, &value, "NoSchedule"))
    }

    /// The pool's own label (besides [`POOL_LABEL`]) that its workloads select.
    pub fn label(self) -> (&'static str, String) {
        match self {
            Pool::General => (MODE_LABEL, "user".to_string()),
            Pool::System => (MODE_LABEL, "system".to_string()),
            Pool::Spot => (SPOT_KEY, "spot".to_string()),
            Pool::Gpu => (GPU_LABEL, "nvidia".to_string()),
            Pool::Team(n) => (DEDICATED_KEY, team(n)),
            Pool::Sla(t) => (SLA_KEY, t.to_string()),
        }
    }
}

/// `team-N`.
pub fn team(n: u8) -> String {
    format!("team-{n}")
}

/// A taint.
pub fn taint(key: &str, value: &str, effect: &str) -> Taint {
    Taint {
        key: key.to_string(),
        value: Some(value.to_string()),
        effect: effect.to_string(),
        time_added: None,
    }
}

/// The effect of synthetic taint `i`: even ones `PreferNoSchedule`, odd ones `NoSchedule`.
pub fn bench_effect(i: usize) -> &'static str {
    if i.is_multiple_of(2) {
        "PreferNoSchedule"
    } else {
        "NoSchedule"
    }
}

/// How many nodes each pool gets: its [`Pool::permille`] share rounded down, at least one
/// each when there are as many nodes as pools, the rest to the general pool. With fewer nodes
/// than pools, the first pools of [`Pool::all`] get one each.
pub fn pool_sizes(nodes: usize) -> Vec<(Pool, usize)> {
    split_by_permille(Pool::all(), Pool::permille, nodes)
}

/// `nodes` split among `pools` (the first the general pool) by `permille`, each pool's share
/// in thousandths: rounded down, at least one each when there are as many nodes as pools, the
/// rest to the first. With fewer nodes than pools, the first pools get one each. Both
/// generators' pools are sized so.
pub(super) fn split_by_permille<P: Copy>(
    pools: impl IntoIterator<Item = P>,
    permille: impl Fn(P) -> usize,
    nodes: usize,
) -> Vec<(P, usize)> {
    let pools: Vec<P> = pools.into_iter().collect();
    if nodes < pools.len() {
        return pools.into_iter().take(nodes).map(|p| (p, 1)).collect();
    }
    let mut sizes: Vec<(P, usize)> = pools
        .into_iter()
        .map(|p| (p, (nodes * permille(p) / 1000).max(1)))
        .collect();
    let assigned: usize = sizes.iter().map(|(_, n)| n).sum();
    if let Some((_, general)) = sizes.first_mut() {
        *general = (*general + nodes).saturating_sub(assigned);
    }
    sizes
}

/// A machine shape: allocatable CPU (millicores), memory (MiB), GPUs, instance type.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Allocatable CPU in millicores.
    pub cpu_m: u64,
    /// Allocatable memory in MiB.
    pub mem_mi: u64,
    /// GPUs.
    pub gpus: u32,
    /// `node.kubernetes.io/instance-type`.
    pub instance_type: &'static str,
}

const D4: Shape = Shape {
    cpu_m: 3860,
    mem_mi: 12_880,
    gpus: 0,
    instance_type: "Standard_D4s_v5",
};
const D8: Shape = Shape {
    cpu_m: 7820,
    mem_mi: 28_000,
    gpus: 0,
    instance_type: "Standard_D8s_v5",
};
const D16: Shape = Shape {
    cpu_m: 15_740,
    mem_mi: 58_000,
    gpus: 0,
    instance_type: "Standard_D16s_v5",
};
const NC24: Shape = Shape {
    cpu_m: 23_660,
    mem_mi: 430_000,
    gpus: GPUS_PER_NODE,
    instance_type: "Standard_NC24s_v3",
};

/// A pool's machine shape: system D4; general 70 % D8, 30 % D16; spot and SLA tiers D8; team
/// pools D16; GPU NC24 with [`GPUS_PER_NODE`] GPUs.
pub fn shape(pool: Pool, rng: &mut Rng) -> Shape {
    match pool {
        Pool::System => D4,
        Pool::General if rng.below(10) < 3 => D16,
        Pool::General | Pool::Spot | Pool::Sla(_) => D8,
        Pool::Team(_) => D16,
        Pool::Gpu => NC24,
    }
}

/// A quantity in millicores, whole cores when exact.
pub fn cpu(m: u64) -> Quantity {
    if m.is_multiple_of(1000) {
        Quantity((m / 1000).to_string())
    } else {
        Quantity(format!("{m}m"))
    }
}

/// A quantity in MiB, GiB when exact.
pub fn mem(mi: u64) -> Quantity {
    if mi.is_multiple_of(1024) {
        Quantity(format!("{}Gi", mi / 1024))
    } else {
        Quantity(format!("{mi}Mi"))
    }
}

/// Node `index` (within its pool) of `pool`: labels, the pool's taint then `extra` synthetic
/// taints, allocatable and a Ready condition.
pub fn node(pool: Pool, index: usize, shape: Shape, extra: usize) -> Node {
    let name = format!("aks-{}-vmss{index:06}", pool.name());
    let zone = ZONES[index % ZONES.len()];
    let mut labels: BTreeMap<String, String> = [
        ("kubernetes.io/arch", "amd64".to_string()),
        ("kubernetes.io/os", "linux".to_string()),
        (HOSTNAME_LABEL, name.clone()),
        (ZONE_LABEL, zone.to_string()),
        ("topology.kubernetes.io/region", "eastus".to_string()),
        (
            "node.kubernetes.io/instance-type",
            shape.instance_type.to_string(),
        ),
        (POOL_LABEL, pool.name()),
        ("kubernetes.azure.com/agentpool", pool.name()),
        (MODE_LABEL, "user".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let (key, value) = pool.label();
    labels.insert(key.to_string(), value);
    let mut taints: Vec<Taint> = pool.taint().into_iter().collect();
    taints.extend(
        (0..extra).map(|i| taint(&format!("{BENCH_TAINT_PREFIX}{i}"), "v", bench_effect(i))),
    );
    let mut allocatable: BTreeMap<String, Quantity> = [
        ("cpu".to_string(), cpu(shape.cpu_m)),
        ("memory".to_string(), mem(shape.mem_mi)),
        ("pods".to_string(), Quantity("110".to_string())),
        (
            "ephemeral-storage".to_string(),
            Quantity("119703055367".to_string()),
        ),
    ]
    .into_iter()
    .collect();
    if shape.gpus > 0 {
        allocatable.insert(GPU_RESOURCE.to_string(), Quantity(shape.gpus.to_string()));
    }
    ready_node(name, labels, taints, allocatable)
}

/// A Ready node as a kubelet registers it: `labels`, `taints`, and `allocatable` as its
/// capacity too.
pub(super) fn ready_node(
    name: String,
    labels: BTreeMap<String, String>,
    taints: Vec<Taint>,
    allocatable: BTreeMap<String, Quantity>,
) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name),
            labels: Some(labels),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            ..Default::default()
        }),
        status: Some(NodeStatus {
            capacity: Some(allocatable.clone()),
            allocatable: Some(allocatable),
            conditions: Some(vec![NodeCondition {
                type_: "Ready".to_string(),
                status: "True".to_string(),
                reason: Some("KubeletReady".to_string()),
                message: Some("kubelet is posting ready status".to_string()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
    }
}
