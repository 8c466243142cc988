//! Field management and server-side apply, after upstream's fieldmanager tests
//! (`k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager`, structured-merge-diff's `merge`
//! tests): what a manager owns, conflicts and their message, force, and removal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::*;

fn w<'a>(manager: &'a str, apply: bool, time: &'a str) -> Writer<'a> {
    Writer {
        manager,
        apply,
        api_version: "apps/v1",
        subresource: "",
        time,
    }
}

fn deployment(replicas: i64, image: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": image}]}}
        }
    })
}

#[test]
fn an_apply_owns_what_it_sets_in_fieldsv1_form() {
    let obj = apply(
        "Deployment",
        false,
        None,
        &deployment(2, "nginx"),
        &w("kubectl", true, "2026-12-03T15:00:00Z"),
        false,
    )
    .unwrap();
    let mf = &obj["metadata"]["managedFields"];
    assert_eq!(mf.as_array().unwrap().len(), 1);
    assert_eq!(mf[0]["manager"], "kubectl");
    assert_eq!(mf[0]["operation"], "Apply");
    assert_eq!(mf[0]["fieldsType"], "FieldsV1");
    assert_eq!(
        mf[0]["fieldsV1"],
        json!({
            "f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {
                "f:replicas": {},
                "f:selector": {},
                "f:template": {
                    "f:metadata": {"f:labels": {"f:app": {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"nginx\"}": {
                        "f:name": {}, "f:image": {}, ".": {}
                    }}}
                }
            }
        })
    );
}

