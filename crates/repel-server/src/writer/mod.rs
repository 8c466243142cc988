//! The control plane's actions written to the store as API writes: the other half
//! of the `serve` driver, beside [`crate::view`]. A pass's [`Changes`] (deletions first, then
//! nodes created, pods updated, pods created — a watch sees an evicted pod go Terminating
//! before its replacement appears —, nodes updated; each object once) and events become:
//!
//! - a pod created → a create through admission, as any API create (the store gives it its uid,
//!   creationTimestamp, resourceVersion);
//! - a pod bound, or whose status changed → an update of the stored pod's `spec.nodeName` and
//!   `status`, and its labels and tolerations (what the scheduler's binding, the kubelet's and
//!   controllers' status writes and a scenario's steps change). A pod its kubelet
//!   starts gets the kubelet's running status rendered ([`crate::kubelet::run_pod`]: IPs,
//!   container statuses, conditions); a condition whose status changed gets the wall clock's
//!   `lastTransitionTime`;
//! - a pod deleted gracefully (its kubelet is not running) → `deletionTimestamp` set, as a
//!   delete request does; deleted → removed;
//! - a node created → a create; changed → its labels, taints, `unschedulable` and conditions
//!   (a taint or condition that is new or changed is stamped with the wall clock, as the
//!   controllers stamp theirs; the control plane's own clock runs `--time-scale` times faster);
//!   deleted → removed;
//! - each event → a core/v1 Event about its object, from the component upstream names.
//!
//! A write that finds its object gone (deleted meanwhile by a client) is dropped: the view
//! learns of the deletion from the change stream.
//!
//! # Layout
//! - this file: a pass's writes ([`write`]) and a scenario's first state ([`write_initial`]);
//! - `objects`: creates through admission, and the updates of the objects a pass changed;
//! - `pods`: a pod's end (Terminating, then removed);
//! - `stamp`: wall-clock times on changed conditions and taints;
//! - `events`: the Events, through the recorders' correlator, and their clock.

mod events;
mod objects;
mod pods;
mod stamp;

pub use events::{CLUSTER_TIME_ANNOTATION, EventClock, component, event};
pub use objects::write_objects;

use repel_core::admission::AdmissionConfig;
use repel_engine::actions::Changes;
use repel_engine::cluster::Cluster;
use repel_engine::event_correlator::Correlator;
use repel_engine::events::Event as EngineEvent;
use serde_json::{Value, json};

use crate::admission::Admission;
use crate::store::{Store, StoreError};
use events::event_ops;
use objects::create_pod;
use pods::{mark_terminating, remove_pod};
use stamp::{stamp, stamp_taints};

/// The nodes a write reads (to render a running pod's status), each read from the store once.
#[derive(Default)]
struct NodeCache(std::collections::HashMap<String, Option<std::rc::Rc<Value>>>);

impl NodeCache {
    fn get(&mut self, store: &Store, name: &str) -> Option<std::rc::Rc<Value>> {
        self.0
            .entry(name.to_string())
            .or_insert_with(|| store.get("nodes", "", name).map(std::rc::Rc::new))
            .clone()
    }
}

/// The status fields of a running pod only its kubelet writes.
const KUBELET_STATUS: [&str; 6] = [
    "containerStatuses",
    "podIP",
    "podIPs",
    "hostIP",
    "hostIPs",
    "startTime",
];

fn pod_json(c: &Cluster, id: usize) -> Value {
    serde_json::to_value(c.pods[id].to_pod()).unwrap_or(Value::Null)
}

