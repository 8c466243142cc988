//! Upstream's `TestValidateDeployment` and `TestValidateJob` error cases
//! (`pkg/apis/extensions/validation/validation_test.go`, whose cases moved to apps and batch),
//! keyed as upstream keys them: the first error must contain the key (`field:text` for Jobs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::*;

/// Upstream's `validDeployment()` as the API server stores it (defaulted).
fn valid_deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "abc", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"name": "abc"}},
            "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
            "template": {
                "metadata": {"name": "abc", "namespace": "default", "labels": {"name": "abc"}},
                "spec": {"restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                    "containers": [{"name": "nginx", "image": "image", "imagePullPolicy": "IfNotPresent"}]}
            }
        }
    })
}

fn first_error(kind: &str, obj: &Value) -> String {
    validate(kind, obj, None)
        .first()
        .map(ToString::to_string)
        .unwrap_or_default()
}

#[test]
fn validate_deployment() {
    assert_eq!(validate("Deployment", &valid_deployment(), None), vec![]);
    let case = |f: &dyn Fn(&mut Value)| {
        let mut d = valid_deployment();
        f(&mut d);
        d
    };
    let cases: Vec<(&str, Value)> = vec![
        (
            "`selector` does not match template `labels`",
            case(&|d| d["spec"]["selector"] = json!({"matchLabels": {"name": "def"}})),
        ),
        (
            "Unsupported value: \"Never\"",
            case(&|d| d["spec"]["template"]["spec"]["restartPolicy"] = json!("Never")),
        ),
        (
            "may not be specified when strategy `type` is 'Recreate'",
            case(&|d| d["spec"]["strategy"] = json!({"type": "Recreate", "rollingUpdate": {}})),
        ),
        (
            "may not be 0 when `maxSurge` is 0",
            case(&|d| {
                d["spec"]["strategy"]["rollingUpdate"] =
                    json!({"maxSurge": "0%", "maxUnavailable": 0})
            }),
        ),
        (
            "must not be greater than 100%",
            case(&|d| {
                d["spec"]["strategy"]["rollingUpdate"] =
                    json!({"maxSurge": 1, "maxUnavailable": "110%"})
            }),
        ),
        (
            "must be greater than or equal to 0",
            case(&|d| d["spec"]["replicas"] = json!(-3)),
        ),
    ];
    for (want, d) in cases {
        let got = first_error("Deployment", &d);
        assert!(got.contains(want), "[{want}] unexpected error: {got:?}");
    }
}

