use super::*;
use crate::testing::{taint, tol, tol_secs};
use proptest::prelude::*;

const ON: FeatureGates = FeatureGates {
    taint_toleration_comparison_operators: true,
};
const OFF: FeatureGates = FeatureGates {
    taint_toleration_comparison_operators: false,
};

/// Upstream `TestTolerationToleratesTaint` (k8s.io/api core/v1, v1.35) plus the v1.35 `Gt`/`Lt`
/// cases and the rules of upstream-semantics §2.
#[test]
fn toleration_tolerates_taint() {
    let sla = "servicelevel.organization.example/agreed-service-level";
    #[rustfmt::skip]
    let cases: Vec<(&str, Toleration, Taint, FeatureGates, bool)> = vec![
        ("same key and effect, Exists, taint without value: tolerated",
            tol("foo", "Exists", "", "NoSchedule"), taint("foo", "", "NoSchedule"), OFF, true),
        ("same key and effect, Exists, taint with a value: tolerated",
            tol("foo", "Exists", "", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, true),
        ("same effect, empty key and Exists matches every key: tolerated",
            tol("", "Exists", "", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, true),
        ("same key, effect and value with Equal: tolerated",
            tol("foo", "Equal", "bar", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, true),
        ("same key and effect but different values with Equal: not tolerated",
            tol("foo", "Equal", "baz", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, false),
        ("same key and value but different effects with Equal: not tolerated",
            tol("foo", "Equal", "bar", "NoExecute"), taint("foo", "bar", "NoSchedule"), OFF, false),
        ("an empty operator means Equal",
            tol("foo", "", "bar", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, true),
        ("an empty operator with an empty value tolerates a taint without value",
            tol("foo", "", "", "NoSchedule"), taint("foo", "", "NoSchedule"), OFF, true),
        ("an empty operator with an empty value does not tolerate a taint with a value",
            tol("foo", "", "", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, false),
        ("empty effect matches every effect of the key: NoExecute",
            tol("foo", "Exists", "", ""), taint("foo", "bar", "NoExecute"), OFF, true),
        ("empty effect matches every effect of the key: PreferNoSchedule",
            tol("foo", "Equal", "bar", ""), taint("foo", "bar", "PreferNoSchedule"), OFF, true),
        ("empty effect does not match another key",
            tol("foo", "Exists", "", ""), taint("other", "bar", "NoSchedule"), OFF, false),
        ("the wildcard toleration tolerates every taint",
            tol("", "Exists", "", ""), taint("anything", "x", "NoExecute"), OFF, true),
        ("keys compare case-sensitively",
            tol("Foo", "Exists", "", "NoSchedule"), taint("foo", "", "NoSchedule"), OFF, false),
        ("values compare case-sensitively",
            tol("foo", "Equal", "Bar", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, false),
        ("effects compare case-sensitively",
            tol("foo", "Exists", "", "noschedule"), taint("foo", "", "NoSchedule"), OFF, false),
        ("Exists ignores a value that validation would refuse",
            tol("foo", "Exists", "other", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, true),
        ("the matcher lets an empty key with Equal match any key with that value",
            tol("", "Equal", "bar", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, true),
        ("a lower-case operator never matches",
            tol("foo", "exists", "", "NoSchedule"), taint("foo", "", "NoSchedule"), OFF, false),
        ("an unknown operator never matches",
            tol("foo", "In", "bar", "NoSchedule"), taint("foo", "bar", "NoSchedule"), OFF, false),
        ("tolerationSeconds plays no part in matching",
            tol_secs("foo", "Exists", "", "NoExecute", 0), taint("foo", "", "NoExecute"), OFF, true),
        // KEP-5471 comparison operators.
        ("Gt with the gate on: 950 > 900 tolerated (the SLA example)",
            tol(sla, "Gt", "900", "NoSchedule"), taint(sla, "950", "NoSchedule"), ON, true),
        ("Gt with the gate off never matches",
            tol(sla, "Gt", "900", "NoSchedule"), taint(sla, "950", "NoSchedule"), OFF, false),
        ("Gt is strict: equal values do not match",
            tol("tier", "Gt", "900", "NoSchedule"), taint("tier", "900", "NoSchedule"), ON, false),
        ("Gt: a smaller taint value does not match",
            tol("tier", "Gt", "900", "NoSchedule"), taint("tier", "850", "NoSchedule"), ON, false),
        ("Lt with the gate on: 950 < 1000 tolerated",
            tol(sla, "Lt", "1000", "NoSchedule"), taint(sla, "950", "NoSchedule"), ON, true),
        ("Lt is strict: equal values do not match",
            tol("tier", "Lt", "1000", "NoSchedule"), taint("tier", "1000", "NoSchedule"), ON, false),
        ("Lt with the gate off never matches",
            tol("tier", "Lt", "1000", "NoSchedule"), taint("tier", "950", "NoSchedule"), OFF, false),
        ("Gt: a taint value with a leading zero (0950) never matches",
            tol("tier", "Gt", "900", "NoSchedule"), taint("tier", "0950", "NoSchedule"), ON, false),
        ("Gt: a toleration value with a leading zero (0550) never matches",
            tol("tier", "Lt", "0550", "NoSchedule"), taint("tier", "100", "NoSchedule"), ON, false),
        ("Gt: a non-numeric taint value (high) never matches",
            tol(sla, "Gt", "900", "NoSchedule"), taint(sla, "high", "NoSchedule"), ON, false),
        ("Gt: a '+' sign is not canonical",
            tol("tier", "Gt", "+5", "NoSchedule"), taint("tier", "6", "NoSchedule"), ON, false),
        ("Gt: a decimal is not an integer",
            tol("tier", "Gt", "5.5", "NoSchedule"), taint("tier", "6", "NoSchedule"), ON, false),
        ("Gt: surrounding spaces are not canonical",
            tol("tier", "Gt", " 5", "NoSchedule"), taint("tier", "6", "NoSchedule"), ON, false),
        ("Gt: an empty toleration value never matches",
            tol("tier", "Gt", "", "NoSchedule"), taint("tier", "6", "NoSchedule"), ON, false),
        ("Gt: a negative toleration value compares numerically",
            tol("tier", "Gt", "-5", "NoSchedule"), taint("tier", "0", "NoSchedule"), ON, true),
        ("Gt: values beyond int64 never match",
            tol("tier", "Lt", "9223372036854775808", "NoSchedule"), taint("tier", "1", "NoSchedule"), ON, false),
        ("Lt: the int64 maximum is accepted",
            tol("tier", "Lt", "9223372036854775807", "NoSchedule"), taint("tier", "1", "NoSchedule"), ON, true),
        ("Gt works with every effect: PreferNoSchedule",
            tol("tier", "Gt", "1", "PreferNoSchedule"), taint("tier", "2", "PreferNoSchedule"), ON, true),
        ("Gt still needs the effect to match",
            tol("tier", "Gt", "1", "NoExecute"), taint("tier", "2", "NoSchedule"), ON, false),
        ("Gt with an empty key compares against every key",
            tol("", "Gt", "1", "NoSchedule"), taint("anything", "2", "NoSchedule"), ON, true),
        ("a lower-case gt never matches, even with the gate on",
            tol("tier", "gt", "1", "NoSchedule"), taint("tier", "2", "NoSchedule"), ON, false),
    ];
    for (name, toleration, t, gates, want) in cases {
        assert_eq!(tolerates(&toleration, &t, &gates), want, "{name}");
    }
}

/// The match table of the Chinese chapter (seeds/003): node taint `dedicated=gpu:NoSchedule`.
#[test]
fn seed_match_table_dedicated_gpu() {
    let t = taint("dedicated", "gpu", "NoSchedule");
    #[rustfmt::skip]
    let rows = [
        ("Equal gpu NoSchedule: the standard form matches", tol("dedicated", "Equal", "gpu", "NoSchedule"), true),
        ("Exists NoSchedule ignores the value", tol("dedicated", "Exists", "", "NoSchedule"), true),
        ("Exists without effect matches every effect of the key", tol("dedicated", "Exists", "", ""), true),
        ("Equal cpu: the value differs", tol("dedicated", "Equal", "cpu", "NoSchedule"), false),
        ("Equal gpu without effect matches every effect", tol("dedicated", "Equal", "gpu", ""), true),
        ("Equal gpu NoExecute: the effect differs", tol("dedicated", "Equal", "gpu", "NoExecute"), false),
        ("the empty toleration with Exists tolerates everything", tol("", "Exists", "", ""), true),
    ];
    for (name, toleration, want) in rows {
        assert_eq!(tolerates(&toleration, &t, &OFF), want, "{name}");
    }
}

/// seeds/000: both tolerations of the concepts page match `key1=value1:NoSchedule`.
#[test]
fn seed_both_tolerations_match_key1() {
    let t = taint("key1", "value1", "NoSchedule");
    assert!(
        tolerates(&tol("key1", "Equal", "value1", "NoSchedule"), &t, &OFF),
        "Equal form"
    );
    assert!(
        tolerates(&tol("key1", "Exists", "", "NoSchedule"), &t, &OFF),
        "Exists form"
    );
}

#[test]
fn decimal_integer_check() {
    #[rustfmt::skip]
    let cases = [
        ("zero is canonical", "0", true),
        ("a plain positive number", "950", true),
        ("a negative number", "-200", true),
        ("the int64 bounds pass the syntax check", "-9223372036854775808", true),
        ("a leading zero is refused (0550)", "0550", false),
        ("minus zero is refused", "-0", false),
        ("a plus sign is refused", "+5", false),
        ("a decimal is refused", "100.5", false),
        ("a leading space is refused", " 5", false),
        ("a trailing space is refused", "5 ", false),
        ("a bare minus is refused", "-", false),
        ("letters are refused", "high", false),
        ("the empty string is refused", "", false),
    ];
    for (name, v, ok) in cases {
        assert_eq!(is_decimal_integer(v).is_empty(), ok, "{name}");
    }
    assert_eq!(
        is_decimal_integer("0550"),
        vec![DECIMAL_INT_ERR.to_string()]
    );
    assert_eq!(
        is_decimal_integer(""),
        vec!["must be non-empty".to_string()]
    );
    assert_eq!(parse_canonical_int64("9223372036854775807"), Some(i64::MAX));
    assert_eq!(
        parse_canonical_int64("9223372036854775808"),
        None,
        "overflow"
    );
}

fn effect() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("NoSchedule".to_string()),
        Just("PreferNoSchedule".to_string()),
        Just("NoExecute".to_string()),
    ]
}

proptest! {
    #[test]
    fn an_empty_key_exists_toleration_without_effect_tolerates_every_taint(
        key in "[a-zA-Z0-9./_-]{0,20}", value in "[a-zA-Z0-9._-]{0,20}", eff in effect(), gate: bool
    ) {
        let g = FeatureGates { taint_toleration_comparison_operators: gate };
        prop_assert!(tolerates(&tol("", "Exists", "", ""), &taint(&key, &value, &eff), &g));
    }

    #[test]
    fn a_toleration_built_from_a_taint_tolerates_it(
        key in "[a-z0-9./_-]{1,20}", value in "[a-zA-Z0-9._-]{0,20}", eff in effect(), op in prop_oneof![Just(""), Just("Equal")]
    ) {
        let t = taint(&key, &value, &eff);
        prop_assert!(tolerates(&tol(&key, op, &value, &eff), &t, &OFF));
        prop_assert!(tolerates(&tol(&key, "Exists", "", &eff), &t, &OFF));
        prop_assert!(tolerates(&tol(&key, op, &value, ""), &t, &OFF));
    }

    #[test]
    fn gt_and_lt_agree_with_integer_order(a in any::<i64>(), b in any::<i64>()) {
        let t = taint("tier", &b.to_string(), "NoSchedule");
        prop_assert_eq!(tolerates(&tol("tier", "Gt", &a.to_string(), "NoSchedule"), &t, &ON), b > a);
        prop_assert_eq!(tolerates(&tol("tier", "Lt", &a.to_string(), "NoSchedule"), &t, &ON), b < a);
        prop_assert!(!tolerates(&tol("tier", "Gt", &a.to_string(), "NoSchedule"), &t, &OFF));
    }

    #[test]
    fn a_toleration_with_another_effect_never_tolerates(key in "[a-z]{1,8}", e1 in effect(), e2 in effect()) {
        prop_assume!(e1 != e2);
        prop_assert!(!tolerates(&tol(&key, "Exists", "", &e1), &taint(&key, "", &e2), &ON));
    }
}
