//! The control plane's actions written to the store as API writes (issue 14): the other half
//! of the `serve` driver, beside [`crate::view`]. A pass's [`Changes`] (deletions first, then
//! creations and updates, each object once) and events become:
//!
//! - a pod created → a create (the store gives it its uid, creationTimestamp, resourceVersion);
//! - a pod bound, or whose status changed → an update of the stored pod's `spec.nodeName` and
//!   `status` only (what the scheduler's binding and the kubelet's and controllers' status
//!   writes change; labels and the rest stay as the user last wrote them);
//! - a pod deleted gracefully (its kubelet is not running) → `deletionTimestamp` set, as a
//!   delete request does; deleted → removed;
//! - a node created → a create; changed → its labels, taints, `unschedulable` and conditions;
//!   deleted → removed;
//! - each event → a core/v1 Event about its object, from the component upstream names.
//!
//! A write that finds its object gone (deleted meanwhile by a client) is dropped: the view
//! learns of the deletion from the change stream.

use repel_engine::actions::Changes;
use repel_engine::cluster::Cluster;
use repel_engine::events::{Event as EngineEvent, EventType};
use serde_json::{Value, json};

use crate::store::{Op, Store, StoreError};

/// The component upstream records an event reason from.
pub fn component(reason: &str) -> &'static str {
    match reason {
        "Scheduled" | "FailedScheduling" | "Preempted" => "default-scheduler",
        "TaintManagerEviction" => "taint-eviction-controller",
        "RegisteredNode" | "RemovingNode" | "NodeNotReady" => "node-controller",
        "TaintToleration" => "kubelet",
        _ => "controllermanager",
    }
}

fn pod_json(c: &Cluster, id: usize) -> Value {
    serde_json::to_value(c.pods[id].to_pod()).unwrap_or(Value::Null)
}

/// Writes one pass: `changes` read against `c` (the view after the pass) and its `events`.
pub fn write(
    store: &Store,
    c: &Cluster,
    changes: &Changes,
    events: &[EngineEvent],
) -> Result<(), StoreError> {
    let ignore_gone = |r: Result<Value, StoreError>| match r {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    };
    for id in &changes.deleted_pods {
        let p = &c.pods[*id];
        ignore_gone(store.delete("pods", &p.namespace, &p.name))?;
    }
    for name in &changes.deleted_nodes {
        ignore_gone(store.delete("nodes", "", name))?;
    }
    for name in &changes.created_nodes {
        if let Some(id) = c.node_id(name) {
            let node = serde_json::to_value(&*c.nodes[id].node).unwrap_or(Value::Null);
            match store.create("nodes", node) {
                Ok(_) | Err(StoreError::AlreadyExists) => {}
                Err(e) => return Err(e),
            }
        }
    }
    for id in &changes.created_pods {
        match store.create("pods", pod_json(c, *id)) {
            Ok(_) | Err(StoreError::AlreadyExists) => {}
            Err(e) => return Err(e),
        }
        if c.pods[*id].terminating {
            mark_terminating(store, &c.pods[*id].namespace, &c.pods[*id].name)?;
        }
    }
    for id in &changes.updated_pods {
        let p = &c.pods[*id];
        let new = pod_json(c, *id);
        ignore_gone(
            store.modify::<StoreError>("pods", &p.namespace, &p.name, |cur| {
                let mut obj = cur.clone();
                if let Some(n) = new["spec"]["nodeName"].as_str() {
                    obj["spec"]["nodeName"] = json!(n);
                }
                match &new["status"] {
                    Value::Null => {}
                    s => obj["status"] = s.clone(),
                }
                obj["metadata"]["resourceVersion"] = Value::Null;
                Ok(Some(obj))
            }),
        )?;
        if p.terminating {
            mark_terminating(store, &p.namespace, &p.name)?;
        }
    }
    for name in &changes.updated_nodes {
        let Some(id) = c.node_id(name) else {
            continue;
        };
        let view = serde_json::to_value(&*c.nodes[id].node).unwrap_or(Value::Null);
        ignore_gone(store.modify::<StoreError>("nodes", "", name, |cur| {
            let mut obj = cur.clone();
            obj["metadata"]["labels"] = view["metadata"]["labels"].clone();
            for f in ["taints", "unschedulable"] {
                match &view["spec"][f] {
                    Value::Null => {
                        if let Some(spec) = obj["spec"].as_object_mut() {
                            spec.remove(f);
                        }
                    }
                    v => obj["spec"][f] = v.clone(),
                }
            }
            if !view["status"]["conditions"].is_null() {
                obj["status"]["conditions"] = view["status"]["conditions"].clone();
            }
            obj["metadata"]["resourceVersion"] = Value::Null;
            Ok(Some(obj))
        }))?;
    }
    let ops: Vec<(String, Op)> = events
        .iter()
        .filter_map(|e| event_object(store, e))
        .map(|e| ("events".to_string(), Op::Put(String::new(), e)))
        .collect();
    store.write_batch(ops)
}

/// Deletes a stored pod gracefully, as a delete request does ([`crate::kubelet::delete_pod`]:
/// `deletionTimestamp` on a pod whose node exists; an object already gone is no error).
fn mark_terminating(store: &Store, ns: &str, name: &str) -> Result<(), StoreError> {
    match crate::kubelet::delete_pod(store, ns, name, None) {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The core/v1 Event for an engine event, about the stored object it names (`Pod/ns/name`,
/// `Node/name`, `<Kind>/ns/name`); `None` when the object is gone.
fn event_object(store: &Store, e: &EngineEvent) -> Option<Value> {
    let mut parts = e.object.splitn(3, '/');
    let kind = parts.next()?;
    let (ns, name) = match (parts.next(), parts.next()) {
        (Some(ns), Some(name)) => (ns, name),
        (Some(name), None) => ("", name),
        _ => return None,
    };
    let resource = match kind {
        "Pod" => "pods",
        "Node" => "nodes",
        "ReplicaSet" => "replicasets",
        "StatefulSet" => "statefulsets",
        "DaemonSet" => "daemonsets",
        "Job" => "jobs",
        "Deployment" => "deployments",
        _ => return None,
    };
    // A deleted pod's event still names it (the taint manager's eviction, PodGC): without the
    // object, its name and namespace are enough.
    let obj = store
        .get(resource, ns, name)
        .unwrap_or_else(|| json!({"metadata": {"name": name, "namespace": ns}}));
    let type_ = match e.kind {
        EventType::Normal => "Normal",
        EventType::Warning => "Warning",
    };
    Some(crate::engine::event(
        &obj,
        kind,
        type_,
        &e.reason,
        &e.message,
        component(&e.reason),
    ))
}

#[cfg(test)]
mod tests;
