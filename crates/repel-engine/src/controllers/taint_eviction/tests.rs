//! Upstream `taint_eviction_test.go` (v1.35) ported to the simulated clock: each case drives
//! `reconcile` at chosen times and asserts the exact deletion times and events, where upstream
//! sleeps and polls a fake clientset.

use k8s_openapi::api::core::v1::{Node, Pod};
use repel_core::taint::{NO_SCHEDULE, PREFER_NO_SCHEDULE, new_taint};
use repel_core::testing::{MakePod, MakeTaint, MakeToleration, node_with_taints as node};

use super::*;
use crate::events::EventType;

const FAR: Millis = 100_000_000;

/// `(at, message)` of events.
type Log = Vec<(Millis, String)>;

/// A node's taints.
type Taints = Vec<Taint>;

/// Upstream `createNoExecuteTaint(i)`: `testTaint<i>=test<i>:NoExecute`.
fn taint(i: usize) -> Taint {
    MakeTaint::new(&format!("testTaint{i}"), NO_EXECUTE)
        .value(&format!("test{i}"))
        .obj()
}

/// Upstream `addToleration(pod, i, secs)`: tolerates `taint(i)`; a negative `secs` is forever.
fn tol(i: usize, secs: i64) -> Toleration {
    let t = MakeToleration::new()
        .key(&format!("testTaint{i}"))
        .value(&format!("test{i}"))
        .effect(NO_EXECUTE);
    if secs >= 0 { t.seconds(secs) } else { t }.obj()
}

/// A toleration with `Exists` for `taint(i)`'s key.
fn exists(i: usize, secs: Option<i64>) -> Toleration {
    let t = MakeToleration::new()
        .key(&format!("testTaint{i}"))
        .operator("Exists")
        .effect(NO_EXECUTE);
    match secs {
        Some(s) => t.seconds(s),
        None => t,
    }
    .obj()
}

/// Upstream `testutil.NewPod(name, node)` with tolerations; an empty node leaves it unbound.
fn pod(name: &str, node: &str, tolerations: Vec<Toleration>) -> Pod {
    let pod = MakePod::new()
        .name(name)
        .namespace("default")
        .container("app", "")
        .tolerations(tolerations);
    if node.is_empty() { pod } else { pod.node(node) }.obj()
}

fn marking(name: &str) -> String {
    marking_for_deletion_message("default", name)
}

fn cancelling(name: &str) -> String {
    cancelling_deletion_message("default", name)
}

/// A cluster, the controller and the events it recorded.
struct Sim {
    cluster: Cluster,
    ctrl: TaintEvictionController,
    events: Vec<Event>,
}

impl Sim {
    fn new(nodes: Vec<Node>, pods: Vec<Pod>) -> Self {
        let mut cluster = Cluster::new();
        for n in nodes {
            cluster.add_node(n);
        }
        for p in pods {
            cluster.add_pod(p);
        }
        Sim {
            cluster,
            ctrl: TaintEvictionController::new(FeatureGates::default()),
            events: Vec::new(),
        }
    }

    fn at(&mut self, now: Millis) {
        self.ctrl
            .reconcile(now, &mut self.cluster, &mut self.events);
    }

    /// Runs the controller at each deadline up to `end`, as the simulation does, then at `end`.
    fn advance(&mut self, end: Millis) {
        while let Some(next) = self
            .ctrl
            .next_wake(end, &self.cluster)
            .filter(|n| *n <= end)
        {
            self.at(next);
        }
        self.at(end);
    }

    fn id(&self, name: &str) -> PodId {
        let id = self.cluster.pods.iter().position(|p| p.name == name);
        id.unwrap_or_else(|| panic!("no pod {name}"))
    }

    fn gone(&self, name: &str) -> bool {
        self.cluster.pods[self.id(name)].deleted
    }

    fn set_tolerations(&mut self, name: &str, tolerations: Vec<Toleration>) {
        let id = self.id(name);
        let spec = self.cluster.pods[id].spec_mut();
        spec.tolerations = (!tolerations.is_empty()).then_some(tolerations);
    }

    fn set_taints(&mut self, node: &str, taints: Vec<Taint>) {
        let id = self.cluster.node_id(node).expect("node");
        self.cluster.set_node_taints(id, taints);
    }

    /// `(at, message)` of every event.
    fn log(&self) -> Log {
        self.events
            .iter()
            .map(|e| (e.at_ms, e.message.clone()))
            .collect()
    }
}

