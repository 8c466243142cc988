#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{
    Container, Namespace, Pod, PodStatus, ResourceRequirements, Toleration,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use proptest::prelude::*;

use super::*;
use crate::testing::{pod_with_tolerations, tol, tol_secs};

/// Upstream tolerations_test.go's named fixtures.
fn fixtures() -> HashMap<&'static str, Toleration> {
    HashMap::from([
        ("all", tol("", "Exists", "", "")),
        ("all-nosched", tol("", "Exists", "", "NoSchedule")),
        ("all-noexec", tol("", "Exists", "", "NoExecute")),
        ("foo", tol("foo", "Exists", "", "")),
        ("foo-bar", tol("foo", "Equal", "bar", "")),
        ("foo-nosched", tol("foo", "Exists", "", "NoSchedule")),
        ("foo-bar-nosched", tol("foo", "Equal", "bar", "NoSchedule")),
        ("foo-baz-nosched", tol("foo", "Equal", "baz", "NoSchedule")),
        ("faz-nosched", tol("faz", "Exists", "", "NoSchedule")),
        ("faz-baz-nosched", tol("faz", "Equal", "baz", "NoSchedule")),
        (
            "foo-prefnosched",
            tol("foo", "Exists", "", "PreferNoSchedule"),
        ),
        ("foo-noexec", tol("foo", "Exists", "", "NoExecute")),
        ("foo-bar-noexec", tol("foo", "Equal", "bar", "NoExecute")),
        (
            "foo-noexec-10",
            tol_secs("foo", "Exists", "", "NoExecute", 10),
        ),
        (
            "foo-noexec-0",
            tol_secs("foo", "Exists", "", "NoExecute", 0),
        ),
        (
            "foo-bar-noexec-10",
            tol_secs("foo", "Equal", "bar", "NoExecute", 10),
        ),
    ])
}

fn named(names: &[&str]) -> Vec<Toleration> {
    let f = fixtures();
    names.iter().map(|n| f[n].clone()).collect()
}

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

// ---- the admission plugin ----

