//! Validation of the workload kinds as kube-apiserver runs it on a create or an update
//! (`pkg/apis/apps/validation/validation.go` and `pkg/apis/batch/validation/validation.go`,
//! v1.32), on the object as stored (after defaulting), with upstream's field paths and texts.
//!
//! Covered, per kind (upstream's function, in its order):
//! - Deployment (`ValidateDeploymentSpec`): `replicas` ≥ 0; `selector` required, not empty;
//!   a selector `LabelSelectorAsSelector` refuses; the template's labels matched by the
//!   selector, its `restartPolicy` `Always`, no `activeDeadlineSeconds`
//!   (`ValidatePodTemplateSpecForReplicaSet`); the strategy (`rollingUpdate` under
//!   `Recreate`, `maxUnavailable` and `maxSurge` both 0, a percentage over 100 %);
//!   `minReadySeconds`, `revisionHistoryLimit`, `progressDeadlineSeconds` ≥ 0 and
//!   `progressDeadlineSeconds` > `minReadySeconds`.
//! - ReplicaSet (`ValidateReplicaSetSpec`): `replicas`, `minReadySeconds`, the selector and
//!   the template as a Deployment's.
//! - StatefulSet (`ValidateStatefulSetSpec`): `podManagementPolicy`, `replicas`,
//!   `minReadySeconds`, the selector (`empty selector is invalid for statefulset`), the template
//!   labels, `restartPolicy`, `activeDeadlineSeconds`; on update, the fields other than
//!   replicas, ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and
//!   minReadySeconds are immutable (`ValidateStatefulSetUpdate`).
//! - DaemonSet (`ValidateDaemonSetSpec`): the template labels, the selector, `restartPolicy`,
//!   `activeDeadlineSeconds`, `minReadySeconds`, `revisionHistoryLimit`.
//! - Job (`validateJobSpec`, `ValidateJobSpec`): `parallelism`, `completions`,
//!   `activeDeadlineSeconds`, `backoffLimit` ≥ 0, `restartPolicy` `OnFailure` or `Never`, the
//!   selector required and matching the template's labels.
//! - ReplicationController (core `ValidateReplicationControllerSpec` and
//!   `ValidatePodTemplateSpecForRC`): `minReadySeconds` ≥ 0, the selector map required and not
//!   empty, `replicas` ≥ 0, the template required, its labels matched by the selector, its
//!   `restartPolicy` `Always` and no `activeDeadlineSeconds` (`must not be specified`).
//! - apps/v1's `spec.selector` is immutable on update (the strategies' `ValidateUpdate`); a
//!   ReplicationController's selector is not (`ValidateReplicationControllerUpdate` does not
//!   check it).
//!
//! Not covered: the pod template's own `ValidatePodTemplateSpec` (beyond the tolerations the
//! admission checks), `ValidateLabelSelector`'s key and value syntax, IntOrString percent syntax,
//! pod failure and success policies, and status validation.
//!
//! Composite bad values print as JSON, as `ErrorBody` prints them since v1.34 (see
//! `repel_core::validation`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use repel_core::labels::label_selector_from_api;
use repel_core::validation::{BadValue, FieldError};
use serde_json::Value;

