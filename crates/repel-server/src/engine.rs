//! The engine live: the control plane's loops over the store, on a wall clock scaled by
//! `--time-scale`.
//!
//! # Design
//! The store is the source of truth. The engine keeps no copy of the cluster between ticks:
//! each tick (every [`TICK`], and at once after an API write) reads the objects it needs,
//! decides with repel-core and repel-engine exactly as the offline commands do, and writes its
//! decisions back through the store (one batch per step), so watches and kubectl see every
//! binding, phase change, taint and eviction. What it remembers is only what upstream's
//! controllers keep in memory: when a NoExecute taint was first seen on a pod's node, and when
//! a node's kubelet stopped.
//!
//! One tick, in order:
//! 1. **kubelets and node lifecycle** — a node created through the API registers (status,
//!    Ready); a node annotated `repel.dev/heartbeat=stopped` stops its kubelet: after
//!    [`NODE_MONITOR_GRACE_SECONDS`] of cluster time its conditions become `Unknown`; the
//!    condition taints follow the Ready condition (`not-ready`/`unreachable`, NoSchedule and
//!    NoExecute, with `timeAdded`); Leases are renewed every [`LEASE_PERIOD`] of wall time.
//! 2. **workload controllers** — a Deployment keeps a ReplicaSet `<name>-<pod-template-hash>`;
//!    ReplicaSets, StatefulSets, DaemonSets and Jobs create their missing pods (repel-core's
//!    `controller_pod`, then admission as any API create).
//! 3. **scheduler** — pending pods go through repel-engine's `Scheduler` (the default profile)
//!    on a `Cluster` built from the store; a placement is written as the binding, a failure as
//!    the `PodScheduled=False` condition with upstream's FitError message.
//! 4. **kubelets** — a bound pod on a Ready node starts Running, unless the node has a
//!    NoExecute taint the pod does not tolerate (kubelet admission: phase Failed, reason
//!    `TaintToleration`).
//! 5. **taint eviction** — a pod on a node with NoExecute taints is deleted at once when it
//!    does not tolerate one, after the smallest `tolerationSeconds` of cluster time otherwise
//!    (repel-core `no_execute_outcome`), with the `TaintManagerEviction` event.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod, Taint, Toleration};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_core::NoExecuteOutcome;
use repel_core::taint::{TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE};
use repel_core::workload::{NameRng, Workload, controller_pod, daemon_nodes, pod_template_hash};
use repel_engine::cluster::Cluster;
use repel_engine::controllers::kubelet;
use repel_engine::load::assume_allocatable;
use repel_engine::{Outcome, Scheduler};
use serde_json::{Value, json};

use crate::App;
use crate::kubelet::{LEASE_NAMESPACE, healthy_conditions, is_ready, join_node, lease, run_pod};
use crate::store::{Op, new_uid, ns_name};
use crate::time;

/// How often the engine runs when nothing wakes it.
pub const TICK: Duration = Duration::from_millis(200);

/// How often (wall time) the simulated kubelets renew their Leases.
pub const LEASE_PERIOD: Duration = Duration::from_secs(10);

/// The node-lifecycle controller's grace before a silent node is `Unknown` (upstream
/// `--node-monitor-grace-period`, 50 s since v1.32).
pub const NODE_MONITOR_GRACE_SECONDS: f64 = 50.0;

/// The annotation that stops (value `stopped`) a simulated node's kubelet.
pub const HEARTBEAT_ANNOTATION: &str = "repel.dev/heartbeat";

/// The engine's memory between ticks.
pub struct Engine {
    app: Arc<App>,
    scale: f64,
    scheduler: Scheduler,
    names: NameRng,
    /// Node name → when its kubelet was first seen stopped.
    stopped: HashMap<String, Instant>,
    /// Pod uid → when a NoExecute taint it tolerates for a while was first seen on its node,
    /// and the `tolerationSeconds` then in force: the deadline, which later taint changes do
    /// not move (upstream `processPodOnNode` keeps a scheduled eviction).
    no_execute: HashMap<String, (Instant, i64)>,
    last_lease: Option<Instant>,
    /// The store's resourceVersion after the last full tick.
    seen_rv: Option<u64>,
}

