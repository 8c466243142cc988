//! The kubelet reservations of the nodes pools make: what each provider's node image (or
//! Karpenter's model of it) holds back from an instance's capacity, so that a pool node's
//! `status.allocatable` is what the real node would advertise. The one place these are
//! computed: `repel pools`, the pool controllers of `simulate` and `serve`, and Karpenter's
//! provisioning all call [`node_resources`].
//!
//! `allocatable = capacity − kube-reserved − system-reserved − hard eviction threshold` (the
//! kubelet's Node Allocatable rule), for `cpu` and `memory`; `pods` and devices are not
//! reserved. Ephemeral storage is not modelled (pool nodes carry none), so its reservations
//! (kube-reserved `1Gi`, `nodefs.available` 10 %) are not either.
//!
//! Per [`NodeImage`], from the providers' own code and documents:
//!
//! - **EKS** (eksctl node groups, EKS managed node groups): the EKS-optimized AL2023 AMI's
//!   `nodeadm`, <https://github.com/awslabs/amazon-eks-ami/blob/main/nodeadm/internal/kubelet/config.go>
//!   (`withDefaultReservedResources`, `getCPUMillicoresToReserve`,
//!   `GetMemoryMebibytesToReserve`, `defaultKubeletSubConfig`):
//!   1. kube-reserved cpu: 6 % of the first core, 1 % of the second, 0.5 % of the third and
//!      fourth, 0.25 % of every core above four (integer millicores per range);
//!   2. kube-reserved memory: `11 × maxPods + 255` MiB, `maxPods` being the ENI-limited
//!      value of `eni-max-pods.txt` (`GetClassicMaxPods`) — a node group's own
//!      `maxPodsPerNode` changes the node's pods, not this reservation;
//!   3. no system-reserved; `evictionHard` `memory.available: 100Mi`.
//!
//!   eksctl writes no reservations of its own for AL2023 (`pkg/nodebootstrap/al2023.go`
//!   passes only `maxPods`), so its nodes take the AMI's.
//! - **AKS** (agent pools), Kubernetes 1.29 and later: Microsoft's "Node resource
//!   reservations in Azure Kubernetes Service (AKS)",
//!   <https://learn.microsoft.com/en-us/azure/aks/node-resource-reservations>:
//!   1. kube-reserved cpu by cores (60, 100, 140, 180, 260, 420, 740 millicores for 1, 2, 4,
//!      8, 16, 32, 64 cores) — the page's table, which is the brackets 6 % of the first core,
//!      4 % of the second, 2 % of the third and fourth, 1 % above (Karpenter's Azure provider
//!      computes it so, `reservedCPUTaxVCPU`), which also give the sizes between;
//!   2. kube-reserved memory: "the lesser value of: 20 MB * Max Pods supported on the Node +
//!      50 MB or 25% of the total system memory resources" — read as MiB (the page's own
//!      example subtracts its 100 Mi eviction threshold as "0.1 GB");
//!   3. eviction `memory.available < 100 Mi`.
//! - **Karpenter on AWS**: `aws/karpenter-provider-aws`
//!   `pkg/providers/instancetype/types.go` (`memory`, `kubeReservedResources`,
//!   `systemReservedResources`, `evictionThreshold`), with an `EC2NodeClass` that sets no
//!   `kubelet`: the capacity's memory is the instance's less 64 MiB on Graviton (arm64) and
//!   less `--vm-memory-overhead-percent` (default 0.075, rounded up to a MiB); kube-reserved
//!   as the EKS AMI's (cpu brackets, `11 × pods + 255` MiB); no system-reserved; eviction
//!   `100Mi`. Karpenter's instance-type allocatable is what its scheduling simulation packs
//!   pods against, and what a NodeClaim reports.
//! - **Karpenter on Azure**: `Azure/karpenter-provider-azure`
//!   `pkg/providers/instancetype/instancetype.go` (`CalculateMemoryWithoutOverhead`,
//!   `KubeReservedResources`, `EvictionThreshold`): capacity memory less 7.5 %;
//!   kube-reserved cpu by the brackets above, memory by the pre-1.29 AKS brackets (25 % of
//!   the first 4 GiB, 20 % of the next 4, 10 % of the next 8, 6 % up to 128 GiB, 2 % above);
//!   eviction `750Mi`.

use std::collections::BTreeMap;

use serde::Serialize;

const MI: i64 = 1 << 20;
const GI: i64 = 1 << 30;

/// Karpenter's default `--vm-memory-overhead-percent` (both providers).
pub const VM_MEMORY_OVERHEAD_PERCENT: f64 = 0.075;

/// Whose image and kubelet configuration a pool's nodes boot with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeImage {
    /// The EKS-optimized AL2023 AMI (`nodeadm`): eksctl node groups, EKS managed node groups.
    EksAmi,
    /// The AKS node image, Kubernetes 1.29 and later.
    Aks,
    /// Karpenter's AWS provider's instance-type model.
    KarpenterAws,
    /// Karpenter's Azure provider's instance-type model.
    KarpenterAzure,
}

