//! Zone disruption states and eviction rates (upstream `TestMonitorNodeHealthEvictPodsWithDisruption`), and an idle cluster's wake-ups.

use super::*;

/// TestMonitorNodeHealth: zone states after the first pass and after an update an hour later.
#[test]
fn zone_states_follow_ready_conditions() {
    use ZoneState::*;
    let excluded: &[(&str, &str)] = &[
        ("topology.kubernetes.io/region", "region1"),
        ("topology.kubernetes.io/zone", "zone1"),
        (LABEL_NODE_DISRUPTION_EXCLUSION, ""),
    ];
    let z1 = zone_key(
        &Z1.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    let z2 = zone_key(
        &Z2.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    type Case<'a> = (
        &'a str,
        Vec<(&'a [(&'a str, &'a str)], &'a str)>,
        Vec<(NodeId, &'a str)>,
        Vec<(String, ZoneState)>,
        Vec<(String, ZoneState)>,
    );
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        ("no disruption: a node without zone labels", vec![(&[], "True")], vec![(0, "True")],
            vec![(String::new(), Normal)], vec![(String::new(), Normal)]),
        ("both zones down, one comes back", vec![(Z1, "Unknown"), (Z2, "Unknown")], vec![(1, "True")],
            vec![(z1.clone(), FullDisruption), (z2.clone(), FullDisruption)],
            vec![(z1.clone(), FullDisruption), (z2.clone(), Normal)]),
        ("one more failure crosses the threshold", vec![(Z1, "Unknown"), (Z1, "Unknown"), (Z1, "True"), (Z1, "True"), (Z1, "True")],
            vec![(2, "Unknown")], vec![(z1.clone(), Normal)], vec![(z1.clone(), PartialDisruption)]),
        ("the last healthy node fails", vec![(Z1, "Unknown"), (Z1, "Unknown"), (Z1, "True")], vec![(2, "Unknown")],
            vec![(z1.clone(), Normal)], vec![(z1.clone(), FullDisruption)]),
        ("all the nodes of one zone are down", vec![(Z1, "Unknown"), (Z2, "True")], vec![],
            vec![(z1.clone(), FullDisruption), (z2.clone(), Normal)],
            vec![(z1.clone(), FullDisruption), (z2.clone(), Normal)]),
        ("the only available node is excluded", vec![(Z1, "Unknown"), (excluded, "True")], vec![],
            vec![(z1.clone(), FullDisruption)], vec![(z1.clone(), FullDisruption)]),
    ];
    for (name, nodes, updates, initial, following) in cases {
        let nodes = nodes
            .iter()
            .enumerate()
            .map(|(i, (labels, ready))| node(&format!("node{i}"), labels, Some(ready), vec![]))
            .collect();
        let mut sim = Sim::new(nodes);
        sim.advance(0);
        let got: Vec<(String, ZoneState)> = sim
            .ctrl
            .zone_states()
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        assert_eq!(got, initial, "{name}: initial");
        sim.step(3_600 * S, |c, cl| {
            for (n, status) in updates {
                c.set_condition(cl, n, "Ready", status, 3_600 * S);
            }
        });
        let got: Vec<(String, ZoneState)> = sim
            .ctrl
            .zone_states()
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        assert_eq!(got, following, "{name}: following");
    }
}

/// "Partial Disruption: Nodes created recently without status conditions".
#[test]
fn nodes_without_status_at_startup_are_a_full_then_partial_disruption() {
    let mut sim = Sim::new(
        (0..4)
            .map(|i| node(&format!("node{i}"), Z1, None, vec![]))
            .collect(),
    );
    for n in 0..4 {
        sim.ctrl.stop_heartbeats(n, 0);
    }
    sim.advance(0);
    assert_eq!(
        sim.ctrl.zone_states().values().copied().collect::<Vec<_>>(),
        vec![ZoneState::FullDisruption]
    );
    sim.step(10 * S, |c, _| c.resume_heartbeats(3, 10 * S));
    assert_eq!(
        sim.ctrl.zone_states().values().copied().collect::<Vec<_>>(),
        vec![ZoneState::PartialDisruption]
    );
}

fn count_tainted(sim: &Sim) -> usize {
    (0..sim.cluster.nodes.len())
        .filter(|n| sim.taints(*n).contains(&UNREACHABLE_NE.to_string()))
        .count()
}

/// handleDisruption: the limiter per zone state, and no evictions when every zone is down.
#[test]
fn eviction_rates_follow_the_zone_state() {
    #[rustfmt::skip]
    type Case<'a> = (&'a str, usize, usize, &'a [(Millis, usize)]);
    let cases: &[Case] = &[
        (
            "a normal zone taints one node per 10 s",
            10,
            2,
            &[(50 * S, 1), (59_999, 1), (60 * S, 2)],
        ),
        (
            "a small zone in partial disruption stops evictions",
            4,
            3,
            &[(50 * S, 0), (3_600 * S, 0)],
        ),
        (
            "a large zone in partial disruption uses the secondary rate",
            60,
            40,
            &[(50 * S, 1), (149_999, 1), (150 * S, 2), (250 * S, 3)],
        ),
        (
            "every zone fully disrupted: no evictions",
            2,
            2,
            &[(50 * S, 0), (3_600 * S, 0)],
        ),
    ];
    for (name, total, down, checks) in cases {
        let mut sim = Sim::new(
            (0..*total)
                .map(|i| node(&format!("n{i}"), Z1, Some("True"), vec![]))
                .collect(),
        );
        for n in 0..*down {
            sim.ctrl.stop_heartbeats(n, 0);
        }
        for (at, want) in *checks {
            sim.advance(*at);
            assert_eq!(count_tainted(&sim), *want, "{name} at {at}");
        }
    }
}

#[test]
fn leaving_full_disruption_resumes_tainting_with_a_drained_bucket() {
    let mut sim = Sim::new(vec![
        node("node0", &[], Some("True"), vec![]),
        node("node1", &[], Some("True"), vec![]),
    ]);
    sim.ctrl.stop_heartbeats(0, 0);
    sim.ctrl.stop_heartbeats(1, 0);
    sim.advance(50 * S);
    assert_eq!(
        sim.taints(0),
        vec![UNREACHABLE_NS],
        "no NoExecute in full disruption"
    );
    assert_eq!(
        sim.ctrl.zone_states().get(""),
        Some(&ZoneState::FullDisruption)
    );
    sim.step(100 * S, |c, _| c.resume_heartbeats(1, 100 * S));
    assert_eq!(sim.ctrl.zone_states().get(""), Some(&ZoneState::Normal));
    sim.advance(109_999);
    assert_eq!(
        sim.taints(0),
        vec![UNREACHABLE_NS],
        "the new bucket was drained"
    );
    sim.advance(110 * S);
    assert_eq!(sim.taints(0), vec![UNREACHABLE_NS, UNREACHABLE_NE]);
}

#[test]
fn an_idle_cluster_does_not_wake_the_controller() {
    let mut sim = Sim::new(vec![node("node0", &[], Some("True"), vec![])]);
    sim.advance(0);
    assert_eq!(sim.ctrl.next_wake(0, &sim.cluster), None);
}