fn typed<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
    serde_json::from_value(v.clone()).ok()
}

fn put(resource: &str, obj: Value) -> (String, Op) {
    (resource.to_string(), Op::Put(String::new(), obj))
}

fn is_terminal(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    )
}

fn node_name_of(pod: &Value) -> Option<&str> {
    pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty())
}

/// `(kind, name)` of a pod's controller.
fn controller(pod: &Value) -> Option<(String, String)> {
    pod["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|o| o["controller"] == true)
        .map(|o| {
            (
                o["kind"].as_str().unwrap_or("").to_string(),
                o["name"].as_str().unwrap_or("").to_string(),
            )
        })
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

fn condition_status<'a>(node: &'a Value, kind: &str) -> Option<&'a str> {
    node["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)?["status"]
        .as_str()
}

/// The condition taints a node should carry for its Ready condition (upstream node-lifecycle
/// controller and TaintNodesByCondition): False → not-ready, Unknown → unreachable, each
/// NoSchedule and NoExecute; True → none.
fn condition_taint_key(node: &Value) -> Option<&'static str> {
    match condition_status(node, "Ready") {
        Some("False") => Some(TAINT_NODE_NOT_READY),
        Some("Unknown") => Some(TAINT_NODE_UNREACHABLE),
        _ => None,
    }
}

fn sync_condition_taints(node: &mut Value) {
    let want = condition_taint_key(node);
    let mut taints: Vec<Value> = node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let before = taints.clone();
    taints.retain(|t| {
        let k = t["key"].as_str().unwrap_or("");
        let managed = k == TAINT_NODE_NOT_READY || k == TAINT_NODE_UNREACHABLE;
        !managed || Some(k) == want
    });
    if let Some(key) = want {
        for effect in ["NoSchedule", "NoExecute"] {
            if !taints
                .iter()
                .any(|t| t["key"] == key && t["effect"] == effect)
            {
                taints
                    .push(json!({"key": key, "effect": effect, "timeAdded": time::now_rfc3339()}));
            }
        }
    }
    if taints != before {
        if taints.is_empty() {
            if let Some(spec) = node.pointer_mut("/spec").and_then(Value::as_object_mut) {
                spec.remove("taints");
            }
        } else {
            node["spec"]["taints"] = json!(taints);
        }
    }
}

fn set_all_unknown(node: &mut Value) {
    let now = time::now_rfc3339();
    if let Some(cs) = node
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    {
        for c in cs {
            c["status"] = json!("Unknown");
            c["reason"] = json!("NodeStatusUnknown");
            c["message"] = json!("Kubelet stopped posting node status.");
            c["lastTransitionTime"] = json!(now);
        }
    }
}

impl Engine {
    /// An engine over `app`'s store; `scale` cluster seconds pass per wall second.
    pub fn new(app: Arc<App>, scale: f64) -> Engine {
        let gates = app.admission.gates;
        Engine {
            app,
            scale: if scale > 0.0 { scale } else { 1.0 },
            scheduler: Scheduler::new(gates, None, 0),
            names: NameRng::new(time::now_nanos() as u64, "repel-serve"),
            stopped: HashMap::new(),
            no_execute: HashMap::new(),
            last_lease: None,
            seen_rv: None,
        }
    }

    /// Runs forever: a tick every [`TICK`] or when an API write wakes it.
    pub async fn run(mut self) {
        loop {
            self.tick(Instant::now());
            tokio::select! {
                _ = self.app.wake.notified() => {}
                _ = tokio::time::sleep(TICK) => {}
            }
        }
    }

    fn cluster_seconds_since(&self, then: Instant, now: Instant) -> f64 {
        now.saturating_duration_since(then).as_secs_f64() * self.scale
    }

