//! Node health from heartbeats: Unknown after the grace period, the startup grace, Ready again (upstream `TestMonitorNodeHealthUpdateStatus` and neighbours).

use super::*;

#[test]
fn default_config_is_upstream_v1_35() {
    let c = NodeLifecycleConfig::default();
    assert_eq!(
        c.node_monitor_grace_period,
        50 * S,
        "raised from 40 s in v1.32"
    );
    assert_eq!(c.node_monitor_period, 5 * S);
    assert_eq!(c.node_startup_grace_period, 60 * S);
    assert_eq!(
        (
            c.node_eviction_rate,
            c.secondary_node_eviction_rate,
            c.unhealthy_zone_threshold
        ),
        (0.1, 0.01, 0.55)
    );
    assert_eq!(c.large_cluster_size_threshold, 50);
}

/// TestMonitorNodeHealthUpdateStatus and TestApplyNoExecuteTaintsToUnreachableNode.
#[test]
fn a_node_whose_kubelet_stopped_is_marked_unknown_and_tainted_at_stop_plus_grace() {
    #[rustfmt::skip]
    let cases: &[(&str, Millis, Millis)] = &[
        ("stopped at 0: Unknown at exactly 50 s", 0, 50 * S),
        ("stopped on the grid at 10 s: at 60 s", 10 * S, 60 * S),
        ("stopped off the grid at 12 s: at the next pass, 65 s", 12 * S, 65 * S),
    ];
    for (name, stop, at) in cases {
        let mut sim = Sim::new(vec![
            node("node0", Z1, Some("True"), vec![]),
            node("node1", Z1, Some("True"), vec![]),
        ]);
        sim.advance(*stop);
        sim.ctrl.stop_heartbeats(0, *stop);
        assert_eq!(
            sim.ctrl.next_wake(*stop, &sim.cluster),
            Some(*at),
            "{name}: next wake"
        );
        sim.advance(at - 1);
        assert_eq!(
            sim.condition(0, "Ready").map(|c| c.status),
            Some("True".into()),
            "{name}"
        );
        assert!(sim.taints(0).is_empty(), "{name}: no taints before");
        sim.advance(*at);
        let ready = sim.condition(0, "Ready").unwrap();
        assert_eq!(ready.status, "Unknown", "{name}");
        assert_eq!(ready.reason.as_deref(), Some("NodeStatusUnknown"), "{name}");
        assert_eq!(
            ready.message.as_deref(),
            Some("Kubelet stopped posting node status."),
            "{name}"
        );
        assert_eq!(ms(&ready.last_transition_time), Some(*at), "{name}");
        assert_eq!(
            ms(&ready.last_heartbeat_time),
            Some(0),
            "{name}: heartbeat untouched"
        );
        let mem = sim.condition(0, "MemoryPressure").unwrap();
        assert_eq!(
            (
                mem.status.as_str(),
                mem.reason.as_deref(),
                mem.message.as_deref()
            ),
            (
                "Unknown",
                Some("NodeStatusNeverUpdated"),
                Some("Kubelet never posted node status.")
            ),
            "{name}: conditions never posted are added"
        );
        assert_eq!(
            sim.taints(0),
            vec![UNREACHABLE_NS, UNREACHABLE_NE],
            "{name}"
        );
        assert_eq!(
            sim.time_added(0, TAINT_NODE_UNREACHABLE, NO_EXECUTE),
            Some(*at),
            "{name}: timeAdded"
        );
        assert!(
            sim.taints(1).is_empty(),
            "{name}: the healthy node is untouched"
        );
        assert_eq!(
            sim.events_at(*at),
            vec![(
                "NodeNotReady".into(),
                "Node/node0".into(),
                "Node node0 status is now: NodeNotReady".into()
            )],
            "{name}: events"
        );
    }
}

#[test]
fn resuming_heartbeats_restores_ready_and_removes_the_taints() {
    #[rustfmt::skip]
    let cases: &[(&str, Millis, Millis)] = &[
        ("resumed on the grid: all taints go at once", 60 * S, 60 * S),
        ("resumed off the grid: NoExecute goes at the next pass", 62 * S, 65 * S),
    ];
    for (name, resume, no_execute_gone) in cases {
        let mut sim = Sim::new(vec![
            node("node0", &[], Some("True"), vec![]),
            node("node1", &[], Some("True"), vec![]),
        ]);
        sim.ctrl.stop_heartbeats(0, 0);
        sim.advance(*resume - 1);
        assert_eq!(
            sim.taints(0),
            vec![UNREACHABLE_NS, UNREACHABLE_NE],
            "{name}"
        );
        sim.step(*resume, |c, _| c.resume_heartbeats(0, *resume));
        let ready = sim.condition(0, "Ready").unwrap();
        assert_eq!(ready.status, "True", "{name}");
        assert_eq!(ms(&ready.last_transition_time), Some(*resume), "{name}");
        assert_eq!(
            sim.condition(0, "MemoryPressure").map(|c| c.status),
            Some("False".into()),
            "{name}: the kubelet posts its pressure conditions again"
        );
        assert!(
            !sim.taints(0).contains(&UNREACHABLE_NS.to_string()),
            "{name}"
        );
        assert!(
            sim.events_at(*resume).contains(&(
                "NodeReady".into(),
                "Node/node0".into(),
                "Node node0 status is now: NodeReady".into()
            )),
            "{name}: the kubelet's NodeReady event"
        );
        sim.advance(no_execute_gone - 1);
        assert_eq!(
            sim.taints(0).is_empty(),
            no_execute_gone == resume,
            "{name}: before the pass"
        );
        sim.advance(*no_execute_gone);
        assert!(sim.taints(0).is_empty(), "{name}");
    }
}

/// TestMonitorNodeHealthUpdateStatus: nodes that never posted status.
#[test]
fn a_node_that_never_posted_gets_the_startup_grace_period() {
    let mut sim = Sim::new(vec![node("node0", &[], None, vec![])]);
    sim.ctrl.stop_heartbeats(0, 0);
    sim.advance(59_999);
    assert!(
        sim.condition(0, "Ready").is_none(),
        "within the startup grace period"
    );
    sim.advance(60 * S);
    for t in ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] {
        let c = sim.condition(0, t).unwrap();
        assert_eq!(c.status, "Unknown", "{t}");
        assert_eq!(c.reason.as_deref(), Some("NodeStatusNeverUpdated"), "{t}");
        assert_eq!(ms(&c.last_heartbeat_time), Some(0), "{t}: creation time");
        assert_eq!(ms(&c.last_transition_time), Some(60 * S), "{t}");
    }
    assert!(sim.condition(0, "NetworkUnavailable").is_none());
}

#[test]
fn a_node_without_conditions_is_taken_as_ready_and_heartbeating() {
    let mut sim = Sim::new(vec![node(
        "node0",
        &[],
        None,
        vec![new_taint(TAINT_NODE_NOT_READY, "", NO_SCHEDULE)],
    )]);
    sim.advance(0);
    let ready = sim.condition(0, "Ready").unwrap();
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_deref()),
        ("True", Some("KubeletReady"))
    );
    assert!(
        sim.taints(0).is_empty(),
        "admission's not-ready:NoSchedule removed at once"
    );
    sim.advance(3_600 * S);
    assert!(sim.taints(0).is_empty(), "still healthy an hour later");
}
