//! Unit tests of `crate::validation::meta`.

use super::*;
use std::collections::BTreeMap;

fn meta(name: &str, ns: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: ns.map(str::to_string),
        ..Default::default()
    }
}

fn rendered(errs: &[FieldError]) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn names_are_checked_by_each_kinds_rule() {
    let long = "a".repeat(300);
    let cases: &[(&str, &str, bool, &[String])] = &[
        ("Pod", "web-1", true, &[]),
        ("Pod", "web.example", true, &[]),
        (
            "Pod",
            "UPPER",
            true,
            &[format!("metadata.name: Invalid value: \"UPPER\": {SUBDOMAIN}")],
        ),
        (
            "Pod",
            "a/b",
            true,
            &[format!("metadata.name: Invalid value: \"a/b\": {SUBDOMAIN}")],
        ),
        (
            "Node",
            "..",
            false,
            &[format!("metadata.name: Invalid value: \"..\": {SUBDOMAIN}")],
        ),
        (
            "Pod",
            &long,
            true,
            &[format!(
                "metadata.name: Invalid value: \"{long}\": must be no more than 253 characters"
            )],
        ),
        (
            "Namespace",
            "a.b",
            false,
            &["metadata.name: Invalid value: \"a.b\": must not contain dots".to_string()],
        ),
        (
            "StatefulSet",
            "-a",
            true,
            &["metadata.name: Invalid value: \"-a\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string()],
        ),
        ("PodDisruptionBudget", "UPPER_case", true, &[]),
        ("Role", "system:controller:x", true, &[]),
        (
            "Service",
            "1web",
            true,
            &["metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".to_string()],
        ),
        (
            "CronJob",
            &"c".repeat(53),
            true,
            &[format!(
                "metadata.name: Invalid value: \"{}\": must be no more than 52 characters",
                "c".repeat(53)
            )],
        ),
    ];
    for (kind, name, namespaced, want) in cases {
        let ns = namespaced.then_some("default");
        let got = rendered(&strategy_errors(kind, &meta(name, ns), *namespaced, None));
        assert_eq!(&got, want, "{kind} {name:?}");
    }
}

#[test]
fn the_generic_pass_checks_path_segments() {
    let got = rendered(&generic_errors(&meta("a/b%", Some("default")), true));
    assert_eq!(
        got,
        [
            "metadata.name: Invalid value: \"a/b%\": may not contain '/'",
            "metadata.name: Invalid value: \"a/b%\": may not contain '%'"
        ]
    );
    let got = rendered(&generic_errors(&meta("..", Some("default")), true));
    assert_eq!(
        got,
        ["metadata.name: Invalid value: \"..\": may not be '..'"]
    );
}

#[test]
fn generate_name_is_a_prefix_and_is_cut_at_58_bytes() {
    assert_eq!(mask_trailing_dash("foo-"), "foa");
    assert_eq!(mask_trailing_dash("a-"), "a");
    assert_eq!(mask_trailing_dash("-"), "-");
    let m = ObjectMeta {
        generate_name: Some("web-".into()),
        name: Some("web-x7k2p".into()),
        namespace: Some("default".into()),
        ..Default::default()
    };
    assert!(strategy_errors("Pod", &m, true, None).is_empty());
    let m = ObjectMeta {
        generate_name: Some("Web-".into()),
        name: Some("Web-x7k2p".into()),
        namespace: Some("default".into()),
        ..Default::default()
    };
    let got = rendered(&strategy_errors("Pod", &m, true, None));
    assert_eq!(
        got,
        [
            format!("metadata.generateName: Invalid value: \"Web-\": {SUBDOMAIN}"),
            format!("metadata.name: Invalid value: \"Web-x7k2p\": {SUBDOMAIN}"),
        ]
    );
    assert_eq!(generated_name(&"p".repeat(70), "abcde").len(), 63);
    assert_eq!(generated_name("web-", "abcde"), "web-abcde");
}

#[test]
fn namespace_labels_and_annotations() {
    let mut m = meta("n", None);
    m.namespace = Some("x".into());
    assert_eq!(
        rendered(&strategy_errors("Node", &m, false, None)),
        ["metadata.namespace: Forbidden: not allowed on this type"]
    );
    let mut m = meta("p", Some("Bad_NS"));
    m.labels = Some(BTreeMap::from([
        ("a/b/c".into(), "ok".into()),
        ("k".into(), "-v".into()),
    ]));
    m.annotations = Some(BTreeMap::from([("Example.com/Key".into(), "fine".into())]));
    let got = rendered(&strategy_errors("Pod", &m, true, None));
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(
        got[0].starts_with(
            "metadata.namespace: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label"
        )
    );
    assert!(
        got[1].starts_with(
            "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of"
        ),
        "{}",
        got[1]
    );
    assert!(
        got[2].starts_with(
            "metadata.labels: Invalid value: \"-v\": a valid label must be an empty string"
        ),
        "{}",
        got[2]
    );
    let mut m = meta("p", Some("default"));
    m.annotations = Some(BTreeMap::from([(
        "big".into(),
        "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_B),
    )]));
    assert_eq!(
        rendered(&update_errors(&m)),
        ["metadata.annotations: Too long: may not be more than 262144 bytes"]
    );
}

#[test]
fn system_priority_classes_are_reserved() {
    let m = meta("system-mine", None);
    assert_eq!(
        rendered(&strategy_errors(
            "PriorityClass",
            &m,
            false,
            Some((10, false))
        )),
        [
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"
        ]
    );
    let m = meta("system-node-critical", None);
    assert_eq!(
        rendered(&strategy_errors(
            "PriorityClass",
            &m,
            false,
            Some((5, false))
        )),
        [
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"
        ]
    );
    assert!(strategy_errors("PriorityClass", &m, false, Some((2_000_001_000, false))).is_empty());
    let m = meta("high", None);
    assert_eq!(
        rendered(&strategy_errors(
            "PriorityClass",
            &m,
            false,
            Some((1_000_000_001, false))
        )),
        ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
    );
}
