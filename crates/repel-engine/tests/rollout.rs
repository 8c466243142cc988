//! The Deployment controller on a simulated cluster: a rolling update pass by pass within its
//! fenceposts, Recreate, a rollback to an old ReplicaSet, the revision history limit, and the
//! writes a driver (`serve`) gets — ReplicaSets created, scaled, deleted, and statuses that
//! `kubectl rollout status` accepts.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use repel_core::workload::Workload;
use repel_engine::actions::ObjectWrite;
use repel_engine::cluster::PodPhase;
use repel_engine::load::ClusterInput;
use repel_engine::scenario::{ObjectRef, Step, StepAction};
use repel_engine::sim::Simulation;
use serde_json::{Value, json};

use crate::util;

fn deployment(replicas: i32, image: &str, strategy: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "strategy": strategy,
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": image}]}}}
    })
}

fn parsed(v: &Value) -> Deployment {
    serde_json::from_value(v.clone()).unwrap()
}

/// A cluster of `nodes` nodes and the Deployment `d` (its pods created as an exported
/// cluster's would be), settled.
fn sim_with(nodes: usize, d: &Value) -> Simulation {
    let nodes = (0..nodes)
        .map(|i| serde_json::from_value(json!({"metadata": {"name": format!("n{i}")}})).unwrap())
        .collect();
    let input = ClusterInput {
        nodes,
        workloads: vec![Workload::from(parsed(d))],
        ..Default::default()
    };
    let mut sim = Simulation::new(input, util::config(1));
    sim.settle();
    sim
}

/// Live (not terminating) pods by ReplicaSet name, and how many of them run.
fn pods_by_rs(sim: &Simulation) -> BTreeMap<String, (usize, usize)> {
    let mut out: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in sim
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && !p.terminating)
    {
        let owner = p.meta.owner_references.as_ref().unwrap()[0].name.clone();
        let e = out.entry(owner).or_default();
        e.0 += 1;
        e.1 += usize::from(p.phase == PodPhase::Running);
    }
    out
}

fn scaling_events(sim: &Simulation) -> Vec<String> {
    sim.events
        .iter()
        .filter(|e| e.reason == "ScalingReplicaSet")
        .map(|e| {
            assert_eq!(e.object, "Deployment/default/web");
            e.message.clone()
        })
        .collect()
}

fn apply(sim: &mut Simulation, d: &Value) {
    let step = Step {
        index: 0,
        at: sim.now,
        action: StepAction::Apply(vec![d.clone()]),
    };
    sim.apply_step(&step);
}

fn rs_names(sim: &Simulation) -> Vec<String> {
    let mut names: Vec<String> = pods_by_rs(sim).into_keys().collect();
    names.sort();
    names
}

