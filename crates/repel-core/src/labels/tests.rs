#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap (CONVENTIONS)
//! Ported from upstream `labels/selector_test.go` and `meta/v1/helpers_test.go`, plus parse
//! error messages pinned byte for byte.

use super::field::{go_json_list, go_json_string};
use super::parse::{Lexer, Parser, Token};
use super::*;

fn set(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn req(key: &str, op: Operator, vals: &[&str]) -> Requirement {
    let vals: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
    Requirement::new(key, op, &vals).unwrap()
}

fn parse(s: &str) -> Result<LabelSelector, LabelSelectorError> {
    s.parse::<LabelSelector>()
}

/// `TestSelectorParse`: good strings parse and print back without spaces; bad ones fail.
#[test]
fn selector_parse_round_trips_and_rejects() {
    let good = [
        ("several equalities", "x=a,y=b,z=c"),
        ("the empty selector", ""),
        ("not-equals then equals", "x!=a,y=b"),
        ("an empty exact value", "x="),
        ("an empty exact value with trailing space", "x= "),
        ("two empty exact values", "x=,z= "),
        ("two empty exact values with spaces", "x= ,z= "),
        ("does-not-exist", "!x"),
        ("greater-than", "x>1"),
        ("greater-than and less-than", "x>1,z<5"),
    ];
    for (name, input) in good {
        let sel = parse(input).unwrap_or_else(|e| panic!("{name}: {input:?} failed: {e}"));
        assert_eq!(sel.to_string(), input.replace(' ', ""), "{name}");
    }
    let bad = [
        (
            "a double pipe is part of a value, then '=' is unexpected",
            "x=a||y=b",
        ),
        ("a second '==' after a value", "x==a==b"),
        ("does-not-exist takes no value", "!x=a"),
        ("less-than needs an integer", "x<a"),
    ];
    for (name, input) in bad {
        assert!(parse(input).is_err(), "{name}: {input:?} should fail");
    }
}

/// `TestDeterministicParse`.
#[test]
fn requirement_order_does_not_change_the_printed_selector() {
    assert_eq!(
        parse("x=a,a=x").unwrap().to_string(),
        parse("a=x,x=a").unwrap().to_string()
    );
}

/// A case name, a selector, a label set, and whether the selector matches it.
type MatchCase<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], bool);

/// `TestSelectorMatches`.
#[test]
fn selector_matches_label_sets() {
    let foo_baz = [("foo", "bar"), ("baz", "blah")];
    let cases: &[MatchCase] = &[
        ("empty selector matches anything", "", &[("x", "y")], true),
        (
            "equality matches the same value",
            "x=y",
            &[("x", "y")],
            true,
        ),
        (
            "two equalities match both labels",
            "x=y,z=w",
            &[("x", "y"), ("z", "w")],
            true,
        ),
        (
            "two inequalities match other values",
            "x!=y,z!=w",
            &[("x", "z"), ("z", "a")],
            true,
        ),
        (
            "in and notin are names in exact matches",
            "notin=in",
            &[("notin", "in")],
            true,
        ),
        ("exists matches a present key", "x", &[("x", "z")], true),
        (
            "does-not-exist matches an absent key",
            "!x",
            &[("y", "z")],
            true,
        ),
        (
            "greater-than matches a bigger integer",
            "x>1",
            &[("x", "2")],
            true,
        ),
        (
            "less-than matches a smaller integer",
            "x<1",
            &[("x", "0")],
            true,
        ),
        ("equality needs the key", "x=z", &[], false),
        ("equality needs the same value", "x=y", &[("x", "z")], false),
        (
            "both equalities must hold",
            "x=y,z=w",
            &[("x", "w"), ("z", "w")],
            false,
        ),
        (
            "both inequalities must hold",
            "x!=y,z!=w",
            &[("x", "z"), ("z", "w")],
            false,
        ),
        ("exists fails on an absent key", "x", &[("y", "z")], false),
        (
            "does-not-exist fails on a present key",
            "!x",
            &[("x", "z")],
            false,
        ),
        (
            "greater-than fails on a smaller integer",
            "x>1",
            &[("x", "0")],
            false,
        ),
        (
            "less-than fails on a bigger integer",
            "x<1",
            &[("x", "2")],
            false,
        ),
        ("one label of a set", "foo=bar", &foo_baz, true),
        ("the other label of a set", "baz=blah", &foo_baz, true),
        ("both labels of a set", "foo=bar,baz=blah", &foo_baz, true),
        ("a wrong value in a set", "foo=blah", &foo_baz, false),
        ("a value of another key", "baz=bar", &foo_baz, false),
        (
            "a missing key among present ones",
            "foo=bar,foobar=bar,baz=blah",
            &foo_baz,
            false,
        ),
    ];
    for (name, sel, labels, want) in cases {
        let s = parse(sel).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.matches(&set(labels)), *want, "{name}");
    }
}