#[test]
fn a_deployment_whose_selector_misses_its_template_is_refused_in_upstreams_words() {
    let mut d = valid_deployment();
    d["spec"]["template"]["metadata"]["labels"] = json!({"app": "other"});
    let errs = validate("Deployment", &d, None);
    assert_eq!(
        errs.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`"
        ]
    );
    let mut d = valid_deployment();
    d["spec"].as_object_mut().unwrap().shift_remove("selector");
    let errs: Vec<String> = validate("Deployment", &d, None)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errs,
        [
            "spec.selector: Required value",
            "spec.template.metadata.labels: Invalid value: {\"name\":\"abc\"}: `selector` does not match template `labels`"
        ],
        "a nil selector is labels.Nothing(): it matches nothing"
    );
    d["spec"]["selector"] = json!({});
    assert_eq!(
        first_error("Deployment", &d),
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment"
    );
    let mut d = valid_deployment();
    d["spec"]["progressDeadlineSeconds"] = json!(10);
    d["spec"]["minReadySeconds"] = json!(10);
    assert_eq!(
        first_error("Deployment", &d),
        "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"
    );
}

#[test]
fn apps_v1_selectors_are_immutable_and_statefulset_specs_mostly_so() {
    let old = valid_deployment();
    let mut new = old.clone();
    new["spec"]["selector"] = json!({"matchLabels": {"name": "abc", "x": "y"}});
    new["spec"]["template"]["metadata"]["labels"]["x"] = json!("y");
    let errs: Vec<String> = validate("Deployment", &new, Some(&old))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errs,
        [
            "spec.selector: Invalid value: {\"matchLabels\":{\"name\":\"abc\",\"x\":\"y\"}}: field is immutable"
        ]
    );
    let sts = json!({"spec": {"replicas": 1, "podManagementPolicy": "OrderedReady",
        "serviceName": "a", "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"restartPolicy": "Always"}}}});
    assert_eq!(validate("StatefulSet", &sts, None), vec![]);
    let mut scaled = sts.clone();
    scaled["spec"]["replicas"] = json!(5);
    assert_eq!(validate("StatefulSet", &scaled, Some(&sts)), vec![]);
    let mut renamed = sts.clone();
    renamed["spec"]["serviceName"] = json!("b");
    assert_eq!(
        first_error_update("StatefulSet", &renamed, &sts),
        format!("spec: Forbidden: {MSG_STATEFULSET_SPEC_FORBIDDEN}")
    );
}

fn first_error_update(kind: &str, obj: &Value, old: &Value) -> String {
    validate(kind, obj, Some(old))
        .first()
        .map(ToString::to_string)
        .unwrap_or_default()
}

#[test]
fn validate_job() {
    let manual = json!({"matchLabels": {"a": "b"}});
    let generated = json!({"matchLabels": {"controller-uid": "1a2b3c", "job-name": "myjob"}});
    let template = |labels: Value, restart: &str| {
        json!({"metadata": {"labels": labels},
            "spec": {"restartPolicy": restart, "dnsPolicy": "ClusterFirst",
                "containers": [{"name": "abc", "image": "image", "imagePullPolicy": "IfNotPresent"}]}})
    };
    let job = |spec: Value| json!({"metadata": {"name": "myjob", "namespace": "default", "uid": "1a2b3c"}, "spec": spec});
    for (name, ok) in [
        (
            "manual selector",
            job(json!({"selector": manual, "manualSelector": true,
                "template": template(manual["matchLabels"].clone(), "OnFailure")})),
        ),
        (
            "generated selector",
            job(json!({"selector": generated, "manualSelector": false,
                "template": template(generated["matchLabels"].clone(), "OnFailure")})),
        ),
    ] {
        assert_eq!(
            validate("Job", &ok, None),
            vec![],
            "expected success for {name}"
        );
    }
    let gen_template = template(generated["matchLabels"].clone(), "OnFailure");
    let cases = [
        (
            "spec.parallelism:must be greater than or equal to 0",
            job(json!({"parallelism": -1, "manualSelector": true, "template": gen_template})),
        ),
        (
            "spec.completions:must be greater than or equal to 0",
            job(
                json!({"completions": -1, "selector": manual, "manualSelector": true, "template": gen_template}),
            ),
        ),
        (
            "spec.activeDeadlineSeconds:must be greater than or equal to 0",
            job(
                json!({"activeDeadlineSeconds": -1, "selector": manual, "manualSelector": true, "template": gen_template}),
            ),
        ),
        (
            "spec.selector:Required value",
            job(json!({"template": gen_template})),
        ),
        (
            "spec.template.metadata.labels: Invalid value: {\"y\":\"z\"}: `selector` does not match template `labels`",
            job(json!({"selector": manual, "manualSelector": true,
                "template": template(json!({"y": "z"}), "OnFailure")})),
        ),
        (
            "spec.template.metadata.labels: Invalid value: {\"controller-uid\":\"4d5e6f\"}: `selector` does not match template `labels`",
            job(json!({"selector": manual, "manualSelector": true,
                "template": template(json!({"controller-uid": "4d5e6f"}), "OnFailure")})),
        ),
        (
            "spec.template.spec.restartPolicy: Unsupported value",
            job(json!({"selector": manual, "manualSelector": true,
                "template": template(manual["matchLabels"].clone(), "Always")})),
        ),
    ];
    for (k, v) in cases {
        let errs = validate("Job", &v, None);
        let err = errs
            .first()
            .unwrap_or_else(|| panic!("expected failure for {k}"));
        let (field, text) = k.split_once(':').unwrap();
        assert!(
            err.field == field && err.to_string().contains(text),
            "unexpected error: {err}, expected: {k}"
        );
    }
}