#[test]
fn filter_no_execute_taints() {
    let taints = vec![
        new_taint("one", "one", NO_EXECUTE),
        new_taint("two", "two", NO_SCHEDULE),
    ];
    assert_eq!(
        get_no_execute_taints(&taints),
        vec![new_taint("one", "one", NO_EXECUTE)]
    );
}

/// TestCreatePod: node1's taints are seen at 0, the pod appears at 10 s.
#[test]
fn create_pod() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Pod, Vec<Taint>, Option<Millis>)> = vec![
        ("not scheduled - ignore", pod("pod1", "", vec![]), vec![], None),
        ("scheduled on untainted Node", pod("pod1", "node1", vec![]), vec![], None),
        ("schedule on tainted Node", pod("pod1", "node1", vec![]), vec![taint(1)], Some(10_000)),
        ("schedule on tainted Node with finite toleration",
            pod("pod1", "node1", vec![tol(1, 100)]), vec![taint(1)], Some(110_000)),
        ("schedule on tainted Node with infinite toleration",
            pod("pod1", "node1", vec![tol(1, -1)]), vec![taint(1)], None),
        ("schedule on tainted Node with infinite invalid toleration",
            pod("pod1", "node1", vec![tol(2, -1)]), vec![taint(1)], Some(10_000)),
    ];
    for (name, p, taints, want) in cases {
        let mut sim = Sim::new(vec![node("node1", taints)], vec![]);
        sim.at(0);
        sim.cluster.add_pod(p);
        sim.at(10_000);
        if let Some(at) = want.filter(|at| *at > 10_000) {
            sim.advance(at - 1);
            assert!(!sim.gone("pod1"), "{name}: deleted before {at}");
        }
        sim.advance(FAR);
        let want_log: Vec<_> = want.iter().map(|at| (*at, marking("pod1"))).collect();
        assert_eq!(sim.log(), want_log, "{name}");
        assert_eq!(sim.gone("pod1"), want.is_some(), "{name}");
    }
}

/// TestDeletePod: deleting a pod cancels its queued deletion, with an event only when queued.
#[test]
fn delete_pod() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Log)> = vec![
        ("deleting a pod with a queued deletion cancels it with an event",
            vec![tol(1, 100)], vec![(50_000, cancelling("pod1"))]),
        ("deleting a pod tolerating forever records nothing", vec![tol(1, -1)], vec![]),
    ];
    for (name, tolerations, want) in cases {
        let mut sim = Sim::new(
            vec![node("node1", vec![taint(1)])],
            vec![pod("pod1", "node1", tolerations)],
        );
        sim.at(0);
        let id = sim.id("pod1");
        sim.cluster.delete_pod(id);
        sim.at(50_000);
        assert!(sim.ctrl.queued().is_empty(), "{name}");
        sim.advance(FAR);
        assert_eq!(sim.log(), want, "{name}");
    }
}

/// TestUpdatePod: node1 tainted at 0; the pod (bound or not) seen at 0 and updated at 0.5 s.
#[test]
fn update_pod() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Pod, Vec<Toleration>, Log)> = vec![
        ("scheduling onto tainted Node", pod("pod1", "", vec![]), vec![],
            vec![(500, marking("pod1"))]),
        ("scheduling onto tainted Node with toleration", pod("pod1", "", vec![tol(1, -1)]),
            vec![tol(1, -1)], vec![]),
        ("removing toleration", pod("pod1", "node1", vec![tol(1, 100)]), vec![],
            vec![(500, cancelling("pod1")), (500, marking("pod1"))]),
        ("lengthening toleration shouldn't work", pod("pod1", "node1", vec![tol(1, 1)]),
            vec![tol(1, 100)], vec![(1_000, marking("pod1"))]),
        ("shortening toleration does not move the deadline either",
            pod("pod1", "node1", vec![tol(1, 100)]), vec![tol(1, 1)],
            vec![(100_000, marking("pod1"))]),
        ("tolerating forever cancels the queued deletion", pod("pod1", "node1", vec![tol(1, 100)]),
            vec![tol(1, -1)], vec![(500, cancelling("pod1"))]),
        ("a toleration that no longer matches deletes at once",
            pod("pod1", "node1", vec![tol(1, -1)]), vec![tol(2, -1)],
            vec![(500, marking("pod1"))]),
    ];
    for (name, prev, new_tolerations, want) in cases {
        let mut sim = Sim::new(vec![node("node1", vec![taint(1)])], vec![prev]);
        sim.at(0);
        sim.set_tolerations("pod1", new_tolerations);
        let id = sim.id("pod1");
        if sim.cluster.pods[id].node.is_none() {
            sim.cluster.bind(id, 0);
        }
        sim.at(500);
        sim.advance(FAR);
        assert_eq!(sim.log(), want, "{name}");
        let marked = want.iter().any(|(_, m)| m.starts_with("Marking"));
        assert_eq!(sim.gone("pod1"), marked, "{name}");
    }
}

