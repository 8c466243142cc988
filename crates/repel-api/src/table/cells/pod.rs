//! `printPod`: the pod row (printers.go, v1.32).

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::{age, arr, human_duration_millis, i, millis_between, or_none, parse_time, s};

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
pub(crate) fn pod(obj: &Value, now: Timestamp) -> Vec<Value> {
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

    // The internal type the printer reads has `podIPs` filled from `podIP` by the v1
    // conversion when only `podIP` is set.
    let pod_ip = arr(obj, "/status/podIPs")
        .first()
        .map(|p| s(p, "/ip"))
        .unwrap_or_else(|| s(obj, "/status/podIP"));
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
