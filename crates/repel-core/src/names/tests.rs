//! Unit tests of `crate::names`.

use super::*;

#[test]
fn qualified_names() {
    let long63 = "a".repeat(63);
    let long64 = "a".repeat(64);
    let prefix253 = format!("{}.com", "a".repeat(249));
    let valid = [
        "simple",
        "now-with-dashes",
        "1-starts-with-num",
        "1234",
        "simple/simple",
        "now-with-dashes/simple",
        "1-num.2-num/3-num",
        "1234/5678",
        "Uppercase_Is_OK_123",
        "example.com/Uppercase_Is_OK_123",
        "requests.storage-foo",
        long63.as_str(),
    ];
    for v in valid {
        assert!(
            is_qualified_name(v).is_empty(),
            "{v:?} should be valid: {:?}",
            is_qualified_name(v)
        );
    }
    let with_prefix = format!("{prefix253}/{long63}");
    assert!(is_qualified_name(&with_prefix).is_empty());
    let invalid = [
        "nospecialchars%^=@",
        "cantendwithadash-",
        "-cantstartwithadash-",
        "only/one/slash",
        "Example.com/abc",
        "example_com/abc",
        "example.com/",
        "/simple",
        long64.as_str(),
        "",
    ];
    for v in invalid {
        assert!(!is_qualified_name(v).is_empty(), "{v:?} should be invalid");
    }
}

/// Upstream's `RegexError` really puts two spaces before each " or " ("'MyName',  or").
#[test]
fn messages_are_upstreams() {
    assert_eq!(
        is_qualified_name(""),
        vec![
            "name part must be non-empty".to_string(),
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_string(),
        ]
    );
    assert_eq!(
        is_valid_label_value("-200"),
        vec!["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string()]
    );
    assert_eq!(
        is_valid_label_value(&"a".repeat(64)),
        vec!["must be no more than 63 characters".to_string()]
    );
    assert_eq!(
        is_qualified_name("Example.com/abc"),
        vec!["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string()]
    );
}

#[test]
fn label_values() {
    for v in [
        "",
        "simple",
        "now-with-dashes",
        "1-starts-with-num",
        "end-with-num-1",
        "1234",
        "0950",
        "a.b_c-d",
    ] {
        assert!(is_valid_label_value(v).is_empty(), "{v:?} should be valid");
    }
    for v in [
        "nospecialchars%^=@",
        "Tama-nui-te-rā.is.Māori.sun",
        "\\backslashes",
        "-starts-with-dash",
        "ends-with-dash-",
        ".starts.with.dot",
        "ends.with.dot.",
        "-200",
        "a b",
    ] {
        assert!(
            !is_valid_label_value(v).is_empty(),
            "{v:?} should be invalid"
        );
    }
}
