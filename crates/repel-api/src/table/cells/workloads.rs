//! Workload and PDB rows: `printDeployment`, `printReplicaSet`, `printDaemonSet`,
//! `printStatefulSet`, `printJob`, `printPodDisruptionBudget` (printers.go, v1.32).

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::{age, arr, human_duration_millis, i, millis_between, or_none, parse_time, s};

/// `layoutContainerCells`: container names and images, comma-joined.
fn containers(obj: &Value) -> (String, String) {
    let cs = arr(obj, "/spec/template/spec/containers");
    let names: Vec<&str> = cs.iter().map(|c| s(c, "/name")).collect();
    let images: Vec<&str> = cs.iter().map(|c| s(c, "/image")).collect();
    (names.join(","), images.join(","))
}

/// `metav1.FormatLabelSelector` of `spec.selector`: `<none>` when it selects everything,
/// `<error>` when it cannot be converted.
fn selector_string(obj: &Value) -> String {
    let Some(sel) = obj.pointer("/spec/selector") else {
        return "<none>".to_string();
    };
    let parsed: Result<
        k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
        serde_json::Error,
    > = serde_json::from_value(sel.clone());
    match parsed
        .ok()
        .map(|s| repel_core::labels::label_selector_from_api(&s))
    {
        Some(Ok(s)) => or_none(&s.to_string()),
        _ => "<error>".to_string(),
    }
}

/// `LabelSelectorAsSelector(spec.selector).String()` as `printDeployment` prints it:
/// `<invalid>` when it cannot be converted, and empty (not `<none>`) when it selects everything.
fn deployment_selector(obj: &Value) -> String {
    match selector_string(obj).as_str() {
        "<error>" => "<invalid>".to_string(),
        "<none>" => String::new(),
        other => other.to_string(),
    }
}

/// The `spec.replicas` of a workload, defaulted to 1 as the API server defaults it.
fn desired_replicas(obj: &Value) -> i64 {
    obj.pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1)
}

/// `printDeployment`.
pub(crate) fn deployment(obj: &Value, now: Timestamp) -> Vec<Value> {
    let (names, images) = containers(obj);
    vec![
        json!(s(obj, "/metadata/name")),
        json!(format!(
            "{}/{}",
            i(obj, "/status/readyReplicas"),
            desired_replicas(obj)
        )),
        json!(i(obj, "/status/updatedReplicas")),
        json!(i(obj, "/status/availableReplicas")),
        age(obj, now),
        json!(names),
        json!(images),
        json!(deployment_selector(obj)),
    ]
}

/// `printReplicaSet`.
pub(crate) fn replica_set(obj: &Value, now: Timestamp) -> Vec<Value> {
    let (names, images) = containers(obj);
    vec![
        json!(s(obj, "/metadata/name")),
        json!(desired_replicas(obj)),
        json!(i(obj, "/status/replicas")),
        json!(i(obj, "/status/readyReplicas")),
        age(obj, now),
        json!(names),
        json!(images),
        json!(selector_string(obj)),
    ]
}

/// `printReplicationController`: a ReplicaSet's cells, the selector a plain label map
/// (`labels.FormatLabels`).
pub(crate) fn replication_controller(obj: &Value, now: Timestamp) -> Vec<Value> {
    let mut cells = replica_set(obj, now);
    if let Some(selector) = cells.last_mut() {
        *selector = json!(format_labels(obj.pointer("/spec/selector")));
    }
    cells
}

/// `labels.FormatLabels`: sorted `k=v` pairs, or `<none>`.
pub(super) fn format_labels(m: Option<&Value>) -> String {
    let mut pairs: Vec<String> = m
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    pairs.sort();
    or_none(&pairs.join(","))
}

/// `printDaemonSet`.
pub(crate) fn daemon_set(obj: &Value, now: Timestamp) -> Vec<Value> {
    let (names, images) = containers(obj);
    vec![
        json!(s(obj, "/metadata/name")),
        json!(i(obj, "/status/desiredNumberScheduled")),
        json!(i(obj, "/status/currentNumberScheduled")),
        json!(i(obj, "/status/numberReady")),
        json!(i(obj, "/status/updatedNumberScheduled")),
        json!(i(obj, "/status/numberAvailable")),
        json!(format_labels(
            obj.pointer("/spec/template/spec/nodeSelector")
        )),
        age(obj, now),
        json!(names),
        json!(images),
        json!(selector_string(obj)),
    ]
}

/// `printStatefulSet`.
pub(crate) fn stateful_set(obj: &Value, now: Timestamp) -> Vec<Value> {
    let (names, images) = containers(obj);
    vec![
        json!(s(obj, "/metadata/name")),
        json!(format!(
            "{}/{}",
            i(obj, "/status/readyReplicas"),
            desired_replicas(obj)
        )),
        age(obj, now),
        json!(names),
        json!(images),
    ]
}

/// `printJob`.
pub(crate) fn job(obj: &Value, now: Timestamp) -> Vec<Value> {
    let succeeded = i(obj, "/status/succeeded");
    let completions = match obj.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(c) => format!("{succeeded}/{c}"),
        None => {
            let parallelism = i(obj, "/spec/parallelism");
            if parallelism > 1 {
                format!("{succeeded}/1 of {parallelism}")
            } else {
                format!("{succeeded}/1")
            }
        }
    };
    let start = obj
        .pointer("/status/startTime")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let completion = obj
        .pointer("/status/completionTime")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let duration = match (start, completion) {
        (None, _) => String::new(),
        (Some(st), None) => human_duration_millis(millis_between(st, now)),
        (Some(st), Some(c)) => human_duration_millis(millis_between(st, c)),
    };
    let has = |ty: &str| {
        arr(obj, "/status/conditions")
            .iter()
            .find(|c| s(c, "/type") == ty)
            .is_some_and(|c| s(c, "/status") == "True")
    };
    let deleting = obj
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|v| !v.is_null());
    let status = if has("Complete") {
        "Complete"
    } else if has("Failed") {
        "Failed"
    } else if deleting {
        "Terminating"
    } else if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let (names, images) = containers(obj);
    vec![
        json!(s(obj, "/metadata/name")),
        json!(status),
        json!(completions),
        json!(duration),
        age(obj, now),
        json!(names),
        json!(images),
        json!(selector_string(obj)),
    ]
}

/// An `IntOrString` as Go's `String()` prints it, or `N/A` when unset.
fn int_or_string(v: Option<&Value>) -> String {
    match v {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => "N/A".to_string(),
    }
}

/// `printPodDisruptionBudget`.
pub(crate) fn pdb(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(int_or_string(obj.pointer("/spec/minAvailable"))),
        json!(int_or_string(obj.pointer("/spec/maxUnavailable"))),
        json!(i(obj, "/status/disruptionsAllowed")),
        age(obj, now),
    ]
}
