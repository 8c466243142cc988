//! Near misses: a toleration that was evidently written for a taint but does not match it.
//!
//! Upstream's matcher ([`crate::toleration::tolerates`]) answers yes or no; a user staring at
//! "NOT tolerated" wants to know that `value: "True"` differs from the taint's `true` only by
//! case. Each rule here is a way a toleration written for a taint fails to match it, judged by
//! upstream's own matching rules (`Toleration.ToleratesTaint`, v1.35):
//!
//! 1. The same key and effect, `Equal`, and a value that differs from the taint's only by case
//!    (values are compared byte for byte).
//! 2. `Equal` with an empty value against a taint with a value (an empty value matches only an
//!    empty one; `Exists` matches any).
//! 3. `Equal` with a value against a taint without one (kubeadm's control-plane taint has none).
//! 4. The same key (and value) with another effect (an effect matches only itself; an empty
//!    effect matches all).
//! 5. A key that differs from the taint's only by case (keys are compared byte for byte).
//! 6. The legacy `node-role.kubernetes.io/master` key on a node tainted
//!    `node-role.kubernetes.io/control-plane` (kubeadm stopped setting the first in v1.25).
//! 7. A `node.kubernetes.io/…` key no component sets, closest to one that is (did you mean …).
//!
//! Only a toleration that does not match the taint at all is a near miss of it.

use k8s_openapi::api::core::v1::{Taint, Toleration};

use crate::gates::FeatureGates;
use crate::taint::{
    TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_NOT_READY, TAINT_NODE_OUT_OF_SERVICE, TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE, taint_to_string,
};
use crate::toleration::{OP_EXISTS, tolerates};

/// kubeadm's control-plane taint key (`node-role.kubernetes.io/control-plane:NoSchedule`, no
/// value), set since v1.24.
pub const CONTROL_PLANE_TAINT_KEY: &str = "node-role.kubernetes.io/control-plane";
/// The key kubeadm set before v1.25 (`node-role.kubernetes.io/master:NoSchedule`).
pub const LEGACY_MASTER_TAINT_KEY: &str = "node-role.kubernetes.io/master";

/// The `node.kubernetes.io/` taint keys Kubernetes components set (`well_known_taints.go`).
pub const NODE_KUBERNETES_IO_KEYS: [&str; 8] = [
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
    TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_DISK_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_OUT_OF_SERVICE,
];

/// Why a toleration evidently meant for a taint does not match it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NearMiss {
    /// Rule 1: the values differ only by case.
    ValueCase {
        /// The toleration's value.
        toleration: String,
        /// The taint's value.
        taint: String,
    },
    /// Rule 2: `Equal` with an empty value against a valued taint.
    EmptyValue {
        /// The taint's value.
        taint: String,
    },
    /// Rule 3: `Equal` with a value against a taint without one.
    ValueOnValueless {
        /// The toleration's value.
        toleration: String,
    },
    /// Rule 4: another effect.
    Effect {
        /// The toleration's effect.
        toleration: String,
        /// The taint's effect.
        taint: String,
    },
    /// Rule 5: the keys differ only by case.
    KeyCase {
        /// The toleration's key.
        toleration: String,
        /// The taint's key.
        taint: String,
    },
    /// Rule 6: the legacy master key on a control-plane node.
    LegacyMaster,
    /// Rule 7: a `node.kubernetes.io/` key no component sets.
    UnknownNodeKey {
        /// The toleration's key.
        toleration: String,
        /// The key it is closest to.
        suggestion: &'static str,
    },
}

