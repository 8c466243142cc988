//! Upstream `TestSelectorParse`, `TestDeterministicParse`, `TestEverything`/`TestSelectorMatches` and `TestSetMatches`: parsing, printing and matching label sets.

use super::*;

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
