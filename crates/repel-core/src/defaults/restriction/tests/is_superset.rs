//! Upstream `TestIsSuperset` (`pkg/util/tolerations/tolerations_test.go`) and its edge rules.

use super::*;

#[test]
fn is_superset_table() {
    // Upstream TestIsSuperset: each toleration is a superset of itself and of exactly these.
    let cases: [(&str, &[&str]); 15] = [
        (
            "all",
            &[
                "all-nosched",
                "all-noexec",
                "foo",
                "foo-bar",
                "foo-nosched",
                "foo-bar-nosched",
                "foo-baz-nosched",
                "faz-nosched",
                "faz-baz-nosched",
                "foo-prefnosched",
                "foo-noexec",
                "foo-bar-noexec",
                "foo-noexec-10",
                "foo-noexec-0",
                "foo-bar-noexec-10",
            ],
        ),
        (
            "all-nosched",
            &[
                "foo-nosched",
                "foo-bar-nosched",
                "foo-baz-nosched",
                "faz-nosched",
                "faz-baz-nosched",
            ],
        ),
        (
            "all-noexec",
            &[
                "foo-noexec",
                "foo-bar-noexec",
                "foo-noexec-10",
                "foo-noexec-0",
                "foo-bar-noexec-10",
            ],
        ),
        (
            "foo",
            &[
                "foo-bar",
                "foo-nosched",
                "foo-bar-nosched",
                "foo-baz-nosched",
                "foo-prefnosched",
                "foo-noexec",
                "foo-bar-noexec",
                "foo-noexec-10",
                "foo-noexec-0",
                "foo-bar-noexec-10",
            ],
        ),
        (
            "foo-bar",
            &["foo-bar-nosched", "foo-bar-noexec", "foo-bar-noexec-10"],
        ),
        ("foo-nosched", &["foo-bar-nosched", "foo-baz-nosched"]),
        ("foo-bar-nosched", &[]),
        ("faz-nosched", &["faz-baz-nosched"]),
        ("faz-baz-nosched", &[]),
        ("foo-prefnosched", &[]),
        (
            "foo-noexec",
            &[
                "foo-bar-noexec",
                "foo-noexec-10",
                "foo-noexec-0",
                "foo-bar-noexec-10",
            ],
        ),
        ("foo-bar-noexec", &["foo-bar-noexec-10"]),
        ("foo-noexec-10", &["foo-noexec-0", "foo-bar-noexec-10"]),
        ("foo-noexec-0", &[]),
        ("foo-bar-noexec-10", &[]),
    ];
    let f = fixtures();
    for (sup, subs) in cases {
        for (name, t) in &f {
            let want = *name == sup || subs.contains(name);
            assert_eq!(is_superset(&f[sup], t), want, "{sup} superset of {name}");
        }
    }
}

#[test]
fn is_superset_edge_rules() {
    let cases = [
        (
            "an empty operator in t is not Equal",
            tol("k", "", "v", "NoSchedule"),
            tol("k", "Equal", "v", "NoSchedule"),
            false,
        ),
        (
            "an empty operator in ss means Equal",
            tol("k", "Equal", "v", "NoSchedule"),
            tol("k", "", "v", "NoSchedule"),
            true,
        ),
        (
            "Gt in ss is never a superset of another toleration",
            tol("k", "Equal", "5", ""),
            tol("k", "Gt", "5", ""),
            false,
        ),
        (
            "Gt is a superset of an equal Gt",
            tol("k", "Gt", "5", ""),
            tol("k", "Gt", "5", ""),
            true,
        ),
        (
            "an empty key with Equal is not the wildcard",
            tol("k", "Equal", "", ""),
            tol("", "Equal", "", ""),
            false,
        ),
        (
            "NoExecute seconds in t need seconds in ss only if ss has them",
            tol_secs("k", "Exists", "", "NoExecute", 5),
            tol("k", "Exists", "", "NoExecute"),
            true,
        ),
        (
            "the empty effect skips the seconds rule (upstream quirk)",
            tol_secs("k", "Exists", "", "NoExecute", 50),
            tol_secs("k", "Exists", "", "", 5),
            true,
        ),
        (
            "an explicit empty string equals an unset field",
            Toleration {
                value: Some(String::new()),
                ..tol("k", "Exists", "", "")
            },
            tol("k", "Exists", "", ""),
            true,
        ),
    ];
    for (name, t, ss, want) in cases {
        assert_eq!(is_superset(&ss, &t), want, "{name}");
    }
}
