//! PodDisruptionBudget status, as the disruption controller would compute it (upstream
//! `pkg/controller/disruption`, v1.35), for budgets written without a `status`: hand-written
//! manifests never have one, and in a cluster the controller fills it in.

use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use repel_core::labels::label_selector_from_api;
use repel_core::workload::namespace_of;

use crate::cluster::Cluster;

/// Upstream `GetScaledValueFromIntOrPercent(v, total, roundUp = true)`.
fn scaled(v: &IntOrString, total: i64) -> Option<i64> {
    match v {
        IntOrString::Int(i) => Some(i64::from(*i)),
        IntOrString::String(s) => {
            let pct: i64 = s.strip_suffix('%')?.parse().ok()?;
            Some((pct * total + 99) / 100)
        }
    }
}

/// A budget's selector; `None` when it has none or an empty one (it selects nothing), as
/// upstream's disruption controller and eviction read `spec.selector`.
pub fn selector_of(pdb: &PodDisruptionBudget) -> Option<repel_core::labels::LabelSelector> {
    pdb.spec
        .as_ref()
        .and_then(|s| s.selector.as_ref())
        .and_then(|s| label_selector_from_api(s).ok())
        .filter(|s| !s.is_empty())
}

/// The healthy pods a budget wants of `expected`: `minAvailable` (count, or percent of
/// `expected` rounded up), or `expected` minus `maxUnavailable`; 0 with neither.
pub fn desired_healthy(pdb: &PodDisruptionBudget, expected: i64) -> i64 {
    let spec = pdb.spec.as_ref();
    match (
        spec.and_then(|s| s.min_available.as_ref()),
        spec.and_then(|s| s.max_unavailable.as_ref()),
    ) {
        (Some(min), _) => scaled(min, expected).unwrap_or(expected),
        (None, Some(max)) => expected - scaled(max, expected).unwrap_or(0),
        (None, None) => 0,
    }
}

/// `status.disruptionsAllowed` when the budget has a status; otherwise computed as upstream's
/// disruption controller does:
///
/// 1. The budget's pods: live pods of its namespace its selector matches; healthy = those bound
///    to a node (repel's stand-in for Ready), expected = all of them (repel has no scale
///    subresource to read a controller's replicas from).
/// 2. `minAvailable` (count, or percent of expected rounded up) is the desired healthy count;
///    `maxUnavailable` gives expected minus it (rounded up); with neither, every pod may go.
/// 3. Allowed = healthy − desired, at least 0.
pub fn disruptions_allowed(pdb: &PodDisruptionBudget, cluster: &Cluster) -> i32 {
    if let Some(allowed) = pdb.status.as_ref().and_then(|s| s.disruptions_allowed) {
        return allowed;
    }
    let ns = namespace_of(&pdb.metadata);
    let Some(selector) = selector_of(pdb) else {
        return 0;
    };
    let pods: Vec<_> = cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && p.namespace == ns && selector.matches(p.labels()))
        .collect();
    let expected = pods.len() as i64;
    let healthy = pods.iter().filter(|p| p.node.is_some()).count() as i64;
    let desired = desired_healthy(pdb, expected);
    i32::try_from((healthy - desired).max(0)).unwrap_or(i32::MAX)
}

/// A budget's status as the disruption controller writes it (`status` of a
/// PodDisruptionBudget): its pods are the live, not terminating pods of its namespace its
/// selector matches; healthy ones are bound and Running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetStatus {
    /// `disruptionsAllowed`: healthy − desired, at least 0.
    pub allowed: i64,
    /// `currentHealthy`.
    pub healthy: i64,
    /// `desiredHealthy`: `minAvailable` (count, or percent of expected rounded up), or expected
    /// minus `maxUnavailable`; 0 with neither.
    pub desired: i64,
    /// `expectedPods`.
    pub expected: i64,
}

/// The status of `pdb` on `cluster`; `None` when it selects nothing (no or an empty selector).
pub fn budget_status(pdb: &PodDisruptionBudget, cluster: &Cluster) -> Option<BudgetStatus> {
    let ns = namespace_of(&pdb.metadata);
    let selector = selector_of(pdb)?;
    let pods: Vec<_> = cluster
        .pods
        .iter()
        .filter(|p| {
            !p.deleted && !p.terminating && p.namespace == ns && selector.matches(p.labels())
        })
        .collect();
    let expected = pods.len() as i64;
    let healthy = pods
        .iter()
        .filter(|p| p.node.is_some() && p.phase == crate::cluster::PodPhase::Running)
        .count() as i64;
    let desired = desired_healthy(pdb, expected);
    Some(BudgetStatus {
        allowed: (healthy - desired).max(0),
        healthy,
        desired,
        expected,
    })
}

/// The disruption controller's writes: every budget's status, as `ObjectWrite::Status` (a
/// driver writes those that changed).
pub fn status_writes(cluster: &Cluster) -> Vec<crate::actions::ObjectWrite> {
    cluster
        .pdbs
        .iter()
        .filter_map(|pdb| {
            let b = budget_status(pdb, cluster)?;
            Some(crate::actions::ObjectWrite::Status {
                resource: "poddisruptionbudgets",
                namespace: namespace_of(&pdb.metadata).to_string(),
                name: pdb.metadata.name.clone().unwrap_or_default(),
                status: serde_json::json!({
                    "disruptionsAllowed": b.allowed,
                    "currentHealthy": b.healthy,
                    "desiredHealthy": b.desired,
                    "expectedPods": b.expected,
                    "observedGeneration": pdb.metadata.generation.unwrap_or(1),
                }),
            })
        })
        .collect()
}