/// `TestSetMatches`, `TestEverything`, `TestNilMapIsValid`, `TestSetIsEmpty`.
#[test]
fn selectors_from_sets_and_the_special_selectors() {
    let labels = set(&[("foo", "bar"), ("baz", "blah")]);
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("an empty set matches everything", &[]),
        ("one pair of the labels", &[("foo", "bar")]),
        ("the other pair", &[("baz", "blah")]),
        ("both pairs", &[("foo", "bar"), ("baz", "blah")]),
    ];
    for (name, pairs) in cases {
        assert!(
            LabelSelector::from_set(&set(pairs)).matches(&labels),
            "{name}"
        );
    }
    assert!(
        LabelSelector::from_set(&BTreeMap::new()).is_empty(),
        "an empty set is empty"
    );
    assert!(
        LabelSelector::everything().matches(&set(&[("x", "y")])),
        "everything matches"
    );
    assert!(
        LabelSelector::everything().is_empty(),
        "everything is empty"
    );
    assert!(
        !LabelSelector::nothing().matches(&BTreeMap::new()),
        "nothing matches nothing"
    );
    assert!(!LabelSelector::nothing().is_empty(), "nothing is not empty");
    assert_eq!(
        LabelSelector::nothing().to_string(),
        "",
        "nothing prints empty"
    );
    assert_eq!(
        LabelSelector::from_set(&set(&[("b", "2"), ("a", "1")])).to_string(),
        "a=1,b=2",
        "a set prints sorted by key"
    );
}

fn lex_all(s: &str) -> Vec<(Token, String)> {
    let mut l = Lexer::new(s);
    let mut out = Vec::new();
    loop {
        let (t, lit) = l.lex();
        if t == Token::EndOfString {
            return out;
        }
        out.push((t, lit));
    }
}

/// `TestLexer`: the first token and its literal.
#[test]
fn lexer_returns_the_longest_token() {
    use Token::*;
    let cases = [
        ("", EndOfString),
        (",", Comma),
        ("notin", NotIn),
        ("in", In),
        ("=", Equals),
        ("==", DoubleEquals),
        (">", GreaterThan),
        ("<", LessThan),
        ("!", DoesNotExist),
        ("!=", NotEquals),
        ("(", OpenPar),
        (")", ClosedPar),
        ("~", Identifier),
        ("||", Identifier),
    ];
    for (input, want) in cases {
        let (tok, lit) = Lexer::new(input).lex();
        assert_eq!(tok, want, "token of {input:?}");
        assert_eq!(lit, input, "literal of {input:?}");
    }
}

