//! Admission as kube-apiserver runs it: creates refused and defaulted, updates keeping status
//! times and tolerations, the extended-resource toleration.
use super::*;
use crate::registry::find;

fn store() -> Store {
    let s = Store::in_memory();
    s.create("namespaces", json!({"metadata": {"name": "default"}}))
        .unwrap();
    s
}

fn strict_q() -> HashMap<String, String> {
    [("fieldValidation".to_string(), "Strict".to_string())].into()
}

fn pod(extra: Value) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                       "spec": {"containers": [{"name": "c", "image": "i"}]}});
    if let (Some(m), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            m.insert(k.clone(), v.clone());
        }
    }
    p
}

#[test]
#[allow(clippy::type_complexity)]
fn creates_are_refused_as_kube_apiserver_refuses_them() {
    let s = store();
    let a = Admission::default();
    let pods = &*find("", "pods").unwrap();
    let cases: Vec<(
        &str,
        Option<&str>,
        Value,
        HashMap<String, String>,
        u16,
        &str,
    )> = vec![
        (
            "a missing namespace is NotFound",
            Some("nope"),
            pod(json!({})),
            HashMap::new(),
            404,
            "namespaces \"nope\" not found",
        ),
        (
            "a body namespace other than the path's is a BadRequest",
            Some("default"),
            pod(json!({"metadata": {"name": "p", "namespace": "other"}})),
            HashMap::new(),
            400,
            "the namespace of the provided object does not match the namespace sent on the request",
        ),
        (
            "another kind is a BadRequest",
            Some("default"),
            pod(json!({"kind": "Node"})),
            HashMap::new(),
            400,
            "the kind in the data (Node) does not match the expected kind (Pod)",
        ),
        (
            "no name and no generateName is Invalid",
            Some("default"),
            pod(json!({"metadata": {}})),
            HashMap::new(),
            422,
            "Pod \"\" is invalid: metadata.name: Required value: name or generateName is required",
        ),
        (
            "an unknown field under Strict is a BadRequest",
            Some("default"),
            pod(json!({"spec": {"containers": [{"name": "c", "image": "i"}], "foo": 1}})),
            strict_q(),
            400,
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.foo\"",
        ),
    ];
    for (name, ns, obj, q, code, message) in cases {
        let e = a.create(&s, pods, ns, obj, &q).expect_err(name);
        assert_eq!(
            (e.0, e.1["message"].as_str().unwrap()),
            (code, message),
            "{name}"
        );
    }
}

#[test]
fn creates_are_defaulted_as_kube_apiserver_defaults_them() {
    let s = store();
    let a = Admission::default();
    let pods = &*find("", "pods").unwrap();
    let none = HashMap::new();
    let p = a
        .create(
            &s,
            pods,
            Some("default"),
            pod(json!({"metadata": {"generateName": "web-"}, "bogus": 1})),
            &none,
        )
        .unwrap();
    let name = p["metadata"]["name"].as_str().unwrap();
    assert!(
        name.starts_with("web-") && name.len() == 9,
        "generateName gets 5 characters: {name}"
    );
    assert!(
        p.get("bogus").is_none(),
        "unknown fields are dropped without Strict"
    );
    assert_eq!(p["status"]["phase"], "Pending");
    assert_eq!(
        p["spec"]["tolerations"].as_array().unwrap().len(),
        2,
        "DefaultTolerationSeconds"
    );

    let nodes = &*find("", "nodes").unwrap();
    let n = a
        .create(&s, nodes, None, json!({"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "NoExecute"}]}}), &none)
        .unwrap();
    let taints = n["spec"]["taints"].as_array().unwrap();
    assert!(
        taints[0]["timeAdded"].is_null(),
        "taints are stored as sent: no timeAdded (kubernetes#98482)"
    );
    assert_eq!(
        taints[1],
        json!({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}),
        "TaintNodesByCondition"
    );
}

#[test]
fn updates_keep_status_times_and_tolerations_as_upstream() {
    let a = Admission::default();
    let none = HashMap::new();
    let nodes = &*find("", "nodes").unwrap();
    let old = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
        "spec": {"taints": [{"key": "k", "effect": "NoExecute", "timeAdded": "2026-01-01T00:00:00Z"}]},
        "status": {"phase": "Running"}});
    let mut new = old.clone();
    new["spec"]["taints"] =
        json!([{"key": "k2", "effect": "NoExecute"}, {"key": "k", "effect": "NoExecute"}]);
    new["status"] = json!({"phase": "Pending"});
    let out = a.update(nodes, &old, new.clone(), None, &none).unwrap();
    assert_eq!(
        out["status"]["phase"], "Running",
        "the main resource keeps status"
    );
    assert!(
        out["spec"]["taints"][0]["timeAdded"].is_null()
            && out["spec"]["taints"][1]["timeAdded"].is_null(),
        "taints are stored as sent, a dropped timeAdded included"
    );
    let out = a.update(nodes, &old, new, Some("status"), &none).unwrap();
    assert_eq!(
        out["status"]["phase"], "Pending",
        "the status subresource changes status"
    );
    assert_eq!(out["spec"], old["spec"], "and only status");

    let pods = &*find("", "pods").unwrap();
    let old = pod(json!({"spec": {"containers": [{"name": "c", "image": "i"}],
                                  "tolerations": [{"key": "a", "operator": "Exists"}]}}));
    let mut new = old.clone();
    new["spec"]["tolerations"] = json!([]);
    let e = a.update(pods, &old, new, None, &none).unwrap_err();
    assert_eq!(e.0, 422);
    assert_eq!(
        e.1["message"],
        "Pod \"p\" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
    );
}

#[test]
fn extended_resource_toleration_runs_when_enabled() {
    let s = store();
    let pods = &*find("", "pods").unwrap();
    let none = HashMap::new();
    let gpu_pod = pod(json!({"spec": {"containers": [{"name": "c", "image": "i",
        "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}));
    let gpu = json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"});
    let off = Admission::default();
    let p = off
        .create(&s, pods, Some("default"), gpu_pod.clone(), &none)
        .unwrap();
    assert!(
        !p["spec"]["tolerations"].as_array().unwrap().contains(&gpu),
        "off by default, as upstream"
    );
    let on = Admission {
        config: AdmissionConfig {
            extended_resource_toleration: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let p = on
        .create(&s, pods, Some("default"), gpu_pod, &none)
        .unwrap();
    assert_eq!(
        p["spec"]["tolerations"].as_array().unwrap().last(),
        Some(&gpu),
        "enabled: the GPU limit, defaulted into a request, gets its toleration, last"
    );
}
