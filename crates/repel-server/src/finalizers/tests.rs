//! Unit tests of `crate::finalizers`.

use super::*;

fn obj(finalizers: &[&str]) -> Value {
    json!({"metadata": {"name": "x", "finalizers": finalizers}})
}

#[test]
fn the_policy_decides_then_the_finalizers_then_the_kind() {
    // Upstream `TestDeletionFinalizersForGarbageCollection`'s cases.
    use Propagation::*;
    let cases: &[(&str, &[&str], Propagation, &[&str])] = &[
        ("deployments", &[], Default, &[]),
        ("jobs", &[], Default, &["orphan"]),
        ("jobs", &[], Background, &[]),
        ("deployments", &[], Orphan, &["orphan"]),
        ("deployments", &[], Foreground, &["foregroundDeletion"]),
        ("deployments", &["orphan"], Default, &["orphan"]),
        ("deployments", &["orphan"], Background, &[]),
        (
            "deployments",
            &["orphan"],
            Foreground,
            &["foregroundDeletion"],
        ),
        (
            "deployments",
            &["foregroundDeletion"],
            Default,
            &["foregroundDeletion"],
        ),
        (
            "jobs",
            &["foregroundDeletion"],
            Default,
            &["foregroundDeletion"],
        ),
        ("deployments", &["foregroundDeletion"], Orphan, &["orphan"]),
        (
            "deployments",
            &["example.com/keep"],
            Default,
            &["example.com/keep"],
        ),
        (
            "deployments",
            &["example.com/keep"],
            Orphan,
            &["example.com/keep", "orphan"],
        ),
    ];
    for (resource, has, policy, want) in cases {
        assert_eq!(
            deletion_finalizers(resource, &obj(has), *policy),
            want.to_vec(),
            "{resource} {has:?} {policy:?}"
        );
    }
}

#[test]
fn an_object_with_finalizers_stays_until_the_last_goes() {
    let store = Store::in_memory();
    let o = json!({"kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default",
                   "finalizers": ["example.com/keep"], "generation": 1}});
    let created = store.create("configmaps", o).unwrap_or_default();
    let uid = created["metadata"]["uid"]
        .as_str()
        .unwrap_or("")
        .to_string();
    // Another uid: a precondition failure.
    assert!(matches!(
        delete(
            &store,
            "configmaps",
            "default",
            "c",
            Propagation::Default,
            Some("other")
        ),
        Err(StoreError::NotFound)
    ));
    let marked = delete(
        &store,
        "configmaps",
        "default",
        "c",
        Propagation::Orphan,
        Some(&uid),
    )
    .unwrap_or_default();
    assert!(marked["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(marked["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(marked["metadata"]["generation"], 2);
    assert_eq!(
        marked["metadata"]["finalizers"],
        json!(["example.com/keep", "orphan"])
    );
    // An update keeps the mark.
    let kept = store
        .modify::<StoreError>("configmaps", "default", "c", |cur| {
            let mut n = cur.clone();
            n["metadata"]["deletionTimestamp"] = Value::Null;
            n["data"] = json!({"a": "b"});
            Ok(Some(n))
        })
        .unwrap_or_default();
    assert!(kept["metadata"]["deletionTimestamp"].is_string());
    remove_finalizer(&store, "configmaps", "default", "c", "orphan").unwrap_or_default();
    assert!(store.get("configmaps", "default", "c").is_some());
    remove_finalizer(&store, "configmaps", "default", "c", "example.com/keep").unwrap_or_default();
    assert!(
        store.get("configmaps", "default", "c").is_none(),
        "the last finalizer deletes it"
    );
}

#[test]
fn owner_references_are_taken_off_by_kind_name_and_uid() {
    let store = Store::in_memory();
    let o = json!({"kind": "ReplicaSet", "metadata": {"name": "r", "namespace": "default",
        "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1"},
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "web", "uid": "u2"}]}});
    store.create("replicasets", o).unwrap_or_default();
    let r = ("Deployment", "web", "other");
    let same = remove_owner_reference(&store, "replicasets", "default", "r", r).unwrap_or_default();
    assert_eq!(
        same["metadata"]["ownerReferences"].as_array().map(Vec::len),
        Some(2)
    );
    let r = ("Deployment", "web", "u1");
    let one = remove_owner_reference(&store, "replicasets", "default", "r", r).unwrap_or_default();
    assert_eq!(one["metadata"]["ownerReferences"][0]["kind"], "ConfigMap");
    let r = ("ConfigMap", "web", "");
    let none = remove_owner_reference(&store, "replicasets", "default", "r", r).unwrap_or_default();
    assert!(none["metadata"].get("ownerReferences").is_none());
}
