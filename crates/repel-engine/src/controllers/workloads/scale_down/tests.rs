use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodCondition, PodSpec, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

use super::*;
use crate::controllers::node_lifecycle::sim_timestamp;

/// A fixed "now" (2026-05-28T20:26:40Z, in milliseconds), upstream's `metav1.Now()`.
const NOW: Millis = 1_780_000_000_000;
const HOUR: Millis = 3_600_000;

fn time(ms: Option<Millis>) -> Option<Time> {
    ms.map(|ms| Time(sim_timestamp(ms)))
}

/// Upstream's `pod(podName, nodeName, phase, ready, restarts, readySince, created,
/// annotations)` helper of `TestSortingActivePodsWithRanks` (`None` times are Go's zero time).
/// Upstream's pods have no uid (an empty one): so have these, where repel would derive one.
#[allow(clippy::too_many_arguments)]
fn pod(
    name: &str,
    node: &str,
    phase: &str,
    ready: bool,
    restarts: i32,
    ready_since: Option<Millis>,
    created: Option<Millis>,
    annotations: Option<BTreeMap<String, String>>,
) -> Pod {
    let (conditions, container_statuses) = if ready {
        (
            Some(vec![PodCondition {
                type_: "Ready".into(),
                status: "True".into(),
                last_transition_time: time(ready_since),
                ..Default::default()
            }]),
            Some(vec![ContainerStatus {
                restart_count: restarts,
                ..Default::default()
            }]),
        )
    } else {
        (None, None)
    };
    Pod {
        metadata: ObjectMeta {
            creation_timestamp: time(created),
            name: Some(name.into()),
            uid: Some(String::new()),
            annotations,
            ..Default::default()
        },
        spec: Some(PodSpec {
            node_name: (!node.is_empty()).then(|| node.to_string()),
            ..Default::default()
        }),
        status: Some(PodStatus {
            conditions,
            container_statuses,
            phase: Some(phase.into()),
            ..Default::default()
        }),
    }
}

fn cost(value: &str) -> Option<BTreeMap<String, String>> {
    Some([(POD_DELETION_COST.to_string(), value.to_string())].into())
}

