//! Upstream `TestValidateNode`'s taint cases and `validateNodeTaints`' effect rule.

use super::*;

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