    fn write(&self, ops: Vec<(String, Op)>) {
        if let Err(e) = self.app.store.write_batch(ops) {
            eprintln!("repel serve: engine write failed: {e}");
        }
    }

    /// One pass of every loop. Skipped when nothing changed since the last pass and no timer
    /// (a stopped kubelet, a NoExecute toleration running out, a Lease renewal) is due.
    pub fn tick(&mut self, now: Instant) {
        let rv = self.app.store.resource_version();
        let lease_due = self
            .last_lease
            .is_none_or(|t| now.saturating_duration_since(t) >= LEASE_PERIOD);
        if self.seen_rv == Some(rv)
            && !lease_due
            && self.stopped.is_empty()
            && self.no_execute.is_empty()
        {
            return;
        }
        self.nodes(now);
        self.workloads();
        self.schedule();
        self.kubelets();
        self.taint_eviction(now);
        self.workload_status();
        self.seen_rv = Some(self.app.store.resource_version());
    }

    /// The status fields `kubectl get deploy,rs,sts,ds` print: replicas, ready, available.
    fn workload_status(&self) {
        let (pods, _) = self.app.store.list("pods", None);
        // (ns, kind, name) -> (pods, running pods)
        let mut counts: HashMap<(String, String, String), (i64, i64)> = HashMap::new();
        for p in pods.iter().filter(|p| !is_terminal(p)) {
            if let Some((k, n)) = controller(p) {
                let e = counts.entry((ns_name(p).0, k, n)).or_default();
                e.0 += 1;
                if p["status"]["phase"] == "Running" {
                    e.1 += 1;
                }
            }
        }
        let mut ops = Vec::new();
        let mut by_deployment: HashMap<(String, String), (i64, i64)> = HashMap::new();
        for (res, kind) in [
            ("replicasets", "ReplicaSet"),
            ("statefulsets", "StatefulSet"),
            ("daemonsets", "DaemonSet"),
        ] {
            let (objs, _) = self.app.store.list(res, None);
            for o in objs {
                let (ns, name) = ns_name(&o);
                let (total, ready) = counts
                    .get(&(ns.clone(), kind.to_string(), name))
                    .copied()
                    .unwrap_or((0, 0));
                let mut n = o.clone();
                let generation = o["metadata"]["generation"].as_i64().unwrap_or(1);
                n["status"] = match kind {
                    "DaemonSet" => json!({
                        "currentNumberScheduled": total, "desiredNumberScheduled": total,
                        "numberMisscheduled": 0, "numberReady": ready, "numberAvailable": ready,
                        "updatedNumberScheduled": total, "observedGeneration": generation
                    }),
                    "StatefulSet" => json!({
                        "replicas": total, "readyReplicas": ready, "currentReplicas": total,
                        "updatedReplicas": total, "availableReplicas": ready, "observedGeneration": generation
                    }),
                    _ => json!({
                        "replicas": total, "fullyLabeledReplicas": total, "readyReplicas": ready,
                        "availableReplicas": ready, "observedGeneration": generation
                    }),
                };
                if kind == "ReplicaSet"
                    && let Some((k, dn)) = controller(&o)
                    && k == "Deployment"
                {
                    let e = by_deployment.entry((ns, dn)).or_default();
                    e.0 += total;
                    e.1 += ready;
                }
                if n != o {
                    ops.push(put(res, n));
                }
            }
        }
        let (deps, _) = self.app.store.list("deployments", None);
        for d in deps {
            let (ns, name) = ns_name(&d);
            let (total, ready) = by_deployment.get(&(ns, name)).copied().unwrap_or((0, 0));
            let want = d["spec"]["replicas"].as_i64().unwrap_or(1);
            let mut n = d.clone();
            n["status"] = json!({
                "replicas": total, "updatedReplicas": total, "readyReplicas": ready,
                "availableReplicas": ready, "unavailableReplicas": (want - ready).max(0),
                "observedGeneration": d["metadata"]["generation"].as_i64().unwrap_or(1)
            });
            if let Some(m) = n["status"].as_object_mut() {
                m.retain(|_, v| v != &json!(0));
            }
            if n != d {
                ops.push(put("deployments", n));
            }
        }
        self.write(ops);
    }

