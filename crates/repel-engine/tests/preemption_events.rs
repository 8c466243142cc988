//! A pod that preemption makes room for, over time (upstream v1.35 `prepareCandidate`,
//! `schedule_one.go`): the scheduler records FailedScheduling for the preemptor's failed cycle
//! (no PostFilter suffix: preemption succeeded) and nominates it (`status.nominatedNodeName`);
//! the victim gets `DisruptionTarget` and the `Preempted` event and is deleted with its grace
//! period, Terminating and holding its room until its kubelet finishes it; only then is the
//! preemptor bound. Meanwhile a pod of lower priority does not take the nominated room.

use repel_engine::load::ClusterInput;
use repel_engine::scenario::{Step, StepAction};
use repel_engine::sim::Simulation;
use serde_json::{Value, json};

use crate::util;

fn pod(name: &str, class: Option<&str>) -> Value {
    let mut p = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}
    });
    if let Some(c) = class {
        p["spec"]["priorityClassName"] = json!(c);
    }
    p
}

fn simulation() -> Simulation {
    let node = util::sized_node("n1", "1", "1Gi", "10");
    let low = serde_json::from_value(pod("low", None)).unwrap();
    let class = |name: &str, value: i32| {
        serde_json::from_value(json!({"metadata": {"name": name}, "value": value})).unwrap()
    };
    let cfg = util::config(1);
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            pods: vec![low],
            priority_classes: vec![class("high", 1000), class("mid", 500)],
            ..Default::default()
        },
        cfg,
    );
    sim.settle();
    sim
}

fn apply(sim: &mut Simulation, at: i64, obj: Value) {
    sim.advance_to(at);
    sim.apply_step(&Step {
        index: 0,
        at,
        action: StepAction::Apply(vec![obj]),
    });
}

fn events_at(sim: &Simulation, at: i64) -> Vec<(String, String, String)> {
    sim.events
        .iter()
        .filter(|e| e.at_ms == at)
        .map(|e| (e.reason.clone(), e.object.clone(), e.message.clone()))
        .collect()
}

fn ev(reason: &str, object: &str, message: &str) -> (String, String, String) {
    (reason.into(), object.into(), message.into())
}

#[test]
fn the_victim_terminates_for_its_grace_period_then_the_preemptor_is_scheduled() {
    let mut sim = simulation();
    apply(&mut sim, 10_000, pod("high", Some("high")));
    assert_eq!(
        events_at(&sim, 10_000),
        [
            ev(
                "FailedScheduling",
                "Pod/default/high",
                "0/1 nodes are available: 1 Insufficient cpu."
            ),
            ev(
                "Preempted",
                "Pod/default/low",
                "Preempted by pod default/high on node n1"
            ),
        ]
    );
    // Meanwhile: the victim Terminating on its node with upstream's condition, the preemptor
    // nominated and pending.
    sim.advance_to(39_999);
    let c = &sim.cluster;
    let low = &c.pods[c.pod_id("default", "low").unwrap()];
    assert!(
        low.terminating && low.node.is_some(),
        "the victim is Terminating"
    );
    assert_eq!(low.meta.deletion_grace_period_seconds, Some(30));
    let cond = low
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "DisruptionTarget"))
        .unwrap();
    assert_eq!(
        (
            cond.status.as_str(),
            cond.reason.as_deref(),
            cond.message.as_deref()
        ),
        (
            "True",
            Some("PreemptionByScheduler"),
            Some("default-scheduler: preempting to accommodate a higher priority pod")
        )
    );
    let high = &c.pods[c.pod_id("default", "high").unwrap()];
    assert_eq!(high.node, None, "not bound while the victim is there");
    assert_eq!(
        high.status.as_ref().unwrap().nominated_node_name.as_deref(),
        Some("n1")
    );
    // The grace period (30 s, the default) ends: the victim goes, the preemptor is bound.
    sim.advance_to(40_000);
    assert_eq!(
        events_at(&sim, 40_000),
        [ev(
            "Scheduled",
            "Pod/default/high",
            "Successfully assigned default/high to n1"
        )]
    );
    let final_pods: Vec<(String, &str)> = sim
        .final_pods()
        .iter()
        .map(|p| (p.pod.clone(), p.phase))
        .collect();
    assert_eq!(final_pods, [("default/high".to_string(), "Running")]);
    let high = &sim.cluster.pods[sim.cluster.pod_id("default", "high").unwrap()];
    assert_eq!(
        high.status.as_ref().unwrap().nominated_node_name,
        None,
        "the binding clears nominatedNodeName"
    );
}

#[test]
fn a_lower_priority_pod_does_not_take_the_nominated_room_and_cannot_preempt_for_it() {
    let mut sim = simulation();
    apply(&mut sim, 10_000, pod("high", Some("high")));
    apply(&mut sim, 20_000, pod("mid", Some("mid")));
    // mid outranks the terminating victim, but the room is held for high: preemption finds no
    // node where removing pods would let mid fit beside high's nomination.
    assert_eq!(
        events_at(&sim, 20_000),
        [ev(
            "FailedScheduling",
            "Pod/default/mid",
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, \
             preemption: 0/1 nodes are available: 1 Insufficient cpu."
        )]
    );
    sim.advance_to(40_000);
    let placed: Vec<(String, Option<String>)> = sim
        .final_pods()
        .iter()
        .map(|p| (p.pod.clone(), p.node.clone()))
        .collect();
    assert_eq!(
        placed,
        [
            ("default/high".to_string(), Some("n1".to_string())),
            ("default/mid".to_string(), None)
        ]
    );
}

#[test]
fn a_victims_own_grace_period_is_honoured() {
    let node = util::sized_node("n1", "1", "1Gi", "10");
    let mut low = pod("low", None);
    low["spec"]["terminationGracePeriodSeconds"] = json!(5);
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            pods: vec![serde_json::from_value(low).unwrap()],
            priority_classes: vec![
                serde_json::from_value(json!({"metadata": {"name": "high"}, "value": 1000}))
                    .unwrap(),
            ],
            ..Default::default()
        },
        util::config(1),
    );
    sim.settle();
    apply(&mut sim, 10_000, pod("high", Some("high")));
    sim.advance_to(20_000);
    let scheduled: Vec<i64> = sim
        .events
        .iter()
        .filter(|e| e.reason == "Scheduled" && e.object == "Pod/default/high")
        .map(|e| e.at_ms)
        .collect();
    assert_eq!(scheduled, [15_000]);
}
