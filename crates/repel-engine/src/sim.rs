//! The simulation: the cluster, the scheduler and the controllers on a simulated clock, driven by
//! a scenario's steps. Deterministic: the same scenario and seed give the same events, byte for
//! byte.
//!
//! The simulation is one driver of the [`ControlPlane`]: at each point in time it settles the
//! control plane on its cluster (every controller, pass after pass, until nothing changes), then
//! jumps to the next time anything is due: a step, an expectation, a controller's deadline. The
//! cluster is the view itself; a driver watching it ([`Simulation::observe`]) gets each pass's
//! actions.

use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, create_pod};
use repel_core::defaults::{DefaultTolerationSecondsConfig, taint_nodes_by_condition};
use repel_core::workload::Workload;
use serde::Serialize;
use serde_json::Value;

use crate::actions::Action;
use crate::clock::{Millis, human, seconds};
use crate::cluster::{Cluster, PodPhase};
use crate::control_plane::ControlPlane;
use crate::controllers::kubelet::Kubelet;
use crate::controllers::node_lifecycle::{NodeLifecycleConfig, NodeLifecycleController};
use crate::controllers::taint_eviction::TaintEvictionController;
use crate::controllers::workloads::WorkloadControllers;
use crate::events::Event;
use crate::kubectl_steps::{Stream, run_kubectl};
use crate::load::{ClusterInput, assume_allocatable, build_cluster};
use crate::scenario::{Expectation, ExpectedPhase, ObjectRef, Scenario, Step, StepAction};
use crate::scheduler::fast::FastScheduler;

pub use crate::control_plane::MAX_PASSES;

/// Everything the simulation is configured with.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Feature gates.
    pub gates: FeatureGates,
    /// The seed for ties and generated names.
    pub seed: u64,
    /// `percentageOfNodesToScore`.
    pub percentage_of_nodes_to_score: Option<i64>,
    /// The admission chain.
    pub admission: AdmissionConfig,
    /// The node-lifecycle controller's flags.
    pub node_lifecycle: NodeLifecycleConfig,
}

impl SimConfig {
    /// The configuration a scenario asks for.
    pub fn from_scenario(s: &Scenario) -> Self {
        let f = &s.flags;
        let mut admission = AdmissionConfig {
            default_toleration_seconds: Some(DefaultTolerationSecondsConfig {
                not_ready_seconds: f.default_not_ready_toleration_seconds,
                unreachable_seconds: f.default_unreachable_toleration_seconds,
            }),
            ..Default::default()
        };
        // `parse_scenario` has checked the names; on an error nothing is applied.
        let _ =
            admission.apply_plugin_flags(&f.enable_admission_plugins, &f.disable_admission_plugins);
        let mut nl = NodeLifecycleConfig::default();
        if let Some(v) = f.node_monitor_grace_period {
            nl.node_monitor_grace_period = v;
        }
        if let Some(v) = f.node_eviction_rate {
            nl.node_eviction_rate = v;
        }
        if let Some(v) = f.secondary_node_eviction_rate {
            nl.secondary_node_eviction_rate = v;
        }
        if let Some(v) = f.unhealthy_zone_threshold {
            nl.unhealthy_zone_threshold = v;
        }
        if let Some(v) = f.large_cluster_size_threshold {
            nl.large_cluster_size_threshold = v;
        }
        SimConfig {
            gates: s.feature_gates,
            seed: s.seed.unwrap_or(0),
            percentage_of_nodes_to_score: f.percentage_of_nodes_to_score,
            admission,
            node_lifecycle: nl,
        }
    }
}

/// What a step did.
#[derive(Debug, Clone, Serialize)]
pub struct StepRecord {
    /// When, in seconds.
    pub at: f64,
    /// The step as written, e.g. `kubectl taint nodes node1 key1=value1:NoExecute`.
    pub step: String,
    /// What it printed (kubectl's lines).
    pub output: Vec<String>,
    /// Whether it succeeded.
    pub ok: bool,
    /// How many events were recorded before the step began: a timeline prints it after those
    /// and before the rest, so events at the same instant keep the order they happened in.
    #[serde(skip)]
    pub events_before: usize,
}

/// A pod at the end.
#[derive(Debug, Clone, Serialize)]
pub struct FinalPod {
    /// `ns/name`.
    pub pod: String,
    /// Its node, if bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// `Pending`, `Running`, `Failed`, `Succeeded`.
    pub phase: &'static str,
    /// Deleted, waiting for its node's kubelet to finish (kubectl shows `Terminating`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub terminating: bool,
}

/// One expectation's result.
#[derive(Debug, Clone, Serialize)]
pub struct ExpectationResult {
    /// `expect[i]`.
    pub index: usize,
    /// What was expected, in words.
    pub expected: String,
    /// What happened.
    pub actual: String,
    /// Whether it held.
    pub passed: bool,
}

/// A driver watching the simulation (see [`crate::actions`]): after every settled pass it gets
/// the time, the cluster as the pass left it, the changes the pass made (controllers' and
/// steps') in order, and the events the pass recorded.
pub type Observer = Box<dyn FnMut(Millis, &Cluster, Vec<Action>, &[Event]) + Send>;

