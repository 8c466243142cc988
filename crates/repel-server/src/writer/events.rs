//! The core/v1 Events the control plane records, from the component upstream names, through
//! the recorders' correlator; and the clock they are stamped with.

use repel_engine::event_correlator::{Correlation, Correlator, Recording};
use repel_engine::events::{Event as EngineEvent, EventType};
use serde_json::{Value, json};

use crate::store::{Op, Store, new_uid, ns_name};
use crate::time;

use super::objects::resource_of;

/// Whether Karpenter recorded the event: its provisioner's (`Nominated`, and a
/// `FailedScheduling` that starts "Failed to schedule pod, ") and disruption's.
pub(super) fn is_karpenters(reason: &str, message: &str) -> bool {
    matches!(
        reason,
        "Nominated" | "DisruptionLaunching" | "DisruptionTerminating" | "DisruptionBlocked"
    ) || reason == "FailedScheduling" && message.starts_with("Failed to schedule pod, ")
}

/// The component upstream records an event from, by its reason and the kind of its object
/// (a workload's controller records about its workload under its own name).
pub fn component(reason: &str, kind: &str) -> &'static str {
    match reason {
        "Scheduled" | "FailedScheduling" | "Preempted" => "default-scheduler",
        "TaintManagerEviction" => "taint-eviction-controller",
        "RegisteredNode" | "RemovingNode" | "NodeNotReady" => "node-controller",
        "TaintToleration" => "kubelet",
        _ => match kind {
            "ReplicaSet" => "replicaset-controller",
            "Deployment" => "deployment-controller",
            "DaemonSet" => "daemonset-controller",
            "StatefulSet" => "statefulset-controller",
            "Job" => "job-controller",
            "CronJob" => "cronjob-controller",
            "ReplicationController" => "replication-controller",
            _ => "controllermanager",
        },
    }
}

/// The Event objects of a pass's `events`: each one, or, through `correlator` (upstream's
/// recorders' spam filter, aggregation and counting), what it leaves of them — a new object,
/// an update of one written before (in this batch or stored), or nothing. The scheduler's
/// events (upstream records them through the events API, which does none of that) are
/// written as they come.
pub(super) fn event_ops(
    store: &Store,
    events: &[EngineEvent],
    clock: EventClock,
    mut correlator: Option<&mut Correlator>,
) -> Vec<(String, Op)> {
    let mut ops: Vec<(String, Op)> = Vec::new();
    // Events of this batch by namespace/name: where an update finds one created just before.
    let mut batch: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let wall_ms = (time::now_nanos() / 1_000_000) as repel_engine::clock::Millis;
    for e in events {
        let Some(mut ev) = event_object(store, e, clock) else {
            continue;
        };
        let ns = ev["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if let Some(c) = correlator.as_deref_mut()
            && ev["source"]["component"] != "default-scheduler"
        {
            let at = match clock {
                EventClock::Wall => wall_ms,
                EventClock::Scenario { zero_unix_ms, .. } => zero_unix_ms + e.at_ms,
            };
            let o = &ev["involvedObject"];
            let outcome = c.record(
                &Recording {
                    component: ev["source"]["component"].as_str().unwrap_or(""),
                    kind: o["kind"].as_str().unwrap_or(""),
                    namespace: o["namespace"].as_str().unwrap_or(""),
                    name: o["name"].as_str().unwrap_or(""),
                    uid: o["uid"].as_str().unwrap_or(""),
                    api_version: o["apiVersion"].as_str().unwrap_or(""),
                    type_: ev["type"].as_str().unwrap_or(""),
                    reason: ev["reason"].as_str().unwrap_or(""),
                    message: ev["message"].as_str().unwrap_or(""),
                },
                at,
            );
            match outcome {
                Correlation::Skip => continue,
                Correlation::Create { message, key } => {
                    ev["message"] = json!(message);
                    let name = ev["metadata"]["name"].as_str().unwrap_or("").to_string();
                    c.created(key, name);
                }
                Correlation::Update {
                    name,
                    count,
                    message,
                } => {
                    let last = ev["lastTimestamp"].clone();
                    let update = |v: &mut Value| {
                        v["count"] = json!(count);
                        v["lastTimestamp"] = last.clone();
                        v["message"] = json!(message);
                    };
                    let id = format!("{ns}/{name}");
                    if let Some(&i) = batch.get(&id) {
                        if let Some((_, Op::Put(_, v))) = ops.get_mut(i) {
                            update(v);
                        }
                    } else if let Some(mut cur) = store.get("events", &ns, &name) {
                        update(&mut cur);
                        batch.insert(id, ops.len());
                        ops.push(("events".to_string(), Op::Put(String::new(), cur)));
                    }
                    // (An event a client deleted since is not written again.)
                    continue;
                }
            }
        }
        let name = ev["metadata"]["name"].as_str().unwrap_or("").to_string();
        batch.insert(format!("{ns}/{name}"), ops.len());
        ops.push(("events".to_string(), Op::Put(String::new(), ev)));
    }
    ops
}

/// A core/v1 Event about `obj`, as upstream's recorders write them.
pub fn event(
    obj: &Value,
    kind: &str,
    type_: &str,
    reason: &str,
    message: &str,
    component: &str,
) -> Value {
    let (ns, name) = ns_name(obj);
    let ev_ns = if ns.is_empty() {
        "default".to_string()
    } else {
        ns.clone()
    };
    let now = time::now_rfc3339();
    let suffix: String = new_uid()
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .take(16)
        .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": format!("{name}.{suffix}"), "namespace": ev_ns},
        "involvedObject": {
            "apiVersion": obj["apiVersion"], "kind": kind, "name": name, "namespace": ns,
            "uid": obj["metadata"]["uid"], "resourceVersion": obj["metadata"]["resourceVersion"]
        },
        "reason": reason,
        "message": message,
        "source": {"component": component},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": type_,
        "reportingComponent": component,
        "reportingInstance": ""
    })
}

