//! The cells of each kind's row: upstream's `print<Kind>` functions (printers.go, v1.32) on
//! JSON objects, and `duration.HumanDuration`.

use std::collections::BTreeSet;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

/// Upstream `duration.HumanDuration` of a duration in whole seconds.
pub fn human_duration(seconds: i64) -> String {
    human_duration_millis(seconds.saturating_mul(1000))
}

/// Upstream `duration.HumanDuration` (apimachinery `util/duration`), on milliseconds:
/// 1. below -1 s (after truncation toward zero): `<invalid>`; below 0: `0s`;
/// 2. under 2 minutes: seconds (`119s`);
/// 3. under 10 minutes: `3m10s` (`2m` when the seconds are 0); under 3 hours: minutes (`179m`);
/// 4. under 8 hours: `3h1m` (`3h`); under 48 hours: hours (`47h`);
/// 5. under 8 days: `2d1h` (`2d`); under 2 years: days (`729d`);
/// 6. under 8 years: `2y1d` (`2y`); then years (`8y`). A year is 365 days.
pub fn human_duration_millis(ms: i64) -> String {
    let seconds = ms / 1000;
    if seconds < -1 {
        return "<invalid>".to_string();
    } else if seconds < 0 {
        return "0s".to_string();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        if s == 0 {
            return format!("{minutes}m");
        }
        return format!("{minutes}m{s}s");
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            return format!("{hours}h");
        }
        format!("{hours}h{m}m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            return format!("{}d", hours / 24);
        }
        format!("{}d{h}h", hours / 24)
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            return format!("{}y", hours / 24 / 365);
        }
        format!("{}y{dy}d", hours / 24 / 365)
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

/// Upstream `translateTimestampSince`: `<unknown>` for an unset (or unparsable) time, else the
/// [`human_duration_millis`] from it to `now`.
pub fn translate_timestamp_since(ts: Option<&str>, now: Timestamp) -> String {
    match ts.and_then(parse_time) {
        None => "<unknown>".to_string(),
        Some(t) => human_duration_millis(millis_between(t, now)),
    }
}

fn parse_time(s: &str) -> Option<Timestamp> {
    s.parse::<Timestamp>().ok()
}

fn millis_between(from: Timestamp, to: Timestamp) -> i64 {
    to.as_millisecond() - from.as_millisecond()
}

/// The string at a JSON pointer, `""` when absent.
fn s<'a>(obj: &'a Value, ptr: &str) -> &'a str {
    obj.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// The integer at a JSON pointer, `0` when absent.
fn i(obj: &Value, ptr: &str) -> i64 {
    obj.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

fn arr<'a>(obj: &'a Value, ptr: &str) -> &'a [Value] {
    obj.pointer(ptr)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn age(obj: &Value, now: Timestamp) -> Value {
    let ts = obj
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str);
    json!(translate_timestamp_since(ts, now))
}

fn or_none(v: &str) -> String {
    if v.is_empty() {
        "<none>".to_string()
    } else {
        v.to_string()
    }
}

/// `printNode`.
pub(super) fn node(obj: &Value, now: Timestamp) -> Vec<Value> {
    let mut status: Vec<String> = Vec::new();
    // NodeAllConditions is just Ready; the last condition of that type wins, as in the Go map.
    if let Some(c) = arr(obj, "/status/conditions")
        .iter()
        .rev()
        .find(|c| s(c, "/type") == "Ready")
    {
        if s(c, "/status") == "True" {
            status.push("Ready".into());
        } else {
            status.push("NotReady".into());
        }
    }
    if status.is_empty() {
        status.push("Unknown".into());
    }
    if obj.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled".into());
    }
    let mut roles = BTreeSet::new();
    if let Some(labels) = obj.pointer("/metadata/labels").and_then(Value::as_object) {
        for (k, v) in labels {
            let v = v.as_str().unwrap_or("");
            if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
                if !role.is_empty() {
                    roles.insert(role.to_string());
                }
            } else if k == "kubernetes.io/role" && !v.is_empty() {
                roles.insert(v.to_string());
            }
        }
    }
    let roles: Vec<String> = roles.into_iter().collect();
    let address = |ty: &str| {
        arr(obj, "/status/addresses")
            .iter()
            .find(|a| s(a, "/type") == ty)
            .map(|a| s(a, "/address").to_string())
            .unwrap_or_else(|| "<none>".to_string())
    };
    let unknown = |v: &str| {
        if v.is_empty() {
            "<unknown>".to_string()
        } else {
            v.to_string()
        }
    };
    vec![
        json!(s(obj, "/metadata/name")),
        json!(status.join(",")),
        json!(or_none(&roles.join(","))),
        age(obj, now),
        json!(s(obj, "/status/nodeInfo/kubeletVersion")),
        json!(address("InternalIP")),
        json!(address("ExternalIP")),
        json!(unknown(s(obj, "/status/nodeInfo/osImage"))),
        json!(unknown(s(obj, "/status/nodeInfo/kernelVersion"))),
        json!(unknown(s(obj, "/status/nodeInfo/containerRuntimeVersion"))),
    ]
}

