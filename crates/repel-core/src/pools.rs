//! Node pools (issue 16, first part): Karpenter `NodePool`s (`karpenter.sh/v1`; `v1beta1`
//! read alike), as their node template: the taints every node it launches carries, its startup
//! taints, its labels — and which pods tolerate it as Karpenter decides (every taint hard,
//! whatever its effect, PreferNoSchedule included; `Gt`/`Lt` always on; startup taints
//! ignored: `../shared/reference/drain-and-pools.md` §2b, §2d).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde_json::Value;

use crate::FeatureGates;

/// The label Karpenter puts on a node it launched for a NodePool.
pub const NODEPOOL_LABEL: &str = "karpenter.sh/nodepool";

/// A pool's node template.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// The pool's name.
    pub name: String,
    /// Its provider (`karpenter`).
    pub provider: &'static str,
    /// The API version it was written in.
    pub api_version: String,
    /// `spec.weight` (Karpenter tries heavier pools first).
    pub weight: Option<i64>,
    /// `spec.template.spec.taints`.
    pub taints: Vec<Taint>,
    /// `spec.template.spec.startupTaints`.
    pub startup_taints: Vec<Taint>,
    /// `spec.template.metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// `spec.disruption.consolidationPolicy` (`WhenEmpty`, `WhenEmptyOrUnderutilized`).
    pub consolidation_policy: Option<String>,
    /// `spec.disruption.consolidateAfter` (`None`: consolidation disabled).
    pub consolidate_after: Option<String>,
}

fn taints(v: &Value, field: &str) -> Result<Vec<Taint>, String> {
    match v {
        Value::Null => Ok(Vec::new()),
        other => serde_json::from_value(other.clone()).map_err(|e| format!("{field}: {e}")),
    }
}

/// A Karpenter NodePool, read from its JSON (`Err`: the field and what is wrong).
pub fn karpenter_pool(v: &Value) -> Result<Pool, String> {
    let name = v["metadata"]["name"]
        .as_str()
        .ok_or("metadata.name: Required value")?
        .to_string();
    let spec = &v["spec"]["template"]["spec"];
    let labels: BTreeMap<String, String> = match &v["spec"]["template"]["metadata"]["labels"] {
        Value::Null => BTreeMap::new(),
        other => serde_json::from_value(other.clone())
            .map_err(|e| format!("spec.template.metadata.labels: {e}"))?,
    };
    Ok(Pool {
        name,
        provider: "karpenter",
        api_version: v["apiVersion"].as_str().unwrap_or_default().to_string(),
        weight: v["spec"]["weight"].as_i64(),
        taints: taints(&spec["taints"], "spec.template.spec.taints")?,
        startup_taints: taints(&spec["startupTaints"], "spec.template.spec.startupTaints")?,
        labels,
        consolidation_policy: v["spec"]["disruption"]["consolidationPolicy"]
            .as_str()
            .map(str::to_string),
        consolidate_after: v["spec"]["disruption"]["consolidateAfter"]
            .as_str()
            .map(str::to_string),
    })
}

/// Karpenter's runtime validation of a pool's taints (`validateTaintsField`): a key, and a
/// value when given, must be qualified names (`invalid value: KEY in taints`), the effect one
/// of the three (`invalid value: "X" in startupTaints`), and a key/effect pair appear once
/// across taints and startup taints together (`duplicate taint Key/Effect pair k=NoSchedule`).
pub fn validate_taints(pool: &Pool) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for (field, list) in [
        ("taints", &pool.taints),
        ("startupTaints", &pool.startup_taints),
    ] {
        for t in list.iter() {
            if !crate::names::is_qualified_name(&t.key).is_empty() {
                out.push(format!("invalid value: {} in {field}", t.key));
            }
            if let Some(v) = t.value.as_deref().filter(|v| !v.is_empty())
                && !crate::names::is_qualified_name(v).is_empty()
            {
                out.push(format!("invalid value: {v} in {field}"));
            }
            if !matches!(
                t.effect.as_str(),
                "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute"
            ) {
                out.push(format!("invalid value: {:?} in {field}", t.effect));
            }
            let pair = (t.key.clone(), t.effect.clone());
            if seen.contains(&pair) {
                out.push(format!(
                    "duplicate taint Key/Effect pair {}={}",
                    t.key, t.effect
                ));
            }
            seen.push(pair);
        }
    }
    out
}

/// The first of the pool's taints `tolerations` do not tolerate, as Karpenter's scheduler
/// decides (every effect hard; `Gt`/`Lt` on; startup taints not checked); `None` when it
/// tolerates them all.
pub fn untolerated<'a>(pool: &'a Pool, tolerations: &[Toleration]) -> Option<&'a Taint> {
    // Karpenter's ToleratesTaint(…, true): the comparison operators always on.
    let gates = FeatureGates {
        taint_toleration_comparison_operators: true,
    };
    pool.taints.iter().find(|t| {
        !tolerations
            .iter()
            .any(|tol| crate::toleration::tolerates(tol, t, &gates))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pool(taints: Value, startup: Value) -> Pool {
        karpenter_pool(&json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
            "metadata": {"name": "gpu"},
            "spec": {"template": {"metadata": {"labels": {"team": "ml"}},
                                  "spec": {"taints": taints, "startupTaints": startup}}}}))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn reads_the_template_and_validates_as_karpenter() {
        let p = pool(
            json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            json!([{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}]),
        );
        assert_eq!(p.name, "gpu");
        assert_eq!(p.labels["team"], "ml");
        assert_eq!(p.taints.len(), 1);
        assert_eq!(p.startup_taints.len(), 1);
        assert!(validate_taints(&p).is_empty());
        let bad = pool(
            json!([{"key": "-bad", "effect": "NoSchedule"},
                   {"key": "a", "value": "example.com/ok", "effect": "Sometimes"},
                   {"key": "dup", "effect": "NoSchedule"}]),
            json!([{"key": "dup", "effect": "NoSchedule"}]),
        );
        assert_eq!(
            validate_taints(&bad),
            [
                "invalid value: -bad in taints",
                "invalid value: \"Sometimes\" in taints",
                "duplicate taint Key/Effect pair dup=NoSchedule",
            ]
        );
    }

    #[test]
    fn every_taint_is_hard_and_startup_taints_are_ignored() {
        let p = pool(
            json!([{"key": "soft", "effect": "PreferNoSchedule"}]),
            json!([{"key": "startup", "effect": "NoSchedule"}]),
        );
        assert_eq!(untolerated(&p, &[]).map(|t| t.key.as_str()), Some("soft"));
        let tol: Toleration = serde_json::from_value(json!({"key": "soft", "operator": "Exists"}))
            .unwrap_or_default();
        assert_eq!(untolerated(&p, &[tol]), None);
    }
}
