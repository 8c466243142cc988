//! The garbage collector's decisions (after upstream `garbagecollector_test.go`'s
//! `TestAttemptToDeleteItem`, `TestOrphanDependents…` and foreground cases, and
//! `test/integration/garbagecollector`'s cascading, orphan and foreground deletions), on the
//! engine's view: pods through the cluster, other objects through the collector's graph.

use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

use super::*;

fn owner_ref(kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
           "controller": true, "blockOwnerDeletion": true})
}

fn pod(ns: &str, name: &str, owners: Vec<Value>) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": ns, "ownerReferences": owners},
        "spec": {"containers": [{"name": "c", "image": "i"}]}
    }))
    .unwrap_or_default()
}

fn object(
    resource: &str,
    kind: &str,
    ns: &str,
    name: &str,
    uid: &str,
    owners: Vec<Value>,
) -> GcObject {
    let o = json!({"kind": kind, "metadata": {"name": name, "namespace": ns, "uid": uid,
                   "ownerReferences": owners}});
    GcObject::from_json(resource, &o).unwrap_or_else(|| panic!("{o}"))
}

fn deleting(mut o: GcObject, finalizer: &str) -> GcObject {
    o.deleting = true;
    o.finalizers = vec![finalizer.to_string()];
    o
}

fn live(c: &Cluster, ns: &str, name: &str) -> bool {
    c.pod_id(ns, name).is_some()
}

fn collected(w: &[ObjectWrite]) -> Vec<(String, String, bool)> {
    w.iter()
        .filter_map(|w| match w {
            ObjectWrite::Collect {
                resource,
                name,
                foreground,
                ..
            } => Some((resource.clone(), name.clone(), *foreground)),
            _ => None,
        })
        .collect()
}

fn finalized(w: &[ObjectWrite]) -> Vec<(String, String)> {
    w.iter()
        .filter_map(|w| match w {
            ObjectWrite::RemoveFinalizer {
                name, finalizer, ..
            } => Some((name.clone(), finalizer.clone())),
            _ => None,
        })
        .collect()
}

fn recording() -> GarbageCollector {
    let mut gc = GarbageCollector::new();
    gc.record(true);
    gc
}

#[test]
fn an_owner_gone_takes_the_pods_it_controls_and_no_others() {
    let mut c = Cluster::new();
    c.add_pod(pod(
        "default",
        "web-1",
        vec![owner_ref("ReplicaSet", "web", "u1")],
    ));
    c.add_pod(pod(
        "default",
        "web-2",
        vec![owner_ref("ReplicaSet", "web", "u1")],
    ));
    c.add_pod(pod(
        "default",
        "api-1",
        vec![owner_ref("ReplicaSet", "api", "u2")],
    ));
    c.add_pod(pod(
        "other",
        "web-1",
        vec![owner_ref("ReplicaSet", "web", "u3")],
    ));
    c.add_pod(pod("default", "bare", vec![]));
    let mut gc = recording();
    gc.forget("replicasets", "ReplicaSet", "default", "web", "u1");
    assert!(gc.has_work());
    let out = gc.reconcile(&mut c);
    assert!(out.is_empty(), "no tracked object went: {out:?}");
    assert!(!live(&c, "default", "web-1") && !live(&c, "default", "web-2"));
    assert!(live(&c, "default", "api-1"), "another owner's pod stays");
    assert!(
        live(&c, "other", "web-1"),
        "an owner is looked for in its namespace only"
    );
    assert!(live(&c, "default", "bare"));
    assert!(!gc.has_work());
}

#[test]
fn a_dependent_of_an_owner_of_the_same_name_but_another_uid_stays() {
    // The owner was deleted and created again (`kubectl replace --force`): the new one's
    // deletion does not reach the old one's dependents, nor the reverse.
    let mut c = Cluster::new();
    c.add_pod(pod(
        "default",
        "old",
        vec![owner_ref("ReplicaSet", "web", "u-old")],
    ));
    c.add_pod(pod(
        "default",
        "new",
        vec![owner_ref("ReplicaSet", "web", "u-new")],
    ));
    let mut gc = GarbageCollector::new();
    gc.forget("replicasets", "ReplicaSet", "default", "web", "u-old");
    gc.reconcile(&mut c);
    assert!(!live(&c, "default", "old"));
    assert!(live(&c, "default", "new"));
}

