//! The control plane's actions written to the store as API writes (issue 14): the other half
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

use k8s_openapi::api::core::v1::Pod;
use repel_core::admission::AdmissionConfig;
use repel_engine::actions::{Changes, ObjectWrite};
use repel_engine::cluster::Cluster;
use repel_engine::event_correlator::{Correlator, Outcome, Recording};
use repel_engine::events::{Event as EngineEvent, EventType};
use serde_json::{Value, json};

use crate::admission::Admission;
use crate::store::{Op, Store, StoreError, new_uid, ns_name};
use crate::time;

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

/// Whether Karpenter recorded the event: its provisioner's (`Nominated`, and a
/// `FailedScheduling` that starts "Failed to schedule pod, ") and disruption's.
fn is_karpenters(reason: &str, message: &str) -> bool {
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

/// The Event objects of a pass's `events`: each one, or, through `correlator` (upstream's
/// recorders' spam filter, aggregation and counting), what it leaves of them — a new object,
/// an update of one written before (in this batch or stored), or nothing. The scheduler's
/// events (upstream records them through the events API, which does none of that) are
/// written as they come.
fn event_ops(
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
                Outcome::Skip => continue,
                Outcome::Create { message, key } => {
                    ev["message"] = json!(message);
                    let name = ev["metadata"]["name"].as_str().unwrap_or("").to_string();
                    c.created(key, name);
                }
                Outcome::Update {
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

/// Creates a pod through admission, as the API's create does ([`Admission::create_pod`]: the
/// pod is typed already; `config` is the admission plugins' configuration, read once per
/// pass). An object already there (a client's of the same name) is left; a pod admission
/// refuses is reported on stderr and left out (the view drops it at its next sync).
/// A pod created already running (created, bound and started in one pass) gets its kubelet's
/// running status rendered, and its conditions the wall clock's time.
fn create_pod(
    store: &Store,
    admission: &Admission,
    config: &AdmissionConfig,
    nodes: &mut NodeCache,
    mut pod: Pod,
) -> Result<(), StoreError> {
    let (ns, name) = (
        pod.metadata.namespace.clone().unwrap_or_default(),
        pod.metadata.name.clone().unwrap_or_default(),
    );
    // An owner the control plane created this pass (a ReplicaSet) got its uid from the store
    // just now: the pod's reference carries it, as upstream's always does.
    for r in pod.metadata.owner_references.iter_mut().flatten() {
        let Some(resource) = resource_of(&r.kind) else {
            continue;
        };
        if let Some(Some(uid)) = store.read(resource, &ns, &r.name, |o| {
            o["metadata"]["uid"].as_str().map(str::to_string)
        }) {
            r.uid = uid;
        }
    }
    let mut pod = match admission.create_pod(store, config, pod) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("repel serve: the control plane's pods {ns}/{name} refused: {e:?}");
            return Ok(());
        }
    };
    if let Some(r) = crate::resources::find("", "pods")
        && let Err(e) = crate::policy::admit_create(store, &r, &ns, &pod)
    {
        eprintln!("repel serve: the control plane's pods {ns}/{name} refused: {e:?}");
        return Ok(());
    }
    if let Some(cs) = pod.pointer_mut("/status/conditions") {
        stamp(cs, &Value::Null, "type", &[]);
    }
    if pod["status"]["phase"] == "Running"
        && let Some(node) = pod["spec"]["nodeName"]
            .as_str()
            .and_then(|n| nodes.get(store, n))
    {
        crate::kubelet::run_pod(&mut pod, &node);
    }
    match store.add("pods", pod) {
        Ok(_) | Err(StoreError::AlreadyExists) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates an object through admission (defaults, validation, `metadata.generation`); one the
/// API server would refuse is reported on stderr and left out: the control plane's view drops
/// it at the next sync.
fn create(
    store: &Store,
    admission: &Admission,
    group: &str,
    resource: &str,
    obj: Value,
) -> Result<(), StoreError> {
    let (ns, name) = ns_name(&obj);
    let Some(r) = crate::resources::find(group, resource) else {
        return Ok(());
    };
    let namespace = (!ns.is_empty()).then_some(ns.as_str());
    let admitted = match admission.create(store, &r, namespace, obj, &Default::default()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("repel serve: the control plane's {resource} {ns}/{name} refused: {e:?}");
            return Ok(());
        }
    };
    if let Err(e) = crate::policy::admit_create(store, &r, &ns, &admitted) {
        eprintln!("repel serve: the control plane's {resource} {ns}/{name} refused: {e:?}");
        return Ok(());
    }
    match store.add(resource, admitted) {
        Ok(_) | Err(StoreError::AlreadyExists) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Stamps the entries of `new` (a list of conditions, keyed by `key`) with the wall clock
/// where they changed from `old`'s: an entry whose `status` is unchanged keeps `old`'s
/// `lastTransitionTime` (and the `keep` fields, such as a node's `lastHeartbeatTime`); a new
/// or changed one gets the wall clock's in all of them. (The control plane's own times run on
/// the scaled clock.) Nothing is inserted where `new` is not a list.
fn stamp(new: &mut Value, old: &Value, key: &str, keep: &[&str]) {
    let Some(items) = new.as_array_mut() else {
        return;
    };
    let now = time::now_rfc3339();
    for item in items {
        let before = old
            .as_array()
            .and_then(|o| o.iter().find(|x| x[key] == item[key]));
        match before {
            Some(b) if b["status"] == item["status"] => {
                item["lastTransitionTime"] = b["lastTransitionTime"].clone();
                for f in keep {
                    item[*f] = b[*f].clone();
                }
            }
            _ => {
                item["lastTransitionTime"] = json!(now);
                for f in keep {
                    item[*f] = json!(now);
                }
            }
        }
        if let Some(m) = item.as_object_mut() {
            m.retain(|_, v| !v.is_null());
        }
    }
}

/// A controller's `status` with the wall-clock times its upstream controller writes and the
/// engine leaves out (see [`stamp`]): a Deployment's conditions' `lastUpdateTime` and
/// `lastTransitionTime`; a Job's `startTime` (when it was first synced), its conditions'
/// `lastProbeTime` and `lastTransitionTime`, and `completionTime` once `Complete` (what
/// `kubectl describe job` prints as Start Time, Completed At and Duration).
fn with_times(resource: &str, mut status: Value, old: &Value) -> Value {
    let keep: &[&str] = match resource {
        "deployments" => &["lastUpdateTime"],
        "jobs" => &["lastProbeTime"],
        _ => return status,
    };
    if status.get("conditions").is_some() {
        stamp(&mut status["conditions"], &old["conditions"], "type", keep);
    }
    if resource == "jobs" {
        let now = json!(time::now_rfc3339());
        let since = |key: &str| match &old[key] {
            Value::String(_) => old[key].clone(),
            _ => now.clone(),
        };
        status["startTime"] = since("startTime");
        let complete = status["conditions"].as_array().is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Complete" && c["status"] == "True")
        });
        if complete {
            status["completionTime"] = since("completionTime");
        }
    }
    status
}

/// Taints the control plane added (a `timeAdded` not in `old`) get the wall clock's time.
fn stamp_taints(new: &mut Value, old: &Value) {
    let Some(items) = new.as_array_mut() else {
        return;
    };
    let now = time::now_rfc3339();
    for t in items.iter_mut().filter(|t| !t["timeAdded"].is_null()) {
        let before = old.as_array().and_then(|o| {
            o.iter()
                .find(|x| x["key"] == t["key"] && x["effect"] == t["effect"])
        });
        t["timeAdded"] = match before {
            Some(b) if !b["timeAdded"].is_null() => b["timeAdded"].clone(),
            _ => json!(now),
        };
    }
}

/// The resource of a kind the control plane writes or names.
fn resource_of(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "Pod" => "pods",
        "Node" => "nodes",
        "ReplicaSet" => "replicasets",
        "ReplicationController" => "replicationcontrollers",
        "StatefulSet" => "statefulsets",
        "DaemonSet" => "daemonsets",
        "Job" => "jobs",
        "Deployment" => "deployments",
        // Karpenter's events name its NodeClaims, which the store does not hold yet: the
        // event carries the kind, group and name alone.
        "NodeClaim" => "nodeclaims",
        _ => return None,
    })
}