#[test]
fn a_rolling_update_stays_within_its_fenceposts_pass_by_pass() {
    let v1 = deployment(10, "nginx:1", json!({}));
    let mut sim = sim_with(12, &v1);
    let before = pods_by_rs(&sim);
    assert_eq!(before.len(), 1, "{before:?}");
    let (old_rs, (n, running)) = before.into_iter().next().unwrap();
    assert_eq!((n, running), (10, 10));
    assert!(
        scaling_events(&sim).is_empty(),
        "the input's ReplicaSet is there already"
    );

    let v2 = deployment(10, "nginx:2", json!({}));
    assert!(sim.plane.workloads.replace(Workload::from(parsed(&v2))));
    // 25% of 10: maxSurge 3 (rounded up), maxUnavailable 2 (rounded down).
    let mut passes = 0;
    while sim.plane.pass(sim.now, &mut sim.cluster, &mut sim.events) {
        passes += 1;
        assert!(passes < 50, "the rollout ends");
        let now = pods_by_rs(&sim);
        let total: usize = now.values().map(|(n, _)| n).sum();
        let ready: usize = now.values().map(|(_, r)| r).sum();
        assert!(
            total <= 13,
            "pass {passes}: {total} pods > replicas + maxSurge: {now:?}"
        );
        assert!(
            ready >= 8,
            "pass {passes}: {ready} ready < replicas − maxUnavailable: {now:?}"
        );
    }
    let after = pods_by_rs(&sim);
    assert_eq!(
        after.len(),
        1,
        "only the new ReplicaSet has pods: {after:?}"
    );
    let (new_rs, counts) = after.into_iter().next().unwrap();
    assert_ne!(new_rs, old_rs);
    assert_eq!(counts, (10, 10));
    for p in sim.cluster.pods.iter().filter(|p| !p.deleted) {
        let hash = p
            .meta
            .labels
            .as_ref()
            .unwrap()
            .get("pod-template-hash")
            .unwrap();
        assert!(
            new_rs.ends_with(hash.as_str()),
            "{} has the new hash",
            p.name
        );
    }
    assert_eq!(
        scaling_events(&sim),
        [
            // Created with the surge; its 3 pods not yet available, 2 old ones may go.
            format!("Scaled up replica set {new_rs} from 0 to 3"),
            format!("Scaled down replica set {old_rs} from 10 to 8"),
            // 11 pods: 2 more under the ceiling of 13.
            format!("Scaled up replica set {new_rs} from 3 to 5"),
            // 13 available, 8 must stay.
            format!("Scaled down replica set {old_rs} from 8 to 3"),
            format!("Scaled up replica set {new_rs} from 5 to 10"),
            format!("Scaled down replica set {old_rs} from 3 to 0"),
        ]
    );
    let rollout = sim.plane.workloads.replica_sets("default", "web");
    let replicas: Vec<(String, i32, i64)> = rollout
        .iter()
        .map(|r| (r.name.clone(), r.replicas, r.revision()))
        .collect();
    assert_eq!(replicas, [(old_rs, 0, 1), (new_rs, 10, 2)]);
}

#[test]
fn recreate_removes_every_old_pod_before_the_new_replica_set_grows() {
    let v1 = deployment(4, "nginx:1", json!({"type": "Recreate"}));
    let mut sim = sim_with(4, &v1);
    let old_rs = rs_names(&sim).remove(0);
    let v2 = deployment(4, "nginx:2", json!({"type": "Recreate"}));
    assert!(sim.plane.workloads.replace(Workload::from(parsed(&v2))));
    let mut mixed = false;
    while sim.plane.pass(sim.now, &mut sim.cluster, &mut sim.events) {
        mixed |= pods_by_rs(&sim).len() > 1;
    }
    assert!(!mixed, "old and new pods never run together");
    let new_rs = rs_names(&sim).remove(0);
    assert_ne!(new_rs, old_rs);
    assert_eq!(
        scaling_events(&sim),
        [
            format!("Scaled down replica set {old_rs} from 4 to 0"),
            format!("Scaled up replica set {new_rs} from 0 to 4"),
        ]
    );
}

#[test]
fn a_rollback_reuses_the_old_replica_set_with_the_next_revision() {
    let v1 = deployment(2, "nginx:1", json!({}));
    let mut sim = sim_with(4, &v1);
    let old_rs = rs_names(&sim).remove(0);
    apply(&mut sim, &deployment(2, "nginx:2", json!({})));
    let new_rs = rs_names(&sim).remove(0);
    assert_ne!(new_rs, old_rs);
    // `kubectl rollout undo`: the old template, applied.
    apply(&mut sim, &v1);
    assert_eq!(
        rs_names(&sim),
        std::slice::from_ref(&old_rs),
        "the old ReplicaSet's pods are back"
    );
    let rss = sim.plane.workloads.replica_sets("default", "web");
    let revisions: Vec<(String, i64, Option<String>)> = rss
        .iter()
        .map(|r| {
            let history = r
                .annotations
                .get("deployment.kubernetes.io/revision-history")
                .cloned();
            (r.name.clone(), r.revision(), history)
        })
        .collect();
    assert_eq!(
        revisions,
        [
            (old_rs.clone(), 3, Some("1".into())),
            (new_rs.clone(), 2, None)
        ],
        "no third ReplicaSet; the old one is revision 3 now"
    );
    let events = scaling_events(&sim);
    assert_eq!(
        events.last().map(String::as_str),
        Some(format!("Scaled down replica set {new_rs} from 1 to 0").as_str())
    );
}

