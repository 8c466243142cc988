//! DaemonSets and StatefulSets keep ControllerRevisions as upstream's controllers do: one per
//! template, numbered in the order they were current, a rollback renumbering the old one
//! (not a new revision), old ones beyond `revisionHistoryLimit` deleted. A StatefulSet's new
//! template rolls from the highest ordinal down, one pod at a time, down to `partition`;
//! `OnDelete` replaces nothing; its status names the current and update revisions.

use repel_core::workload::Workload;
use repel_core::workload::revision::stateful_set_revision_name;
use repel_engine::actions::ObjectWrite;
use repel_engine::cluster::PodPhase;
use repel_engine::load::ClusterInput;
use repel_engine::sim::Simulation;
use serde_json::{Value, json};

use crate::util;

fn template(image: &str) -> Value {
    json!({"metadata": {"labels": {"app": "db"}},
           "spec": {"containers": [{"name": "c", "image": image}]}})
}

fn sts(image: &str, strategy: Value) -> Workload {
    Workload::StatefulSet(
        serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default", "uid": "sts-uid"},
            "spec": {"replicas": 3, "serviceName": "db",
                     "selector": {"matchLabels": {"app": "db"}},
                     "updateStrategy": strategy, "revisionHistoryLimit": 1,
                     "template": template(image)}
        }))
        .unwrap(),
    )
}

fn ds(image: &str) -> Workload {
    Workload::DaemonSet(
        serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "default", "uid": "ds-uid",
                         "annotations": {"kubernetes.io/change-cause": "v"}},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"containers": [{"name": "a", "image": image}]}}}
        }))
        .unwrap(),
    )
}

fn sim(workload: Workload) -> Simulation {
    let mut s = Simulation::new(
        ClusterInput {
            nodes: util::ready_nodes(2),
            workloads: vec![workload],
            ..Default::default()
        },
        util::config(3),
    );
    s.plane.workloads.record(true);
    s.settle();
    s
}

/// Passes until nothing changes; returns the `SuccessfulDelete` messages in order.
fn settle(s: &mut Simulation) -> Vec<String> {
    let before = s.events.len();
    let now = s.now;
    for _ in 0..100 {
        if !s.plane.pass(now, &mut s.cluster, &mut s.events) {
            break;
        }
    }
    s.events[before..]
        .iter()
        .filter(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.message.clone())
        .collect()
}

/// The running pods' (name, image, revision label), by name.
fn pods(s: &Simulation) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = s
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && p.phase == PodPhase::Running)
        .map(|p| {
            (
                p.name.clone(),
                p.spec().containers[0].image.clone().unwrap_or_default(),
                p.labels()
                    .get("controller-revision-hash")
                    .cloned()
                    .unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The revision writes: ("create", name, revision) / ("set", name, revision) / ("delete", name, 0).
fn revision_writes(s: &mut Simulation) -> Vec<(&'static str, String, i64)> {
    s.plane
        .workloads
        .take_writes()
        .into_iter()
        .filter_map(|w| match w {
            ObjectWrite::Create {
                resource: "controllerrevisions",
                object,
            } => Some((
                "create",
                object["metadata"]["name"].as_str().unwrap().to_string(),
                object["revision"].as_i64().unwrap(),
            )),
            ObjectWrite::SetRevision { name, revision, .. } => Some(("set", name, revision)),
            ObjectWrite::Delete {
                resource: "controllerrevisions",
                name,
                ..
            } => Some(("delete", name, 0)),
            _ => None,
        })
        .collect()
}

fn last_status(writes: &[ObjectWrite]) -> Value {
    writes
        .iter()
        .rev()
        .find_map(|w| match w {
            ObjectWrite::Status {
                resource: "statefulsets",
                status,
                ..
            } => Some(status.clone()),
            _ => None,
        })
        .unwrap()
}

fn rev(image: &str) -> String {
    stateful_set_revision_name("db", &serde_json::from_value(template(image)).unwrap())
}

#[test]
fn a_stateful_set_rolls_from_the_highest_ordinal_and_keeps_its_revisions() {
    let rolling = json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}});
    let mut s = sim(sts("redis:7", rolling.clone()));
    let (r1, r2) = (rev("redis:7"), rev("redis:8"));
    assert_eq!(revision_writes(&mut s), [("create", r1.clone(), 1)]);
    assert!(s.plane.workloads.replace(sts("redis:8", rolling.clone())));
    let deleted = settle(&mut s);
    assert_eq!(
        deleted,
        [
            "delete Pod db-2 in StatefulSet db successful",
            "delete Pod db-1 in StatefulSet db successful",
            "delete Pod db-0 in StatefulSet db successful",
        ],
        "one at a time from the highest ordinal"
    );
    let want: Vec<_> = (0..3)
        .map(|i| (format!("db-{i}"), "redis:8".to_string(), r2.clone()))
        .collect();
    assert_eq!(pods(&s), want);
    let writes = s.plane.workloads.take_writes();
    let status = last_status(&writes);
    assert_eq!(status["currentRevision"], json!(r2), "{status}");
    assert_eq!(status["updateRevision"], json!(r2), "{status}");
    assert_eq!(status["updatedReplicas"], json!(3), "{status}");
    // Back to the first template: its revision is renumbered, no new one is made, and the
    // third template's revision pushes the oldest out (revisionHistoryLimit 1).
    assert!(s.plane.workloads.replace(sts("redis:7", rolling.clone())));
    settle(&mut s);
    assert_eq!(revision_writes(&mut s), [("set", r1.clone(), 3)]);
    assert!(pods(&s).iter().all(|p| p.1 == "redis:7" && p.2 == r1));
    assert!(s.plane.workloads.replace(sts("redis:9", rolling)));
    settle(&mut s);
    assert_eq!(
        revision_writes(&mut s),
        [("create", rev("redis:9"), 4), ("delete", r2, 0)]
    );
}

