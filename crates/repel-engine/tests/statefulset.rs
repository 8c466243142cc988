//! The StatefulSet controller's ordinals (upstream `stateful_set_control.go`,
//! `updateStatefulSet`): under `OrderedReady` one pod at a time in ordinal order, each once the
//! one before is Running and Ready, scale-down from the highest ordinal; under `Parallel`, all
//! at once.

use k8s_openapi::api::apps::v1::StatefulSet;
use repel_core::workload::Workload;
use repel_engine::load::ClusterInput;
use repel_engine::sim::Simulation;
use serde_json::json;

use crate::util;

fn sim(policy: Option<&str>, replicas: i32, pods_per_node: &str) -> Simulation {
    let mut spec = json!({
        "replicas": replicas, "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": {"metadata": {"labels": {"app": "db"}},
                     "spec": {"containers": [{"name": "db", "image": "postgres"}]}}
    });
    if let Some(p) = policy {
        spec["podManagementPolicy"] = json!(p);
    }
    let sts: StatefulSet = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"}, "spec": spec
    }))
    .unwrap();
    let node = serde_json::from_value(json!({
        "metadata": {"name": "n0"},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": pods_per_node}}
    }))
    .unwrap();
    let input = ClusterInput {
        nodes: vec![node],
        workloads: vec![Workload::from(sts)],
        ..Default::default()
    };
    let cfg = util::config(1);
    let mut s = Simulation::new(input, cfg);
    s.settle();
    s
}

fn live(s: &Simulation) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = s
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted)
        .map(|p| (p.name.clone(), p.phase.as_str().to_string()))
        .collect();
    v.sort();
    v
}

fn sts_events(s: &Simulation) -> Vec<String> {
    s.events
        .iter()
        .filter(|e| e.object == "StatefulSet/default/db" || e.reason == "Scheduled")
        .map(|e| e.message.clone())
        .collect()
}

#[test]
fn ordered_ready_creates_each_ordinal_once_the_one_before_runs() {
    let mut s = sim(None, 1, "110");
    s.plane.workloads.scale("StatefulSet", "default", "db", 3);
    s.settle();
    let ev = sts_events(&s);
    let created = |n: &str| format!("create Pod {n} in StatefulSet db successful");
    let scheduled = |n: &str| format!("Successfully assigned default/{n} to n0");
    // Each creation follows the previous pod's binding (and its start, in the same pass).
    let at = |m: &str| ev.iter().position(|e| e == m).unwrap_or(usize::MAX);
    assert!(at(&scheduled("db-0")) < at(&created("db-1")), "{ev:#?}");
    assert!(at(&scheduled("db-1")) < at(&created("db-2")), "{ev:#?}");
    assert_eq!(live(&s).len(), 3);
}

#[test]
fn ordered_ready_waits_behind_a_pending_pod_and_parallel_does_not() {
    // Room for one pod: db-0 runs; scaled to 3, db-1 stays Pending and db-2 waits for it.
    // (A starting cluster's workloads have their pods already: the scale makes the controller
    // create them.)
    let mut s = sim(None, 1, "1");
    s.plane.workloads.scale("StatefulSet", "default", "db", 3);
    s.settle();
    assert_eq!(
        live(&s),
        [
            ("db-0".to_string(), "Running".to_string()),
            ("db-1".to_string(), "Pending".to_string())
        ]
    );
    let mut s = sim(Some("Parallel"), 1, "1");
    s.plane.workloads.scale("StatefulSet", "default", "db", 3);
    s.settle();
    assert_eq!(live(&s).len(), 3, "{:?}", live(&s));
}

#[test]
fn scaling_down_deletes_from_the_highest_ordinal() {
    let mut s = sim(None, 4, "110");
    assert_eq!(
        s.plane.workloads.scale("StatefulSet", "default", "db", 1),
        Some(4)
    );
    s.settle();
    let deleted: Vec<String> = s
        .events
        .iter()
        .filter(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.message.clone())
        .collect();
    assert_eq!(
        deleted,
        [
            "delete Pod db-3 in StatefulSet db successful",
            "delete Pod db-2 in StatefulSet db successful",
            "delete Pod db-1 in StatefulSet db successful"
        ]
    );
    assert_eq!(live(&s), [("db-0".to_string(), "Running".to_string())]);
}
