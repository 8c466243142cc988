//! The control plane on a view of a store, its actions written back: after every pass the
//! store holds what the view holds (a view built from the store equals the one the control
//! plane changed, once the view has read its own writes back from the change stream).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::stamp::with_times;
use k8s_openapi::api::core::v1::Pod;
use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_engine::actions::Changes;
use repel_engine::control_plane::ControlPlane;
use repel_engine::controllers::kubelet::Kubelet;
use repel_engine::controllers::node_lifecycle::{NodeLifecycleConfig, NodeLifecycleController};
use repel_engine::controllers::taint_eviction::TaintEvictionController;
use repel_engine::controllers::workloads::WorkloadControllers;
use repel_engine::scheduler::fast::FastScheduler;
use serde_json::json;

use super::*;
use crate::view::{View, summary};

fn plane() -> ControlPlane {
    let gates = FeatureGates::default();
    ControlPlane::new(
        FastScheduler::new(gates, None, 0),
        Kubelet::new(gates),
        TaintEvictionController::new(gates),
        NodeLifecycleController::new(NodeLifecycleConfig::default()),
        WorkloadControllers::new(gates, AdmissionConfig::default(), 0),
    )
}

fn node(name: &str, taints: Value) -> Value {
    json!({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "spec": {"taints": taints},
           "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
}

fn pod(name: &str, node: Option<&str>) -> Value {
    let mut p = json!({"metadata": {"name": name, "namespace": "default"},
                       "spec": {"containers": [{"name": "c", "image": "i"}]}});
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    p
}

#[test]
fn the_store_holds_what_the_control_plane_did_after_every_pass() {
    let store = Store::in_memory();
    store.create("nodes", node("node1", json!(null))).unwrap();
    store
        .create(
            "nodes",
            node(
                "node2",
                json!([{"key": "k", "value": "v", "effect": "NoExecute"}]),
            ),
        )
        .unwrap();
    // Scheduled on node1; rejected by node2's kubelet then evicted; waiting for a node that
    // never comes (collected by PodGC at 40 s).
    store.create("pods", pod("a", None)).unwrap();
    store.create("pods", pod("b", Some("node2"))).unwrap();
    store.create("pods", pod("c", Some("gone"))).unwrap();
    let mut view = View::build(&store);
    view.cluster.record(true);
    let mut plane = plane();
    let mut events = Vec::new();
    let mut correlator = Correlator::new();
    let mut written = 0;
    for t in [0, 20_000, 40_000, 60_000] {
        plane.settle(t, &mut view.cluster, &mut events);
        let actions = view.cluster.take_actions();
        let changes = Changes::of(&view.cluster, &actions);
        write(
            &store,
            &Admission::default(),
            &view.cluster,
            &changes,
            &events[written..],
            EventClock::Wall,
            Some(&mut correlator),
        )
        .unwrap();
        written = events.len();
        view.sync();
        assert!(
            view.cluster.take_actions().is_empty(),
            "at {t}: reading its own writes back is no action"
        );
        let fresh = View::build(&store);
        assert_eq!(fresh.rv, view.rv);
        assert_eq!(summary(&view.cluster), summary(&fresh.cluster), "at {t} ms");
    }
    let a = store.get("pods", "default", "a").unwrap();
    assert_eq!(a["spec"]["nodeName"], "node1");
    assert_eq!(a["status"]["phase"], "Running");
    assert!(store.get("pods", "default", "c").is_none(), "PodGC at 40 s");
    let reasons: Vec<String> = store
        .list("events", None)
        .0
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                e["reason"].as_str().unwrap_or(""),
                e["involvedObject"]["name"].as_str().unwrap_or(""),
                e["source"]["component"].as_str().unwrap_or("")
            )
        })
        .collect();
    for want in [
        "Scheduled a default-scheduler",
        "TaintToleration b kubelet",
        "RegisteredNode node1 node-controller",
    ] {
        assert!(reasons.iter().any(|r| r == want), "{want}: {reasons:?}");
    }
}

/// The control plane's events are recorded as upstream's recorders do: a ReplicaSet's many
/// `SuccessfulCreate`s become nine events and one combined event counted across passes (in
/// the same batch and once stored); the scheduler's `Scheduled` events are each written.
#[test]
fn events_go_through_the_recorders_correlator_but_the_schedulers() {
    let store = Store::in_memory();
    store
        .create("namespaces", json!({"metadata": {"name": "default"}}))
        .unwrap();
    let mut correlator = Correlator::new();
    let created = |i: usize| {
        EngineEvent::normal(
            0,
            "SuccessfulCreate",
            "ReplicaSet/default/web-1".into(),
            None,
            format!("Created pod: web-1-p{i}"),
        )
    };
    let scheduled = |i: usize| {
        EngineEvent::normal(
            0,
            "Scheduled",
            format!("Pod/default/web-1-p{i}"),
            Some("node1".into()),
            format!("Successfully assigned default/web-1-p{i} to node1"),
        )
    };
    for pass in [0..12, 12..17] {
        let events: Vec<EngineEvent> = pass.flat_map(|i| [created(i), scheduled(i)]).collect();
        write(
            &store,
            &Admission::default(),
            &Cluster::new(),
            &Changes::default(),
            &events,
            EventClock::Wall,
            Some(&mut correlator),
        )
        .unwrap();
    }
    let (events, _) = store.list("events", None);
    let by =
        |reason: &str| -> Vec<&Value> { events.iter().filter(|e| e["reason"] == reason).collect() };
    assert_eq!(by("Scheduled").len(), 17);
    let created = by("SuccessfulCreate");
    assert_eq!(created.len(), 10, "{created:?}");
    let combined: Vec<&&Value> = created
        .iter()
        .filter(|e| {
            e["message"]
                .as_str()
                .unwrap()
                .starts_with("(combined from similar events): ")
        })
        .collect();
    assert_eq!(combined.len(), 1);
    assert_eq!(combined[0]["count"], 8);
    assert_eq!(
        combined[0]["message"],
        "(combined from similar events): Created pod: web-1-p16"
    );
    assert!(
        created
            .iter()
            .all(|e| e["source"]["component"] == "replicaset-controller")
    );
}

