//! The pod conditions the control plane writes (`serve` shows them through the same
//! controllers as `simulate`): the scheduler's `PodScheduled` (True on binding; False, reason
//! `Unschedulable`, with the FitError message, on failure), the node-lifecycle controller's
//! `MarkPodsNotReady` (`Ready=False` when the node stops reporting) and the kubelet's status sync
//! (`Ready=True` again once it reports), and the default scheduler leaving pods that name
//! another scheduler alone.

use repel_engine::load::ClusterInput;
use repel_engine::sim::Simulation;
use serde_json::json;

use crate::util;
use repel_core::testing::MakeNode;

fn sim(pods: Vec<serde_json::Value>) -> Simulation {
    let node = MakeNode::new()
        .name("n1")
        .allocatable(&[("cpu", "1"), ("memory", "1Gi"), ("pods", "10")])
        .condition("Ready", "True")
        .obj();
    let cfg = util::config(1);
    Simulation::new(
        ClusterInput {
            nodes: vec![node],
            pods: pods
                .into_iter()
                .map(|p| serde_json::from_value(p).unwrap())
                .collect(),
            ..Default::default()
        },
        cfg,
    )
}

fn pod(name: &str, cpu: &str) -> serde_json::Value {
    json!({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    })
}

fn condition(sim: &Simulation, pod: &str, type_: &str) -> Option<(String, Option<String>)> {
    let id = sim.cluster.pod_id("default", pod)?;
    let c = sim.cluster.pods[id]
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == type_)?
        .clone();
    Some((c.status, c.message))
}

#[test]
fn the_scheduler_writes_pod_scheduled_and_skips_other_schedulers_pods() {
    let mut other = pod("other", "100m");
    other["spec"]["schedulerName"] = json!("my-scheduler");
    let mut s = sim(vec![pod("fits", "500m"), pod("too-big", "2"), other]);
    s.settle();
    assert_eq!(
        condition(&s, "fits", "PodScheduled"),
        Some(("True".into(), None))
    );
    assert_eq!(
        condition(&s, "too-big", "PodScheduled"),
        Some((
            "False".into(),
            Some("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.".into())
        ))
    );
    let id = s.cluster.pod_id("default", "other").unwrap();
    assert!(s.cluster.pods[id].node.is_none(), "left to my-scheduler");
    assert_eq!(condition(&s, "other", "PodScheduled"), None);
    assert!(
        !s.events.iter().any(|e| e.object.ends_with("/other")),
        "no event for a pod the default scheduler does not own"
    );
}

#[test]
fn pods_go_not_ready_with_their_node_and_ready_again_when_it_reports() {
    let mut s = sim(vec![pod("p", "100m")]);
    s.settle();
    let node = s.cluster.node_id("n1").unwrap();
    s.plane.node_lifecycle.stop_heartbeats(node, s.now);
    s.advance_to(60_000);
    assert_eq!(
        condition(&s, "p", "Ready"),
        Some(("False".into(), None)),
        "MarkPodsNotReady after the 50 s grace"
    );
    let now = s.now;
    s.plane.node_lifecycle.resume_heartbeats(node, now);
    s.advance_to(70_000);
    assert_eq!(condition(&s, "p", "Ready"), Some(("True".into(), None)));
}
