//! The control plane's view kept from the store's change stream holds what a view
//! built from scratch holds, after every kind of change kubectl and the engine make: pods
//! created, bound, run, labelled, deleted; nodes tainted, labelled, cordoned, deleted, added;
//! namespaces, budgets and workloads.

use std::time::{Duration, Instant};

use crate::util::{Server, have_kubectl, node, pod, start};
use repel_server::view::{View, summary};
use serde_json::{Value, json};

/// Syncs `view` and builds a fresh one at the same resourceVersion; they must agree.
fn agree(s: &Server, view: &mut View, step: &str) {
    for _ in 0..50 {
        view.sync();
        let fresh = View::build(&s.app.store);
        if fresh.rv == view.rv {
            assert_eq!(summary(&view.cluster), summary(&fresh.cluster), "{step}");
            return;
        }
    }
    panic!("{step}: the store never stood still");
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn running(s: &Server) -> usize {
    s.app
        .store
        .list("pods", None)
        .0
        .iter()
        .filter(|p| p["status"]["phase"] == "Running")
        .count()
}

#[test]
fn a_view_kept_from_the_change_stream_equals_one_built_from_scratch() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null)), node("node2", json!(null))]);
    let mut view = View::build(&s.app.store);
    let objects = json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "team"},
         "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "c", "image": "nginx",
                                        "resources": {"requests": {"cpu": "100m"}}}]}}}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "team"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
        pod("default", "pinned", Some("node2")),
        pod("default", "waiting", Some("node3")),
    ]});
    let file = s.write("objects.json", &objects.to_string());
    let o = s.kubectl(&["apply", "--validate=false", "-f", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    wait_for("4 pods running", || running(&s) >= 4);
    agree(&s, &mut view, "after the apply");

    for args in [
        vec!["taint", "nodes", "node1", "dedicated=x:NoSchedule"],
        vec!["label", "nodes", "node2", "tier=gold"],
        vec!["cordon", "node2"],
        vec!["label", "pod", "pinned", "extra=1"],
        vec!["delete", "pod", "-n", "team", "--all", "--wait=false"],
    ] {
        let o = s.kubectl(&args);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    }
    // node1 is tainted and node2 cordoned: the replacements stay Pending.
    wait_for("the Deployment's replacements", || {
        let (pods, _) = s.app.store.list("pods", Some("team"));
        pods.len() == 3
            && pods
                .iter()
                .all(|p| p["metadata"]["deletionTimestamp"].is_null())
    });
    agree(&s, &mut view, "after taints, labels, cordon and deletions");

    // A pod bound by spec.nodeName onto an untolerated NoExecute taint is rejected by the
    // kubelet (Failed), then deleted by the taint-eviction controller.
    let o = s.kubectl(&["taint", "nodes", "node1", "evict=1:NoExecute"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rejected = s.write(
        "rejected.json",
        &pod("default", "rejected", Some("node1")).to_string(),
    );
    let o = s.kubectl(&["apply", "--validate=false", "-f", &rejected]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    wait_for("the pod rejected, then deleted", || {
        s.app.store.get("pods", "default", "rejected").is_none()
    });
    agree(&s, &mut view, "after a pod rejected by its kubelet");

    let o = s.kubectl(&["delete", "node", "node2", "--wait=false"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let node3 = s.write("node3.json", &node("node3", json!(null)).to_string());
    let o = s.kubectl(&["apply", "--validate=false", "-f", &node3]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    wait_for("node3 registered", || {
        s.app
            .store
            .get("nodes", "", "node3")
            .is_some_and(|n: Value| !n["status"]["nodeInfo"].is_null())
    });
    agree(&s, &mut view, "after a node deleted and one added");
    // A pod naming a node that does not exist is PodGC's after its 40 s quarantine (upstream
    // `gcOrphaned`), long before node3 came: gone from the store and the view alike.
    assert!(s.app.store.get("pods", "default", "waiting").is_none());
    assert_eq!(view.cluster.pod_id("default", "waiting"), None);
}
