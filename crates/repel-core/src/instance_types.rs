//! A small built-in catalogue of common AWS and Azure instance types: what a node of
//! a pool offers — vCPUs, memory, GPUs, pods — so that a pool's node template has a capacity.
//!
//! Figures are the providers' published sizes (AWS "Amazon EC2 instance types", Azure "Sizes
//! for virtual machines"). A node's **pods** are the provider's default:
//!
//! - AWS: the Amazon VPC CNI's ENI-limited pod density, as the EKS AMI's `eni-max-pods.txt`
//!   and Karpenter (`aws-eni-limited-pod-density`) compute it: `ENIs × (IPv4 addresses per
//!   ENI − 1) + 2` (an m5.large: 3 × (10 − 1) + 2 = 29).
//! - Azure: the pool's own `maxPods` (which `az aks nodepool show` always prints); without
//!   one, the kubelet's default of 110.
//!
//! These figures are the instance's capacity; a node's allocatable is that less the provider's
//! kubelet reservations, computed in [`crate::kubelet_reserved`]. A pool whose figures must be
//! exact takes an override ([`parse_override`]), which also adds types the catalogue does not
//! hold: decided, and documented in the README, an override is a capacity too, reserved from
//! as the catalogue's figures are.

use std::collections::BTreeMap;

/// The resource name GPUs are advertised under by NVIDIA's device plugin.
pub const NVIDIA_GPU: &str = "nvidia.com/gpu";

/// The kubelet's default `maxPods`.
pub const KUBELET_MAX_PODS: i64 = 110;

/// One instance type of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstanceType {
    /// Its name as the provider spells it (`m5.large`, `Standard_D4s_v3`).
    pub name: &'static str,
    /// `aws` or `azure`.
    pub cloud: &'static str,
    /// vCPUs.
    pub cpu: u32,
    /// Memory, MiB.
    pub memory_mib: u64,
    /// NVIDIA GPUs (advertised as `nvidia.com/gpu` once the device plugin runs).
    pub gpus: u32,
    /// AWS: network interfaces and IPv4 addresses per interface (the pod density's inputs);
    /// `None` for Azure.
    pub enis: Option<(u32, u32)>,
}

impl InstanceType {
    /// The provider's default pods per node (see the module documentation); `pool_max_pods`
    /// is the pool's own setting where the provider has one (AKS's `maxPods`).
    pub fn max_pods(&self, pool_max_pods: Option<i64>) -> i64 {
        if let Some(m) = pool_max_pods {
            return m;
        }
        match self.enis {
            Some((enis, ips)) => i64::from(enis) * (i64::from(ips) - 1) + 2,
            None => KUBELET_MAX_PODS,
        }
    }

    /// The node's capacity as `status.capacity` spells it: `cpu`, `memory`, `pods`, and
    /// `nvidia.com/gpu` for a GPU type. The GPUs are what the hardware holds: a node
    /// advertises them only while a device plugin runs on it.
    pub fn capacity(&self, pool_max_pods: Option<i64>) -> BTreeMap<String, String> {
        let mut c = BTreeMap::new();
        c.insert("cpu".to_string(), self.cpu.to_string());
        c.insert("memory".to_string(), format!("{}Mi", self.memory_mib));
        c.insert("pods".to_string(), self.max_pods(pool_max_pods).to_string());
        if self.gpus > 0 {
            c.insert(NVIDIA_GPU.to_string(), self.gpus.to_string());
        }
        c
    }
}

const GIB: u64 = 1024;

const fn aws(
    name: &'static str,
    cpu: u32,
    gib: u64,
    gpus: u32,
    enis: u32,
    ips: u32,
) -> InstanceType {
    InstanceType {
        name,
        cloud: "aws",
        cpu,
        memory_mib: gib * GIB,
        gpus,
        enis: Some((enis, ips)),
    }
}

const fn azure(name: &'static str, cpu: u32, gib: u64, gpus: u32) -> InstanceType {
    InstanceType {
        name,
        cloud: "azure",
        cpu,
        memory_mib: gib * GIB,
        gpus,
        enis: None,
    }
}