/// Writes one pass: `changes` read against `c` (the view after the pass) and its `events`
/// (through `correlator`, when given: see [`event_ops`]).
pub fn write(
    store: &Store,
    admission: &Admission,
    c: &Cluster,
    changes: &Changes,
    events: &[EngineEvent],
    clock: EventClock,
    correlator: Option<&mut Correlator>,
) -> Result<(), StoreError> {
    // A write that finds its object gone, or changed by a client since the view read it (a
    // conflict on the view's resourceVersion), is dropped: the view reads the change from the
    // stream, and the controllers decide again on it at the next pass. (Writing the view's
    // stale copy would undo the client's change: a cordon, a label.)
    let ignore_gone = |r: Result<Value, StoreError>| match r {
        Ok(_) | Err(StoreError::NotFound | StoreError::Conflict) => Ok(()),
        Err(e) => Err(e),
    };
    let mut nodes = NodeCache::default();
    for id in &changes.deleted_pods {
        let p = &c.pods[*id];
        remove_pod(store, &p.namespace, &p.name, &pod_json(c, *id)["status"])?;
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
    for id in &changes.updated_pods {
        let p = &c.pods[*id];
        let new = pod_json(c, *id);
        let seen = new["metadata"]["resourceVersion"].clone();
        let node = new["spec"]["nodeName"]
            .as_str()
            .and_then(|n| nodes.get(store, n));
        ignore_gone(
            store.modify::<StoreError>("pods", &p.namespace, &p.name, |cur| {
                let mut obj = cur.clone();
                if let Some(n) = new["spec"]["nodeName"].as_str() {
                    obj["spec"]["nodeName"] = json!(n);
                }
                // What an update may change of a pod and a step can (a toleration added or
                // lengthened, a label): the view's. (Under `serve`, a client's change since the
                // view read the pod makes this write a conflict, dropped.)
                for (path, field) in [("metadata", "labels"), ("spec", "tolerations")] {
                    match &new[path][field] {
                        Value::Null => {
                            if let Some(m) = obj[path].as_object_mut() {
                                m.remove(field);
                            }
                        }
                        v => obj[path][field] = v.clone(),
                    }
                }
                match &new["status"] {
                    Value::Null => {}
                    s => obj["status"] = s.clone(),
                }
                // What the kubelet rendered of a running pod (IPs, container statuses) stays.
                if obj["status"]["phase"] == "Running" {
                    for k in KUBELET_STATUS {
                        if obj["status"][k].is_null() && !cur["status"][k].is_null() {
                            obj["status"][k] = cur["status"][k].clone();
                        }
                    }
                }
                let started =
                    obj["status"]["phase"] == "Running" && cur["status"]["phase"] != "Running";
                match (&node, started) {
                    (Some(node), true) => crate::kubelet::run_pod(&mut obj, node),
                    _ => {
                        if let Some(cs) = obj.pointer_mut("/status/conditions") {
                            stamp(cs, &cur["status"]["conditions"], "type", &[]);
                        }
                    }
                }
                if obj == *cur {
                    return Ok(None);
                }
                obj["metadata"]["resourceVersion"] = seen.clone();
                Ok(Some(obj))
            }),
        )?;
        if p.terminating {
            mark_terminating(store, &p.namespace, &p.name)?;
        }
    }
    let config = if changes.created_pods.is_empty() {
        AdmissionConfig::default()
    } else {
        admission.pod_config(store)
    };
    for id in &changes.created_pods {
        create_pod(store, admission, &config, &mut nodes, c.pods[*id].to_pod())?;
        if c.pods[*id].terminating {
            mark_terminating(store, &c.pods[*id].namespace, &c.pods[*id].name)?;
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
                // Upstream omits empty taints and a false `unschedulable`.
                match &view["spec"][f] {
                    Value::Null | Value::Bool(false) => {
                        if let Some(spec) = obj["spec"].as_object_mut() {
                            spec.remove(f);
                        }
                    }
                    Value::Array(a) if a.is_empty() => {
                        if let Some(spec) = obj["spec"].as_object_mut() {
                            spec.remove(f);
                        }
                    }
                    v => obj["spec"][f] = v.clone(),
                }
            }
            if let Some(taints) = obj.pointer_mut("/spec/taints") {
                stamp_taints(taints, &cur["spec"]["taints"]);
            }
            if !view["status"]["conditions"].is_null() {
                obj["status"]["conditions"] = view["status"]["conditions"].clone();
                stamp(
                    &mut obj["status"]["conditions"],
                    &cur["status"]["conditions"],
                    "type",
                    &["lastHeartbeatTime"],
                );
            }
            if obj == *cur {
                return Ok(None);
            }
            obj["metadata"]["resourceVersion"] = view["metadata"]["resourceVersion"].clone();
            Ok(Some(obj))
        }))?;
    }
    store.write_batch(event_ops(store, events, clock, correlator))
}

/// Writes the pods of a control plane's initial view that the store lacks (a scenario's
/// workloads' pods, made when its cluster was built): each created through admission, in
/// its state.
pub fn write_initial(store: &Store, admission: &Admission, c: &Cluster) -> Result<(), StoreError> {
    let config = admission.pod_config(store);
    for p in &c.pods {
        if !p.deleted && store.read("pods", &p.namespace, &p.name, |_| ()).is_none() {
            create_pod(
                store,
                admission,
                &config,
                &mut NodeCache::default(),
                p.to_pod(),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