    fn nodes(&mut self, now: Instant) {
        let (nodes, _) = self.app.store.list("nodes", None);
        let mut ops = Vec::new();
        let renew = self
            .last_lease
            .is_none_or(|t| now.saturating_duration_since(t) >= LEASE_PERIOD);
        let mut seen = HashSet::new();
        for node in nodes {
            let (_, name) = ns_name(&node);
            seen.insert(name.clone());
            let mut n = node.clone();
            let registering = n["status"]["nodeInfo"].is_null();
            if registering {
                join_node(&mut n);
            }
            let stopped = n["metadata"]["annotations"][HEARTBEAT_ANNOTATION] == "stopped";
            if stopped {
                let since = *self.stopped.entry(name.clone()).or_insert(now);
                if self.cluster_seconds_since(since, now) >= NODE_MONITOR_GRACE_SECONDS
                    && condition_status(&n, "Ready") != Some("Unknown")
                {
                    set_all_unknown(&mut n);
                }
            } else {
                self.stopped.remove(&name);
                let unknown_by_us = n["status"]["conditions"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Ready" && c["reason"] == "NodeStatusUnknown")
                });
                if unknown_by_us {
                    n["status"]["conditions"] = healthy_conditions(&time::now_rfc3339());
                }
            }
            sync_condition_taints(&mut n);
            if n != node {
                ops.push(put("nodes", n));
            }
            if (renew && !stopped) || registering {
                let mut l = lease(&name, node["metadata"]["uid"].as_str());
                if let Some(old) = self.app.store.get("leases", LEASE_NAMESPACE, &name) {
                    l["metadata"] = old["metadata"].clone();
                    l["spec"]["acquireTime"] = old["spec"]["acquireTime"].clone();
                }
                ops.push(put("leases", l));
            }
        }
        self.stopped.retain(|n, _| seen.contains(n));
        if renew {
            self.last_lease = Some(now);
        }
        self.write(ops);
    }

    fn create_pod(&self, pod: &Pod) -> Option<Value> {
        let r = crate::resources::find("", "pods")?;
        let v = serde_json::to_value(pod).ok()?;
        let ns = pod
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        let none = HashMap::new();
        let admitted = self
            .app
            .admission
            .create(&self.app.store, r, Some(&ns), v, &none)
            .ok()?;
        self.app.store.create("pods", admitted).ok()
    }

    fn workloads(&mut self) {
        let (pods, _) = self.app.store.list("pods", None);
        let mut owned: HashMap<(String, String, String), Vec<&Value>> = HashMap::new();
        for p in pods.iter().filter(|p| !is_terminal(p)) {
            if let Some((k, n)) = controller(p) {
                let (ns, _) = ns_name(p);
                owned.entry((ns, k, n)).or_default().push(p);
            }
        }
        let count = |ns: &str, kind: &str, name: &str| {
            owned
                .get(&(ns.to_string(), kind.to_string(), name.to_string()))
                .map_or(0, Vec::len)
        };
        // Deployments keep one ReplicaSet.
        let (deps, _) = self.app.store.list("deployments", None);
        for d in deps {
            let Some(dep) = typed::<Deployment>(&d) else {
                continue;
            };
            let spec = &dep.spec;
            let hash = pod_template_hash(&spec.template);
            let (ns, name) = ns_name(&d);
            let rs_name = format!("{name}-{hash}");
            let replicas = spec.replicas.unwrap_or(1);
            let mut template = serde_json::to_value(&spec.template).unwrap_or(json!({}));
            template["metadata"]["labels"]["pod-template-hash"] = json!(hash);
            let mut selector = serde_json::to_value(&spec.selector).unwrap_or(json!({}));
            selector["matchLabels"]["pod-template-hash"] = json!(hash);
            let rs = json!({
                "apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {
                    "name": rs_name, "namespace": ns,
                    "labels": template["metadata"]["labels"].clone(),
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                        "uid": d["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true}]
                },
                "spec": {"replicas": replicas, "selector": selector, "template": template}
            });
            match self.app.store.get("replicasets", &ns, &rs_name) {
                None => {
                    let _ = self.app.store.create("replicasets", rs);
                }
                Some(old) if old["spec"]["replicas"] != json!(replicas) => {
                    let mut new = old.clone();
                    new["spec"]["replicas"] = json!(replicas);
                    self.write(vec![put("replicasets", new)]);
                }
                Some(_) => {}
            }
        }
        let mut to_create: Vec<Pod> = Vec::new();
        let mut to_delete: Vec<(String, String)> = Vec::new();
        let (rss, _) = self.app.store.list("replicasets", None);
        for v in rss {
            let Some(rs) = typed::<ReplicaSet>(&v) else {
                continue;
            };
            let (ns, name) = ns_name(&v);
            let want = rs.spec.replicas.unwrap_or(1).max(0) as usize;
            let have = count(&ns, "ReplicaSet", &name);
            let w = Workload::ReplicaSet(rs);
            for _ in have..want {
                let pod_name = format!("{name}-{}", self.names.suffix(5));
                to_create.extend(controller_pod(&w, pod_name, "ReplicaSet", &name, None));
            }
            if have > want
                && let Some(ps) = owned.get(&(ns.clone(), "ReplicaSet".into(), name.clone()))
            {
                for p in ps.iter().rev().take(have - want) {
                    to_delete.push(ns_name(p));
                }
            }
        }
        let (stss, _) = self.app.store.list("statefulsets", None);
        for v in stss {
            let Some(sts) = typed::<StatefulSet>(&v) else {
                continue;
            };
            let (ns, name) = ns_name(&v);
            let want = sts.spec.replicas.unwrap_or(1).max(0);
            let w = Workload::StatefulSet(sts);
            for i in 0..want {
                let pod_name = format!("{name}-{i}");
                if self.app.store.get("pods", &ns, &pod_name).is_none() {
                    to_create.extend(controller_pod(&w, pod_name, "StatefulSet", &name, None));
                }
            }
        }
        let (dss, _) = self.app.store.list("daemonsets", None);
        if !dss.is_empty() {
            let (nodes, _) = self.app.store.list("nodes", None);
            let typed_nodes: Vec<Node> = nodes.iter().filter_map(typed).collect();
            for v in dss {
                let Some(ds) = typed::<DaemonSet>(&v) else {
                    continue;
                };
                let (ns, name) = ns_name(&v);
                let covered: HashSet<String> = owned
                    .get(&(ns.clone(), "DaemonSet".into(), name.clone()))
                    .map(|ps| ps.iter().filter_map(|p| daemon_target(p)).collect())
                    .unwrap_or_default();
                let targets: Vec<String> =
                    daemon_nodes(&ds, &typed_nodes, &self.app.admission.gates)
                        .iter()
                        .filter_map(|n| n.metadata.name.clone())
                        .collect();
                let w = Workload::DaemonSet(ds);
                for node in targets.iter().filter(|n| !covered.contains(*n)) {
                    let pod_name = format!("{name}-{}", self.names.suffix(5));
                    to_create.extend(controller_pod(&w, pod_name, "DaemonSet", &name, Some(node)));
                }
            }
        }
        let (jobs, _) = self.app.store.list("jobs", None);
        for v in jobs {
            let Some(job) = typed::<Job>(&v) else {
                continue;
            };
            let (ns, name) = ns_name(&v);
            let want = job
                .spec
                .as_ref()
                .and_then(|s| s.parallelism.or(s.completions))
                .unwrap_or(1)
                .max(0) as usize;
            let have = count(&ns, "Job", &name);
            let w = Workload::Job(job);
            for _ in have..want {
                let pod_name = format!("{name}-{}", self.names.suffix(5));
                to_create.extend(controller_pod(&w, pod_name, "Job", &name, None));
            }
        }
        for (ns, name) in to_delete {
            let _ = self.app.store.delete("pods", &ns, &name);
        }
        for p in &to_create {
            self.create_pod(p);
        }
    }

    fn schedule(&mut self) {
        let (pods, _) = self.app.store.list("pods", None);
        let mut pending: Vec<&Value> = pods
            .iter()
            .filter(|p| {
                node_name_of(p).is_none()
                    && !is_terminal(p)
                    && p["metadata"]["deletionTimestamp"].is_null()
                    && p["spec"]["schedulerName"]
                        .as_str()
                        .is_none_or(|s| s == "default-scheduler")
            })
            .collect();
        if pending.is_empty() {
            return;
        }
        pending.sort_by(|a, b| {
            let ka = (
                a["metadata"]["creationTimestamp"].as_str(),
                a["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|r| r.parse::<u64>().ok()),
            );
            let kb = (
                b["metadata"]["creationTimestamp"].as_str(),
                b["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|r| r.parse::<u64>().ok()),
            );
            ka.cmp(&kb)
        });
        let mut cluster = self.build_cluster(&pods);
        let mut ops = Vec::new();
        let mut deletes = Vec::new();
        for p in pending {
            let (ns, name) = ns_name(p);
            let Some(id) = cluster.pod_id(&ns, &name) else {
                continue;
            };
            let mut new = p.clone();
            let now = time::now_rfc3339();
            match self.scheduler.schedule_one(&mut cluster, id) {
                Outcome::Scheduled { node, .. } => {
                    let node_name = cluster.nodes[node].name.clone();
                    new["spec"]["nodeName"] = json!(node_name);
                    set_pod_condition(
                        &mut new,
                        json!({"type": "PodScheduled", "status": "True", "lastTransitionTime": now}),
                    );
                    ops.push(put("pods", new));
                    let msg = format!("Successfully assigned {ns}/{name} to {node_name}");
                    ops.push(put(
                        "events",
                        event(p, "Pod", "Normal", "Scheduled", &msg, "default-scheduler"),
                    ));
                }
                Outcome::Unschedulable { message, nominated } => {
                    if let Some((node, victims)) = nominated {
                        new["status"]["nominatedNodeName"] =
                            json!(cluster.nodes[node].name.clone());
                        for v in victims {
                            if let Some(vi) = cluster.pods.get(v) {
                                deletes.push((vi.namespace.clone(), vi.name.clone()));
                            }
                        }
                    }
                    let cond = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message, "lastTransitionTime": now});
                    let changed = set_pod_condition(&mut new, cond);
                    if changed || new != *p {
                        ops.push(put("pods", new));
                        ops.push(put(
                            "events",
                            event(
                                p,
                                "Pod",
                                "Warning",
                                "FailedScheduling",
                                &message,
                                "default-scheduler",
                            ),
                        ));
                    }
                }
            }
        }
        self.write(ops);
        for (ns, name) in deletes {
            let _ = self.app.store.delete("pods", &ns, &name);
        }
    }

    fn build_cluster(&self, pods: &[Value]) -> Cluster {
        let mut cluster = Cluster::new();
        let (nodes, _) = self.app.store.list("nodes", None);
        for n in nodes.iter().filter_map(typed::<Node>) {
            let mut n = n;
            assume_allocatable(&mut n);
            cluster.add_node(n);
        }
        let (nss, _) = self.app.store.list("namespaces", None);
        cluster.namespaces = nss.iter().filter_map(typed::<Namespace>).collect();
        let (pdbs, _) = self.app.store.list("poddisruptionbudgets", None);
        cluster.pdbs = pdbs
            .iter()
            .filter_map(typed::<PodDisruptionBudget>)
            .collect();
        for res in ["replicasets", "statefulsets", "daemonsets", "jobs"] {
            let (ws, _) = self.app.store.list(res, None);
            for v in ws {
                let w = match res {
                    "replicasets" => typed(&v).map(Workload::ReplicaSet),
                    "statefulsets" => typed(&v).map(Workload::StatefulSet),
                    "daemonsets" => typed(&v).map(Workload::DaemonSet),
                    _ => typed(&v).map(Workload::Job),
                };
                if let Some(w) = w {
                    cluster.register_workload(&w);
                }
            }
        }
        for p in pods
            .iter()
            .filter(|p| !is_terminal(p))
            .filter_map(typed::<Pod>)
        {
            cluster.add_pod(p);
        }
        cluster
    }

    fn kubelets(&mut self) {
        let (pods, _) = self.app.store.list("pods", None);
        let mut nodes: BTreeMap<String, Option<Value>> = BTreeMap::new();
        let mut ops = Vec::new();
        for p in pods {
            let Some(node_name) = node_name_of(&p) else {
                continue;
            };
            if p["status"]["phase"] != "Pending" && !p["status"]["phase"].is_null() {
                continue;
            }
            let node = nodes
                .entry(node_name.to_string())
                .or_insert_with(|| self.app.store.get("nodes", "", node_name))
                .clone();
            let Some(node) = node.filter(is_ready) else {
                continue;
            };
            if node["metadata"]["annotations"][HEARTBEAT_ANNOTATION] == "stopped" {
                continue;
            }
            let mut new = p.clone();
            let taints: Vec<Taint> = typed(&node["spec"]["taints"]).unwrap_or_default();
            let tolerations: Vec<Toleration> = typed(&p["spec"]["tolerations"]).unwrap_or_default();
            let rejected = repel_core::find_matching_untolerated_taint(
                &taints,
                &tolerations,
                |t| t.effect == "NoExecute",
                &self.app.admission.gates,
            )
            .is_some();
            if rejected {
                // Kubelet admission (upstream predicate.go): a pod bound, by spec.nodeName, to a
                // node with a NoExecute taint it does not tolerate fails.
                new["status"]["phase"] = json!("Failed");
                new["status"]["reason"] = json!(kubelet::REASON);
                new["status"]["message"] =
                    json!(format!("{}{}", kubelet::STATUS_PREFIX, kubelet::MESSAGE));
                ops.push(put(
                    "events",
                    event(
                        &p,
                        "Pod",
                        "Warning",
                        kubelet::REASON,
                        kubelet::MESSAGE,
                        "kubelet",
                    ),
                ));
            } else {
                run_pod(&mut new, &node);
            }
            ops.push(put("pods", new));
        }
        self.write(ops);
    }

    fn taint_eviction(&mut self, now: Instant) {
        let (nodes, _) = self.app.store.list("nodes", None);
        let no_exec: HashMap<String, Vec<Taint>> = nodes
            .iter()
            .filter_map(|n| {
                let taints: Vec<Taint> = typed::<Vec<Taint>>(&n["spec"]["taints"])?
                    .into_iter()
                    .filter(|t| t.effect == "NoExecute")
                    .collect();
                (!taints.is_empty()).then(|| (ns_name(n).1, taints))
            })
            .collect();
        if no_exec.is_empty() {
            self.no_execute.clear();
            return;
        }
        let (pods, _) = self.app.store.list("pods", None);
        let mut keep = HashSet::new();
        let mut evict = Vec::new();
        for p in &pods {
            let Some(taints) = node_name_of(p).and_then(|n| no_exec.get(n)) else {
                continue;
            };
            if is_terminal(p) {
                continue;
            }
            let tolerations: Vec<Toleration> = typed(&p["spec"]["tolerations"]).unwrap_or_default();
            let uid = p["metadata"]["uid"].as_str().unwrap_or("").to_string();
            match repel_core::no_execute_outcome(taints, &tolerations, &self.app.admission.gates) {
                NoExecuteOutcome::Never => {}
                NoExecuteOutcome::Immediately => evict.push(p),
                NoExecuteOutcome::After(secs) => {
                    let (since, secs) = *self.no_execute.entry(uid.clone()).or_insert((now, secs));
                    keep.insert(uid);
                    if self.cluster_seconds_since(since, now) >= secs as f64 {
                        evict.push(p);
                    }
                }
            }
        }
        self.no_execute.retain(|uid, _| keep.contains(uid));
        let mut ops = Vec::new();
        for p in evict {
            let (ns, name) = ns_name(p);
            if self.app.store.delete("pods", &ns, &name).is_ok() {
                let msg = format!("Marking for deletion Pod {ns}/{name}");
                ops.push(put(
                    "events",
                    event(
                        p,
                        "Pod",
                        "Normal",
                        "TaintManagerEviction",
                        &msg,
                        "taint-eviction-controller",
                    ),
                ));
            }
        }
        self.write(ops);
    }
}