impl NodeImage {
    /// The image of a pool's nodes from its provider (`eksctl`, `eks`, `aks`, `karpenter`)
    /// and, for Karpenter, its cloud (`aws`, `azure`); `None` for a provider repel does not
    /// model.
    pub fn of(provider: &str, cloud: &str) -> Option<Self> {
        match (provider, cloud) {
            ("eksctl" | "eks", _) => Some(NodeImage::EksAmi),
            ("aks", _) => Some(NodeImage::Aks),
            ("karpenter", "azure") => Some(NodeImage::KarpenterAzure),
            ("karpenter", _) => Some(NodeImage::KarpenterAws),
            _ => None,
        }
    }
}

/// What the kubelet holds back: cpu in millicores, memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reserved {
    /// `kubeReserved.cpu`.
    pub kube_cpu: i64,
    /// `kubeReserved.memory`.
    pub kube_memory: i64,
    /// `systemReserved.cpu`.
    pub system_cpu: i64,
    /// `systemReserved.memory`.
    pub system_memory: i64,
    /// `evictionHard` `memory.available`.
    pub eviction_memory: i64,
}

/// A node's `status.capacity` and `status.allocatable`, as quantities.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct NodeResources {
    /// `status.capacity`.
    pub capacity: BTreeMap<String, String>,
    /// `status.allocatable`.
    pub allocatable: BTreeMap<String, String>,
}

/// The kube-reserved cpu of the EKS AMI and Karpenter's AWS provider, in millicores:
/// `getCPUMillicoresToReserve` (amazon-eks-ami `nodeadm/internal/kubelet/config.go`) — 6 % of
/// the first 1000m, 1 % of the next 1000m, 0.5 % of the next 2000m, 0.25 % above, each range
/// truncated to whole millicores.
pub fn eks_cpu_millicores_to_reserve(cpu_milli: i64) -> i64 {
    let ranges = [0, 1000, 2000, 4000, cpu_milli.max(4000)];
    let per_10000 = [600, 100, 50, 25];
    let mut total = 0;
    for (i, pct) in per_10000.iter().enumerate() {
        let (start, end) = (ranges[i], ranges[i + 1]);
        if cpu_milli <= start {
            continue;
        }
        total += (cpu_milli.min(end) - start) * pct / 10000;
    }
    total
}

/// The kube-reserved memory of the EKS AMI, MiB: `GetMemoryMebibytesToReserve` —
/// `11 × maxPods + 255`.
pub fn eks_memory_mebibytes_to_reserve(max_pods: i64) -> i64 {
    11 * max_pods + 255
}

/// Karpenter's Azure `TaxBrackets.Calculate`: each bracket's rate on the part of `amount`
/// below its upper bound.
fn tax(brackets: &[(f64, f64)], amount: f64) -> f64 {
    let (mut total, mut lower) = (0.0, 0.0);
    for &(upper, rate) in brackets {
        if lower > amount {
            continue;
        }
        total += (upper.min(amount) - lower) * rate;
        lower = upper;
    }
    total
}

/// The AKS kube-reserved cpu, millicores: the brackets behind the documented table (6 % of
/// the first core, 4 % of the second, 2 % of the third and fourth, 1 % above), as
/// Karpenter's Azure provider computes them (`reservedCPUTaxVCPU`).
pub fn aks_cpu_reserved(cores: i64) -> i64 {
    let brackets = [(1.0, 0.06), (2.0, 0.04), (4.0, 0.02), (f64::MAX, 0.01)];
    (1000.0 * tax(&brackets, cores as f64)) as i64
}

/// The AKS (Kubernetes ≥ 1.29) kube-reserved memory, bytes: the lesser of `20 MiB × maxPods
/// + 50 MiB` and 25 % of the memory.
pub fn aks_memory_reserved(memory: i64, max_pods: i64) -> i64 {
    (20 * MI * max_pods + 50 * MI).min(memory / 4)
}

/// Karpenter's Azure provider's kube-reserved memory, bytes (`KubeReservedResources`): the
/// pre-1.29 AKS brackets on the SKU's GiB, truncated to a MiB.
fn karpenter_azure_memory_reserved(memory: i64) -> i64 {
    let brackets = [
        (4.0, 0.25),
        (8.0, 0.20),
        (16.0, 0.10),
        (128.0, 0.06),
        (f64::MAX, 0.02),
    ];
    let gib = memory as f64 / GI as f64;
    ((1024.0 * tax(&brackets, gib)) as i64) * MI
}

