//! Upstream `node_lifecycle_controller_test.go` (v1.35) cases about health, tainting, events and
//! zone states, as tables over the simulated clock with exact times.

use k8s_openapi::api::core::v1::{Node, NodeSpec, NodeStatus, Pod, PodSpec, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::*;

const S: Millis = 1000;

fn node(name: &str, labels: &[(&str, &str)], ready: Option<&str>, taints: Vec<Taint>) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..ObjectMeta::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            ..NodeSpec::default()
        }),
        status: ready.map(|r| NodeStatus {
            conditions: Some(vec![NodeCondition {
                type_: "Ready".to_string(),
                status: r.to_string(),
                last_heartbeat_time: Some(Time(sim_timestamp(0))),
                last_transition_time: Some(Time(sim_timestamp(0))),
                ..NodeCondition::default()
            }]),
            ..NodeStatus::default()
        }),
    }
}

const Z1: &[(&str, &str)] = &[
    ("topology.kubernetes.io/region", "region1"),
    ("topology.kubernetes.io/zone", "zone1"),
];
const Z2: &[(&str, &str)] = &[
    ("topology.kubernetes.io/region", "region1"),
    ("topology.kubernetes.io/zone", "zone2"),
];

fn cluster(nodes: Vec<Node>) -> Cluster {
    let mut c = Cluster::new();
    for n in nodes {
        c.add_node(n);
    }
    c
}

/// Drives the controller as the simulation loop does: wakes it whenever it asks, up to `to`,
/// then reconciles at `to` (a scenario step's time).
struct Sim {
    ctrl: NodeLifecycleController,
    cluster: Cluster,
    events: Vec<Event>,
    now: Millis,
}

impl Sim {
    fn new(nodes: Vec<Node>) -> Self {
        Self::with(NodeLifecycleConfig::default(), nodes)
    }

    fn with(cfg: NodeLifecycleConfig, nodes: Vec<Node>) -> Self {
        Sim {
            ctrl: NodeLifecycleController::new(cfg),
            cluster: cluster(nodes),
            events: Vec::new(),
            now: 0,
        }
    }

    /// Runs every wake before `to` and moves the clock to `to` (where a scenario step applies).
    fn before(&mut self, to: Millis) {
        let mut spins = 0;
        while let Some(w) = self.ctrl.next_wake(self.now, &self.cluster) {
            if w >= to {
                break;
            }
            spins = if w == self.now { spins + 1 } else { 0 };
            assert!(spins < 5, "next_wake keeps asking for {w}");
            self.now = w;
            self.ctrl.reconcile(w, &mut self.cluster, &mut self.events);
        }
        self.now = self.now.max(to);
    }

    /// Runs every wake up to `to`, and a reconcile at `to`.
    fn advance(&mut self, to: Millis) {
        self.before(to);
        self.now = to;
        self.ctrl.reconcile(to, &mut self.cluster, &mut self.events);
        for _ in 0..5 {
            match self.ctrl.next_wake(to, &self.cluster) {
                Some(w) if w <= to => self.ctrl.reconcile(to, &mut self.cluster, &mut self.events),
                _ => return,
            }
        }
        panic!("next_wake keeps asking for {to}");
    }

    /// A scenario step at `at`: `f` changes the cluster, then the controller runs at `at`.
    fn step(&mut self, at: Millis, f: impl FnOnce(&mut NodeLifecycleController, &mut Cluster)) {
        self.before(at);
        f(&mut self.ctrl, &mut self.cluster);
        self.advance(at);
    }

    fn taints(&self, node: NodeId) -> Vec<String> {
        self.cluster.nodes[node]
            .taints
            .iter()
            .map(|t| format!("{}:{}", t.key, t.effect))
            .collect()
    }

    fn time_added(&self, node: NodeId, key: &str, effect: &str) -> Option<Millis> {
        self.cluster.nodes[node]
            .taints
            .iter()
            .find(|t| t.key == key && t.effect == effect)
            .and_then(|t| t.time_added.as_ref())
            .map(|t| t.0.as_millisecond())
    }

    fn condition(&self, node: NodeId, type_: &str) -> Option<NodeCondition> {
        conditions(&self.cluster, node)
            .iter()
            .find(|c| c.type_ == type_)
            .cloned()
    }

    fn events_at(&self, at: Millis) -> Vec<(String, String, String)> {
        self.events
            .iter()
            .filter(|e| e.at_ms == at)
            .map(|e| (e.reason.clone(), e.object.clone(), e.message.clone()))
            .collect()
    }
}

const UNREACHABLE_NS: &str = "node.kubernetes.io/unreachable:NoSchedule";
const UNREACHABLE_NE: &str = "node.kubernetes.io/unreachable:NoExecute";
const NOT_READY_NS: &str = "node.kubernetes.io/not-ready:NoSchedule";
const NOT_READY_NE: &str = "node.kubernetes.io/not-ready:NoExecute";

fn ms(t: &Option<Time>) -> Option<Millis> {
    t.as_ref().map(|t| t.0.as_millisecond())
}

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

#[test]
fn an_idle_cluster_does_not_wake_the_controller() {
    let mut sim = Sim::new(vec![node("node0", &[], Some("True"), vec![])]);
    sim.advance(0);
    assert_eq!(sim.ctrl.next_wake(0, &sim.cluster), None);
}