impl std::fmt::Display for NearMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NearMiss::ValueCase { toleration, taint } => write!(
                f,
                "value {toleration:?} differs from the taint's {taint:?} only by case; values are compared exactly"
            ),
            NearMiss::EmptyValue { taint } => write!(
                f,
                "operator Equal with an empty value matches only a taint without one; the taint's value is {taint:?} (use operator Exists to match any value)"
            ),
            NearMiss::ValueOnValueless { toleration } => write!(
                f,
                "the taint has no value, so value {toleration:?} never matches it (use operator Exists, or leave the value empty)"
            ),
            NearMiss::Effect { toleration, taint } => write!(
                f,
                "tolerates effect {toleration}, the taint's is {taint} (leave the effect empty to tolerate every effect)"
            ),
            NearMiss::KeyCase { toleration, taint } => write!(
                f,
                "key {toleration:?} differs from the taint's {taint:?} only by case; keys are compared exactly"
            ),
            NearMiss::LegacyMaster => write!(
                f,
                "tolerates the legacy {LEGACY_MASTER_TAINT_KEY} taint; kubeadm taints control-plane nodes {CONTROL_PLANE_TAINT_KEY} since v1.24 (and no longer {LEGACY_MASTER_TAINT_KEY} since v1.25)"
            ),
            NearMiss::UnknownNodeKey {
                toleration,
                suggestion,
            } => write!(
                f,
                "no component sets a taint {toleration:?}; did you mean {suggestion:?}?"
            ),
        }
    }
}

/// Levenshtein distance of two short strings (keys), in bytes.
pub fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The `node.kubernetes.io/` key closest to `key`, when `key` is one no component sets and is
/// within a few edits of one that is (or shares its last word: `not-reachable` ~ `unreachable`).
pub fn unknown_node_key(key: &str) -> Option<&'static str> {
    let rest = key.strip_prefix("node.kubernetes.io/")?;
    if NODE_KUBERNETES_IO_KEYS.contains(&key) || rest.len() > 64 {
        return None;
    }
    let tail = |k: &str| k.rsplit('-').next().unwrap_or(k).to_string();
    NODE_KUBERNETES_IO_KEYS
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= 4 || tail(k) == tail(rest))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// How `t` fails to match `taint` when it evidently was written for it ([`NearMiss`]'s rules,
/// the first that applies); `None` when it matches, or is not about this taint.
pub fn near_miss(t: &Toleration, taint: &Taint, gates: &FeatureGates) -> Option<NearMiss> {
    if tolerates(t, taint, gates) {
        return None;
    }
    let key = t.key.as_deref().unwrap_or_default();
    let op = t.operator.as_deref().unwrap_or("Equal");
    let value = t.value.as_deref().unwrap_or_default();
    let effect = t.effect.as_deref().unwrap_or_default();
    let taint_value = taint.value.as_deref().unwrap_or_default();
    let effect_ok = effect.is_empty() || effect == taint.effect;
    if key == taint.key {
        if !effect_ok {
            let value_ok = op == OP_EXISTS || value == taint_value;
            return value_ok.then(|| NearMiss::Effect {
                toleration: effect.to_string(),
                taint: taint.effect.clone(),
            });
        }
        if op != "Equal" {
            return None;
        }
        return Some(if taint_value.is_empty() {
            NearMiss::ValueOnValueless {
                toleration: value.to_string(),
            }
        } else if value.is_empty() {
            NearMiss::EmptyValue {
                taint: taint_value.to_string(),
            }
        } else if value.eq_ignore_ascii_case(taint_value) {
            NearMiss::ValueCase {
                toleration: value.to_string(),
                taint: taint_value.to_string(),
            }
        } else {
            return None;
        });
    }
    if !effect_ok {
        return None;
    }
    if key.eq_ignore_ascii_case(&taint.key) {
        return Some(NearMiss::KeyCase {
            toleration: key.to_string(),
            taint: taint.key.clone(),
        });
    }
    if key == LEGACY_MASTER_TAINT_KEY && taint.key == CONTROL_PLANE_TAINT_KEY {
        return Some(NearMiss::LegacyMaster);
    }
    match unknown_node_key(key) {
        Some(suggestion) if suggestion == taint.key => Some(NearMiss::UnknownNodeKey {
            toleration: key.to_string(),
            suggestion,
        }),
        _ => None,
    }
}

/// Every near miss of a pod's tolerations against a node's untolerated taints:
/// `(toleration index, taint as key=value:Effect, why)`.
pub fn near_misses(
    tolerations: &[Toleration],
    untolerated: &[&Taint],
    gates: &FeatureGates,
) -> Vec<(usize, String, NearMiss)> {
    let mut out = Vec::new();
    for taint in untolerated {
        for (i, t) in tolerations.iter().enumerate() {
            if let Some(m) = near_miss(t, taint, gates) {
                out.push((i, taint_to_string(taint), m));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