fn terminated_finished_at(status: &Value) -> Option<Timestamp> {
    status
        .pointer("/lastState/terminated/finishedAt")
        .and_then(Value::as_str)
        .and_then(parse_time)
}

fn later(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y > x { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// `printPod`.
pub(super) fn pod(obj: &Value, now: Timestamp) -> Vec<Value> {
    let init_specs = arr(obj, "/spec/initContainers");
    let restartable = |name: &str| {
        init_specs
            .iter()
            .any(|c| s(c, "/name") == name && s(c, "/restartPolicy") == "Always")
    };
    let mut restarts: i64 = 0;
    let mut restartable_init_restarts: i64 = 0;
    let total = arr(obj, "/spec/containers").len()
        + init_specs
            .iter()
            .filter(|c| s(c, "/restartPolicy") == "Always")
            .count();
    let mut ready = 0usize;
    let mut last_restart: Option<Timestamp> = None;
    let mut last_restartable_init_restart: Option<Timestamp> = None;

    let phase = s(obj, "/status/phase");
    let mut reason = phase.to_string();
    if !s(obj, "/status/reason").is_empty() {
        reason = s(obj, "/status/reason").to_string();
    }
    let conditions = arr(obj, "/status/conditions");
    if conditions
        .iter()
        .any(|c| s(c, "/type") == "PodScheduled" && s(c, "/reason") == "SchedulingGated")
    {
        reason = "SchedulingGated".to_string();
    }

    let mut initializing = false;
    let init_statuses = arr(obj, "/status/initContainerStatuses");
    for (idx, c) in init_statuses.iter().enumerate() {
        restarts += i(c, "/restartCount");
        last_restart = later(last_restart, terminated_finished_at(c));
        let is_restartable = restartable(s(c, "/name"));
        if is_restartable {
            restartable_init_restarts += i(c, "/restartCount");
            last_restartable_init_restart =
                later(last_restartable_init_restart, terminated_finished_at(c));
        }
        let terminated = c.pointer("/state/terminated");
        let waiting_reason = s(c, "/state/waiting/reason");
        if terminated.is_some() && i(c, "/state/terminated/exitCode") == 0 {
            continue;
        }
        if is_restartable && c.get("started").and_then(Value::as_bool) == Some(true) {
            if c.get("ready").and_then(Value::as_bool) == Some(true) {
                ready += 1;
            }
            continue;
        }
        if terminated.is_some() {
            let r = s(c, "/state/terminated/reason");
            reason = if r.is_empty() {
                let signal = i(c, "/state/terminated/signal");
                if signal != 0 {
                    format!("Init:Signal:{signal}")
                } else {
                    format!("Init:ExitCode:{}", i(c, "/state/terminated/exitCode"))
                }
            } else {
                format!("Init:{r}")
            };
        } else if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" {
            reason = format!("Init:{waiting_reason}");
        } else {
            reason = format!("Init:{idx}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }

    let initialized = conditions
        .iter()
        .any(|c| s(c, "/type") == "Initialized" && s(c, "/status") == "True");
    if !initializing || initialized {
        restarts = restartable_init_restarts;
        last_restart = last_restartable_init_restart;
        let mut has_running = false;
        for c in arr(obj, "/status/containerStatuses").iter().rev() {
            restarts += i(c, "/restartCount");
            last_restart = later(last_restart, terminated_finished_at(c));
            let waiting_reason = s(c, "/state/waiting/reason");
            let terminated = c.pointer("/state/terminated");
            let terminated_reason = s(c, "/state/terminated/reason");
            if !waiting_reason.is_empty() {
                reason = waiting_reason.to_string();
            } else if terminated.is_some() && !terminated_reason.is_empty() {
                reason = terminated_reason.to_string();
            } else if terminated.is_some() {
                let signal = i(c, "/state/terminated/signal");
                reason = if signal != 0 {
                    format!("Signal:{signal}")
                } else {
                    format!("ExitCode:{}", i(c, "/state/terminated/exitCode"))
                };
            } else if c.get("ready").and_then(Value::as_bool) == Some(true)
                && c.pointer("/state/running").is_some()
            {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            let pod_ready = conditions
                .iter()
                .any(|c| s(c, "/type") == "Ready" && s(c, "/status") == "True");
            reason = if pod_ready { "Running" } else { "NotReady" }.to_string();
        }
    }

    let deleting = obj
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|v| !v.is_null());
    if deleting && s(obj, "/status/reason") == "NodeLost" {
        reason = "Unknown".to_string();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".to_string();
    }

    let restarts_str = match last_restart {
        Some(t) if restarts != 0 => format!(
            "{restarts} ({} ago)",
            human_duration_millis(millis_between(t, now))
        ),
        _ => restarts.to_string(),
    };

    let pod_ip = arr(obj, "/status/podIPs")
        .first()
        .map(|p| s(p, "/ip"))
        .unwrap_or("");
    let gates = arr(obj, "/spec/readinessGates");
    let readiness_gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let true_conditions = gates
            .iter()
            .filter(|g| {
                let ty = s(g, "/conditionType");
                conditions
                    .iter()
                    .find(|c| s(c, "/type") == ty)
                    .is_some_and(|c| s(c, "/status") == "True")
            })
            .count();
        format!("{true_conditions}/{}", gates.len())
    };
    vec![
        json!(s(obj, "/metadata/name")),
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts_str),
        age(obj, now),
        json!(or_none(pod_ip)),
        json!(or_none(s(obj, "/spec/nodeName"))),
        json!(or_none(s(obj, "/status/nominatedNodeName"))),
        json!(readiness_gates),
    ]
}

/// `printNamespace`.
pub(super) fn namespace(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/status/phase")),
        age(obj, now),
    ]
}

/// `printEvent` (wide).
pub(super) fn event(obj: &Value, now: Timestamp) -> Vec<Value> {
    let first_ts = obj.pointer("/firstTimestamp").and_then(Value::as_str);
    let first = if first_ts.and_then(parse_time).is_some() {
        translate_timestamp_since(first_ts, now)
    } else {
        translate_timestamp_since(obj.pointer("/eventTime").and_then(Value::as_str), now)
    };
    let last_ts = obj.pointer("/lastTimestamp").and_then(Value::as_str);
    let mut last = if last_ts.and_then(parse_time).is_some() {
        translate_timestamp_since(last_ts, now)
    } else {
        first.clone()
    };
    let mut count = i(obj, "/count");
    if obj.get("series").is_some_and(|v| !v.is_null()) {
        last = translate_timestamp_since(
            obj.pointer("/series/lastObservedTime")
                .and_then(Value::as_str),
            now,
        );
        count = i(obj, "/series/count");
    } else if count == 0 {
        count = 1;
    }
    let kind = s(obj, "/involvedObject/kind").to_lowercase();
    let name = s(obj, "/involvedObject/name");
    let target = if name.is_empty() {
        kind
    } else {
        format!("{kind}/{name}")
    };
    let first_non_empty = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            a.to_string()
        }
    };
    let component = first_non_empty(s(obj, "/source/component"), s(obj, "/reportingComponent"));
    let instance = first_non_empty(s(obj, "/source/host"), s(obj, "/reportingInstance"));
    let source = if instance.is_empty() {
        component
    } else {
        format!("{component}, {instance}")
    };
    vec![
        json!(last),
        json!(s(obj, "/type")),
        json!(s(obj, "/reason")),
        json!(target),
        json!(s(obj, "/involvedObject/fieldPath")),
        json!(source),
        json!(s(obj, "/message").trim()),
        json!(first),
        json!(count),
        json!(s(obj, "/metadata/name")),
    ]
}

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
pub(super) fn deployment(obj: &Value, now: Timestamp) -> Vec<Value> {
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
pub(super) fn replica_set(obj: &Value, now: Timestamp) -> Vec<Value> {
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

/// `labels.FormatLabels`: sorted `k=v` pairs, or `<none>`.
fn format_labels(m: Option<&Value>) -> String {
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
pub(super) fn daemon_set(obj: &Value, now: Timestamp) -> Vec<Value> {
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
pub(super) fn stateful_set(obj: &Value, now: Timestamp) -> Vec<Value> {
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
pub(super) fn job(obj: &Value, now: Timestamp) -> Vec<Value> {
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
pub(super) fn pdb(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(int_or_string(obj.pointer("/spec/minAvailable"))),
        json!(int_or_string(obj.pointer("/spec/maxUnavailable"))),
        json!(i(obj, "/status/disruptionsAllowed")),
        age(obj, now),
    ]
}

/// `printLease`.
pub(super) fn lease(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/spec/holderIdentity")),
        age(obj, now),
    ]
}

/// Name and Age.
pub(super) fn generic(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![json!(s(obj, "/metadata/name")), age(obj, now)]
}
