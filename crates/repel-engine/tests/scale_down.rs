//! A Deployment applied again with fewer replicas: its ReplicaSet deletes the excess, each with
//! upstream's `SuccessfulDelete` "Deleted pod: NAME" on the ReplicaSet.

use repel_engine::scenario::{ObjectRef, Step, StepAction};
use serde_json::{Value, json};

use crate::util;

fn deployment(replicas: i32) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    })
}

#[test]
fn fewer_replicas_delete_the_excess() {
    let mut sim = util::settled(vec![util::sized_node("n1", "4", "8Gi", "110")], 3);
    for (i, (at, replicas)) in [(1_000, 4), (10_000, 1)].into_iter().enumerate() {
        sim.advance_to(at);
        sim.apply_step(&Step {
            index: i,
            at,
            action: StepAction::Apply(vec![deployment(replicas)]),
        });
        assert!(sim.steps.last().unwrap().ok, "{:?}", sim.steps.last());
    }
    assert_eq!(sim.final_pods().len(), 1);
    let deletes: Vec<&str> = sim
        .events
        .iter()
        .filter(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(deletes.len(), 3, "{deletes:?}");
    assert!(deletes.iter().all(|m| m.starts_with("Deleted pod: web-")));
    let object = sim
        .events
        .iter()
        .find(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.object.clone())
        .unwrap();
    assert!(object.starts_with("ReplicaSet/default/web-"), "{object}");
    // The pod kept is the oldest (all else equal, the newest go first).
    let first_created = sim
        .events
        .iter()
        .find(|e| e.reason == "SuccessfulCreate")
        .map(|e| e.message.trim_start_matches("Created pod: ").to_string())
        .unwrap();
    assert_eq!(
        sim.final_pods()[0].pod,
        format!("default/{first_created}"),
        "{:?}",
        sim.events
    );
}

/// The workload `kind` named `web`, with `replicas`, its selector the template's labels (a
/// ReplicationController's as a map, and left out for the API server's defaulting).
fn workload(kind: &str, replicas: i32) -> Value {
    let template = json!({"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    match kind {
        "ReplicationController" => json!({
            "apiVersion": "v1", "kind": kind,
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "template": template}}),
        _ => json!({
            "apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": template}}),
    }
}

/// What a workload's controller did as `kind`'s replicas went 4, 1, 3: its events (reason,
/// object, message) and the pods left, with their controller reference (apiVersion, kind,
/// name).
#[allow(clippy::type_complexity)]
fn scaled(
    kind: &str,
) -> (
    Vec<(String, String, String)>,
    Vec<(String, String, String, String)>,
) {
    let mut sim = util::settled(vec![util::sized_node("n1", "4", "8Gi", "110")], 3);
    for (i, (at, replicas)) in [(1_000, 4), (10_000, 1), (20_000, 3)]
        .into_iter()
        .enumerate()
    {
        sim.advance_to(at);
        sim.apply_step(&Step {
            index: i,
            at,
            action: StepAction::Apply(vec![workload(kind, replicas)]),
        });
        assert!(sim.steps.last().unwrap().ok, "{:?}", sim.steps.last());
    }
    sim.advance_to(30_000);
    let events: Vec<(String, String, String)> = sim
        .events
        .iter()
        .filter(|e| matches!(e.reason.as_str(), "SuccessfulCreate" | "SuccessfulDelete"))
        .map(|e| (e.reason.clone(), e.object.clone(), e.message.clone()))
        .collect();
    let pods = sim
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted)
        .map(|p| {
            let r = p.meta.owner_references.clone().unwrap_or_default();
            let r = r.first().cloned().unwrap_or_default();
            (p.name.clone(), r.api_version, r.kind, r.name)
        })
        .collect();
    // Deleted (kubectl's background deletion): the garbage collector takes its pods.
    sim.apply_step(&Step {
        index: 3,
        at: 30_000,
        action: StepAction::Delete(vec![ObjectRef {
            kind: kind.to_string(),
            namespace: Some("default".into()),
            name: "web".into(),
        }]),
    });
    let step = sim.steps.last().unwrap();
    assert!(step.ok, "{step:?}");
    // kubectl's line: `resource.group`, the core group's without one.
    let said = match kind {
        "ReplicationController" => "replicationcontroller \"web\" deleted",
        _ => "replicaset.apps \"web\" deleted",
    };
    assert_eq!(step.output, [said]);
    sim.advance_to(60_000);
    assert_eq!(sim.final_pods().len(), 0, "{kind}: {:?}", sim.final_pods());
    (events, pods)
}

/// A ReplicationController scales as a ReplicaSet does (upstream's ReplicationManager is the
/// ReplicaSet controller): the same pods created and deleted, in the same order, with the
/// same words; only the owner differs (`v1` `ReplicationController`), and an RC without a
/// selector selects its template's labels.
#[test]
fn a_replication_controller_scales_up_and_down_as_a_replicaset() {
    let (rs_events, rs_pods) = scaled("ReplicaSet");
    let (rc_events, rc_pods) = scaled("ReplicationController");
    let count = |ev: &[(String, String, String)], r: &str| ev.iter().filter(|e| e.0 == r).count();
    assert_eq!(count(&rc_events, "SuccessfulCreate"), 6, "{rc_events:?}");
    assert_eq!(count(&rc_events, "SuccessfulDelete"), 3, "{rc_events:?}");
    assert_eq!(rc_pods.len(), 3, "{rc_pods:?}");
    assert!(
        rc_events
            .iter()
            .all(|e| e.1 == "ReplicationController/default/web"),
        "{rc_events:?}"
    );
    // The same sync: the same events but for the object, the same pods but for the owner.
    let strip = |ev: Vec<(String, String, String)>| -> Vec<(String, String)> {
        ev.into_iter().map(|(r, _, m)| (r, m)).collect()
    };
    let rs_shape: Vec<(String, String)> = strip(rs_events);
    let rc_shape: Vec<(String, String)> = strip(rc_events);
    assert_eq!(rc_shape.len(), rs_shape.len());
    for ((rr, rm), (cr, cm)) in rs_shape.iter().zip(&rc_shape) {
        assert_eq!(rr, cr);
        assert!(
            cm.starts_with(if cr == "SuccessfulCreate" {
                "Created pod: web-"
            } else {
                "Deleted pod: web-"
            }),
            "{cm}"
        );
        assert_eq!(rm.len(), cm.len(), "{rm} / {cm}");
    }
    assert_eq!(rs_pods.len(), rc_pods.len());
    for (name, api, kind, owner) in &rc_pods {
        assert_eq!(name.len(), "web-".len() + 5, "{name}");
        assert_eq!(
            (api.as_str(), kind.as_str(), owner.as_str()),
            ("v1", "ReplicationController", "web")
        );
    }
    for (_, api, kind, owner) in &rs_pods {
        assert_eq!(
            (api.as_str(), kind.as_str(), owner.as_str()),
            ("apps/v1", "ReplicaSet", "web")
        );
    }
}