/// Upstream `TestSortingActivePodsWithRanks` (`pkg/controller/controller_utils_test.go`),
/// its pods and cases verbatim, each pod read into the engine's model as an input pod is.
#[test]
fn sorting_active_pods_with_ranks() {
    let then_1_month = Some(NOW - 30 * 24 * HOUR);
    let then_2_hours = Some(NOW - 2 * HOUR);
    let then_5_hours = Some(NOW - 5 * HOUR);
    let then_8_hours = Some(NOW - 8 * HOUR);
    let (now, zero) = (Some(NOW), None);
    let mut c = Cluster::new();
    let mut add = |p: Pod| c.add_pod(p);
    let unscheduled_pod = add(pod(
        "unscheduled",
        "",
        "Pending",
        false,
        0,
        zero,
        zero,
        None,
    ));
    let scheduled_pending_pod = add(pod(
        "pending", "node", "Pending", false, 0, zero, zero, None,
    ));
    let unknown_phase_pod = add(pod(
        "unknown-phase",
        "node",
        "Unknown",
        false,
        0,
        zero,
        zero,
        None,
    ));
    let running_not_ready_pod = add(pod(
        "not-ready",
        "node",
        "Running",
        false,
        0,
        zero,
        zero,
        None,
    ));
    let running_ready_no_last_transition_time_pod = add(pod(
        "ready-no-last-transition-time",
        "node",
        "Running",
        true,
        0,
        zero,
        zero,
        None,
    ));
    let running_ready_now = add(pod("ready-now", "node", "Running", true, 0, now, now, None));
    let running_ready_then = add(pod(
        "ready-then",
        "node",
        "Running",
        true,
        0,
        then_1_month,
        then_1_month,
        None,
    ));
    let running_ready_now_high_restarts = add(pod(
        "ready-high-restarts",
        "node",
        "Running",
        true,
        9001,
        now,
        now,
        None,
    ));
    let running_ready_now_created_then = add(pod(
        "ready-now-created-then",
        "node",
        "Running",
        true,
        0,
        now,
        then_1_month,
        None,
    ));
    let low_pod_deletion_cost = add(pod(
        "low-deletion-cost",
        "node",
        "Running",
        true,
        0,
        now,
        then_1_month,
        cost("10"),
    ));
    let high_pod_deletion_cost = add(pod(
        "high-deletion-cost",
        "node",
        "Running",
        true,
        0,
        now,
        then_1_month,
        cost("100"),
    ));
    let unscheduled_5_hours = add(pod(
        "unscheduled-5-hours",
        "",
        "Pending",
        false,
        0,
        then_5_hours,
        then_5_hours,
        None,
    ));
    let unscheduled_8_hours = add(pod(
        "unscheduled-10-hours",
        "",
        "Pending",
        false,
        0,
        then_8_hours,
        then_8_hours,
        None,
    ));
    let ready_2_hours = add(pod(
        "ready-2-hours",
        "",
        "Running",
        true,
        0,
        then_2_hours,
        then_1_month,
        None,
    ));
    let ready_5_hours = add(pod(
        "ready-5-hours",
        "",
        "Running",
        true,
        0,
        then_5_hours,
        then_1_month,
        None,
    ));
    let ready_10_hours = add(pod(
        "ready-10-hours",
        "",
        "Running",
        true,
        0,
        then_8_hours,
        then_1_month,
        None,
    ));
    let ranked = |p: PodId, rank: usize| RankedPod::of(&c.pods[p], rank);

    #[rustfmt::skip]
    let equality: [(PodId, Option<PodId>); 11] = [
        (unscheduled_pod, None),
        (scheduled_pending_pod, None),
        (unknown_phase_pod, None),
        (running_not_ready_pod, None),
        (running_ready_now_created_then, None),
        (running_ready_now, None),
        (running_ready_then, None),
        (running_ready_now_high_restarts, None),
        (running_ready_now_created_then, None),
        (unscheduled_5_hours, Some(unscheduled_8_hours)),
        (ready_5_hours, Some(ready_10_hours)),
    ];
    for (i, (p1, p2)) in equality.into_iter().enumerate() {
        let name = format!("Equality tests {i}");
        let (a, b) = (ranked(p1, 1), ranked(p2.unwrap_or(p1), 1));
        assert!(
            !less(&a, &b, NOW, true) && !less(&b, &a, NOW, true),
            "{name}: expected pod {:?} to be equivalent to {:?}",
            c.pods[p1].name,
            c.pods[p2.unwrap_or(p1)].name
        );
    }

    // (lesser, its rank, greater, its rank, the PodDeletionCost gate off)
    #[rustfmt::skip]
    let inequality: [(PodId, usize, PodId, usize, bool); 16] = [
        (unscheduled_pod, 1, scheduled_pending_pod, 2, false),
        (unscheduled_pod, 2, scheduled_pending_pod, 1, false),
        (scheduled_pending_pod, 1, unknown_phase_pod, 2, false),
        (unknown_phase_pod, 1, running_not_ready_pod, 2, false),
        (running_not_ready_pod, 1, running_ready_no_last_transition_time_pod, 1, false),
        (running_ready_no_last_transition_time_pod, 1, running_ready_now, 1, false),
        (running_ready_now, 2, running_ready_no_last_transition_time_pod, 1, false),
        (running_ready_now, 1, running_ready_then, 1, false),
        (running_ready_now, 2, running_ready_then, 1, false),
        (running_ready_now_high_restarts, 1, running_ready_now, 1, false),
        (running_ready_now, 2, running_ready_now_high_restarts, 1, false),
        (running_ready_now, 1, running_ready_now_created_then, 1, false),
        (running_ready_now_created_then, 2, running_ready_now, 1, false),
        (low_pod_deletion_cost, 2, high_pod_deletion_cost, 1, false),
        (high_pod_deletion_cost, 2, low_pod_deletion_cost, 1, true),
        (ready_2_hours, 1, ready_5_hours, 1, false),
    ];
    for (i, (lesser, lr, greater, gr, disable_pod_deletion_cost)) in
        inequality.into_iter().enumerate()
    {
        let name = format!("Inequality tests {i}");
        let gate = !disable_pod_deletion_cost;
        let (a, b) = (ranked(lesser, lr), ranked(greater, gr));
        let (an, bn) = (&c.pods[lesser].name, &c.pods[greater].name);
        assert!(
            less(&a, &b, NOW, gate),
            "{name}: expected pod {an:?} with rank {lr} to be less than {bn:?} with rank {gr}"
        );
        assert!(
            !less(&b, &a, NOW, gate),
            "{name}: expected pod {bn:?} with rank {gr} not to be less than {an:?} with rank {lr}"
        );
    }
}