#[test]
fn old_replica_sets_beyond_the_revision_history_limit_are_deleted_oldest_first() {
    let d = |image: &str| {
        let mut v = deployment(1, image, json!({}));
        v["spec"]["revisionHistoryLimit"] = json!(2);
        v
    };
    let mut sim = sim_with(2, &d("v0"));
    sim.plane.workloads.record(true);
    let mut names = vec![rs_names(&sim).remove(0)];
    for i in 1..=4 {
        apply(&mut sim, &d(&format!("v{i}")));
        names.push(rs_names(&sim).remove(0));
    }
    let kept: Vec<String> = sim
        .plane
        .workloads
        .replica_sets("default", "web")
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(kept, names[2..].to_vec(), "the new one and 2 old ones");
    let deleted: Vec<String> = sim
        .plane
        .workloads
        .take_writes()
        .into_iter()
        .filter_map(|w| match w {
            ObjectWrite::Delete {
                resource: "replicasets",
                name,
                ..
            } => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(deleted, names[..2].to_vec());
}

/// `kubectl rollout status`'s test (`DeploymentStatusViewer`, v1.35) on a written status.
fn rolled_out(d: &Deployment, status: &Value) -> bool {
    let n = |k: &str| status.get(k).and_then(Value::as_i64).unwrap_or(0);
    let want = i64::from(d.spec.replicas.unwrap_or(1));
    n("observedGeneration") >= d.metadata.generation.unwrap_or(1)
        && n("updatedReplicas") >= want
        && n("replicas") <= n("updatedReplicas")
        && n("availableReplicas") >= n("updatedReplicas")
}

#[test]
fn the_writes_create_scale_and_delete_replica_sets_and_end_in_a_rolled_out_status() {
    let v1 = deployment(3, "nginx:1", json!({}));
    let mut sim = sim_with(5, &v1);
    sim.plane.workloads.record(true);
    apply(&mut sim, &deployment(3, "nginx:2", json!({})));
    let writes = sim.plane.workloads.take_writes();
    let created: Vec<&Value> = writes
        .iter()
        .filter_map(|w| match w {
            ObjectWrite::Create {
                resource: "replicasets",
                object,
            } => Some(object),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1);
    let rs: ReplicaSet = serde_json::from_value(created[0].clone()).unwrap();
    let new_rs = rs.metadata.name.clone().unwrap();
    assert_eq!(created[0]["kind"], "ReplicaSet");
    assert_eq!(created[0]["apiVersion"], "apps/v1");
    let owner = &rs.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("Deployment", "web")
    );
    assert_eq!(owner.controller, Some(true));
    let annotations = rs.metadata.annotations.clone().unwrap();
    assert_eq!(annotations["deployment.kubernetes.io/revision"], "2");
    assert_eq!(
        annotations["deployment.kubernetes.io/desired-replicas"],
        "3"
    );
    assert_eq!(annotations["deployment.kubernetes.io/max-replicas"], "4");
    let hash = new_rs.strip_prefix("web-").unwrap();
    assert_eq!(
        rs.spec.selector.match_labels.as_ref().unwrap()["pod-template-hash"],
        hash
    );
    let template_labels = rs
        .spec
        .template
        .as_ref()
        .unwrap()
        .metadata
        .as_ref()
        .unwrap();
    assert_eq!(
        template_labels.labels.as_ref().unwrap()["pod-template-hash"],
        hash
    );

    let scaled: Vec<(String, Option<i32>)> = writes
        .iter()
        .filter_map(|w| match w {
            ObjectWrite::Update {
                resource: "replicasets",
                name,
                replicas: Some(r),
                ..
            } => Some((name.clone(), Some(*r))),
            _ => None,
        })
        .collect();
    assert!(
        scaled.iter().any(|(n, r)| *n == new_rs && *r == Some(3)),
        "{scaled:?}"
    );
    assert!(
        scaled.iter().any(|(n, r)| *n != new_rs && *r == Some(0)),
        "{scaled:?}"
    );
    let revision = writes.iter().any(|w| {
        matches!(w, ObjectWrite::Update { resource: "deployments", annotations, .. }
            if annotations.get("deployment.kubernetes.io/revision") == Some(&Some("2".into())))
    });
    assert!(
        revision,
        "the Deployment's revision follows its new ReplicaSet"
    );

    let last_status = writes
        .iter()
        .rev()
        .find_map(|w| match w {
            ObjectWrite::Status {
                resource: "deployments",
                status,
                ..
            } => Some(status.clone()),
            _ => None,
        })
        .unwrap();
    assert!(rolled_out(&parsed(&v1), &last_status), "{last_status}");
    assert_eq!(
        last_status["unavailableReplicas"],
        Value::Null,
        "0 is left out"
    );
    let conditions = last_status["conditions"].as_array().unwrap();
    let progressing = conditions
        .iter()
        .find(|c| c["type"] == "Progressing")
        .unwrap();
    assert_eq!(progressing["reason"], "NewReplicaSetAvailable");
    assert_eq!(
        progressing["message"],
        format!("ReplicaSet \"{new_rs}\" has successfully progressed.")
    );
    let available = conditions
        .iter()
        .find(|c| c["type"] == "Available")
        .unwrap();
    assert_eq!(
        (&available["status"], &available["message"]),
        (
            &json!("True"),
            &json!("Deployment has minimum availability.")
        )
    );
    let rs_status = writes
        .iter()
        .rev()
        .find_map(|w| match w {
            ObjectWrite::Status {
                resource: "replicasets",
                name,
                status,
                ..
            } if *name == new_rs => Some(status.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        rs_status,
        json!({"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3,
               "availableReplicas": 3, "observedGeneration": 1})
    );

    // Nothing changes: nothing is written again.
    sim.settle();
    assert_eq!(sim.plane.workloads.take_writes(), []);

    // Deleting the Deployment: its ReplicaSets live inside it here and go with it; the
    // garbage collector deletes their pods (in `serve` it deletes the ReplicaSet objects too,
    // as their owner is gone: crates/repel-server/tests/garbage_collection.rs).
    let step = Step {
        index: 0,
        at: sim.now,
        action: StepAction::Delete(vec![ObjectRef {
            kind: "deployment".into(),
            name: "web".into(),
            namespace: None,
        }]),
    };
    sim.apply_step(&step);
    // Recorded for serve --scenario's store: the Deployment and its two ReplicaSets.
    let deleted: Vec<&'static str> = sim
        .plane
        .workloads
        .take_writes()
        .into_iter()
        .filter_map(|w| match w {
            ObjectWrite::Delete { resource, .. } => Some(resource),
            _ => None,
        })
        .collect();
    assert_eq!(deleted, ["deployments", "replicasets", "replicasets"]);
    assert!(!sim.plane.workloads.manages("Deployment", "default", "web"));
    assert!(
        sim.plane
            .workloads
            .replica_sets("default", "web")
            .is_empty()
    );
    assert_eq!(
        sim.steps.last().map(|s| s.output.clone()),
        Some(vec!["deployment.apps \"web\" deleted".to_string()])
    );
    assert!(pods_by_rs(&sim).is_empty(), "and their pods");
}

#[test]
fn a_deployment_applied_later_creates_its_replica_set_with_an_event() {
    let mut sim = sim_with(
        2,
        &json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "other"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "other"}},
                     "template": {"metadata": {"labels": {"app": "other"}},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}}}
        }),
    );
    apply(&mut sim, &deployment(2, "nginx:1", json!({})));
    let rs = rs_names(&sim)
        .into_iter()
        .find(|n| n.starts_with("web-"))
        .unwrap();
    assert_eq!(
        scaling_events(&sim),
        [format!("Scaled up replica set {rs} from 0 to 2")]
    );
}

