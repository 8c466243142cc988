//! Upstream `TestSetSelectorParser`, and parse errors with upstream's messages.

use super::*;

/// `TestSetSelectorParser`.
#[test]
fn set_selector_parser() {
    use Operator::*;
    let ok = |name: &str, input: &str, want: Vec<Requirement>| {
        let got = parse(input).unwrap_or_else(|e| panic!("{name}: {input:?}: {e}"));
        assert_eq!(got.requirements(), want.as_slice(), "{name}");
    };
    ok("empty", "", vec![]);
    ok(
        "a leading carriage return",
        "\rx",
        vec![req("x", Exists, &[])],
    );
    ok(
        "a prefixed key",
        "this-is-a-dns.domain.com/key-with-dash",
        vec![req("this-is-a-dns.domain.com/key-with-dash", Exists, &[])],
    );
    ok(
        "a prefixed key with in",
        "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        vec![req(
            "this-is-another-dns.domain.com/key-with-dash",
            In,
            &["so", "what"],
        )],
    );
    ok(
        "a numeric prefix and dotted values",
        "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
        vec![req(
            "0.1.2.domain/99",
            NotIn,
            &["10.10.100.1", "tick.tack.clock"],
        )],
    );
    ok(
        "spaces and a tab around in",
        "foo  in\t (abc)",
        vec![req("foo", In, &["abc"])],
    );
    ok(
        "a newline after notin",
        "x notin\n (abc)",
        vec![req("x", NotIn, &["abc"])],
    );
    ok(
        "tabs after notin",
        "x  notin\t\t\t(abc,def)",
        vec![req("x", NotIn, &["abc", "def"])],
    );
    ok(
        "in with two values",
        "x in (abc,def)",
        vec![req("x", In, &["abc", "def"])],
    );
    ok(
        "a trailing comma adds the empty value",
        "x in (abc,)",
        vec![req("x", In, &["", "abc"])],
    );
    ok(
        "empty parentheses mean the empty value",
        "x in ()",
        vec![req("x", In, &[""])],
    );
    ok(
        "several requirements sorted by key",
        "x notin (abc,,def),bar,z in (),w",
        vec![
            req("bar", Exists, &[]),
            req("w", Exists, &[]),
            req("x", NotIn, &["", "abc", "def"]),
            req("z", In, &[""]),
        ],
    );
    ok(
        "exists then in",
        "x,y in (a)",
        vec![req("x", Exists, &[]), req("y", In, &["a"])],
    );
    ok("equals", "x=a", vec![req("x", Equals, &["a"])]);
    ok("greater-than", "x>1", vec![req("x", GreaterThan, &["1"])]);
    ok("less-than", "x<7", vec![req("x", LessThan, &["7"])]);
    ok(
        "equals and not-equals",
        "x=a,y!=b",
        vec![req("x", Equals, &["a"]), req("y", NotEquals, &["b"])],
    );
    ok(
        "equals, not-equals and in",
        "x=a,y!=b,z in (h,i,j)",
        vec![
            req("x", Equals, &["a"]),
            req("y", NotEquals, &["b"]),
            req("z", In, &["h", "i", "j"]),
        ],
    );
    ok(
        "a space inside empty parentheses",
        "x notin ( )",
        vec![req("x", NotIn, &[""])],
    );
    ok(
        "a leading comma adds the empty value",
        "x notin (, a)",
        vec![req("x", NotIn, &["", "a"])],
    );
    ok("a trailing space", "a ", vec![req("a", Exists, &[])]);
    ok(
        "in and notin as values",
        "a in (x,y,notin, z,in)",
        vec![req("a", In, &["in", "notin", "x", "y", "z"])],
    );
    ok(
        "duplicate values collapse",
        "a in (b,b,a)",
        vec![req("a", In, &["a", "b"])],
    );
    for (name, input) in [
        ("a double pipe", "x=a||y=b"),
        ("a double comma", "x,,y"),
        ("a leading comma", ",x,y"),
        ("a misspelt operator", "x nott in (y)"),
        ("a trailing comma", "a in (xyz),"),
        (
            "a missing comma between requirements",
            "a in (xyz)b notin ()",
        ),
        ("a missing comma between values", "a in (xyz abc)"),
        ("an unclosed parenthesis", "a notin("),
        ("a parenthesis after a key", "a ("),
        ("a lone parenthesis", "("),
    ] {
        assert!(parse(input).is_err(), "{name}: {input:?} should fail");
    }
}

