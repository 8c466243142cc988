#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use k8s_openapi::api::core::v1::{Node, NodeCondition, NodeSpec, NodeStatus, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use super::*;
use crate::testing::taint;

const NR: &str = TAINT_NODE_NOT_READY;
const UR: &str = TAINT_NODE_UNREACHABLE;
const MP: &str = TAINT_NODE_MEMORY_PRESSURE;
const DP: &str = TAINT_NODE_DISK_PRESSURE;

fn now() -> Timestamp {
    Timestamp::from_second(1_700_000_000).unwrap()
}

fn earlier() -> Timestamp {
    Timestamp::from_second(1_600_000_000).unwrap()
}

fn cond(type_: &str, status: &str) -> NodeCondition {
    NodeCondition {
        type_: type_.into(),
        status: status.into(),
        ..Default::default()
    }
}

fn node(conditions: &[(&str, &str)], unschedulable: bool, taints: Vec<Taint>) -> Node {
    Node {
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            unschedulable: unschedulable.then_some(true),
            ..Default::default()
        }),
        status: Some(NodeStatus {
            conditions: Some(conditions.iter().map(|(t, s)| cond(t, s)).collect()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A taint as the controller adds it: `timeAdded = now`.
fn added(key: &str, effect: &str) -> Taint {
    Taint {
        time_added: Some(Time(now())),
        ..taint(key, "", effect)
    }
}

fn old(key: &str, effect: &str) -> Taint {
    Taint {
        time_added: Some(Time(earlier())),
        ..taint(key, "", effect)
    }
}

#[test]
fn no_schedule_taints_table() {
    let cases: Vec<(&str, Node, Vec<Taint>)> = vec![
        (
            "a ready node with no pressure gets nothing",
            node(
                &[("Ready", "True"), ("MemoryPressure", "False")],
                false,
                vec![],
            ),
            vec![],
        ),
        (
            "Ready False maps to not-ready",
            node(&[("Ready", "False")], false, vec![]),
            vec![taint(NR, "", "NoSchedule")],
        ),
        (
            "Ready Unknown maps to unreachable",
            node(&[("Ready", "Unknown")], false, vec![]),
            vec![taint(UR, "", "NoSchedule")],
        ),
        (
            "each pressure condition True maps to its taint, in the node's condition order",
            node(
                &[
                    ("PIDPressure", "True"),
                    ("Ready", "True"),
                    ("DiskPressure", "True"),
                    ("NetworkUnavailable", "True"),
                    ("MemoryPressure", "True"),
                ],
                false,
                vec![],
            ),
            vec![
                taint(TAINT_NODE_PID_PRESSURE, "", "NoSchedule"),
                taint(DP, "", "NoSchedule"),
                taint(TAINT_NODE_NETWORK_UNAVAILABLE, "", "NoSchedule"),
                taint(MP, "", "NoSchedule"),
            ],
        ),
        (
            "a pressure condition Unknown maps to nothing",
            node(&[("MemoryPressure", "Unknown")], false, vec![]),
            vec![],
        ),
        (
            "statuses are case-sensitive",
            node(&[("Ready", "false")], false, vec![]),
            vec![],
        ),
        (
            "unknown condition types map to nothing",
            node(&[("KernelDeadlock", "True")], false, vec![]),
            vec![],
        ),
        (
            "spec.unschedulable adds unschedulable after the conditions",
            node(&[("MemoryPressure", "True")], true, vec![]),
            vec![
                taint(MP, "", "NoSchedule"),
                taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule"),
            ],
        ),
        (
            "a node without status or spec gets nothing",
            Node::default(),
            vec![],
        ),
    ];
    for (name, n, want) in cases {
        assert_eq!(no_schedule_taints_for(&n), want, "{name}");
    }
}

#[test]
fn no_execute_taint_table() {
    let cases: Vec<(&str, Node, Option<Taint>)> = vec![
        (
            "Ready False is not-ready NoExecute",
            node(&[("Ready", "False")], false, vec![]),
            Some(taint(NR, "", "NoExecute")),
        ),
        (
            "Ready Unknown is unreachable NoExecute",
            node(&[("Ready", "Unknown")], false, vec![]),
            Some(taint(UR, "", "NoExecute")),
        ),
        (
            "Ready True is none",
            node(&[("Ready", "True")], false, vec![]),
            None,
        ),
        (
            "no Ready condition is none",
            node(&[("MemoryPressure", "True")], false, vec![]),
            None,
        ),
        (
            "the first Ready condition decides",
            node(&[("Ready", "Unknown"), ("Ready", "False")], false, vec![]),
            Some(taint(UR, "", "NoExecute")),
        ),
    ];
    for (name, n, want) in cases {
        assert_eq!(no_execute_taint_for(&n), want, "{name}");
    }
}

#[test]
fn reconcile_table() {
    let user = taint("dedicated", "gpu", "NoSchedule");
    let cases: Vec<(&str, Node, Vec<Taint>)> = vec![
        (
            "a not-ready node gets both not-ready taints with timeAdded now, after user taints",
            node(&[("Ready", "False")], false, vec![user.clone()]),
            vec![
                user.clone(),
                added(NR, "NoSchedule"),
                added(NR, "NoExecute"),
            ],
        ),
        (
            "a node turning unreachable swaps not-ready for unreachable in both effects",
            node(
                &[("Ready", "Unknown")],
                false,
                vec![old(NR, "NoSchedule"), old(NR, "NoExecute"), user.clone()],
            ),
            vec![
                user.clone(),
                added(UR, "NoSchedule"),
                added(UR, "NoExecute"),
            ],
        ),
        (
            "a node becoming ready loses every controller taint but keeps user ones",
            node(
                &[("Ready", "True")],
                false,
                vec![
                    old(UR, "NoSchedule"),
                    user.clone(),
                    old(UR, "NoExecute"),
                    old(MP, "NoSchedule"),
                ],
            ),
            vec![user.clone()],
        ),
        (
            "taints already present are kept with their old timeAdded",
            node(
                &[("Ready", "False"), ("MemoryPressure", "True")],
                false,
                vec![
                    old(NR, "NoExecute"),
                    old(MP, "NoSchedule"),
                    old(NR, "NoSchedule"),
                ],
            ),
            vec![
                old(NR, "NoExecute"),
                old(MP, "NoSchedule"),
                old(NR, "NoSchedule"),
            ],
        ),
        (
            "a controller key with a value counts as present (key and effect only)",
            node(
                &[("DiskPressure", "True"), ("Ready", "True")],
                false,
                vec![taint(DP, "user", "NoSchedule")],
            ),
            vec![taint(DP, "user", "NoSchedule")],
        ),
        (
            "controller keys with other effects are not touched by the NoSchedule pass",
            node(
                &[("Ready", "True")],
                false,
                vec![
                    taint(MP, "", "PreferNoSchedule"),
                    taint(MP, "", "NoExecute"),
                ],
            ),
            vec![
                taint(MP, "", "PreferNoSchedule"),
                taint(MP, "", "NoExecute"),
            ],
        ),
        (
            "unschedulable is added and removed with spec.unschedulable",
            node(&[("Ready", "True")], true, vec![]),
            vec![added(TAINT_NODE_UNSCHEDULABLE, "NoSchedule")],
        ),
        (
            "unschedulable goes away when the node is schedulable again",
            node(
                &[("Ready", "True")],
                false,
                vec![old(TAINT_NODE_UNSCHEDULABLE, "NoSchedule")],
            ),
            vec![],
        ),
        (
            "without a Ready condition NoExecute taints are left alone",
            node(
                &[("MemoryPressure", "True")],
                false,
                vec![old(UR, "NoExecute")],
            ),
            vec![old(UR, "NoExecute"), added(MP, "NoSchedule")],
        ),
        (
            "the out-of-service taint is a user taint",
            node(
                &[("Ready", "True")],
                false,
                vec![taint(TAINT_NODE_OUT_OF_SERVICE_FOR_TEST, "", "NoExecute")],
            ),
            vec![taint(TAINT_NODE_OUT_OF_SERVICE_FOR_TEST, "", "NoExecute")],
        ),
    ];
    for (name, n, want) in cases {
        assert_eq!(reconcile_condition_taints(&n, now()), want, "{name}");
    }
}

const TAINT_NODE_OUT_OF_SERVICE_FOR_TEST: &str = crate::taint::TAINT_NODE_OUT_OF_SERVICE;

#[test]
fn reconcile_is_idempotent() {
    let conds = [
        ("Ready", "Unknown"),
        ("DiskPressure", "True"),
        ("PIDPressure", "True"),
    ];
    let first = reconcile_condition_taints(&node(&conds, true, vec![]), now());
    let second = reconcile_condition_taints(&node(&conds, true, first.clone()), now());
    assert_eq!(first, second, "a second pass changes nothing");
}

#[test]
fn condition_table_is_upstreams() {
    let rows: Vec<(&str, &str, &str, &str)> = CONDITION_TAINTS
        .iter()
        .map(|r| (r.condition, r.status, r.key, r.effect))
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "Ready",
                "False",
                "node.kubernetes.io/not-ready",
                "NoSchedule"
            ),
            (
                "Ready",
                "Unknown",
                "node.kubernetes.io/unreachable",
                "NoSchedule"
            ),
            (
                "MemoryPressure",
                "True",
                "node.kubernetes.io/memory-pressure",
                "NoSchedule"
            ),
            (
                "DiskPressure",
                "True",
                "node.kubernetes.io/disk-pressure",
                "NoSchedule"
            ),
            (
                "NetworkUnavailable",
                "True",
                "node.kubernetes.io/network-unavailable",
                "NoSchedule"
            ),
            (
                "PIDPressure",
                "True",
                "node.kubernetes.io/pid-pressure",
                "NoSchedule"
            ),
            (
                "spec.unschedulable",
                "true",
                "node.kubernetes.io/unschedulable",
                "NoSchedule"
            ),
            (
                "Ready",
                "False",
                "node.kubernetes.io/not-ready",
                "NoExecute"
            ),
            (
                "Ready",
                "Unknown",
                "node.kubernetes.io/unreachable",
                "NoExecute"
            ),
        ],
        "the table matches upstream's map, unschedulable and the NoExecute pair"
    );
    let keys = [
        ("not-ready is a controller key", NR, true),
        (
            "unschedulable is a controller key",
            TAINT_NODE_UNSCHEDULABLE,
            true,
        ),
        (
            "out-of-service is not a controller key",
            crate::taint::TAINT_NODE_OUT_OF_SERVICE,
            false,
        ),
        ("a user key is not a controller key", "dedicated", false),
    ];
    for (name, key, want) in keys {
        assert_eq!(is_controller_no_schedule_key(key), want, "{name}");
    }
    // The prefix shortcut leaves out no key of the table.
    for r in CONDITION_TAINTS.iter().filter(|r| r.effect == NO_SCHEDULE) {
        assert!(is_controller_no_schedule_key(r.key), "{}", r.key);
    }
    assert!(!is_controller_no_schedule_key(
        "node.kubernetes.io/dedicated"
    ));
}
