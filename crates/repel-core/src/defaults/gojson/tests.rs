#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use k8s_openapi::api::core::v1::Toleration;

use super::decode_tolerations;
use crate::testing::{tol, tol_secs};

#[test]
fn syntax_errors_are_gos() {
    let deep = "[".repeat(10_001);
    let cases: Vec<(&str, &str, &str)> = vec![
        ("empty input ends early", "", "unexpected end of JSON input"),
        (
            "an unclosed array ends early",
            "[1",
            "unexpected end of JSON input",
        ),
        (
            "an unclosed string ends early",
            "[\"abc",
            "unexpected end of JSON input",
        ),
        (
            "a lone minus sees the end as a space",
            "-",
            "invalid character ' ' in numeric literal",
        ),
        (
            "a bare word is not a value",
            "nope",
            "invalid character 'o' in literal null (expecting 'u')",
        ),
        (
            "a truncated literal names the expected byte",
            "[tru]",
            "invalid character ']' in literal true (expecting 'e')",
        ),
        (
            "a single quote is quoted with a backslash",
            "'a'",
            "invalid character '\\'' looking for beginning of value",
        ),
        (
            "a leading comma is not a value",
            "[,]",
            "invalid character ',' looking for beginning of value",
        ),
        (
            "a missing comma between elements",
            "[{\"key\":\"a\"} {}]",
            "invalid character '{' after array element",
        ),
        (
            "a missing colon after a key",
            "[{\"key\" \"a\"}]",
            "invalid character '\"' after object key",
        ),
        (
            "a missing comma between fields",
            "[{\"key\":\"a\" \"b\"}]",
            "invalid character '\"' after object key:value pair",
        ),
        (
            "an unquoted key",
            "[{key:\"a\"}]",
            "invalid character 'k' looking for beginning of object key string",
        ),
        (
            "a trailing comma in an object",
            "[{\"key\":\"a\",}]",
            "invalid character '}' looking for beginning of object key string",
        ),
        (
            "a dot without digits",
            "[1.]",
            "invalid character ']' after decimal point in numeric literal",
        ),
        (
            "a minus without digits",
            "[-]",
            "invalid character ']' in numeric literal",
        ),
        (
            "an exponent without digits",
            "[1e]",
            "invalid character ']' in exponent of numeric literal",
        ),
        (
            "a leading zero ends the number",
            "[01]",
            "invalid character '1' after array element",
        ),
        (
            "text after the value",
            "[] x",
            "invalid character 'x' after top-level value",
        ),
        (
            "a bad escape",
            "[\"\\q\"]",
            "invalid character 'q' in string escape code",
        ),
        (
            "a bad unicode escape",
            "[\"\\u12g4\"]",
            "invalid character 'g' in \\u hexadecimal character escape",
        ),
        (
            "a raw tab inside a string",
            "[\"a\tb\"]",
            "invalid character '\\t' in string literal",
        ),
        (
            "a control byte is quoted in hex",
            "[\u{1}]",
            "invalid character '\\x01' looking for beginning of value",
        ),
        (
            "a non-ASCII byte is quoted as a rune",
            "[é]",
            "invalid character 'Ã' looking for beginning of value",
        ),
        (
            "syntax errors win over earlier type errors",
            "[{\"key\":1}, x]",
            "invalid character 'x' looking for beginning of value",
        ),
        (
            "nesting deeper than 10000 is refused",
            &deep,
            "invalid character '[' exceeded max depth",
        ),
    ];
    for (name, input, want) in cases {
        assert_eq!(decode_tolerations(input), Err(want.to_string()), "{name}");
    }
}

