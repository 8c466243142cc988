//! Annotation and namespace errors with upstream's messages, and the namespace's annotations read as upstream reads them.

use super::*;

#[test]
fn annotation_and_namespace_errors() {
    let cfg = PodTolerationRestrictionConfig::default();
    let invalid = |annotation, message: &str| {
        Err(AdmissionError::InvalidAnnotation {
            annotation,
            message: message.to_string(),
        })
    };
    let cases: Vec<(
        &str,
        Option<Namespace>,
        AdmissionOperation,
        Vec<Toleration>,
        Result<(), AdmissionError>,
    )> = vec![
        (
            "bad default JSON fails a create with Go's message",
            Some(raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "[{")])),
            AdmissionOperation::Create,
            vec![],
            invalid(NS_DEFAULT_TOLERATIONS, "unexpected end of JSON input"),
        ),
        (
            "a bad whitelist is read only when the pod has tolerations",
            Some(raw_namespace(&[(NS_WHITELIST_TOLERATIONS, "nope")])),
            AdmissionOperation::Create,
            vec![],
            Ok(()),
        ),
        (
            "a bad whitelist fails a pod with tolerations",
            Some(raw_namespace(&[(NS_WHITELIST_TOLERATIONS, "nope")])),
            AdmissionOperation::Create,
            vec![t_eq("x")],
            invalid(
                NS_WHITELIST_TOLERATIONS,
                "invalid character 'o' in literal null (expecting 'u')",
            ),
        ),
        (
            "an empty annotation value is an empty list, not an error",
            Some(raw_namespace(&[
                (NS_DEFAULT_TOLERATIONS, ""),
                (NS_WHITELIST_TOLERATIONS, ""),
            ])),
            AdmissionOperation::Create,
            vec![t_eq("x")],
            Ok(()),
        ),
        (
            "a missing namespace fails a create",
            None,
            AdmissionOperation::Create,
            vec![],
            Err(AdmissionError::NamespaceNotFound("testNamespace".into())),
        ),
        (
            "a missing namespace does not matter to an update without tolerations",
            None,
            AdmissionOperation::Update,
            vec![],
            Ok(()),
        ),
        (
            "a missing namespace fails an update with tolerations",
            None,
            AdmissionOperation::Update,
            vec![t_eq("x")],
            Err(AdmissionError::NamespaceNotFound("testNamespace".into())),
        ),
    ];
    for (name, ns, op, tolerations, want) in cases {
        let mut p = pod(Qos::BestEffort, tolerations);
        assert_eq!(
            pod_toleration_restriction(&mut p, ns.as_ref(), &cfg, op),
            want,
            "{name}"
        );
    }
}

#[test]
fn error_messages_are_upstreams() {
    let cases = [
        (
            "the namespace whitelist conflict",
            AdmissionError::WhitelistConflict {
                scope: WhitelistScope::Namespace,
            },
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist",
            500,
        ),
        (
            "the cluster whitelist conflict",
            AdmissionError::WhitelistConflict {
                scope: WhitelistScope::Cluster,
            },
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist",
            500,
        ),
        (
            "a missing namespace",
            AdmissionError::NamespaceNotFound("ns1".into()),
            "namespaces \"ns1\" not found",
            404,
        ),
    ];
    for (name, err, msg, status) in cases {
        assert_eq!(err.to_string(), msg, "{name}");
        assert_eq!(err.http_status(), status, "{name}");
    }
    assert_eq!(
        NS_DEFAULT_TOLERATIONS, "scheduler.alpha.kubernetes.io/defaultTolerations",
        "default annotation key"
    );
    assert_eq!(
        NS_WHITELIST_TOLERATIONS, "scheduler.alpha.kubernetes.io/tolerationsWhitelist",
        "whitelist annotation key"
    );
}

#[test]
fn namespace_tolerations_reads_annotations_as_upstream() {
    let cases: Vec<(&str, Namespace, Option<Vec<Toleration>>)> = vec![
        (
            "no annotations at all is absent",
            Namespace::default(),
            None,
        ),
        (
            "another annotation only is absent",
            raw_namespace(&[("x", "y")]),
            None,
        ),
        (
            "an empty value is an empty list",
            raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "")]),
            Some(vec![]),
        ),
        (
            "JSON null is an empty list",
            raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "null")]),
            Some(vec![]),
        ),
        (
            "keys match case-insensitively and unknown keys are ignored",
            raw_namespace(&[(
                NS_DEFAULT_TOLERATIONS,
                r#"[{"KEY":"a","Operator":"Exists","extra":[1,{"x":2}],"tolerationseconds":5}]"#,
            )]),
            Some(vec![tol_secs("a", "Exists", "", "", 5)]),
        ),
    ];
    for (name, ns, want) in cases {
        assert_eq!(
            namespace_tolerations(&ns, NS_DEFAULT_TOLERATIONS),
            Ok(want),
            "{name}"
        );
    }
}