#[test]
fn an_object_seen_again_with_a_new_uid_is_a_new_object_whose_predecessor_went() {
    let mut c = Cluster::new();
    let mut gc = GarbageCollector::new();
    gc.observe(object(
        "configmaps",
        "ConfigMap",
        "default",
        "cfg",
        "c1",
        vec![],
    ));
    gc.observe(object(
        "replicasets",
        "ReplicaSet",
        "default",
        "web",
        "u1",
        vec![],
    ));
    c.add_pod(pod(
        "default",
        "p",
        vec![owner_ref("ReplicaSet", "web", "u1")],
    ));
    gc.reconcile(&mut c);
    assert!(live(&c, "default", "p"));
    gc.observe(object(
        "replicasets",
        "ReplicaSet",
        "default",
        "web",
        "u2",
        vec![],
    ));
    // Objects without owners are not kept: the collector only learns the old uid when it had
    // tracked the object; an untracked one going is told by `forget`.
    gc.forget("replicasets", "ReplicaSet", "default", "web", "u1");
    gc.reconcile(&mut c);
    assert!(!live(&c, "default", "p"));
}

#[test]
fn deleting_a_deployment_cascades_through_its_replica_sets_to_their_pods() {
    let mut c = Cluster::new();
    let mut gc = recording();
    let d = owner_ref("Deployment", "web", "d1");
    gc.observe(object(
        "replicasets",
        "ReplicaSet",
        "default",
        "web-a",
        "r1",
        vec![d.clone()],
    ));
    gc.observe(object(
        "replicasets",
        "ReplicaSet",
        "default",
        "web-b",
        "r2",
        vec![d],
    ));
    for (p, rs, uid) in [
        ("a1", "web-a", "r1"),
        ("a2", "web-a", "r1"),
        ("b1", "web-b", "r2"),
    ] {
        c.add_pod(pod("default", p, vec![owner_ref("ReplicaSet", rs, uid)]));
    }
    assert_eq!(gc.tracked(), 2);
    gc.forget("deployments", "Deployment", "default", "web", "d1");
    let out = gc.reconcile(&mut c);
    let names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["web-a", "web-b"]);
    assert_eq!(
        collected(&gc.take_writes()),
        [
            ("replicasets".to_string(), "web-a".to_string(), false),
            ("replicasets".to_string(), "web-b".to_string(), false)
        ]
    );
    for p in ["a1", "a2", "b1"] {
        assert!(!live(&c, "default", p), "{p} is collected in the same pass");
    }
    assert_eq!(gc.tracked(), 0);
}

#[test]
fn a_dependent_with_another_owner_only_loses_the_reference() {
    let mut c = Cluster::new();
    let mut gc = recording();
    gc.observe(object(
        "configmaps",
        "ConfigMap",
        "default",
        "shared",
        "c1",
        vec![
            owner_ref("Deployment", "a", "d1"),
            owner_ref("Deployment", "b", "d2"),
        ],
    ));
    gc.forget("deployments", "Deployment", "default", "a", "d1");
    gc.reconcile(&mut c);
    let w = gc.take_writes();
    assert!(collected(&w).is_empty(), "{w:?}");
    assert!(matches!(
        w.as_slice(),
        [ObjectWrite::RemoveOwnerReference { name, owner_name, owner_uid, .. }]
            if name == "shared" && owner_name == "a" && owner_uid == "d1"
    ));
    gc.forget("deployments", "Deployment", "default", "b", "d2");
    gc.reconcile(&mut c);
    assert_eq!(
        collected(&gc.take_writes()),
        [("configmaps".to_string(), "shared".to_string(), false)]
    );
}

