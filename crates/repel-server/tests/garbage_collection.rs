//! The garbage collector's background deletion behind `kubectl delete`: every object whose
//! ownerReferences name a deleted object's uid goes too, and so on down; `--cascade=orphan`
//! leaves them; a collection delete collects the dependents of every object it deleted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use support::{Server, have_kubectl, start};

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
    for (resource, name) in [
        ("configmaps", "child"),
        ("configmaps", "grandchild"),
        ("secrets", "secret"),
    ] {
        assert!(
            s.get(resource, "default", name).is_none(),
            "{name} collected"
        );
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
        assert!(
            s.get("configmaps", "default", name).is_none(),
            "{name} deleted"
        );
    }
}