/// `TestLexerSequence` and `TestParserLookahead`.
#[test]
fn lexer_sequences() {
    use Token::*;
    let cases: &[(&str, &[Token])] = &[
        (
            "key in ( value )",
            &[Identifier, In, OpenPar, Identifier, ClosedPar],
        ),
        (
            "key notin ( value )",
            &[Identifier, NotIn, OpenPar, Identifier, ClosedPar],
        ),
        (
            "key in ( value1, value2 )",
            &[
                Identifier, In, OpenPar, Identifier, Comma, Identifier, ClosedPar,
            ],
        ),
        ("key", &[Identifier]),
        ("!key", &[DoesNotExist, Identifier]),
        ("()", &[OpenPar, ClosedPar]),
        ("", &[]),
        (
            "x in (),y",
            &[Identifier, In, OpenPar, ClosedPar, Comma, Identifier],
        ),
        (
            "== != (), = notin",
            &[
                DoubleEquals,
                NotEquals,
                OpenPar,
                ClosedPar,
                Comma,
                Equals,
                NotIn,
            ],
        ),
        ("key>2", &[Identifier, GreaterThan, Identifier]),
        ("key<1", &[Identifier, LessThan, Identifier]),
        ("a=>b", &[Identifier, Equals, GreaterThan, Identifier]),
        (
            "a!!b",
            &[Identifier, DoesNotExist, DoesNotExist, Identifier],
        ),
    ];
    for (input, want) in cases {
        let got: Vec<Token> = lex_all(input).into_iter().map(|(t, _)| t).collect();
        assert_eq!(&got, want, "tokens of {input:?}");
        let parser = Parser::new(input);
        assert_eq!(
            parser.items.len(),
            want.len() + 1,
            "scanned items of {input:?}"
        );
        assert_eq!(
            parser.items.last().map(|i| i.0),
            Some(EndOfString),
            "{input:?}"
        );
    }
}

/// Go's lexer reads byte 0 as the end of input.
#[test]
fn a_nul_byte_ends_the_selector_where_go_stops() {
    assert_eq!(
        parse("a \0b").unwrap().to_string(),
        "a",
        "a NUL between tokens ends input"
    );
    assert_eq!(
        lex_all("a\0b")
            .into_iter()
            .map(|(_, l)| l)
            .collect::<Vec<_>>(),
        ["a", "b"],
        "a NUL inside an identifier splits it"
    );
}

/// `TestRequirementConstructor`.
#[test]
fn requirement_constructor_validates() {
    use Operator::*;
    let long_key = "a".repeat(254);
    let cases: &[(&str, &str, Operator, &[&str], bool)] = &[
        ("in without values", "x", In, &[], false),
        ("notin without values", "x", NotIn, &[], false),
        ("in with a value", "x", In, &["foo"], true),
        ("notin with a value", "x", NotIn, &["foo"], true),
        ("exists", "x", Exists, &[], true),
        ("does not exist", "x", DoesNotExist, &[], true),
        ("a key starting with a digit", "1foo", In, &["bar"], true),
        ("an all-digit key", "1234", In, &["bar"], true),
        ("greater-than an integer", "y", GreaterThan, &["1"], true),
        ("less-than an integer", "z", LessThan, &["6"], true),
        ("greater-than a word", "foo", GreaterThan, &["bar"], false),
        ("less-than a word", "barz", LessThan, &["blah"], false),
        ("a 254-character key", &long_key, Exists, &[], false),
    ];
    for (name, key, op, vals, ok) in cases {
        let vals: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
        assert_eq!(Requirement::new(key, *op, &vals).is_ok(), *ok, "{name}");
    }
}

/// `TestToString`.
#[test]
fn selectors_print_as_upstream() {
    use Operator::*;
    let cases = [
        (
            "set operators and exists",
            vec![
                req("x", In, &["abc", "def"]),
                req("y", NotIn, &["jkl"]),
                req("z", Exists, &[]),
            ],
            "x in (abc,def),y notin (jkl),z",
        ),
        (
            "notin, not-equals and does-not-exist",
            vec![
                req("x", NotIn, &["abc", "def"]),
                req("y", NotEquals, &["jkl"]),
                req("z", DoesNotExist, &[]),
            ],
            "x notin (abc,def),y!=jkl,!z",
        ),
        (
            "an empty value in a set",
            vec![
                req("x", NotIn, &["abc"]),
                req("y", In, &["jkl", "mno"]),
                req("z", NotIn, &[""]),
            ],
            "x notin (abc),y in (jkl,mno),z notin ()",
        ),
        (
            "exact matches and a repeated key",
            vec![
                req("x", Equals, &["abc"]),
                req("y", DoubleEquals, &["jkl"]),
                req("z", NotEquals, &["a"]),
                req("z", Exists, &[]),
            ],
            "x=abc,y==jkl,z!=a,z",
        ),
        (
            "comparisons",
            vec![
                req("x", GreaterThan, &["2"]),
                req("y", LessThan, &["8"]),
                req("z", Exists, &[]),
            ],
            "x>2,y<8,z",
        ),
        (
            "unsorted set values print sorted",
            vec![req("x", In, &["foo", "bar"])],
            "x in (bar,foo)",
        ),
    ];
    for (name, reqs, want) in cases {
        assert_eq!(
            LabelSelector::from_requirements(reqs).to_string(),
            want,
            "{name}"
        );
    }
}

