//! Table tests for `validation`, ported from upstream's `validation_test.go` cases.
// Tests may unwrap (project rule); the workspace lint is for library code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::testing::{node_with_taints, pod_with_tolerations, taint, tol, tol_secs};
use k8s_openapi::jiff::Timestamp;

const GATE_ON: ValidationOptions = ValidationOptions {
    allow_comparison_operators: true,
};
const GATE_OFF: ValidationOptions = ValidationOptions {
    allow_comparison_operators: false,
};

fn strings(errs: &[FieldError]) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}

/// Upstream's regex messages, as `names` builds them (asserted byte for byte in `names`).
const NAME_REGEX_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_REGEX_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

#[test]
fn upstream_strings_are_byte_exact() {
    assert_eq!(
        MSG_EMPTY_KEY_NEEDS_EXISTS,
        "operator must be Exists when `key` is empty, which means \"match all values and all keys\""
    );
    assert_eq!(
        MSG_SECONDS_NEED_NO_EXECUTE,
        "effect must be 'NoExecute' when `tolerationSeconds` is set"
    );
    assert_eq!(
        MSG_EXISTS_WITH_VALUE,
        "value must be empty when `operator` is 'Exists'"
    );
    assert_eq!(
        MSG_DUPLICATE_TAINT,
        "taints must be unique by key and effect pair"
    );
    assert_eq!(
        MSG_TOLERATION_MODIFIED,
        "existing toleration can not be modified except its tolerationSeconds"
    );
    let names: Vec<(&str, &str)> = [
        ErrorType::NotFound,
        ErrorType::Required,
        ErrorType::Duplicate,
        ErrorType::Invalid,
        ErrorType::NotSupported,
        ErrorType::Forbidden,
        ErrorType::TooLong,
        ErrorType::TooMany,
        ErrorType::Internal,
    ]
    .iter()
    .map(|t| (t.as_str(), t.reason()))
    .collect();
    assert_eq!(
        names,
        vec![
            ("Not found", "FieldValueNotFound"),
            ("Required value", "FieldValueRequired"),
            ("Duplicate value", "FieldValueDuplicate"),
            ("Invalid value", "FieldValueInvalid"),
            ("Unsupported value", "FieldValueNotSupported"),
            ("Forbidden", "FieldValueForbidden"),
            ("Too long", "FieldValueTooLong"),
            ("Too many", "FieldValueTooMany"),
            ("Internal error", "InternalError"),
        ]
    );
}

/// Upstream `field.Error.ErrorBody()` / `Error()` rendering rules.
#[test]
fn error_body_renders_as_go_does() {
    let cases: Vec<(&str, FieldError, &str)> = vec![
        (
            "a string value is %q-quoted, then the detail",
            FieldError::invalid("spec.x", BadValue::Str("a\"b".into()), "bad"),
            "spec.x: Invalid value: \"a\\\"b\": bad",
        ),
        (
            "an integer value prints plainly",
            FieldError::invalid("spec.n", BadValue::Int(-3), "must be positive"),
            "spec.n: Invalid value: -3: must be positive",
        ),
        (
            "Required omits the value and an empty detail",
            FieldError::required("metadata.taints[0].effect", ""),
            "metadata.taints[0].effect: Required value",
        ),
        (
            "Forbidden omits the value",
            FieldError::forbidden("spec.tolerations", "no"),
            "spec.tolerations: Forbidden: no",
        ),
        (
            "Unsupported lists the supported values %q-quoted",
            FieldError::not_supported("spec.e", "x", &["A", "B"]),
            "spec.e: Unsupported value: \"x\": supported values: \"A\", \"B\"",
        ),
        (
            "Unsupported with no list has no detail",
            FieldError::not_supported("spec.e", "x", &[]),
            "spec.e: Unsupported value: \"x\"",
        ),
        (
            "an omitted value prints only the type",
            FieldError {
                field: "f".into(),
                error_type: ErrorType::TooMany,
                bad_value: BadValue::Omitted,
                detail: "has too many items".into(),
            },
            "f: Too many: has too many items",
        ),
        (
            "Too long never prints its value",
            FieldError {
                field: "f".into(),
                error_type: ErrorType::TooLong,
                bad_value: BadValue::Str("xxxx".into()),
                detail: "may not be more than 3 bytes".into(),
            },
            "f: Too long: may not be more than 3 bytes",
        ),
        (
            "a Go-syntax value prints as given",
            FieldError::duplicate("f[1]", BadValue::GoSyntax("core.T{}".into())),
            "f[1]: Duplicate value: core.T{}",
        ),
        (
            "a JSON value prints as given",
            FieldError::duplicate("f[1]", BadValue::Json("{\"A\":1}".into())),
            "f[1]: Duplicate value: {\"A\":1}",
        ),
    ];
    for (name, err, want) in cases {
        assert_eq!(err.to_string(), want, "{name}");
        let body = want.split_once(": ").map(|(_, b)| b).unwrap_or_default();
        assert_eq!(err.error_body(), body, "{name}: error_body");
    }
}