/// TestCreateNode: the pods are assigned when the controller first sees the node.
#[test]
fn create_node() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Vec<Taint>, bool)> = vec![
        ("Creating Node matching already assigned Pod", vec![], vec![], false),
        ("Creating tainted Node matching already assigned Pod", vec![], vec![taint(1)], true),
        ("Creating tainted Node matching already assigned tolerating Pod",
            vec![tol(1, -1)], vec![taint(1)], false),
    ];
    for (name, tolerations, taints, deleted) in cases {
        let mut sim = Sim::new(
            vec![node("node1", taints)],
            vec![pod("pod1", "node1", tolerations)],
        );
        sim.at(0);
        assert_eq!(sim.gone("pod1"), deleted, "{name}");
        let want: Vec<_> = deleted.then(|| (0, marking("pod1"))).into_iter().collect();
        sim.advance(FAR);
        assert_eq!(sim.log(), want, "{name}");
    }
}

/// TestDeleteNode: a deleted node's taints are forgotten; a pod left behind on it is gone too,
/// which cancels its queued deletion.
#[test]
fn delete_node() {
    let mut sim = Sim::new(
        vec![node("node0", vec![]), node("node1", vec![taint(1)])],
        vec![pod("pod1", "node1", vec![tol(1, 100)])],
    );
    sim.at(0);
    assert!(sim.ctrl.tainted("node1").is_some());
    assert_eq!(sim.ctrl.queued(), vec![(0, 100_000)]);
    sim.cluster.nodes.pop();
    sim.at(10_000);
    assert!(
        sim.ctrl.tainted("node1").is_none(),
        "node1's taints forgotten"
    );
    assert!(sim.ctrl.queued().is_empty());
    sim.advance(FAR);
    assert_eq!(sim.log(), vec![(10_000, cancelling("pod1"))]);
}

/// TestUpdateNode: the node's old taints are seen at 0, its new ones at 10 s.
#[test]
fn update_node() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Taints, Taints, Log)> = vec![
        ("Added taint, expect node patched and deleted", vec![], vec![], vec![taint(1)],
            vec![(10_000, marking("pod1"))]),
        ("Added tolerated taint", vec![tol(1, 100)], vec![], vec![taint(1)],
            vec![(110_000, marking("pod1"))]),
        ("Only one added taint tolerated", vec![tol(1, 100)], vec![], vec![taint(1), taint(2)],
            vec![(10_000, marking("pod1"))]),
        ("Taint removed", vec![tol(1, 100)],
            vec![taint(1)], vec![], vec![(10_000, cancelling("pod1"))]),
        ("Pod with multiple tolerations are evicted when first one runs out",
            vec![tol(1, 1), tol(2, 100)], vec![], vec![taint(1), taint(2)],
            vec![(11_000, marking("pod1"))]),
        ("A taint change that keeps the NoExecute list equal is not an update",
            vec![tol(1, 100)], vec![taint(1)],
            vec![taint(1), new_taint("other", "", NO_SCHEDULE)],
            vec![(100_000, marking("pod1"))]),
    ];
    for (name, tolerations, old, new, want) in cases {
        let mut sim = Sim::new(
            vec![node("node1", old)],
            vec![pod("pod1", "node1", tolerations)],
        );
        sim.at(0);
        sim.set_taints("node1", new);
        sim.at(10_000);
        sim.advance(FAR);
        assert_eq!(sim.log(), want, "{name}");
    }
}