#[test]
fn an_apply_that_changes_anothers_field_conflicts_with_upstreams_message() {
    // Created by client-side apply (an update), then applied server-side with new replicas.
    let live = deployment(2, "nginx");
    let mut live = live.clone();
    let mf = after_update(
        "Deployment",
        false,
        None,
        &live,
        &w("kubectl-client-side-apply", false, "2026-12-03T15:00:00Z"),
    );
    live["metadata"]["managedFields"] = json!(mf);
    let c = apply(
        "Deployment",
        false,
        Some(&live),
        &deployment(3, "nginx"),
        &w("kubectl", true, "2026-12-03T15:01:00Z"),
        false,
    )
    .unwrap_err();
    assert_eq!(
        c.message(),
        "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using apps/v1: .spec.replicas"
    );
    let st = c.status("deployments.apps", "web");
    assert_eq!(st["code"], 409);
    assert_eq!(st["details"]["causes"][0]["field"], ".spec.replicas");

    // Two conflicts are listed per manager.
    let c = apply(
        "Deployment",
        false,
        Some(&live),
        &deployment(3, "nginx:2"),
        &w("kubectl", true, "2026-12-03T15:01:00Z"),
        false,
    )
    .unwrap_err();
    assert_eq!(
        c.message(),
        "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name=\"nginx\"].image"
    );

    // The same values do not conflict: both own them.
    let same = apply(
        "Deployment",
        false,
        Some(&live),
        &deployment(2, "nginx"),
        &w("kubectl", true, "2026-12-03T15:01:00Z"),
        false,
    )
    .unwrap();
    let mf = same["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(mf.len(), 2);
    assert_eq!(mf[0]["operation"], "Apply", "Apply sorts first");
    assert!(contains(
        &mf[1]["fieldsV1"],
        &["f:spec".into(), "f:replicas".into()]
    ));

    // Forced: the field changes hands.
    let forced = apply(
        "Deployment",
        false,
        Some(&live),
        &deployment(3, "nginx"),
        &w("kubectl", true, "2026-12-03T15:01:00Z"),
        true,
    )
    .unwrap();
    assert_eq!(forced["spec"]["replicas"], 3);
    let mf = forced["metadata"]["managedFields"].as_array().unwrap();
    let csa = mf
        .iter()
        .find(|e| e["manager"] == "kubectl-client-side-apply")
        .unwrap();
    assert!(!contains(
        &csa["fieldsV1"],
        &["f:spec".into(), "f:replicas".into()]
    ));
}

#[test]
fn a_field_no_longer_applied_is_removed_unless_another_owns_it() {
    let mut first = deployment(2, "nginx");
    first["metadata"]["labels"]["tier"] = json!("front");
    let live = apply(
        "Deployment",
        false,
        None,
        &first,
        &w("kubectl", true, "2026-12-03T15:00:00Z"),
        false,
    )
    .unwrap();
    let next = apply(
        "Deployment",
        false,
        Some(&live),
        &deployment(2, "nginx"),
        &w("kubectl", true, "2026-12-03T15:01:00Z"),
        false,
    )
    .unwrap();
    assert_eq!(next["metadata"]["labels"], json!({"app": "web"}));

    // Another manager's field stays when the applier never set it.
    let mut scaled = live.clone();
    scaled["spec"]["paused"] = json!(true);
    let mf = after_update(
        "Deployment",
        false,
        Some(&live),
        &scaled,
        &w("kubectl-edit", false, "2026-12-03T15:02:00Z"),
    );
    assert_eq!(mf.len(), 2);
    assert_eq!(mf[1]["manager"], "kubectl-edit");
    assert_eq!(mf[1]["fieldsV1"], json!({"f:spec": {"f:paused": {}}}));
    scaled["metadata"]["managedFields"] = json!(mf);
    let again = apply(
        "Deployment",
        false,
        Some(&scaled),
        &deployment(2, "nginx"),
        &w("kubectl", true, "2026-12-03T15:03:00Z"),
        false,
    )
    .unwrap();
    assert_eq!(again["spec"]["paused"], true);
}

#[test]
fn status_and_identity_are_not_owned_and_user_agents_name_managers() {
    let mut d = deployment(1, "nginx");
    d["status"] = json!({"replicas": 1});
    d["metadata"]["uid"] = json!("u");
    let set = field_set("Deployment", &d, "", false);
    assert!(set.get("f:status").is_none());
    assert!(set["f:metadata"].get("f:uid").is_none());
    assert!(set["f:metadata"].get("f:name").is_none());
    let status_set = field_set("Deployment", &d, "status", false);
    assert_eq!(status_set, json!({"f:status": {"f:replicas": {}}}));
    assert_eq!(
        manager_from_user_agent("kubectl/v1.32.0 (linux/amd64)"),
        "kubectl"
    );
    assert_eq!(manager_from_user_agent(""), "unknown");
    assert_eq!(
        path_string(&["f:metadata".into(), "f:finalizers".into(), "v:\"x\"".into()]),
        ".metadata.finalizers[=\"x\"]"
    );
}

/// A Deployment of upstream's `lastappliedmanager_test.go` shape: `labels` (none when empty),
/// `replicas`, the selector's and the template's `app` label (no selector when empty), and
/// the containers (name, image).
fn my_deployment(
    labels: &str,
    replicas: i64,
    selector: &str,
    tmpl: &str,
    containers: &[(&str, &str)],
) -> Value {
    let mut d = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "my-deployment"},
        "spec": {"replicas": replicas,
            "template": {"metadata": {"labels": {"app": tmpl}},
                "spec": {"containers": containers.iter()
                    .map(|(n, i)| json!({"name": n, "image": i})).collect::<Vec<_>>()}}}
    });
    if !labels.is_empty() {
        d["metadata"]["labels"] = json!({"app": labels});
    }
    if !selector.is_empty() {
        d["spec"]["selector"] = json!({"matchLabels": {"app": selector}});
    }
    d
}

/// A Pod of upstream's `TestPodApply`: `nodeName` (none when empty) and `nodeSelector`.
fn test_pod(node_name: &str, node_selector: Value) -> Value {
    let mut p = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "test", "namespace": "test"},
        "spec": {"containers": [{"args": ["-v=2"], "command": ["controller"],
            "image": "some.registry/app:latest", "name": "doJob"}],
            "nodeSelector": node_selector}
    });
    if !node_name.is_empty() {
        p["spec"]["nodeName"] = json!(node_name);
    }
    p
}

