//! The control plane's actions are a complete account of what it does: a driver
//! that keeps its own copy of the cluster, starting from the first list and changed only by
//! each pass's actions (as `repel serve` writes them to its store), holds exactly the cluster
//! the simulation holds after every pass, for every scenario in `examples/`. And watching
//! changes nothing: the report is the same with and without the driver.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use repel_engine::actions::Changes;
use repel_engine::cluster::Cluster;
use repel_engine::sim::{run_scenario, run_scenario_observed};
use serde_json::{Value, json};

use crate::scenario_file::load_scenario;
use repel_manifest::Validate;

fn pod_key(c: &Cluster, id: usize) -> String {
    format!("pod/{}", c.pods[id].key())
}

fn pod_state(c: &Cluster, id: usize) -> Value {
    let p = &c.pods[id];
    json!({"object": p.to_pod(), "terminating": p.terminating, "phase": p.phase.as_str()})
}

fn node_state(c: &Cluster, name: &str) -> Value {
    let id = c.node_id(name).expect("node");
    serde_json::to_value(&*c.nodes[id].node).expect("node JSON")
}

/// Every live object of the view, as the mirror keeps them.
fn snapshot(c: &Cluster) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for (id, p) in c.pods.iter().enumerate() {
        if !p.deleted {
            out.insert(pod_key(c, id), pod_state(c, id));
        }
    }
    for n in &c.nodes {
        out.insert(format!("node/{}", n.name), node_state(c, &n.name));
    }
    out
}

/// The scenarios of `examples/`, in name order.
fn examples() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn actions_account_for_every_change_in_every_example() {
    let files = examples();
    assert!(files.len() >= 10, "{files:?}");
    for file in files {
        let (scenario, input) = load_scenario(&file, Validate::Warn).unwrap();
        let mirror: Arc<Mutex<Option<BTreeMap<String, Value>>>> = Arc::default();
        let passes = Arc::new(Mutex::new((0usize, 0usize)));
        let (m, n) = (Arc::clone(&mirror), Arc::clone(&passes));
        let name = file.display().to_string();
        let observer = Box::new(move |now, c: &Cluster, actions: Vec<_>, _: &[_]| {
            let mut guard = m.lock().unwrap();
            let Some(mirror) = guard.as_mut() else {
                assert!(actions.is_empty(), "{name}: the first call is the list");
                *guard = Some(snapshot(c));
                return;
            };
            let changes = Changes::of(c, &actions);
            for p in &changes.deleted_pods {
                assert!(
                    mirror.remove(&pod_key(c, *p)).is_some(),
                    "{name}: {p} gone twice"
                );
            }
            for n in &changes.deleted_nodes {
                mirror.remove(&format!("node/{n}"));
            }
            for p in changes.created_pods.iter().chain(&changes.updated_pods) {
                mirror.insert(pod_key(c, *p), pod_state(c, *p));
            }
            for n in changes.created_nodes.iter().chain(&changes.updated_nodes) {
                mirror.insert(format!("node/{n}"), node_state(c, n));
            }
            let want = snapshot(c);
            for (k, v) in &want {
                assert_eq!(mirror.get(k), Some(v), "{name} at {now} ms: {k} differs");
            }
            assert_eq!(
                mirror.len(),
                want.len(),
                "{name} at {now} ms: objects left over"
            );
            let mut n = n.lock().unwrap();
            n.0 += 1;
            n.1 += actions.len();
        });
        let watched = run_scenario_observed(&scenario, input.clone(), Some(observer));
        let plain = run_scenario(&scenario, input);
        assert_eq!(
            serde_json::to_value(&watched).unwrap(),
            serde_json::to_value(&plain).unwrap(),
            "{}: watching changed the run",
            file.display()
        );
        let (passes, actions) = *passes.lock().unwrap();
        assert!(
            passes > 0 && actions > 0,
            "{}: {passes} passes",
            file.display()
        );
    }
}

/// `repel serve --scenario` plays a scenario in increments of wall time: the events are the
/// simulation's, at the same times, in the same order, whatever the increments (here a prime
/// number of milliseconds, and a few seconds).
#[test]
fn a_scenario_played_in_increments_gives_the_simulations_events() {
    let files = examples();
    let key = |e: &repel_engine::events::Event| {
        (
            e.at_ms,
            e.reason.clone(),
            e.object.clone(),
            e.message.clone(),
        )
    };
    for file in files {
        let (scenario, input) = load_scenario(&file, Validate::Warn).unwrap();
        let whole = run_scenario(&scenario, input.clone());
        let want: Vec<_> = whole.events.iter().map(key).collect();
        for step in [997, 4_000] {
            let mut run = repel_engine::sim::ScenarioRun::new(&scenario, input.clone(), None);
            let mut t = 0;
            while !run.done() {
                t += step;
                run.advance(t);
                assert!(t < 100 * 86_400_000, "{}: never done", file.display());
            }
            let report = run.finish();
            let got: Vec<_> = report.events.iter().map(key).collect();
            assert_eq!(got, want, "{} in steps of {step} ms", file.display());
            assert_eq!(
                serde_json::to_value(&report.expectations).unwrap(),
                serde_json::to_value(&whole.expectations).unwrap(),
                "{}",
                file.display()
            );
        }
    }
}

