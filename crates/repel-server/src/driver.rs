//! `repel serve`'s driver of the one control plane: repel-engine's
//! [`ControlPlane`] — the same scheduler, kubelets, node-lifecycle, taint-eviction, PodGC and
//! workload controllers `repel simulate` runs — on a view of the store, its actions written back
//! as API writes, on the wall clock scaled by `--time-scale`.
//!
//! # One pass
//! 1. **the view catches up** ([`View::sync`]) with the store's change stream, as an informer's
//!    cache does: the driver's own writes come back this way too. Nodes deleted are told to the
//!    controllers that keep node ids ([`ControlPlane::node_removed`]); workload objects created,
//!    changed or deleted are handed to the workload controllers (a ReplicaSet a managed
//!    Deployment owns is one of the Deployment's revisions, not a ReplicaSet of its own).
//! 2. **kubelets** (what the simulated kubelets do that is not control-plane logic, rendered
//!    here): a node created through the API registers (its status: addresses, nodeInfo,
//!    capacity, Ready — [`kubelet::join_node`]); a node annotated `repel.dev/heartbeat=stopped`
//!    stops posting (the node-lifecycle controller is told, as the simulation's scenario step
//!    tells it), and resumes when the annotation goes; Leases are renewed every [`LEASE_PERIOD`].
//! 3. **the control plane settles** ([`ControlPlane::settle`]) at the cluster time: the Unix
//!    time at which the server started plus the wall time since, times `--time-scale`.
//! 4. **its actions are written** ([`crate::writer`]): pods created (through admission, as any
//!    API create), bound, their status, deleted (gracefully while their kubelet is down), nodes'
//!    taints and conditions, the workload controllers' ReplicaSets and statuses, the disruption
//!    controller's budget statuses ([`repel_engine::disruption::status_writes`]), and the
//!    events.
//!
//! A pass runs when the store changed, a controller's deadline came ([`ControlPlane::next_wake`])
//! or a Lease is due; otherwise the driver sleeps, at most [`TICK`], and an API write wakes it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use repel_core::workload::Workload;
use repel_engine::actions::Changes;
use repel_engine::clock::Millis;
use repel_engine::control_plane::ControlPlane;
use repel_engine::controllers::kubelet::Kubelet;
use repel_engine::controllers::node_lifecycle::{NodeLifecycleConfig, NodeLifecycleController};
use repel_engine::controllers::taint_eviction::TaintEvictionController;
use repel_engine::controllers::workloads::WorkloadControllers;
use repel_engine::events::Event as EngineEvent;
use repel_engine::scheduler::fast::FastScheduler;
use serde_json::Value;

use crate::App;
use crate::kubelet::{self, LEASE_NAMESPACE, join_node, lease};
use crate::time;
use crate::view::{GcChange, View, WorkloadChange};

/// How long the driver sleeps at most when nothing wakes it.
pub const TICK: Duration = Duration::from_millis(200);

/// How often (wall time) the simulated kubelets renew their Leases.
pub const LEASE_PERIOD: Duration = Duration::from_secs(10);

/// At most this many deadlines are settled one by one in a pass (a server that slept long,
/// or a huge `--time-scale`, jumps the rest: at most 500 s of the node monitor's 5 s grid per
/// pass).
pub const MAX_CATCH_UP: usize = 100;

/// The annotation that stops (value `stopped`) a simulated node's kubelet.
pub const HEARTBEAT_ANNOTATION: &str = "repel.dev/heartbeat";

/// The driver: the view, the control plane and the clock.
pub struct Driver {
    app: Arc<App>,
    scale: f64,
    /// The wall instant the cluster clock started, and its Unix time then (ms).
    started: (Instant, Millis),
    view: View,
    plane: ControlPlane,
    /// Nodes whose kubelet is stopped (by the annotation).
    stopped: HashSet<String>,
    last_lease: Option<Instant>,
    /// The view's resourceVersion and the cluster time of the last settled pass.
    settled: Option<(u64, Millis)>,
    /// The event recorders' correlator (spam filter, aggregation, counting), as upstream's
    /// controllers and kubelets record their events.
    correlator: repel_engine::event_correlator::Correlator,
    /// The store's resourceVersion the NodePools were last read at.
    nodepools_rv: Option<u64>,
    /// The NodeClaims written, as written.
    nodeclaims: std::collections::BTreeMap<String, serde_json::Value>,
}

