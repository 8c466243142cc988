//! Unit tests of `crate::strict::body`.

use super::*;

#[test]
fn check_body_cases() {
    let cases: [(&str, &str, &str, &[&str]); 5] = [
        (
            "a clean body",
            "Pod",
            r#"{"metadata":{"name":"p"},"spec":{"containers":[]}}"#,
            &[],
        ),
        (
            "upstream's field validation example, in document order",
            "Deployment",
            r#"{"apiVersion":"apps/v1","kind":"Deployment",
                "metadata":{"name":"dupename","name":"dupename","unknownMeta":"metaVal"},
                "spec":{"unknown1":"val1","unknownDupe":"valDupe","unknownDupe":"valDupe2","paused":true,"paused":false,
                        "selector":{"matchLabels":{"app":"nginx"}},
                        "template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:latest"}]}}}}"#,
            &[
                r#"duplicate field "metadata.name""#,
                r#"unknown field "metadata.unknownMeta""#,
                r#"unknown field "spec.unknown1""#,
                r#"unknown field "spec.unknownDupe""#,
                r#"duplicate field "spec.paused""#,
            ],
        ),
        (
            "a duplicate map key is a duplicate field",
            "Pod",
            r#"{"metadata":{"name":"p","labels":{"a":"1","a":"2"}},"spec":{"containers":[]}}"#,
            &[r#"duplicate field "metadata.labels.a""#],
        ),
        (
            "nothing inside an unknown field is reported",
            "Node",
            r#"{"metadata":{"name":"n"},"spec":{"foo":{"x":1,"x":2}}}"#,
            &[r#"unknown field "spec.foo""#],
        ),
        (
            "duplicates inside a list element",
            "Node",
            r#"{"metadata":{"name":"n"},"spec":{"taints":[{"key":"a","key":"b","effect":"NoSchedule"}]}}"#,
            &[r#"duplicate field "spec.taints[0].key""#],
        ),
    ];
    for (name, kind, body, want) in cases {
        let (_, errs) = check_body(kind, body.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_last_duplicate_wins_and_bad_json_is_an_error() {
    let (v, _) = check_body("Pod", br#"{"spec":{"nodeName":"a","nodeName":"b"}}"#).expect("parse");
    assert_eq!(v["spec"]["nodeName"], "b");
    assert!(check_body("Pod", b"{nope").is_err());
    assert!(check_body("Pod", b"{} {}").is_err(), "trailing data");
}