#[test]
fn go_quote_matches_strconv_quote() {
    let cases: &[(&str, &str, &str)] = &[
        ("an empty string", "", "\"\""),
        ("plain ASCII stays", "value1", "\"value1\""),
        ("a double quote is backslashed", "a\"b", "\"a\\\"b\""),
        ("a backslash is doubled", "some\\bad", "\"some\\\\bad\""),
        (
            "newline and tab use short escapes",
            "a\nb\tc",
            "\"a\\nb\\tc\"",
        ),
        (
            "bell, backspace, form feed, CR, VT",
            "\u{7}\u{8}\u{c}\r\u{b}",
            "\"\\a\\b\\f\\r\\v\"",
        ),
        ("NUL is \\x00", "\0", "\"\\x00\""),
        ("ESC is \\x1b", "\u{1b}", "\"\\x1b\""),
        ("DEL is \\x7f", "\u{7f}", "\"\\x7f\""),
        ("a single quote and a space stay", "it's ok", "\"it's ok\""),
        (
            "printable non-ASCII stays literal",
            "Tama-nui-te-rā é",
            "\"Tama-nui-te-rā é\"",
        ),
        ("an emoji stays literal", "😀", "\"😀\""),
        ("a C1 control uses \\u", "\u{85}", "\"\\u0085\""),
        ("a no-break space uses \\u", "\u{a0}", "\"\\u00a0\""),
        ("a zero-width space uses \\u", "\u{200b}", "\"\\u200b\""),
        ("a line separator uses \\u", "\u{2028}", "\"\\u2028\""),
        ("a BOM uses \\u", "\u{feff}", "\"\\ufeff\""),
        ("private use uses \\u", "\u{e000}", "\"\\ue000\""),
        (
            "a supplementary private-use rune uses \\U",
            "\u{f0000}",
            "\"\\U000f0000\"",
        ),
        ("a noncharacter uses \\u", "\u{ffff}", "\"\\uffff\""),
    ];
    for (name, input, want) in cases {
        assert_eq!(go_quote(input), *want, "{name}");
    }
}

#[test]
fn go_json_string_matches_encoding_json() {
    let cases: &[(&str, &str, &str)] = &[
        ("plain text stays", "special-user-1", "\"special-user-1\""),
        (
            "quote and backslash are escaped",
            "a\"\\b",
            "\"a\\\"\\\\b\"",
        ),
        (
            "short escapes since Go 1.22",
            "\u{8}\u{c}\n\r\t",
            "\"\\b\\f\\n\\r\\t\"",
        ),
        (
            "other controls use \\u00NN",
            "\u{1}\u{1f}",
            "\"\\u0001\\u001f\"",
        ),
        (
            "HTML characters are escaped",
            "<a&b>",
            "\"\\u003ca\\u0026b\\u003e\"",
        ),
        (
            "line and paragraph separators are escaped",
            "\u{2028}\u{2029}",
            "\"\\u2028\\u2029\"",
        ),
        ("DEL and non-ASCII stay", "\u{7f}é", "\"\u{7f}é\""),
    ];
    for (name, input, want) in cases {
        assert_eq!(go_json_string(input), *want, "{name}");
    }
}

fn with_time(mut t: Taint, rfc3339: &str) -> Taint {
    t.time_added = Some(Time(rfc3339.parse::<Timestamp>().unwrap()));
    t
}

