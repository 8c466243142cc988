//! Upstream `TestVerifyAgainstWhitelist` (`pkg/util/tolerations/tolerations_test.go`).

use super::*;

#[test]
fn verify_against_whitelist_table() {
    // Upstream TestVerifyAgainstWhitelist.
    let cases: [(&str, &[&str], &[&str], bool); 9] = [
        (
            "equal input and whitelist",
            &["foo-bar-nosched", "foo-baz-nosched"],
            &["foo-bar-nosched", "foo-baz-nosched"],
            true,
        ),
        (
            "duplicate input allowed",
            &["foo-bar-nosched", "foo-bar-nosched"],
            &["foo-bar-nosched", "foo-baz-nosched"],
            true,
        ),
        (
            "allow all",
            &["foo-bar-nosched", "foo-bar-nosched"],
            &["all"],
            true,
        ),
        (
            "duplicate input forbidden",
            &["foo-bar-nosched", "foo-bar-nosched"],
            &["foo-baz-nosched"],
            false,
        ),
        (
            "value mismatch",
            &["foo-bar-nosched", "foo-baz-nosched"],
            &["foo-baz-nosched"],
            false,
        ),
        (
            "input does not exist in whitelist",
            &["foo-bar-nosched"],
            &["foo-baz-nosched"],
            false,
        ),
        ("disjoint sets", &["foo-bar"], &["foo-nosched"], false),
        ("empty whitelist", &["foo-bar"], &[], true),
        ("empty input", &[], &["foo-bar"], true),
    ];
    for (name, input, whitelist, want) in cases {
        assert_eq!(
            verify_against_whitelist(&named(input), &named(whitelist)),
            want,
            "{name}"
        );
    }
}
