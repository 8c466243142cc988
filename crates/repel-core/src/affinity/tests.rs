#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap (CONVENTIONS)
//! Ported from upstream `nodeaffinity_test.go` (component-helpers, v1.35), plus the seed cases
//! and the error messages pinned byte for byte.

use super::*;
use crate::testing::MakeNode;
use k8s_openapi::api::core::v1::{Affinity, NodeAffinity};

const KEY_DETAIL: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_DETAIL: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

fn node(name: &str, labels: &[(&str, &str)]) -> Node {
    let node = if name.is_empty() {
        MakeNode::new()
    } else {
        MakeNode::new().name(name)
    };
    labels.iter().fold(node, |n, (k, v)| n.label(k, v)).obj()
}

fn r(key: &str, op: &str, vals: &[&str]) -> NodeSelectorRequirement {
    NodeSelectorRequirement {
        key: key.to_string(),
        operator: op.to_string(),
        values: (!vals.is_empty()).then(|| vals.iter().map(|v| v.to_string()).collect()),
    }
}

fn exprs(reqs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_expressions: Some(reqs),
        match_fields: None,
    }
}

fn fields(reqs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_expressions: None,
        match_fields: Some(reqs),
    }
}

fn both(e: Vec<NodeSelectorRequirement>, f: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_expressions: Some(e),
        match_fields: Some(f),
    }
}

fn selector(terms: Vec<NodeSelectorTerm>) -> NodeSelector {
    NodeSelector {
        node_selector_terms: terms,
    }
}

