//! The eviction API (`POST pods/<name>/eviction`) as the API server runs it
//! (`pkg/registry/core/pod/storage/eviction.go`, v1.32–v1.35), on a [`Cluster`].

use k8s_openapi::api::core::v1::PodCondition;
use repel_core::labels::label_selector_from_api;
use repel_core::workload::namespace_of;

use crate::cluster::{Cluster, PodId, PodPhase};
use crate::disruption::disruptions_allowed;

/// The eviction API's 429 message when a budget allows no disruption.
pub const PDB_VIOLATION: &str = "Cannot evict pod as it would violate the pod's disruption budget.";
/// The eviction API's 500 message for a pod matched by several budgets.
pub const MULTIPLE_PDBS: &str = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";
/// Condition reason the eviction API sets before deleting (upstream `EvictionByEvictionAPI`).
pub const EVICTION_REASON: &str = "EvictionByEvictionAPI";
/// Condition message the eviction API sets before deleting.
pub const EVICTION_MESSAGE: &str = "Eviction API: evicting";

/// Why the eviction API refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvictionError {
    /// 429 Too Many Requests: the budget allows no disruption now; kubectl retries.
    #[error("{0}")]
    TooManyRequests(String),
    /// Any other refusal (500 for several budgets, 403 for a negative allowance); kubectl
    /// gives up on the pod.
    #[error("{0}")]
    Refused(String),
}

/// The budgets the eviction API applies to a pod (upstream `getPodDisruptionBudgets`): none
/// for a pod without labels; otherwise those of its namespace whose selector is non-empty,
/// valid and matches (an empty selector matches nothing here, as upstream says).
pub(crate) fn matching_budgets(cluster: &Cluster, pod: PodId) -> Vec<usize> {
    let Some(p) = cluster.pods.get(pod).filter(|p| !p.labels().is_empty()) else {
        return Vec::new();
    };
    cluster
        .pdbs
        .iter()
        .enumerate()
        .filter(|(_, pdb)| namespace_of(&pdb.metadata) == p.namespace)
        .filter(|(_, pdb)| {
            pdb.spec
                .as_ref()
                .and_then(|s| s.selector.as_ref())
                .and_then(|s| label_selector_from_api(s).ok())
                .is_some_and(|s| !s.is_empty() && s.matches(p.labels()))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Steps 1–3 of [`evict_pod`]: whether the budgets let pod `pod` be evicted, using up one
/// disruption when they do; the pod itself is left as it is (a drain what-if decides what
/// becomes of it).
pub fn admit_eviction(cluster: &mut Cluster, pod: PodId) -> Result<(), EvictionError> {
    let Some(p) = cluster.pods.get(pod) else {
        return Ok(());
    };
    let ignore_pdb = matches!(
        p.phase,
        PodPhase::Succeeded | PodPhase::Failed | PodPhase::Pending
    );
    if !ignore_pdb {
        match matching_budgets(cluster, pod).as_slice() {
            [] => {}
            [one] => check_and_decrement(cluster, *one)?,
            _ => return Err(EvictionError::Refused(MULTIPLE_PDBS.to_string())),
        }
    }
    Ok(())
}

/// Upstream `checkAndDecrement`: a budget with `status.disruptionsAllowed` is read and
/// decremented in place (as the API server writes it); one without is computed fresh by
/// [`crate::disruption::disruptions_allowed`], as the disruption controller keeps it current
/// (the pods already evicted are gone, so the allowance shrinks by itself).
///
/// 1. `status.observedGeneration < metadata.generation`: 429 (the status is stale).
/// 2. A negative allowance: 403 `poddisruptionbudget.policy "x" is forbidden: pdb disruptions
///    allowed is negative`.
/// 3. Zero: 429 [`PDB_VIOLATION`].
/// 4. Otherwise one disruption is used up.
fn check_and_decrement(cluster: &mut Cluster, index: usize) -> Result<(), EvictionError> {
    let Some(pdb) = cluster.pdbs.get(index) else {
        return Ok(());
    };
    let name = pdb.metadata.name.clone().unwrap_or_default();
    let status = pdb.status.as_ref();
    let Some(allowed) = status.and_then(|s| s.disruptions_allowed) else {
        return match disruptions_allowed(pdb, cluster) {
            ..=0 => Err(EvictionError::TooManyRequests(PDB_VIOLATION.to_string())),
            _ => Ok(()),
        };
    };
    let observed = status.and_then(|s| s.observed_generation).unwrap_or(0);
    if observed < pdb.metadata.generation.unwrap_or(0) {
        return Err(EvictionError::TooManyRequests(PDB_VIOLATION.to_string()));
    }
    if allowed < 0 {
        return Err(EvictionError::Refused(format!(
            "poddisruptionbudget.policy {name:?} is forbidden: pdb disruptions allowed is negative"
        )));
    }
    if allowed == 0 {
        return Err(EvictionError::TooManyRequests(PDB_VIOLATION.to_string()));
    }
    if let Some(s) = cluster.pdbs.get_mut(index).and_then(|p| p.status.as_mut()) {
        s.disruptions_allowed = Some(allowed - 1);
    }
    Ok(())
}

/// Upstream `EvictionREST.Create` (v1.32–v1.35) for a live pod:
///
/// 1. A pod that has finished or is still Pending is deleted without consulting budgets
///    (`canIgnorePDB`).
/// 2. A pod matched by more than one budget is refused (500, [`MULTIPLE_PDBS`]).
/// 3. With one budget, [`check_and_decrement`] must allow it.
/// 4. The pod gets the `DisruptionTarget` condition (reason [`EVICTION_REASON`]) and is deleted.
pub fn evict_pod(cluster: &mut Cluster, pod: PodId) -> Result<(), EvictionError> {
    if cluster.pods.get(pod).is_none() {
        return Ok(());
    }
    admit_eviction(cluster, pod)?;
    if let Some(p) = cluster.pods.get_mut(pod) {
        let status = p.status_mut();
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        conditions.retain(|c| c.type_ != "DisruptionTarget");
        conditions.push(PodCondition {
            type_: "DisruptionTarget".to_string(),
            status: "True".to_string(),
            reason: Some(EVICTION_REASON.to_string()),
            message: Some(EVICTION_MESSAGE.to_string()),
            ..Default::default()
        });
        cluster.touch_pod(pod);
    }
    cluster.delete_pod(pod);
    Ok(())
}