#[test]
fn workload_statuses_are_written_when_they_change() {
    let mut sim = sim_with(2, &deployment(1, "nginx:1", json!({})));
    sim.plane.workloads.record(true);
    let job = json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"},
        "spec": {"template": {"metadata": {"annotations": {"repel.dev/run-seconds": "10"}},
                              "spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "c", "image": "i"}]}}}
    });
    let ds = json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}
    });
    let sts = json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}
    });
    let step = Step {
        index: 0,
        at: sim.now,
        action: StepAction::Apply(vec![job, ds, sts]),
    };
    sim.apply_step(&step);
    sim.advance_to(sim.now + 20_000);
    let statuses: Vec<(&'static str, String, Value)> = sim
        .plane
        .workloads
        .take_writes()
        .into_iter()
        .filter_map(|w| match w {
            ObjectWrite::Status {
                resource,
                name,
                status,
                ..
            } => Some((resource, name, status)),
            _ => None,
        })
        .collect();
    let last = |resource: &str| {
        statuses
            .iter()
            .rev()
            .find(|(r, _, _)| *r == resource)
            .map(|(_, _, s)| s.clone())
            .unwrap()
    };
    assert_eq!(
        last("daemonsets"),
        json!({"currentNumberScheduled": 2, "desiredNumberScheduled": 2,
               "numberMisscheduled": 0, "numberReady": 2, "numberAvailable": 2,
               "updatedNumberScheduled": 2, "observedGeneration": 1})
    );
    let template = serde_json::from_value(json!({"metadata": {"labels": {"app": "db"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]}}))
    .unwrap();
    let revision = repel_core::workload::revision::stateful_set_revision_name("db", &template);
    assert_eq!(
        last("statefulsets"),
        json!({"replicas": 2, "readyReplicas": 2, "currentReplicas": 2, "updatedReplicas": 2,
               "currentRevision": revision, "updateRevision": revision, "collisionCount": 0,
               "availableReplicas": 2, "observedGeneration": 1})
    );
    let job = last("jobs");
    assert_eq!(job["succeeded"], 1);
    assert_eq!(job["active"], Value::Null);
    // v1.32: SuccessCriteriaMet first, then Complete, with the same reason and message.
    let reached = "Reached expected number of succeeded pods";
    assert_eq!(
        job["conditions"],
        json!([
            {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached", "message": reached},
            {"type": "Complete", "status": "True", "reason": "CompletionsReached", "message": reached}
        ])
    );
}

#[test]
fn an_input_replica_set_of_an_older_template_is_adopted_and_rolled_away() {
    let v1 = deployment(3, "nginx:1", json!({}));
    let v2 = deployment(3, "nginx:2", json!({}));
    let mut template = v1["spec"]["template"].clone();
    template["metadata"]["labels"]["pod-template-hash"] = json!("old");
    let rs = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-old", "namespace": "default",
                     "labels": {"app": "web", "pod-template-hash": "old"},
                     "annotations": {"deployment.kubernetes.io/revision": "4"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                          "name": "web", "uid": "", "controller": true}]},
        "spec": {"replicas": 3,
                 "selector": {"matchLabels": {"app": "web", "pod-template-hash": "old"}},
                 "template": template}
    });
    let pods = (0..3)
        .map(|i| {
            serde_json::from_value(json!({
                "metadata": {"name": format!("web-old-{i}"), "namespace": "default",
                             "labels": {"app": "web", "pod-template-hash": "old"},
                             "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                  "name": "web-old", "uid": "", "controller": true}]},
                "spec": {"nodeName": format!("n{i}"), "containers": [{"name": "c", "image": "nginx:1"}]},
                "status": {"phase": "Running"}
            }))
            .unwrap()
        })
        .collect();
    let nodes = (0..4)
        .map(|i| serde_json::from_value(json!({"metadata": {"name": format!("n{i}")}})).unwrap())
        .collect();
    let input = ClusterInput {
        nodes,
        pods,
        workloads: vec![
            Workload::from(parsed(&v2)),
            Workload::ReplicaSet(serde_json::from_value(rs.clone()).unwrap()),
        ],
        ..Default::default()
    };
    let mut sim = Simulation::new(input, util::config(1));
    sim.settle();
    let rss = sim.plane.workloads.replica_sets("default", "web");
    let summary: Vec<(String, i32, i64)> = rss
        .iter()
        .map(|r| (r.name.clone(), r.replicas, r.revision()))
        .collect();
    let new_rs = rs_names(&sim).remove(0);
    assert_eq!(
        summary,
        [("web-old".to_string(), 0, 4), (new_rs.clone(), 3, 5)],
        "the input's ReplicaSet is revision 4, the new one 5"
    );
    assert_eq!(pods_by_rs(&sim).get(&new_rs), Some(&(3, 3)));
    // A ReplicaSet no managed Deployment owns is not taken.
    let mut other: ReplicaSet = serde_json::from_value(rs).unwrap();
    other.metadata.owner_references.as_mut().unwrap()[0].name = "nobody".into();
    assert!(!sim.plane.workloads.observe_replica_set(&other));
}