/// TestUpdateNodeWithMultipleTaints: forever + 60 s tolerations across taint changes.
#[test]
fn update_node_with_multiple_taints() {
    let tolerations = vec![exists(1, None), exists(2, Some(60))];
    let mut sim = Sim::new(
        vec![node("node1", vec![])],
        vec![pod("pod1", "node1", tolerations)],
    );
    let steps: Vec<(&str, Millis, Vec<Taint>, Option<Millis>)> = vec![
        ("no taint: not queued", 0, vec![], None),
        (
            "infinitely tolerated taint: not queued",
            1_000,
            vec![taint(1)],
            None,
        ),
        (
            "a temporarily tolerated taint added: queued",
            2_000,
            vec![taint(1), taint(2)],
            Some(62_000),
        ),
        (
            "back to the infinitely tolerated taint: cancelled",
            3_000,
            vec![taint(1)],
            None,
        ),
    ];
    for (name, at, taints, want) in steps {
        sim.set_taints("node1", taints);
        sim.at(at);
        let queued: Vec<Millis> = sim.ctrl.queued().into_iter().map(|(_, t)| t).collect();
        assert_eq!(queued, want.into_iter().collect::<Vec<_>>(), "{name}");
    }
    sim.advance(FAR);
    assert!(!sim.gone("pod1"));
    assert_eq!(sim.log(), vec![(3_000, cancelling("pod1"))]);
}

/// TestUpdateNodeWithMultiplePods: taints added at 10 s.
#[test]
fn update_node_with_multiple_pods() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Log)> = vec![
        ("Pods with different toleration times are evicted appropriately", vec![taint(1)],
            vec![(10_000, marking("pod1")), (11_000, marking("pod2"))]),
        ("Evict all pods not matching all taints instantly", vec![taint(1), taint(2)],
            vec![(10_000, marking("pod1")), (10_000, marking("pod2")), (10_000, marking("pod3"))]),
    ];
    for (name, taints, want) in cases {
        let mut sim = Sim::new(
            vec![node("node1", vec![])],
            vec![
                pod("pod1", "node1", vec![]),
                pod("pod2", "node1", vec![tol(1, 1)]),
                pod("pod3", "node1", vec![tol(1, -1)]),
            ],
        );
        sim.at(0);
        sim.set_taints("node1", taints);
        sim.at(10_000);
        sim.advance(FAR);
        assert_eq!(sim.log(), want, "{name}");
    }
}

#[test]
fn get_min_toleration_time_table() {
    let secs = |s: Option<i64>| Toleration {
        toleration_seconds: s,
        ..Default::default()
    };
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Option<Millis>)> = vec![
        ("no tolerations: now", vec![], Some(0)),
        ("nil seconds: forever", vec![secs(None)], None),
        ("the smaller of two", vec![secs(Some(1)), secs(Some(2))], Some(1_000)),
        ("a finite one before a forever one", vec![secs(Some(1)), secs(None)], Some(1_000)),
        ("a forever one before a finite one", vec![secs(None), secs(Some(1))], Some(1_000)),
        ("zero: now", vec![secs(Some(5)), secs(Some(0))], Some(0)),
        ("negative: now", vec![secs(Some(-3)), secs(Some(5))], Some(0)),
        ("3600 seconds", vec![secs(Some(3600))], Some(3_600_000)),
        ("the largest that fits Go's Duration", vec![secs(Some(9_223_372_036))],
            Some(9_223_372_036_000)),
        ("past Go's Duration range wraps negative: forever", vec![secs(Some(9_223_372_037))], None),
    ];
    for (name, tolerations, want) in cases {
        let used: Vec<&Toleration> = tolerations.iter().collect();
        assert_eq!(get_min_toleration_time(&used), want, "{name}");
    }
}

/// TestEventualConsistency: the node's taint (seen at 10 s) deletes pod1; pod2 reaches the
/// tainted node later (20 s) and is handled then.
#[test]
fn eventual_consistency() {
    #[rustfmt::skip]
    let cases: Vec<(&str, bool, Vec<Toleration>, Millis)> = vec![
        ("existing pod2 scheduled onto tainted Node", true, vec![], 20_000),
        ("existing pod2 with taint toleration scheduled onto tainted Node", true,
            vec![tol(1, 100)], 120_000),
        ("new pod2 created on tainted Node", false, vec![], 20_000),
        ("new pod2 with taint toleration created on tainted Node", false, vec![tol(1, 100)],
            120_000),
    ];
    for (name, existing, tolerations, want) in cases {
        let mut sim = Sim::new(
            vec![node("node1", vec![])],
            vec![pod("pod1", "node1", vec![])],
        );
        if existing {
            sim.cluster.add_pod(pod("pod2", "", tolerations.clone()));
        }
        sim.at(0);
        sim.set_taints("node1", vec![taint(1)]);
        sim.at(10_000);
        assert!(sim.gone("pod1"), "{name}");
        if existing {
            sim.cluster.bind(sim.id("pod2"), 0);
        } else {
            sim.cluster.add_pod(pod("pod2", "node1", tolerations));
        }
        sim.at(20_000);
        sim.advance(FAR);
        let log = vec![(10_000, marking("pod1")), (want, marking("pod2"))];
        assert_eq!(sim.log(), log, "{name}");
    }
}

