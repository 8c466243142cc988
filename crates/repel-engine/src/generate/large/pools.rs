//! The `large-workloads` shape's node pools: shares, machines, labels and taints.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Taint};

use crate::generate::nodes::ready_node;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::generate::nodes::{
    BENCH_TAINT_PREFIX, CRITICAL_ADDONS_ONLY, GPU_RESOURCE, HOSTNAME_LABEL, ZONE_LABEL,
    bench_effect, cpu, mem, taint,
};
use crate::rng::Rng;

/// The node group label naming a node's pool.
pub const NODEGROUP_LABEL: &str = "eks.amazonaws.com/nodegroup";
/// The spot pool's taint and label key (`…=spot:NoSchedule`; `on-demand` elsewhere).
pub const LIFECYCLE_KEY: &str = "node.kubernetes.io/lifecycle";
/// The GPU pool's label (`k8s.amazonaws.com/accelerator=nvidia-tesla-v100`).
pub const ACCELERATOR_LABEL: &str = "k8s.amazonaws.com/accelerator";
/// The three zones.
pub const ZONES: [&str; 3] = ["us-east-1a", "us-east-1b", "us-east-1c"];
/// The share of each pool's allocatable CPU its pods request, in thousandths.
pub const TARGET_CPU_PERMILLE: u64 = 700;

/// A pool of this shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pool {
    /// On-demand nodes, untainted.
    General,
    /// Spot nodes: `node.kubernetes.io/lifecycle=spot:NoSchedule`.
    Spot,
    /// Cluster add-ons: `CriticalAddonsOnly=true:NoSchedule`.
    System,
    /// GPU nodes: `nvidia.com/gpu:NoSchedule`.
    Gpu,
}

impl Pool {
    /// Every pool, in the order small clusters get them.
    pub const ALL: [Pool; 4] = [Pool::General, Pool::System, Pool::Spot, Pool::Gpu];

    /// The pool's name (its [`NODEGROUP_LABEL`]).
    pub fn name(self) -> &'static str {
        match self {
            Pool::General => "general",
            Pool::Spot => "spot",
            Pool::System => "system",
            Pool::Gpu => "gpu",
        }
    }

    /// The pool's share of the nodes, in thousandths.
    pub fn permille(self) -> usize {
        match self {
            Pool::General => 800,
            Pool::Spot => 140,
            Pool::System | Pool::Gpu => 30,
        }
    }

    /// The pool's taint, if any.
    pub fn taint(self) -> Option<Taint> {
        match self {
            Pool::General => None,
            Pool::Spot => Some(taint(LIFECYCLE_KEY, "spot", "NoSchedule")),
            Pool::System => Some(taint(CRITICAL_ADDONS_ONLY, "true", "NoSchedule")),
            Pool::Gpu => Some(Taint {
                key: GPU_RESOURCE.to_string(),
                value: None,
                effect: "NoSchedule".to_string(),
                time_added: None,
            }),
        }
    }

    /// The second octet of its nodes' addresses.
    fn octet(self) -> usize {
        match self {
            Pool::General => 16,
            Pool::Spot => 32,
            Pool::System => 48,
            Pool::Gpu => 64,
        }
    }
}

/// How many nodes each pool gets: its share rounded down (at least one from four nodes on),
/// the rest to the general pool; below four nodes, the first pools of [`Pool::ALL`].
pub fn pool_sizes(nodes: usize) -> Vec<(Pool, usize)> {
    crate::generate::nodes::split_by_permille(Pool::ALL, Pool::permille, nodes)
}

/// An instance type's allocatable figures.
#[derive(Debug, Clone, Copy)]
pub(super) struct Machine {
    /// Allocatable CPU, millicores.
    pub(super) cpu_m: u64,
    /// Allocatable memory, MiB.
    pub(super) mem_mi: u64,
    /// GPUs.
    pub(super) gpus: u64,
    /// Allocatable pods.
    pub(super) pods: u32,
    /// `node.kubernetes.io/instance-type`.
    pub(super) instance_type: &'static str,
}

const M5_XLARGE: Machine = Machine {
    cpu_m: 3_920,
    mem_mi: 14_000,
    gpus: 0,
    pods: 58,
    instance_type: "m5.xlarge",
};
const M5_4XLARGE: Machine = Machine {
    cpu_m: 15_890,
    mem_mi: 57_400,
    gpus: 0,
    pods: 110,
    instance_type: "m5.4xlarge",
};
const M5_8XLARGE: Machine = Machine {
    cpu_m: 31_750,
    mem_mi: 118_000,
    gpus: 0,
    pods: 110,
    instance_type: "m5.8xlarge",
};
const P3_8XLARGE: Machine = Machine {
    cpu_m: 31_750,
    mem_mi: 235_000,
    gpus: 4,
    pods: 110,
    instance_type: "p3.8xlarge",
};

/// A `pool` node's machine: one in four general nodes an m5.8xlarge.
pub(super) fn machine(pool: Pool, rng: &mut Rng) -> Machine {
    match pool {
        Pool::General if rng.below(4) == 0 => M5_8XLARGE,
        Pool::General | Pool::Spot => M5_4XLARGE,
        Pool::System => M5_XLARGE,
        Pool::Gpu => P3_8XLARGE,
    }
}

/// Node `index` of `pool`.
pub(super) fn node(pool: Pool, index: usize, m: Machine, extra: usize) -> Node {
    let name = format!(
        "ip-10-{}-{}-{}.ec2.internal",
        pool.octet() + index / (250 * 256),
        index / 250 % 256,
        index % 250 + 10
    );
    let zone = ZONES[index % ZONES.len()];
    let (lifecycle, capacity_type) = match pool {
        Pool::Spot => ("spot", "SPOT"),
        _ => ("on-demand", "ON_DEMAND"),
    };
    let mut labels: BTreeMap<String, String> = [
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/os", "linux"),
        (HOSTNAME_LABEL, &name),
        (ZONE_LABEL, zone),
        ("topology.kubernetes.io/region", "us-east-1"),
        ("node.kubernetes.io/instance-type", m.instance_type),
        (NODEGROUP_LABEL, pool.name()),
        ("eks.amazonaws.com/capacityType", capacity_type),
        (LIFECYCLE_KEY, lifecycle),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    if pool == Pool::Gpu {
        labels.insert(ACCELERATOR_LABEL.to_string(), "nvidia-tesla-v100".into());
    }
    let mut taints: Vec<Taint> = pool.taint().into_iter().collect();
    taints.extend(
        (0..extra).map(|i| taint(&format!("{BENCH_TAINT_PREFIX}{i}"), "v", bench_effect(i))),
    );
    let mut allocatable: BTreeMap<String, Quantity> = [
        ("cpu".to_string(), cpu(m.cpu_m)),
        ("memory".to_string(), mem(m.mem_mi)),
        ("pods".to_string(), Quantity(m.pods.to_string())),
        (
            "ephemeral-storage".to_string(),
            Quantity("95491281146".into()),
        ),
    ]
    .into_iter()
    .collect();
    if m.gpus > 0 {
        allocatable.insert(GPU_RESOURCE.to_string(), Quantity(m.gpus.to_string()));
    }
    ready_node(name, labels, taints, allocatable)
}