/// The control plane `serve` runs: the default scheduler, kubelets, upstream's controller
/// defaults (node-lifecycle grace 50 s, eviction rates), admission as the server's.
pub fn control_plane(app: &App) -> ControlPlane {
    let gates = app.admission.gates;
    ControlPlane::new(
        FastScheduler::new(gates, None, 0),
        Kubelet::new(gates),
        TaintEvictionController::new(gates),
        NodeLifecycleController::new(NodeLifecycleConfig::default()),
        WorkloadControllers::new(
            gates,
            app.admission.config.clone(),
            time::now_nanos() as u64,
        ),
    )
}

impl Driver {
    /// A driver taking over from a scenario that recorded its events through `correlator`:
    /// an event the scenario recorded, recorded again, counts up the Event it wrote (as one
    /// recorder would) instead of writing another.
    pub fn taking_over(
        app: Arc<App>,
        scale: f64,
        correlator: repel_engine::event_correlator::Correlator,
    ) -> Driver {
        let mut d = Driver::new(app, scale);
        d.correlator = correlator;
        d
    }

    /// A driver over `app`'s store; `scale` cluster seconds pass per wall second.
    pub fn new(app: Arc<App>, scale: f64) -> Driver {
        let mut view = View::build(&app.store);
        view.cluster.record(true);
        let mut plane = control_plane(&app);
        plane.workloads.record(true);
        plane.gc.record(true);
        let unix_ms = (time::now_nanos() / 1_000_000) as Millis;
        Driver {
            app,
            scale: if scale > 0.0 { scale } else { 1.0 },
            started: (Instant::now(), unix_ms),
            view,
            plane,
            stopped: HashSet::new(),
            last_lease: None,
            settled: None,
            correlator: Default::default(),
            nodepools_rv: None,
            nodeclaims: Default::default(),
        }
    }

    /// The stored NodePools handed to Karpenter, and the stored PriorityClasses to the workload
    /// controllers' admission (the pods they create name them), when the store changed since
    /// they were read.
    fn sync_nodepools(&mut self) {
        if self.nodepools_rv == Some(self.view.rv) {
            return;
        }
        self.nodepools_rv = Some(self.view.rv);
        self.plane
            .workloads
            .set_admission(self.app.admission.pod_config(&self.app.store));
        self.plane
            .pools
            .set_karpenter(crate::karpenter::pools(&self.app));
    }

    /// Karpenter's NodeClaims written to the store: new ones created, changed ones replaced,
    /// gone ones deleted.
    fn write_nodeclaims(&mut self) {
        let store = &self.app.store;
        let key = crate::karpenter::NODECLAIMS;
        let mut live = std::collections::BTreeSet::new();
        for c in &self.plane.karpenter.claims {
            live.insert(c.name.clone());
            let obj = crate::karpenter::nodeclaim(c);
            if self.nodeclaims.get(&c.name) == Some(&obj) {
                continue;
            }
            let written = if store.get(key, "", &c.name).is_some() {
                store
                    .modify(key, "", &c.name, |cur| {
                        let mut next = cur.clone();
                        next["metadata"]["labels"] = obj["metadata"]["labels"].clone();
                        next["spec"] = obj["spec"].clone();
                        next["status"] = obj["status"].clone();
                        Ok::<_, crate::store::StoreError>(Some(next))
                    })
                    .is_ok()
            } else {
                let mut o = obj.clone();
                o["metadata"]["uid"] = serde_json::json!(crate::store::new_uid());
                o["metadata"]["creationTimestamp"] = serde_json::json!(time::now_rfc3339());
                store.create(key, o).is_ok()
            };
            if written {
                self.nodeclaims.insert(c.name.clone(), obj);
            }
        }
        let gone: Vec<String> = self
            .nodeclaims
            .keys()
            .filter(|n| !live.contains(*n))
            .cloned()
            .collect();
        for n in gone {
            let _ = store.delete(key, "", &n);
            self.nodeclaims.remove(&n);
        }
    }

