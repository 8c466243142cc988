//! Upstream `TestPrintPod`'s cases, names verbatim.

use super::*;

/// A pod as upstream's TestPrintPod builds them: no creationTimestamp, `init` and `containers`
/// unnamed containers.
fn upstream_pod(name: &str, init: usize, containers: usize, status: Value) -> Value {
    json!({
        "metadata": {"name": name},
        "spec": {"initContainers": vec![json!({"name": ""}); init], "containers": vec![json!({"name": ""}); containers]},
        "status": status
    })
}

#[test]
fn upstream_print_pod_cases() {
    let running = json!({"running": {}});
    let finished = |secs: i64| json!({"terminated": {"finishedAt": ago(secs)}});
    let cases = [
        (
            "test1: num of containers, restarts, container ready status",
            upstream_pod(
                "test1",
                0,
                2,
                json!({"phase": "podPhase", "containerStatuses": [
             {"ready": true, "restartCount": 3, "state": running}, {"restartCount": 3}]}),
            ),
            ["test1", "1/2", "podPhase", "6", "<unknown>"],
        ),
        (
            "test2: container error overwrites pod phase",
            upstream_pod(
                "test2",
                0,
                2,
                json!({"phase": "podPhase", "containerStatuses": [
             {"ready": true, "restartCount": 3, "state": running},
             {"restartCount": 3, "state": {"waiting": {"reason": "ContainerWaitingReason"}}}]}),
            ),
            ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"],
        ),
        (
            "test3: the first container overwrites the rest",
            upstream_pod(
                "test3",
                0,
                2,
                json!({"phase": "podPhase", "containerStatuses": [
             {"restartCount": 3, "state": {"waiting": {"reason": "ContainerWaitingReason"}}},
             {"restartCount": 3, "state": {"terminated": {"reason": "ContainerTerminatedReason"}}}]}),
            ),
            ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"],
        ),
        (
            "test4: ready is not enough for reporting running",
            upstream_pod(
                "test4",
                0,
                2,
                json!({"phase": "podPhase", "containerStatuses": [
             {"ready": true, "restartCount": 3, "state": running}, {"ready": true, "restartCount": 3}]}),
            ),
            ["test4", "1/2", "podPhase", "6", "<unknown>"],
        ),
        (
            "test5: the pod reason",
            upstream_pod(
                "test5",
                0,
                2,
                json!({"phase": "podPhase", "reason": "podReason", "containerStatuses": [
             {"ready": true, "restartCount": 3, "state": running}, {"ready": true, "restartCount": 3}]}),
            ),
            ["test5", "1/2", "podReason", "6", "<unknown>"],
        ),
        (
            "test6: one running, one completed, no ready condition",
            upstream_pod(
                "test6",
                0,
                2,
                json!({"phase": "Running", "containerStatuses": [
             {"ready": true, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
             {"ready": true, "restartCount": 3, "state": running}]}),
            ),
            ["test6", "1/2", "NotReady", "6", "<unknown>"],
        ),
        (
            "test6: one running, one completed, ready condition",
            upstream_pod(
                "test6",
                0,
                2,
                json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}], "containerStatuses": [
             {"ready": true, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
             {"ready": true, "restartCount": 3, "state": running}]}),
            ),
            ["test6", "1/2", "Running", "6", "<unknown>"],
        ),
        (
            "test7: an init container restarting",
            upstream_pod(
                "test7",
                1,
                1,
                json!({"phase": "podPhase",
             "initContainerStatuses": [{"restartCount": 3, "state": running, "lastState": finished(10)}],
             "containerStatuses": [{"state": {"waiting": {}}}]}),
            ),
            ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"],
        ),
        (
            "test8: two init containers, one restarting",
            upstream_pod(
                "test8",
                2,
                1,
                json!({"phase": "podPhase",
             "initContainerStatuses": [{"restartCount": 3, "state": running, "lastState": finished(10)}, {"state": {"waiting": {}}}],
             "containerStatuses": [{"state": {"waiting": {}}}]}),
            ),
            ["test8", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"],
        ),
        (
            "test9: one init container completed, the other restarting",
            upstream_pod(
                "test9",
                2,
                1,
                json!({"phase": "podPhase",
             "initContainerStatuses": [{"state": {"terminated": {}}}, {"restartCount": 3, "state": running, "lastState": finished(10)}],
             "containerStatuses": [{"state": {"waiting": {}}}]}),
            ),
            ["test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"],
        ),
        (
            "test10: one init container completed with restarts, the other restarting",
            upstream_pod(
                "test10",
                2,
                1,
                json!({"phase": "podPhase",
             "initContainerStatuses": [{"restartCount": 2, "state": {"terminated": {}}, "lastState": finished(120)},
                                       {"restartCount": 3, "state": running, "lastState": finished(10)}],
             "containerStatuses": [{"state": {"waiting": {}}}]}),
            ),
            ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"],
        ),
        (
            "test11: init container completed with restarts, container restarting",
            upstream_pod(
                "test11",
                1,
                1,
                json!({"phase": "Running",
             "initContainerStatuses": [{"restartCount": 2, "state": {"terminated": {}}, "lastState": finished(120)}],
             "containerStatuses": [{"restartCount": 4, "state": running, "lastState": finished(20)}]}),
            ),
            ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"],
        ),
        (
            "test12: restarted 5d ago",
            upstream_pod(
                "test12",
                0,
                1,
                json!({"phase": "Running",
             "containerStatuses": [{"ready": true, "restartCount": 3, "state": running, "lastState": finished(5 * 86400)}]}),
            ),
            ["test12", "1/1", "Running", "3 (5d ago)", "<unknown>"],
        ),
        (
            "test13: one never restarted, the other 10d ago",
            upstream_pod(
                "test13",
                0,
                2,
                json!({"phase": "Running", "containerStatuses": [
             {"ready": true, "state": running},
             {"ready": true, "restartCount": 3, "state": running, "lastState": finished(10 * 86400)}]}),
            ),
            ["test13", "2/2", "Running", "3 (10d ago)", "<unknown>"],
        ),
        (
            "test14: 5d and 20d ago: the latest",
            upstream_pod(
                "test14",
                0,
                2,
                json!({"phase": "Running", "containerStatuses": [
             {"ready": true, "restartCount": 6, "state": running, "lastState": finished(5 * 86400)},
             {"ready": true, "restartCount": 3, "state": running, "lastState": finished(20 * 86400)}]}),
            ),
            ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"],
        ),
        (
            "test15: scheduling gated",
            upstream_pod(
                "test15",
                0,
                2,
                json!({"phase": "podPhase", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}),
            ),
            ["test15", "0/2", "SchedulingGated", "0", "<unknown>"],
        ),
        (
            "test16: succeeded",
            upstream_pod(
                "test16",
                0,
                1,
                json!({"phase": "Succeeded", "containerStatuses": [{"state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]}),
            ),
            ["test16", "0/1", "Completed", "0", "<unknown>"],
        ),
        (
            "test17: failed",
            upstream_pod(
                "test17",
                0,
                1,
                json!({"phase": "Failed", "containerStatuses": [{"state": {"terminated": {"reason": "Error", "exitCode": 1}}}]}),
            ),
            ["test17", "0/1", "Error", "0", "<unknown>"],
        ),
    ];
    for (name, p, want) in cases {
        let cells = row_cells("Pod", &p, now());
        assert_eq!(&cells[..5], &want.map(|w| json!(w))[..], "{name}");
    }
}