#[test]
fn taints_render_as_upstream_prints_them() {
    let cases: Vec<(&str, Taint, &str, &str)> = vec![
        (
            "a taint without timeAdded",
            taint("foo", "bar", "NoSchedule"),
            "{\"Key\":\"foo\",\"Value\":\"bar\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}",
            "core.Taint{Key:\"foo\", Value:\"bar\", Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}",
        ),
        (
            "a taint without value prints an empty value",
            taint("dedicated", "", "NoExecute"),
            "{\"Key\":\"dedicated\",\"Value\":\"\",\"Effect\":\"NoExecute\",\"TimeAdded\":null}",
            "core.Taint{Key:\"dedicated\", Value:\"\", Effect:\"NoExecute\", TimeAdded:(*v1.Time)(nil)}",
        ),
        (
            "timeAdded is RFC 3339 in UTC, whole seconds",
            with_time(taint("k", "v", "NoExecute"), "2024-03-05T06:07:08.9+02:00"),
            "{\"Key\":\"k\",\"Value\":\"v\",\"Effect\":\"NoExecute\",\"TimeAdded\":\"2024-03-05T04:07:08Z\"}",
            "core.Taint{Key:\"k\", Value:\"v\", Effect:\"NoExecute\", TimeAdded:&v1.Time{Time:time.Date(2024, time.March, 5, 4, 7, 8, 900000000, time.UTC)}}",
        ),
        (
            "Go's zero time marshals as null",
            with_time(taint("k", "", "NoExecute"), "0001-01-01T00:00:00Z"),
            "{\"Key\":\"k\",\"Value\":\"\",\"Effect\":\"NoExecute\",\"TimeAdded\":null}",
            "core.Taint{Key:\"k\", Value:\"\", Effect:\"NoExecute\", TimeAdded:&v1.Time{Time:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)}}",
        ),
        (
            "a year below 1000 is zero-padded",
            with_time(taint("k", "", "NoExecute"), "0999-12-31T23:59:59Z"),
            "{\"Key\":\"k\",\"Value\":\"\",\"Effect\":\"NoExecute\",\"TimeAdded\":\"0999-12-31T23:59:59Z\"}",
            "core.Taint{Key:\"k\", Value:\"\", Effect:\"NoExecute\", TimeAdded:&v1.Time{Time:time.Date(999, time.December, 31, 23, 59, 59, 0, time.UTC)}}",
        ),
    ];
    for (name, t, json, go) in cases {
        assert_eq!(taint_json(&t), json, "{name}: json");
        assert_eq!(taint_go_syntax(&t), go, "{name}: %#v");
    }
}

/// Valid tolerations, from upstream `TestValidatePodSpec`/`TestValidatePod` success cases.
#[test]
fn valid_tolerations_pass() {
    let cases: Vec<(&str, Toleration)> = vec![
        (
            "forgiveness with Exists and NoExecute",
            tol_secs("foo", "Exists", "", "NoExecute", 60),
        ),
        (
            "forgiveness with Equal and NoExecute",
            tol_secs("foo", "Equal", "bar", "NoExecute", 60),
        ),
        (
            "Equal with a value",
            tol("foo", "Equal", "bar", "NoSchedule"),
        ),
        (
            "Exists without a value",
            tol("foo", "Exists", "", "NoSchedule"),
        ),
        (
            "an empty key with Exists matches all taint keys",
            tol("", "Exists", "", "NoSchedule"),
        ),
        ("the wildcard toleration", tol("", "Exists", "", "")),
        (
            "an empty operator defaults to Equal",
            tol("foo", "", "bar", "NoSchedule"),
        ),
        (
            "an empty effect matches all taint effects",
            tol("foo", "Equal", "bar", ""),
        ),
        (
            "negative tolerationSeconds is fine",
            tol_secs(
                "node.kubernetes.io/not-ready",
                "Exists",
                "",
                "NoExecute",
                -2,
            ),
        ),
        (
            "zero tolerationSeconds is fine",
            tol_secs(
                "node.kubernetes.io/unreachable",
                "Exists",
                "",
                "NoExecute",
                0,
            ),
        ),
        (
            "a prefixed key with an upper-case name part",
            tol("example.com/GPU_Type", "Equal", "a100", "PreferNoSchedule"),
        ),
        (
            "a 63-character value",
            tol("foo", "Equal", &"a".repeat(63), "NoSchedule"),
        ),
    ];
    for (name, t) in cases {
        let errs = validate_tolerations(&[t], "spec.tolerations", &GATE_OFF);
        assert!(errs.is_empty(), "{name}: {:?}", strings(&errs));
    }
    let dup = vec![
        tol("foo", "Exists", "", "NoSchedule"),
        tol("foo", "Exists", "", "NoSchedule"),
    ];
    assert!(
        validate_tolerations(&dup, "spec.tolerations", &GATE_OFF).is_empty(),
        "duplicate tolerations are not checked"
    );
}