#[test]
fn tolerating_3600_seconds_deletes_at_exactly_3600_seconds_after_the_taint() {
    let mut sim = Sim::new(
        vec![node("node1", vec![])],
        vec![pod("pod1", "node1", vec![exists(1, Some(3600))])],
    );
    sim.at(0);
    sim.set_taints("node1", vec![taint(1)]);
    sim.at(5_000);
    assert_eq!(sim.ctrl.next_wake(5_000, &sim.cluster), Some(3_605_000));
    sim.at(3_604_999);
    assert!(!sim.gone("pod1"), "not at 3599.999 s after the taint");
    sim.at(3_605_000);
    assert!(sim.gone("pod1"), "at exactly 3600 s after the taint");
    assert_eq!(sim.log(), vec![(3_605_000, marking("pod1"))]);
    let e = &sim.events[0];
    assert_eq!(e.kind, EventType::Normal);
    assert_eq!(e.reason, "TaintManagerEviction");
    assert_eq!(e.object, "Pod/default/pod1");
    assert_eq!(e.node.as_deref(), Some("node1"));
    let ev = &sim.ctrl.evictions()[0];
    assert_eq!(
        ev.work.cause.to_string(),
        "node1 has testTaint1=test1:NoExecute, tolerated for 3600s"
    );
}

#[test]
fn passes_with_nothing_changed_do_not_requeue_reemit_or_move_deadlines() {
    let mut sim = Sim::new(
        vec![node("node1", vec![taint(1)])],
        vec![
            pod("pod1", "node1", vec![tol(1, 3600)]),
            pod("pod2", "node1", vec![tol(1, 100)]),
        ],
    );
    for at in [0, 0, 0, 1_000, 1_000, 50_000, 99_999] {
        sim.at(at);
        assert_eq!(
            sim.ctrl.queued(),
            vec![(1, 100_000), (0, 3_600_000)],
            "at {at}"
        );
        assert!(sim.events.is_empty(), "at {at}");
        assert_eq!(sim.ctrl.work(0).map(|w| w.created_at), Some(0));
    }
    for at in [100_000, 100_000, 200_000, 3_599_999] {
        sim.at(at);
        assert_eq!(sim.ctrl.queued(), vec![(0, 3_600_000)], "at {at}");
    }
    for at in [3_600_000, 3_600_000, 7_200_000] {
        sim.at(at);
    }
    let want = vec![(100_000, marking("pod2")), (3_600_000, marking("pod1"))];
    assert_eq!(sim.log(), want);
    assert_eq!(sim.ctrl.next_wake(FAR, &sim.cluster), None);
}

#[test]
fn the_deleted_pod_carries_the_disruption_target_condition() {
    let mut sim = Sim::new(
        vec![node("node1", vec![taint(1)])],
        vec![pod("pod1", "node1", vec![])],
    );
    sim.at(0);
    let p = &sim.cluster.pods[0];
    assert!(p.deleted && p.node.is_none());
    let conditions = p
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    assert_eq!(conditions.len(), 1);
    let c = &conditions[0];
    assert_eq!(c.type_, "DisruptionTarget");
    assert_eq!(c.status, "True");
    assert_eq!(c.reason.as_deref(), Some("DeletionByTaintManager"));
    assert_eq!(
        c.message.as_deref(),
        Some("Taint manager: deleting due to NoExecute taint")
    );
    assert_eq!(
        sim.ctrl.evictions()[0].work.cause.to_string(),
        "node1 has testTaint1=test1:NoExecute, not tolerated"
    );
}