#[test]
fn a_cluster_scoped_owner_reaches_dependents_in_every_namespace() {
    // A Node owns its Lease in kube-node-lease.
    let mut c = Cluster::new();
    let mut gc = recording();
    let node = json!({"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "n-1"});
    gc.observe(object(
        "leases",
        "Lease",
        "kube-node-lease",
        "n1",
        "l1",
        vec![node],
    ));
    gc.forget("nodes", "Node", "", "n1", "n-1");
    gc.reconcile(&mut c);
    assert_eq!(
        collected(&gc.take_writes()),
        [("leases".to_string(), "n1".to_string(), false)]
    );
}

#[test]
fn orphaning_takes_the_references_off_then_removes_the_finalizer() {
    let mut c = Cluster::new();
    let mut gc = recording();
    c.add_pod(pod(
        "default",
        "p1",
        vec![owner_ref("ReplicaSet", "web", "u1")],
    ));
    let rs = object("replicasets", "ReplicaSet", "default", "web", "u1", vec![]);
    gc.observe(deleting(rs, FINALIZER_ORPHAN));
    gc.reconcile(&mut c);
    let w = gc.take_writes();
    assert!(live(&c, "default", "p1"), "an orphaned pod stays");
    let id = c.pod_id("default", "p1").unwrap_or(usize::MAX);
    assert!(c.pods[id].meta.owner_references.is_none());
    assert!(c.pods_owned_by("default", "ReplicaSet", "web").is_empty());
    assert!(
        matches!(&w[0], ObjectWrite::RemoveOwnerReference { resource, name, .. }
        if resource == "pods" && name == "p1")
    );
    assert_eq!(finalized(&w), [("web".to_string(), "orphan".to_string())]);
    // The owner's deletion itself then orphans nothing more.
    gc.forget("replicasets", "ReplicaSet", "default", "web", "u1");
    gc.reconcile(&mut c);
    assert!(live(&c, "default", "p1"));
}

#[test]
fn foreground_deletion_waits_for_the_blocking_dependents() {
    let mut c = Cluster::new();
    let mut gc = recording();
    let d = object("deployments", "Deployment", "default", "web", "d1", vec![]);
    let rs = object(
        "replicasets",
        "ReplicaSet",
        "default",
        "web-a",
        "r1",
        vec![owner_ref("Deployment", "web", "d1")],
    );
    gc.observe(rs.clone());
    c.add_pod(pod(
        "default",
        "a1",
        vec![owner_ref("ReplicaSet", "web-a", "r1")],
    ));
    gc.observe(deleting(d.clone(), FINALIZER_FOREGROUND));
    gc.reconcile(&mut c);
    // The ReplicaSet has pods: it is deleted in the foreground too; the Deployment waits.
    let w = gc.take_writes();
    assert_eq!(
        collected(&w),
        [("replicasets".to_string(), "web-a".to_string(), true)]
    );
    assert!(finalized(&w).is_empty());
    // Asked once only.
    gc.reconcile(&mut c);
    assert!(gc.take_writes().is_empty());
    // The API server marks the ReplicaSet; the collector deletes its pods, then lets it go.
    gc.observe(deleting(rs, FINALIZER_FOREGROUND));
    gc.reconcile(&mut c);
    assert!(!live(&c, "default", "a1"));
    gc.reconcile(&mut c);
    assert_eq!(
        finalized(&gc.take_writes()),
        [("web-a".to_string(), "foregroundDeletion".to_string())]
    );
    gc.forget("replicasets", "ReplicaSet", "default", "web-a", "r1");
    gc.reconcile(&mut c);
    assert_eq!(
        finalized(&gc.take_writes()),
        [("web".to_string(), "foregroundDeletion".to_string())]
    );
    assert!(!gc.has_work());
}

#[test]
fn without_recording_nothing_is_kept_for_a_driver() {
    let mut c = Cluster::new();
    let mut gc = GarbageCollector::new();
    gc.observe(object(
        "replicasets",
        "ReplicaSet",
        "default",
        "web-a",
        "r1",
        vec![owner_ref("Deployment", "web", "d1")],
    ));
    gc.forget("deployments", "Deployment", "default", "web", "d1");
    assert_eq!(gc.reconcile(&mut c).len(), 1);
    assert!(gc.take_writes().is_empty());
}

#[test]
fn a_reference_cycle_ends() {
    // Two objects owning each other by name (no uids): each goes once.
    let mut c = Cluster::new();
    let mut gc = GarbageCollector::new();
    gc.observe(object(
        "configmaps",
        "ConfigMap",
        "default",
        "a",
        "",
        vec![owner_ref("ConfigMap", "b", "")],
    ));
    gc.observe(object(
        "configmaps",
        "ConfigMap",
        "default",
        "b",
        "",
        vec![owner_ref("ConfigMap", "a", "")],
    ));
    gc.forget("configmaps", "ConfigMap", "default", "a", "");
    let out = gc.reconcile(&mut c);
    assert_eq!(out.len(), 1);
    assert_eq!(gc.tracked(), 0);
    assert!(!gc.has_work());
}
