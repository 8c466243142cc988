use super::*;
use repel_core::validation::{BadValue, FieldError};

/// The serialised body, to compare key order too.
fn body((_, v): &(u16, Value)) -> String {
    serde_json::to_string(v).expect("serialise")
}

#[test]
fn status_bodies_are_upstreams_byte_for_byte() {
    let cases: Vec<(&str, (u16, Value), u16, &str)> = vec![
        (
            "pod not found",
            not_found("pods", "x"),
            404,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}"#,
        ),
        (
            "a grouped resource carries its group",
            not_found("daemonsets.apps", "proxy"),
            404,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"daemonsets.apps \"proxy\" not found","reason":"NotFound","details":{"name":"proxy","group":"apps","kind":"daemonsets"},"code":404}"#,
        ),
        (
            "a dotted group is split at the first dot",
            not_found("leases.coordination.k8s.io", "node1"),
            404,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"node1\" not found","reason":"NotFound","details":{"name":"node1","group":"coordination.k8s.io","kind":"leases"},"code":404}"#,
        ),
        (
            "node already exists",
            already_exists("nodes", "node3"),
            409,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes \"node3\" already exists","reason":"AlreadyExists","details":{"name":"node3","kind":"nodes"},"code":409}"#,
        ),
        (
            "optimistic concurrency conflict",
            conflict("nodes", "node1"),
            409,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on nodes \"node1\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"node1","kind":"nodes"},"code":409}"#,
        ),
        (
            "bad request has no details",
            bad_request("name in URL does not match name in Eviction object"),
            400,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"name in URL does not match name in Eviction object","reason":"BadRequest","code":400}"#,
        ),
        (
            "unauthorized",
            unauthorized(),
            401,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#,
        ),
        (
            "PDB-blocked eviction",
            too_many_requests_pdb("web-pdb", 2, 2),
            429,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},"code":429}"#,
        ),
        (
            "PDB not yet observed",
            too_many_requests_pdb_processing("web-pdb"),
            429,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web-pdb is still being processed by the server."}],"retryAfterSeconds":10},"code":429}"#,
        ),
        (
            "too old resource version",
            too_old_resource_version(5, 10),
            410,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}"#,
        ),
        (
            "unsupported patch type lists the accepted ones",
            unsupported_media_type(&crate::patch::PATCH_MEDIA_TYPES),
            415,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415}"#,
        ),
        (
            "strict decoding of a create",
            strict_unknown_fields(
                "Pod",
                &["spec.foo".to_string(), "spec.containers[0].bar".to_string()],
            ),
            400,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.foo\", unknown field \"spec.containers[0].bar\"","reason":"BadRequest","code":400}"#,
        ),
        (
            "strict decoding of a patch",
            strict_patch_invalid("map[spec:map[foo:1]]", &["spec.foo".to_string()]),
            422,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":" \"\" is invalid: patch: Invalid value: \"map[spec:map[foo:1]]\": strict decoding error: unknown field \"spec.foo\"","reason":"Invalid","details":{"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"map[spec:map[foo:1]]\": strict decoding error: unknown field \"spec.foo\"","field":"patch"}]},"code":422}"#,
        ),
        (
            "method not supported on a resource",
            method_not_supported("nodes/status", "delete"),
            405,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"delete is not supported on resources of kind \"nodes/status\"","reason":"MethodNotAllowed","details":{"kind":"nodes/status"},"code":405}"#,
        ),
        (
            "internal error",
            internal_error("boom"),
            500,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}"#,
        ),
        (
            "eviction success",
            success(201),
            201,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}"#,
        ),
        (
            "forbidden",
            forbidden(
                "poddisruptionbudget.policy",
                "web",
                "pdb disruptions allowed is negative",
            ),
            403,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"poddisruptionbudget.policy \"web\" is forbidden: pdb disruptions allowed is negative","reason":"Forbidden","details":{"name":"web","group":"policy","kind":"poddisruptionbudget"},"code":403}"#,
        ),
    ];
    for (name, got, code, want) in cases {
        assert_eq!(got.0, code, "{name}: code");
        assert_eq!(body(&got), want, "{name}");
    }
}

#[test]
fn invalid_carries_one_cause_per_field_error() {
    let errs = vec![
        FieldError::not_supported("spec.tolerations[0].operator", "Foo", &["Equal", "Exists"]),
        FieldError::invalid(
            "spec.tolerations[1].effect",
            BadValue::Str("NoExecut".into()),
            "",
        ),
    ];
    let got = invalid("Pod", "web", &errs);
    assert_eq!(got.0, 422);
    assert_eq!(
        body(&got),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"web\" is invalid: [spec.tolerations[0].operator: Unsupported value: \"Foo\": supported values: \"Equal\", \"Exists\", spec.tolerations[1].effect: Invalid value: \"NoExecut\"]","reason":"Invalid","details":{"name":"web","kind":"Pod","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \"Foo\": supported values: \"Equal\", \"Exists\"","field":"spec.tolerations[0].operator"},{"reason":"FieldValueInvalid","message":"Invalid value: \"NoExecut\"","field":"spec.tolerations[1].effect"}]},"code":422}"#
    );
}

#[test]
fn invalid_message_aggregates_like_upstream() {
    let e = FieldError::invalid("spec.x", BadValue::Str("a".into()), "bad");
    let cases = [
        ("no errors: no colon", vec![], r#"Node "n" is invalid"#),
        (
            "one error alone",
            vec![e.clone()],
            r#"Node "n" is invalid: spec.x: Invalid value: "a": bad"#,
        ),
        (
            "duplicates collapse to one, without brackets",
            vec![e.clone(), e.clone()],
            r#"Node "n" is invalid: spec.x: Invalid value: "a": bad"#,
        ),
    ];
    for (name, errs, want) in cases {
        let (_, v) = invalid("Node", "n", &errs);
        assert_eq!(v["message"], want, "{name}");
    }
    let (_, v) = invalid("Deployment.apps", "web", &[e]);
    assert_eq!(
        v["details"]["group"], "apps",
        "a grouped kind carries its group"
    );
    assert_eq!(v["details"]["kind"], "Deployment");
    assert!(
        v["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Deployment.apps \"web\" is invalid")
    );
}

#[test]
fn strict_body_errors_mix_duplicates_and_unknowns() {
    let errs = vec![
        StrictError::Duplicate("metadata.name".into()),
        StrictError::Unknown("spec.foo".into()),
    ];
    let (code, v) = strict_body_errors("Deployment", &errs);
    assert_eq!(code, 400);
    assert_eq!(
        v["message"],
        r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: duplicate field "metadata.name", unknown field "spec.foo""#
    );
    assert_eq!(v["reason"], "BadRequest");
}
