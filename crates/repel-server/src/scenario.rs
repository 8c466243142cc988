//! `repel serve --scenario FILE`: a scenario played live. The server starts
//! with the scenario's cluster; the scenario's own simulation ([`ScenarioRun`], the control
//! plane `repel simulate` runs, with its steps and checks) plays on the wall clock scaled by
//! `--time-scale`, and every pass's actions are written to the store as [`crate::driver`]'s are
//! ([`crate::writer`]), so `kubectl get pods -w` shows the scenario unfold. Its events are the
//! simulation's, in its order, recorded through upstream's recorders' correlator on cluster
//! time (an identical event counts up the Event recorded); each carries its cluster time
//! (seconds since the scenario's start) in the annotation [`CLUSTER_TIME_ANNOTATION`] and is
//! stamped with the wall time it was played at (the start plus its cluster time over
//! `--time-scale`), so `kubectl get events` ages it as it saw it happen.
//!
//! While the scenario plays, the simulation is the cluster: what clients write meanwhile is
//! stored but not seen by it. At the scenario's end (its `until`, else its last step or
//! check) the server's own driver takes over from the store as it stands, and the cluster goes
//! on as under plain `repel serve`.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use repel_engine::actions::Changes;
use repel_engine::clock::Millis;
use repel_engine::event_correlator::Correlator;
use repel_engine::load::ClusterInput;
use repel_engine::scenario::Scenario;
use repel_engine::sim::ScenarioRun;
use repel_report::model::TimelineEntry;
use serde_json::Value;

use crate::App;
use crate::driver::{Driver, HEARTBEAT_ANNOTATION, TICK};
use crate::time;
pub use crate::writer::CLUSTER_TIME_ANNOTATION;
use crate::writer::{EventClock, write, write_initial, write_objects};

/// A scenario to play: the scenario and its cluster, as `repel simulate` loads them.
#[derive(Debug, Clone)]
pub struct ScenarioSetup {
    /// The scenario.
    pub scenario: Scenario,
    /// Its cluster.
    pub input: ClusterInput,
}

/// The objects of a scenario's cluster, as manifests for the store's seed.
pub fn seed_objects(input: &ClusterInput) -> Vec<Value> {
    fn push<T: serde::Serialize>(out: &mut Vec<Value>, v: &T) {
        if let Ok(v) = serde_json::to_value(v) {
            out.push(v);
        }
    }
    let mut out = Vec::new();
    for n in &input.namespaces {
        push(&mut out, n);
    }
    for p in &input.priority_classes {
        push(&mut out, p);
    }
    for n in &input.nodes {
        push(&mut out, n);
    }
    for p in &input.pdbs {
        push(&mut out, p);
    }
    for w in &input.workloads {
        use repel_core::workload::Workload;
        match w {
            Workload::Deployment(d) => push(&mut out, d),
            Workload::ReplicaSet(r) => push(&mut out, r),
            Workload::StatefulSet(s) => push(&mut out, s),
            Workload::DaemonSet(d) => push(&mut out, d),
            Workload::Job(j) => push(&mut out, j),
            Workload::CronJob(c) => push(&mut out, c),
            Workload::ReplicationController(r) => push(&mut out, r),
        }
    }
    for p in &input.pods {
        push(&mut out, p);
    }
    out
}

/// What a scenario has played so far, as `repel report --scenario`'s timeline draws it
/// ([`repel_report::timeline::entries_of`] of the simulation's events and steps).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlayedTimeline {
    /// The timeline's entries, in time order.
    pub entries: Vec<TimelineEntry>,
    /// Its end: the last entry's time, seconds.
    pub end: f64,
    /// How many events and steps it holds: it changes exactly when the timeline does.
    pub seen: (usize, usize),
}

/// The scenario's driver.
pub struct ScenarioDriver {
    app: Arc<App>,
    scale: f64,
    started: Instant,
    run: ScenarioRun,
    /// The recorders' correlator the scenario's events went through, handed to the driver
    /// that takes over.
    correlator: Arc<Mutex<Correlator>>,
    /// The scenario's node names (a step's node is the first its text names), as `repel
    /// report --scenario` reads them.
    nodes: Vec<String>,
}