    /// Runs forever: a pass when something is due, sleeping at most [`TICK`] between, woken
    /// by API writes. A pass runs on the blocking pool (scheduling a big batch takes a while and
    /// must not hold up an async worker that serves requests).
    pub async fn run(mut self) {
        loop {
            let (app, scale) = (self.app.clone(), self.scale);
            let sleep;
            (self, sleep) = match tokio::task::spawn_blocking(move || {
                let sleep = self.tick(Instant::now());
                (self, sleep)
            })
            .await
            {
                Ok(r) => r,
                Err(e) => {
                    // A pass that panicked (a bug) must not take the server down with it: a new
                    // driver lists the store again.
                    eprintln!("repel serve: control-plane pass failed: {e}");
                    (Driver::new(app, scale), TICK)
                }
            };
            tokio::select! {
                _ = self.app.wake.notified() => {}
                _ = tokio::time::sleep(sleep) => {}
            }
        }
    }

    /// The cluster time at wall instant `at`.
    pub fn cluster_time(&self, at: Instant) -> Millis {
        let wall = at.saturating_duration_since(self.started.0).as_secs_f64();
        self.started.1 + (wall * self.scale * 1000.0) as Millis
    }

    /// One pass at wall instant `at` (see the module documentation); returns how long to sleep
    /// before the next.
    pub fn tick(&mut self, at: Instant) -> Duration {
        let trace = std::env::var_os("REPEL_TRACE_DRIVER").is_some();
        let t0 = Instant::now();
        for (id, name) in self.view.sync() {
            self.plane.node_removed(id, &name);
            self.stopped.remove(&name);
        }
        // The pass's writes are committed together (one fsync with a file: see
        // `store::group`), and published when committed.
        let app = self.app.clone();
        let group = app.store.group();
        self.register_nodes();
        self.sync_workloads();
        self.sync_nodepools();
        for change in self.view.take_gc_changes() {
            match change {
                GcChange::Observe(o) => self.plane.gc.observe(*o),
                GcChange::Forget {
                    resource,
                    kind,
                    namespace,
                    name,
                    uid,
                } => self
                    .plane
                    .gc
                    .forget(&resource, &kind, &namespace, &name, &uid),
            }
        }
        let now = self.cluster_time(at);
        // Deadlines passed since the last pass are settled at their own times, as the
        // simulation does (the node-lifecycle controller's monitor passes fall on its 5 s grid;
        // a toleration runs out at its second), then the pass at `now`.
        let mut t = self.settled.map_or(now, |(_, t)| t);
        for _ in 0..MAX_CATCH_UP {
            match self.plane.next_wake(t, &self.view.cluster) {
                Some(w) if w <= now => {
                    self.settle(w);
                    t = w;
                }
                _ => break,
            }
        }
        let heartbeats_changed = self.sync_heartbeats(now);
        self.renew_leases(at);
        let t1 = Instant::now();
        if heartbeats_changed || self.settled.map(|(rv, _)| rv) != Some(self.view.rv) {
            self.settle(now);
        }
        if let Err(e) = group.finish() {
            eprintln!("repel serve: control-plane write failed: {e}");
        }
        if trace {
            eprintln!(
                "driver: sync+catch-up {:?}, settle+write {:?}, pods {}",
                t1 - t0,
                t1.elapsed(),
                self.view.cluster.pods.len()
            );
        }
        // Until the next deadline, in wall time, at most a tick.
        match self.plane.next_wake(now, &self.view.cluster) {
            Some(t) => {
                let wall = (t - now).max(0) as f64 / 1000.0 / self.scale;
                TICK.min(Duration::from_secs_f64(wall.max(0.001)))
            }
            None => TICK,
        }
    }

    /// Settles the control plane at cluster time `now` and writes what it did.
    fn settle(&mut self, now: Millis) {
        let mut events: Vec<EngineEvent> = Vec::new();
        let t0 = Instant::now();
        self.plane.settle(now, &mut self.view.cluster, &mut events);
        if std::env::var_os("REPEL_TRACE_DRIVER").is_some() {
            eprintln!("driver: settle {:?}", t0.elapsed());
        }
        let actions = self.view.cluster.take_actions();
        let changes = Changes::of(&self.view.cluster, &actions);
        let mut writes = self.plane.workloads.take_writes();
        writes.extend(repel_engine::disruption::status_writes(&self.view.cluster));
        writes.extend(self.plane.gc.take_writes());
        let store = &self.app.store;
        // New objects (a Deployment's ReplicaSets) first: the pods created for them in the
        // same pass reference them by the uid the store gives them.
        let (creates, writes): (Vec<_>, Vec<_>) = writes
            .into_iter()
            .partition(|w| matches!(w, repel_engine::actions::ObjectWrite::Create { .. }));
        if let Err(e) = crate::writer::write_objects(store, &self.app.admission, &creates)
            .and_then(|()| {
                crate::writer::write(
                    store,
                    &self.app.admission,
                    &self.view.cluster,
                    &changes,
                    &events,
                    crate::writer::EventClock::Wall,
                    Some(&mut self.correlator),
                )
            })
            .and_then(|()| crate::writer::write_objects(store, &self.app.admission, &writes))
        {
            eprintln!("repel serve: control-plane write failed: {e}");
        }
        self.write_nodeclaims();
        self.settled = Some((self.view.rv, now));
    }