#[test]
fn type_errors_are_gos() {
    let cases = [
        (
            "an object is not a list",
            "{}",
            "json: cannot unmarshal object into Go value of type []v1.Toleration",
        ),
        (
            "a string is not a list",
            "\"x\"",
            "json: cannot unmarshal string into Go value of type []v1.Toleration",
        ),
        (
            "a number is not a list",
            "12",
            "json: cannot unmarshal number into Go value of type []v1.Toleration",
        ),
        (
            "a bool is not a list",
            "true",
            "json: cannot unmarshal bool into Go value of type []v1.Toleration",
        ),
        (
            "an element must be an object",
            "[\"x\"]",
            "json: cannot unmarshal string into Go value of type v1.Toleration",
        ),
        (
            "an element array is not a toleration",
            "[[]]",
            "json: cannot unmarshal array into Go value of type v1.Toleration",
        ),
        (
            "a numeric key",
            "[{\"key\":1}]",
            "json: cannot unmarshal number into Go struct field Toleration.key of type string",
        ),
        (
            "a bool effect names the effect type",
            "[{\"effect\":true}]",
            "json: cannot unmarshal bool into Go struct field Toleration.effect of type v1.TaintEffect",
        ),
        (
            "an object operator names the operator type",
            "[{\"operator\":{}}]",
            "json: cannot unmarshal object into Go struct field Toleration.operator of type v1.TolerationOperator",
        ),
        (
            "an array value",
            "[{\"value\":[]}]",
            "json: cannot unmarshal array into Go struct field Toleration.value of type string",
        ),
        (
            "string seconds",
            "[{\"tolerationSeconds\":\"5\"}]",
            "json: cannot unmarshal string into Go struct field Toleration.tolerationSeconds of type int64",
        ),
        (
            "fractional seconds quote the number",
            "[{\"tolerationSeconds\":1.5}]",
            "json: cannot unmarshal number 1.5 into Go struct field Toleration.tolerationSeconds of type int64",
        ),
        (
            "overflowing seconds quote the number",
            "[{\"tolerationSeconds\":9223372036854775808}]",
            "json: cannot unmarshal number 9223372036854775808 into Go struct field Toleration.tolerationSeconds of type int64",
        ),
        (
            "the field is named as declared, whatever the input case",
            "[{\"TOLERATIONSECONDS\":true}]",
            "json: cannot unmarshal bool into Go struct field Toleration.tolerationSeconds of type int64",
        ),
        (
            "the first type error wins",
            "[{\"key\":1,\"effect\":true}]",
            "json: cannot unmarshal number into Go struct field Toleration.key of type string",
        ),
    ];
    for (name, input, want) in cases {
        assert_eq!(decode_tolerations(input), Err(want.to_string()), "{name}");
    }
}

#[test]
fn valid_inputs_decode_as_go_does() {
    let cases: Vec<(&str, &str, Vec<Toleration>)> = vec![
        ("null is an empty list", " null ", vec![]),
        ("an empty list", "[]", vec![]),
        (
            "a full toleration",
            r#"[{"key":"k","operator":"Equal","value":"v","effect":"NoExecute","tolerationSeconds":30}]"#,
            vec![tol_secs("k", "Equal", "v", "NoExecute", 30)],
        ),
        (
            "a null element is an empty toleration",
            "[null]",
            vec![Toleration::default()],
        ),
        (
            "null leaves a string field as it was",
            r#"[{"key":"a","key":null}]"#,
            vec![tol("a", "", "", "")],
        ),
        (
            "the later duplicate key wins",
            r#"[{"key":"a","key":"b"}]"#,
            vec![tol("b", "", "", "")],
        ),
        (
            "null seconds are unset",
            r#"[{"key":"a","tolerationSeconds":5,"tolerationSeconds":null}]"#,
            vec![tol("a", "", "", "")],
        ),
        (
            "an empty string is kept as set",
            r#"[{"value":""}]"#,
            vec![Toleration {
                value: Some(String::new()),
                ..Default::default()
            }],
        ),
        (
            "escapes and surrogate pairs decode",
            r#"[{"key":"\u00e9\ud83d\ude00\n"}]"#,
            vec![tol("é😀\n", "", "", "")],
        ),
        (
            "a lone surrogate becomes the replacement character",
            r#"[{"key":"\ud83dx"}]"#,
            vec![tol("\u{fffd}x", "", "", "")],
        ),
        (
            "the Kelvin sign folds to k",
            "[{\"\u{212a}ey\":\"a\"}]",
            vec![tol("a", "", "", "")],
        ),
        (
            "negative zero seconds are zero",
            r#"[{"tolerationSeconds":-0}]"#,
            vec![Toleration {
                toleration_seconds: Some(0),
                ..Default::default()
            }],
        ),
    ];
    for (name, input, want) in cases {
        assert_eq!(decode_tolerations(input), Ok(want), "{name}");
    }
}