fn spec_with(node_selector: &[(&str, &str)], required: Option<NodeSelector>) -> PodSpec {
    PodSpec {
        node_selector: (!node_selector.is_empty()).then(|| {
            node_selector
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        }),
        affinity: required.map(|ns| Affinity {
            node_affinity: Some(NodeAffinity {
                required_during_scheduling_ignored_during_execution: Some(ns),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `TestNodeSelectorMatch`, through the strict constructor (`NewNodeSelector`).
#[test]
fn node_selector_match() {
    let invalid = selector(vec![
        fields(vec![r("metadata.name", "In", &["host_1", "host_2"])]),
        both(
            vec![r("label_1", "In", &["label_1_val"])],
            vec![r("metadata.name", "In", &["host_1"])],
        ),
        exprs(vec![r("invalid key", "In", &["label_value"])]),
    ]);
    let err = NodeSelectorMatcher::try_new(&invalid).expect_err("invalid selector");
    let fields_of: Vec<&str> = err.errors().iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields_of,
        [
            "nodeSelectorTerms[0].matchFields[0].values",
            "nodeSelectorTerms[2].matchExpressions[0].key"
        ],
        "invalid field selector and label selector: paths"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "[nodeSelectorTerms[0].matchFields[0].values: Invalid value: [\"host_1\",\"host_2\"]: must have one element, nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: \"invalid key\": {KEY_DETAIL}]"
        ),
        "invalid field selector and label selector: message"
    );

    let label_and_field = selector(vec![both(
        vec![r("label_1", "In", &["label_1_val"])],
        vec![r("metadata.name", "In", &["host_1"])],
    )]);
    let second_term = selector(vec![
        exprs(vec![r("label_1", "In", &["label_1_val"])]),
        fields(vec![r("metadata.name", "In", &["host_1"])]),
    ]);
    let cases = [
        (
            "node matches field selector, but not labels",
            &label_and_field,
            node("host_1", &[]),
            false,
        ),
        (
            "node matches field selector and label selector",
            &label_and_field,
            node("host_1", &[("label_1", "label_1_val")]),
            true,
        ),
        (
            "second term matches",
            &second_term,
            node("host_1", &[]),
            true,
        ),
    ];
    for (name, sel, n, want) in cases {
        let m = NodeSelectorMatcher::try_new(sel).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.matches(&n), Ok(want), "{name}");
        assert_eq!(
            m.matches_ignoring_errors(&n),
            want,
            "{name}: ignoring errors"
        );
    }
}

/// `LazyErrorNodeSelector`: a term with a parse error is skipped; its errors are returned only
/// when no other term matches.
#[test]
fn lazy_errors_surface_only_without_a_match() {
    let sel = selector(vec![
        exprs(vec![r("zone", "Gt", &["a"])]),
        exprs(vec![r("zone", "In", &["east"])]),
    ]);
    let m = NodeSelectorMatcher::new(&sel);
    assert_eq!(
        m.matches(&node("n", &[("zone", "east")])),
        Ok(true),
        "a good term still matches"
    );
    let err = m
        .matches(&node("n", &[("zone", "west")]))
        .expect_err("no term matches");
    assert_eq!(
        err.to_string(),
        "nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer",
        "the skipped term's error"
    );
    assert!(
        !m.matches_ignoring_errors(&node("n", &[("zone", "west")])),
        "an error is no match"
    );
    assert_eq!(
        NodeSelectorMatcher::new(&selector(vec![])).matches(&node("n", &[])),
        Ok(false),
        "no terms"
    );
    assert_eq!(
        NodeSelectorMatcher::new(&selector(vec![NodeSelectorTerm::default()]))
            .matches(&node("n", &[])),
        Ok(false),
        "an empty term matches nothing"
    );
}

/// Requirement validation as `nodeSelectorRequirementsAsSelector` does it, messages byte for byte.
#[test]
fn requirement_errors_use_upstream_messages() {
    let p = "nodeSelectorTerms[0].matchExpressions[0]";
    let cases = [
        (
            "an unknown operator",
            r("foo", "Equal", &["x"]),
            format!(
                "{p}.operator: Unsupported value: \"Equal\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""
            ),
        ),
        (
            "a lowercase operator",
            r("foo", "in", &["x"]),
            format!(
                "{p}.operator: Unsupported value: \"in\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""
            ),
        ),
        (
            "exists with values",
            r("foo", "Exists", &["bar", "baz"]),
            format!(
                "{p}.values: Invalid value: [\"bar\",\"baz\"]: values set must be empty for exists and does not exist"
            ),
        ),
        (
            "in without values",
            r("foo", "In", &[]),
            format!(
                "{p}.values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
            ),
        ),
        (
            "gt with two values",
            r("foo", "Gt", &["1", "2"]),
            format!(
                "{p}.values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, exactly one value is required"
            ),
        ),
        (
            "lt with a word",
            r("foo", "Lt", &["seven"]),
            format!(
                "{p}.values[0]: Invalid value: \"seven\": for 'Gt', 'Lt' operators, the value must be an integer"
            ),
        ),
        (
            "gt beyond int64",
            r("foo", "Gt", &["9223372036854775808"]),
            format!(
                "{p}.values[0]: Invalid value: \"9223372036854775808\": for 'Gt', 'Lt' operators, the value must be an integer"
            ),
        ),
        (
            "an invalid value",
            r("foo", "NotIn", &["invalid value: ___@#$%^"]),
            format!(
                "{p}.values[0][foo]: Invalid value: \"invalid value: ___@#$%^\": {VALUE_DETAIL}"
            ),
        ),
        (
            "an invalid key",
            r("invalid key", "In", &["label_value"]),
            format!("{p}.key: Invalid value: \"invalid key\": {KEY_DETAIL}"),
        ),
    ];
    for (name, req, want) in cases {
        let m = NodeSelectorMatcher::new(&selector(vec![exprs(vec![req])]));
        let err = m.matches(&node("n", &[("foo", "bar")])).expect_err(name);
        assert_eq!(err.to_string(), want, "{name}");
    }
    let field_cases = [
        (
            "a field operator other than In and NotIn",
            r("metadata.name", "Exists", &[]),
            "nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\", \"NotIn\"",
        ),
        (
            "a field requirement without values",
            r("metadata.name", "NotIn", &[]),
            "nodeSelectorTerms[0].matchFields[0].values: Invalid value: null: must have one element",
        ),
    ];
    for (name, req, want) in field_cases {
        let err = NodeSelectorMatcher::try_new(&selector(vec![fields(vec![req])])).expect_err(name);
        assert_eq!(err.to_string(), want, "{name}");
    }
}

/// `TestNodeSelectorRequirementsAsSelector`.
#[test]
fn node_selector_requirements_as_selector() {
    let root = FieldPath::new("root");
    let cases = [
        (
            "in with two values",
            vec![r("foo", "In", &["bar", "baz"])],
            "foo in (bar,baz)",
        ),
        ("gt", vec![r("foo", "Gt", &["1"])], "foo>1"),
        ("lt", vec![r("bar", "Lt", &["7"])], "bar<7"),
    ];
    for (name, reqs, want) in cases {
        let sel =
            requirements_as_selector(&reqs, &root).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(sel.to_string(), want, "{name}");
        assert_eq!(
            sel,
            want.parse::<LabelSelector>().unwrap(),
            "{name}: same as parsed"
        );
    }
    let errs = requirements_as_selector(&[r("foo", "Exists", &["bar", "baz"])], &root)
        .expect_err("exists with values");
    assert_eq!(errs.len(), 1, "exists with values: one error");
    assert_eq!(errs[0].field, "root[0].values", "exists with values: path");
    assert_eq!(
        errs[0].detail,
        crate::labels::ERR_EXISTS_WITH_VALUES,
        "exists with values: detail"
    );
}

/// `TestPreferredSchedulingTermsScore`.
#[test]
fn preferred_scheduling_terms_score() {
    let pref =
        |weight: i32, preference: NodeSelectorTerm| PreferredSchedulingTerm { preference, weight };
    let invalid = vec![
        pref(
            1,
            fields(vec![r("metadata.name", "In", &["host_1", "host_2"])]),
        ),
        pref(
            1,
            both(
                vec![r("label_1", "In", &["label_1_val"])],
                vec![r("metadata.name", "In", &["host_1"])],
            ),
        ),
        pref(1, exprs(vec![r("invalid key", "In", &["label_value"])])),
    ];
    let err = PreferredSchedulingTerms::from_terms(&invalid).expect_err("invalid terms");
    let paths: Vec<&str> = err.errors().iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        paths,
        ["[0].matchFields[0].values", "[2].matchExpressions[0].key"],
        "error paths"
    );

    let zero_weight = vec![pref(
        0,
        fields(vec![r("metadata.name", "In", &["host_1", "host_2"])]),
    )];
    let t = PreferredSchedulingTerms::from_terms(&zero_weight).expect("zero weight is skipped");
    assert_eq!(
        t.score(&node("host_1", &[])),
        0,
        "invalid field selector but no weight"
    );
    assert!(t.is_empty(), "a zero-weight term is dropped");

    let scored = vec![
        pref(5, fields(vec![r("metadata.name", "In", &["host_1"])])),
        pref(
            7,
            exprs(vec![r("unknown_label", "In", &["unknown_label_val"])]),
        ),
        pref(11, exprs(vec![r("label_1", "In", &["label_1_val"])])),
    ];
    let t = PreferredSchedulingTerms::from_terms(&scored).expect("valid terms");
    assert_eq!(
        t.score(&node("host_1", &[("label_1", "label_1_val")])),
        16,
        "first and third term match"
    );
    assert_eq!(t.score(&node("host_2", &[])), 0, "no term matches");

    let spec = PodSpec {
        affinity: Some(Affinity {
            node_affinity: Some(NodeAffinity {
                preferred_during_scheduling_ignored_during_execution: Some(scored),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let t = PreferredSchedulingTerms::from_pod_spec(&spec).expect("from a pod spec");
    assert_eq!(
        t.score(&node("host_1", &[])),
        5,
        "from a pod spec: the name term"
    );
    assert!(
        PreferredSchedulingTerms::from_pod_spec(&PodSpec::default())
            .unwrap()
            .is_empty(),
        "no affinity"
    );
}

/// `TestPodMatchesNodeSelectorAndAffinityTerms` (`GetRequiredNodeAffinity(pod).Match`), plus seeds.
#[test]
fn required_node_affinity_matches() {
    let one = |reqs: Vec<NodeSelectorRequirement>| Some(selector(vec![exprs(reqs)]));
    let foo_bar: &[(&str, &str)] = &[("foo", "bar")];
    let name_in_node1 = Some(selector(vec![fields(vec![r(
        "metadata.name",
        "In",
        &["node_1"],
    )])]));
    let cases: Vec<(&str, PodSpec, Node, bool)> = vec![
        ("no selector", spec_with(&[], None), node("", &[]), true),
        (
            "missing labels",
            spec_with(foo_bar, None),
            node("", &[]),
            false,
        ),
        (
            "same labels",
            spec_with(foo_bar, None),
            node("", foo_bar),
            true,
        ),
        (
            "node labels are superset",
            spec_with(foo_bar, None),
            node("", &[("foo", "bar"), ("baz", "blah")]),
            true,
        ),
        (
            "node labels are subset",
            spec_with(&[("foo", "bar"), ("baz", "blah")], None),
            node("", foo_bar),
            false,
        ),
        (
            "Pod with matchExpressions using In operator that matches the existing node",
            spec_with(&[], one(vec![r("foo", "In", &["bar", "value2"])])),
            node("", foo_bar),
            true,
        ),
        (
            "Pod with matchExpressions using Gt operator that matches the existing node",
            spec_with(&[], one(vec![r("kernel-version", "Gt", &["0204"])])),
            node("", &[("kernel-version", "0206")]),
            true,
        ),
        (
            "Pod with matchExpressions using NotIn operator that matches the existing node",
            spec_with(&[], one(vec![r("mem-type", "NotIn", &["DDR", "DDR2"])])),
            node("", &[("mem-type", "DDR3")]),
            true,
        ),
        (
            "Pod with matchExpressions using Exists operator that matches the existing node",
            spec_with(&[], one(vec![r("GPU", "Exists", &[])])),
            node("", &[("GPU", "NVIDIA-GRID-K1")]),
            true,
        ),
        (
            "Pod with affinity that don't match node's labels won't schedule onto the node",
            spec_with(&[], one(vec![r("foo", "In", &["value1", "value2"])])),
            node("", foo_bar),
            false,
        ),
        (
            "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
            spec_with(&[], Some(selector(vec![]))),
            node("", foo_bar),
            false,
        ),
        (
            "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
            spec_with(&[], one(vec![])),
            node("", foo_bar),
            false,
        ),
        (
            "Pod with no Affinity will schedule onto a node",
            spec_with(&[], None),
            node("", foo_bar),
            true,
        ),
        (
            "Pod with Affinity but nil NodeSelector will schedule onto a node",
            PodSpec {
                affinity: Some(Affinity {
                    node_affinity: Some(NodeAffinity::default()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            node("", foo_bar),
            true,
        ),
        (
            "Pod with multiple matchExpressions ANDed that matches the existing node",
            spec_with(
                &[],
                one(vec![
                    r("GPU", "Exists", &[]),
                    r("GPU", "NotIn", &["AMD", "INTER"]),
                ]),
            ),
            node("", &[("GPU", "NVIDIA-GRID-K1")]),
            true,
        ),
        (
            "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
            spec_with(
                &[],
                one(vec![
                    r("GPU", "Exists", &[]),
                    r("GPU", "In", &["AMD", "INTER"]),
                ]),
            ),
            node("", &[("GPU", "NVIDIA-GRID-K1")]),
            false,
        ),
        (
            "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
            spec_with(
                &[],
                Some(selector(vec![
                    exprs(vec![r("foo", "In", &["bar", "value2"])]),
                    exprs(vec![r("diffkey", "In", &["wrong", "value2"])]),
                ])),
            ),
            node("", foo_bar),
            true,
        ),
        (
            "Pod with an Affinity and a PodSpec.NodeSelector both are satisfied, will schedule onto the node",
            spec_with(foo_bar, one(vec![r("foo", "Exists", &[])])),
            node("", foo_bar),
            true,
        ),
        (
            "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied, won't schedule onto the node",
            spec_with(foo_bar, one(vec![r("foo", "Exists", &[])])),
            node("", &[("foo", "barrrrrr")]),
            false,
        ),
        (
            "Pod with an invalid value in Affinity term won't be scheduled onto the node",
            spec_with(
                &[],
                one(vec![r("foo", "NotIn", &["invalid value: ___@#$%^"])]),
            ),
            node("", foo_bar),
            false,
        ),
        (
            "Pod with matchFields using In operator that matches the existing node",
            spec_with(&[], name_in_node1.clone()),
            node("node_1", &[]),
            true,
        ),
        (
            "Pod with matchFields using In operator that does not match the existing node",
            spec_with(&[], name_in_node1.clone()),
            node("node_2", &[]),
            false,
        ),
        (
            "Pod with two terms: matchFields does not match, but matchExpressions matches",
            spec_with(
                &[],
                Some(selector(vec![
                    fields(vec![r("metadata.name", "In", &["node_1"])]),
                    exprs(vec![r("foo", "In", &["bar"])]),
                ])),
            ),
            node("node_2", foo_bar),
            true,
        ),
        (
            "Pod with one term: matchFields does not match, but matchExpressions matches",
            spec_with(
                &[],
                Some(selector(vec![both(
                    vec![r("foo", "In", &["bar"])],
                    vec![r("metadata.name", "In", &["node_1"])],
                )])),
            ),
            node("node_2", foo_bar),
            false,
        ),
        (
            "Pod with one term: both matchFields and matchExpressions match",
            spec_with(
                &[],
                Some(selector(vec![both(
                    vec![r("foo", "In", &["bar"])],
                    vec![r("metadata.name", "In", &["node_1"])],
                )])),
            ),
            node("node_1", foo_bar),
            true,
        ),
        (
            "Pod with two terms: both matchFields and matchExpressions do not match",
            spec_with(
                &[],
                Some(selector(vec![
                    fields(vec![r("metadata.name", "In", &["node_1"])]),
                    exprs(vec![r("foo", "In", &["not-match-to-bar"])]),
                ])),
            ),
            node("node_2", foo_bar),
            false,
        ),
        // Seed cases.
        (
            "a Spot pod's required affinity matches a node labelled spot",
            spec_with(
                &[],
                one(vec![r(
                    "kubernetes.azure.com/scalesetpriority",
                    "In",
                    &["spot"],
                )]),
            ),
            node(
                "aks-spot-1",
                &[("kubernetes.azure.com/scalesetpriority", "spot")],
            ),
            true,
        ),
        (
            "a Spot pod's required affinity does not match a regular node",
            spec_with(
                &[],
                one(vec![r(
                    "kubernetes.azure.com/scalesetpriority",
                    "In",
                    &["spot"],
                )]),
            ),
            node("aks-system-1", &[("kubernetes.azure.com/mode", "system")]),
            false,
        ),
        (
            "a Spot pod's required affinity does not match another priority",
            spec_with(
                &[],
                one(vec![r(
                    "kubernetes.azure.com/scalesetpriority",
                    "In",
                    &["spot"],
                )]),
            ),
            node(
                "aks-regular-1",
                &[("kubernetes.azure.com/scalesetpriority", "regular")],
            ),
            false,
        ),
        (
            "dedicated In [gpu] matches a gpu node",
            spec_with(&[], one(vec![r("dedicated", "In", &["gpu"])])),
            node("gpu-1", &[("dedicated", "gpu")]),
            true,
        ),
        (
            "dedicated In [gpu] does not match an analytics node",
            spec_with(&[], one(vec![r("dedicated", "In", &["gpu"])])),
            node("db-1", &[("dedicated", "analytics")]),
            false,
        ),
        (
            "a DaemonSet pod pinned with metadata.name In [node1] matches node1",
            spec_with(
                &[],
                Some(selector(vec![fields(vec![r(
                    "metadata.name",
                    "In",
                    &["node1"],
                )])])),
            ),
            node("node1", &[]),
            true,
        ),
        (
            "a DaemonSet pod pinned with metadata.name In [node1] does not match node2",
            spec_with(
                &[],
                Some(selector(vec![fields(vec![r(
                    "metadata.name",
                    "In",
                    &["node1"],
                )])])),
            ),
            node("node2", &[]),
            false,
        ),
        (
            "metadata.name NotIn [node1] matches node2",
            spec_with(
                &[],
                Some(selector(vec![fields(vec![r(
                    "metadata.name",
                    "NotIn",
                    &["node1"],
                )])])),
            ),
            node("node2", &[]),
            true,
        ),
        (
            "matchFields are not checked on a node without a name",
            spec_with(&[], name_in_node1.clone()),
            node("", &[]),
            true,
        ),
        (
            "Gt 5 matches a label of 6",
            spec_with(&[], one(vec![r("cores", "Gt", &["5"])])),
            node("n", &[("cores", "6")]),
            true,
        ),
        (
            "Gt 5 does not match a label of 5",
            spec_with(&[], one(vec![r("cores", "Gt", &["5"])])),
            node("n", &[("cores", "5")]),
            false,
        ),
        (
            "Lt 5 does not match a non-integer label",
            spec_with(&[], one(vec![r("cores", "Lt", &["5"])])),
            node("n", &[("cores", "four")]),
            false,
        ),
        (
            "Gt 5 does not match a node without the label",
            spec_with(&[], one(vec![r("cores", "Gt", &["5"])])),
            node("n", &[]),
            false,
        ),
        (
            "DoesNotExist matches a node without the label",
            spec_with(&[], one(vec![r("dedicated", "DoesNotExist", &[])])),
            node("n", &[]),
            true,
        ),
        (
            "NotIn matches a node without the label",
            spec_with(&[], one(vec![r("dedicated", "NotIn", &["gpu"])])),
            node("n", &[]),
            true,
        ),
    ];
    for (name, spec, n, want) in cases {
        let got = RequiredNodeAffinity::from_pod_spec(&spec)
            .matches(&n)
            .unwrap_or(false);
        assert_eq!(got, want, "{name}");
    }
}

/// What `GetRequiredNodeAffinity(pod).Match` returns beside the boolean.
#[test]
fn required_node_affinity_errors_and_emptiness() {
    let bad = spec_with(
        &[],
        Some(selector(vec![exprs(vec![r("foo", "NotIn", &["a b"])])])),
    );
    let err = RequiredNodeAffinity::from_pod_spec(&bad)
        .matches(&node("n", &[("foo", "bar")]))
        .expect_err("a term with an invalid value");
    assert_eq!(
        err.to_string(),
        format!(
            "nodeSelectorTerms[0].matchExpressions[0].values[0][foo]: Invalid value: \"a b\": {VALUE_DETAIL}"
        ),
        "the invalid term's error"
    );
    let gated = spec_with(
        &[("foo", "baz")],
        Some(selector(vec![exprs(vec![r("foo", "NotIn", &["a b"])])])),
    );
    assert_eq!(
        RequiredNodeAffinity::from_pod_spec(&gated).matches(&node("n", &[("foo", "bar")])),
        Ok(false),
        "a failing nodeSelector answers before the affinity errors"
    );
    assert!(
        RequiredNodeAffinity::from_pod_spec(&PodSpec::default()).is_empty(),
        "no constraints"
    );
    assert!(
        !RequiredNodeAffinity::from_pod_spec(&spec_with(&[("a", "b")], None)).is_empty(),
        "a nodeSelector"
    );
    assert!(
        !RequiredNodeAffinity::from_pod_spec(&spec_with(&[], Some(selector(vec![])))).is_empty(),
        "empty terms"
    );
}