    /// Workload objects the view read, handed to the workload controllers.
    fn sync_workloads(&mut self) {
        for change in self.view.take_workload_changes() {
            match change {
                WorkloadChange::Upsert(w) => {
                    let w = *w;
                    if let Workload::ReplicaSet(rs) = &w
                        && self.plane.workloads.observe_replica_set(rs)
                    {
                        continue;
                    }
                    if !self.plane.workloads.replace(w.clone()) {
                        self.plane.workloads.add(w);
                    }
                }
                WorkloadChange::Delete {
                    kind,
                    namespace,
                    name,
                } => {
                    // Its dependents are the garbage collector's: it follows the store.
                    self.plane.workloads.remove(kind, &namespace, &name);
                }
                WorkloadChange::Revision(cr) => self.plane.workloads.observe_revision(&cr),
                WorkloadChange::RevisionGone { namespace, name } => {
                    self.plane.workloads.forget_revision(&namespace, &name)
                }
            }
        }
    }

    /// Nodes whose kubelet the annotation stopped or started since the last pass; returns
    /// whether any did.
    fn sync_heartbeats(&mut self, now: Millis) -> bool {
        let mut changed = false;
        for (id, n) in self.view.cluster.nodes.iter().enumerate() {
            let stopped = n
                .node
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(HEARTBEAT_ANNOTATION))
                .is_some_and(|v| v == "stopped");
            if stopped && self.stopped.insert(n.name.clone()) {
                self.plane.node_lifecycle.stop_heartbeats(id, now);
                changed = true;
            } else if !stopped && self.stopped.remove(&n.name) {
                self.plane.node_lifecycle.resume_heartbeats(id, now);
                changed = true;
            }
        }
        changed
    }

    /// A node created through the API has no status from a kubelet yet: its simulated kubelet
    /// registers it (and takes its Lease). The view's copy is read; a node registered meanwhile
    /// is left as it is.
    fn register_nodes(&self) {
        let store = &self.app.store;
        let new: Vec<&str> = self
            .view
            .cluster
            .nodes
            .iter()
            .filter(|n| n.node.status.as_ref().is_none_or(|s| s.node_info.is_none()))
            .map(|n| n.name.as_str())
            .collect();
        for name in new {
            let registered = store.modify::<crate::store::StoreError>("nodes", "", name, |cur| {
                let mut obj = cur.clone();
                join_node(&mut obj);
                if obj == *cur {
                    return Ok(None);
                }
                obj["metadata"]["resourceVersion"] = Value::Null;
                Ok(Some(obj))
            });
            if let Ok(n) = registered
                && store.get("leases", LEASE_NAMESPACE, name).is_none()
            {
                let _ = store.create("leases", lease(name, n["metadata"]["uid"].as_str()));
            }
        }
    }

    /// Every running kubelet renews its node's Lease each [`LEASE_PERIOD`] of wall time.
    fn renew_leases(&mut self, at: Instant) {
        if self
            .last_lease
            .is_some_and(|t| at.saturating_duration_since(t) < LEASE_PERIOD)
        {
            return;
        }
        self.last_lease = Some(at);
        let store = &self.app.store;
        let renew = kubelet::micro_time_now();
        let ops: Vec<(String, crate::store::Op)> = self
            .view
            .cluster
            .nodes
            .iter()
            .filter(|n| !self.stopped.contains(&n.name))
            .filter_map(|n| {
                let mut l = store.get("leases", LEASE_NAMESPACE, &n.name)?;
                l["spec"]["renewTime"] = Value::String(renew.clone());
                Some((
                    "leases".to_string(),
                    crate::store::Op::Put(String::new(), l),
                ))
            })
            .collect();
        if let Err(e) = store.write_batch(ops) {
            eprintln!("repel serve: lease renewal failed: {e}");
        }
    }
}
