//! Upstream `TestValidateTolerations`: valid and invalid tolerations, the caller's path, comparison operators and the gate's options.

use super::*;

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
