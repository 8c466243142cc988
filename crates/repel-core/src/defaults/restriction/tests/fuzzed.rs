//! Upstream `TestFuzzed`'s invariants as property tests over generated tolerations and taints.

use super::*;

fn arb_toleration() -> impl Strategy<Value = Toleration> {
    let effects = prop::sample::select(vec!["", "NoExecute", "NoSchedule", "PreferNoSchedule"]);
    (
        effects,
        1usize..=6,
        any::<bool>(),
        1usize..=6,
        prop::option::of(0i64..10),
        0u8..100,
    )
        .prop_map(|(effect, klen, exists, vlen, secs, all)| {
            if all == 0 {
                return tol("", "Exists", "", "");
            }
            let key = "a".repeat(klen);
            let mut t = if exists {
                tol(&key, "Exists", "", effect)
            } else {
                tol(&key, "Equal", &"b".repeat(vlen), effect)
            };
            if effect == "NoExecute" {
                t.toleration_seconds = secs;
            }
            t
        })
}

/// Every taint a generated toleration can meet: the generator's keys (`a` … `aaaaaa`), its
/// values (`b` … `bbbbbb`, and none) and the three effects.
fn taint_universe() -> Vec<k8s_openapi::api::core::v1::Taint> {
    let mut taints = Vec::new();
    for k in 1..=6 {
        for v in 0..=6 {
            for effect in ["NoSchedule", "PreferNoSchedule", "NoExecute"] {
                taints.push(crate::testing::taint(
                    &"a".repeat(k),
                    &"b".repeat(v),
                    effect,
                ));
            }
        }
    }
    taints
}

/// The oracle, independent of [`is_superset`]'s rules: `ss` covers `t` when every taint `t`
/// tolerates (the scheduler's `tolerates`, over [`taint_universe`]) `ss` tolerates too, and on
/// a NoExecute taint for at least as long (no `tolerationSeconds`: forever).
fn covers(ss: &Toleration, t: &Toleration) -> bool {
    let gates = crate::FeatureGates::default();
    let forever = |tol: &Toleration| tol.toleration_seconds.unwrap_or(i64::MAX);
    taint_universe().iter().all(|taint| {
        !crate::tolerates(t, taint, &gates)
            || (crate::tolerates(ss, taint, &gates)
                && (taint.effect != "NoExecute" || forever(ss) >= forever(t)))
    })
}

/// A pair of tolerations, the second often a near copy of the first (its key kept, its
/// operator, value, effect or seconds changed), so that the close calls come up.
fn arb_pair() -> impl Strategy<Value = (Toleration, Toleration)> {
    let tweak = (
        0u8..5,
        prop::sample::select(vec!["", "NoExecute", "NoSchedule", "PreferNoSchedule"]),
        prop::option::of(0i64..10),
        1usize..=6,
    );
    (arb_toleration(), arb_toleration(), tweak).prop_map(
        |(ss, other, (what, effect, secs, vlen))| {
            let mut t = ss.clone();
            match what {
                0 => return (ss, other),
                1 => {
                    t.effect = (!effect.is_empty()).then(|| effect.to_string());
                    if effect != "NoExecute" {
                        t.toleration_seconds = None;
                    }
                }
                2 if t.effect.as_deref() == Some("NoExecute") => t.toleration_seconds = secs,
                3 if t.key.is_some() => {
                    t.operator = Some("Exists".to_string());
                    t.value = None;
                }
                _ if t.key.is_some() => {
                    t.operator = Some("Equal".to_string());
                    t.value = Some("b".repeat(vlen));
                }
                _ => {}
            }
            (ss, t)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]
    /// `is_superset` agrees with the oracle, both ways round, on pairs of tolerations and near
    /// copies.
    #[test]
    fn is_superset_is_covering_every_tolerated_taint((ss, t) in arb_pair()) {
        prop_assert_eq!(is_superset(&ss, &t), covers(&ss, &t), "isSuperset({:?}, {:?})", ss, t);
        prop_assert_eq!(is_superset(&t, &ss), covers(&t, &ss), "isSuperset({:?}, {:?})", t, ss);
    }
}

proptest! {

    /// Upstream TestFuzzed/MergeTolerations: every input is covered by the merge result, and
    /// the result holds only inputs.
    #[test]
    fn merge_covers_every_input(a in prop::collection::vec(arb_toleration(), 0..10), b in prop::collection::vec(arb_toleration(), 0..10)) {
        let merged = merge_tolerations(&a, &b);
        for t in a.iter().chain(&b) {
            prop_assert!(merged.iter().any(|m| covers(m, t)), "merge covers {:?}", t);
        }
        for m in &merged {
            prop_assert!(a.iter().chain(&b).any(|t| t == m), "{:?} is an input", m);
        }
    }

    /// Upstream TestFuzzed/VerifyAgainstWhitelist: the verdict is whether each toleration is
    /// covered by one whitelist entry.
    #[test]
    fn whitelist_verdict_matches_containment(input in prop::collection::vec(arb_toleration(), 0..10), mut wl in prop::collection::vec(arb_toleration(), 0..10), extra in arb_toleration()) {
        wl.push(extra);
        let all_contained = input.iter().all(|t| wl.iter().any(|w| covers(w, t)));
        prop_assert_eq!(verify_against_whitelist(&input, &wl), all_contained, "verdict equals containment");
    }
}