/// Upstream's detail when a selector does not select its own template.
pub const MSG_SELECTOR_MISMATCH: &str = "`selector` does not match template `labels`";
/// Upstream `IsNegativeErrorMsg`.
pub const MSG_NEGATIVE: &str = "must be greater than or equal to 0";
/// Upstream `ValidateImmutableField`'s detail.
pub const MSG_IMMUTABLE: &str = "field is immutable";
/// `ValidateStatefulSetUpdate`'s detail for the fields it does not let change.
pub const MSG_STATEFULSET_SPEC_FORBIDDEN: &str = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/// The field errors of a workload `obj` of `kind` on a create (`old` is `None`) or an update.
/// Other kinds have none here.
pub fn validate(kind: &str, obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let spec = &obj["spec"];
    let mut errs = match kind {
        "Deployment" => deployment(spec),
        "ReplicaSet" => replica_set(spec),
        "StatefulSet" => stateful_set(spec),
        "DaemonSet" => daemon_set(spec),
        "Job" => job(spec),
        "ReplicationController" => replication_controller(spec),
        _ => return Vec::new(),
    };
    if let Some(old) = old {
        let old_spec = &old["spec"];
        if !matches!(kind, "Job" | "ReplicationController")
            && spec.get("selector") != old_spec.get("selector")
        {
            errs.push(FieldError::invalid(
                "spec.selector",
                json_value(&spec["selector"]),
                MSG_IMMUTABLE,
            ));
        }
        if kind == "StatefulSet" {
            let rest = |s: &Value| {
                let mut s = s.clone();
                if let Some(m) = s.as_object_mut() {
                    for f in [
                        "replicas",
                        "ordinals",
                        "template",
                        "updateStrategy",
                        "persistentVolumeClaimRetentionPolicy",
                        "minReadySeconds",
                    ] {
                        m.shift_remove(f);
                    }
                }
                s
            };
            if rest(spec) != rest(old_spec) {
                errs.push(FieldError::forbidden(
                    "spec",
                    MSG_STATEFULSET_SPEC_FORBIDDEN,
                ));
            }
        }
    }
    errs
}

fn json_value(v: &Value) -> BadValue {
    BadValue::Json(v.to_string())
}

fn non_negative(spec: &Value, field: &str, errs: &mut Vec<FieldError>) {
    if let Some(n) = spec[field].as_i64()
        && n < 0
    {
        errs.push(FieldError::invalid(
            format!("spec.{field}"),
            BadValue::Int(n),
            MSG_NEGATIVE,
        ));
    }
}

/// What `metav1.LabelSelectorAsSelector` makes of the spec's selector: `None` for a nil
/// selector (upstream's `labels.Nothing()`, which matches nothing and is not empty),
/// `Some(Ok(empty?, matches?))` with whether it is empty and matches the template's labels,
/// `Some(Err)` when it cannot be read.
fn selector_verdict(spec: &Value) -> Option<Result<(bool, bool), ()>> {
    let sel = spec.get("selector").filter(|s| !s.is_null())?;
    let Ok(typed) = serde_json::from_value::<LabelSelector>(sel.clone()) else {
        return Some(Err(()));
    };
    let Ok(selector) = label_selector_from_api(&typed) else {
        return Some(Err(()));
    };
    let labels = label_map(&spec["template"]["metadata"]["labels"]);
    Some(Ok((selector.is_empty(), selector.matches(&labels))))
}

/// A JSON label map as labels (a non-string value as empty; not a map: none).
fn label_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn mismatch(spec: &Value) -> FieldError {
    FieldError::invalid(
        "spec.template.metadata.labels",
        json_value(&spec["template"]["metadata"]["labels"]),
        MSG_SELECTOR_MISMATCH,
    )
}

/// The selector's `Required` / empty checks of the apps kinds.
fn selector_present(spec: &Value, empty_msg: &str, errs: &mut Vec<FieldError>) {
    match spec.get("selector").filter(|s| !s.is_null()) {
        None => errs.push(FieldError::required("spec.selector", "")),
        Some(sel) => {
            let n = |k: &str| {
                sel[k].as_object().map_or(0, |m| m.len()) + sel[k].as_array().map_or(0, Vec::len)
            };
            if n("matchLabels") + n("matchExpressions") == 0 {
                errs.push(FieldError::invalid(
                    "spec.selector",
                    json_value(sel),
                    empty_msg,
                ));
            }
        }
    }
}

fn restart_policy(spec: &Value) -> &str {
    spec["template"]["spec"]["restartPolicy"]
        .as_str()
        .unwrap_or("")
}

/// Upstream `ValidatePodTemplateSpecForReplicaSet` (with the selector's verdict before it).
fn template_for_replica_set(spec: &Value, errs: &mut Vec<FieldError>) {
    match selector_verdict(spec) {
        Some(Err(())) => errs.push(FieldError::invalid(
            "spec.selector",
            json_value(&spec["selector"]),
            "invalid label selector",
        )),
        verdict => {
            if !matches!(verdict, Some(Ok((true, _)) | Ok((_, true)))) {
                errs.push(mismatch(spec));
            }
            always_restarts(spec, "ReplicaSet", errs);
        }
    }
}