/// Upstream `newPod(name, rs, phase, nil, true)` of `TestGetPodsToDelete`
/// (`pkg/controller/replicaset/replica_set_test.go`): a Running pod is `Ready: True` with no
/// transition time; no creation time. `ready` replaces the conditions.
fn rs_pod(name: &str, phase: &str, node: &str, ready: Option<&str>) -> Pod {
    let mut p = pod(name, node, phase, false, 0, None, None, None);
    p.metadata.uid = None;
    let ready = ready.or((phase == "Running").then_some("True"));
    if let (Some(status), Some(s)) = (p.status.as_mut(), ready) {
        status.conditions = Some(vec![PodCondition {
            type_: "Ready".into(),
            status: s.into(),
            ..Default::default()
        }]);
    }
    p
}

/// Upstream `TestGetPodsToDelete` (`pkg/controller/replicaset/replica_set_test.go`), its cases
/// verbatim.
#[test]
fn get_pods_to_delete() {
    let mut c = Cluster::new();
    let unscheduled_pending_pod = c.add_pod(rs_pod("unscheduled-pending-pod", "Pending", "", None));
    let scheduled_pending_pod = c.add_pod(rs_pod(
        "scheduled-pending-pod",
        "Pending",
        "fake-node",
        None,
    ));
    let scheduled_running_not_ready_pod = c.add_pod(rs_pod(
        "scheduled-running-not-ready-pod",
        "Running",
        "fake-node",
        Some("False"),
    ));
    let scheduled_running_ready_pod_on_node_1 = c.add_pod(rs_pod(
        "scheduled-running-ready-pod-on-node-1",
        "Running",
        "fake-node-1",
        Some("True"),
    ));
    let scheduled_running_ready_pod_on_node_2 = c.add_pod(rs_pod(
        "scheduled-running-ready-pod-on-node-2",
        "Running",
        "fake-node-2",
        Some("True"),
    ));
    let (unscheduled, pending, not_ready, ready_1, ready_2) = (
        unscheduled_pending_pod,
        scheduled_pending_pod,
        scheduled_running_not_ready_pod,
        scheduled_running_ready_pod_on_node_1,
        scheduled_running_ready_pod_on_node_2,
    );
    // (name, pods, related pods (`None`: the pods), diff, expected)
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&str, Vec<PodId>, Option<Vec<PodId>>, usize, Vec<PodId>)> = vec![
        (
            "len(pods) = 0 (i.e., diff = 0 too)",
            vec![],
            None,
            0,
            vec![],
        ),
        (
            "diff = len(pods)",
            vec![not_ready, ready_1],
            None,
            2,
            vec![not_ready, ready_1],
        ),
        (
            "diff < len(pods)",
            vec![ready_1, not_ready],
            None,
            1,
            vec![not_ready],
        ),
        (
            "various pod phases and conditions, diff = len(pods)",
            vec![ready_1, ready_1, ready_2, not_ready, pending, unscheduled],
            None,
            6,
            vec![ready_1, ready_1, ready_2, not_ready, pending, unscheduled],
        ),
        (
            "various pod phases and conditions, diff = len(pods), relatedPods empty",
            vec![ready_1, ready_1, ready_2, not_ready, pending, unscheduled],
            Some(vec![]),
            6,
            vec![ready_1, ready_1, ready_2, not_ready, pending, unscheduled],
        ),
        (
            "scheduled vs unscheduled, diff < len(pods)",
            vec![pending, unscheduled],
            None,
            1,
            vec![unscheduled],
        ),
        (
            "ready vs not-ready, diff < len(pods)",
            vec![ready_1, not_ready, not_ready],
            None,
            2,
            vec![not_ready, not_ready],
        ),
        (
            "ready and colocated with another ready pod vs not colocated, diff < len(pods)",
            vec![ready_1, ready_2],
            Some(vec![ready_1, ready_2, ready_2]),
            1,
            vec![ready_2],
        ),
        (
            "pending vs running, diff < len(pods)",
            vec![pending, not_ready],
            None,
            1,
            vec![pending],
        ),
        (
            "various pod phases and conditions, diff < len(pods)",
            vec![ready_1, ready_2, not_ready, pending, unscheduled],
            None,
            3,
            vec![unscheduled, pending, not_ready],
        ),
    ];
    let names =
        |ids: &[PodId]| -> Vec<String> { ids.iter().map(|p| c.pods[*p].name.clone()).collect() };
    for (name, pods, related, diff, expected) in cases {
        let related = related.unwrap_or_else(|| pods.clone());
        let got = pods_to_delete(&c, &pods, &related, diff, NOW);
        assert_eq!(names(&got), names(&expected), "{name}");
    }
}