/// The node a DaemonSet pod is pinned to (its `spec.nodeName`, or the node affinity term the
/// DaemonSet controller sets).
fn daemon_target(p: &Value) -> Option<String> {
    if let Some(n) = node_name_of(p) {
        return Some(n.to_string());
    }
    let terms = p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"].as_array()?;
    terms.iter().find_map(|t| {
        t["matchFields"].as_array()?.iter().find_map(|f| {
            (f["key"] == "metadata.name")
                .then(|| f["values"][0].as_str().map(str::to_string))
                .flatten()
        })
    })
}

/// Sets a pod condition by type; returns whether its status, reason or message changed.
fn set_pod_condition(pod: &mut Value, cond: Value) -> bool {
    if !pod["status"]["conditions"].is_array() {
        pod["status"]["conditions"] = json!([]);
    }
    let Some(cs) = pod
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    else {
        return false;
    };
    match cs.iter_mut().find(|c| c["type"] == cond["type"]) {
        Some(c) => {
            let changed = c["status"] != cond["status"]
                || c["reason"] != cond["reason"]
                || c["message"] != cond["message"];
            if changed {
                *c = cond;
            }
            changed
        }
        None => {
            cs.push(cond);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(ready: &str, taints: Value) -> Value {
        json!({"metadata": {"name": "n"}, "spec": {"taints": taints},
               "status": {"conditions": [{"type": "Ready", "status": ready}]}})
    }

    #[test]
    fn condition_taints_follow_the_ready_condition() {
        let mut n = node("Unknown", json!([{"key": "a", "effect": "NoSchedule"}]));
        sync_condition_taints(&mut n);
        let keys: Vec<String> = n["spec"]["taints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                format!(
                    "{}:{}",
                    t["key"].as_str().unwrap(),
                    t["effect"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(
            keys,
            vec![
                "a:NoSchedule",
                "node.kubernetes.io/unreachable:NoSchedule",
                "node.kubernetes.io/unreachable:NoExecute"
            ]
        );
        assert!(n["spec"]["taints"][2]["timeAdded"].is_string());
        n["status"]["conditions"][0]["status"] = json!("True");
        sync_condition_taints(&mut n);
        assert_eq!(
            n["spec"]["taints"],
            json!([{"key": "a", "effect": "NoSchedule"}])
        );
        let mut bare = node("True", json!(null));
        bare["spec"] = json!({});
        sync_condition_taints(&mut bare);
        assert_eq!(
            bare["spec"],
            json!({}),
            "a healthy node gets no taints field"
        );
    }

    #[test]
    fn a_pod_condition_is_replaced_by_type() {
        let mut p = json!({"status": {}});
        assert!(set_pod_condition(
            &mut p,
            json!({"type": "PodScheduled", "status": "False", "message": "x"})
        ));
        assert!(!set_pod_condition(
            &mut p,
            json!({"type": "PodScheduled", "status": "False", "message": "x"})
        ));
        assert!(set_pod_condition(
            &mut p,
            json!({"type": "PodScheduled", "status": "True"})
        ));
        assert_eq!(p["status"]["conditions"].as_array().unwrap().len(), 1);
    }
}