#[test]
fn a_partition_keeps_the_lower_ordinals_and_on_delete_keeps_every_pod() {
    let partitioned = json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 2}});
    let mut s = sim(sts("redis:7", partitioned.clone()));
    assert!(s.plane.workloads.replace(sts("redis:8", partitioned)));
    assert_eq!(
        settle(&mut s),
        ["delete Pod db-2 in StatefulSet db successful"]
    );
    let images: Vec<String> = pods(&s).into_iter().map(|p| p.1).collect();
    assert_eq!(images, ["redis:7", "redis:7", "redis:8"]);
    let status = last_status(&s.plane.workloads.take_writes());
    assert_eq!(status["currentRevision"], json!(rev("redis:7")), "{status}");
    assert_eq!(status["updateRevision"], json!(rev("redis:8")), "{status}");
    assert_eq!(
        (&status["currentReplicas"], &status["updatedReplicas"]),
        (&json!(2), &json!(1))
    );

    let on_delete = json!({"type": "OnDelete"});
    let mut s = sim(sts("redis:7", on_delete.clone()));
    assert!(s.plane.workloads.replace(sts("redis:8", on_delete)));
    assert!(settle(&mut s).is_empty(), "OnDelete replaces nothing");
}

#[test]
fn a_daemon_set_revision_carries_its_template_patch_and_its_annotations() {
    let mut s = sim(ds("agent:1"));
    let writes = s.plane.workloads.take_writes();
    let object = writes
        .iter()
        .find_map(|w| match w {
            ObjectWrite::Create {
                resource: "controllerrevisions",
                object,
            } => Some(object.clone()),
            _ => None,
        })
        .unwrap();
    let hash = pods(&s)[0].2.clone();
    assert_eq!(
        object,
        json!({
            "apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {
                "name": format!("agent-{hash}"), "namespace": "default",
                "labels": {"app": "agent", "controller-revision-hash": hash},
                "annotations": {"kubernetes.io/change-cause": "v"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent",
                                     "uid": "ds-uid", "controller": true, "blockOwnerDeletion": true}]
            },
            "data": {"spec": {"template": {"$patch": "replace",
                "metadata": {"creationTimestamp": null, "labels": {"app": "agent"}},
                "spec": {"containers": [{"image": "agent:1", "name": "a", "resources": {}}]}}}},
            "revision": 1
        })
    );
    assert!(s.plane.workloads.replace(ds("agent:2")));
    settle(&mut s);
    let names: Vec<_> = revision_writes(&mut s);
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!((names[0].0, names[0].2), ("create", 2));
    assert!(s.plane.workloads.replace(ds("agent:1")));
    settle(&mut s);
    assert_eq!(
        revision_writes(&mut s),
        [("set", format!("agent-{hash}"), 3)]
    );
}

#[test]
fn revisions_read_back_from_a_store_number_the_next_one() {
    let mut s = sim(ds("agent:1"));
    revision_writes(&mut s);
    // A revision a restarted server's store holds, numbered 7, of an older template.
    s.plane.workloads.observe_revision(&json!({
        "metadata": {"name": "agent-old", "namespace": "default",
                     "labels": {"controller-revision-hash": "old"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                          "name": "agent", "uid": "ds-uid", "controller": true}]},
        "data": {"spec": {"template": {"$patch": "replace"}}},
        "revision": 7
    }));
    // The current template's revision (1) is below it: it is made the newest.
    settle(&mut s);
    let writes = revision_writes(&mut s);
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!((writes[0].0, writes[0].2), ("set", 8));
    assert!(s.plane.workloads.replace(ds("agent:2")));
    settle(&mut s);
    let writes = revision_writes(&mut s);
    assert_eq!((writes[0].0, writes[0].2), ("create", 9), "{writes:?}");
    // One deleted from the store is forgotten; one of another owner is ignored.
    s.plane.workloads.forget_revision("default", "agent-old");
    s.plane.workloads.observe_revision(&json!({
        "metadata": {"name": "x-1", "namespace": "default",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                          "name": "x", "uid": "u", "controller": true}]},
        "data": {}, "revision": 50
    }));
    assert!(s.plane.workloads.replace(ds("agent:3")));
    settle(&mut s);
    let writes = revision_writes(&mut s);
    assert_eq!((writes[0].0, writes[0].2), ("create", 10), "{writes:?}");
}
