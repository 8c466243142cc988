//! Resource amounts as the scheduler counts them (upstream `framework.Resource`): milli-CPU,
//! bytes of memory and ephemeral storage, a pod count, and extended ("scalar") resources.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::quantity::{milli_value, value};

/// `cpu`.
pub const CPU: &str = "cpu";
/// `memory`.
pub const MEMORY: &str = "memory";
/// `ephemeral-storage`.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// `pods`.
pub const PODS: &str = "pods";
/// Upstream `DefaultMilliCPURequest`: what a container without a CPU request counts for scoring.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Upstream `DefaultMemoryRequest` (200 MiB): what a container without a memory request counts for scoring.
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// An amount of every resource the scheduler tracks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    /// CPU in thousandths of a core.
    pub milli_cpu: i64,
    /// Memory in bytes.
    pub memory: i64,
    /// Ephemeral storage in bytes.
    pub ephemeral_storage: i64,
    /// How many pods (node allocatable `pods`).
    pub allowed_pod_number: i64,
    /// Extended resources (`nvidia.com/gpu`, hugepages, …) in whole units.
    pub scalar: BTreeMap<String, i64>,
}

impl Resources {
    /// From a `ResourceList` (`requests`, `allocatable`): cpu in milli-units, the rest in units
    /// rounded up, as upstream's `NewResource`. Unparsable quantities count as zero (the API
    /// server would have refused them).
    pub fn from_list(list: &BTreeMap<String, Quantity>) -> Self {
        let mut r = Resources::default();
        for (name, q) in list {
            r.set(name, &q.0);
        }
        r
    }

    fn set(&mut self, name: &str, q: &str) {
        match name {
            CPU => self.milli_cpu = milli_value(q).unwrap_or(0),
            MEMORY => self.memory = value(q).unwrap_or(0),
            EPHEMERAL_STORAGE => self.ephemeral_storage = value(q).unwrap_or(0),
            PODS => self.allowed_pod_number = value(q).unwrap_or(0),
            other => {
                self.scalar.insert(other.to_string(), value(q).unwrap_or(0));
            }
        }
    }

    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.saturating_add(other.milli_cpu);
        self.memory = self.memory.saturating_add(other.memory);
        self.ephemeral_storage = self
            .ephemeral_storage
            .saturating_add(other.ephemeral_storage);
        self.allowed_pod_number = self
            .allowed_pod_number
            .saturating_add(other.allowed_pod_number);
        for (k, v) in &other.scalar {
            let e = self.scalar.entry(k.clone()).or_insert(0);
            *e = e.saturating_add(*v);
        }
    }

    /// Subtracts `other` from `self`.
    pub fn sub(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.saturating_sub(other.milli_cpu);
        self.memory = self.memory.saturating_sub(other.memory);
        self.ephemeral_storage = self
            .ephemeral_storage
            .saturating_sub(other.ephemeral_storage);
        self.allowed_pod_number = self
            .allowed_pod_number
            .saturating_sub(other.allowed_pod_number);
        for (k, v) in &other.scalar {
            let e = self.scalar.entry(k.clone()).or_insert(0);
            *e = e.saturating_sub(*v);
        }
    }

    /// The amount of a named resource (`cpu` in milli-units).
    pub fn get(&self, name: &str) -> i64 {
        match name {
            CPU => self.milli_cpu,
            MEMORY => self.memory,
            EPHEMERAL_STORAGE => self.ephemeral_storage,
            PODS => self.allowed_pod_number,
            other => self.scalar.get(other).copied().unwrap_or(0),
        }
    }
}

/// A node's allocatable resources (upstream reads `status.allocatable` only).
pub fn node_allocatable(node: &Node) -> Resources {
    node.status
        .as_ref()
        .and_then(|s| s.allocatable.as_ref())
        .map(Resources::from_list)
        .unwrap_or_default()
}

/// What a pod requests, for NodeResourcesFit's filter (upstream `resourcehelper.PodRequests`,
/// v1.35). See [`crate::resources`] tests for the rules.
pub fn pod_requests(spec: &PodSpec) -> Resources {
    let mut total = Resources::default();
    for c in &spec.containers {
        if let Some(req) = c.resources.as_ref().and_then(|r| r.requests.as_ref()) {
            total.add(&Resources::from_list(req));
        }
    }
    total
}

/// What a pod counts for scoring: its requests, with [`DEFAULT_MILLI_CPU_REQUEST`] and
/// [`DEFAULT_MEMORY_REQUEST`] for containers that request no CPU or memory (upstream
/// `NonZeroRequested`). Returns `(milli_cpu, memory)`.
pub fn pod_non_zero_requests(spec: &PodSpec) -> (i64, i64) {
    let mut cpu = 0i64;
    let mut mem = 0i64;
    for c in &spec.containers {
        let req = c.resources.as_ref().and_then(|r| r.requests.as_ref());
        let get = |n: &str| req.and_then(|r| r.get(n));
        cpu += get(CPU)
            .and_then(|q| milli_value(&q.0))
            .filter(|v| *v != 0)
            .unwrap_or(DEFAULT_MILLI_CPU_REQUEST);
        mem += get(MEMORY)
            .and_then(|q| value(&q.0))
            .filter(|v| *v != 0)
            .unwrap_or(DEFAULT_MEMORY_REQUEST);
    }
    (cpu, mem)
}
