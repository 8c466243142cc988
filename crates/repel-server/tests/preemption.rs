//! Preemption under `repel serve`, as upstream v1.35 runs it over time (`prepareCandidate`,
//! `schedule_one.go`): the preemptor is nominated (`status.nominatedNodeName` stored), the
//! victim is marked Terminating (`deletionTimestamp`, `deletionGracePeriodSeconds`) with the
//! `DisruptionTarget` condition and gets the `Preempted` event naming the preemptor's uid, and
//! the preemptor is bound only after the victim is gone. Read from the store's change history,
//! so the order is checked, not timing.

use crate::util::start_with;
use serde_json::{Value, json};

fn pod(name: &str, priority: Option<i32>, node: Option<&str>) -> Value {
    let mut p = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                                 "resources": {"requests": {"cpu": "1"}}}]}
    });
    if let Some(v) = priority {
        p["spec"]["priority"] = json!(v);
    }
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    p
}

#[test]
fn the_preemptor_is_nominated_and_bound_only_after_its_victim_terminated() {
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                      "status": {"capacity": {"cpu": "1", "memory": "1Gi", "pods": "10"}}});
    // 600× the wall clock: the victim's 30 s grace period is 50 ms.
    let s = start_with(vec![node, pod("low", None, Some("n1"))], 600.0);
    let started = std::time::Instant::now();
    while s.get("pods", "default", "low").unwrap()["status"]["phase"] != "Running" {
        assert!(started.elapsed().as_secs() < 30, "low never ran");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let high = s
        .app
        .store
        .create("pods", pod("high", Some(1000), None))
        .unwrap();
    let uid = high["metadata"]["uid"].as_str().unwrap().to_string();
    while s.get("pods", "default", "high").unwrap()["spec"]["nodeName"] != "n1" {
        assert!(started.elapsed().as_secs() < 30, "high never bound");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (history, _) = s.app.store.watch_from(0).unwrap();
    let pods: Vec<(repel_server::store::EventType, serde_json::Value)> = history
        .iter()
        .filter(|e| e.resource == "pods")
        .map(|e| (e.kind, e.object.decode()))
        .collect();
    let name = |e: &(repel_server::store::EventType, serde_json::Value)| {
        e.1["metadata"]["name"].as_str().map(str::to_string)
    };
    let bound_at = pods
        .iter()
        .position(|e| name(e).as_deref() == Some("high") && e.1["spec"]["nodeName"] == "n1")
        .unwrap();
    let nominated_at = pods
        .iter()
        .position(|e| {
            name(e).as_deref() == Some("high") && e.1["status"]["nominatedNodeName"] == "n1"
        })
        .expect("status.nominatedNodeName is stored");
    let terminating_at = pods
        .iter()
        .position(|e| {
            name(e).as_deref() == Some("low") && !e.1["metadata"]["deletionTimestamp"].is_null()
        })
        .expect("the victim goes Terminating");
    let gone_at = pods
        .iter()
        .position(|e| {
            name(e).as_deref() == Some("low") && e.0 == repel_server::store::EventType::Deleted
        })
        .expect("the victim is deleted");
    assert!(nominated_at < bound_at && terminating_at < gone_at && gone_at < bound_at);
    let marked = &pods[terminating_at].1;
    assert_eq!(marked["metadata"]["deletionGracePeriodSeconds"], json!(30));
    let condition = marked["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "DisruptionTarget")
        .cloned()
        .unwrap();
    assert_eq!(
        (
            &condition["status"],
            &condition["reason"],
            &condition["message"]
        ),
        (
            &json!("True"),
            &json!("PreemptionByScheduler"),
            &json!("default-scheduler: preempting to accommodate a higher priority pod")
        )
    );
    assert_eq!(
        pods[bound_at].1["status"]["nominatedNodeName"],
        Value::Null,
        "the binding clears nominatedNodeName"
    );
    let preempted: Vec<Value> = history
        .iter()
        .filter(|e| e.resource == "events" && e.object.decode()["reason"] == "Preempted")
        .map(|e| e.object.decode()["message"].clone())
        .collect();
    assert_eq!(
        preempted,
        [json!(format!("Preempted by pod {uid} on node n1"))]
    );
}