/// Upstream `GetDeletionCostFromPodAnnotations`: `+10` and `008` are invalid (its comment's
/// examples), as is anything `strconv.ParseInt(value, 10, 32)` refuses; each counts as 0.
#[test]
fn deletion_cost_parses_as_upstream() {
    #[rustfmt::skip]
    let cases = [
        ("no annotation", None, 0),
        ("a positive cost", Some("100"), 100),
        ("a negative cost", Some("-5"), -5),
        ("zero", Some("0"), 0),
        ("minus zero", Some("-0"), 0),
        ("the lowest int32", Some("-2147483648"), i32::MIN),
        ("a plus sign is invalid", Some("+10"), 0),
        ("leading zeros are invalid", Some("008"), 0),
        ("beyond int32 is invalid", Some("2147483648"), 0),
        ("not a number is invalid", Some("not a number"), 0),
        ("empty is invalid", Some(""), 0),
        ("a space is invalid", Some(" 5"), 0),
    ];
    for (name, value, want) in cases {
        let annotations = value.and_then(cost);
        assert_eq!(deletion_cost(annotations.as_ref()), want, "{name}");
    }
}

/// Go's `int64(math.Log2(float64(d)))` of ages in nanoseconds: 5 h and 8 h share bucket 44
/// (2^44 ns is about 4.9 h), 2 h is in bucket 42; an age that is not positive ranks -1.
#[test]
fn logarithmic_rank_diff_buckets_ages_by_powers_of_two() {
    #[rustfmt::skip]
    let cases = [
        ("5 h and 8 h share a bucket", NOW - 5 * HOUR, NOW - 8 * HOUR, 0),
        ("2 h is two buckets newer than 5 h", NOW - 2 * HOUR, NOW - 5 * HOUR, -2),
        ("a time in the future ranks -1", NOW + HOUR, NOW - 2 * HOUR, -1 - 42),
        ("now itself ranks -1", NOW, NOW - 1, -1 - 19),
    ];
    for (name, t1, t2, want) in cases {
        assert_eq!(logarithmic_rank_diff(t1, t2, NOW), want, "{name}");
    }
}

/// A pod without `metadata.uid` gets one from its creation order: UUID-shaped, the same every
/// time, different for each pod.
#[test]
fn derived_uids_are_stable_and_distinct() {
    let a = derived_uid(0);
    assert_eq!(a, derived_uid(0));
    assert_ne!(a, derived_uid(1));
    assert_eq!(a.len(), 36);
    assert_eq!(a.matches('-').count(), 4);
}

/// A `less` that is no order at all still sorts without panicking, and the sort is stable.
#[test]
fn the_merge_sort_is_stable_and_takes_any_less() {
    let keys = [3, 1, 2, 1, 3, 0];
    let order = sorted_by_less(keys.len(), |i, j| keys[i] < keys[j]);
    assert_eq!(order, [5, 1, 3, 2, 0, 4]);
    let cyclic = sorted_by_less(7, |i, j| (j + 7 - i) % 7 <= 3 && i != j);
    let mut seen = cyclic.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..7).collect::<Vec<_>>());
}