#[test]
fn upstream_strings_byte_for_byte() {
    assert_eq!(NAME, "taint-eviction-controller");
    assert_eq!(
        marking_for_deletion_message("test", "test"),
        "Marking for deletion Pod test/test"
    );
    assert_eq!(
        cancelling_deletion_message("test", "test"),
        "Cancelling deletion of Pod test/test"
    );
}

#[test]
fn only_no_execute_taints_evict() {
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, bool)> = vec![
        ("a NoSchedule taint never evicts", NO_SCHEDULE, false),
        ("a PreferNoSchedule taint never evicts", PREFER_NO_SCHEDULE, false),
        ("a NoExecute taint evicts", NO_EXECUTE, true),
    ];
    for (name, effect, deleted) in cases {
        let taints = vec![new_taint("k", "v", effect)];
        let mut sim = Sim::new(
            vec![node("node1", taints)],
            vec![pod("pod1", "node1", vec![])],
        );
        sim.at(0);
        assert_eq!(sim.gone("pod1"), deleted, "{name}");
        sim.advance(FAR);
        assert_eq!(sim.gone("pod1"), deleted, "{name}");
    }
}

#[test]
fn events_come_out_by_fire_time_then_pod_id() {
    let mut sim = Sim::new(
        vec![node("node1", vec![taint(1)]), node("node2", vec![taint(1)])],
        vec![
            pod("a", "node2", vec![tol(1, 20)]),
            pod("b", "node2", vec![tol(1, 10)]),
            pod("c", "node1", vec![tol(1, 10)]),
        ],
    );
    sim.at(0);
    sim.at(30_000);
    let want = vec![
        (30_000, marking("b")),
        (30_000, marking("c")),
        (30_000, marking("a")),
    ];
    assert_eq!(sim.log(), want);
}

#[test]
fn a_node_and_pod_change_seen_in_one_pass_delete_the_pod_once() {
    let mut sim = Sim::new(vec![node("node1", vec![])], vec![]);
    sim.at(0);
    sim.set_taints("node1", vec![taint(1)]);
    sim.cluster.add_pod(pod("pod1", "node1", vec![]));
    sim.cluster.add_pod(pod("pod2", "node1", vec![tol(1, 5)]));
    sim.at(1_000);
    sim.advance(FAR);
    assert_eq!(
        sim.log(),
        vec![(1_000, marking("pod1")), (6_000, marking("pod2"))]
    );
}

#[test]
fn comparison_operators_match_only_with_the_gate_on() {
    let gt = Toleration {
        key: Some("level".to_string()),
        operator: Some("Gt".to_string()),
        value: Some("3".to_string()),
        effect: Some(NO_EXECUTE.to_string()),
        toleration_seconds: None,
    };
    for (name, gates, deleted) in [
        ("gate off: Gt never matches", FeatureGates::default(), true),
        (
            "gate on: taint 5 > 3 tolerated",
            FeatureGates::with_comparison_operators(),
            false,
        ),
    ] {
        let taints = vec![new_taint("level", "5", NO_EXECUTE)];
        let mut sim = Sim::new(
            vec![node("node1", taints)],
            vec![pod("pod1", "node1", vec![gt.clone()])],
        );
        sim.ctrl = TaintEvictionController::new(gates);
        sim.at(0);
        sim.advance(FAR);
        assert_eq!(sim.gone("pod1"), deleted, "{name}");
    }
}

#[test]
fn a_later_forever_toleration_does_not_rescue_a_finite_first_match() {
    let tolerations = vec![exists(1, Some(30)), exists(1, None)];
    let mut sim = Sim::new(
        vec![node("node1", vec![taint(1)])],
        vec![pod("pod1", "node1", tolerations)],
    );
    sim.at(0);
    sim.advance(FAR);
    assert_eq!(sim.log(), vec![(30_000, marking("pod1"))]);
}

#[test]
fn get_matching_tolerations_uses_the_first_match_per_taint() {
    let tolerations = vec![tol(2, 7), exists(1, Some(3)), tol(1, 9)];
    let gates = FeatureGates::default();
    let used = get_matching_tolerations(&[taint(1), taint(2)], &tolerations, &gates);
    assert_eq!(used, Some(vec![&tolerations[1], &tolerations[0]]));
    assert_eq!(
        get_matching_tolerations(&[taint(3)], &tolerations, &gates),
        None
    );
    assert_eq!(get_matching_tolerations(&[], &[], &gates), Some(vec![]));
    assert_eq!(get_matching_tolerations(&[taint(1)], &[], &gates), None);
}
