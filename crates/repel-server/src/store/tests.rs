//! The store's tests.

use super::*;

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
}

#[test]
fn writes_get_increasing_resource_versions_and_identity() {
    let s = Store::in_memory();
    let a = s.create("nodes", node("a")).unwrap();
    let b = s.create("nodes", node("b")).unwrap();
    assert_eq!(a["metadata"]["resourceVersion"], "1");
    assert_eq!(b["metadata"]["resourceVersion"], "2");
    assert_eq!(a["metadata"]["uid"].as_str().unwrap().len(), 36);
    assert_eq!(s.create("nodes", node("a")), Err(StoreError::AlreadyExists));
    let m = s
        .modify::<StoreError>("nodes", "", "a", |cur| {
            let mut n = cur.clone();
            n["spec"] = json!({"unschedulable": true});
            Ok(Some(n))
        })
        .unwrap();
    assert_eq!(m["metadata"]["resourceVersion"], "3");
    assert_eq!(m["metadata"]["uid"], a["metadata"]["uid"]);
}

#[test]
fn a_stale_resource_version_is_a_conflict_and_an_unchanged_object_is_no_write() {
    let s = Store::in_memory();
    s.create("nodes", node("a")).unwrap();
    let r = s.modify::<StoreError>("nodes", "", "a", |cur| {
        let mut n = cur.clone();
        n["metadata"]["resourceVersion"] = json!("0");
        n["spec"] = json!({"unschedulable": true});
        Ok(Some(n))
    });
    assert_eq!(r, Err(StoreError::Conflict));
    let same = s
        .modify::<StoreError>("nodes", "", "a", |cur| Ok(Some(cur.clone())))
        .unwrap();
    assert_eq!(same["metadata"]["resourceVersion"], "1");
    assert_eq!(s.resource_version(), 1);
}

#[test]
fn a_batch_never_resurrects_a_deleted_object_nor_overwrites_a_newer_one() {
    let s = Store::in_memory();
    let a = s.create("nodes", node("a")).unwrap();
    let b = s.create("nodes", node("b")).unwrap();
    s.delete("nodes", "", "a").unwrap();
    let mut stale_b = b.clone();
    s.modify::<StoreError>("nodes", "", "b", |cur| {
        let mut n = cur.clone();
        n["spec"] = json!({"unschedulable": true});
        Ok(Some(n))
    })
    .unwrap();
    stale_b["spec"] = json!({"podCIDR": "x"});
    let mut a2 = a.clone();
    a2["spec"] = json!({"podCIDR": "y"});
    s.write_batch(vec![
        ("nodes".into(), Op::Put(String::new(), a2)),
        ("nodes".into(), Op::Put(String::new(), stale_b)),
        ("nodes".into(), Op::Put(String::new(), node("c"))),
    ])
    .unwrap();
    assert!(s.get("nodes", "", "a").is_none(), "deleted stays deleted");
    assert_eq!(
        s.get("nodes", "", "b").unwrap()["spec"],
        json!({"unschedulable": true})
    );
    assert!(s.get("nodes", "", "c").is_some(), "a new object is created");
}

#[test]
fn a_watch_resumes_after_an_rv_and_a_too_old_rv_is_refused() {
    let s = Store::in_memory();
    s.create("nodes", node("a")).unwrap();
    s.create("nodes", node("b")).unwrap();
    s.delete("nodes", "", "a").unwrap();
    let (past, _rx) = s.watch_from(1).unwrap();
    let kinds: Vec<_> = past.iter().map(|e| (e.kind, e.rv)).collect();
    assert_eq!(kinds, vec![(EventType::Added, 2), (EventType::Deleted, 3)]);
    for i in 0..HISTORY {
        s.create("pods", node(&format!("p{i}"))).unwrap();
    }
    assert!(s.watch_from(1).is_err());
}

#[test]
fn a_feed_keeps_every_change_beyond_the_history_and_drops_a_gone_reader() {
    let s = Store::in_memory();
    s.create("nodes", node("a")).unwrap();
    let (lists, rv, feed) = s.list_with_feed(&["nodes", "pods"]);
    assert_eq!((lists[0].len(), lists[1].len(), rv), (1, 0, 1));
    for i in 0..HISTORY + 5 {
        s.create("pods", node(&format!("p{i}"))).unwrap();
    }
    s.delete("nodes", "", "a").unwrap();
    let got: Vec<u64> = feed.try_iter().map(|e| e.rv).collect();
    let want: Vec<u64> = (2..=HISTORY as u64 + 7).collect();
    assert_eq!(got, want, "every change after the list, in order");
    assert!(
        s.watch_from(1).is_err(),
        "while the history no longer reaches back"
    );
    drop(feed);
    s.create("nodes", node("b")).unwrap();
    assert!(s.lock().feeds.is_empty());
}