/// The template's `restartPolicy` must be `Always` and it may not set
/// `activeDeadlineSeconds` (the apps kinds).
fn always_restarts(spec: &Value, kind: &str, errs: &mut Vec<FieldError>) {
    let rp = restart_policy(spec);
    if rp != "Always" {
        errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            rp,
            &["Always"],
        ));
    }
    if !spec["template"]["spec"]["activeDeadlineSeconds"].is_null() {
        errs.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            format!("activeDeadlineSeconds in {kind} is not Supported"),
        ));
    }
}

/// Upstream `ValidateDeploymentSpec`.
fn deployment(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    non_negative(spec, "replicas", &mut errs);
    selector_present(spec, "empty selector is invalid for deployment", &mut errs);
    template_for_replica_set(spec, &mut errs);
    deployment_strategy(&spec["strategy"], &mut errs);
    non_negative(spec, "minReadySeconds", &mut errs);
    non_negative(spec, "revisionHistoryLimit", &mut errs);
    if let Some(p) = spec["progressDeadlineSeconds"].as_i64() {
        non_negative(spec, "progressDeadlineSeconds", &mut errs);
        if p <= spec["minReadySeconds"].as_i64().unwrap_or(0) {
            errs.push(FieldError::invalid(
                "spec.progressDeadlineSeconds",
                BadValue::Int(p),
                "must be greater than minReadySeconds",
            ));
        }
    }
    errs
}

/// An IntOrString's value (`getIntOrPercentValue`) and whether it is a percentage.
fn int_or_percent(v: &Value) -> (i64, bool) {
    match v {
        Value::String(s) => match s.strip_suffix('%').and_then(|n| n.parse().ok()) {
            Some(n) => (n, true),
            None => (0, false),
        },
        other => (other.as_i64().unwrap_or(0), false),
    }
}

/// Upstream `ValidateDeploymentStrategy` / `ValidateRollingUpdateDeployment`.
fn deployment_strategy(strategy: &Value, errs: &mut Vec<FieldError>) {
    let ru = &strategy["rollingUpdate"];
    match strategy["type"].as_str() {
        Some("Recreate") if !ru.is_null() => errs.push(FieldError::forbidden(
            "spec.strategy.rollingUpdate",
            "may not be specified when strategy `type` is 'Recreate'",
        )),
        Some("RollingUpdate") if ru.is_null() => errs.push(FieldError::required(
            "spec.strategy.rollingUpdate",
            "this should be defaulted and never be nil",
        )),
        Some("RollingUpdate") => {
            let path = "spec.strategy.rollingUpdate";
            for f in ["maxUnavailable", "maxSurge"] {
                if let (n, false) = int_or_percent(&ru[f])
                    && n < 0
                {
                    errs.push(FieldError::invalid(
                        format!("{path}.{f}"),
                        BadValue::Int(n),
                        MSG_NEGATIVE,
                    ));
                }
            }
            let (unavailable, unavailable_pct) = int_or_percent(&ru["maxUnavailable"]);
            if unavailable == 0 && int_or_percent(&ru["maxSurge"]).0 == 0 {
                errs.push(FieldError::invalid(
                    format!("{path}.maxUnavailable"),
                    json_value(&ru["maxUnavailable"]),
                    "may not be 0 when `maxSurge` is 0",
                ));
            }
            if unavailable_pct && unavailable > 100 {
                errs.push(FieldError::invalid(
                    format!("{path}.maxUnavailable"),
                    json_value(&ru["maxUnavailable"]),
                    "must not be greater than 100%",
                ));
            }
        }
        _ => {}
    }
}

/// Upstream `ValidateReplicaSetSpec`.
fn replica_set(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    non_negative(spec, "replicas", &mut errs);
    non_negative(spec, "minReadySeconds", &mut errs);
    // Upstream's ReplicaSet reuses the Deployment's text.
    selector_present(spec, "empty selector is invalid for deployment", &mut errs);
    template_for_replica_set(spec, &mut errs);
    errs
}

