//! Resource amounts as the scheduler counts them (upstream `framework.Resource`): milli-CPU,
//! bytes of memory and ephemeral storage, a pod count, and extended ("scalar") resources; and
//! what a pod requests (upstream `resourcehelper.PodRequests`, v1.35), for the filter and for
//! scoring.
//!
//! Requests are added up exactly, in nano-units, and rounded up to milli-CPU or whole units only
//! at the end, as upstream adds `resource.Quantity` values before calling `MilliValue`/`Value`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Node, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::names::is_qualified_name;
use repel_core::quantity::parse_quantity_nanos;

/// `cpu`.
pub const CPU: &str = "cpu";
/// `memory`.
pub const MEMORY: &str = "memory";
/// `ephemeral-storage`.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// `pods`.
pub const PODS: &str = "pods";
/// Upstream `ResourceHugePagesPrefix`.
pub const HUGEPAGES_PREFIX: &str = "hugepages-";
/// Upstream `DefaultMilliCPURequest`: what a container without a CPU request counts for scoring.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Upstream `DefaultMemoryRequest` (200 MiB): what a container without a memory request counts for scoring.
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

const NANOS_PER_MILLI: i128 = 1_000_000;
const NANOS_PER_UNIT: i128 = 1_000_000_000;
const RESTART_POLICY_ALWAYS: &str = "Always";

/// A resource list (upstream `v1.ResourceList`) with each quantity in nano-units.
pub type ResourceList = BTreeMap<String, i128>;

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
    /// Scalar resources (extended such as `nvidia.com/gpu`, hugepages, `*kubernetes.io/*`,
    /// `attachable-volumes-*`) in whole units.
    pub scalar: BTreeMap<String, i64>,
}

impl Resources {
    /// From a `ResourceList` (`requests`, `allocatable`), as upstream's `Resource.Add` on an empty
    /// resource: cpu in milli-units, the rest in units rounded up; names that are not scalar
    /// resources (see [`is_scalar_resource_name`]) are dropped. Unparsable quantities count as
    /// zero (the API server would have refused them).
    pub fn from_list(list: &BTreeMap<String, Quantity>) -> Self {
        let mut r = Resources::default();
        for (name, q) in list {
            r.set(name, nanos(q));
        }
        r
    }

    /// From a list in nano-units (what [`pod_requests_with`] returns), as upstream's
    /// `Resource.SetMaxResource` on an empty resource.
    pub fn from_nanos(list: &ResourceList) -> Self {
        let mut r = Resources::default();
        for (name, n) in list {
            r.set(name, *n);
        }
        r
    }

    fn set(&mut self, name: &str, nanos: i128) {
        match name {
            CPU => self.milli_cpu = to_milli(nanos),
            MEMORY => self.memory = to_units(nanos),
            EPHEMERAL_STORAGE => self.ephemeral_storage = to_units(nanos),
            PODS => self.allowed_pod_number = to_units(nanos),
            other if is_scalar_resource_name(other) => {
                self.scalar.insert(other.to_string(), to_units(nanos));
            }
            _ => {}
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

    /// Whether the pod requests nothing the filter checks (upstream's early return in
    /// `fitsRequest`: zero cpu, memory and ephemeral storage, and no scalar resource at all).
    pub fn is_empty_request(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.scalar.is_empty()
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

fn nanos(q: &Quantity) -> i128 {
    parse_quantity_nanos(&q.0).unwrap_or(0)
}

fn ceil_div(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d > 0 { q + 1 } else { q }
}

fn clamp(n: i128) -> i64 {
    i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX })
}

/// Upstream `Quantity.MilliValue()` of an amount in nano-units: thousandths, rounded up.
pub fn to_milli(nanos: i128) -> i64 {
    clamp(ceil_div(nanos, NANOS_PER_MILLI))
}

/// Upstream `Quantity.Value()` of an amount in nano-units: whole units, rounded up.
pub fn to_units(nanos: i128) -> i64 {
    clamp(ceil_div(nanos, NANOS_PER_UNIT))
}

/// A named amount from a list, as upstream's scorer reads it: `cpu` in milli-units, anything
/// else in whole units, 0 when absent.
pub fn amount(list: &ResourceList, name: &str) -> i64 {
    let n = list.get(name).copied().unwrap_or(0);
    if name == CPU {
        to_milli(n)
    } else {
        to_units(n)
    }
}

/// Upstream `v1helper.IsNativeResource`: no `/`, or a `kubernetes.io/` prefix.
fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || is_prefixed_native_resource(name)
}

/// Upstream `v1helper.IsPrefixedNativeResource`: contains `kubernetes.io/`.
fn is_prefixed_native_resource(name: &str) -> bool {
    name.contains("kubernetes.io/")
}

/// Upstream `v1helper.IsExtendedResourceName` (v1.35):
///
/// 1. Native resources (no `/`, or a `kubernetes.io/` prefix) are not extended.
/// 2. Names starting with `requests.` are not.
/// 3. Otherwise the name is extended when `requests.<name>` is a qualified name.
pub fn is_extended_resource_name(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with("requests.") {
        return false;
    }
    is_qualified_name(&format!("requests.{name}")).is_empty()
}

/// Upstream `schedutil.IsScalarResourceName` (v1.35): an extended resource, a hugepages size
/// (`hugepages-*`), a prefixed native resource (`*kubernetes.io/*`) or an attachable-volumes
/// count (`attachable-volumes-*`).
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || name.starts_with(HUGEPAGES_PREFIX)
        || is_prefixed_native_resource(name)
        || name.starts_with("attachable-volumes-")
}

