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
                "f:selector": {"f:matchLabels": {"f:app": {}}},
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
