//! `Cluster::pod_id` answers from an index built at its first call and kept through adds and
//! deletions: the live pod of a name, the newest when a name is reused (a StatefulSet's pod
//! made again), none once deleted.

use k8s_openapi::api::core::v1::Pod;
use repel_engine::cluster::Cluster;
use serde_json::json;

fn pod(ns: &str, name: &str) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": ns},
        "spec": {"containers": [{"name": "c", "image": "i"}]}
    }))
    .unwrap()
}

#[test]
fn lookups_follow_adds_and_deletions_before_and_after_the_index_exists() {
    let mut c = Cluster::new();
    let a = c.add_pod(pod("default", "web-0"));
    let b = c.add_pod(pod("other", "web-0"));
    c.force_delete_pod(a);
    // Built now, after a deletion.
    assert_eq!(c.pod_id("default", "web-0"), None);
    assert_eq!(c.pod_id("other", "web-0"), Some(b));
    let again = c.add_pod(pod("default", "web-0"));
    assert_eq!(c.pod_id("default", "web-0"), Some(again));
    let like = c
        .add_pod_like(again, pod("default", "web-1").metadata)
        .unwrap();
    assert_eq!(c.pod_id("default", "web-1"), Some(like));
    c.force_delete_pod(again);
    assert_eq!(c.pod_id("default", "web-0"), None);
    assert_eq!(c.pod_id("default", "nope"), None);
    // A copy keeps answering on its own.
    let copy = c.clone();
    c.force_delete_pod(like);
    assert_eq!(copy.pod_id("default", "web-1"), Some(like));
    assert_eq!(c.pod_id("default", "web-1"), None);
}