impl ScenarioDriver {
    /// Starts playing `setup` on `app`'s store (seeded with its cluster already): the
    /// simulation's first pass is written at once.
    pub fn new(app: Arc<App>, scale: f64, setup: ScenarioSetup) -> ScenarioDriver {
        let zero_unix_ms = (time::now_nanos() / 1_000_000) as Millis;
        let scale = if scale > 0.0 { scale } else { 1.0 };
        let writer_app = app.clone();
        let correlator = Arc::new(Mutex::new(Correlator::new()));
        let recorder = correlator.clone();
        let mut first = true;
        let observer = Box::new(
            move |_now: Millis,
                  c: &repel_engine::cluster::Cluster,
                  actions: Vec<repel_engine::actions::Action>,
                  events: &[repel_engine::events::Event]| {
                // The first call is the cluster as built: its workloads' pods are stored.
                if std::mem::take(&mut first)
                    && let Err(e) = write_initial(&writer_app.store, &writer_app.admission, c)
                {
                    eprintln!("repel serve: scenario write failed: {e}");
                }
                let changes = Changes::of(c, &actions);
                // A scenario's events are the simulation's, recorded as upstream's recorders
                // record them (identical ones counted in one Event).
                let mut recorder = recorder.lock().unwrap_or_else(PoisonError::into_inner);
                if let Err(e) = write(
                    &writer_app.store,
                    &writer_app.admission,
                    c,
                    &changes,
                    events,
                    EventClock::Scenario {
                        zero_unix_ms,
                        scale,
                    },
                    Some(&mut recorder),
                ) {
                    eprintln!("repel serve: scenario write failed: {e}");
                }
            },
        );
        app.scenario_playing.store(true, Ordering::SeqCst);
        let nodes: Vec<String> = setup
            .input
            .nodes
            .iter()
            .filter_map(|n| n.metadata.name.clone())
            .collect();
        let mut run = ScenarioRun::new(&setup.scenario, setup.input, Some(observer));
        run.sim.plane.workloads.record(true);
        let driver = ScenarioDriver {
            app,
            scale,
            started: Instant::now(),
            run,
            correlator,
            nodes,
        };
        driver.publish_timeline();
        driver
    }

    /// Hands `/ui/` the timeline of what has been played so far (when it grew).
    fn publish_timeline(&self) {
        let sim = &self.run.sim;
        let seen = (sim.events.len(), sim.steps.len());
        let mut slot = self
            .app
            .scenario_timeline
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if slot.as_ref().is_some_and(|t| t.seen == seen) {
            return;
        }
        let (entries, end) =
            repel_report::timeline::entries_of(&sim.events, &sim.steps, &self.nodes);
        *slot = Some(Arc::new(PlayedTimeline { entries, end, seen }));
    }

    /// A node whose kubelet a step stopped carries `repel.dev/heartbeat=stopped` in the store
    /// (and loses it when a step resumes it), as `kubectl annotate` does under plain `serve`:
    /// the server's driver, taking over at the end, goes on from there.
    fn annotate_heartbeats(&self) {
        let c = &self.run.sim.cluster;
        for (id, n) in c.nodes.iter().enumerate() {
            let stopped = self.run.sim.plane.node_lifecycle.heartbeats_stopped(id);
            let _ =
                self.app
                    .store
                    .modify::<crate::store::StoreError>("nodes", "", &n.name, |cur| {
                        let has = cur["metadata"]["annotations"][HEARTBEAT_ANNOTATION] == "stopped";
                        if has == stopped {
                            return Ok(None);
                        }
                        let mut obj = cur.clone();
                        if stopped {
                            obj["metadata"]["annotations"][HEARTBEAT_ANNOTATION] =
                                Value::String("stopped".into());
                        } else if let Some(a) = obj["metadata"]["annotations"].as_object_mut() {
                            a.remove(HEARTBEAT_ANNOTATION);
                        }
                        obj["metadata"]["resourceVersion"] = Value::Null;
                        Ok(Some(obj))
                    });
        }
    }

    /// Plays the scenario to its end on the scaled wall clock, then hands the cluster to the
    /// server's own driver.
    pub async fn run(mut self) {
        loop {
            let at = self.started.elapsed().as_secs_f64() * self.scale * 1000.0;
            let to = at as Millis;
            self = match tokio::task::spawn_blocking(move || {
                self.run.advance(to);
                let writes = self.run.sim.plane.workloads.take_writes();
                if let Err(e) = write_objects(&self.app.store, &self.app.admission, &writes) {
                    eprintln!("repel serve: scenario write failed: {e}");
                }
                self.annotate_heartbeats();
                self.publish_timeline();
                self
            })
            .await
            {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("repel serve: the scenario failed: {e}");
                    return;
                }
            };
            if self.run.done() {
                let app = self.app.clone();
                app.scenario_end_rv
                    .store(app.store.resource_version(), Ordering::SeqCst);
                app.scenario_playing.store(false, Ordering::SeqCst);
                eprintln!(
                    "repel serve: the scenario ended at {}; the cluster goes on",
                    repel_engine::clock::human(self.run.until)
                );
                let correlator = std::mem::take(
                    &mut *self
                        .correlator
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner),
                );
                Driver::taking_over(app, self.scale, correlator).run().await;
                return;
            }
            tokio::time::sleep(TICK).await;
        }
    }
}