/// Whether every field of `want` is in `got` with its value (upstream's
/// `apiequality.Semantic.DeepDerivative(applied, live)`).
fn derivative(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| derivative(v, gv))),
        (Value::Array(w), Value::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(a, b)| derivative(a, b))
        }
        _ => want == got,
    }
}

/// Upstream `testConflicts`: `original` carries `last_applied` (the original itself when
/// `None`) and is written by the update manager `test_client_side_apply`; `applied` is then
/// applied by `manager`, and conflicts with exactly `expect` (paths as upstream prints them),
/// which force resolves; the live object ends up holding the applied values.
fn test_conflicts(
    name: &str,
    last_applied: Option<&str>,
    original: Value,
    applied: Value,
    manager: &str,
    expect: &[&str],
) {
    let api_version = original["apiVersion"].as_str().unwrap().to_string();
    let kind = original["kind"].as_str().unwrap().to_string();
    let mut live = original.clone();
    let last = last_applied.map_or_else(|| original.to_string(), str::to_string);
    live["metadata"]["annotations"] = json!({LAST_APPLIED: last});
    let updater = Writer {
        manager: "test_client_side_apply",
        apply: false,
        api_version: &api_version,
        subresource: "",
        time: "2026-12-03T15:00:00Z",
    };
    let mf = after_update(&kind, false, None, &live, &updater);
    live["metadata"]["managedFields"] = json!(mf);
    let applier = Writer {
        manager,
        apply: true,
        api_version: &api_version,
        subresource: "",
        time: "2026-12-03T15:01:00Z",
    };
    let result = apply(&kind, false, Some(&live), &applied, &applier, false);
    let result = if expect.is_empty() {
        result.unwrap_or_else(|c| panic!("{name}: expected no error but got {}", c.message()))
    } else {
        let c = result.expect_err(name);
        let mut got: Vec<&str> = c.list.iter().map(|(_, p)| p.as_str()).collect();
        got.sort_unstable();
        let mut want = expect.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{name}");
        let who = format!("\"test_client_side_apply\" using {api_version}");
        assert!(
            c.list.iter().all(|(m, _)| *m == who),
            "{name}: {:?}",
            c.list
        );
        apply(&kind, false, Some(&live), &applied, &applier, true)
            .unwrap_or_else(|c| panic!("{name}: force: {}", c.message()))
    };
    assert!(derivative(&applied, &result), "{name}: {result:#}");
}