#[test]
fn a_scaling_event_scales_the_one_active_replica_set_and_a_paused_deployment_does_not_roll() {
    let mut sim = sim_with(3, &deployment(2, "nginx:1", json!({})));
    let rs = rs_names(&sim).remove(0);
    apply(&mut sim, &deployment(4, "nginx:1", json!({})));
    assert_eq!(pods_by_rs(&sim).get(&rs), Some(&(4, 4)));
    assert_eq!(
        scaling_events(&sim),
        [format!("Scaled up replica set {rs} from 2 to 4")]
    );
    // Paused: a new template makes no ReplicaSet; resumed, it rolls out.
    let mut paused = deployment(4, "nginx:2", json!({}));
    paused["spec"]["paused"] = json!(true);
    apply(&mut sim, &paused);
    assert_eq!(rs_names(&sim), std::slice::from_ref(&rs));
    apply(&mut sim, &deployment(4, "nginx:2", json!({})));
    let names = rs_names(&sim);
    assert_eq!(names.len(), 1);
    assert_ne!(names[0], rs, "resumed, the new template rolls out");
}

#[test]
fn a_rollout_whose_new_pods_cannot_be_scheduled_stops_within_its_fenceposts() {
    let mut sim = sim_with(3, &deployment(4, "nginx:1", json!({})));
    let old = rs_names(&sim).remove(0);
    // Version 2 wants a node no one has: its pods stay Pending.
    let mut v2 = deployment(4, "nginx:2", json!({}));
    v2["spec"]["template"]["spec"]["nodeSelector"] = json!({"pool": "missing"});
    apply(&mut sim, &v2);
    let now = pods_by_rs(&sim);
    let new = now.keys().find(|k| **k != old).cloned().unwrap();
    // maxSurge 1, maxUnavailable 1: 3 old pods keep running, 2 new ones wait.
    assert_eq!(now.get(&old), Some(&(3, 3)), "{now:?}");
    assert_eq!(now.get(&new), Some(&(2, 0)), "{now:?}");
    sim.advance_to(sim.now + 600_000);
    assert_eq!(pods_by_rs(&sim), now, "and it stays so");
}

