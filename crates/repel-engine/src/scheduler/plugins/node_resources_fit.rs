//! NodeResourcesFit (upstream `pkg/scheduler/framework/plugins/noderesources/fit.go`, v1.35):
//! PreFilter computes the pod's requests; Filter checks them and the pod count against the
//! node's allocatable ("Insufficient cpu", "Too many pods", one reason per resource); Score is
//! the default LeastAllocated strategy over cpu and memory, weight 1 each, with non-zero
//! requests. The resource-allocation scorer shared with NodeResourcesBalancedAllocation
//! (upstream `resource_allocation.go`) lives here too.

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::resources::{
    CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resources, is_scalar_resource_name, pod_score_requests,
};
use crate::scheduler::framework::{
    Code, CycleState, MAX_NODE_SCORE, Plugin, PreFilterResult, Status,
};

/// The plugin's name.
pub const NAME: &str = "NodeResourcesFit";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 1;
/// Upstream's reason when the node has no room for one more pod.
pub const ERR_REASON_TOO_MANY_PODS: &str = "Too many pods";
/// Upstream's reason prefix for a resource the node lacks: `Insufficient <resource>`.
pub const ERR_REASON_INSUFFICIENT_PREFIX: &str = "Insufficient ";
/// Upstream's Score error when the strategy names no resources.
pub const ERR_RESOURCES_NOT_FOUND: &str = "resources not found";

/// `Insufficient <resource>` (upstream `fmt.Sprintf("Insufficient %v", rName)`).
pub fn insufficient_reason(resource: &str) -> String {
    format!("{ERR_REASON_INSUFFICIENT_PREFIX}{resource}")
}

/// A resource a scoring strategy looks at, with its weight (upstream `config.ResourceSpec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSpec {
    /// The resource name (`cpu`, `memory`, an extended resource, …).
    pub name: String,
    /// Its weight (1..=100).
    pub weight: i64,
}

/// Upstream's default scoring resources for NodeResourcesFit and
/// NodeResourcesBalancedAllocation: `cpu` and `memory`, weight 1 each.
pub fn default_resources() -> Vec<ResourceSpec> {
    [CPU, MEMORY]
        .into_iter()
        .map(|name| ResourceSpec {
            name: name.to_string(),
            weight: 1,
        })
        .collect()
}

/// What kind of resource is short on a node, and by how much (upstream `InsufficientResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsufficientResource {
    /// The resource name (`pods`, `cpu`, `memory`, `ephemeral-storage`, or a scalar resource).
    pub resource_name: String,
    /// Upstream's reason string.
    pub reason: String,
    /// What the pod requests (1 for `pods`).
    pub requested: i64,
    /// What the node's pods already request (the pod count for `pods`).
    pub used: i64,
    /// The node's allocatable amount.
    pub capacity: i64,
    /// Whether the request exceeds the whole allocatable amount, so that no preemption could
    /// make room.
    pub unresolvable: bool,
}

/// Upstream `fitsRequest` (v1.35, no ignored resources, no DRA-backed extended resources):
///
/// 1. `Too many pods` when the node's pod count + 1 exceeds allocatable `pods` (never
///    unresolvable).
/// 2. A pod requesting zero cpu, memory and ephemeral storage and no scalar resource stops here.
/// 3. `Insufficient cpu`, then `Insufficient memory`, then `Insufficient ephemeral-storage`, each
///    when the request is positive and exceeds allocatable minus what the node's pods request;
///    unresolvable when it exceeds allocatable alone.
/// 4. Then each positive scalar request (a resource the node lacks has allocatable 0), the same
///    way, as `Insufficient <name>`. Upstream walks a Go map here, in no fixed order; repel
///    goes by name.
pub fn fits_request(pod_request: &Resources, node: &NodeInfo) -> Vec<InsufficientResource> {
    let mut out = Vec::new();
    let allowed = node.allocatable.allowed_pod_number;
    let count = node.pods.len() as i64;
    if count + 1 > allowed {
        out.push(InsufficientResource {
            resource_name: PODS.to_string(),
            reason: ERR_REASON_TOO_MANY_PODS.to_string(),
            requested: 1,
            used: count,
            capacity: allowed,
            unresolvable: false,
        });
    }
    if pod_request.is_empty_request() {
        return out;
    }
    // The reason is only formatted for a resource that is short (this runs for every node).
    let mut check = |name: &str, want: i64| {
        let alloc = node.allocatable.get(name);
        let used = node.requested.get(name);
        if want > 0 && i128::from(want) > i128::from(alloc) - i128::from(used) {
            out.push(InsufficientResource {
                resource_name: name.to_string(),
                reason: insufficient_reason(name),
                requested: want,
                used,
                capacity: alloc,
                unresolvable: want > alloc,
            });
        }
    };
    check(CPU, pod_request.milli_cpu);
    check(MEMORY, pod_request.memory);
    check(EPHEMERAL_STORAGE, pod_request.ephemeral_storage);
    for (name, want) in &pod_request.scalar {
        check(name, *want);
    }
    out
}

