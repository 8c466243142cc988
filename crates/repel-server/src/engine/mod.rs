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
//! 3. **scheduler** — pending pods go through repel-engine's compiled scheduler (the default profile)
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
use repel_engine::Outcome;
use repel_engine::cluster::Cluster;
use repel_engine::controllers::kubelet;
use repel_engine::load::assume_allocatable;
use repel_engine::scheduler::fast::FastScheduler;
use serde_json::{Value, json};

use crate::App;

mod eviction;
mod nodes;
mod scheduling;
mod workloads;
use crate::kubelet::{
    LEASE_NAMESPACE, delete_pod, healthy_conditions, is_ready, join_node, lease, run_pod,
    terminating,
};
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
    scheduler: FastScheduler,
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

impl Engine {
    /// An engine over `app`'s store; `scale` cluster seconds pass per wall second.
    pub fn new(app: Arc<App>, scale: f64) -> Engine {
        let gates = app.admission.gates;
        Engine {
            app,
            scale: if scale > 0.0 { scale } else { 1.0 },
            scheduler: FastScheduler::new(gates, None, 0),
            names: NameRng::new(time::now_nanos() as u64, "repel-serve"),
            stopped: HashMap::new(),
            no_execute: HashMap::new(),
            last_lease: None,
            seen_rv: None,
        }
    }

    /// Runs forever: a tick every [`TICK`] or when an API write wakes it.
    /// A pass runs on the blocking pool: scheduling a big batch takes seconds and must not
    /// hold up an async worker that serves requests.
    pub async fn run(mut self) {
        loop {
            let (app, scale) = (self.app.clone(), self.scale);
            self = match tokio::task::spawn_blocking(move || {
                self.tick(Instant::now());
                self
            })
            .await
            {
                Ok(engine) => engine,
                Err(e) => {
                    // A pass that panicked (a bug) must not take the server down with it.
                    eprintln!("repel serve: engine pass failed: {e}");
                    Engine::new(app, scale)
                }
            };
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
        // What this pass wrote may need another pass (a pod it marked Terminating, one it
        // created): only a pass that changes nothing makes the engine idle.
        self.seen_rv = Some(rv);
    }
}
