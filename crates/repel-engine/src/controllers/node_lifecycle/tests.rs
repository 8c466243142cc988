//! Upstream `node_lifecycle_controller_test.go` (v1.35) cases about health, tainting, events and
//! zone states, as tables over the simulated clock with exact times.

use k8s_openapi::api::core::v1::{Node, NodeStatus, Pod, PodSpec, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::testing::MakeNode;

use super::*;

const S: Millis = 1000;

fn node(name: &str, labels: &[(&str, &str)], ready: Option<&str>, taints: Vec<Taint>) -> Node {
    let mut node = labels
        .iter()
        .fold(MakeNode::new().name(name), |n, (k, v)| n.label(k, v))
        .taints(taints)
        .obj();
    node.status = ready.map(|r| NodeStatus {
        conditions: Some(vec![NodeCondition {
            type_: "Ready".to_string(),
            status: r.to_string(),
            last_heartbeat_time: Some(Time(sim_timestamp(0))),
            last_transition_time: Some(Time(sim_timestamp(0))),
            ..NodeCondition::default()
        }]),
        ..NodeStatus::default()
    });
    node
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

mod events;
mod health;
mod tainting;
mod zones;