fn kubectl_step(sim: &mut Simulation, line: &str) -> (Vec<String>, bool) {
    let step = Step {
        index: 0,
        at: sim.now,
        action: StepAction::Kubectl(line.to_string()),
    };
    sim.apply_step(&step);
    let r = sim.steps.last().unwrap();
    (r.output.clone(), r.ok)
}

#[test]
fn kubectl_scale_in_a_step_scales_the_deployment_with_kubectls_words() {
    let mut sim = sim_with(2, &deployment(2, "nginx:1", json!(null)));
    let live = |sim: &Simulation| pods_by_rs(sim).values().map(|(n, _)| n).sum::<usize>();
    assert_eq!(live(&sim), 2);
    sim.plane.workloads.record(true);
    let (out, ok) = kubectl_step(&mut sim, "kubectl scale deployment/web --replicas=5");
    assert_eq!(
        (out, ok),
        (vec!["deployment.apps/web scaled".to_string()], true)
    );
    assert_eq!(live(&sim), 5);
    // The Deployment object is written with its new replicas and generation (serve).
    let writes = sim.plane.workloads.take_writes();
    assert!(
        writes.iter().any(|w| matches!(
            w,
            ObjectWrite::Update {
                resource: "deployments",
                replicas: Some(5),
                ..
            }
        )),
        "{writes:?}"
    );
    let (out, ok) = kubectl_step(&mut sim, "kubectl scale --replicas 1 deploy web");
    assert!(ok, "{out:?}");
    assert_eq!(live(&sim), 1);
    // kubectl's refusals.
    let cases = [
        (
            "kubectl scale deployment/web",
            "error: required flag(s) \"replicas\" not set",
        ),
        (
            "kubectl scale deployment/web --replicas=-1",
            "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
        ),
        (
            "kubectl scale deployment/nope --replicas=1",
            "Error from server (NotFound): deployments.apps \"nope\" not found",
        ),
        (
            "kubectl scale deployment/web --current-replicas=3 --replicas=4",
            "error: Expected replicas to be 3, was 1",
        ),
    ];
    for (line, want) in cases {
        let (out, ok) = kubectl_step(&mut sim, line);
        assert_eq!((out, ok), (vec![want.to_string()], false), "{line}");
    }
    assert_eq!(live(&sim), 1);
}