/// `TestRequirementSelectorMatching` (the zero-`Requirement` case cannot be built here).
#[test]
fn requirements_match_label_sets() {
    use Operator::*;
    let cases = [
        (
            "in and notin both hold",
            set(&[("x", "foo"), ("y", "baz")]),
            vec![req("x", In, &["foo"]), req("y", NotIn, &["alpha"])],
            true,
        ),
        (
            "a value outside the in list",
            set(&[("x", "foo"), ("y", "baz")]),
            vec![req("x", In, &["foo"]), req("y", In, &["alpha"])],
            false,
        ),
        (
            "notin an empty value on an absent key, exists on an empty label",
            set(&[("y", "")]),
            vec![req("x", NotIn, &[""]), req("y", Exists, &[])],
            true,
        ),
        (
            "does-not-exist and exists",
            set(&[("y", "")]),
            vec![req("x", DoesNotExist, &[]), req("y", Exists, &[])],
            true,
        ),
        (
            "does-not-exist on a present empty label",
            set(&[("y", "")]),
            vec![req("x", NotIn, &[""]), req("y", DoesNotExist, &[])],
            false,
        ),
        (
            "in an empty value on an absent key",
            set(&[("y", "baz")]),
            vec![req("x", In, &[""])],
            false,
        ),
        (
            "greater-than on a bigger integer",
            set(&[("z", "2")]),
            vec![req("z", GreaterThan, &["1"])],
            true,
        ),
        (
            "greater-than on a non-integer label",
            set(&[("z", "v2")]),
            vec![req("z", GreaterThan, &["1"])],
            false,
        ),
        (
            "greater-than accepts leading zeros and a signed label",
            set(&[("z", "+0206")]),
            vec![req("z", GreaterThan, &["0204"])],
            true,
        ),
    ];
    for (name, labels, reqs, want) in cases {
        assert_eq!(
            LabelSelector::from_requirements(reqs).matches(&labels),
            want,
            "{name}"
        );
    }
}

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

/// `TestAdd` and `TestRequiresExactMatch`.
#[test]
fn add_and_requires_exact_match() {
    use Operator::*;
    let sel = LabelSelector::everything().add([req("key", In, &["value"])]);
    assert_eq!(
        sel.requirements(),
        [req("key", In, &["value"])],
        "adding to an empty selector"
    );
    let sel = sel.add([req("key2", Equals, &["value2"])]);
    assert_eq!(
        sel.to_string(),
        "key in (value),key2=value2",
        "adding keeps key order"
    );
    assert!(
        LabelSelector::nothing()
            .add([req("a", Exists, &[])])
            .is_nothing(),
        "nothing stays nothing"
    );
    let cases = [
        (
            "in with one value",
            vec![req("key", In, &["value"])],
            "key",
            Some("value"),
        ),
        (
            "in with two values",
            vec![req("key", In, &["value", "value2"])],
            "key",
            None,
        ),
        (
            "the second key",
            vec![
                req("key", In, &["value", "value1"]),
                req("key2", In, &["value2"]),
            ],
            "key2",
            Some("value2"),
        ),
        (
            "equals",
            vec![req("key", Equals, &["value"])],
            "key",
            Some("value"),
        ),
        (
            "double equals",
            vec![req("key", DoubleEquals, &["value"])],
            "key",
            Some("value"),
        ),
        (
            "not equals",
            vec![req("key", NotEquals, &["value"])],
            "key",
            None,
        ),
        (
            "the first key",
            vec![req("key", In, &["value"]), req("key2", In, &["value2"])],
            "key",
            Some("value"),
        ),
    ];
    for (name, reqs, label, want) in cases {
        assert_eq!(
            LabelSelector::from_requirements(reqs).requires_exact_match(label),
            want,
            "{name}"
        );
    }
}

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
