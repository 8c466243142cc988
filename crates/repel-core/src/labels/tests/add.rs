//! Upstream `TestAdd` and `TestRequiresExactMatch`.

use super::*;

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