#[test]
fn a_job_past_its_backoff_limit_gets_failure_target_then_failed() {
    let mut sim = sim_with(1, &deployment(1, "nginx:1", json!({})));
    sim.plane.workloads.record(true);
    let job = json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"},
        "spec": {"backoffLimit": 0,
                 "template": {"metadata": {"annotations": {"repel.dev/run-seconds": "100"}},
                              "spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "c", "image": "i"}]}}}
    });
    let step = Step {
        index: 0,
        at: sim.now,
        action: StepAction::Apply(vec![job]),
    };
    sim.apply_step(&step);
    sim.advance_to(sim.now + 5_000);
    let pod = sim
        .cluster
        .pods
        .iter()
        .find(|p| {
            !p.deleted
                && p.meta
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with("once-"))
        })
        .and_then(|p| p.meta.name.clone())
        .unwrap();
    let (_, ok) = kubectl_step(&mut sim, &format!("kubectl delete pod {pod}"));
    assert!(ok);
    sim.advance_to(sim.now + 5_000);
    let job = sim
        .plane
        .workloads
        .take_writes()
        .into_iter()
        .filter_map(|w| match w {
            ObjectWrite::Status {
                resource: "jobs",
                status,
                ..
            } => Some(status),
            _ => None,
        })
        .next_back()
        .unwrap();
    let limit = "Job has reached the specified backoff limit";
    assert_eq!(
        job["conditions"],
        json!([
            {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "message": limit},
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": limit}
        ])
    );
}
