//! Unit tests of `crate::near_miss`.

use super::*;
use crate::testing::{taint, tol};

#[test]
fn each_near_miss_and_what_is_not_one() {
    let g = FeatureGates::default();
    let cp = taint(CONTROL_PLANE_TAINT_KEY, "", "NoSchedule");
    let spot = taint(
        "kubernetes.azure.com/scalesetpriority",
        "spot",
        "NoSchedule",
    );
    let gpu = taint("nvidia.com/gpu", "true", "NoSchedule");
    let unreachable = taint(TAINT_NODE_UNREACHABLE, "", "NoExecute");
    let not_ready = taint(TAINT_NODE_NOT_READY, "", "NoExecute");
    #[rustfmt::skip]
    let cases: Vec<(&str, Toleration, &Taint, Option<NearMiss>)> = vec![
        ("a value that differs by case",
            tol("nvidia.com/gpu", "Equal", "True", "NoSchedule"), &gpu,
            Some(NearMiss::ValueCase { toleration: "True".into(), taint: "true".into() })),
        ("Equal with an empty value against a valued taint",
            tol("kubernetes.azure.com/scalesetpriority", "Equal", "", "NoSchedule"), &spot,
            Some(NearMiss::EmptyValue { taint: "spot".into() })),
        ("Equal \"true\" against kubeadm's valueless control-plane taint",
            tol(CONTROL_PLANE_TAINT_KEY, "Equal", "true", "NoSchedule"), &cp,
            Some(NearMiss::ValueOnValueless { toleration: "true".into() })),
        ("another effect",
            tol("nvidia.com/gpu", "Exists", "", "NoExecute"), &gpu,
            Some(NearMiss::Effect { toleration: "NoExecute".into(), taint: "NoSchedule".into() })),
        ("a key that differs by case",
            tol("Nvidia.com/gpu", "Exists", "", ""), &gpu,
            Some(NearMiss::KeyCase { toleration: "Nvidia.com/gpu".into(), taint: "nvidia.com/gpu".into() })),
        ("the legacy master key on a control-plane node",
            tol(LEGACY_MASTER_TAINT_KEY, "Exists", "", "NoSchedule"), &cp,
            Some(NearMiss::LegacyMaster)),
        ("a node.kubernetes.io key no component sets",
            tol("node.kubernetes.io/not-reachable", "Exists", "", "NoExecute"), &unreachable,
            Some(NearMiss::UnknownNodeKey { toleration: "node.kubernetes.io/not-reachable".into(), suggestion: TAINT_NODE_UNREACHABLE })),
        ("a match is no near miss",
            tol(CONTROL_PLANE_TAINT_KEY, "Exists", "", "NoSchedule"), &cp, None),
        ("another value altogether is another taint's toleration",
            tol("nvidia.com/gpu", "Equal", "false", "NoSchedule"), &gpu, None),
        ("another key altogether",
            tol("dedicated", "Exists", "", ""), &gpu, None),
        ("a wrong effect and a wrong value are not evidently for this taint",
            tol("nvidia.com/gpu", "Equal", "false", "NoExecute"), &gpu, None),
        ("a misspelt node key near another taint than this one",
            tol("node.kubernetes.io/not-reachable", "Exists", "", "NoExecute"), &not_ready, None),
    ];
    for (name, t, taint, want) in cases {
        assert_eq!(near_miss(&t, taint, &g), want, "{name}");
    }
}

#[test]
fn unknown_node_keys_and_their_suggestions() {
    for (key, want) in [
        (
            "node.kubernetes.io/not-reachable",
            Some(TAINT_NODE_UNREACHABLE),
        ),
        ("node.kubernetes.io/notready", Some(TAINT_NODE_NOT_READY)),
        (
            "node.kubernetes.io/memory-presure",
            Some(TAINT_NODE_MEMORY_PRESSURE),
        ),
        ("node.kubernetes.io/unreachable", None),
        ("node.kubernetes.io/something-else-entirely", None),
        ("example.com/not-reachable", None),
    ] {
        assert_eq!(unknown_node_key(key), want, "{key}");
    }
}

#[test]
fn messages_say_what_to_do() {
    assert_eq!(
        NearMiss::ValueOnValueless {
            toleration: "true".into()
        }
        .to_string(),
        "the taint has no value, so value \"true\" never matches it (use operator Exists, or leave the value empty)"
    );
    assert_eq!(
        NearMiss::UnknownNodeKey {
            toleration: "node.kubernetes.io/not-reachable".into(),
            suggestion: TAINT_NODE_UNREACHABLE
        }
        .to_string(),
        "no component sets a taint \"node.kubernetes.io/not-reachable\"; did you mean \"node.kubernetes.io/unreachable\"?"
    );
}