/// The catalogue, by provider and family.
pub const CATALOGUE: &[InstanceType] = &[
    // AWS: burstable, general purpose, compute, memory.
    aws("t3.medium", 2, 4, 0, 3, 6),
    aws("t3.large", 2, 8, 0, 3, 12),
    aws("t3.xlarge", 4, 16, 0, 4, 15),
    aws("m5.large", 2, 8, 0, 3, 10),
    aws("m5.xlarge", 4, 16, 0, 4, 15),
    aws("m5.2xlarge", 8, 32, 0, 4, 15),
    aws("m5.4xlarge", 16, 64, 0, 8, 30),
    aws("m5a.large", 2, 8, 0, 3, 10),
    aws("m5a.xlarge", 4, 16, 0, 4, 15),
    aws("m5a.2xlarge", 8, 32, 0, 4, 15),
    aws("m6i.large", 2, 8, 0, 3, 10),
    aws("m6i.xlarge", 4, 16, 0, 4, 15),
    aws("m6i.2xlarge", 8, 32, 0, 4, 15),
    aws("m6g.large", 2, 8, 0, 3, 10),
    aws("m6g.xlarge", 4, 16, 0, 4, 15),
    aws("t4g.medium", 2, 4, 0, 3, 6),
    aws("c6g.large", 2, 4, 0, 3, 10),
    aws("c5.large", 2, 4, 0, 3, 10),
    aws("c5.xlarge", 4, 8, 0, 4, 15),
    aws("c5.2xlarge", 8, 16, 0, 4, 15),
    aws("c5.4xlarge", 16, 32, 0, 8, 30),
    aws("r5.large", 2, 16, 0, 3, 10),
    aws("r5.xlarge", 4, 32, 0, 4, 15),
    aws("r5.2xlarge", 8, 64, 0, 4, 15),
    // AWS: NVIDIA GPUs.
    aws("g4dn.xlarge", 4, 16, 1, 3, 10),
    aws("g4dn.2xlarge", 8, 32, 1, 3, 10),
    aws("g4dn.12xlarge", 48, 192, 4, 8, 30),
    aws("g5.xlarge", 4, 16, 1, 4, 15),
    aws("g5.2xlarge", 8, 32, 1, 4, 15),
    aws("p3.2xlarge", 8, 61, 1, 4, 15),
    aws("p3.8xlarge", 32, 244, 4, 8, 30),
    aws("p3dn.24xlarge", 96, 768, 8, 15, 50),
    aws("p4d.24xlarge", 96, 1152, 8, 15, 50),
    // Azure: burstable, general purpose, memory.
    azure("Standard_B2s", 2, 4, 0),
    azure("Standard_DS2_v2", 2, 7, 0),
    azure("Standard_D2s_v3", 2, 8, 0),
    azure("Standard_D4s_v3", 4, 16, 0),
    azure("Standard_D8s_v3", 8, 32, 0),
    azure("Standard_D16s_v3", 16, 64, 0),
    azure("Standard_D2s_v5", 2, 8, 0),
    azure("Standard_D4s_v5", 4, 16, 0),
    azure("Standard_D8s_v5", 8, 32, 0),
    azure("Standard_E4s_v3", 4, 32, 0),
    // Azure: NVIDIA GPUs.
    azure("Standard_NC4as_T4_v3", 4, 28, 1),
    azure("Standard_NC8as_T4_v3", 8, 56, 1),
    azure("Standard_NC6s_v3", 6, 112, 1),
    azure("Standard_NC24ads_A100_v4", 24, 220, 1),
    azure("Standard_ND96asr_v4", 96, 900, 8),
];

/// The catalogue's entry for `name`. AWS names are matched exactly; Azure's case-insensitively
/// (Azure's own APIs accept `standard_d4s_v3`).
pub fn lookup(name: &str) -> Option<&'static InstanceType> {
    CATALOGUE
        .iter()
        .find(|t| t.name == name || (t.cloud == "azure" && t.name.eq_ignore_ascii_case(name)))
}

/// An instance type's capacity from an override: `NAME=cpu=4,memory=16Gi,pods=58,nvidia.com/gpu=1`
/// (any resource names; `cpu`, `memory` and `pods` required; the provider's reservations are
/// subtracted from it as from the catalogue's figures). `Err` names what is wrong.
pub fn parse_override(s: &str) -> Result<(String, BTreeMap<String, String>), String> {
    let Some((name, rest)) = s.split_once('=') else {
        return Err(format!(
            "instance type override {s:?}: want NAME=cpu=N,memory=Q,pods=N[,RESOURCE=Q...]"
        ));
    };
    if name.is_empty() {
        return Err(format!("instance type override {s:?}: the name is empty"));
    }
    let mut capacity = BTreeMap::new();
    for part in rest.split(',') {
        let Some((k, v)) = part.split_once('=') else {
            return Err(format!(
                "instance type override {name}: {part:?} is not RESOURCE=QUANTITY"
            ));
        };
        if crate::quantity::milli_value(v).is_none_or(|m| m < 0) {
            return Err(format!(
                "instance type override {name}: {k}: {v:?} is not a quantity"
            ));
        }
        if capacity.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("instance type override {name}: {k} given twice"));
        }
    }
    for need in ["cpu", "memory", "pods"] {
        if !capacity.contains_key(need) {
            return Err(format!("instance type override {name}: {need} is missing"));
        }
    }
    Ok((name.to_string(), capacity))
}

#[cfg(test)]
mod tests;