/// Upstream `resourceAllocationScorer.calculateResourceAllocatableRequest` (v1.35): the node's
/// allocatable amount of `name` and what it would have requested with the pod.
///
/// 1. A scalar resource the pod does not request gives `(0, 0)`: it is left out of the score.
/// 2. `cpu` and `memory` count the node's non-zero requests, or its actual requests with
///    `use_requested` (NodeResourcesBalancedAllocation).
/// 3. `ephemeral-storage` always counts actual requests.
/// 4. A scalar resource counts when the node lists it in allocatable; otherwise `(0, 0)`.
pub fn allocatable_and_requested(
    node: &NodeInfo,
    name: &str,
    pod_request: i64,
    use_requested: bool,
) -> (i64, i64) {
    if pod_request == 0 && is_scalar_resource_name(name) {
        return (0, 0);
    }
    let alloc = &node.allocatable;
    let req = &node.requested;
    match name {
        CPU => {
            let used = if use_requested {
                req.milli_cpu
            } else {
                node.non_zero_requested.0
            };
            (alloc.milli_cpu, used.saturating_add(pod_request))
        }
        MEMORY => {
            let used = if use_requested {
                req.memory
            } else {
                node.non_zero_requested.1
            };
            (alloc.memory, used.saturating_add(pod_request))
        }
        EPHEMERAL_STORAGE => (
            alloc.ephemeral_storage,
            req.ephemeral_storage.saturating_add(pod_request),
        ),
        other => match alloc.scalar.get(other) {
            Some(a) => (*a, req.get(other).saturating_add(pod_request)),
            None => (0, 0),
        },
    }
}

/// Upstream `resourceAllocationScorer.score` (v1.35): for each resource of the strategy, the
/// node's allocatable and requested amounts ([`allocatable_and_requested`]); a resource with
/// allocatable 0 stays `(0, 0)`; `scorer(requested, allocatable)` gives the score. An empty
/// resource list is an error, `resources not found`.
pub fn resource_allocation_score(
    plugin: &'static str,
    node: &NodeInfo,
    resources: &[ResourceSpec],
    pod_requests: &[i64],
    use_requested: bool,
    scorer: impl Fn(&[i64], &[i64]) -> i64,
) -> Result<i64, Status> {
    if resources.is_empty() {
        return Err(Status::error(plugin, ERR_RESOURCES_NOT_FOUND.to_string()));
    }
    let mut requested = vec![0i64; resources.len()];
    let mut allocatable = vec![0i64; resources.len()];
    for (i, r) in resources.iter().enumerate() {
        let pod_request = pod_requests.get(i).copied().unwrap_or(0);
        let (alloc, req) = allocatable_and_requested(node, &r.name, pod_request, use_requested);
        if alloc == 0 {
            continue;
        }
        allocatable[i] = alloc;
        requested[i] = req;
    }
    Ok(scorer(&requested, &allocatable))
}