/// Upstream `resourcehelper.IsSupportedPodLevelResource` (v1.35): `cpu`, `memory` and
/// `hugepages-*`.
pub fn is_supported_pod_level_resource(name: &str) -> bool {
    name == CPU || name == MEMORY || name.starts_with(HUGEPAGES_PREFIX)
}

/// Upstream `resourcehelper.IsPodLevelRequestsSet` (v1.35): `spec.resources.requests` names at
/// least one supported pod-level resource.
pub fn is_pod_level_requests_set(spec: &PodSpec) -> bool {
    pod_level_requests(spec).is_some_and(|r| r.keys().any(|k| is_supported_pod_level_resource(k)))
}

fn pod_level_requests(spec: &PodSpec) -> Option<&BTreeMap<String, Quantity>> {
    spec.resources.as_ref().and_then(|r| r.requests.as_ref())
}

/// Options of [`pod_requests_with`]: the fields of upstream's `PodResourcesOptions` that matter
/// for a pod as the scheduler sees it (no resize status).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodResourcesOptions {
    /// `ExcludeOverhead`: leave `spec.overhead` out.
    pub exclude_overhead: bool,
    /// `SkipPodLevelResources`: ignore `spec.resources` (the PodLevelResources gate off; it is
    /// beta and on by default since v1.34).
    pub skip_pod_level_resources: bool,
    /// `NonMissingContainerRequests`: for each container (init containers included) that does
    /// not list one of these resources, this amount instead. A listed zero stays zero.
    pub non_missing_container_requests: ResourceList,
}

fn add_list(into: &mut ResourceList, from: &ResourceList) {
    for (k, v) in from {
        let e = into.entry(k.clone()).or_insert(0);
        *e = e.saturating_add(*v);
    }
}

fn max_list(into: &mut ResourceList, from: &ResourceList) {
    for (k, v) in from {
        match into.get_mut(k) {
            Some(cur) if *cur >= *v => {}
            Some(cur) => *cur = *v,
            None => {
                into.insert(k.clone(), *v);
            }
        }
    }
}

fn container_requests(c: &Container, non_missing: &ResourceList) -> ResourceList {
    let mut out: ResourceList = c
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .map(|req| req.iter().map(|(k, q)| (k.clone(), nanos(q))).collect())
        .unwrap_or_default();
    for (k, v) in non_missing {
        out.entry(k.clone()).or_insert(*v);
    }
    out
}

/// Upstream `resourcehelper.PodRequests` (k8s.io/component-helpers, v1.35) for a pod's spec:
///
/// 1. Regular containers' requests are summed.
/// 2. Init containers run in order. A restartable one (`restartPolicy: Always`, a sidecar) is
///    added to the sum and keeps running; any other needs its own requests plus those of the
///    sidecars started before it. The pod needs, per resource, the larger of the sum and the
///    largest init-container need.
/// 3. With `non_missing_container_requests`, a container (or init container) that does not
///    list a resource counts that amount for it.
/// 4. Unless `skip_pod_level_resources`, when `spec.resources.requests` names a supported
///    pod-level resource (`cpu`, `memory`, `hugepages-*`), each supported pod-level request
///    replaces the aggregate for that resource.
/// 5. Unless `exclude_overhead`, `spec.overhead` is added.
pub fn pod_requests_with(spec: &PodSpec, opts: &PodResourcesOptions) -> ResourceList {
    let non_missing = &opts.non_missing_container_requests;
    let mut result = ResourceList::new();
    for c in &spec.containers {
        add_list(&mut result, &container_requests(c, non_missing));
    }
    let mut sidecars = ResourceList::new();
    let mut init_need = ResourceList::new();
    for c in spec.init_containers.iter().flatten() {
        let own = container_requests(c, non_missing);
        let need = if c.restart_policy.as_deref() == Some(RESTART_POLICY_ALWAYS) {
            add_list(&mut result, &own);
            add_list(&mut sidecars, &own);
            sidecars.clone()
        } else {
            let mut combined = own;
            add_list(&mut combined, &sidecars);
            combined
        };
        max_list(&mut init_need, &need);
    }
    max_list(&mut result, &init_need);

    if !opts.skip_pod_level_resources && is_pod_level_requests_set(spec) {
        for (k, q) in pod_level_requests(spec).into_iter().flatten() {
            if is_supported_pod_level_resource(k) {
                result.insert(k.clone(), nanos(q));
            }
        }
    }
    if !opts.exclude_overhead
        && let Some(overhead) = spec.overhead.as_ref()
    {
        let overhead: ResourceList = overhead
            .iter()
            .map(|(k, q)| (k.clone(), nanos(q)))
            .collect();
        add_list(&mut result, &overhead);
    }
    result
}