/// Invalid tolerations: upstream `TestValidatePod`/`TestValidatePodSpec` error cases and the
/// rules of `ValidateTolerations`, each with every error upstream reports, in order.
#[test]
fn invalid_tolerations_report_upstream_errors() {
    let long64 = "a".repeat(64);
    let cases: Vec<(&str, Toleration, Vec<String>)> = vec![
        (
            "Exists with a value",
            tol("foo", "Exists", "value1", "NoSchedule"),
            vec!["spec.tolerations[0].operator: Invalid value: \"value1\": value must be empty when `operator` is 'Exists'".into()],
        ),
        (
            "an empty key with Equal",
            tol("", "Equal", "bar", "NoSchedule"),
            vec!["spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"".into()],
        ),
        (
            "an empty key with an empty operator",
            tol("", "", "", "NoSchedule"),
            vec!["spec.tolerations[0].operator: Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"".into()],
        ),
        (
            "tolerationSeconds with a NoSchedule effect",
            tol_secs("node.kubernetes.io/not-ready", "Exists", "", "NoSchedule", 20),
            vec!["spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set".into()],
        ),
        (
            "tolerationSeconds with an empty effect",
            tol_secs("foo", "Exists", "", "", 20),
            vec!["spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set".into()],
        ),
        (
            "a lower-case operator is unsupported",
            tol("foo", "exists", "", "NoSchedule"),
            vec!["spec.tolerations[0].operator: Unsupported value: \"exists\": supported values: \"Equal\", \"Exists\"".into()],
        ),
        (
            "an affinity operator is unsupported",
            tol("foo", "In", "bar", "NoSchedule"),
            vec!["spec.tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"".into()],
        ),
        (
            "an unknown effect",
            tol("foo", "Equal", "bar", "NoScheduleNoAdmit"),
            vec!["spec.tolerations[0].effect: Unsupported value: \"NoScheduleNoAdmit\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".into()],
        ),
        (
            "a lower-case effect",
            tol("foo", "Exists", "", "noschedule"),
            vec!["spec.tolerations[0].effect: Unsupported value: \"noschedule\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".into()],
        ),
        (
            "an invalid key",
            tol("nospecialchars^=@", "Equal", "bar", "NoSchedule"),
            vec![format!("spec.tolerations[0].key: Invalid value: \"nospecialchars^=@\": {NAME_REGEX_MSG}")],
        ),
        (
            "a value longer than 63 characters is reported on the operator path",
            tol("foo", "Equal", &long64, "NoSchedule"),
            vec![format!("spec.tolerations[0].operator: Invalid value: \"{long64}\": must be no more than 63 characters")],
        ),
        (
            "a value with a bad character, empty operator",
            tol("foo", "", "some\\bad\\value", "NoSchedule"),
            vec![format!("spec.tolerations[0].operator: Invalid value: \"some\\\\bad\\\\value\": {LABEL_VALUE_REGEX_MSG}")],
        ),
        (
            "every problem of one toleration, in upstream's order",
            tol_secs("Bad Key", "Bogus", "v", "Nope", 5),
            vec![
                format!("spec.tolerations[0].key: Invalid value: \"Bad Key\": {NAME_REGEX_MSG}"),
                "spec.tolerations[0].effect: Invalid value: \"Nope\": effect must be 'NoExecute' when `tolerationSeconds` is set".into(),
                "spec.tolerations[0].operator: Unsupported value: \"Bogus\": supported values: \"Equal\", \"Exists\"".into(),
                "spec.tolerations[0].effect: Unsupported value: \"Nope\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".into(),
            ],
        ),
        (
            "an empty key, Equal, a bad value and tolerationSeconds without effect",
            tol_secs("", "Equal", "-x", "", 1),
            vec![
                "spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"".into(),
                "spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set".into(),
                format!("spec.tolerations[0].operator: Invalid value: \"-x\": {LABEL_VALUE_REGEX_MSG}"),
            ],
        ),
    ];
    for (name, t, want) in cases {
        let got = strings(&validate_tolerations(&[t], "spec.tolerations", &GATE_OFF));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_index_and_path_prefix_come_from_the_caller() {
    let tols = vec![
        tol("ok", "Exists", "", ""),
        tol("foo", "Exists", "value1", ""),
    ];
    assert_eq!(
        strings(&validate_tolerations(
            &tols,
            "spec.template.spec.tolerations",
            &GATE_OFF
        )),
        vec![
            "spec.template.spec.tolerations[1].operator: Invalid value: \"value1\": value must be empty when `operator` is 'Exists'"
        ]
    );
}

/// KEP-5471 `Lt`/`Gt` (v1.35): refused unless allowed; when allowed, canonical integers only.
#[test]
fn comparison_operators() {
    let sla = "servicelevel.organization.example/agreed-service-level";
    let refused = |op: &str| {
        vec![format!(
            "spec.tolerations[0].operator: Unsupported value: \"{op}\": supported values: \"Equal\", \"Exists\", \"Lt\", \"Gt\""
        )]
    };
    let bad_value = |v: &str| {
        vec![format!(
            "spec.tolerations[0].value: Invalid value: {}: must be a valid decimal integer in canonical form",
            go_quote(v)
        )]
    };
    let cases: Vec<(&str, Toleration, ValidationOptions, Vec<String>)> = vec![
        ("Gt is refused while the gate is off", tol(sla, "Gt", "900", "NoSchedule"), GATE_OFF, refused("Gt")),
        ("Lt is refused while the gate is off", tol(sla, "Lt", "900", ""), GATE_OFF, refused("Lt")),
        ("Gt with a canonical integer is accepted when on", tol(sla, "Gt", "900", "NoSchedule"), GATE_ON, vec![]),
        ("Lt with a canonical integer is accepted when on", tol(sla, "Lt", "1000", "NoExecute"), GATE_ON, vec![]),
        ("a negative Gt value is accepted", tol("temp", "Gt", "-5", "NoSchedule"), GATE_ON, vec![]),
        ("zero is accepted", tol("temp", "Lt", "0", "NoSchedule"), GATE_ON, vec![]),
        ("the int64 bounds are accepted", tol("t", "Gt", "-9223372036854775808", ""), GATE_ON, vec![]),
        ("a leading zero is refused", tol(sla, "Gt", "0550", "NoSchedule"), GATE_ON, bad_value("0550")),
        ("a plus sign is refused", tol(sla, "Gt", "+5", "NoSchedule"), GATE_ON, bad_value("+5")),
        ("a leading space is refused", tol(sla, "Lt", " 5", "NoSchedule"), GATE_ON, bad_value(" 5")),
        ("a decimal is refused", tol(sla, "Lt", "5.0", "NoSchedule"), GATE_ON, bad_value("5.0")),
        ("a word is refused", tol(sla, "Gt", "high", "NoSchedule"), GATE_ON, bad_value("high")),
        ("a bare minus is refused", tol(sla, "Gt", "-", "NoSchedule"), GATE_ON, bad_value("-")),
        ("-0 is refused", tol(sla, "Gt", "-0", "NoSchedule"), GATE_ON, bad_value("-0")),
        (
            "an empty value is refused as empty",
            tol(sla, "Gt", "", "NoSchedule"),
            GATE_ON,
            vec!["spec.tolerations[0].value: Invalid value: \"\": must be non-empty".into()],
        ),
        (
            "an empty key still needs Exists with Gt",
            tol("", "Gt", "5", ""),
            GATE_ON,
            vec!["spec.tolerations[0].operator: Invalid value: \"Gt\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"".into()],
        ),
        (
            "tolerationSeconds still needs NoExecute with Lt",
            tol_secs("t", "Lt", "5", "NoSchedule", 30),
            GATE_ON,
            vec!["spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set".into()],
        ),
        (
            "other operators keep the two-value list when on",
            tol("t", "Ge", "5", ""),
            GATE_ON,
            vec!["spec.tolerations[0].operator: Unsupported value: \"Ge\": supported values: \"Equal\", \"Exists\"".into()],
        ),
        ("lower-case gt is unknown", tol("t", "gt", "5", ""), GATE_ON,
            vec!["spec.tolerations[0].operator: Unsupported value: \"gt\": supported values: \"Equal\", \"Exists\"".into()]),
    ];
    for (name, t, opts, want) in cases {
        let got = strings(&validate_tolerations(&[t], "spec.tolerations", &opts));
        assert_eq!(got, want, "{name}");
    }
}

/// Upstream `allowTaintTolerationComparisonOperators` (`pkg/api/pod/util.go`, v1.35).
#[test]
fn validation_options_follow_the_gate_and_ratchet_on_update() {
    let on = FeatureGates::with_comparison_operators();
    let off = FeatureGates::default();
    let old_gt = vec![tol("t", "Gt", "5", "")];
    let old_plain = vec![tol("t", "Exists", "", "")];
    let cases: Vec<(&str, ValidationOptions, bool)> = vec![
        (
            "create with the gate on",
            ValidationOptions::from_gates(&on),
            true,
        ),
        (
            "create with the gate off",
            ValidationOptions::from_gates(&off),
            false,
        ),
        (
            "update, gate off, old pod used Gt",
            ValidationOptions::for_update(&off, &old_gt),
            true,
        ),
        (
            "update, gate off, old pod did not",
            ValidationOptions::for_update(&off, &old_plain),
            false,
        ),
        (
            "update, gate on",
            ValidationOptions::for_update(&on, &[]),
            true,
        ),
        (
            "the default allows nothing new",
            ValidationOptions::default(),
            false,
        ),
    ];
    for (name, opts, want) in cases {
        assert_eq!(opts.allow_comparison_operators, want, "{name}");
    }
}

#[test]
fn pod_spec_tolerations_use_the_spec_path() {
    let pod = pod_with_tolerations("p", vec![tol("foo", "Exists", "value1", "NoSchedule")]);
    let spec = pod.spec.unwrap();
    assert_eq!(
        strings(&validate_pod_spec_tolerations(&spec, "spec", &GATE_OFF)),
        vec![
            "spec.tolerations[0].operator: Invalid value: \"value1\": value must be empty when `operator` is 'Exists'"
        ]
    );
    assert_eq!(
        strings(&validate_pod_spec_tolerations(
            &spec,
            "spec.template.spec",
            &GATE_OFF
        ))[0]
            .split(':')
            .next()
            .unwrap(),
        "spec.template.spec.tolerations[0].operator"
    );
    let bare = pod_with_tolerations("p", vec![]).spec.unwrap();
    assert!(validate_pod_spec_tolerations(&bare, "spec", &GATE_OFF).is_empty());
}

/// Upstream `TestValidatePodUpdate` toleration cases (`validateOnlyAddedTolerations`).
#[test]
fn pod_update_may_only_add_tolerations() {
    let forbidden = "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds";
    let t1 = tol_secs("key1", "Equal", "value1", "NoExecute", 10);
    type UpdateCase<'a> = (&'a str, Vec<Toleration>, Vec<Toleration>, Vec<&'a str>);
    let cases: Vec<UpdateCase> = vec![
        ("no change", vec![t1.clone()], vec![t1.clone()], vec![]),
        (
            "adding a toleration",
            vec![t1.clone()],
            vec![t1.clone(), tol("key2", "Equal", "value2", "NoSchedule")],
            vec![],
        ),
        (
            "adding to none",
            vec![],
            vec![tol("key2", "Exists", "", "")],
            vec![],
        ),
        (
            "changing only tolerationSeconds",
            vec![t1.clone()],
            vec![tol_secs("key1", "Equal", "value1", "NoExecute", 20)],
            vec![],
        ),
        (
            "removing tolerationSeconds",
            vec![t1.clone()],
            vec![tol("key1", "Equal", "value1", "NoExecute")],
            vec![],
        ),
        (
            "reordering",
            vec![t1.clone(), tol("key2", "Exists", "", "")],
            vec![tol("key2", "Exists", "", ""), t1.clone()],
            vec![],
        ),
        (
            "changing the effect",
            vec![tol("key1", "Equal", "value1", "NoSchedule")],
            vec![tol("key1", "Equal", "value1", "NoExecute")],
            vec![forbidden],
        ),
        (
            "changing the value",
            vec![t1.clone()],
            vec![tol_secs("key1", "Equal", "value2", "NoExecute", 10)],
            vec![forbidden],
        ),
        (
            "an empty operator is not the same as Equal",
            vec![tol("key1", "", "value1", "NoSchedule")],
            vec![tol("key1", "Equal", "value1", "NoSchedule")],
            vec![forbidden],
        ),
        (
            "removing a toleration",
            vec![t1.clone()],
            vec![],
            vec![forbidden],
        ),
        (
            "removing two tolerations reports once",
            vec![t1.clone(), tol("key2", "Exists", "", "")],
            vec![],
            vec![forbidden],
        ),
    ];
    for (name, old, new, want) in cases {
        let got = strings(&validate_pod_toleration_update(
            &old,
            &new,
            "spec.tolerations",
        ));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn only_added_tolerations_then_validates_the_new_list() {
    let old = vec![tol("key1", "Exists", "", "")];
    let new = vec![
        tol("key1", "Exists", "", ""),
        tol("key2", "Exists", "v", ""),
    ];
    assert_eq!(
        strings(&validate_only_added_tolerations(
            &old,
            &new,
            "spec.tolerations",
            &GATE_OFF
        )),
        vec![
            "spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
        ],
        "an added toleration is validated"
    );
    assert_eq!(
        strings(&validate_only_added_tolerations(
            &old,
            &[tol("key2", "Exists", "v", "")],
            "spec.tolerations",
            &GATE_OFF
        )),
        vec![
            "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
        ],
        "a removal is reported alone"
    );
    let old_gt = vec![tol("t", "Gt", "5", "")];
    let opts = ValidationOptions::for_update(&FeatureGates::default(), &old_gt);
    assert!(
        validate_only_added_tolerations(&old_gt, &old_gt, "spec.tolerations", &opts).is_empty(),
        "a pod that already uses Gt stays updatable with the gate off"
    );
}

/// Upstream `TestValidateNode` / `TestValidateNodeUpdate` taint cases and `validateNodeTaints`.
#[test]
fn node_taints() {
    let dup = |i: usize, t: &str| {
        format!(
            "metadata.taints[{i}]: Duplicate value: {t}: taints must be unique by key and effect pair"
        )
    };
    let cases: Vec<(&str, Vec<Taint>, Vec<String>)> = vec![
        ("a valid taint", vec![taint("GPU", "true", "NoSchedule")], vec![]),
        ("a taint without value", vec![taint("dedicated", "", "NoExecute")], vec![]),
        (
            "a prefixed key and every effect",
            vec![
                taint("example.com/pool", "a", "NoSchedule"),
                taint("example.com/pool", "a", "PreferNoSchedule"),
                taint("example.com/pool", "a", "NoExecute"),
            ],
            vec![],
        ),
        (
            "the same key with different effects is fine",
            vec![
                taint("dedicated", "special-user-1", "NoSchedule"),
                taint("dedicated", "special-user-1", "NoExecute"),
            ],
            vec![],
        ),
        ("a numeric value", vec![taint("sla", "950", "NoSchedule")], vec![]),
        ("a leading zero is a valid label value", vec![taint("sla", "0950", "NoSchedule")], vec![]),
        (
            "a missing key",
            vec![taint("", "special-user-3", "NoSchedule")],
            vec![
                "metadata.taints[0].key: Invalid value: \"\": name part must be non-empty".into(),
                format!("metadata.taints[0].key: Invalid value: \"\": {NAME_REGEX_MSG}"),
            ],
        ),
        (
            "a bad key",
            vec![taint("NoUppercaseOrSpecialCharsLike=Equals", "special-user-1", "NoSchedule")],
            vec![format!(
                "metadata.taints[0].key: Invalid value: \"NoUppercaseOrSpecialCharsLike=Equals\": {NAME_REGEX_MSG}"
            )],
        ),
        (
            "a bad value",
            vec![taint("dedicated", "some\\bad\\value", "NoSchedule")],
            vec![format!(
                "metadata.taints[0].value: Invalid value: \"some\\\\bad\\\\value\": {LABEL_VALUE_REGEX_MSG}"
            )],
        ),
        (
            "a negative number is not a valid taint value",
            vec![taint("sla", "-200", "NoSchedule")],
            vec![format!("metadata.taints[0].value: Invalid value: \"-200\": {LABEL_VALUE_REGEX_MSG}")],
        ),
        (
            "a value both too long and badly shaped: messages joined by ';'",
            vec![taint("k", &format!("-{}", "a".repeat(63)), "NoSchedule")],
            vec![format!(
                "metadata.taints[0].value: Invalid value: \"-{}\": must be no more than 63 characters;{LABEL_VALUE_REGEX_MSG}",
                "a".repeat(63)
            )],
        ),
        (
            "a missing effect is required",
            vec![taint("dedicated", "special-user-3", "")],
            vec!["metadata.taints[0].effect: Required value".into()],
        ),
        (
            "an unknown effect",
            vec![taint("dedicated", "special-user-3", "NoScheduleNoAdmit")],
            vec!["metadata.taints[0].effect: Unsupported value: \"NoScheduleNoAdmit\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".into()],
        ),
        (
            "a duplicate key and effect",
            vec![
                taint("dedicated", "special-user-1", "NoSchedule"),
                taint("dedicated", "special-user-2", "NoSchedule"),
            ],
            vec![dup(
                1,
                "{\"Key\":\"dedicated\",\"Value\":\"special-user-2\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}",
            )],
        ),
        (
            "every repeat is reported, not only the second",
            vec![
                taint("a", "", "NoSchedule"),
                taint("a", "", "NoSchedule"),
                taint("b", "", "NoSchedule"),
                taint("a", "x", "NoSchedule"),
            ],
            vec![
                dup(1, "{\"Key\":\"a\",\"Value\":\"\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}"),
                dup(3, "{\"Key\":\"a\",\"Value\":\"x\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}"),
            ],
        ),
        (
            "a duplicate with timeAdded prints the time",
            vec![
                taint("node.kubernetes.io/unreachable", "", "NoExecute"),
                with_time(taint("node.kubernetes.io/unreachable", "", "NoExecute"), "2024-01-01T00:00:00Z"),
            ],
            vec![dup(
                1,
                "{\"Key\":\"node.kubernetes.io/unreachable\",\"Value\":\"\",\"Effect\":\"NoExecute\",\"TimeAdded\":\"2024-01-01T00:00:00Z\"}",
            )],
        ),
        (
            "two taints without effect and one key: Required twice, then the duplicate",
            vec![taint("k", "", ""), taint("k", "", "")],
            vec![
                "metadata.taints[0].effect: Required value".into(),
                "metadata.taints[1].effect: Required value".into(),
                dup(1, "{\"Key\":\"k\",\"Value\":\"\",\"Effect\":\"\",\"TimeAdded\":null}"),
            ],
        ),
        (
            "every problem of one taint, in upstream's order",
            vec![taint("", "-v", "")],
            vec![
                "metadata.taints[0].key: Invalid value: \"\": name part must be non-empty".into(),
                format!("metadata.taints[0].key: Invalid value: \"\": {NAME_REGEX_MSG}"),
                format!("metadata.taints[0].value: Invalid value: \"-v\": {LABEL_VALUE_REGEX_MSG}"),
                "metadata.taints[0].effect: Required value".into(),
            ],
        ),
    ];
    for (name, taints, want) in cases {
        let got = strings(&validate_node_taints(&taints, "metadata.taints"));
        assert_eq!(got, want, "{name}");
        let node = node_with_taints("n", taints);
        assert_eq!(
            strings(&validate_node(&node)),
            want,
            "{name}: validate_node"
        );
    }
    assert!(validate_node(&node_with_taints("n", vec![])).is_empty());
}

#[test]
fn validate_taint_effect_follows_allow_empty() {
    assert_eq!(
        strings(&validate_taint_effect("", false, "e")),
        vec!["e: Required value"]
    );
    assert_eq!(
        strings(&validate_taint_effect("", true, "e")),
        vec![
            "e: Unsupported value: \"\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""
        ],
        "upstream only skips empty effects in its callers"
    );
    assert!(validate_taint_effect("NoExecute", false, "e").is_empty());
}