/// Upstream's messages, byte for byte (`fmt.Errorf` texts in `selector.go`, `field.Error`).
#[test]
fn parse_errors_use_upstream_messages() {
    let key_detail = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let value_detail = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    let cases = [
        (
            "a double pipe is validated as part of the value",
            "x=a||y=b",
            format!("unable to parse requirement: values[0][x]: Invalid value: \"a||y\": {value_detail}"),
        ),
        ("a value followed by '='", "x=a=b", "found '=', expected: ',' or 'end of string'".to_string()),
        ("a second '=='", "x==a==b", "found '==', expected: ',' or 'end of string'".to_string()),
        ("does-not-exist with a value", "!x=a", "found '=', expected: ',' or 'end of string'".to_string()),
        (
            "less-than a word",
            "x<a",
            format!("unable to parse requirement: values[0]: Invalid value: \"a\": {ERR_GT_LT_INTEGER}"),
        ),
        (
            "greater-than nothing",
            "x>",
            format!("unable to parse requirement: values[0]: Invalid value: \"\": {ERR_GT_LT_INTEGER}"),
        ),
        ("a double comma", "x,,y", "found ',', expected: identifier after ','".to_string()),
        ("a leading comma", ",x", "found ',', expected: !, identifier, or 'end of string'".to_string()),
        ("a trailing comma", "a in (xyz),", "found '', expected: identifier after ','".to_string()),
        (
            "a misspelt operator",
            "x nott in (y)",
            format!("unable to parse requirement: found 'nott', expected: {BINARY_OPERATORS_LIST}"),
        ),
        (
            "a missing comma between values",
            "a in (xyz abc)",
            "unable to parse requirement: found 'abc', expected: ',' or ')'".to_string(),
        ),
        (
            "a missing opening parenthesis",
            "a in b",
            "unable to parse requirement: found 'b' expected: '('".to_string(),
        ),
        (
            "an unclosed parenthesis",
            "a notin(",
            "unable to parse requirement: found '', expected: ',', ')' or identifier".to_string(),
        ),
        ("a parenthesis after a key", "a (", format!("unable to parse requirement: found '(', expected: {BINARY_OPERATORS_LIST}")),
        ("a lone parenthesis", "(", "found '(', expected: !, identifier, or 'end of string'".to_string()),
        (
            "an operator where a value belongs",
            "a in (b,=)",
            "unable to parse requirement: found '=', expected: ',', or identifier".to_string(),
        ),
        ("does-not-exist twice", "!!a", "unable to parse requirement: found '!', expected: identifier".to_string()),
        ("an exact value that is an operator", "a=(", "unable to parse requirement: found '(', expected: identifier".to_string()),
        (
            "an invalid key, reported on a nil path",
            "-a",
            format!("unable to parse requirement: <nil>: Invalid value: \"-a\": {key_detail}"),
        ),
        (
            "an invalid value, reported on values[0][key]",
            "a=b@c",
            format!("unable to parse requirement: values[0][a]: Invalid value: \"b@c\": {value_detail}"),
        ),
        (
            "two errors on one value are bracketed",
            "x>a@",
            format!(
                "unable to parse requirement: [values[0]: Invalid value: \"a@\": {ERR_GT_LT_INTEGER}, values[0][x]: Invalid value: \"a@\": {value_detail}]"
            ),
        ),
        (
            "a key with two slashes",
            "a/b/c",
            "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".to_string(),
        ),
    ];
    for (name, input, want) in cases {
        let err = parse(input).expect_err(name);
        assert_eq!(err.to_string(), want, "{name}: {input:?}");
    }
}