/// `repel serve --scenario FILE` writes the simulation's events, in its order, each at its
/// cluster time, for every scenario in `examples/`: the server plays the
/// scenario at a high `--time-scale`, and the Events it stored (in resourceVersion order) are
/// `repel simulate`'s.
#[test]
fn serve_plays_every_example_with_the_simulations_events() {
    let files = examples();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for file in files {
        let (scenario, input) = load_scenario(&file, Validate::Warn).unwrap();
        let report = run_scenario(&scenario, input.clone());
        let mut final_pods: Vec<(String, Option<String>, String, bool)> = report
            .final_state
            .pods
            .iter()
            .map(|p| {
                (
                    p.pod.clone(),
                    p.node.clone(),
                    p.phase.to_string(),
                    p.terminating,
                )
            })
            .collect();
        final_pods.sort();
        // The simulation's events as upstream's recorders leave them (on cluster time): one
        // Event per event kept, an identical one counting it up.
        let mut correlator = repel_engine::event_correlator::Correlator::new();
        let mut want: Vec<(String, String, String, String, u64)> = Vec::new();
        let mut names: BTreeMap<String, usize> = BTreeMap::new();
        for e in &report.events {
            let mut parts = e.object.splitn(3, '/');
            let kind = parts.next().unwrap_or("");
            let (ns, name) = match (parts.next(), parts.next()) {
                (Some(ns), Some(n)) => (ns, n),
                (Some(n), None) => ("", n),
                _ => ("", ""),
            };
            let component = repel_server::writer::component(&e.reason, kind);
            let scheduler = component == "default-scheduler";
            let outcome = if scheduler {
                repel_engine::event_correlator::Correlation::Create {
                    message: e.message.clone(),
                    key: format!("{}", want.len()),
                }
            } else {
                correlator.record(
                    &repel_engine::event_correlator::Recording {
                        component,
                        kind,
                        namespace: ns,
                        name,
                        uid: "",
                        api_version: "",
                        type_: "",
                        reason: &e.reason,
                        message: &e.message,
                    },
                    e.at_ms,
                )
            };
            match outcome {
                repel_engine::event_correlator::Correlation::Skip => {}
                repel_engine::event_correlator::Correlation::Create { message, key } => {
                    let id = format!("{}", want.len());
                    names.insert(id.clone(), want.len());
                    if !scheduler {
                        correlator.created(key, id);
                    }
                    want.push((
                        format!("{:.3}", e.at_ms as f64 / 1000.0),
                        e.reason.clone(),
                        e.object.clone(),
                        message,
                        1,
                    ));
                }
                repel_engine::event_correlator::Correlation::Update {
                    name,
                    count,
                    message,
                } => {
                    let i = names[&name];
                    want[i].3 = message;
                    want[i].4 = u64::from(count);
                }
            }
        }
        let sim = repel_engine::sim::SimConfig::from_scenario(&scenario);
        let cfg = repel_server::Config {
            listen: "127.0.0.1:0".parse().unwrap(),
            data_dir: None,
            token: None,
            time_scale: 200_000.0,
            seed: Vec::new(),
            admission: repel_server::Admission {
                config: sim.admission,
                gates: sim.gates,
            },
            tls: repel_server::net::TlsSource::None,
            request_timeout: repel_server::net::DEFAULT_REQUEST_TIMEOUT,
            scenario: Some(repel_server::scenario::ScenarioSetup { scenario, input }),
            // Played fast, an hour of cluster time passes in moments: the Events must outlive
            // the comparison.
            event_ttl: std::time::Duration::from_secs(100 * 365 * 24 * 3600),
        };
        let running = rt.block_on(repel_server::start(cfg)).unwrap();
        let started = std::time::Instant::now();
        while running
            .app
            .scenario_playing
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "{}: still playing",
                file.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // The pods as the scenario left them: the store's change stream replayed up to the
        // scenario's end (the server's own driver goes on after it).
        let end = running
            .app
            .scenario_end_rv
            .load(std::sync::atomic::Ordering::SeqCst);
        let (history, _) = running.app.store.watch_from(0).unwrap();
        let mut pods: BTreeMap<(String, String), Value> = BTreeMap::new();
        for ev in history
            .iter()
            .filter(|e| e.resource == "pods" && e.rv <= end)
        {
            let object = ev.object.decode();
            let key = (
                object["metadata"]["namespace"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                object["metadata"]["name"].as_str().unwrap().to_string(),
            );
            if ev.kind == repel_server::store::EventType::Deleted {
                pods.remove(&key);
            } else {
                pods.insert(key, object);
            }
        }
        let mut stored: Vec<(String, Option<String>, String, bool)> = pods
            .values()
            .map(|p| {
                (
                    format!(
                        "{}/{}",
                        p["metadata"]["namespace"].as_str().unwrap(),
                        p["metadata"]["name"].as_str().unwrap()
                    ),
                    p["spec"]["nodeName"].as_str().map(str::to_string),
                    p["status"]["phase"]
                        .as_str()
                        .unwrap_or("Pending")
                        .to_string(),
                    !p["metadata"]["deletionTimestamp"].is_null(),
                )
            })
            .collect();
        stored.sort();
        assert_eq!(
            stored,
            final_pods,
            "{}: the pods at the end",
            file.display()
        );
        // The Events as the scenario left them (the driver that takes over may count some up).
        let mut by_name: BTreeMap<(String, String), Value> = BTreeMap::new();
        for ev in history
            .iter()
            .filter(|e| e.resource == "events" && e.rv <= end)
        {
            let object = ev.object.decode();
            let key = (
                object["metadata"]["namespace"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                object["metadata"]["name"].as_str().unwrap().to_string(),
            );
            if ev.kind == repel_server::store::EventType::Deleted {
                by_name.remove(&key);
            } else {
                by_name.insert(key, object);
            }
        }
        let mut events: Vec<Value> = by_name.into_values().collect();
        events.retain(|e| {
            !e["metadata"]["annotations"][repel_server::scenario::CLUSTER_TIME_ANNOTATION].is_null()
        });
        // Stamped with the wall time they were played at: never in the future (kubectl would
        // age them `<invalid>`).
        let now = repel_server::time::now_rfc3339();
        for e in &events {
            let last = e["lastTimestamp"].as_str().unwrap();
            assert!(
                last <= now.as_str(),
                "{}: {last} after {now}",
                file.display()
            );
        }
        let created = |e: &Value| {
            history
                .iter()
                .find(|h| {
                    h.resource == "events" && {
                        let o = h.object.decode();
                        o["metadata"]["name"] == e["metadata"]["name"]
                            && o["metadata"]["namespace"] == e["metadata"]["namespace"]
                    }
                })
                .map_or(0, |h| h.rv)
        };
        events.sort_by_key(created);
        let got: Vec<(String, String, String, String, u64)> = events
            .iter()
            .map(|e| {
                let o = &e["involvedObject"];
                let object = match o["namespace"].as_str().filter(|n| !n.is_empty()) {
                    Some(ns) => format!(
                        "{}/{ns}/{}",
                        o["kind"].as_str().unwrap(),
                        o["name"].as_str().unwrap()
                    ),
                    None => format!(
                        "{}/{}",
                        o["kind"].as_str().unwrap(),
                        o["name"].as_str().unwrap()
                    ),
                };
                (
                    e["metadata"]["annotations"][repel_server::scenario::CLUSTER_TIME_ANNOTATION]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    e["reason"].as_str().unwrap().to_string(),
                    object,
                    e["message"].as_str().unwrap().to_string(),
                    e["count"].as_u64().unwrap_or(1),
                )
            })
            .collect();
        assert_eq!(got, want, "{}", file.display());
        if file.ends_with("node-outage.yaml") {
            // The driver that takes over registers the nodes again: the same event, counted
            // up in the scenario's Event, not a second Event.
            let registered = || {
                let (evs, _) = running.app.store.list("events", None);
                let reg: Vec<u64> = evs
                    .iter()
                    .filter(|e| e["reason"] == "RegisteredNode")
                    .map(|e| e["count"].as_u64().unwrap_or(1))
                    .collect();
                reg
            };
            let nodes = running.app.store.list("nodes", None).0.len();
            let waited = std::time::Instant::now();
            while registered().iter().sum::<u64>() < 2 * nodes as u64
                && waited.elapsed() < std::time::Duration::from_secs(20)
            {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let reg = registered();
            assert_eq!(
                reg.len(),
                nodes,
                "one RegisteredNode Event per node: {reg:?}"
            );
        }
        running.task.abort();
        running.control.abort();
    }
}