/// The core/v1 Event for an engine event, about the stored object it names (`Pod/ns/name`,
/// `Node/name`, `<Kind>/ns/name`); `None` when the object is gone.
pub(super) fn event_object(store: &Store, e: &EngineEvent, clock: EventClock) -> Option<Value> {
    let mut parts = e.object.splitn(3, '/');
    let kind = parts.next()?;
    let (ns, name) = match (parts.next(), parts.next()) {
        (Some(ns), Some(name)) => (ns, name),
        (Some(name), None) => ("", name),
        _ => return None,
    };
    let resource = resource_of(kind)?;
    // A deleted pod's event still names it (the taint manager's eviction, PodGC): without the
    // object, its name and namespace are enough.
    let obj = store
        .read(resource, ns, name, |o| {
            json!({
                "apiVersion": o["apiVersion"],
                "metadata": {
                    "name": name, "namespace": ns,
                    "uid": o["metadata"]["uid"],
                    "resourceVersion": o["metadata"]["resourceVersion"],
                }
            })
        })
        .unwrap_or_else(|| {
            let api = (kind == "NodeClaim").then_some("karpenter.sh/v1");
            json!({"apiVersion": api, "metadata": {"name": name, "namespace": ns}})
        });
    let type_ = match e.kind {
        EventType::Normal => "Normal",
        EventType::Warning => "Warning",
    };
    let mut ev = event(
        &obj,
        kind,
        type_,
        &e.reason,
        &e.message,
        if is_karpenters(&e.reason, &e.message) {
            "karpenter"
        } else {
            component(&e.reason, kind)
        },
    );
    if let EventClock::Scenario { .. } = clock {
        let at = repel_engine::controllers::node_lifecycle::sim_timestamp(clock.stamp(e.at_ms));
        ev["firstTimestamp"] = json!(time::rfc3339(at));
        ev["lastTimestamp"] = ev["firstTimestamp"].clone();
        ev["metadata"]["annotations"] =
            json!({CLUSTER_TIME_ANNOTATION: format!("{:.3}", e.at_ms as f64 / 1000.0)});
    }
    Some(ev)
}

/// The annotation on the events of a scenario played by `repel serve --scenario`: the cluster
/// time of the event, in seconds since the scenario's start (`repel simulate`'s `at`).
pub const CLUSTER_TIME_ANNOTATION: &str = "repel.dev/cluster-time";

/// Which time events carry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventClock {
    /// The wall clock's (`serve`'s control plane runs on a scaled clock of its own).
    Wall,
    /// A scenario's: it started at the Unix time `zero_unix_ms` and plays `scale` cluster
    /// seconds per wall second. An event at cluster time `t` is stamped with the wall time it
    /// was played at, `zero_unix_ms + t / scale` (what `kubectl get events` ages), and carries
    /// `t` in [`CLUSTER_TIME_ANNOTATION`]; the recorders' correlator counts on cluster time,
    /// the controllers' own clock.
    Scenario {
        /// The Unix time (ms) of the scenario's time 0.
        zero_unix_ms: repel_engine::clock::Millis,
        /// `--time-scale`: cluster seconds per wall second (positive).
        scale: f64,
    },
}

impl EventClock {
    /// The wall time (Unix ms) an event at cluster time `at_ms` is stamped with.
    pub fn stamp(self, at_ms: repel_engine::clock::Millis) -> repel_engine::clock::Millis {
        match self {
            EventClock::Wall => at_ms,
            EventClock::Scenario {
                zero_unix_ms,
                scale,
            } => {
                let scale = if scale > 0.0 { scale } else { 1.0 };
                zero_unix_ms + (at_ms as f64 / scale).round() as repel_engine::clock::Millis
            }
        }
    }
}
