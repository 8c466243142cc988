//! The nodes a pool creates: their names as each provider names them, their labels,
//! taints and capacity from the pool's node template, and the devices their hardware holds.
//!
//! - **Names.** AKS: `aks-POOL-NNNNNNNN-vmssXXXXXX` (the scale set's 8-digit number, then the
//!   instance's index in base 36, six digits: `aks-gpu-12345678-vmss000000`); AWS (EKS managed
//!   node groups, eksctl node groups): the instance's private DNS name,
//!   `ip-10-0-X-Y.REGION.compute.internal` (`ip-10-0-X-Y.ec2.internal` in us-east-1 and when no
//!   region is given). The number and addresses are drawn from the pool's name and the
//!   instance's index, so a run is repeatable.
//! - **Labels.** The template's (which hold the provider's pool label), then
//!   `kubernetes.io/hostname`, `kubernetes.io/os=linux`, `kubernetes.io/arch` (`arm64` for AWS
//!   Graviton families such as `m6g`, else `amd64`), `node.kubernetes.io/instance-type` (the
//!   pool's first instance type), `topology.kubernetes.io/zone` (the pool's zones round robin;
//!   AKS writes `0` on a pool without zones), `topology.kubernetes.io/region`, and per provider:
//!   AKS `agentpool=POOL`, EKS `eks.amazonaws.com/capacityType=ON_DEMAND|SPOT`.
//! - **Taints**: the template's taints, then its startup taints.
//! - **Capacity and allocatable**: the instance type's ([`crate::instance_types`]) or the
//!   override's figures as `status.capacity`, and `status.allocatable` with the provider's
//!   kubelet reservations subtracted ([`crate::kubelet_reserved`], [`pool_resources`]) —
//!   without the devices a device plugin advertises (`nvidia.com/gpu`): those are recorded in
//!   the node's [`DEVICES_ANNOTATION`] and advertised only while a device-plugin pod runs on
//!   the node.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, NodeCondition, NodeSpec, NodeStatus, Taint};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::instance_types::{self, InstanceType};
use crate::kubelet_reserved::{self, NodeImage, NodeResources};
use crate::pools::Pool;

/// The node annotation that records the devices its hardware holds, which a device plugin
/// advertises as extended resources while it runs there: `RESOURCE=COUNT[,RESOURCE=COUNT…]`
/// (`nvidia.com/gpu=4`). repel writes it on the nodes pools create; a Node of the input may
/// carry it too.
pub const DEVICES_ANNOTATION: &str = "repel.dev/devices";

/// Resources a device plugin advertises (not the kubelet): kept out of a pool node's capacity
/// until one runs.
pub fn is_device_resource(name: &str) -> bool {
    name.contains('/') && !name.starts_with("kubernetes.io/") && !name.starts_with("hugepages-")
}

