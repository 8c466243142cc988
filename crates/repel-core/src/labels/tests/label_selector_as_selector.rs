//! Upstream `TestLabelSelectorAsSelector` (`meta/v1/helpers_test.go`), and bad values rendered as Go renders them.

use super::*;

/// `TestLabelSelectorAsSelector` (meta/v1 helpers_test.go) plus its error strings.
#[test]
fn label_selector_from_api_objects() {
    use metav1::{LabelSelector as Api, LabelSelectorRequirement as Expr};
    let expr = |key: &str, op: &str, vals: Option<&[&str]>| Expr {
        key: key.to_string(),
        operator: op.to_string(),
        values: vals.map(|v| v.iter().map(|s| s.to_string()).collect()),
    };
    let match_labels = Some(set(&[("foo", "bar")]));
    let baz_in = vec![expr("baz", "In", Some(&["qux", "norf"]))];
    let ok_cases = [
        ("an empty selector selects everything", Api::default(), ""),
        (
            "match labels",
            Api {
                match_labels: match_labels.clone(),
                ..Api::default()
            },
            "foo=bar",
        ),
        (
            "match expressions",
            Api {
                match_expressions: Some(baz_in.clone()),
                ..Api::default()
            },
            "baz in (norf,qux)",
        ),
        (
            "labels and expressions",
            Api {
                match_labels: match_labels.clone(),
                match_expressions: Some(baz_in.clone()),
            },
            "baz in (norf,qux),foo=bar",
        ),
    ];
    for (name, api, want) in ok_cases {
        let sel = label_selector_from_api(&api).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sel.to_string(), want, "{name}");
        assert_eq!(
            sel.to_string(),
            parse(want).unwrap().to_string(),
            "{name}: same as parsed"
        );
    }
    assert!(
        label_selector_from_api(&Api::default())
            .unwrap()
            .matches(&set(&[("any", "label")])),
        "an empty selector matches any labels"
    );
    let err_cases = [
        (
            "exists with values",
            vec![expr("baz", "Exists", Some(&["qux", "norf"]))],
            format!("values: Invalid value: [\"qux\",\"norf\"]: {ERR_EXISTS_WITH_VALUES}"),
        ),
        (
            "in without values is a nil list",
            vec![expr("baz", "In", Some(&[]))],
            format!("values: Invalid value: null: {ERR_IN_NOTIN_EMPTY}"),
        ),
        (
            "an operator of node affinity",
            vec![expr("baz", "Gt", Some(&["1"]))],
            "\"Gt\" is not a valid label selector operator".to_string(),
        ),
    ];
    for (name, exprs, want) in err_cases {
        let api = Api {
            match_expressions: Some(exprs),
            ..Api::default()
        };
        let err = label_selector_from_api(&api).expect_err(name);
        assert_eq!(err.to_string(), want, "{name}");
    }
}

/// Go's quoting of bad values: `%q` for strings, JSON for lists.
#[test]
fn bad_values_render_as_go_does() {
    let cases = [
        ("a plain string", go_quote("abc"), "\"abc\""),
        (
            "quotes and backslashes",
            go_quote("a\"b\\"),
            "\"a\\\"b\\\\\"",
        ),
        (
            "control characters",
            go_quote("a\nb\u{1}"),
            "\"a\\nb\\x01\"",
        ),
        ("non-ASCII letters stay", go_quote("é"), "\"é\""),
        (
            "JSON escapes HTML characters",
            go_json_string("<&>"),
            "\"\\u003c\\u0026\\u003e\"",
        ),
        ("a nil list", go_json_list(None), "null"),
        ("an empty list", go_json_list(Some(&[])), "[]"),
    ];
    for (name, got, want) in cases {
        assert_eq!(got, want, "{name}");
    }
}
