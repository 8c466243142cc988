//! The `pods/eviction` subresource (policy/v1 Eviction) with PodDisruptionBudgets.
//!
//! The server runs no separate disruption controller: a budget's allowance is computed live
//! from the stored pods at each eviction, by the rules of upstream's disruption controller
//! (`pkg/controller/disruption`): healthy = the budget's pods that are bound and Running,
//! expected = all its live pods; `minAvailable` / `maxUnavailable` (count or percent, rounded
//! up) give the desired healthy count; allowed = healthy − desired. When a budget allows no
//! disruption the eviction is refused with upstream's 429.

use std::collections::BTreeMap;

use axum::body::Bytes;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_api::status;
use repel_engine::disruption::selector_of;
use serde_json::Value;

use crate::App;
use crate::api::delete;
use crate::registry;
use crate::request::ApiError;

fn labels(obj: &Value) -> BTreeMap<String, String> {
    obj["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The disruption controller's numbers for a budget (`status` of a PodDisruptionBudget).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// `disruptionsAllowed`.
    pub allowed: i64,
    /// `desiredHealthy`.
    pub desired: i64,
    /// `currentHealthy`: covered pods bound, Running and not being deleted.
    pub healthy: i64,
    /// `expectedPods`: covered pods not being deleted.
    pub expected: i64,
}

/// A budget over its namespace's `pods`; `None` when it selects nothing (no or an empty
/// selector).
pub fn budget(pdb: &PodDisruptionBudget, pods: &[Value]) -> Option<Budget> {
    let selector = selector_of(pdb)?;
    let covered: Vec<&Value> = pods
        .iter()
        .filter(|p| !crate::kubelet::terminating(p) && selector.matches(&labels(p)))
        .collect();
    let expected = covered.len() as i64;
    let healthy = covered
        .iter()
        .filter(|p| {
            p["spec"]["nodeName"]
                .as_str()
                .is_some_and(|n| !n.is_empty())
                && p["status"]["phase"] == "Running"
        })
        .count() as i64;
    let desired = repel_engine::disruption::desired_healthy(pdb, expected);
    Some(Budget {
        allowed: (healthy - desired).max(0),
        desired,
        healthy,
        expected,
    })
}

/// A budget's state for a pod: `None` when it does not cover the pod.
pub fn allowance(pdb: &PodDisruptionBudget, pod: &Value, pods: &[Value]) -> Option<Budget> {
    let selector = selector_of(pdb)?;
    if !selector.matches(&labels(pod)) {
        return None;
    }
    budget(pdb, pods)
}

/// Evicts `ns/name`: refused with 429 when a budget covering it allows no disruption,
/// otherwise the pod is deleted.
/// With `dry_run` every check runs and nothing is deleted (`?dryRun=All`).
pub fn evict(app: &App, ns: &str, name: &str, body: &Bytes, dry_run: bool) -> Result<(), ApiError> {
    if !body.is_empty() {
        let eviction: Value = serde_json::from_slice(body).map_err(|e| {
            ApiError::from(status::bad_request(&format!(
                "error decoding request body: {e}"
            )))
        })?;
        if eviction["metadata"]["name"]
            .as_str()
            .is_some_and(|n| !n.is_empty() && n != name)
        {
            return Err(
                status::bad_request("name in URL does not match name in Eviction object").into(),
            );
        }
    }
    let _guard = match app.evictions.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    let pods = registry::find("", "pods")
        .ok_or_else(|| ApiError::from(status::internal_error("no pods")))?;
    let pod = app
        .store
        .get("pods", ns, name)
        .ok_or_else(|| ApiError::from(status::not_found("pods", name)))?;
    // A pod that is not running (pending, or finished) can always be evicted, as upstream.
    let running = pod["status"]["phase"] == "Running";
    if running {
        let (pdbs, _) = app.store.list("poddisruptionbudgets", Some(ns));
        let (ns_pods, _) = app.store.list("pods", Some(ns));
        for v in pdbs {
            let Ok(pdb) = serde_json::from_value::<PodDisruptionBudget>(v) else {
                continue;
            };
            if let Some(b) = allowance(&pdb, &pod, &ns_pods)
                && b.allowed <= 0
            {
                let pdb_name = pdb.metadata.name.as_deref().unwrap_or("");
                let n = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
                return Err(
                    status::too_many_requests_pdb(pdb_name, n(b.desired), n(b.healthy)).into(),
                );
            }
        }
    }
    let grace = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|b| b["deleteOptions"]["gracePeriodSeconds"].as_i64());
    if dry_run {
        return Ok(());
    }
    let opts = crate::query::DeleteOptions {
        grace_period_seconds: grace,
        ..Default::default()
    };
    delete(app, &pods, ns, name, &opts)?;
    Ok(())
}