/// FNV-1a, for names that must be the same on every run.
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The base-36 digits of `n`, at least `width` of them.
fn base36(mut n: u64, width: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    while out.len() < width {
        out.push(b'0');
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The name the provider gives the `index`th node `pool` creates (`attempt` > 0: drawn again,
/// the first name being taken).
pub fn node_name(pool: &Pool, index: usize, attempt: u32) -> String {
    match pool.provider {
        "aks" => {
            let scale_set = fnv(&[b"aks", pool.name.as_bytes()]) % 100_000_000;
            format!(
                "aks-{}-{scale_set:08}-vmss{}",
                pool.name,
                base36(index as u64 + u64::from(attempt), 6)
            )
        }
        "karpenter" => {
            // A NodeClaim's name: the NodePool's name and 5 characters, as generateName gives.
            let h = fnv(&[
                pool.name.as_bytes(),
                &index.to_le_bytes(),
                &attempt.to_le_bytes(),
            ]);
            let suffix: String = (0..5)
                .map(|i| {
                    let a = crate::workload::NAME_ALPHABET;
                    char::from(a[((h >> (i * 8)) % a.len() as u64) as usize])
                })
                .collect();
            format!("{}-{suffix}", pool.name)
        }
        _ => {
            let h = fnv(&[
                pool.name.as_bytes(),
                &index.to_le_bytes(),
                &attempt.to_le_bytes(),
            ]);
            let (x, y) = ((h % 256), ((h >> 8) % 254) + 1);
            match pool.region.as_deref() {
                None | Some("us-east-1") => format!("ip-10-0-{x}-{y}.ec2.internal"),
                Some(region) => format!("ip-10-0-{x}-{y}.{region}.compute.internal"),
            }
        }
    }
}

/// Whether an AWS instance type is a Graviton (arm64) one: its family is letters, a
/// generation digit, then `g` (`m6g`, `c7gn`, `t4g`; not `g5`).
pub fn is_graviton(instance_type: &str) -> bool {
    let family = instance_type.split('.').next().unwrap_or_default();
    let rest = family.trim_start_matches(|c: char| c.is_ascii_lowercase());
    let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.len() > after.len() && rest != family && after.starts_with('g')
}

/// The capacity and allocatable of a node of `pool` that is an instance of `t`: the
/// catalogue's figures (with the pool's `maxPods`), reserved from as the pool's provider
/// does ([`kubelet_reserved::node_resources`]; the EKS AMI reserves memory for the type's
/// ENI-limited pods, whatever the pool's `maxPodsPerNode`).
pub fn instance_resources(pool: &Pool, t: &InstanceType) -> NodeResources {
    let image = NodeImage::of(pool.provider, pool.cloud);
    let reserve_pods = (image == Some(NodeImage::EksAmi)).then(|| t.max_pods(None));
    let arm64 = t.cloud == "aws" && is_graviton(t.name);
    kubelet_reserved::node_resources(image, &t.capacity(pool.max_pods), reserve_pods, arm64)
}

/// The capacity and allocatable of a node of `pool` of the instance type `name`: from
/// `overrides` (`repel pools --instance-type`, a scenario's `instanceTypes`: the instance's
/// capacity, which the provider's reservations are subtracted from as from the catalogue's)
/// or the catalogue ([`instance_resources`]); `None` when neither knows the type.
pub fn type_resources(
    pool: &Pool,
    name: &str,
    overrides: &BTreeMap<String, BTreeMap<String, String>>,
) -> Option<NodeResources> {
    if let Some(c) = overrides.get(name) {
        let image = NodeImage::of(pool.provider, pool.cloud);
        let arm64 = pool.cloud == "aws" && is_graviton(name);
        return Some(kubelet_reserved::node_resources(image, c, None, arm64));
    }
    instance_types::lookup(name).map(|t| instance_resources(pool, t))
}

/// The capacity and allocatable of a node of `pool`: its first instance type's
/// ([`type_resources`]); `None` when the pool names no type or one repel does not know.
pub fn pool_resources(
    pool: &Pool,
    overrides: &BTreeMap<String, BTreeMap<String, String>>,
) -> Option<NodeResources> {
    type_resources(pool, pool.instance_types.first()?, overrides)
}

/// The `index`th node of `pool`, called `name`, with `resources` (see the module docs;
/// `None`: no status resources, which the cluster's loading assumes as for any node without
/// them).
pub fn pool_node(pool: &Pool, name: &str, index: usize, resources: Option<&NodeResources>) -> Node {
    let mut labels = pool.labels.clone();
    labels.insert(pool.node_label.0.to_string(), pool.node_label.1.clone());
    labels.insert("kubernetes.io/hostname".into(), name.to_string());
    labels.insert("kubernetes.io/os".into(), "linux".into());
    let first = pool.instance_types.first();
    labels.insert(
        "kubernetes.io/arch".into(),
        if pool.provider != "aks" && first.is_some_and(|t| is_graviton(t)) {
            "arm64"
        } else {
            "amd64"
        }
        .into(),
    );
    if let Some(t) = first {
        labels.insert("node.kubernetes.io/instance-type".into(), t.clone());
    }
    if !pool.zones.is_empty() {
        labels.insert(
            "topology.kubernetes.io/zone".into(),
            pool.zones[index % pool.zones.len()].clone(),
        );
    } else if pool.provider == "aks" {
        labels.insert("topology.kubernetes.io/zone".into(), "0".into());
    }
    if let Some(r) = &pool.region {
        labels.insert("topology.kubernetes.io/region".into(), r.clone());
    }
    match pool.provider {
        "aks" => {
            labels.insert("agentpool".into(), pool.name.clone());
        }
        "eks" => {
            labels
                .entry("eks.amazonaws.com/capacityType".into())
                .or_insert_with(|| if pool.spot { "SPOT" } else { "ON_DEMAND" }.into());
        }
        "karpenter" => {
            labels.insert(
                "karpenter.sh/capacity-type".into(),
                if pool.spot { "spot" } else { "on-demand" }.into(),
            );
        }
        _ => {}
    }
    let mut taints: Vec<Taint> = pool.taints.clone();
    for t in &pool.startup_taints {
        if !taints
            .iter()
            .any(|x| x.key == t.key && x.effect == t.effect)
        {
            taints.push(t.clone());
        }
    }
    // The kubelet's Ready condition: a pool's node joins ready.
    let ready = NodeCondition {
        type_: "Ready".into(),
        status: "True".into(),
        reason: Some("KubeletReady".into()),
        message: Some("kubelet is posting ready status".into()),
        ..NodeCondition::default()
    };
    let mut annotations = BTreeMap::new();
    let status = resources.map(|r| {
        let mut devices = Vec::new();
        for (k, v) in &r.capacity {
            if is_device_resource(k) {
                devices.push(format!("{k}={v}"));
            }
        }
        if !devices.is_empty() {
            annotations.insert(DEVICES_ANNOTATION.to_string(), devices.join(","));
        }
        let list = |m: &BTreeMap<String, String>| -> BTreeMap<String, Quantity> {
            m.iter()
                .filter(|(k, _)| !is_device_resource(k))
                .map(|(k, v)| (k.clone(), Quantity(v.clone())))
                .collect()
        };
        NodeStatus {
            capacity: Some(list(&r.capacity)),
            allocatable: Some(list(&r.allocatable)),
            conditions: Some(vec![ready.clone()]),
            ..NodeStatus::default()
        }
    });
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(labels),
            annotations: (!annotations.is_empty()).then_some(annotations),
            ..ObjectMeta::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            ..NodeSpec::default()
        }),
        status: Some(status.unwrap_or_else(|| NodeStatus {
            conditions: Some(vec![ready.clone()]),
            ..NodeStatus::default()
        })),
    }
}