/// The memory a node of `image` has as capacity, bytes, from the instance's: Karpenter
/// takes its VM overhead (and on AWS Graviton 64 MiB) off; the providers' own nodes report
/// the instance's.
pub fn capacity_memory(image: NodeImage, memory: i64, arm64: bool) -> i64 {
    match image {
        NodeImage::EksAmi | NodeImage::Aks => memory,
        NodeImage::KarpenterAws => {
            // types.go `memory`: MiB, Graviton's 64 MiB of CMA, then the overhead rounded up
            // to a MiB.
            let mib = memory / MI - if arm64 { 64 } else { 0 };
            let bytes = mib * MI;
            let overhead =
                ((bytes as f64) * VM_MEMORY_OVERHEAD_PERCENT / 1024.0 / 1024.0).ceil() as i64;
            bytes - overhead * MI
        }
        NodeImage::KarpenterAzure => {
            // CalculateMemoryWithoutOverhead: whole GiB, less the overhead rounded up to a byte.
            let bytes = (memory / GI) * GI;
            bytes - ((bytes as f64) * VM_MEMORY_OVERHEAD_PERCENT).ceil() as i64
        }
    }
}

/// What a node of `image` reserves: `cpu_milli` and `memory` (bytes) are the instance's
/// (before [`capacity_memory`]), `pods` the pods the reservation counts (see the module docs:
/// the EKS AMI's ENI-limited value, the pool's `maxPods` on AKS, the node's on Karpenter).
pub fn reserved(image: NodeImage, cpu_milli: i64, memory: i64, pods: i64) -> Reserved {
    match image {
        NodeImage::EksAmi | NodeImage::KarpenterAws => Reserved {
            kube_cpu: eks_cpu_millicores_to_reserve(cpu_milli),
            kube_memory: eks_memory_mebibytes_to_reserve(pods) * MI,
            eviction_memory: 100 * MI,
            ..Reserved::default()
        },
        NodeImage::Aks => Reserved {
            kube_cpu: aks_cpu_reserved(cpu_milli / 1000),
            kube_memory: aks_memory_reserved(memory, pods),
            eviction_memory: 100 * MI,
            ..Reserved::default()
        },
        NodeImage::KarpenterAzure => Reserved {
            kube_cpu: aks_cpu_reserved(cpu_milli / 1000),
            kube_memory: karpenter_azure_memory_reserved(memory),
            eviction_memory: 750 * MI,
            ..Reserved::default()
        },
    }
}

/// A cpu amount as a quantity: whole cores (`2`) or millicores (`1930m`).
fn cpu_quantity(milli: i64) -> String {
    if milli % 1000 == 0 {
        (milli / 1000).to_string()
    } else {
        format!("{milli}m")
    }
}

/// A byte amount as a quantity: `Mi` or `Ki` when they divide it, else bytes.
fn bytes_quantity(b: i64) -> String {
    if b != 0 && b % MI == 0 {
        format!("{}Mi", b / MI)
    } else if b != 0 && b % 1024 == 0 {
        format!("{}Ki", b / 1024)
    } else {
        b.to_string()
    }
}

/// A node's capacity and allocatable from the instance's `figures` (`cpu`, `memory`, `pods`,
/// devices — a catalogue entry's [`crate::instance_types::InstanceType::capacity`] or a
/// user's override, which are the same kind of figures): capacity as [`capacity_memory`]
/// makes it, allocatable with [`reserved`] subtracted (never below zero). `reserve_pods` is
/// the pods the memory reservation counts (default: the figures' `pods`); `arm64` for an
/// AWS Graviton type. `image` `None`: allocatable equals capacity. Figures that do not parse
/// are kept as written and not reserved from.
pub fn node_resources(
    image: Option<NodeImage>,
    figures: &BTreeMap<String, String>,
    reserve_pods: Option<i64>,
    arm64: bool,
) -> NodeResources {
    let mut capacity = figures.clone();
    let mut allocatable = figures.clone();
    let Some(image) = image else {
        return NodeResources {
            capacity,
            allocatable,
        };
    };
    let cpu = figures
        .get("cpu")
        .and_then(|q| crate::quantity::milli_value(q));
    let memory = figures
        .get("memory")
        .and_then(|q| crate::quantity::value(q));
    let pods = reserve_pods.or_else(|| figures.get("pods").and_then(|q| crate::quantity::value(q)));
    let (Some(cpu), Some(memory), Some(pods)) = (cpu, memory, pods) else {
        return NodeResources {
            capacity,
            allocatable,
        };
    };
    let r = reserved(image, cpu, memory, pods);
    let cap_memory = capacity_memory(image, memory, arm64);
    if cap_memory != memory {
        capacity.insert("memory".into(), bytes_quantity(cap_memory));
    }
    allocatable.insert(
        "cpu".into(),
        cpu_quantity((cpu - r.kube_cpu - r.system_cpu).max(0)),
    );
    allocatable.insert(
        "memory".into(),
        bytes_quantity((cap_memory - r.kube_memory - r.system_memory - r.eviction_memory).max(0)),
    );
    NodeResources {
        capacity,
        allocatable,
    }
}

#[cfg(test)]
mod tests;