fn namespace(default: Option<&[Toleration]>, whitelist: Option<&[Toleration]>) -> Namespace {
    let mut annotations = BTreeMap::new();
    if let Some(d) = default {
        annotations.insert(
            NS_DEFAULT_TOLERATIONS.to_string(),
            serde_json::to_string(d).unwrap(),
        );
    }
    if let Some(w) = whitelist {
        annotations.insert(
            NS_WHITELIST_TOLERATIONS.to_string(),
            serde_json::to_string(w).unwrap(),
        );
    }
    Namespace {
        metadata: ObjectMeta {
            name: Some("testNamespace".into()),
            annotations: Some(annotations),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn raw_namespace(annotations: &[(&str, &str)]) -> Namespace {
    Namespace {
        metadata: ObjectMeta {
            name: Some("testNamespace".into()),
            annotations: Some(
                annotations
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[derive(Clone, Copy, Debug)]
enum Qos {
    BestEffort,
    Burstable,
    Guaranteed,
}

fn pod(qos: Qos, tolerations: Vec<Toleration>) -> Pod {
    let q = |v: &str| BTreeMap::from([("cpu".to_string(), Quantity(v.to_string()))]);
    let resources = match qos {
        Qos::BestEffort => None,
        Qos::Burstable => Some(ResourceRequirements {
            limits: Some(q("1000m")),
            requests: Some(q("500m")),
            ..Default::default()
        }),
        Qos::Guaranteed => Some(ResourceRequirements {
            limits: Some(q("1000m")),
            requests: Some(q("1000m")),
            ..Default::default()
        }),
    };
    let mut p = pod_with_tolerations("testPod", tolerations);
    p.metadata.namespace = Some("testNamespace".into());
    if let Some(spec) = p.spec.as_mut() {
        spec.containers = vec![Container {
            name: "test".into(),
            resources,
            ..Default::default()
        }];
    }
    p
}

fn mp() -> Toleration {
    memory_pressure_toleration()
}

fn t_eq(value: &str) -> Toleration {
    tol("testKey", "Equal", value, "NoSchedule")
}

struct Case {
    name: &'static str,
    qos: Qos,
    cluster_default: Vec<Toleration>,
    ns_default: Option<Vec<Toleration>>,
    ns_whitelist: Option<Vec<Toleration>>,
    cluster_whitelist: Vec<Toleration>,
    pod: Vec<Toleration>,
    want: Result<Vec<Toleration>, AdmissionError>,
}

#[test]
fn pod_toleration_restriction_table() {
    use Qos::*;
    let conflict_ns = Err(AdmissionError::WhitelistConflict {
        scope: WhitelistScope::Namespace,
    });
    let conflict_cluster = Err(AdmissionError::WhitelistConflict {
        scope: WhitelistScope::Cluster,
    });
    // Upstream TestPodAdmission (current version), then the rules it does not cover.
    let cases = vec![
        Case {
            name: "default cluster tolerations with empty pod tolerations and nil namespace tolerations",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue")],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "default cluster tolerations with pod tolerations specified",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue")],
            ns_default: Some(vec![]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue")],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "namespace tolerations",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue")],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "no pod tolerations",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "duplicate key pod and namespace tolerations are both kept, no conflict error",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue1")],
            want: Ok(vec![t_eq("testValue1"), t_eq("testValue")]),
        },
        Case {
            name: "conflicting pod and default cluster tolerations but overridden by empty namespace tolerations",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue2")],
            ns_default: Some(vec![]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue1")],
            want: Ok(vec![t_eq("testValue1")]),
        },
        Case {
            name: "merged pod tolerations satisfy whitelist",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![t_eq("testValue")]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "Override default cluster toleration by empty namespace level toleration",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue")],
            ns_default: Some(vec![]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![]),
        },
        Case {
            name: "pod toleration conflicts with default cluster white list which is overridden by empty namespace whitelist",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![t_eq("testValue1")],
            pod: vec![t_eq("testValue")],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "merged pod tolerations conflict with the whitelist",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![t_eq("testValue1")]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: conflict_ns.clone(),
        },
        Case {
            name: "added memoryPressure for Burstable pod (upstream compares as a set; pod first, extras after)",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue"), mp()]),
        },
        Case {
            name: "Pod with duplicate key tolerations should not be modified",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![]),
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue"), t_eq("testValue1")],
            want: Ok(vec![t_eq("testValue"), t_eq("testValue1")]),
        },
        Case {
            name: "added memoryPressure for Guaranteed pod",
            qos: Guaranteed,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue"), mp()]),
        },
        // Beyond upstream's table.
        Case {
            name: "a BestEffort pod does not get memory-pressure",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![]),
        },
        Case {
            name: "a Burstable pod gets memory-pressure even with no defaults",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![mp()]),
        },
        Case {
            name: "a pod wildcard swallows the namespace default and memory-pressure",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![tol("", "Exists", "", "")],
            want: Ok(vec![tol("", "Exists", "", "")]),
        },
        Case {
            name: "the cluster whitelist rejects with the cluster scope",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![t_eq("ok")],
            pod: vec![t_eq("other")],
            want: conflict_cluster.clone(),
        },
        Case {
            name: "memory-pressure must itself pass the whitelist",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: Some(vec![t_eq("ok")]),
            cluster_whitelist: vec![],
            pod: vec![t_eq("ok")],
            want: conflict_ns.clone(),
        },
        Case {
            name: "an Exists whitelist entry covers Equal tolerations of its key",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: Some(vec![tol("testKey", "Exists", "", "")]),
            cluster_whitelist: vec![],
            pod: vec![t_eq("a"), t_eq("b")],
            want: Ok(vec![t_eq("a"), t_eq("b")]),
        },
    ];
    for c in cases {
        let ns = namespace(c.ns_default.as_deref(), c.ns_whitelist.as_deref());
        let cfg = PodTolerationRestrictionConfig {
            default: c.cluster_default.clone(),
            whitelist: c.cluster_whitelist.clone(),
        };
        let mut p = pod(c.qos, c.pod.clone());
        let got = pod_toleration_restriction(&mut p, Some(&ns), &cfg, AdmissionOperation::Create)
            .map(|()| p.spec.and_then(|s| s.tolerations).unwrap_or_default());
        assert_eq!(got, c.want, "{}", c.name);
    }
}

#[test]
fn update_ignores_defaults_but_adds_memory_pressure() {
    let ns = raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "not json")]);
    let cfg = PodTolerationRestrictionConfig {
        default: vec![t_eq("cluster")],
        whitelist: vec![],
    };
    let cases = [
        (
            "an updated BestEffort pod is left alone, bad defaults unread",
            Qos::BestEffort,
            vec![t_eq("x")],
        ),
        (
            "an updated Burstable pod gets memory-pressure only",
            Qos::Burstable,
            vec![t_eq("x"), mp()],
        ),
    ];
    for (name, qos, want) in cases {
        let mut p = pod(qos, vec![t_eq("x")]);
        let got = pod_toleration_restriction(&mut p, Some(&ns), &cfg, AdmissionOperation::Update);
        assert_eq!(got, Ok(()), "{name}");
        assert_eq!(
            p.spec.and_then(|s| s.tolerations).unwrap_or_default(),
            want,
            "{name}"
        );
    }
}

#[test]
fn recorded_qos_class_decides_memory_pressure() {
    let mut p = pod(Qos::Guaranteed, vec![]);
    p.status = Some(PodStatus {
        qos_class: Some("BestEffort".into()),
        ..Default::default()
    });
    let got = pod_toleration_restriction(
        &mut p,
        Some(&raw_namespace(&[])),
        &Default::default(),
        AdmissionOperation::Update,
    );
    assert_eq!(got, Ok(()), "admitted");
    assert_eq!(
        p.spec.and_then(|s| s.tolerations),
        None,
        "status.qosClass BestEffort wins over the spec"
    );
}

