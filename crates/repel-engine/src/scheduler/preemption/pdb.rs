//! Upstream `filterPodsWithPDBViolation` (v1.35): which victims' removal violates a
//! PodDisruptionBudget.

use std::collections::BTreeSet;

use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_core::labels::{LabelSelector, label_selector_from_api};
use repel_core::workload::namespace_of;

use crate::cluster::{Cluster, PodId};

/// A PodDisruptionBudget as preemption reads it.
pub(super) struct Budget {
    namespace: String,
    /// `None` when the selector is missing, empty or invalid: it matches nothing.
    selector: Option<LabelSelector>,
    disruptions_allowed: i32,
    disrupted: BTreeSet<String>,
}

impl Budget {
    pub(super) fn all(pdbs: &[PodDisruptionBudget], cluster: &Cluster) -> Vec<Budget> {
        pdbs.iter()
            .map(|pdb| {
                let selector = pdb
                    .spec
                    .as_ref()
                    .and_then(|s| s.selector.as_ref())
                    .and_then(|s| label_selector_from_api(s).ok())
                    .filter(|s| !s.is_empty());
                let status = pdb.status.as_ref();
                Budget {
                    namespace: namespace_of(&pdb.metadata).to_string(),
                    selector,
                    disruptions_allowed: crate::disruption::disruptions_allowed(pdb, cluster),
                    disrupted: status
                        .and_then(|s| s.disrupted_pods.as_ref())
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default(),
                }
            })
            .collect()
    }
}

/// Upstream `filterPodsWithPDBViolation` (v1.35): splits `pods` (order kept) into those whose
/// removal would violate a PodDisruptionBudget and the others.
///
/// 1. Each budget starts from its `status.disruptionsAllowed` (computed as the disruption
///    controller would when the budget has no status: [`crate::disruption::disruptions_allowed`]).
/// 2. A pod without labels matches no budget.
/// 3. A budget applies to a pod in its namespace whose labels its selector matches; a missing,
///    empty or invalid selector matches nothing.
/// 4. A pod listed in the budget's `status.disruptedPods` does not count against it.
/// 5. Otherwise the budget's allowance drops by one; below zero, the pod violates it.
pub fn filter_pods_with_pdb_violation(
    cluster: &Cluster,
    pods: &[PodId],
    pdbs: &[PodDisruptionBudget],
) -> (Vec<PodId>, Vec<PodId>) {
    split_by_pdb(cluster, pods, &Budget::all(pdbs, cluster))
}

pub(super) fn split_by_pdb(
    cluster: &Cluster,
    pods: &[PodId],
    budgets: &[Budget],
) -> (Vec<PodId>, Vec<PodId>) {
    let mut allowed: Vec<i32> = budgets.iter().map(|b| b.disruptions_allowed).collect();
    let mut violating = Vec::new();
    let mut non_violating = Vec::new();
    for id in pods {
        let mut violated = false;
        if let Some(p) = cluster.pods.get(*id).filter(|p| !p.labels().is_empty()) {
            for (i, b) in budgets.iter().enumerate() {
                let matches = b.namespace == p.namespace
                    && b.selector.as_ref().is_some_and(|s| s.matches(p.labels()));
                if !matches || b.disrupted.contains(&p.name) {
                    continue;
                }
                allowed[i] -= 1;
                if allowed[i] < 0 {
                    violated = true;
                }
            }
        }
        if violated {
            violating.push(*id);
        } else {
            non_violating.push(*id);
        }
    }
    (violating, non_violating)
}
