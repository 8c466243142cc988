//! Upstream `TestRequirementConstructor`, `TestToString` and `TestRequirementSelectorMatching`.

use super::*;

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
