//! Upstream `TestMergeTolerations` (`pkg/util/tolerations/tolerations_test.go`).

use super::*;

#[test]
fn merge_tolerations_table() {
    // Upstream TestMergeTolerations, plus the equal-prefers-first rule.
    let cases: [(&str, &[&str], &[&str], &[&str]); 6] = [
        (
            "disjoint",
            &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
            &["foo-prefnosched", "foo-baz-nosched"],
            &[
                "foo-bar-nosched",
                "faz-baz-nosched",
                "foo-noexec-10",
                "foo-prefnosched",
                "foo-baz-nosched",
            ],
        ),
        (
            "duplicate",
            &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
            &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
            &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
        ),
        (
            "merge redundant",
            &["foo-bar-nosched", "foo-baz-nosched"],
            &["foo-nosched", "faz-baz-nosched"],
            &["foo-nosched", "faz-baz-nosched"],
        ),
        (
            "merge all",
            &["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"],
            &["all"],
            &["all"],
        ),
        (
            "merge into all",
            &["all"],
            &["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"],
            &["all"],
        ),
        (
            "a pod's unbounded NoExecute toleration swallows a bounded default",
            &["foo-noexec"],
            &["foo-noexec-10"],
            &["foo-noexec"],
        ),
    ];
    for (name, a, b, want) in cases {
        assert_eq!(
            merge_tolerations(&named(a), &named(b)),
            named(want),
            "{name}"
        );
    }
}