/// The simulation.
pub struct Simulation {
    /// The cluster now.
    pub cluster: Cluster,
    /// Simulated time now.
    pub now: Millis,
    /// Every event so far.
    pub events: Vec<Event>,
    /// Every step so far.
    pub steps: Vec<StepRecord>,
    /// Warnings from loading.
    pub warnings: Vec<String>,
    cfg: SimConfig,
    /// Every controller (the driver here is the simulated clock).
    pub plane: ControlPlane,
    /// The scenario's end: blocking steps (a drain waiting on a budget) give up there.
    pub until_hint: Millis,
    observer: Option<Observer>,
    /// How many of [`Simulation::events`] the observer has been given.
    observed_events: usize,
}

impl Simulation {
    /// A simulation of the cluster `input` describes, at time 0 (not yet settled).
    pub fn new(mut input: ClusterInput, cfg: SimConfig) -> Self {
        let mut cfg = cfg;
        cfg.admission
            .priority_classes
            .extend(input.priority_classes.iter().cloned());
        let workloads_in = input.workloads.clone();
        let claims_in = std::mem::take(&mut input.node_claims);
        let pools = crate::controllers::node_pools::PoolController::new(
            input.pools.clone(),
            std::mem::take(&mut input.instance_types),
        );
        let mut built = build_cluster(input, &cfg.gates, &cfg.admission, cfg.seed);
        built.cluster.start_pod_clock();
        let mut warnings = built.warnings.clone();
        warnings.extend(pools.warnings.iter().cloned());
        warnings.extend(
            built
                .rejected
                .iter()
                .map(|(pod, msg)| format!("pod {pod} not created: {msg}")),
        );
        let mut workloads = WorkloadControllers::new(cfg.gates, cfg.admission.clone(), cfg.seed);
        // A workload another one manages (a Deployment's ReplicaSet) is not controlled twice:
        // a Deployment's ReplicaSets of the input are its revisions. Its pods belong to the
        // ReplicaSet the claim found for its template; when the input's ReplicaSets are all
        // of older templates, its first sync creates the new one and rolls out.
        let replica_sets: Vec<&k8s_openapi::api::apps::v1::ReplicaSet> = workloads_in
            .iter()
            .zip(&built.owners)
            .filter_map(|(w, o)| match (w, o) {
                (Workload::ReplicaSet(rs), None) => Some(&**rs),
                _ => None,
            })
            .collect();
        let of_deployment = |d: &Workload| -> Vec<String> {
            replica_sets
                .iter()
                .filter(|rs| {
                    repel_core::workload::namespace_of(&rs.metadata) == d.namespace()
                        && repel_core::workload::controller_of(&rs.metadata)
                            .is_some_and(|(k, n)| k == "Deployment" && n == d.name())
                })
                .filter_map(|rs| rs.metadata.name.clone())
                .collect()
        };
        for (w, owner) in workloads_in.iter().zip(&built.owners) {
            if let Some(owner) = owner {
                let given = matches!(w, Workload::Deployment(_))
                    .then(|| of_deployment(w))
                    .unwrap_or_default();
                if !given.is_empty() && !given.contains(&owner.name) {
                    workloads.add(w.clone());
                } else {
                    workloads.add_owned(w.clone(), &owner.kind, &owner.name);
                }
            }
        }
        for rs in &replica_sets {
            workloads.observe_replica_set(rs);
        }
        let mut plane = ControlPlane::new(
            FastScheduler::new(cfg.gates, cfg.percentage_of_nodes_to_score, cfg.seed),
            Kubelet::new(cfg.gates),
            TaintEvictionController::new(cfg.gates),
            NodeLifecycleController::new(cfg.node_lifecycle.clone()),
            workloads,
        );
        plane.pools = pools;
        let pool_list: Vec<repel_core::pools::Pool> =
            plane.pools.pools.iter().map(|s| s.pool.clone()).collect();
        warnings.extend(
            plane
                .karpenter
                .adopt(&claims_in, &built.cluster, &pool_list),
        );
        Simulation {
            cluster: built.cluster,
            now: 0,
            events: Vec::new(),
            steps: Vec::new(),
            warnings,
            plane,
            until_hint: Millis::MAX,
            observer: None,
            observed_events: 0,
            cfg,
        }
    }

    /// Hands every pass's changes to `observer` from now on (the cluster starts recording).
    pub fn observe(&mut self, observer: Observer) {
        self.cluster.record(true);
        self.observer = Some(observer);
        self.observed_events = self.events.len();
        // The first call is the cluster as it stands, with no actions: the driver's initial
        // list, as an informer's.
        self.notify();
    }

    fn notify(&mut self) {
        if let Some(o) = self.observer.as_mut() {
            let actions = self.cluster.take_actions();
            let from = self.observed_events.min(self.events.len());
            o(self.now, &self.cluster, actions, &self.events[from..]);
            self.observed_events = self.events.len();
        }
    }

    /// Runs everything at `now` until nothing changes, then tells the observer.
    pub fn settle(&mut self) {
        self.plane
            .settle(self.now, &mut self.cluster, &mut self.events);
        self.notify();
    }

    /// The next time a controller has work, after `now`.
    pub fn next_wake(&self) -> Option<Millis> {
        self.plane.next_wake(self.now, &self.cluster)
    }

    /// Advances to `t`, settling at every time something is due on the way and at `t`.
    pub fn advance_to(&mut self, t: Millis) {
        self.settle();
        while let Some(next) = self.next_wake().filter(|n| *n <= t) {
            self.now = next;
            self.settle();
        }
        if t > self.now {
            self.now = t;
            self.settle();
        }
    }

