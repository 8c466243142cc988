//! The condition and `NoExecute` taints: the rate-limited queue, the not-ready/unreachable swap, the `NoSchedule` condition taints (upstream `TestApplyNoExecuteTaints`, `TestSwapUnreachableNotReadyTaints`, `TestTaintsNodeByCondition`).

use super::*;

/// TestApplyNoExecuteTaints, over the default rate of 0.1 node/s.
#[test]
fn no_execute_taints_follow_ready_through_the_rate_limited_queue() {
    let mut sim = Sim::new(vec![
        node("node0", Z1, Some("Unknown"), vec![]),
        node("node1", Z1, Some("True"), vec![]),
        node("node2", Z1, Some("False"), vec![]),
        node("node3", Z1, Some("True"), vec![]),
    ]);
    sim.advance(0);
    assert_eq!(
        sim.taints(0),
        vec![UNREACHABLE_NS, UNREACHABLE_NE],
        "first token at once"
    );
    assert_eq!(sim.taints(2), vec![NOT_READY_NS], "node2 waits for a token");
    assert_eq!(
        sim.ctrl.queued(&zone_key(&sim.cluster.nodes[2].labels)),
        vec![2]
    );
    sim.advance(9_999);
    assert_eq!(sim.taints(2), vec![NOT_READY_NS]);
    sim.advance(10 * S);
    assert_eq!(
        sim.taints(2),
        vec![NOT_READY_NS, NOT_READY_NE],
        "one token per 10 s"
    );
    assert_eq!(
        sim.time_added(2, TAINT_NODE_NOT_READY, NO_EXECUTE),
        Some(10 * S)
    );

    sim.step(20 * S, |c, cl| {
        c.set_condition(cl, 2, "Ready", "True", 20 * S)
    });
    assert!(
        sim.taints(2).is_empty(),
        "healthy again: every taint removed"
    );

    sim.step(21 * S, |c, cl| {
        c.set_condition(cl, 3, "Ready", "False", 21 * S)
    });
    assert_eq!(
        sim.taints(3),
        vec![NOT_READY_NS],
        "NoSchedule at once, NoExecute at the pass"
    );
    sim.advance(25 * S);
    assert_eq!(sim.taints(3), vec![NOT_READY_NS, NOT_READY_NE]);
}

#[test]
fn a_queued_node_without_a_ready_condition_is_not_tainted() {
    let mut sim = Sim::new(vec![
        node("node0", Z1, Some("Unknown"), vec![]),
        node("node1", Z1, Some("True"), vec![]),
        node("node3", Z1, Some("False"), vec![]),
    ]);
    sim.advance(0);
    assert_eq!(
        sim.ctrl.queued(&zone_key(&sim.cluster.nodes[2].labels)),
        vec![2]
    );
    // The status was replaced before the tainter got to it (upstream's node3 case).
    if let Some(s) = std::sync::Arc::make_mut(&mut sim.cluster.nodes[2].node)
        .status
        .as_mut()
    {
        s.conditions = Some(vec![]);
    }
    sim.step(1, |c, _| c.stop_heartbeats(2, 1));
    sim.advance(10 * S);
    assert!(
        !sim.taints(2).contains(&NOT_READY_NE.to_string()),
        "no NoExecute taint without a Ready condition"
    );
}

/// TestSwapUnreachableNotReadyTaints: the swap bypasses the rate limiter.
#[test]
fn unreachable_and_not_ready_are_swapped_at_once() {
    let mut sim = Sim::new(vec![
        node("node0", &[], Some("Unknown"), vec![]),
        node("node1", &[], Some("True"), vec![]),
        node("nodeX", &[], Some("Unknown"), vec![]),
    ]);
    sim.advance(0);
    assert_eq!(sim.taints(0), vec![UNREACHABLE_NS, UNREACHABLE_NE]);
    assert_eq!(
        sim.taints(2),
        vec![UNREACHABLE_NS],
        "waits for the 10 s token"
    );
    sim.step(3 * S, |c, cl| {
        c.set_condition(cl, 0, "Ready", "False", 3 * S)
    });
    assert_eq!(
        sim.taints(0),
        vec![UNREACHABLE_NE, NOT_READY_NS],
        "NoSchedule swapped at once"
    );
    sim.advance(5 * S);
    assert_eq!(
        sim.taints(0),
        vec![NOT_READY_NS, NOT_READY_NE],
        "NoExecute swapped at the pass"
    );
    assert_eq!(
        sim.time_added(0, TAINT_NODE_NOT_READY, NO_EXECUTE),
        Some(5 * S)
    );
    assert_eq!(
        sim.taints(2),
        vec![UNREACHABLE_NS],
        "the other node still waits"
    );
    sim.advance(10 * S);
    assert_eq!(sim.taints(2), vec![UNREACHABLE_NS, UNREACHABLE_NE]);
}

