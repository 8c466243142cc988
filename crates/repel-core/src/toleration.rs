//! One toleration against one taint: upstream's `Toleration.ToleratesTaint`.

use k8s_openapi::api::core::v1::{Taint, Toleration};

use crate::gates::FeatureGates;

/// The `Equal` operator (also what an empty operator means).
pub const OP_EQUAL: &str = "Equal";
/// The `Exists` operator.
pub const OP_EXISTS: &str = "Exists";
/// The `Gt` operator (gate `TaintTolerationComparisonOperators`).
pub const OP_GT: &str = "Gt";
/// The `Lt` operator (gate `TaintTolerationComparisonOperators`).
pub const OP_LT: &str = "Lt";

/// Upstream's message for a value that is not a canonical decimal integer.
pub const DECIMAL_INT_ERR: &str = "must be a valid decimal integer in canonical form";

/// Upstream `content.IsDecimalInteger` (v1.35): `0`, or an optional `-` then a digit 1–9 then
/// digits. No leading zeros, no `+`, no spaces, no decimals. Returns upstream's messages.
pub fn is_decimal_integer(value: &str) -> Vec<String> {
    if value.is_empty() {
        return vec![crate::names::empty_error().to_string()];
    }
    if value == "0" {
        return Vec::new();
    }
    let digits = value.strip_prefix('-').unwrap_or(value);
    let b = digits.as_bytes();
    let ok = matches!(b.first(), Some(b'1'..=b'9')) && b.iter().all(u8::is_ascii_digit);
    if ok {
        Vec::new()
    } else {
        vec![DECIMAL_INT_ERR.to_string()]
    }
}

/// A toleration or taint value as the comparison operators read it: canonical decimal form
/// (see [`is_decimal_integer`]) that also fits in an int64; `None` otherwise.
pub fn parse_canonical_int64(value: &str) -> Option<i64> {
    if !is_decimal_integer(value).is_empty() {
        return None;
    }
    value.parse::<i64>().ok()
}

/// Whether `toleration` tolerates `taint`: upstream `Toleration.ToleratesTaint` (k8s.io/api
/// core/v1, v1.35+). The checks, in upstream's order:
///
/// 1. A non-empty effect must equal the taint's effect; an empty effect matches every effect.
/// 2. A non-empty key must equal the taint's key (case-sensitive); an empty key matches every key.
/// 3. The operator decides: `""`/`Equal` needs the values equal as strings; `Exists` ignores the
///    value; `Gt`/`Lt` only when `TaintTolerationComparisonOperators` is on, both values
///    canonical int64 (else no match), strictly taint > toleration for `Gt`, taint < toleration
///    for `Lt`; any other operator, differently cased ones included, never matches.
///
/// `timeAdded` and `tolerationSeconds` play no part.
pub fn tolerates(toleration: &Toleration, taint: &Taint, gates: &FeatureGates) -> bool {
    let effect = toleration.effect.as_deref().unwrap_or_default();
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    let key = toleration.key.as_deref().unwrap_or_default();
    if !key.is_empty() && key != taint.key {
        return false;
    }
    let tol_value = toleration.value.as_deref().unwrap_or_default();
    let taint_value = taint.value.as_deref().unwrap_or_default();
    match toleration.operator.as_deref().unwrap_or_default() {
        "" | OP_EQUAL => tol_value == taint_value,
        OP_EXISTS => true,
        op @ (OP_GT | OP_LT) => {
            if !gates.taint_toleration_comparison_operators {
                return false;
            }
            let (Some(want), Some(have)) = (
                parse_canonical_int64(tol_value),
                parse_canonical_int64(taint_value),
            ) else {
                return false;
            };
            if op == OP_GT {
                have > want
            } else {
                have < want
            }
        }
        _ => false,
    }
}

/// A toleration; empty strings are left unset, as in a manifest that omits the field.
pub fn new_toleration(key: &str, operator: &str, value: &str, effect: &str) -> Toleration {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Toleration {
        key: opt(key),
        operator: opt(operator),
        value: opt(value),
        effect: opt(effect),
        toleration_seconds: None,
    }
}

/// Upstream `Toleration.MatchToleration`: the same key, operator, value and effect
/// (`tolerationSeconds` ignored); an unset field equals `""`, as Go's plain strings do. The
/// identity used to de-duplicate tolerations.
pub fn match_toleration(a: &Toleration, b: &Toleration) -> bool {
    let s = |o: &Option<String>| o.as_deref().unwrap_or_default().to_string();
    s(&a.key) == s(&b.key)
        && s(&a.operator) == s(&b.operator)
        && s(&a.value) == s(&b.value)
        && s(&a.effect) == s(&b.effect)
}

/// A toleration in the form `kubectl describe pod` prints it: `key=value:Effect` for `Equal`,
/// `key:Effect op=Exists` for `Exists` (`op=Exists` alone for the wildcard), then ` for Ns`
/// with `tolerationSeconds`. `Gt`/`Lt`, which kubectl v1.32 predates, print as
/// `key:Effect op=Gt 900`.
pub fn describe_toleration(t: &Toleration) -> String {
    let key = t.key.as_deref().unwrap_or_default();
    let op = t.operator.as_deref().unwrap_or_default();
    let value = t.value.as_deref().unwrap_or_default();
    let effect = t.effect.as_deref().unwrap_or_default();
    let with_effect = |s: String| {
        if effect.is_empty() {
            s
        } else {
            format!("{s}:{effect}")
        }
    };
    let mut s = match op {
        OP_EXISTS if value.is_empty() => {
            if key.is_empty() && effect.is_empty() {
                "op=Exists".to_string()
            } else {
                format!("{} op=Exists", with_effect(key.to_string()))
            }
        }
        OP_GT | OP_LT => format!("{} op={op} {value}", with_effect(key.to_string())),
        _ => with_effect(format!("{key}={value}")),
    };
    if let Some(secs) = t.toleration_seconds {
        s.push_str(&format!(" for {secs}s"));
    }
    s
}

#[cfg(test)]
mod tests;