#[test]
fn redb_keeps_objects_and_the_resource_version_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = Store::open(dir.path()).unwrap();
        s.create("nodes", node("a")).unwrap();
        s.create("nodes", node("b")).unwrap();
        s.delete("nodes", "", "b").unwrap();
    }
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.resource_version(), 3);
    assert!(s.get("nodes", "", "a").is_some());
    assert!(s.get("nodes", "", "b").is_none());
    let c = s.create("nodes", node("c")).unwrap();
    assert_eq!(c["metadata"]["resourceVersion"], "4");
}

fn event(name: &str, last: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
           "metadata": {"name": name, "namespace": "default", "creationTimestamp": last},
           "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
           "reason": "Scheduled", "message": "m", "type": "Normal",
           "lastTimestamp": last})
}

/// `now` shifted by `mins` minutes, as the API server writes timestamps.
fn shifted(now: k8s_openapi::jiff::Timestamp, mins: i64) -> String {
    let d = k8s_openapi::jiff::SignedDuration::from_mins(mins);
    time::rfc3339(now.checked_add(d).unwrap())
}

const HOUR: std::time::Duration = std::time::Duration::from_secs(3600);

#[test]
fn a_reopened_file_holds_no_event_in_memory_and_serves_them_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let now = time::now();
    {
        let s = Store::open(dir.path()).unwrap();
        s.create("nodes", node("a")).unwrap();
        for n in ["e2", "e1"] {
            s.create("events", event(n, &shifted(now, 0))).unwrap();
        }
        let mut other = event("e0", &shifted(now, 0));
        other["metadata"]["namespace"] = json!("kube-system");
        s.create("events", other).unwrap();
        s.delete("events", "default", "e2").unwrap();
    }
    let s = Store::open(dir.path()).unwrap();
    assert!(
        !s.lock().objects.contains_key("events"),
        "no Event is decoded at open"
    );
    assert!(!s.is_empty());
    assert_eq!(s.resource_version(), 5);
    let (all, rv) = s.list("events", None);
    let names: Vec<&str> = all
        .iter()
        .filter_map(|e| e["metadata"]["name"].as_str())
        .collect();
    assert_eq!(
        (names, rv),
        (vec!["e1", "e0"], 5),
        "key order: default/, kube-system/"
    );
    let (in_ns, _) = s.snapshot("events", Some("kube-system"));
    assert_eq!(in_ns.len(), 1);
    assert_eq!(in_ns[0].0, "kube-system/e0");
    assert_eq!(
        s.get("events", "default", "e1").unwrap()["metadata"]["resourceVersion"],
        "3"
    );
    assert!(s.get("events", "default", "e2").is_none());
    let (lists, _, _feed) = s.list_all_with_feed();
    assert!(
        lists.iter().all(|(r, _)| r != "events"),
        "the control plane's list does not read Events"
    );
    // Writes go on from the file: a conflict, a change (with its previous state for watches),
    // a deletion's last state.
    assert_eq!(
        s.create("events", event("e1", &shifted(now, 0))),
        Err(StoreError::AlreadyExists)
    );
    let (_, mut rx) = s.watch_from(5).unwrap();
    s.modify::<StoreError>("events", "default", "e1", |cur| {
        let mut e = cur.clone();
        e["count"] = json!(2);
        Ok(Some(e))
    })
    .unwrap();
    let ev = rx.try_recv().unwrap();
    assert_eq!((ev.kind, ev.rv), (EventType::Modified, 6));
    assert_eq!(
        ev.prev.as_ref().unwrap().decode()["metadata"]["resourceVersion"],
        "3"
    );
    let last = s.delete("events", "default", "e1").unwrap();
    assert_eq!(last["count"], 2);
    let ev = rx.try_recv().unwrap();
    assert_eq!((ev.kind, ev.rv), (EventType::Deleted, 7));
    assert_eq!(ev.object.decode()["count"], 2);
    assert_eq!(ev.object.decode()["metadata"]["resourceVersion"], "7");
    assert!(!s.lock().objects.contains_key("events"));
}