#[test]
fn apply_using_last_applied_annotation() {
    let d = my_deployment;
    let c = |n: &'static str, i: &'static str| (n, i);
    test_conflicts(
        "test conflicts due to fields not allowed by last-applied",
        Some(
            &d(
                "",
                3,
                "my-app",
                "my-app",
                &[c("my-c", "my-image-v1"), c("my-c2", "my-image2")],
            )
            .to_string(),
        ),
        d(
            "my-app",
            100,
            "my-app",
            "my-app",
            &[c("my-c", "my-image-v2")],
        ),
        d(
            "my-new-label",
            333,
            "my-new-label",
            "my-new-label",
            &[c("my-c", "my-image-new")],
        ),
        "kubectl",
        &[
            ".metadata.labels.app",
            ".spec.replicas",
            ".spec.template.spec.containers[name=\"my-c\"].image",
        ],
    );
    test_conflicts(
        "expect conflict on replicas, which does not match last applied",
        Some(&d("my-app", 3, "my-app", "my-app", &[c("my-c", "my-image")]).to_string()),
        d("my-app", 100, "my-app", "my-app", &[c("my-c", "my-image")]),
        d("my-new-label", 3, "", "my-app", &[c("my-c", "my-image")]),
        "kubectl",
        &[".spec.replicas"],
    );
    test_conflicts(
        "applied object matches original",
        None,
        d("my-app", 100, "my-app", "my-app", &[c("my-c", "my-image")]),
        d("my-app", 100, "my-app", "my-app", &[c("my-c", "my-image")]),
        "kubectl",
        &[],
    );
    test_conflicts(
        "test allowed update with no conflicts",
        None,
        d("my-app", 3, "my-app", "my-app", &[c("my-c", "my-image")]),
        d(
            "my-new-label",
            333,
            "my-new-label",
            "my-new-label",
            &[c("my-c", "my-image")],
        ),
        "kubectl",
        &[],
    );
    test_conflicts(
        "expect conflicts because field manager is NOT kubectl",
        Some(&d("my-app", 3, "my-app", "my-app", &[c("my-c", "my-image-v1")]).to_string()),
        d(
            "my-app",
            100,
            "my-app",
            "my-app",
            &[c("my-c", "my-image-v2")],
        ),
        d(
            "my-new-label",
            333,
            "my-new-label",
            "my-new-label",
            &[c("my-c", "my-image-new")],
        ),
        "not_kubectl",
        &[
            ".metadata.labels.app",
            ".spec.replicas",
            ".spec.selector",
            ".spec.template.metadata.labels.app",
            ".spec.template.spec.containers[name=\"my-c\"].image",
        ],
    );
    test_conflicts(
        "test allowed update with no conflicts (an image)",
        None,
        d("my-app", 3, "my-app", "my-app", &[c("my-c", "my-image")]),
        d(
            "my-new-label",
            3,
            "my-app",
            "my-app",
            &[c("my-c", "my-new-image")],
        ),
        "kubectl",
        &[],
    );
    test_conflicts(
        "expect changes to fail because field manager is not kubectl",
        None,
        d("my-app", 100, "my-app", "my-app", &[c("my-c", "my-image")]),
        d(
            "my-new-label",
            3,
            "my-app",
            "my-app",
            &[c("my-c", "my-new-image")],
        ),
        "not_kubectl",
        &[
            ".metadata.labels.app",
            ".spec.replicas",
            ".spec.template.spec.containers[name=\"my-c\"].image",
        ],
    );
    let bare = |v: &str, replicas: i64| {
        json!({"apiVersion": v, "kind": "Deployment",
            "metadata": {"name": "my-deployment"}, "spec": {"replicas": replicas}})
    };
    test_conflicts(
        "update replicas",
        None,
        bare("apps/v1", 3),
        bare("apps/v1", 100),
        "kubectl",
        &[],
    );
    test_conflicts(
        "expect conflict due to apiVersion mismatch with last-applied",
        Some(&bare("extensions/v1beta1", 3).to_string()),
        bare("apps/v1", 3),
        bare("apps/v1", 100),
        "kubectl",
        &[".spec.replicas"],
    );
    test_conflicts(
        "expect conflict due to invalid object",
        Some(r#"{"apiVersion":"foo","kind":"bar","spec":"expect conflict due to invalid object"}"#),
        bare("apps/v1", 3),
        bare("apps/v1", 100),
        "kubectl",
        &[".spec.replicas"],
    );
    test_conflicts(
        "last-applied is empty",
        Some(""),
        bare("apps/v1", 3),
        bare("apps/v1", 100),
        "kubectl",
        &[".spec.replicas"],
    );
}

#[test]
fn pod_apply() {
    let master = json!({"node-role.kubernetes.io/master": ""});
    test_conflicts(
        "All accepted while using the same field manager",
        None,
        test_pod("definetlyControlPlane", master.clone()),
        test_pod("", json!({"node-role.kubernetes.io/worker": ""})),
        "kubectl",
        &[],
    );
    test_conflicts(
        "test selector update not allowed by last-applied",
        None,
        test_pod("definetlyControlPlane", master.clone()),
        test_pod(
            "definetlyControlPlane",
            json!({"node-role.kubernetes.io/master": "", "otherNodeType": ""}),
        ),
        "not_kubectl",
        &[".spec.nodeSelector"],
    );
    test_conflicts(
        "purging selector not allowed for different manager",
        None,
        test_pod("definetlyControlPlane", master.clone()),
        test_pod("another", json!({})),
        "not_kubectl",
        &[".spec.nodeSelector", ".spec.nodeName"],
    );
    test_conflicts(
        "same manager could purge nodeSelector",
        None,
        test_pod("definetlyControlPlane", master),
        test_pod("another", json!({})),
        "kubectl",
        &[],
    );
}

#[test]
fn last_applied_updater() {
    let mut applied = my_deployment("my-app", 20, "my-app", "my-app", &[("my-c", "my-image")]);
    applied["metadata"]["annotations"] = json!({LAST_APPLIED: "nonempty"});
    let live = apply(
        "Deployment",
        false,
        None,
        &applied,
        &w("NOT-KUBECTL", true, "2026-12-03T15:00:00Z"),
        false,
    )
    .unwrap();
    assert_eq!(
        live["metadata"]["annotations"][LAST_APPLIED], "nonempty",
        "expected last applied annotation to be NOT updated"
    );
    let live = apply(
        "Deployment",
        false,
        Some(&live),
        &applied,
        &w("kubectl", true, "2026-12-03T15:01:00Z"),
        false,
    )
    .unwrap();
    let last = live["metadata"]["annotations"][LAST_APPLIED]
        .as_str()
        .unwrap();
    assert_eq!(
        last,
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"labels\":{\"app\":\"my-app\"},\"name\":\"my-deployment\"},\"spec\":{\"replicas\":20,\"selector\":{\"matchLabels\":{\"app\":\"my-app\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"my-app\"}},\"spec\":{\"containers\":[{\"image\":\"my-image\",\"name\":\"my-c\"}]}}}}\n",
        "expected last applied annotation to be updated, as Go encodes it"
    );
}

#[test]
fn large_last_applied() {
    // "old object + new object last-applied annotation is too big"
    let cm = |n: usize| {
        let mut data = serde_json::Map::new();
        data.insert("k".into(), json!("v"));
        for i in 0..n {
            data.insert(
                format!(
                    "this-key-is-very-long-so-as-to-create-a-very-large-serialized-fieldset-{i}"
                ),
                json!("A"),
            );
        }
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "large-update-test-cm", "namespace": "default",
                "annotations": {LAST_APPLIED: "nonempty"}},
            "data": data})
    };
    let mut wr = w("kubectl", true, "2026-12-03T15:00:00Z");
    wr.api_version = "v1";
    let live = apply("ConfigMap", false, None, &cm(0), &wr, false).unwrap();
    let last = live["metadata"]["annotations"][LAST_APPLIED]
        .as_str()
        .unwrap();
    assert!(
        !last.is_empty() && last != "nonempty",
        "expected an updated last-applied annotation"
    );
    let live = apply("ConfigMap", false, Some(&live), &cm(9999), &wr, false).unwrap();
    assert!(
        live["metadata"]["annotations"].get(LAST_APPLIED).is_none(),
        "expected no last applied annotation"
    );
}

#[test]
fn an_object_holding_only_its_name_owns_no_metadata() {
    // kubectl apply --server-side, then another manager applies only a new replicas: one
    // conflict, on .spec.replicas (metadata.name and namespace are stripped upstream).
    let live = apply(
        "Deployment",
        false,
        None,
        &deployment(2, "nginx"),
        &w("kubectl", true, "2026-12-03T15:00:00Z"),
        false,
    )
    .unwrap();
    let mut other = deployment(3, "nginx");
    other["metadata"]
        .as_object_mut()
        .unwrap()
        .shift_remove("labels");
    let set = field_set("Deployment", &other, "", false);
    assert!(set.get("f:metadata").is_none(), "{set}");
    let c = apply(
        "Deployment",
        false,
        Some(&live),
        &other,
        &w("other", true, "2026-12-03T15:01:00Z"),
        false,
    )
    .unwrap_err();
    assert_eq!(
        c.message(),
        "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas"
    );
    // The selector is atomic (`+structType=atomic`): owned whole.
    assert_eq!(set["f:spec"]["f:selector"], json!({}));
}