/// The default non-zero amounts (upstream `DefaultMilliCPURequest`, `DefaultMemoryRequest`) as
/// a `NonMissingContainerRequests` list.
pub fn default_non_zero_requests() -> ResourceList {
    ResourceList::from([
        (
            CPU.to_string(),
            i128::from(DEFAULT_MILLI_CPU_REQUEST) * NANOS_PER_MILLI,
        ),
        (
            MEMORY.to_string(),
            i128::from(DEFAULT_MEMORY_REQUEST) * NANOS_PER_UNIT,
        ),
    ])
}

/// What a pod requests, for NodeResourcesFit's filter (upstream `computePodResourceRequest`,
/// v1.35): [`pod_requests_with`] with default options (overhead included, pod-level resources
/// honoured as the PodLevelResources gate is on by default), as a [`Resources`].
pub fn pod_requests(spec: &PodSpec) -> Resources {
    Resources::from_nanos(&pod_requests_with(spec, &PodResourcesOptions::default()))
}

/// What a bound pod adds to its node's `NonZeroRequested` (upstream `calculateResource` in
/// `pkg/scheduler/framework/types.go`, v1.35). Returns `(milli_cpu, memory)`.
///
/// 1. The pod's requests are computed as [`pod_requests`] does.
/// 2. Without pod-level requests, every container (and init container) that does not list
///    `cpu` or `memory` counts [`DEFAULT_MILLI_CPU_REQUEST`] / [`DEFAULT_MEMORY_REQUEST`] for it
///    (upstream `getNonMissingContainerRequests`).
/// 3. With pod-level requests, a default applies only for a resource absent from the whole
///    aggregate of step 1 (no container, pod-level request or overhead names it).
/// 4. If no default applies, the requests of step 1 are used as they are.
pub fn pod_non_zero_requests(spec: &PodSpec) -> (i64, i64) {
    let requests = pod_requests_with(spec, &PodResourcesOptions::default());
    let non_missing = if is_pod_level_requests_set(spec) {
        default_non_zero_requests()
            .into_iter()
            .filter(|(k, _)| !requests.contains_key(k))
            .collect()
    } else {
        default_non_zero_requests()
    };
    let non_zero = if non_missing.is_empty() {
        requests
    } else {
        pod_requests_with(
            spec,
            &PodResourcesOptions {
                non_missing_container_requests: non_missing,
                ..PodResourcesOptions::default()
            },
        )
    };
    (amount(&non_zero, CPU), amount(&non_zero, MEMORY))
}

/// The incoming pod's request for each of `names`, as a score plugin sees it (upstream
/// `resourceAllocationScorer.calculatePodResourceRequestList`, v1.35):
///
/// 1. [`pod_requests_with`] with pod-level resources and overhead.
/// 2. Unless `use_requested` (NodeResourcesFit scores with `false`,
///    NodeResourcesBalancedAllocation with `true`), every container that does not list `cpu` or
///    `memory` counts the defaults for it, whatever the pod-level requests.
/// 3. `cpu` in milli-units, anything else in whole units, 0 when not requested.
pub fn pod_score_requests(spec: &PodSpec, names: &[&str], use_requested: bool) -> Vec<i64> {
    let opts = PodResourcesOptions {
        non_missing_container_requests: if use_requested {
            ResourceList::new()
        } else {
            default_non_zero_requests()
        },
        ..PodResourcesOptions::default()
    };
    let requests = pod_requests_with(spec, &opts);
    names.iter().map(|n| amount(&requests, n)).collect()
}

#[cfg(test)]
mod tests;