/// Upstream `ValidateReplicationControllerSpec` with `ValidatePodTemplateSpecForRC`
/// (`pkg/apis/core/validation/validation.go`): the selector is a plain label map.
fn replication_controller(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    non_negative(spec, "minReadySeconds", &mut errs);
    let selector = label_map(&spec["selector"]);
    if selector.is_empty() {
        errs.push(FieldError::required("spec.selector", ""));
    }
    non_negative(spec, "replicas", &mut errs);
    let template = &spec["template"];
    if !template.is_object() {
        errs.push(FieldError::required("spec.template", ""));
        return errs;
    }
    let labels = label_map(&template["metadata"]["labels"]);
    let selected = selector.iter().all(|(k, v)| labels.get(k) == Some(v));
    if !selector.is_empty() && !selected {
        errs.push(mismatch(spec));
    }
    let rp = restart_policy(spec);
    if rp != "Always" {
        errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            rp,
            &["Always"],
        ));
    }
    let deadline = &template["spec"]["activeDeadlineSeconds"];
    if !deadline.is_null() {
        errs.push(FieldError::invalid(
            "spec.template.spec.activeDeadlineSeconds",
            deadline
                .as_i64()
                .map_or_else(|| json_value(deadline), BadValue::Int),
            "must not be specified",
        ));
    }
    errs
}

/// Upstream `ValidateStatefulSetSpec`.
fn stateful_set(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match spec["podManagementPolicy"].as_str().unwrap_or("") {
        "" => errs.push(FieldError::required("spec.podManagementPolicy", "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(FieldError::invalid(
            "spec.podManagementPolicy",
            BadValue::Str(other.to_string()),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    non_negative(spec, "replicas", &mut errs);
    non_negative(spec, "minReadySeconds", &mut errs);
    selector_present(spec, "empty selector is invalid for statefulset", &mut errs);
    match selector_verdict(spec) {
        Some(Err(())) => errs.push(FieldError::invalid(
            "spec.selector",
            json_value(&spec["selector"]),
            "",
        )),
        verdict => {
            if !matches!(verdict, Some(Ok((true, _)) | Ok((_, true)))) {
                errs.push(mismatch(spec));
            }
        }
    }
    always_restarts(spec, "StatefulSet", &mut errs);
    errs
}

/// Upstream `ValidateDaemonSetSpec`.
fn daemon_set(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    // No `Empty()` exemption here: only a selector that selects the labels passes.
    if let Some(Ok((_, false))) | None = selector_verdict(spec) {
        errs.push(mismatch(spec));
    }
    if let Some(sel) = spec.get("selector").filter(|s| !s.is_null()) {
        let n = |k: &str| {
            sel[k].as_object().map_or(0, |m| m.len()) + sel[k].as_array().map_or(0, Vec::len)
        };
        if n("matchLabels") + n("matchExpressions") == 0 {
            errs.push(FieldError::invalid(
                "spec.selector",
                json_value(sel),
                "empty selector is invalid for daemonset",
            ));
        }
    }
    always_restarts(spec, "DaemonSet", &mut errs);
    non_negative(spec, "minReadySeconds", &mut errs);
    non_negative(spec, "revisionHistoryLimit", &mut errs);
    errs
}

/// Upstream `validateJobSpec` then `ValidateJobSpec`.
fn job(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
    ] {
        non_negative(spec, f, &mut errs);
    }
    match restart_policy(spec) {
        "" => errs.push(FieldError::required(
            "spec.template.spec.restartPolicy",
            "valid values: \"OnFailure\", \"Never\"",
        )),
        "OnFailure" | "Never" => {}
        other => errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            other,
            &["OnFailure", "Never"],
        )),
    }
    if spec.get("selector").is_none_or(Value::is_null) {
        errs.push(FieldError::required("spec.selector", ""));
    }
    // A nil selector is upstream's `labels.Nothing()`: it matches no labels either.
    if let Some(Ok((_, false))) | None = selector_verdict(spec) {
        errs.push(mismatch(spec));
    }
    errs
}

#[cfg(test)]
mod tests;
