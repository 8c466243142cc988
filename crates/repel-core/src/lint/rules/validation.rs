//! `toleration-seconds-without-noexecute`, `exists-with-value`, `invalid-toleration`: the API
//! server's validation errors of tolerations (`ValidateTolerations`,
//! pkg/apis/core/validation/validation.go; [`crate::validation`]), found with the file and
//! line before `kubectl apply` refuses the object. Each message is upstream's, byte for byte.

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject};
use crate::validation::{
    MSG_EXISTS_WITH_VALUE, MSG_SECONDS_NEED_NO_EXECUTE, ValidationOptions,
    validate_pod_spec_tolerations,
};

/// `toleration-seconds-without-noexecute`.
pub const SECONDS: RuleImpl = RuleImpl {
    info: Rule {
        id: "toleration-seconds-without-noexecute",
        severity: Severity::Error,
        summary: "tolerationSeconds on a toleration whose effect is not NoExecute: refused by the API server",
        explain: "ValidateTolerations refuses tolerationSeconds unless the effect is exactly \
NoExecute (an empty effect too, although it matches NoExecute taints): \"effect must be \
'NoExecute' when `tolerationSeconds` is set\". tolerationSeconds only means something for \
eviction, which only NoExecute taints cause.",
        example: "# bad\n- {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule, tolerationSeconds: 20}\n# good\n- {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 20}",
        single_object: true,
    },
    check: check_seconds,
};

/// `exists-with-value`.
pub const EXISTS_VALUE: RuleImpl = RuleImpl {
    info: Rule {
        id: "exists-with-value",
        severity: Severity::Error,
        summary: "operator Exists with a value: refused by the API server",
        explain: "ValidateTolerations refuses a value with operator Exists (\"value must be empty \
when `operator` is 'Exists'\", reported on the operator field): Exists matches every value of \
the key. Drop the value, or use operator Equal to match that value only.",
        example: "# bad\n- {key: foo, operator: Exists, value: bar, effect: NoSchedule}\n# good\n- {key: foo, operator: Equal, value: bar, effect: NoSchedule}",
        single_object: true,
    },
    check: check_exists,
};

/// `invalid-toleration`.
pub const INVALID: RuleImpl = RuleImpl {
    info: Rule {
        id: "invalid-toleration",
        severity: Severity::Error,
        summary: "any other toleration the API server refuses: bad key, operator, value or effect",
        explain: "ValidateTolerations (pkg/apis/core/validation/validation.go) checks that the key \
is a qualified name, that an empty key comes with operator Exists, that the operator is Equal or \
Exists (Lt and Gt behind the TaintTolerationComparisonOperators gate), that an Equal value is a \
valid label value, and that the effect is NoSchedule, PreferNoSchedule or NoExecute. The message \
is the API server's own.",
        example: "# bad\n- {key: foo, operator: In, value: bar}\n# good\n- {key: foo, operator: Equal, value: bar}",
        single_object: true,
    },
    check: check_invalid,
};

/// Which of the three rules a field error belongs to.
fn rule_of(detail: &str) -> &'static str {
    if detail == MSG_SECONDS_NEED_NO_EXECUTE {
        SECONDS.info.id
    } else if detail == MSG_EXISTS_WITH_VALUE {
        EXISTS_VALUE.info.id
    } else {
        INVALID.info.id
    }
}

fn check_as(cx: &Context<'_>, out: &mut Vec<Finding>, rule: &RuleImpl) {
    let opts = ValidationOptions::from_gates(&cx.input.gates);
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if cx.owner_in_input(o) {
            continue;
        }
        for e in validate_pod_spec_tolerations(o.spec, o.spec_path, &opts) {
            if rule_of(&e.detail) != rule.info.id {
                continue;
            }
            let fix = match rule.info.id {
                "toleration-seconds-without-noexecute" => {
                    "# set effect: NoExecute, or remove tolerationSeconds"
                }
                "exists-with-value" => "# remove the value, or use operator: Equal",
                _ => "# correct the field as the message says",
            };
            out.push(Finding {
                rule: rule.info.id,
                severity: rule.info.severity,
                subject: Subject::Object(oi),
                path: e.field.clone(),
                message: e.to_string(),
                fix: fix.into(),
            });
        }
    }
}

fn check_seconds(cx: &Context<'_>, out: &mut Vec<Finding>) {
    check_as(cx, out, &SECONDS);
}

fn check_exists(cx: &Context<'_>, out: &mut Vec<Finding>) {
    check_as(cx, out, &EXISTS_VALUE);
}

fn check_invalid(cx: &Context<'_>, out: &mut Vec<Finding>) {
    check_as(cx, out, &INVALID);
}

#[cfg(test)]
mod tests;
