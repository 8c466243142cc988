//! The simulated kubelet's node status: the reasons and messages the kubelet writes on its
//! conditions (`pkg/kubelet/nodestatus/setters.go`) and the events it records on a change
//! ("Node <name> status is now: <event>").

use k8s_openapi::api::core::v1::NodeCondition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::{MESSAGE_NODE_STATUS_UNKNOWN, REASON_NODE_STATUS_UNKNOWN, sim_timestamp};
use crate::clock::Millis;

/// `(reason, message, event)` the kubelet (or, for `NetworkUnavailable`, the route controller)
/// writes for a condition status.
fn kubelet_strings(
    type_: &str,
    status: &str,
) -> Option<(&'static str, &'static str, Option<&'static str>)> {
    Some(match (type_, status) {
        ("Ready", "True") => (
            "KubeletReady",
            "kubelet is posting ready status",
            Some("NodeReady"),
        ),
        ("Ready", "False") => (
            "KubeletNotReady",
            "container runtime is down",
            Some("NodeNotReady"),
        ),
        ("Ready", "Unknown") => (
            REASON_NODE_STATUS_UNKNOWN,
            MESSAGE_NODE_STATUS_UNKNOWN,
            None,
        ),
        ("MemoryPressure", "True") => (
            "KubeletHasInsufficientMemory",
            "kubelet has insufficient memory available",
            Some("NodeHasInsufficientMemory"),
        ),
        ("MemoryPressure", "False") => (
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
            Some("NodeHasSufficientMemory"),
        ),
        ("DiskPressure", "True") => (
            "KubeletHasDiskPressure",
            "kubelet has disk pressure",
            Some("NodeHasDiskPressure"),
        ),
        ("DiskPressure", "False") => (
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
            Some("NodeHasNoDiskPressure"),
        ),
        ("PIDPressure", "True") => (
            "KubeletHasInsufficientPID",
            "kubelet has insufficient PID available",
            Some("NodeHasInsufficientPID"),
        ),
        ("PIDPressure", "False") => (
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
            Some("NodeHasSufficientPID"),
        ),
        ("NetworkUnavailable", "True") => ("NoRouteCreated", "Node created without a route", None),
        ("NetworkUnavailable", "False") => {
            ("RouteCreated", "RouteController created a route", None)
        }
        (_, "Unknown") => (
            REASON_NODE_STATUS_UNKNOWN,
            MESSAGE_NODE_STATUS_UNKNOWN,
            None,
        ),
        _ => return None,
    })
}

/// Writes condition `type_` = `status` at `now` as the kubelet reports it: heartbeat `now`;
/// on a change (or a new condition) the status, reason, message and `lastTransitionTime = now`.
/// Returns the kubelet's event reason when the status changed and the kubelet records one.
pub(super) fn report(
    conds: &mut Vec<NodeCondition>,
    type_: &str,
    status: &str,
    now: Millis,
) -> Option<&'static str> {
    let strings = kubelet_strings(type_, status);
    let ts = Time(sim_timestamp(now));
    let idx = match conds.iter().position(|c| c.type_ == type_) {
        Some(i) => i,
        None => {
            conds.push(NodeCondition {
                type_: type_.to_string(),
                ..NodeCondition::default()
            });
            conds.len() - 1
        }
    };
    let c = &mut conds[idx];
    c.last_heartbeat_time = Some(ts.clone());
    if c.status == status && c.last_transition_time.is_some() {
        return None;
    }
    // A condition the node did not report yet counts as a change when it is not the healthy
    // one (a node without conditions is taken as healthy), so MemoryPressure=True set on a
    // hand-written node records NodeHasInsufficientMemory.
    let healthy = if type_ == "Ready" { "True" } else { "False" };
    let changed = !c.status.is_empty() || status != healthy;
    c.status = status.to_string();
    c.reason = strings.map(|s| s.0.to_string());
    c.message = strings.map(|s| s.1.to_string());
    c.last_transition_time = Some(ts);
    if changed {
        strings.and_then(|s| s.2)
    } else {
        None
    }
}

/// Puts back the kubelet's last report `saved` when heartbeats resume at `at`: its status,
/// reason and message, heartbeat `at`, `lastTransitionTime = at` if the status changes. Returns
/// the kubelet's event reason on a change.
pub(super) fn restore(
    conds: &mut Vec<NodeCondition>,
    saved: &NodeCondition,
    at: Millis,
) -> Option<&'static str> {
    let ts = Time(sim_timestamp(at));
    let Some(c) = conds.iter_mut().find(|c| c.type_ == saved.type_) else {
        let mut c = saved.clone();
        c.last_heartbeat_time = Some(ts.clone());
        c.last_transition_time = Some(ts);
        conds.push(c);
        return None;
    };
    c.last_heartbeat_time = Some(ts.clone());
    if c.status == saved.status {
        return None;
    }
    c.status = saved.status.clone();
    c.reason = saved.reason.clone();
    c.message = saved.message.clone();
    c.last_transition_time = Some(ts);
    kubelet_strings(&saved.type_, &saved.status).and_then(|s| s.2)
}