/// The resource's API group, for the workload resources the controllers write.
fn group_of(resource: &str) -> &'static str {
    match resource {
        "jobs" | "cronjobs" => "batch",
        "poddisruptionbudgets" => "policy",
        "pods" | "nodes" => "",
        _ => "apps",
    }
}

/// Writes the workload controllers' object writes (see [`ObjectWrite`]): ReplicaSets created
/// through admission, scaled and annotated (a `spec.replicas` change is a new
/// `metadata.generation`), statuses, deletions. A write that finds its object gone is dropped.
pub fn write_objects(
    store: &Store,
    admission: &Admission,
    writes: &[ObjectWrite],
) -> Result<(), StoreError> {
    for w in writes {
        let r = match w {
            ObjectWrite::Create { resource, object } => create(
                store,
                admission,
                group_of(resource),
                resource,
                object.clone(),
            ),
            ObjectWrite::Update {
                resource,
                namespace,
                name,
                replicas,
                annotations,
            } => store
                .modify::<StoreError>(resource, namespace, name, |cur| {
                    let mut obj = cur.clone();
                    if let Some(n) = replicas
                        && obj["spec"]["replicas"] != json!(n)
                    {
                        obj["spec"]["replicas"] = json!(n);
                        let generation = obj["metadata"]["generation"].as_i64().unwrap_or(1);
                        obj["metadata"]["generation"] = json!(generation + 1);
                    }
                    for (k, v) in annotations {
                        match v {
                            Some(v) => obj["metadata"]["annotations"][k.as_str()] = json!(v),
                            None => {
                                if let Some(a) = obj["metadata"]["annotations"].as_object_mut() {
                                    a.remove(k.as_str());
                                }
                            }
                        }
                    }
                    if obj == *cur {
                        return Ok(None);
                    }
                    obj["metadata"]["resourceVersion"] = Value::Null;
                    Ok(Some(obj))
                })
                .map(|_| ()),
            ObjectWrite::SetRevision {
                namespace,
                name,
                revision,
            } => store
                .modify::<StoreError>("controllerrevisions", namespace, name, |cur| {
                    if cur["revision"] == json!(revision) {
                        return Ok(None);
                    }
                    let mut obj = cur.clone();
                    obj["revision"] = json!(revision);
                    obj["metadata"]["resourceVersion"] = Value::Null;
                    Ok(Some(obj))
                })
                .map(|_| ()),
            ObjectWrite::Status {
                resource,
                namespace,
                name,
                status,
            } => store
                .modify::<StoreError>(resource, namespace, name, |cur| {
                    let status = with_times(resource, status.clone(), &cur["status"]);
                    if cur["status"] == status {
                        return Ok(None);
                    }
                    let mut obj = cur.clone();
                    obj["status"] = status;
                    obj["metadata"]["resourceVersion"] = Value::Null;
                    Ok(Some(obj))
                })
                .map(|_| ()),
            ObjectWrite::Delete {
                resource,
                namespace,
                name,
            } => store.delete(resource, namespace, name).map(|_| ()),
            ObjectWrite::Collect {
                resource,
                namespace,
                name,
                uid,
                foreground,
            } => {
                let policy = if *foreground {
                    crate::finalizers::Propagation::Foreground
                } else {
                    crate::finalizers::Propagation::Background
                };
                crate::finalizers::delete(store, resource, namespace, name, policy, Some(uid))
                    .map(|_| ())
            }
            ObjectWrite::RemoveOwnerReference {
                resource,
                namespace,
                name,
                owner_kind,
                owner_name,
                owner_uid,
            } => crate::finalizers::remove_owner_reference(
                store,
                resource,
                namespace,
                name,
                (owner_kind, owner_name, owner_uid),
            )
            .map(|_| ()),
            ObjectWrite::RemoveFinalizer {
                resource,
                namespace,
                name,
                finalizer,
            } => crate::finalizers::remove_finalizer(store, resource, namespace, name, finalizer)
                .map(|_| ()),
        };
        match r {
            Ok(()) | Err(StoreError::NotFound) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
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

/// Removes a pod the control plane deleted. A running pod its kubelet had to stop (bound to a
/// node that exists, not finished, not yet Terminating) goes as a delete request and its
/// kubelet's completion do, in two writes: first marked Terminating (`deletionTimestamp`),
/// then removed — so a watch shows it Terminating, then gone, as on a real cluster. The first
/// write carries the pod's last `status` from the view (a kubelet's rejection, say).
fn remove_pod(store: &Store, ns: &str, name: &str, status: &Value) -> Result<(), StoreError> {
    let Some((node, finished, terminating, grace)) = store.read("pods", ns, name, |cur| {
        (
            cur["spec"]["nodeName"]
                .as_str()
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            matches!(
                cur["status"]["phase"].as_str(),
                Some("Succeeded" | "Failed")
            ),
            !cur["metadata"]["deletionTimestamp"].is_null(),
            cur["spec"]["terminationGracePeriodSeconds"]
                .as_i64()
                .unwrap_or(30),
        )
    }) else {
        return Ok(());
    };
    let running = node.is_some_and(|n| store.read("nodes", "", &n, |_| ()).is_some()) && !finished;
    if running && !terminating {
        ignore_gone_value(store.modify::<StoreError>("pods", ns, name, |cur| {
            let mut obj = cur.clone();
            obj["metadata"]["deletionTimestamp"] = json!(time::now_rfc3339());
            obj["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
            if !status.is_null() {
                obj["status"] = status.clone();
                stamp(
                    &mut obj["status"]["conditions"],
                    &cur["status"]["conditions"],
                    "type",
                    &[],
                );
            }
            obj["metadata"]["resourceVersion"] = Value::Null;
            Ok(Some(obj))
        }))?;
    }
    match store.delete("pods", ns, name) {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

fn ignore_gone_value(r: Result<Value, StoreError>) -> Result<(), StoreError> {
    match r {
        Ok(_) | Err(StoreError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
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
fn event_object(store: &Store, e: &EngineEvent, clock: EventClock) -> Option<Value> {
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

#[cfg(test)]
mod tests;