#[test]
fn a_restart_purges_the_events_that_expired_without_reading_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let now = time::now();
    {
        let s = Store::open(dir.path()).unwrap();
        s.create("events", event("old", &shifted(now, -61)))
            .unwrap();
        s.create("events", event("new", &shifted(now, -59)))
            .unwrap();
        // Written again since: its last write is recent.
        s.create("events", event("renewed", &shifted(now, -120)))
            .unwrap();
        s.modify::<StoreError>("events", "default", "renewed", |cur| {
            let mut e = cur.clone();
            e["lastTimestamp"] = json!(shifted(now, -1));
            Ok(Some(e))
        })
        .unwrap();
    }
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.resource_version(), 4);
    let keys = s.expired_events(now, HOUR, 10);
    assert_eq!(keys, vec![("default".to_string(), "old".to_string())]);
    assert_eq!(s.purge_expired_events(now, HOUR), Ok(1));
    assert_eq!(s.resource_version(), 5, "the purge is one resourceVersion");
    assert!(
        s.watch_from(4).is_err(),
        "a watch from before it lists again"
    );
    let (left, _) = s.list("events", None);
    let names: Vec<&str> = left
        .iter()
        .filter_map(|e| e["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["new", "renewed"]);
    assert_eq!(s.purge_expired_events(now, HOUR), Ok(0));
    drop(s);
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.resource_version(), 5);
    assert!(s.get("events", "default", "old").is_none());
}

#[test]
fn a_file_without_the_expiry_index_gets_it_built_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let now = time::now();
    {
        let s = Store::open(dir.path()).unwrap();
        s.create("events", event("old", &shifted(now, -90)))
            .unwrap();
    }
    {
        // As a file from before the index: no index, no mark.
        let db = Database::create(dir.path().join("repel.redb")).unwrap();
        let w = db.begin_write().unwrap();
        w.delete_table(EVENT_EXPIRY).unwrap();
        w.open_table(META)
            .unwrap()
            .remove(EXPIRY_INDEX_KEY)
            .unwrap();
        w.commit().unwrap();
    }
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.purge_expired_events(now, HOUR), Ok(1));
    assert!(s.get("events", "default", "old").is_none());
}

#[test]
fn the_in_memory_store_finds_expired_events_among_those_it_holds() {
    let s = Store::in_memory();
    let now = time::now();
    s.create("events", event("old", &shifted(now, -61)))
        .unwrap();
    s.create("events", event("new", &shifted(now, -59)))
        .unwrap();
    assert_eq!(
        s.expired_events(now, HOUR, 10),
        vec![("default".to_string(), "old".to_string())]
    );
    assert_eq!(s.purge_expired_events(now, HOUR), Ok(0), "the sweep's work");
}

#[test]
fn a_group_is_published_when_committed_and_before_anyone_else_reads() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    let (_, rv, feed) = s.list_with_feed(&["nodes"]);
    let (_, mut watch) = s.watch_from(rv).unwrap();
    let group = s.group();
    s.create("nodes", node("a")).unwrap();
    let b = s.create("nodes", node("b")).unwrap();
    assert_eq!(
        b["metadata"]["resourceVersion"], "2",
        "each write its own rv"
    );
    assert!(
        s.get("nodes", "", "a").is_some(),
        "the group's writer reads its writes"
    );
    assert!(
        feed.try_recv().is_err(),
        "nothing published before the commit"
    );
    assert!(
        watch.try_recv().is_err(),
        "nothing published before the commit"
    );
    // Another thread's read commits the group first.
    let seen = std::thread::scope(|t| t.spawn(|| s.get("nodes", "", "b")).join().unwrap());
    assert_eq!(seen.unwrap()["metadata"]["resourceVersion"], "2");
    let rvs: Vec<u64> = feed.try_iter().map(|e| e.rv).collect();
    assert_eq!(rvs, vec![1, 2], "published in order once committed");
    assert_eq!(watch.try_recv().unwrap().rv, 1);
    s.create("nodes", node("c")).unwrap();
    assert!(feed.try_recv().is_err(), "the group goes on");
    group.finish().unwrap();
    assert_eq!(
        feed.try_recv().unwrap().rv,
        3,
        "published when the group ends"
    );
    drop((s, feed, watch));
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.resource_version(), 3, "committed to the file");
    assert!(s.get("nodes", "", "c").is_some());
}

#[test]
fn a_group_that_writes_an_event_commits_it_before_its_writer_reads_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    let now = k8s_openapi::jiff::Timestamp::now();
    let group = s.group();
    s.create("events", event("e1", &shifted(now, 0))).unwrap();
    let e = s
        .get("events", "default", "e1")
        .expect("the group's own Event");
    assert_eq!(e["metadata"]["resourceVersion"], "1");
    s.create("nodes", node("a")).unwrap();
    drop(group);
    let s2 = {
        drop(s);
        Store::open(dir.path()).unwrap()
    };
    assert_eq!(s2.resource_version(), 2, "a dropped group is committed");
    assert_eq!(s2.count("events"), 1);
}

#[test]
fn the_in_memory_store_publishes_each_write_of_a_group_at_once() {
    let s = Store::in_memory();
    let (_, _, feed) = s.list_with_feed(&["nodes"]);
    let _group = s.group();
    s.create("nodes", node("a")).unwrap();
    assert_eq!(feed.try_recv().unwrap().rv, 1);
}