#[test]
fn annotation_and_namespace_errors() {
    let cfg = PodTolerationRestrictionConfig::default();
    let invalid = |annotation, message: &str| {
        Err(AdmissionError::InvalidAnnotation {
            annotation,
            message: message.to_string(),
        })
    };
    let cases: Vec<(
        &str,
        Option<Namespace>,
        AdmissionOperation,
        Vec<Toleration>,
        Result<(), AdmissionError>,
    )> = vec![
        (
            "bad default JSON fails a create with Go's message",
            Some(raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "[{")])),
            AdmissionOperation::Create,
            vec![],
            invalid(NS_DEFAULT_TOLERATIONS, "unexpected end of JSON input"),
        ),
        (
            "a bad whitelist is read only when the pod has tolerations",
            Some(raw_namespace(&[(NS_WHITELIST_TOLERATIONS, "nope")])),
            AdmissionOperation::Create,
            vec![],
            Ok(()),
        ),
        (
            "a bad whitelist fails a pod with tolerations",
            Some(raw_namespace(&[(NS_WHITELIST_TOLERATIONS, "nope")])),
            AdmissionOperation::Create,
            vec![t_eq("x")],
            invalid(
                NS_WHITELIST_TOLERATIONS,
                "invalid character 'o' in literal null (expecting 'u')",
            ),
        ),
        (
            "an empty annotation value is an empty list, not an error",
            Some(raw_namespace(&[
                (NS_DEFAULT_TOLERATIONS, ""),
                (NS_WHITELIST_TOLERATIONS, ""),
            ])),
            AdmissionOperation::Create,
            vec![t_eq("x")],
            Ok(()),
        ),
        (
            "a missing namespace fails a create",
            None,
            AdmissionOperation::Create,
            vec![],
            Err(AdmissionError::NamespaceNotFound("testNamespace".into())),
        ),
        (
            "a missing namespace does not matter to an update without tolerations",
            None,
            AdmissionOperation::Update,
            vec![],
            Ok(()),
        ),
        (
            "a missing namespace fails an update with tolerations",
            None,
            AdmissionOperation::Update,
            vec![t_eq("x")],
            Err(AdmissionError::NamespaceNotFound("testNamespace".into())),
        ),
    ];
    for (name, ns, op, tolerations, want) in cases {
        let mut p = pod(Qos::BestEffort, tolerations);
        assert_eq!(
            pod_toleration_restriction(&mut p, ns.as_ref(), &cfg, op),
            want,
            "{name}"
        );
    }
}

#[test]
fn error_messages_are_upstreams() {
    let cases = [
        (
            "the namespace whitelist conflict",
            AdmissionError::WhitelistConflict {
                scope: WhitelistScope::Namespace,
            },
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist",
            500,
        ),
        (
            "the cluster whitelist conflict",
            AdmissionError::WhitelistConflict {
                scope: WhitelistScope::Cluster,
            },
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist",
            500,
        ),
        (
            "a missing namespace",
            AdmissionError::NamespaceNotFound("ns1".into()),
            "namespaces \"ns1\" not found",
            404,
        ),
    ];
    for (name, err, msg, status) in cases {
        assert_eq!(err.to_string(), msg, "{name}");
        assert_eq!(err.http_status(), status, "{name}");
    }
    assert_eq!(
        NS_DEFAULT_TOLERATIONS, "scheduler.alpha.kubernetes.io/defaultTolerations",
        "default annotation key"
    );
    assert_eq!(
        NS_WHITELIST_TOLERATIONS, "scheduler.alpha.kubernetes.io/tolerationsWhitelist",
        "whitelist annotation key"
    );
}

#[test]
fn namespace_tolerations_reads_annotations_as_upstream() {
    let cases: Vec<(&str, Namespace, Option<Vec<Toleration>>)> = vec![
        (
            "no annotations at all is absent",
            Namespace::default(),
            None,
        ),
        (
            "another annotation only is absent",
            raw_namespace(&[("x", "y")]),
            None,
        ),
        (
            "an empty value is an empty list",
            raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "")]),
            Some(vec![]),
        ),
        (
            "JSON null is an empty list",
            raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "null")]),
            Some(vec![]),
        ),
        (
            "keys match case-insensitively and unknown keys are ignored",
            raw_namespace(&[(
                NS_DEFAULT_TOLERATIONS,
                r#"[{"KEY":"a","Operator":"Exists","extra":[1,{"x":2}],"tolerationseconds":5}]"#,
            )]),
            Some(vec![tol_secs("a", "Exists", "", "", 5)]),
        ),
    ];
    for (name, ns, want) in cases {
        assert_eq!(
            namespace_tolerations(&ns, NS_DEFAULT_TOLERATIONS),
            Ok(want),
            "{name}"
        );
    }
}
