//! The cells of each kind's row: upstream's `print<Kind>` functions (printers.go, v1.32) on
//! JSON objects, and `duration.HumanDuration`.

use std::collections::BTreeSet;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

mod config;
mod pod;
mod workloads;

pub(super) use config::{
    config_map, created_at, hpa, ingress, ingress_class, pvc, role_binding, secret, service,
    service_account, storage_class, validating_admission_policy,
    validating_admission_policy_binding, webhook_configuration,
};
pub(super) use pod::pod;
pub(super) use workloads::{
    daemon_set, deployment, job, pdb, replica_set, replication_controller, stateful_set,
};

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

pub(super) fn parse_time(s: &str) -> Option<Timestamp> {
    s.parse::<Timestamp>().ok()
}

pub(super) fn millis_between(from: Timestamp, to: Timestamp) -> i64 {
    to.as_millisecond() - from.as_millisecond()
}

/// The string at a JSON pointer, `""` when absent.
pub(super) fn s<'a>(obj: &'a Value, ptr: &str) -> &'a str {
    obj.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// The integer at a JSON pointer, `0` when absent.
pub(super) fn i(obj: &Value, ptr: &str) -> i64 {
    obj.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

pub(super) fn arr<'a>(obj: &'a Value, ptr: &str) -> &'a [Value] {
    obj.pointer(ptr)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

pub(super) fn age(obj: &Value, now: Timestamp) -> Value {
    let ts = obj
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str);
    json!(translate_timestamp_since(ts, now))
}

pub(super) fn or_none(v: &str) -> String {
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

/// `printLease`.
pub(super) fn lease(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/spec/holderIdentity")),
        age(obj, now),
    ]
}

/// Upstream `printControllerRevision`: its controller as `kind.group/name` (`<none>`
/// without one), its revision.
pub(super) fn controller_revision(obj: &Value, now: Timestamp) -> Vec<Value> {
    let controller = obj
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|refs| refs.iter().find(|r| r["controller"] == json!(true)))
        .map_or_else(
            || "<none>".to_string(),
            |r| {
                let kind = r["kind"].as_str().unwrap_or_default().to_lowercase();
                let group = r["apiVersion"]
                    .as_str()
                    .and_then(|v| v.rsplit_once('/'))
                    .map(|(g, _)| g)
                    .unwrap_or_default();
                let name = r["name"].as_str().unwrap_or_default();
                if group.is_empty() {
                    format!("{kind}/{name}")
                } else {
                    format!("{kind}.{group}/{name}")
                }
            },
        );
    vec![
        json!(s(obj, "/metadata/name")),
        json!(controller),
        json!(obj["revision"].as_i64().unwrap_or(0)),
        age(obj, now),
    ]
}

/// Upstream `printResourceQuota`: each resource of `status.hard`, sorted, as
/// `NAME: USED/HARD`, those named `limits.*` under Limit and the others under Request (both
/// empty until a quota controller fills the status).
pub(super) fn resource_quota(obj: &Value, now: Timestamp) -> Vec<Value> {
    let mut request: Vec<String> = Vec::new();
    let mut limit: Vec<String> = Vec::new();
    if let Some(hard) = obj.pointer("/status/hard").and_then(Value::as_object) {
        let mut names: Vec<&String> = hard.keys().collect();
        names.sort();
        for name in names {
            let used = obj
                .pointer("/status/used")
                .and_then(|u| u.get(name.as_str()))
                .and_then(Value::as_str)
                .unwrap_or("0");
            let cell = format!(
                "{name}: {used}/{}",
                hard[name.as_str()].as_str().unwrap_or("")
            );
            if name.split('.').next() == Some("limits") && name.contains('.') {
                limit.push(cell);
            } else {
                request.push(cell);
            }
        }
    }
    vec![
        json!(s(obj, "/metadata/name")),
        age(obj, now),
        json!(request.join(", ")),
        json!(limit.join(", ")),
    ]
}

/// Name and Age.
pub(super) fn generic(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![json!(s(obj, "/metadata/name")), age(obj, now)]
}
