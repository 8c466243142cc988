//! PodGC's timing and marks (upstream `gc_controller_test.go`'s `TestGCOrphaned` cases, on
//! repel's clock: a pass every 20 s, a missing node quarantined 40 s).

use k8s_openapi::api::core::v1::{Node, Pod};
use repel_core::testing::{MakeNode, MakePod};

use super::*;

fn node(name: &str) -> Node {
    MakeNode::new()
        .name(name)
        .allocatable(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "110")])
        .obj()
}

fn pod(name: &str, node: &str, phase: &str) -> Pod {
    MakePod::new()
        .name(name)
        .namespace("default")
        .node(node)
        .container("c", "i")
        .phase(phase)
        .obj()
}

fn live(c: &Cluster, name: &str) -> bool {
    c.pod_id("default", name).is_some()
}

/// Runs the collector at each time of `times` (as the simulation would stop there).
fn run(gc: &mut PodGc, c: &mut Cluster, times: &[Millis]) {
    for t in times {
        gc.reconcile(*t, c, &mut Vec::new());
    }
}

#[test]
fn orphaned_pods_go_after_the_quarantine_marked_failed_by_pod_gc() {
    let mut c = Cluster::new();
    c.add_node(node("a"));
    c.add_node(node("b"));
    c.add_pod(pod("on-a", "a", "Running"));
    c.add_pod(pod("on-b", "b", "Running"));
    c.add_pod(pod("never", "nowhere", "Pending"));
    c.add_pod(pod("done", "a", "Succeeded"));
    let mut gc = PodGc::new();
    run(&mut gc, &mut c, &[0]);
    // "never" names a node that does not exist: quarantined at 0, gone at 40.
    assert_eq!(gc.next_wake(0, &c), Some(20_000));
    c.record(true);
    let orphaned = c.delete_node(0);
    assert_eq!(orphaned, vec![0], "the finished pod is not on the node");
    assert!(
        live(&c, "on-a"),
        "a deleted node's pods stay until collected"
    );
    // Times between grid points do not run a pass.
    run(&mut gc, &mut c, &[7_000, 20_000, 33_000]);
    assert!(live(&c, "on-a") && live(&c, "never"));
    run(&mut gc, &mut c, &[40_000]);
    assert!(live(&c, "on-a"), "seen missing at 20: quarantined until 60");
    assert!(!live(&c, "never"), "quarantined at 0, collected at 40");
    assert_eq!(gc.next_wake(41_000, &c), Some(60_000));
    run(&mut gc, &mut c, &[60_000]);
    assert!(!live(&c, "on-a"));
    assert!(live(&c, "on-b"));
    let p = &c.pods[0];
    assert_eq!(p.phase, PodPhase::Failed);
    let status = p.status.as_deref().cloned().unwrap_or_default();
    assert_eq!(status.phase.as_deref(), Some("Failed"));
    let cond = status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "DisruptionTarget")
        .unwrap_or_default();
    assert_eq!(
        (
            cond.status.as_str(),
            cond.reason.as_deref(),
            cond.message.as_deref()
        ),
        (
            "True",
            Some("DeletionByPodGC"),
            Some("PodGC: node no longer exists")
        )
    );
    // A finished pod keeps its phase: the Succeeded pod was on the node but is not live.
    assert_eq!(c.pods[3].phase, PodPhase::Succeeded);
    assert_eq!(gc.next_wake(61_000, &c), None, "nothing left to collect");
    let actions = c.take_actions();
    assert!(actions.contains(&crate::actions::Action::DeleteNode("a".into())));
    assert!(actions.contains(&crate::actions::Action::DeletePod {
        pod: 0,
        graceful: false
    }));
}

#[test]
fn a_node_back_before_its_quarantine_ends_keeps_its_pods() {
    let mut c = Cluster::new();
    let mut gc = PodGc::new();
    c.add_pod(pod("p", "late", "Running"));
    run(&mut gc, &mut c, &[0, 20_000]);
    c.add_node(node("late"));
    // The pod named its node before the node existed: once the node is there it is no orphan.
    run(&mut gc, &mut c, &[40_000, 60_000]);
    assert!(live(&c, "p"));
}

#[test]
fn terminating_pods_on_out_of_service_nodes_go_at_the_next_pass() {
    let mut c = Cluster::new();
    let mut n = node("a");
    n.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
        taints: Some(vec![k8s_openapi::api::core::v1::Taint {
            key: TAINT_NODE_OUT_OF_SERVICE.into(),
            value: Some("nodeshutdown".into()),
            effect: "NoExecute".into(),
            ..Default::default()
        }]),
        ..Default::default()
    });
    n.status.get_or_insert_with(Default::default).conditions =
        Some(vec![k8s_openapi::api::core::v1::NodeCondition {
            type_: "Ready".into(),
            status: "False".into(),
            ..Default::default()
        }]);
    c.add_node(n);
    let id = c.add_pod(pod("p", "a", "Running"));
    let other = c.add_pod(pod("q", "a", "Running"));
    c.delete_pod(id);
    assert!(
        c.pods[id].terminating,
        "the node is not Ready: the pod waits"
    );
    let mut gc = PodGc::new();
    run(&mut gc, &mut c, &[0]);
    assert!(c.pods[id].deleted);
    assert_eq!(c.pods[id].phase, PodPhase::Failed);
    assert!(live(&c, "q"), "a pod not being deleted stays");
    assert!(!c.pods[other].terminating);
}