#[test]
fn controller_statuses_get_upstreams_times_and_keep_them() {
    let t0 = "2026-01-01T00:00:00Z";
    let complete = json!({"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]});
    let job = with_times("jobs", complete.clone(), &json!({"startTime": t0}));
    assert_eq!(job["startTime"], t0, "a job keeps the time it started");
    assert!(job["completionTime"].is_string(), "{job}");
    assert!(job["conditions"][0]["lastProbeTime"].is_string(), "{job}");
    assert!(
        job["conditions"][0]["lastTransitionTime"].is_string(),
        "{job}"
    );
    let again = with_times("jobs", complete, &job);
    assert_eq!(again, job, "an unchanged status is unchanged");
    let running = with_times("jobs", json!({"active": 1}), &Value::Null);
    assert!(running["startTime"].is_string() && running.get("completionTime").is_none());
    assert!(running.get("conditions").is_none(), "{running}");

    let available = json!({"conditions": [{"type": "Available", "status": "True"}]});
    let old = json!({"conditions": [{"type": "Available", "status": "True",
                                     "lastTransitionTime": t0, "lastUpdateTime": t0}]});
    let d = with_times("deployments", available, &old);
    assert_eq!(d["conditions"][0]["lastTransitionTime"], t0);
    assert_eq!(d["conditions"][0]["lastUpdateTime"], t0);
    let ds = json!({"numberReady": 1});
    assert_eq!(with_times("daemonsets", ds.clone(), &Value::Null), ds);
}

/// A workload controller records under its own component (upstream's event sources); a
/// ReplicationController's is the ReplicationManager's `replication-controller`.
#[test]
fn workload_events_come_from_their_controllers_component() {
    for (kind, want) in [
        ("ReplicaSet", "replicaset-controller"),
        ("ReplicationController", "replication-controller"),
        ("Job", "job-controller"),
    ] {
        assert_eq!(component("SuccessfulCreate", kind), want, "{kind}");
    }
}

/// Upstream's controllers create through the API, so a ValidatingAdmissionPolicy bound to pods
/// refuses a pod a ReplicaSet creates as it refuses a client's: the pod is not stored.
#[test]
fn the_control_planes_pods_meet_the_validating_admission_policies() {
    let store = Store::in_memory();
    store
        .create("namespaces", json!({"metadata": {"name": "default"}}))
        .unwrap();
    let admission = Admission::default();
    let config = admission.pod_config(&store);
    let mut wild = pod("wild", None);
    wild["spec"]["tolerations"] = json!([{"operator": "Exists"}]);
    let typed = |v: &Value| serde_json::from_value::<Pod>(v.clone()).unwrap();

    create_pod(
        &store,
        &admission,
        &config,
        &mut NodeCache::default(),
        typed(&wild),
    )
    .unwrap();
    assert!(
        store.get("pods", "default", "wild").is_some(),
        "no policy: created"
    );
    store.delete("pods", "default", "wild").unwrap();

    let mut policy = json!({
        "metadata": {"name": "no-wildcard"},
        "spec": {
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]},
            "validations": [{"expression": "!has(object.spec.tolerations) || object.spec.tolerations.all(t, has(t.key))"}],
        },
    });
    crate::policy::validation::set_policy_defaults(&mut policy);
    store.create(crate::policy::POLICIES, policy).unwrap();
    store
        .create(
            crate::policy::BINDINGS,
            json!({"metadata": {"name": "no-wildcard"}, "spec": {"policyName": "no-wildcard", "validationActions": ["Deny"]}}),
        )
        .unwrap();
    create_pod(
        &store,
        &admission,
        &config,
        &mut NodeCache::default(),
        typed(&wild),
    )
    .unwrap();
    assert!(store.get("pods", "default", "wild").is_none(), "refused");
    create_pod(
        &store,
        &admission,
        &config,
        &mut NodeCache::default(),
        typed(&pod("tame", None)),
    )
    .unwrap();
    assert!(
        store.get("pods", "default", "tame").is_some(),
        "a pod the policy admits is created"
    );
}
