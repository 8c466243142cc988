//! The simulation: the cluster, the scheduler and the controllers on a simulated clock, driven by
//! a scenario's steps. Deterministic: the same scenario and seed give the same events, byte for
//! byte.
//!
//! The simulation is one driver of the [`ControlPlane`]: at each point in time it settles the
//! control plane on its cluster (every controller, pass after pass, until nothing changes), then
//! jumps to the next time anything is due: a step, an expectation, a controller's deadline. The
//! cluster is the view itself; a driver watching it ([`Simulation::observe`]) gets each pass's
//! actions.
//!
//! # Layout
//! - this module: [`Simulation`], its clock and a step applied.
//! - `objects`: the object steps (apply, update, delete, scale, drain with retries).
//! - `run`: a scenario run to its end ([`ScenarioRun`]), expectations and the [`RunReport`].

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

mod objects;
mod run;

use objects::with_program;
pub use run::{FinalState, RunReport, ScenarioRun, run_scenario, run_scenario_observed};

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
}
