//! The controller's events: `RegisteredNode` and the pods' `NodeNotReady` warnings.

use super::*;

/// TestNodeEventGeneration.
#[test]
fn a_new_node_gets_one_registered_event() {
    let mut sim = Sim::new(vec![node("node0", &[], Some("Unknown"), vec![])]);
    sim.advance(0);
    assert_eq!(
        sim.events_at(0),
        vec![(
            "RegisteredNode".into(),
            "Node/node0".into(),
            "Node node0 event: Registered Node node0 in Controller".into()
        )]
    );
}

#[test]
fn running_pods_get_a_node_not_ready_warning() {
    let mut sim = Sim::new(vec![
        node("node0", &[], Some("True"), vec![]),
        node("node1", &[], Some("True"), vec![]),
    ]);
    let pod = sim.cluster.add_pod(Pod {
        metadata: ObjectMeta {
            name: Some("web".into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            node_name: Some("node0".into()),
            ..PodSpec::default()
        }),
        ..Pod::default()
    });
    sim.cluster.pods[pod].phase = PodPhase::Running;
    sim.ctrl.stop_heartbeats(0, 0);
    sim.advance(50 * S);
    let warning = sim
        .events
        .iter()
        .find(|e| e.object == "Pod/default/web")
        .unwrap();
    assert_eq!(
        (
            warning.at_ms,
            warning.kind,
            warning.reason.as_str(),
            warning.message.as_str()
        ),
        (
            50 * S,
            crate::events::EventType::Warning,
            "NodeNotReady",
            "Node is not ready"
        )
    );
}