/// Upstream `leastRequestedScore`: `(capacity - requested) * MaxNodeScore / capacity` in integer
/// division; 0 when the capacity is 0 or the request exceeds it.
pub fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    let score = (i128::from(capacity) - i128::from(requested)) * i128::from(MAX_NODE_SCORE)
        / i128::from(capacity);
    i64::try_from(score).unwrap_or(0)
}

/// Upstream `leastResourceScorer` (v1.35): the weighted mean, in integer division, of
/// [`least_requested_score`] over the resources with a non-zero allocatable; 0 when there are
/// none.
pub fn least_resource_score(
    resources: &[ResourceSpec],
    requested: &[i64],
    allocatable: &[i64],
) -> i64 {
    let mut node_score = 0i64;
    let mut weight_sum = 0i64;
    for ((r, &req), &alloc) in resources.iter().zip(requested).zip(allocatable) {
        if alloc == 0 {
            continue;
        }
        node_score += least_requested_score(req, alloc) * r.weight;
        weight_sum += r.weight;
    }
    if weight_sum == 0 {
        0
    } else {
        node_score / weight_sum
    }
}

/// The NodeResourcesFit plugin with the LeastAllocated scoring strategy.
#[derive(Debug, Clone)]
pub struct NodeResourcesFit {
    /// The scoring strategy's resources (upstream's default: cpu and memory, weight 1).
    pub resources: Vec<ResourceSpec>,
}

impl Default for NodeResourcesFit {
    fn default() -> Self {
        NodeResourcesFit {
            resources: default_resources(),
        }
    }
}

/// PreFilter state: the pod's requests (upstream `preFilterState`).
#[derive(Debug, Clone)]
struct PreFilterState(Resources);

/// PreScore state: the pod's non-zero request per scoring resource (upstream `preScoreState`).
#[derive(Debug, Clone)]
struct PreScoreState(Vec<i64>);

impl NodeResourcesFit {
    fn pod_requests(&self, pod: &PodInfo) -> Vec<i64> {
        let names: Vec<&str> = self.resources.iter().map(|r| r.name.as_str()).collect();
        pod_score_requests(pod.spec(), &names, false)
    }
}

impl Plugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Upstream `Fit.PreFilter`: stores the pod's requests. (The SidecarContainers gate is GA,
    /// so restartable init containers are never refused here.)
    fn pre_filter(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &Cluster,
    ) -> (Status, PreFilterResult) {
        state.write(NAME, PreFilterState(pod.requests.clone()));
        (Status::success(), None)
    }

    /// Upstream `Fit.Filter`: every [`fits_request`] reason, with code
    /// UnschedulableAndUnresolvable when any of them is unresolvable, else Unschedulable.
    fn filter(&self, state: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        let request = state
            .read::<PreFilterState>(NAME)
            .map_or(&pod.requests, |s| &s.0);
        let insufficient = fits_request(request, node);
        if insufficient.is_empty() {
            return Status::success();
        }
        let code = if insufficient.iter().any(|r| r.unresolvable) {
            Code::UnschedulableAndUnresolvable
        } else {
            Code::Unschedulable
        };
        Status {
            code,
            reasons: insufficient.into_iter().map(|r| r.reason).collect(),
            plugin: NAME,
        }
    }

    /// Upstream `Fit.PreScore`: stores the pod's non-zero requests for the scoring resources.
    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &[&NodeInfo],
        _: &Cluster,
    ) -> Status {
        state.write(NAME, PreScoreState(self.pod_requests(pod)));
        Status::success()
    }

    /// Upstream `Fit.Score` with LeastAllocated (no NormalizeScore).
    fn score(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        _: &Cluster,
    ) -> Result<i64, Status> {
        let requests = match state.read::<PreScoreState>(NAME) {
            Some(s) => s.0.clone(),
            None => self.pod_requests(pod),
        };
        resource_allocation_score(
            NAME,
            node,
            &self.resources,
            &requests,
            false,
            |req, alloc| least_resource_score(&self.resources, req, alloc),
        )
    }
}

#[cfg(test)]
mod tests;