    fn add_objects(&mut self, objects: &[Value]) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for v in objects {
            let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
            let name = v
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let bad = |e: serde_json::Error| format!("{kind} {name}: {e}");
            if name.is_empty() {
                return Err(format!(
                    "{kind}: metadata.name: Required value: name is required"
                ));
            }
            match kind {
                "Node" if self.cluster.node_id(&name).is_some() => {
                    // kubectl apply of an existing node: labels, taints and cordon are updated.
                    let node: Node = serde_json::from_value(v.clone()).map_err(bad)?;
                    let id = self.cluster.node_id(&name).unwrap_or_default();
                    let spec = node.spec.clone().unwrap_or_default();
                    self.cluster
                        .set_node_labels(id, node.metadata.labels.clone().unwrap_or_default());
                    self.cluster
                        .set_node_taints(id, spec.taints.unwrap_or_default());
                    self.cluster
                        .set_unschedulable(id, spec.unschedulable.unwrap_or(false));
                    out.push(format!("node/{name} configured"));
                }
                "Pod"
                    if {
                        let ns = v
                            .pointer("/metadata/namespace")
                            .and_then(Value::as_str)
                            .unwrap_or("default");
                        self.cluster.pod_id(ns, &name).is_some()
                    } =>
                {
                    out.push(self.update_pod(v, &name)?);
                }
                "Node" => {
                    let mut node: Node = serde_json::from_value(v.clone()).map_err(bad)?;
                    taint_nodes_by_condition(&mut node);
                    assume_allocatable(&mut node);
                    self.cluster.add_node(node);
                    out.push(format!("node/{name} created"));
                }
                "Pod" => {
                    let mut pod: Pod = serde_json::from_value(v.clone()).map_err(bad)?;
                    let ns = repel_core::workload::namespace_of(&pod.metadata).to_string();
                    match create_pod(
                        &mut pod,
                        self.cluster.namespace(&ns),
                        &self.cfg.admission,
                        &self.cfg.gates,
                    ) {
                        Ok(()) => {
                            let id = self.cluster.add_pod(pod);
                            // The API server sets `creationTimestamp` on create.
                            self.cluster.pods[id].created = Some(self.now);
                            out.push(format!("pod/{name} created"));
                        }
                        Err(e) => return Err(e.to_string()),
                    }
                }
                "Namespace" => {
                    self.cluster
                        .namespaces
                        .push(serde_json::from_value::<Namespace>(v.clone()).map_err(bad)?);
                    out.push(format!("namespace/{name} created"));
                }
                "PodDisruptionBudget" => {
                    self.cluster.pdbs.push(
                        serde_json::from_value::<PodDisruptionBudget>(v.clone()).map_err(bad)?,
                    );
                    out.push(format!("poddisruptionbudget.policy/{name} created"));
                }
                "Deployment"
                | "ReplicaSet"
                | "StatefulSet"
                | "DaemonSet"
                | "Job"
                | "CronJob"
                | "ReplicationController" => {
                    let w = match kind {
                        "Deployment" => {
                            Workload::Deployment(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "ReplicaSet" => {
                            Workload::ReplicaSet(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "StatefulSet" => {
                            Workload::StatefulSet(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "DaemonSet" => {
                            Workload::DaemonSet(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "Job" => Workload::Job(serde_json::from_value(v.clone()).map_err(bad)?),
                        "ReplicationController" => {
                            let mut rc = serde_json::from_value(v.clone()).map_err(bad)?;
                            repel_core::workload::set_defaults_replication_controller(&mut rc);
                            Workload::from(rc)
                        }
                        _ => Workload::CronJob(serde_json::from_value(v.clone()).map_err(bad)?),
                    };
                    let said = if self.plane.workloads.replace(w.clone()) {
                        "configured"
                    } else {
                        self.plane.workloads.add(w.clone());
                        "created"
                    };
                    if let Some(owner) = self.plane.workloads.owner_name(&w) {
                        self.cluster.register_workload(&w, &owner);
                    }
                    out.push(format!("{}/{name} {said}", kind.to_ascii_lowercase()));
                }
                "NodePool" => {
                    let pool = repel_core::pools::karpenter_pool(v)
                        .map_err(|e| format!("NodePool {name}: {e}"))?;
                    if let Some(e) = repel_core::pools::validate_taints(&pool).into_iter().next() {
                        return Err(format!("NodePool {name}: {e}"));
                    }
                    let said = match self
                        .plane
                        .pools
                        .pools
                        .iter_mut()
                        .find(|s| s.pool.provider == "karpenter" && s.pool.name == name)
                    {
                        Some(s) => {
                            s.pool = pool;
                            "configured"
                        }
                        None => {
                            self.plane.pools.add(pool);
                            "created"
                        }
                    };
                    out.push(format!("nodepool.karpenter.sh/{name} {said}"));
                }
                other => return Err(format!("kind {other:?} is not supported in a scenario")),
            }
        }
        Ok(out)
    }

    /// `kubectl drain` as kubectl runs it: evictions a PodDisruptionBudget refuses are retried
    /// every 5 s (the cluster goes on meanwhile — controllers replace evicted pods, budgets
    /// recover) until they succeed or `--timeout` runs out; with no timeout, until the scenario's
    /// end. The step blocks, as kubectl does in a script: later steps wait for it.
    fn drain_with_retries(&mut self, line: &str) -> (Vec<String>, bool) {
        let timeout = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("--timeout="))
            .and_then(|d| crate::clock::parse_duration(d).ok())
            .filter(|d| *d > 0);
        let started = self.now;
        let mut lines: Vec<String> = Vec::new();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let r = run_kubectl(line, &mut self.cluster, &self.cfg.gates);
            let out_of_time = timeout.is_some_and(|t| self.now + 5_000 > started + t)
                || self.now >= self.until_hint;
            let last = r.blocked.is_empty() || out_of_time;
            if last && attempt == 1 {
                // One attempt: kubectl's whole run, as one command shows it.
                lines.extend(r.transcript.into_iter().map(|(_, l)| l));
                return (lines, r.ok);
            }
            lines.extend(retried_attempt(&r.transcript, attempt, last));
            if last {
                return (lines, r.ok);
            }
            let next = self.now + 5_000;
            self.advance_to(next);
        }
    }

    /// `kubectl apply` of an existing pod: only its tolerations may change, as upstream's pod
    /// update validation allows (entries added, `tolerationSeconds` changed); the update goes
    /// through admission (DefaultTolerationSeconds, PodTolerationRestriction) first.
    fn update_pod(&mut self, v: &Value, name: &str) -> Result<String, String> {
        let mut pod: Pod =
            serde_json::from_value(v.clone()).map_err(|e| format!("Pod {name}: {e}"))?;
        let ns = repel_core::workload::namespace_of(&pod.metadata).to_string();
        let Some(id) = self.cluster.pod_id(&ns, name) else {
            return Err(format!("pods \"{name}\" not found"));
        };
        repel_core::admission::admit_pod(
            &mut pod,
            self.cluster.namespace(&ns),
            &self.cfg.admission,
        )
        .map_err(|e| e.to_string())?;
        let new = pod
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.clone())
            .unwrap_or_default();
        let old = self.cluster.pods[id].tolerations().to_vec();
        if new == old {
            return Ok(format!("pod/{name} unchanged"));
        }
        let errors =
            repel_core::validation::validate_pod_toleration_update(&old, &new, "spec.tolerations");
        if !errors.is_empty() {
            return Err(
                repel_core::validation::invalid_message("Pod", name, &errors)
                    .trim_end()
                    .to_string(),
            );
        }
        if self.cluster.pods[id].shared_spec().is_some() {
            self.cluster.pods[id].spec_mut().tolerations = Some(new);
            self.cluster.touch_pod(id);
        }
        Ok(format!("pod/{name} configured"))
    }

    fn delete_objects(&mut self, refs: &[ObjectRef]) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for r in refs {
            let ns = r.namespace.clone().unwrap_or_else(|| "default".into());
            match r.kind.to_ascii_lowercase().as_str() {
                "pod" => match self.cluster.pod_id(&ns, &r.name) {
                    Some(id) => {
                        self.cluster.delete_pod(id);
                        out.push(format!("pod \"{}\" deleted", r.name));
                    }
                    None => return Err(format!("pods \"{}\" not found", r.name)),
                },
                "node" => match self.cluster.node_id(&r.name) {
                    Some(id) => {
                        self.cluster.delete_node(id);
                        self.plane.node_removed(id, &r.name);
                        out.push(format!("node \"{}\" deleted", r.name));
                    }
                    None => return Err(format!("nodes \"{}\" not found", r.name)),
                },
                k @ ("deployment"
                | "replicaset"
                | "statefulset"
                | "daemonset"
                | "job"
                | "cronjob"
                | "replicationcontroller") => {
                    // kubectl's background deletion: the object goes, the garbage collector
                    // takes its dependents (a Deployment's ReplicaSets live inside it here).
                    // kubectl's `resource.group` (`replicationcontroller` of the core group).
                    let dotted = |k: &str| match group_of(k) {
                        "" => String::new(),
                        g => format!(".{g}"),
                    };
                    let Some(gone) = self.plane.workloads.remove(k, &ns, &r.name) else {
                        return Err(format!("{k}s{} \"{}\" not found", dotted(k), r.name));
                    };
                    self.plane.workloads.note_deleted(&ns, &gone);
                    for (kind, name) in gone {
                        self.plane.gc.owner_gone(&kind, &ns, &name, "");
                    }
                    out.push(format!("{k}{} \"{}\" deleted", dotted(k), r.name));
                }
                other => return Err(format!("deleting a {other} is not supported in a scenario")),
            }
        }
        Ok(out)
    }

    /// Whether `node` can be drained now, as `decider` judges it with its default flags
    /// ([`crate::drain`], on a copy of the cluster): what it found, and the verdict (`None`
    /// when there is no such node).
    pub fn judge_drain(
        &self,
        node: &str,
        decider: crate::scenario::ExpectedDecider,
    ) -> (String, Option<bool>) {
        use crate::drain::{Decider, DrainConfig, ca};
        if self.cluster.node_id(node).is_none() {
            return (format!("no node {node}"), None);
        }
        let decider = match decider {
            crate::scenario::ExpectedDecider::Kubectl => Decider::Kubectl(Default::default()),
            crate::scenario::ExpectedDecider::ClusterAutoscaler => {
                let mut controllers: Vec<(String, String, String)> =
                    self.cluster.owner_selectors.keys().cloned().collect();
                controllers.extend(self.plane.workloads.objects());
                Decider::ClusterAutoscaler(ca::Options {
                    controllers: controllers.into_iter().collect(),
                    ..Default::default()
                })
            }
            crate::scenario::ExpectedDecider::Karpenter => Decider::Karpenter,
        };
        let cfg = DrainConfig {
            decider,
            independent: true,
            now_unix: self.now / 1000,
            gates: self.cfg.gates,
            seed: self.cfg.seed,
        };
        let report = crate::drain::on_copy(&self.cluster, &[node], &cfg);
        match report.nodes.first() {
            Some(v) if v.drainable => ("drainable".to_string(), Some(true)),
            Some(v) => (
                format!(
                    "not drainable: {}: {}",
                    v.reason.as_deref().unwrap_or(""),
                    v.message.as_deref().unwrap_or("")
                ),
                Some(false),
            ),
            None => (format!("no node {node}"), None),
        }
    }

    /// `kubectl scale` (parsed by [`crate::kubectl_steps::scale`]): each object's
    /// `spec.replicas` set on its controller, with kubectl's output and errors.
    fn scale(&mut self, line: &str) -> Result<Vec<String>, String> {
        let words = crate::kubectl_steps::command_words(line)
            .map_err(|e| format!("repel: cannot split the command line: {e}"))?;
        let req = crate::kubectl_steps::scale::parse(words.get(1..).unwrap_or_default())
            .map_err(|e| format!("error: {e}"))?;
        let mut out = Vec::new();
        for t in &req.targets {
            let ns = req.namespace.as_str();
            let Some(w) = self.plane.workloads.get(t.kind, ns, &t.name) else {
                return Err(format!(
                    "Error from server (NotFound): {} \"{}\" not found",
                    t.plural, t.name
                ));
            };
            let was = i32::try_from(w.pod_count()).unwrap_or(i32::MAX);
            if let Some(c) = req.current.filter(|c| *c != was) {
                return Err(format!("error: Expected replicas to be {c}, was {was}"));
            }
            self.plane
                .workloads
                .scale(t.kind, ns, &t.name, req.replicas);
            out.push(format!("{}/{} scaled", t.resource, t.name));
        }
        Ok(out)
    }

    /// Runs one step at the current time (the caller advanced to it) and settles.
    pub fn apply_step(&mut self, step: &Step) {
        let started = self.now;
        let events_before = self.events.len();
        let (desc, result): (String, Result<Vec<String>, String>) = match &step.action {
            StepAction::Kubectl(line) if line.split_whitespace().next() == Some("drain") => {
                let (lines, ok) = self.drain_with_retries(line);
                (
                    format!("kubectl {line}"),
                    if ok { Ok(lines) } else { Err(lines.join("\n")) },
                )
            }
            StepAction::Kubectl(line)
                if crate::kubectl_steps::command_words(line)
                    .is_ok_and(|w| w.first().map(String::as_str) == Some("scale")) =>
            {
                (format!("kubectl {line}"), self.scale(line))
            }
            StepAction::Kubectl(line) => {
                let r = run_kubectl(line, &mut self.cluster, &self.cfg.gates);
                for (id, name) in r.deleted_node_ids.iter().zip(&r.deleted_nodes) {
                    self.plane.node_removed(*id, name);
                }
                let mut lines = r.stdout.clone();
                lines.extend(r.stderr.iter().cloned());
                (
                    format!("kubectl {line}"),
                    if r.ok {
                        Ok(lines)
                    } else {
                        Err(lines.join("\n"))
                    },
                )
            }
            StepAction::Node {
                name,
                condition,
                heartbeats,
            } => {
                let desc = format!(
                    "node {name}{}{}",
                    condition
                        .as_ref()
                        .map(|(t, s)| format!(": {t}={s}"))
                        .unwrap_or_default(),
                    match heartbeats {
                        Some(true) => ", heartbeats resume",
                        Some(false) => ", heartbeats stop",
                        None => "",
                    }
                );
                match self.cluster.node_id(name) {
                    None => (desc, Err(format!("nodes \"{name}\" not found"))),
                    Some(id) => {
                        match heartbeats {
                            Some(false) => self.plane.node_lifecycle.stop_heartbeats(id, self.now),
                            Some(true) => self.plane.node_lifecycle.resume_heartbeats(id, self.now),
                            None => {}
                        }
                        if let Some((t, s)) = condition {
                            self.plane.node_lifecycle.set_condition(
                                &mut self.cluster,
                                id,
                                t,
                                s,
                                self.now,
                            );
                        }
                        (desc, Ok(Vec::new()))
                    }
                }
            }
            StepAction::Apply(objects) => ("apply".to_string(), self.add_objects(objects)),
            StepAction::Delete(refs) => ("delete".to_string(), self.delete_objects(refs)),
            StepAction::Advance(d) => (format!("advance {}", human(*d)), Ok(Vec::new())),
            StepAction::Az(line) => (
                with_program("az", line),
                crate::pool_steps::parse_az(line)
                    .and_then(|c| self.plane.pools.run(&c, &mut self.cluster)),
            ),
            StepAction::Aws(line) => (
                with_program("aws", line),
                crate::pool_steps::parse_aws(line)
                    .and_then(|c| self.plane.pools.run(&c, &mut self.cluster)),
            ),
        };
        let (output, ok) = match result {
            Ok(lines) => (lines, true),
            Err(e) => (e.lines().map(str::to_string).collect(), false),
        };
        self.steps.push(StepRecord {
            at: seconds(started),
            step: desc,
            output,
            ok,
            events_before,
        });
        self.settle();
    }

    /// The node a pod is on, as kubectl's NODE column shows it: the node it is bound to, or for
    /// a finished pod (which holds nothing on its node any more) its `spec.nodeName`.
    fn node_of(&self, p: &crate::cluster::PodInfo) -> Option<String> {
        p.node
            .and_then(|n| self.cluster.nodes.get(n))
            .map(|n| n.name.clone())
            .or_else(|| {
                matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed)
                    .then(|| p.spec_node_name().map(str::to_string))
                    .flatten()
            })
    }

    /// Live pods at the end, in creation order.
    pub fn final_pods(&self) -> Vec<FinalPod> {
        self.cluster
            .pods
            .iter()
            .filter(|p| !p.deleted)
            .map(|p| FinalPod {
                terminating: p.terminating,
                pod: p.key(),
                node: self.node_of(p),
                phase: p.phase.as_str(),
            })
            .collect()
    }

    /// The pool a node belongs to, by its pool label.
    fn pool_of_node(&self, node: &str) -> Option<String> {
        let id = self.cluster.node_id(node)?;
        let labels = &self.cluster.nodes[id].labels;
        self.plane
            .pools
            .pools
            .iter()
            .map(|s| &s.pool)
            .find(|p| labels.get(p.node_label.0) == Some(&p.node_label.1))
            .map(|p| p.name.clone())
    }

    /// `{pool, nodes, taints}` now: `(what is, whether it is as expected)`.
    fn check_pool(
        &self,
        pool: &str,
        nodes: Option<usize>,
        taints: Option<&[String]>,
    ) -> (String, bool) {
        let Some(p) = self.plane.pools.pool(pool) else {
            return (format!("no pool {pool}"), false);
        };
        let ids = crate::controllers::node_pools::PoolController::nodes_of(&self.cluster, p);
        let ready = ids
            .iter()
            .filter(|id| self.cluster.node_ready(**id))
            .count();
        let mut actual = Vec::new();
        let mut ok = true;
        if let Some(n) = nodes {
            actual.push(format!("{ready} Ready node(s)"));
            ok &= ready == n;
        }
        if let Some(want) = taints {
            let mut want: Vec<String> = want
                .iter()
                .map(|s| {
                    repel_core::kubectl::parse_taint(s)
                        .map(|t| repel_core::taint::taint_to_string(&t))
                        .unwrap_or_else(|_| s.clone())
                })
                .collect();
            want.sort();
            let mut differing = Vec::new();
            for id in &ids {
                let mut have: Vec<String> = self.cluster.nodes[*id]
                    .taints
                    .iter()
                    .filter(|t| !repel_core::conditions::is_controller_no_schedule_key(&t.key))
                    .map(repel_core::taint::taint_to_string)
                    .collect();
                have.sort();
                if have != want {
                    differing.push(format!(
                        "{} has [{}]",
                        self.cluster.nodes[*id].name,
                        have.join(", ")
                    ));
                }
            }
            if differing.is_empty() {
                actual.push(format!("every node has [{}]", want.join(", ")));
            } else {
                ok = false;
                actual.extend(differing);
            }
        }
        (actual.join("; "), ok)
    }

    fn check_pod(
        &self,
        pod: &str,
        phase: Option<ExpectedPhase>,
        node: Option<&str>,
        pool: Option<&str>,
        terminating: Option<bool>,
    ) -> (String, bool) {
        let (ns, name) = pod.split_once('/').unwrap_or(("default", pod));
        let live = self
            .cluster
            .pod_id(ns, name)
            .map(|id| &self.cluster.pods[id]);
        let (actual_phase, actual_node) = match live {
            Some(p) => (p.phase.as_str(), self.node_of(p)),
            None => ("Gone", None),
        };
        let actual_terminating = live.is_some_and(|p| p.terminating);
        let terminating_ok = terminating.is_none_or(|want| want == actual_terminating);
        let phase_ok = phase.is_none_or(|want| want.as_str() == actual_phase);
        let node_ok = node.is_none_or(|want| actual_node.as_deref() == Some(want));
        let actual_pool = actual_node.as_deref().and_then(|n| self.pool_of_node(n));
        let pool_ok = pool.is_none_or(|want| actual_pool.as_deref() == Some(want));
        let mut actual = match &actual_node {
            Some(n) => format!("{actual_phase} on {n}"),
            None => actual_phase.to_string(),
        };
        if pool.is_some()
            && let Some(p) = &actual_pool
        {
            actual.push_str(&format!(" (pool {p})"));
        }
        if actual_terminating {
            actual.push_str(" (Terminating)");
        }
        (actual, phase_ok && node_ok && pool_ok && terminating_ok)
    }
}

/// A command line with its program's name in front, whether or not the step wrote it.
fn with_program(program: &str, line: &str) -> String {
    let line = line.trim();
    if line.split_whitespace().next() == Some(program) {
        line.to_string()
    } else {
        format!("{program} {line}")
    }
}

/// What kubectl shows of attempt `attempt` of a drain the simulation retries every 5 s, as one
/// `kubectl drain` prints it over time (upstream `evictPods`: each pod's goroutine prints
/// `evicting pod` at every attempt and the 429's `(will retry after 5s)` line after it):
/// 1. the first attempt's cordon lines and warnings, which kubectl prints once;
/// 2. each attempt's `evicting pod`, `pod/x evicted` and `will retry` lines, in the order they
///    were written (not `already cordoned`, not a second `evicting pod` line for a pod before
///    its attempt's result);
/// 3. the last attempt's end (`node/x drained`, or its errors); the `repel:` notes of a drain
///    run as one attempt are not shown, since the simulation retries for real.
fn retried_attempt(transcript: &[(Stream, String)], attempt: usize, last: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut retried: Vec<String> = Vec::new();
    for (stream, line) in transcript {
        if line.starts_with("repel: ") {
            continue;
        }
        if attempt > 1 && (line.ends_with(" cordoned") || line.starts_with("Warning: ")) {
            continue;
        }
        if let Some(pod) = line.strip_prefix("evicting pod ")
            && retried.iter().any(|r| r == pod)
        {
            // The next attempt's line, which one run prints ahead of it.
            continue;
        }
        if *stream == Stream::Err && line.contains("(will retry after 5s)") {
            if let Some(pod) = will_retry_pod(line) {
                retried.push(pod);
            }
            out.push(line.clone());
            continue;
        }
        if *stream == Stream::Err && !last && !line.starts_with("Warning: ") {
            continue;
        }
        if !last && line.ends_with(" drained") {
            continue;
        }
        out.push(line.clone());
    }
    out
}

/// `ns/name` of kubectl's `error when evicting pods/"name" -n "ns" (will retry after 5s): …`.
fn will_retry_pod(line: &str) -> Option<String> {
    let rest = line.strip_prefix("error when evicting pods/\"")?;
    let (name, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(" -n \"")?;
    let (ns, _) = rest.split_once('"')?;
    Some(format!("{ns}/{name}"))
}

/// A whole run: events, steps, the final pods and the expectations' results.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// Every step, in order.
    pub steps: Vec<StepRecord>,
    /// The live pods at the end.
    #[serde(rename = "final")]
    pub final_state: FinalState,
    /// The expectations' results.
    pub expectations: Vec<ExpectationResult>,
    /// Notes from loading.
    pub warnings: Vec<String>,
}

/// `final` of the JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct FinalState {
    /// The live pods.
    pub pods: Vec<FinalPod>,
}

/// Runs a scenario on the cluster `input` holds (its manifests and inline objects, read by the
/// caller): steps at their times, pod expectations checked when their time comes (after that
/// time's steps), event expectations at the end, until `until` (default: the last step or
/// expectation).
pub fn run_scenario(scenario: &Scenario, input: ClusterInput) -> RunReport {
    run_scenario_observed(scenario, input, None)
}

/// [`run_scenario`] with a driver watching every pass ([`Simulation::observe`]).
pub fn run_scenario_observed(
    scenario: &Scenario,
    input: ClusterInput,
    observer: Option<Observer>,
) -> RunReport {
    let mut run = ScenarioRun::new(scenario, input, observer);
    run.advance(Millis::MAX);
    run.finish()
}

/// A scenario being played, resumable: [`ScenarioRun::advance`] plays it up to a time, as a
/// driver on a wall clock does (`repel serve --scenario`), and settles exactly the points in
/// time [`run_scenario`] settles — every controller deadline, step and pod check — so events
/// come at the same times whatever the increments.
pub struct ScenarioRun {
    /// The simulation.
    pub sim: Simulation,
    scenario: Scenario,
    /// The next step (index into the scenario's steps, in time order).
    next_step: usize,
    /// Pod checks in time order, and the next one.
    pod_checks: Vec<usize>,
    next_check: usize,
    /// When the scenario ends (its `until`, else its last step, check or event expectation).
    pub until: Millis,
    results: Vec<ExpectationResult>,
}

impl ScenarioRun {
    /// The scenario's simulation at time 0, settled (an observer sees the initial cluster
    /// first, then every pass).
    pub fn new(scenario: &Scenario, input: ClusterInput, observer: Option<Observer>) -> Self {
        let mut sim = Simulation::new(input, SimConfig::from_scenario(scenario));
        if let Some(o) = observer {
            sim.observe(o);
        }
        let check_at = |e: &Expectation| match e {
            Expectation::Pod { at, .. }
            | Expectation::Drainable { at, .. }
            | Expectation::Pool { at, .. } => *at,
            _ => 0,
        };
        let mut pod_checks: Vec<usize> = (0..scenario.expect.len())
            .filter(|i| {
                matches!(
                    scenario.expect[*i],
                    Expectation::Pod { .. }
                        | Expectation::Drainable { .. }
                        | Expectation::Pool { .. }
                )
            })
            .collect();
        pod_checks.sort_by_key(|i| check_at(&scenario.expect[*i]));
        let last = scenario
            .steps
            .iter()
            .map(|s| s.at)
            .chain(pod_checks.iter().map(|i| check_at(&scenario.expect[*i])))
            .max()
            .unwrap_or(0);
        let last_event_check = scenario
            .expect
            .iter()
            .filter_map(|e| match e {
                Expectation::Event { at, by, .. } => at.or(*by),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let until = scenario
            .until
            .unwrap_or(last.max(last_event_check))
            .max(last);
        sim.settle();
        ScenarioRun {
            sim,
            scenario: scenario.clone(),
            next_step: 0,
            pod_checks,
            next_check: 0,
            until,
            results: Vec::new(),
        }
    }

    /// Whether the scenario has played to its end.
    pub fn done(&self) -> bool {
        self.next_step >= self.scenario.steps.len()
            && self.next_check >= self.pod_checks.len()
            && self.sim.now >= self.until
    }

    fn next_check_at(&self) -> Option<Millis> {
        let i = *self.pod_checks.get(self.next_check)?;
        match &self.scenario.expect[i] {
            Expectation::Pod { at, .. }
            | Expectation::Drainable { at, .. }
            | Expectation::Pool { at, .. } => Some(*at),
            _ => Some(0),
        }
    }

    /// Plays the scenario up to cluster time `to`: each step and pod check due, with every
    /// controller deadline on the way; at the end, up to `until`. Time points where nothing is
    /// due are not settled (a driver calling this often changes nothing).
    pub fn advance(&mut self, to: Millis) {
        loop {
            let next_step = self.scenario.steps.get(self.next_step).map(|s| s.at);
            let next = match (next_step, self.next_check_at()) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            if next > to {
                self.settle_deadlines(to);
                return;
            }
            self.sim.advance_to(next);
            while let Some(step) = self
                .scenario
                .steps
                .get(self.next_step)
                .filter(|s| s.at <= self.sim.now)
                .cloned()
            {
                self.next_step += 1;
                self.sim.apply_step(&step);
            }
            while let Some(at) = self.next_check_at().filter(|at| *at <= self.sim.now) {
                let i = self.pod_checks[self.next_check];
                self.next_check += 1;
                if let Expectation::Pod {
                    index,
                    pod,
                    phase,
                    node,
                    pool,
                    terminating,
                    ..
                } = &self.scenario.expect[i]
                {
                    let (actual, passed) = self.sim.check_pod(
                        pod,
                        *phase,
                        node.as_deref(),
                        pool.as_deref(),
                        *terminating,
                    );
                    let mut expected = format!("at {}: pod {pod}", human(at));
                    if let Some(p) = phase {
                        expected.push_str(&format!(" {}", p.as_str()));
                    }
                    if let Some(n) = node {
                        expected.push_str(&format!(" on {n}"));
                    }
                    if let Some(p) = pool {
                        expected.push_str(&format!(" on a node of pool {p}"));
                    }
                    match terminating {
                        Some(true) => expected.push_str(" (Terminating)"),
                        Some(false) => expected.push_str(" (not Terminating)"),
                        None => {}
                    }
                    self.results.push(ExpectationResult {
                        index: *index,
                        expected,
                        actual,
                        passed,
                    });
                }
                if let Expectation::Pool {
                    index,
                    pool,
                    nodes,
                    taints,
                    ..
                } = &self.scenario.expect[i]
                {
                    let (actual, passed) = self.sim.check_pool(pool, *nodes, taints.as_deref());
                    let mut expected = format!("at {}: pool {pool}", human(at));
                    if let Some(n) = nodes {
                        expected.push_str(&format!(" {n} Ready node(s)"));
                    }
                    if let Some(t) = taints {
                        expected.push_str(&format!(" every node tainted [{}]", t.join(", ")));
                    }
                    self.results.push(ExpectationResult {
                        index: *index,
                        expected,
                        actual,
                        passed,
                    });
                }
                if let Expectation::Drainable {
                    index,
                    node,
                    decider,
                    value,
                    ..
                } = &self.scenario.expect[i]
                {
                    let (actual, drainable) = self.sim.judge_drain(node, *decider);
                    let expected = format!(
                        "at {}: node {node} {}drainable ({})",
                        human(at),
                        if *value { "" } else { "not " },
                        decider.as_str()
                    );
                    self.results.push(ExpectationResult {
                        index: *index,
                        expected,
                        actual,
                        passed: drainable == Some(*value),
                    });
                }
            }
        }
        if to >= self.until {
            self.sim.advance_to(self.until);
        } else {
            self.settle_deadlines(to);
        }
    }

    /// Settles every controller deadline up to `to`, not `to` itself.
    fn settle_deadlines(&mut self, to: Millis) {
        while let Some(next) = self.sim.next_wake().filter(|n| *n <= to) {
            self.sim.now = next;
            self.sim.settle();
        }
    }

    /// The report: events, steps, the final pods, every expectation's result.
    pub fn finish(self) -> RunReport {
        let ScenarioRun {
            sim,
            scenario,
            mut results,
            ..
        } = self;
        let scenario = &scenario;
        for e in &scenario.expect {
            if let Expectation::Event {
                index,
                reason,
                object,
                at,
                by,
                count,
            } = e
            {
                let matching: Vec<&Event> = sim
                    .events
                    .iter()
                    .filter(|ev| {
                        ev.reason == *reason
                            && object.as_ref().is_none_or(|o| {
                                ev.object == *o || ev.object.ends_with(&format!("/{o}"))
                            })
                    })
                    .filter(|ev| {
                        at.is_none_or(|t| ev.at_ms == t) && by.is_none_or(|t| ev.at_ms <= t)
                    })
                    .collect();
                let passed = match count {
                    Some(n) => matching.len() == *n,
                    None => !matching.is_empty(),
                };
                let mut expected = format!("event {reason}");
                if let Some(o) = object {
                    expected.push_str(&format!(" on {o}"));
                }
                if let Some(t) = at {
                    expected.push_str(&format!(" at {}", human(*t)));
                }
                if let Some(t) = by {
                    expected.push_str(&format!(" by {}", human(*t)));
                }
                if let Some(n) = count {
                    expected.push_str(&format!(", {n} time(s)"));
                }
                let actual = if matching.is_empty() {
                    "no such event".to_string()
                } else {
                    let times: Vec<String> = matching.iter().map(|e| human(e.at_ms)).collect();
                    format!("{} such event(s), at {}", matching.len(), times.join(", "))
                };
                results.push(ExpectationResult {
                    index: *index,
                    expected,
                    actual,
                    passed,
                });
            }
        }
        results.sort_by_key(|r| r.index);
        RunReport {
            final_state: FinalState {
                pods: sim.final_pods(),
            },
            events: sim.events,
            steps: sim.steps,
            expectations: results,
            warnings: sim.warnings,
        }
    }
}

/// The API group of a workload kind by its singular, as kubectl names it (`deployment.apps`,
/// `job.batch`), from [`repel_core::kinds`].
fn group_of(kind: &str) -> &'static str {
    repel_core::kinds::by_singular(kind).map_or("apps", |k| k.group)
}