/// A node's devices from its [`DEVICES_ANNOTATION`]: `(resource, count)`; `Err` names the
/// entry that is not `RESOURCE=COUNT` with a count of 0 or more.
pub fn node_devices(node: &Node) -> Result<Vec<(String, i64)>, String> {
    let Some(v) = node
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DEVICES_ANNOTATION))
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let parsed = part
            .split_once('=')
            .and_then(|(k, n)| Some((k.trim(), n.trim().parse::<i64>().ok()?)))
            .filter(|(k, n)| !k.is_empty() && *n >= 0);
        match parsed {
            Some((k, n)) => out.push((k.to_string(), n)),
            None => {
                return Err(format!(
                    "metadata.annotations[{DEVICES_ANNOTATION}]: {part:?} is not RESOURCE=COUNT"
                ));
            }
        }
    }
    Ok(out)
}

/// The pod annotation by which any pod declares the resources it advertises as a device
/// plugin: `repel.dev/provides: nvidia.com/gpu` (a comma-separated list).
pub const PROVIDES_ANNOTATION: &str = "repel.dev/provides";

/// The device plugins repel recognises by their container image: a path segment of the image
/// (registry and tag aside) and the resource the plugin advertises.
pub const DEVICE_PLUGIN_IMAGES: &[(&str, &str)] = &[
    // NVIDIA's (nvcr.io/nvidia/k8s-device-plugin, nvidia/k8s-device-plugin) and GKE's.
    ("nvidia/k8s-device-plugin", "nvidia.com/gpu"),
    ("nvidia-gpu-device-plugin", "nvidia.com/gpu"),
    // AMD's ROCm plugin.
    ("rocm/k8s-device-plugin", "amd.com/gpu"),
    // AWS Neuron (Inferentia, Trainium).
    ("neuron-device-plugin", "aws.amazon.com/neuron"),
    // Intel's GPU plugin.
    ("intel-gpu-plugin", "gpu.intel.com/i915"),
];

/// The resources a pod advertises as a device plugin: its [`PROVIDES_ANNOTATION`] when it has
/// one, else those of the recognised images ([`DEVICE_PLUGIN_IMAGES`]) among its containers.
pub fn provided_resources(
    annotations: Option<&BTreeMap<String, String>>,
    images: &[&str],
) -> Vec<String> {
    if let Some(v) = annotations.and_then(|a| a.get(PROVIDES_ANNOTATION)) {
        return v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
    }
    let mut out: Vec<String> = Vec::new();
    for image in images {
        // Registry and tag or digest aside: `nvcr.io/nvidia/k8s-device-plugin:v0.20.0`.
        let path = image.split('@').next().unwrap_or_default();
        let path = match path.rsplit_once(':') {
            Some((p, tag)) if !tag.contains('/') => p,
            _ => path,
        };
        for (pattern, resource) in DEVICE_PLUGIN_IMAGES {
            if (path == *pattern
                || path.ends_with(&format!("/{pattern}"))
                || path.ends_with(pattern) && !pattern.contains('/'))
                && !out.iter().any(|r| r == resource)
            {
                out.push((*resource).to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
