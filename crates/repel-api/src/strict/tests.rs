//! Unit tests of `crate::strict`.

use super::*;
use serde_json::json;

#[test]
fn unknown_fields_cases() {
    let cases = [
        (
            "a valid pod has none",
            "Pod",
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}},
                   "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"limits": {"cpu": 1}}}],
                            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}]},
                   "status": {}}),
            vec![],
        ),
        (
            "a top-level and a nested unknown field, in document order",
            "Pod",
            json!({"metadata": {"name": "p"}, "foo": 1,
                   "spec": {"containers": [{"name": "c", "image": "nginx"}, {"name": "d", "imagePullPolicyy": "Always"}], "bar": true}}),
            vec!["foo", "spec.containers[1].imagePullPolicyy", "spec.bar"],
        ),
        (
            "an unknown field with a null value is still unknown",
            "Node",
            json!({"metadata": {"name": "n"}, "spec": {"taints": null, "taintz": null}}),
            vec!["spec.taintz"],
        ),
        (
            "an unknown field inside a toleration",
            "Pod",
            json!({"metadata": {"name": "p"}, "spec": {"containers": [], "tolerations": [{"key": "k", "effect": "NoSchedule", "tolerationSecond": 5}]}}),
            vec!["spec.tolerations[0].tolerationSecond"],
        ),
        (
            "a node's taint with a typo",
            "Node",
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "NoSchedule", "valeu": "x"}]}}),
            vec!["spec.taints[0].valeu"],
        ),
        (
            "a deployment's pod template",
            "Deployment",
            json!({"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}},
                   "template": {"metadata": {"labels": {"a": "b"}, "x": 1}, "spec": {"containers": [{"name": "c"}]}}}}),
            vec!["spec.template.metadata.x"],
        ),
        (
            "labels are a map: any key is known",
            "Lease",
            json!({"metadata": {"name": "l", "labels": {"anything.example.com/x": "y"}}, "spec": {"holderIdentity": "n"}}),
            vec![],
        ),
        (
            "an unknown kind is not checked",
            "Widget",
            json!({"foo": 1}),
            vec![],
        ),
    ];
    for (name, kind, obj, want) in cases {
        assert_eq!(unknown_fields(kind, &obj), want, "{name}");
    }
}

#[test]
fn decode_errors_are_reported_apart() {
    let bad = json!({"metadata": {"name": "p"}, "spec": {"containers": "nope", "foo": 1}});
    let (unknown, result) = check("Pod", &bad).expect("Pod is known");
    assert!(result.is_err(), "containers must be a list");
    assert!(unknown.is_empty() || unknown == ["spec.foo"], "{unknown:?}");
    assert!(check("Widget", &bad).is_none());
    let wrong_kind = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "p"}});
    assert!(
        check("Pod", &wrong_kind).expect("known").1.is_err(),
        "a Node body is not a Pod"
    );
}
