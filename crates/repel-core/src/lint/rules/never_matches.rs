//! `toleration-never-matches`: a toleration that can never match the taint it is evidently
//! written for — a well-known taint's key with the wrong value, case or effect, a misspelled
//! well-known key, or, with nodes or pools in the input, a key they carry with values or
//! effects the toleration never matches. Judged by upstream's `ToleratesTaint`
//! ([`crate::tolerates`]) and explained by [`crate::near_miss`].

use k8s_openapi::api::core::v1::{Taint, Toleration};

use super::RuleImpl;
use crate::lint::catalogue::{self, Value, WellKnown};
use crate::lint::{Context, Finding, Rule, Severity, Subject, fix_item, toleration_yaml};
use crate::near_miss::near_miss;
use crate::taint::{new_taint, taint_to_string};
use crate::toleration::{OP_EQUAL, OP_EXISTS, tolerates};

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "toleration-never-matches",
        severity: Severity::Warning,
        summary: "a toleration that can never match the taint it is evidently written for",
        explain: "A toleration matches a taint only when the keys are equal byte for byte, the \
effects are equal (or the toleration's is empty), and either the operator is Exists or the values \
are equal byte for byte (Toleration.ToleratesTaint, k8s.io/api core/v1/toleration.go). \
kubeadm's control-plane taint has no value, so `operator: Equal, value: \"true\"` never matches \
it; `\"True\"` is not `\"true\"`; `node.kubernetes.io/not-reachable` is no taint anyone sets. \
Such a toleration does nothing, silently: the pods stay off the nodes they were meant for, or \
are evicted from them. repel knows the exact key, value and effects of the well-known taints \
(kubeadm, the node lifecycle controller, the cloud provider, cluster-autoscaler, Karpenter, AKS, \
GKE, EKS Fargate) and, with nodes or pools in the input, the taints they carry.",
        example: "# bad: kubeadm's taint has no value\n- {key: node-role.kubernetes.io/control-plane, operator: Equal, value: \"true\", effect: NoSchedule}\n# good\n- {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}",
        single_object: true,
    },
    check,
};

/// The catalogue entry's taints, one per effect (`None` value for [`Value::Varies`]).
fn taints_of(e: &WellKnown) -> Vec<Taint> {
    let value = match e.value {
        Value::Empty | Value::Varies => "",
        Value::Fixed(v) => v,
    };
    e.effects
        .iter()
        .map(|eff| new_taint(e.key, value, eff))
        .collect()
}

/// Whether `t` matches some taint the entry describes.
fn matches_entry(cx: &Context<'_>, t: &Toleration, e: &WellKnown) -> bool {
    let effect_ok = |eff: &str| t.effect.as_deref().is_none_or(|x| x.is_empty() || x == eff);
    match e.value {
        Value::Varies => {
            t.operator.as_deref() == Some(OP_EXISTS) && e.effects.iter().any(|x| effect_ok(x))
        }
        _ => taints_of(e)
            .iter()
            .any(|x| tolerates(t, x, &cx.input.gates)),
    }
}

/// The toleration that does what `t` evidently meant for `taint`: `Exists` on its key and
/// effect, keeping `tolerationSeconds` for a NoExecute one.
fn fixed(t: &Toleration, key: &str, effect: &str) -> Toleration {
    Toleration {
        key: Some(key.to_string()),
        operator: Some(OP_EXISTS.into()),
        value: None,
        effect: Some(effect.to_string()),
        toleration_seconds: t.toleration_seconds.filter(|_| effect == "NoExecute"),
    }
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if cx.owner_in_input(o) {
            continue;
        }
        for (i, t) in o.tolerations().iter().enumerate() {
            let key = t.key.as_deref().unwrap_or_default();
            let op = t.operator.as_deref().unwrap_or(OP_EQUAL);
            if key.is_empty() || !(op == OP_EQUAL || op == OP_EXISTS) {
                continue;
            }
            let mut push = |message: String, fix: Toleration| {
                out.push(Finding {
                    rule: RULE.info.id,
                    severity: RULE.info.severity,
                    subject: Subject::Object(oi),
                    path: o.toleration_path(i),
                    message,
                    fix: fix_item(&fix),
                })
            };
            // The input's own taints with this key come first: they are what the pods meet.
            let seen: Vec<&Taint> = cx.taints_with_key(key).iter().collect();
            if !seen.is_empty() {
                if seen.iter().any(|x| tolerates(t, x, &cx.input.gates)) {
                    continue;
                }
                let names: Vec<String> = seen.iter().map(|x| taint_to_string(x)).collect();
                let why = seen
                    .iter()
                    .find_map(|x| near_miss(t, x, &cx.input.gates))
                    .map(|n| format!(": {n}"))
                    .unwrap_or_default();
                push(
                    format!(
                        "toleration {} matches none of the taints with key {key} that the input's nodes and pools carry ({}){why}",
                        toleration_yaml(t),
                        names.join(", ")
                    ),
                    fixed(t, key, &seen[0].effect),
                );
                continue;
            }
            if let Some(e) = catalogue::lookup(key) {
                if matches_entry(cx, t, e) {
                    continue;
                }
                let taints = taints_of(e);
                let shown: Vec<String> = match e.value {
                    Value::Varies => e
                        .effects
                        .iter()
                        .map(|x| format!("{key}=<varies>:{x}"))
                        .collect(),
                    _ => taints.iter().map(taint_to_string).collect(),
                };
                let why = match e.value {
                    Value::Varies => {
                        "its value changes from node to node, so only operator Exists matches it"
                            .to_string()
                    }
                    _ => taints
                        .iter()
                        .find_map(|x| near_miss(t, x, &cx.input.gates))
                        .map(|n| n.to_string())
                        .unwrap_or_else(|| "no effect it is set with matches".into()),
                };
                let effect = t
                    .effect
                    .as_deref()
                    .filter(|x| e.effects.contains(x))
                    .unwrap_or(e.effects[0]);
                push(
                    format!(
                        "toleration {} never matches {} ({}, {}): {why}",
                        toleration_yaml(t),
                        shown.join(" or "),
                        e.set_by,
                        e.source
                    ),
                    fixed(t, key, effect),
                );
                continue;
            }
            if let Some(e) = catalogue::closest(key) {
                let effect = t
                    .effect
                    .as_deref()
                    .filter(|x| !x.is_empty())
                    .unwrap_or(e.effects[0]);
                push(
                    format!(
                        "no component sets a taint {key:?}; did you mean {:?} ({})?",
                        e.key, e.set_by
                    ),
                    fixed(t, e.key, effect),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
