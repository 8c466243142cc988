//! Cases ported from upstream `fields/selector_test.go` and `fields/fields_test.go`, then the
//! selectors kubectl sends (kubectl-wire.md: describe node, drain) on pod objects.

use serde_json::json;

use super::*;

#[test]
fn split_terms_cases() {
    let cases: [(&str, &[&str]); 12] = [
        ("a", &["a"]),
        ("a=avalue", &["a=avalue"]),
        ("a=avalue,b=bvalue", &["a=avalue", "b=bvalue"]),
        (
            "a=avalue,b==bvalue,c!=cvalue",
            &["a=avalue", "b==bvalue", "c!=cvalue"],
        ),
        ("", &[]),
        ("a=a,", &["a=a", ""]),
        (",a=a", &["", "a=a"]),
        (r"k=\,,k2=v2", &[r"k=\,", "k2=v2"]),
        (r"k=\\,k2=v2", &[r"k=\\", "k2=v2"]),
        (r"k=\\\,,k2=v2", &[r"k=\\\,", "k2=v2"]),
        (r"k=\a\b\", &[r"k=\a\b\"]),
        ("함=수,목=록", &["함=수", "목=록"]),
    ];
    for (input, want) in cases {
        assert_eq!(split_terms(input), want.to_vec(), "splitTerms({input})");
    }
}

#[test]
fn split_term_cases() {
    let cases = [
        ("a=value", Some(("a", "=", "value"))),
        ("b==value", Some(("b", "==", "value"))),
        ("c!=value", Some(("c", "!=", "value"))),
        ("", None),
        ("a", None),
        (r"k=\,", Some(("k", "=", r"\,"))),
        (r"k=\=", Some(("k", "=", r"\="))),
        (r"k=\\\a\b\=\,\", Some(("k", "=", r"\\\a\b\=\,\"))),
        ("함=수", Some(("함", "=", "수"))),
    ];
    for (term, want) in cases {
        assert_eq!(split_term(term), want, "splitTerm({term})");
    }
}

#[test]
fn escape_and_unescape_round_trip() {
    let cases = [
        ("", ""),
        ("a", "a"),
        ("=", r"\="),
        (",", r"\,"),
        (r"\", r"\\"),
        (r"\=\,\", r"\\\=\\\,\\"),
    ];
    for (unescaped, escaped) in cases {
        assert_eq!(escape_value(unescaped), escaped, "EscapeValue({unescaped})");
        assert_eq!(
            unescape_value(escaped),
            Ok(unescaped.to_string()),
            "UnescapeValue({escaped})"
        );
    }
    for invalid in [r"\", r"\\\", r"\a"] {
        assert!(
            matches!(
                unescape_value(invalid),
                Err(SelectorError::InvalidEscape(_))
            ),
            "UnescapeValue({invalid}) is an invalid escape sequence"
        );
    }
}

#[test]
fn parse_good_and_bad() {
    for good in ["x=a,y=b,z=c", "", "x!=a,y=b", r"x=a||y\=b", r"x=a\=\=b"] {
        let s = FieldSelector::parse(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        assert_eq!(s.to_string(), good, "{good} re-prints as itself");
    }
    for bad in [
        "x=a||y=b",
        "x==a==b",
        "x=a,b",
        "x in (a)",
        "x in (a,b,c)",
        "x",
    ] {
        assert!(FieldSelector::parse(bad).is_err(), "{bad} is refused");
    }
    assert_eq!(
        FieldSelector::parse("x=a,a=x").map(|s| s.to_string()),
        FieldSelector::parse("a=x,x=a").map(|s| s.to_string()),
        "parsing is deterministic (terms sorted)"
    );
}

#[test]
fn error_texts_are_upstreams() {
    let cases = [
        ("x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"),
        (
            "x=a=b",
            "invalid field selector: unescaped character in value: 61",
        ),
        (
            r"x=a\q",
            r"invalid field selector: invalid escape sequence: \q",
        ),
        (
            r"x=a\",
            r"invalid field selector: invalid escape sequence: \",
        ),
    ];
    for (input, want) in cases {
        match FieldSelector::parse(input) {
            Ok(s) => panic!("{input}: parsed as {s}"),
            Err(e) => assert_eq!(e.to_string(), want, "{input}"),
        }
    }
    assert_eq!(
        parse_field_selector("Pod", "spec.foo=bar").map(|s| s.to_string()),
        Err(SelectorError::UnsupportedField("spec.foo".into())),
    );
    assert_eq!(
        SelectorError::UnsupportedField("spec.foo".into()).to_string(),
        "field label not supported: spec.foo"
    );
    assert_eq!(
        parse_field_selector("Node", "spec.nodeName=x").map(|s| s.to_string()),
        Err(SelectorError::UnsupportedField("spec.nodeName".into())),
        "nodes have no spec.nodeName"
    );
}

fn pod(name: &str, node: Option<&str>, phase: &str) -> serde_json::Value {
    let mut p = json!({
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web", "tier": "front"}},
        "spec": {"containers": []},
        "status": {"phase": phase}
    });
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    p
}

#[test]
fn field_selector_matches_objects() {
    let running = pod("web-1", Some("node1"), "Running");
    let done = pod("job-1", Some("node1"), "Succeeded");
    let pending = pod("web-2", None, "Pending");
    let cases = [
        ("empty selects everything", "", &running, true),
        (
            "describe node's pod list matches a running pod",
            "spec.nodeName=node1,status.phase!=Succeeded,status.phase!=Failed",
            &running,
            true,
        ),
        (
            "describe node's pod list skips a succeeded pod",
            "spec.nodeName=node1,status.phase!=Succeeded,status.phase!=Failed",
            &done,
            false,
        ),
        ("== is =", "spec.nodeName==node1", &running, true),
        ("another node", "spec.nodeName=node2", &running, false),
        (
            "an empty value selects unscheduled pods",
            "spec.nodeName=",
            &pending,
            true,
        ),
        (
            "an empty value does not select scheduled pods",
            "spec.nodeName=",
            &running,
            false,
        ),
        ("metadata.name", "metadata.name=web-1", &running, true),
        (
            "metadata.namespace",
            "metadata.namespace=kube-system",
            &running,
            false,
        ),
        (
            "spec.host is the old spec.nodeName",
            "spec.host=node1",
            &running,
            true,
        ),
    ];
    for (name, sel, obj, want) in cases {
        let s = parse_field_selector("Pod", sel).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.matches(obj), want, "{name}");
    }
    let mut with_ips = pod("web-3", Some("node1"), "Running");
    with_ips["status"]["podIPs"] = json!([{"ip": "10.0.0.7"}]);
    assert!(
        parse_field_selector("Pod", "status.podIP=10.0.0.7")
            .expect("parse")
            .matches(&with_ips),
        "status.podIP reads podIPs[0]"
    );
    with_ips["status"] = json!({"podIP": "10.0.0.8"});
    assert!(
        parse_field_selector("Pod", "status.podIP=10.0.0.8")
            .expect("parse")
            .matches(&with_ips),
        "or podIP"
    );
    let s = parse_field_selector("Pod", "spec.nodeName=node1,status.phase!=Failed").expect("parse");
    assert_eq!(
        s.exact("spec.nodeName"),
        Some("node1"),
        "RequiresExactMatch"
    );
    assert_eq!(s.exact("status.phase"), None, "!= is not an exact match");
}

#[test]
fn event_and_node_fields() {
    let event = json!({
        "metadata": {"name": "e1", "namespace": ""},
        "involvedObject": {"kind": "Node", "name": "node1", "uid": "node1", "namespace": ""},
        "source": {"component": "kubelet"},
        "type": "Normal"
    });
    let describe = "involvedObject.namespace=,involvedObject.kind=Node,involvedObject.uid=node1,involvedObject.name=node1";
    assert!(
        parse_field_selector("Event", describe)
            .expect("parse")
            .matches(&event),
        "kubectl describe node's event query"
    );
    assert!(
        parse_field_selector("Event", "source=kubelet")
            .expect("parse")
            .matches(&event),
        "source is source.component"
    );
    let node = json!({"metadata": {"name": "node1"}, "spec": {}});
    assert!(
        parse_field_selector("Node", "spec.unschedulable=false")
            .expect("parse")
            .matches(&node),
        "unset bool is false"
    );
    assert!(
        !parse_field_selector("Node", "spec.unschedulable=true")
            .expect("parse")
            .matches(&node)
    );
}

#[test]
fn label_selectors_match_metadata_labels() {
    let p = pod("web-1", Some("node1"), "Running");
    let cases = [
        ("empty", "", true),
        ("equality", "app=web", true),
        ("double equality", "app==web", true),
        ("inequality", "app!=web", false),
        ("set membership", "tier in (front,back)", true),
        ("set exclusion", "tier notin (front)", false),
        ("exists", "app", true),
        ("does not exist", "!gpu", true),
        ("AND of clauses", "app=web,tier=back", false),
    ];
    for (name, sel, want) in cases {
        let s = LabelQuery::parse(sel).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.matches(&p), want, "{name}");
    }
    let err = LabelQuery::parse("app=web,").expect_err("trailing comma");
    assert_eq!(err.to_string(), "found '', expected: identifier after ','");
}

mod properties {
    use proptest::prelude::*;

    use super::super::{FieldSelector, escape_value, unescape_value};

    proptest! {
        /// `EscapeValue` then `UnescapeValue` gives the value back, whatever it holds.
        #[test]
        fn escape_round_trips(v in r"[a-z\\,=!]{0,8}") {
            prop_assert_eq!(unescape_value(&escape_value(&v)), Ok(v));
        }

        /// A selector printed by `Display` parses back to the same terms.
        #[test]
        fn display_round_trips(terms in prop::collection::vec(("[a-z.]{1,6}", any::<bool>(), r"[a-z\\,=!]{0,6}"), 0..4)) {
            let text: Vec<String> = terms
                .iter()
                .map(|(f, neg, v)| format!("{f}{}{}", if *neg { "!=" } else { "=" }, escape_value(v)))
                .collect();
            let parsed = FieldSelector::parse(&text.join(",")).expect("parse");
            let again = FieldSelector::parse(&parsed.to_string()).expect("reparse");
            prop_assert_eq!(again, parsed.clone());
            prop_assert_eq!(parsed.terms().len(), terms.len());
        }
    }
}