/// TestTaintsNodeByCondition, plus `spec.unschedulable` and user taints.
#[test]
fn no_schedule_taints_follow_conditions_at_once() {
    let dedicated = new_taint("dedicated", "gpu", NO_SCHEDULE);
    #[rustfmt::skip]
    type Case<'a> = (&'a str, Vec<Taint>, Vec<(&'a str, &'a str)>, bool, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "NetworkUnavailable True",
            vec![],
            vec![("NetworkUnavailable", "True")],
            false,
            vec!["node.kubernetes.io/network-unavailable:NoSchedule"],
        ),
        (
            "Ready False",
            vec![],
            vec![("Ready", "False")],
            false,
            vec![NOT_READY_NS],
        ),
        (
            "Ready Unknown",
            vec![],
            vec![("Ready", "Unknown")],
            false,
            vec![UNREACHABLE_NS],
        ),
        (
            "MemoryPressure True",
            vec![],
            vec![("MemoryPressure", "True")],
            false,
            vec!["node.kubernetes.io/memory-pressure:NoSchedule"],
        ),
        (
            "DiskPressure True",
            vec![],
            vec![("DiskPressure", "True")],
            false,
            vec!["node.kubernetes.io/disk-pressure:NoSchedule"],
        ),
        (
            "PIDPressure True",
            vec![],
            vec![("PIDPressure", "True")],
            false,
            vec!["node.kubernetes.io/pid-pressure:NoSchedule"],
        ),
        (
            "pressure False gives nothing",
            vec![],
            vec![("DiskPressure", "False")],
            false,
            vec![],
        ),
        (
            "a cordoned node",
            vec![],
            vec![],
            true,
            vec!["node.kubernetes.io/unschedulable:NoSchedule"],
        ),
        (
            "user taints are kept",
            vec![dedicated.clone()],
            vec![("DiskPressure", "True")],
            false,
            vec![
                "dedicated:NoSchedule",
                "node.kubernetes.io/disk-pressure:NoSchedule",
            ],
        ),
        (
            "admission's not-ready taint goes when Ready",
            vec![new_taint(TAINT_NODE_NOT_READY, "", NO_SCHEDULE)],
            vec![],
            false,
            vec![],
        ),
        (
            "a stale pressure taint goes",
            vec![new_taint(
                "node.kubernetes.io/memory-pressure",
                "",
                NO_SCHEDULE,
            )],
            vec![("MemoryPressure", "False")],
            false,
            vec![],
        ),
        (
            "a controller key with another effect is not ours",
            vec![new_taint(
                "node.kubernetes.io/memory-pressure",
                "",
                "PreferNoSchedule",
            )],
            vec![],
            false,
            vec!["node.kubernetes.io/memory-pressure:PreferNoSchedule"],
        ),
    ];
    for (name, taints, conds, cordon, want) in cases {
        let mut sim = Sim::new(vec![
            node("node0", &[], Some("True"), taints),
            node("node1", &[], Some("True"), vec![]),
        ]);
        sim.advance(0);
        sim.step(2 * S, |c, cl| {
            for (t, s) in conds {
                c.set_condition(cl, 0, t, s, 2 * S);
            }
            if cordon {
                cl.set_unschedulable(0, true);
            }
        });
        let mut got: Vec<String> = sim
            .taints(0)
            .into_iter()
            .filter(|t| !t.ends_with(":NoExecute"))
            .collect();
        got.sort();
        assert_eq!(got, want, "{name}");
        for t in &sim.cluster.nodes[0].taints {
            if t.key != "dedicated"
                && t.effect == NO_SCHEDULE
                && want.contains(&format!("{}:{}", t.key, t.effect).as_str())
            {
                assert_eq!(ms(&t.time_added), Some(2 * S), "{name}: timeAdded");
            }
        }
    }
}

#[test]
fn a_hand_added_no_execute_taint_on_a_ready_node_is_removed_at_the_next_pass() {
    let mut sim = Sim::new(vec![
        node("node0", &[], Some("True"), vec![]),
        node("node1", &[], Some("True"), vec![]),
    ]);
    sim.advance(0);
    sim.cluster
        .set_node_taints(0, vec![new_taint(TAINT_NODE_UNREACHABLE, "", NO_EXECUTE)]);
    sim.advance(4_999);
    assert_eq!(sim.taints(0), vec![UNREACHABLE_NE]);
    sim.advance(5 * S);
    assert!(
        sim.taints(0).is_empty(),
        "markNodeAsReachable on every pass"
    );
}
