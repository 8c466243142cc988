//! Upstream's strings byte for byte: field errors, the error body, Go's quoting and JSON, taints as upstream prints them.

use super::*;

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
