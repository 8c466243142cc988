//! The garbage collector (repel-engine's, driven by `serve`) behind `kubectl delete`: every
//! object whose ownerReferences name a deleted object's uid goes too, and so on down;
//! `--cascade=orphan` leaves them; `--cascade=foreground` deletes them before their owner; a
//! collection delete collects the dependents of every object it deleted; finalizers hold an
//! object being deleted until they are removed.

use crate::util;

use crate::util::{Server, have_kubectl, start};
use serde_json::{Value, json};

fn config_map(name: &str, owner: Option<&Value>) -> Value {
    let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "labels": {"set": "gc"}}});
    if let Some(o) = owner {
        cm["metadata"]["ownerReferences"] = json!([{
            "apiVersion": "v1", "kind": o["kind"], "name": o["metadata"]["name"],
            "uid": o["metadata"]["uid"]
        }]);
    }
    cm
}

fn put(s: &Server, resource: &str, obj: Value) -> Value {
    s.app.store.create(resource, obj).unwrap()
}

#[test]
fn deleting_an_owner_deletes_its_dependents_down_the_chain_unless_orphaned() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let owner = put(&s, "configmaps", config_map("owner", None));
    let child = put(&s, "configmaps", config_map("child", Some(&owner)));
    put(&s, "configmaps", config_map("grandchild", Some(&child)));
    let mut secret = config_map("secret", Some(&owner));
    secret["kind"] = json!("Secret");
    put(&s, "secrets", secret);
    put(&s, "configmaps", config_map("unrelated", None));
    let kept = put(&s, "configmaps", config_map("kept-owner", None));
    put(&s, "configmaps", config_map("orphan", Some(&kept)));

    let out = s.kubectl(&["delete", "configmap", "owner"]);
    assert_eq!(
        out.stdout, "configmap \"owner\" deleted\n",
        "{}",
        out.stderr
    );
    // The collector runs after the deletion, as upstream's does.
    for (resource, name) in [
        ("configmaps", "child"),
        ("configmaps", "grandchild"),
        ("secrets", "secret"),
    ] {
        wait_for(&format!("{name} collected"), || {
            s.get(resource, "default", name).is_none()
        });
    }
    assert!(s.get("configmaps", "default", "unrelated").is_some());

    let out = s.kubectl(&["delete", "configmap", "kept-owner", "--cascade=orphan"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        s.get("configmaps", "default", "orphan").is_some(),
        "orphaned"
    );

    // A collection delete: the dependents of each object deleted.
    let a = put(&s, "configmaps", config_map("a", None));
    let b = put(&s, "configmaps", config_map("b", None));
    let mut outside = config_map("a-child", Some(&a));
    outside["metadata"]["labels"] = json!({});
    put(&s, "configmaps", outside);
    let mut outside = config_map("b-child", Some(&b));
    outside["metadata"]["labels"] = json!({});
    put(&s, "configmaps", outside);
    let out = s.kubectl(&["delete", "configmaps", "-l", "set=gc"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for name in ["a", "b", "a-child", "b-child"] {
        wait_for(&format!("{name} deleted"), || {
            s.get("configmaps", "default", name).is_none()
        });
    }
}

#[test]
fn a_finalizer_holds_an_object_being_deleted_and_its_dependents_until_it_is_removed() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![]);
    let mut held = config_map("held", None);
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let held = put(&s, "configmaps", held);
    put(&s, "configmaps", config_map("held-child", Some(&held)));

    let out = s.kubectl(&["delete", "configmap", "held", "--wait=false"]);
    assert_eq!(out.stdout, "configmap \"held\" deleted\n", "{}", out.stderr);
    let marked = s
        .get("configmaps", "default", "held")
        .expect("held by its finalizer");
    assert!(
        marked["metadata"]["deletionTimestamp"].is_string(),
        "{marked}"
    );
    assert_eq!(marked["metadata"]["deletionGracePeriodSeconds"], 0);
    // Background deletion: the dependents wait for the owner to be really gone.
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(s.get("configmaps", "default", "held-child").is_some());
    // An update cannot take the mark off.
    let out = s.kubectl(&["label", "configmap", "held", "x=y"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let labelled = s.get("configmaps", "default", "held").expect("still there");
    assert!(labelled["metadata"]["deletionTimestamp"].is_string());
    // Removing the last finalizer finishes the deletion; then the collector takes the child.
    let out = s.kubectl(&[
        "patch",
        "configmap",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(s.get("configmaps", "default", "held").is_none());
    wait_for("the child collected", || {
        s.get("configmaps", "default", "held-child").is_none()
    });
}

#[test]
fn foreground_deletion_takes_the_dependents_first_and_the_owner_waits_for_them() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![util::node("node1", json!(null))]);
    // An owner that a finalizer of its own keeps after the collector is done with it.
    let mut owner = config_map("fg", None);
    owner["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let owner = put(&s, "configmaps", owner);
    let mut child = config_map("fg-child", Some(&owner));
    child["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] = json!(true);
    put(&s, "configmaps", child);
    let out = s.kubectl(&[
        "delete",
        "configmap",
        "fg",
        "--cascade=foreground",
        "--wait=false",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("the blocking dependent deleted", || {
        s.get("configmaps", "default", "fg-child").is_none()
    });
    wait_for("foregroundDeletion removed by the collector", || {
        s.get("configmaps", "default", "fg")
            .is_some_and(|o| o["metadata"]["finalizers"] == json!(["example.com/hold"]))
    });

    // A Deployment: kubectl waits until it is gone, its ReplicaSet and pods first.
    let file = s.write(
        "web.yaml",
        r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"#,
    );
    let out = s.kubectl(&["apply", "-f", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("two pods Running", || running(&s).len() == 2);
    let out = s.kubectl(&["delete", "deployment", "web", "--cascade=foreground"]);
    assert_eq!(
        out.stdout, "deployment.apps \"web\" deleted\n",
        "{}",
        out.stderr
    );
    assert!(s.get("deployments", "default", "web").is_none());
    let (sets, _) = s.app.store.list("replicasets", Some("default"));
    assert!(sets.is_empty(), "{sets:?}");
    let (pods, _) = s.app.store.list("pods", Some("default"));
    assert!(pods.is_empty(), "{pods:?}");
}

#[test]
fn a_deleted_node_takes_its_lease_and_a_job_deleted_without_a_policy_orphans_its_pods() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![
        util::node("node1", json!(null)),
        util::node("node2", json!(null)),
    ]);
    assert!(s.get("leases", "kube-node-lease", "node2").is_some());
    let out = s.kubectl(&["delete", "node", "node2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("node2's Lease collected", || {
        s.get("leases", "kube-node-lease", "node2").is_none()
    });
    assert!(s.get("leases", "kube-node-lease", "node1").is_some());

    let file = s.write(
        "job.yaml",
        r#"apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: perl}]
"#,
    );
    let out = s.kubectl(&["apply", "-f", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("the Job's pod Running", || running(&s).len() == 1);
    // The API's default for batch/v1 Jobs is to orphan (kubectl itself asks for Background).
    let out = s.kubectl(&[
        "delete",
        "--raw",
        "/apis/batch/v1/namespaces/default/jobs/pi",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("the Job gone", || s.get("jobs", "default", "pi").is_none());
    std::thread::sleep(std::time::Duration::from_millis(600));
    let left = running(&s);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].1.is_empty(), "orphaned: {left:?}");
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "timed out: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Pods of the ReplicaSets of `app` that are Running, with their owner kinds.
fn running(s: &Server) -> Vec<(String, Vec<String>)> {
    let (pods, _) = s.app.store.list("pods", Some("default"));
    pods.iter()
        .filter(|p| {
            p["status"]["phase"] == "Running" && p["metadata"]["deletionTimestamp"].is_null()
        })
        .map(|p| {
            let owners = p["metadata"]["ownerReferences"]
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(|r| r["kind"].as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            (
                p["metadata"]["name"].as_str().unwrap_or("").to_string(),
                owners,
            )
        })
        .collect()
}

#[test]
fn orphaned_workloads_keep_their_replica_sets_and_pods_under_the_control_plane() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![util::node("node1", json!(null))]);
    let file = s.write(
        "web.yaml",
        r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"#,
    );
    let out = s.kubectl(&["apply", "-f", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("two pods Running", || running(&s).len() == 2);
    let before: Vec<String> = running(&s).into_iter().map(|(n, _)| n).collect();
    // The pods, created in the pass that created their ReplicaSet, reference it by its uid.
    let (sets, _) = s.app.store.list("replicasets", Some("default"));
    for name in &before {
        let pod = s.get("pods", "default", name).unwrap();
        assert_eq!(
            pod["metadata"]["ownerReferences"][0]["uid"], sets[0]["metadata"]["uid"],
            "{name}"
        );
    }

    let out = s.kubectl(&["delete", "deployment", "web", "--cascade=orphan"]);
    assert_eq!(
        out.stdout, "deployment.apps \"web\" deleted\n",
        "{}",
        out.stderr
    );
    let (sets, _) = s.app.store.list("replicasets", Some("default"));
    assert_eq!(sets.len(), 1, "the ReplicaSet stays");
    let rs = sets[0]["metadata"]["name"].as_str().unwrap().to_string();
    assert!(
        sets[0]["metadata"]["ownerReferences"].is_null(),
        "{}",
        sets[0]
    );
    // The control plane's passes go on (time scale 600: 3 s is half an hour): nothing goes.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let after: Vec<String> = running(&s).into_iter().map(|(n, _)| n).collect();
    assert_eq!(after, before, "the pods stay");
    assert!(s.get("replicasets", "default", &rs).is_some());

    // The ReplicaSet still keeps its pods: one deleted is replaced.
    let out = s.kubectl(&["delete", "pod", &before[0], "--wait=false"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    wait_for("a replacement", || {
        let now = running(&s);
        now.len() == 2 && now.iter().all(|(n, _)| *n != before[0])
    });

    // Orphaned from their ReplicaSet too, the pods stay as pods of no controller.
    let out = s.kubectl(&["delete", "replicaset", &rs, "--cascade=orphan"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let left = running(&s);
    let (all, _) = s.app.store.list("pods", Some("default"));
    let (evs, _) = s.app.store.list("events", None);
    let evs: Vec<String> = evs
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                e["reason"], e["involvedObject"]["name"], e["message"]
            )
        })
        .collect();
    assert_eq!(left.len(), 2, "{left:?} {all:#?} {evs:#?}");
    assert!(left.iter().all(|(_, owners)| owners.is_empty()), "{left:?}");
}

#[test]
fn a_starting_cluster_keeps_its_uids_and_its_owner_references() {
    if !have_kubectl() {
        return;
    }
    let uid = "11111111-2222-3333-4444-555555555555";
    let mut owner = config_map("owner", None);
    owner["metadata"]["uid"] = json!(uid);
    let child = config_map("child", Some(&owner));
    // An owner without a uid takes the one its dependent names.
    let named = "66666666-7777-8888-9999-000000000000";
    let mut owner2 = config_map("owner2", None);
    owner2["metadata"]["uid"] = json!(named);
    let child2 = config_map("child2", Some(&owner2));
    owner2["metadata"].as_object_mut().unwrap().remove("uid");
    // A reference without a uid gets its owner's.
    let owner3 = config_map("owner3", None);
    let mut child3 = config_map("child3", Some(&owner3));
    child3["metadata"]["ownerReferences"][0]
        .as_object_mut()
        .unwrap()
        .remove("uid");
    let s = start(vec![owner, child, owner2, child2, owner3, child3]);
    let got = |n: &str| s.get("configmaps", "default", n).unwrap();
    assert_eq!(got("owner")["metadata"]["uid"], uid);
    assert_eq!(got("child")["metadata"]["ownerReferences"][0]["uid"], uid);
    assert_eq!(got("owner2")["metadata"]["uid"], named);
    let owner3_uid = got("owner3")["metadata"]["uid"].clone();
    assert_eq!(owner3_uid.as_str().map(str::len), Some(36));
    assert_eq!(
        got("child3")["metadata"]["ownerReferences"][0]["uid"],
        owner3_uid
    );
    // So the collector sees the same owners the files name.
    let out = s.kubectl(&["delete", "configmap", "owner", "owner2", "owner3"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for name in ["child", "child2", "child3"] {
        wait_for(&format!("{name} collected"), || {
            s.get("configmaps", "default", name).is_none()
        });
    }
}

/// kube-apiserver's `--event-ttl`: an Event no one writes again is gone a TTL after its last
/// write, in cluster time (scaled by `--time-scale`); a recent one stays.
#[test]
fn events_expire_a_ttl_after_their_last_write() {
    // 60 cluster seconds at 600 per wall second: 0.1 s of wall clock.
    let cfg = repel_server::Config {
        event_ttl: std::time::Duration::from_secs(60),
        ..util::config(Vec::new(), 600.0)
    };
    let s = util::start_config(cfg, util::runtime());
    let now = repel_server::time::now();
    let event = |name: &str, last: String| {
        json!({"apiVersion": "v1", "kind": "Event",
               "metadata": {"name": name, "namespace": "default"},
               "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
               "reason": "Scheduled", "message": "m", "type": "Normal",
               "lastTimestamp": last})
    };
    let later = now
        .checked_add(k8s_openapi::jiff::SignedDuration::from_hours(1))
        .unwrap();
    s.app
        .store
        .create("events", event("old", repel_server::time::rfc3339(now)))
        .unwrap();
    s.app
        .store
        .create(
            "events",
            event("recent", repel_server::time::rfc3339(later)),
        )
        .unwrap();
    let names = || -> Vec<String> {
        s.app
            .store
            .list("events", None)
            .0
            .iter()
            .filter_map(|e| e["metadata"]["name"].as_str().map(str::to_string))
            .collect()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while names().contains(&"old".to_string()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(names(), ["recent"]);
}
