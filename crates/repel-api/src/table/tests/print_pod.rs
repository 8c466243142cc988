//! Pod rows: status, restarts, terminating, unknown, init containers, readiness gates.

use super::*;

fn pod(status: Value) -> Value {
    json!({
        "metadata": {"name": "test1", "namespace": "default", "creationTimestamp": ago(3 * 3600)},
        "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "node1"},
        "status": status
    })
}

#[test]
fn pod_rows() {
    let running = json!({"ready": true, "restartCount": 3, "state": {"running": {}}});
    let cases = [
        (
            "one ready container of two, restarts summed",
            pod(
                json!({"phase": "Running", "containerStatuses": [running.clone(), {"restartCount": 3}]}),
            ),
            json!([
                "test1", "1/2", "Running", "6", "3h", "<none>", "node1", "<none>", "<none>"
            ]),
        ),
        (
            "a waiting container's reason is the status",
            pod(
                json!({"phase": "Pending", "containerStatuses": [{"restartCount": 3, "state": {"waiting": {"reason": "ContainerCreating"}}}, running.clone()]}),
            ),
            json!([
                "test1",
                "1/2",
                "ContainerCreating",
                "6",
                "3h",
                "<none>",
                "node1",
                "<none>",
                "<none>"
            ]),
        ),
        (
            "a terminated container's reason",
            pod(
                json!({"phase": "Running", "containerStatuses": [{"state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}]}),
            ),
            json!([
                "test1",
                "0/2",
                "OOMKilled",
                "0",
                "3h",
                "<none>",
                "node1",
                "<none>",
                "<none>"
            ]),
        ),
        (
            "a terminated container without reason: the signal",
            pod(
                json!({"phase": "Running", "containerStatuses": [{"state": {"terminated": {"signal": 9, "exitCode": 137}}}]}),
            ),
            json!([
                "test1", "0/2", "Signal:9", "0", "3h", "<none>", "node1", "<none>", "<none>"
            ]),
        ),
        (
            "a terminated container without reason or signal: the exit code",
            pod(
                json!({"phase": "Running", "containerStatuses": [{"state": {"terminated": {"exitCode": 2}}}]}),
            ),
            json!([
                "test1",
                "0/2",
                "ExitCode:2",
                "0",
                "3h",
                "<none>",
                "node1",
                "<none>",
                "<none>"
            ]),
        ),
        (
            "the pod's reason wins over its phase",
            pod(json!({"phase": "Failed", "reason": "Evicted"})),
            json!([
                "test1", "0/2", "Evicted", "0", "3h", "<none>", "node1", "<none>", "<none>"
            ]),
        ),
        (
            "the last restart time",
            pod(json!({"phase": "Running", "containerStatuses": [
                {"ready": true, "restartCount": 2, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(600)}}},
                {"ready": true, "restartCount": 1, "state": {"running": {}}, "lastState": {"terminated": {"finishedAt": ago(1200)}}}
            ]})),
            json!([
                "test1",
                "2/2",
                "Running",
                "3 (10m ago)",
                "3h",
                "<none>",
                "node1",
                "<none>",
                "<none>"
            ]),
        ),
        (
            "pod IP and nominated node",
            pod(
                json!({"phase": "Running", "podIPs": [{"ip": "10.1.0.5"}, {"ip": "fd00::5"}], "nominatedNodeName": "node2"}),
            ),
            json!([
                "test1", "0/2", "Running", "0", "3h", "10.1.0.5", "node1", "node2", "<none>"
            ]),
        ),
        (
            "only podIP set: the v1 conversion fills podIPs from it",
            pod(json!({"phase": "Running", "podIP": "10.1.0.7"})),
            json!([
                "test1", "0/2", "Running", "0", "3h", "10.1.0.7", "node1", "<none>", "<none>"
            ]),
        ),
        (
            "completed with a running container and Ready: Running",
            pod(
                json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}], "containerStatuses": [
                    {"state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
                    {"ready": true, "state": {"running": {}}}
                ]}),
            ),
            json!([
                "test1", "1/2", "Running", "0", "3h", "<none>", "node1", "<none>", "<none>"
            ]),
        ),
        (
            "completed with a running container, not Ready: NotReady",
            pod(json!({"phase": "Running", "containerStatuses": [
                {"state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
                {"ready": true, "state": {"running": {}}}
            ]})),
            json!([
                "test1", "1/2", "NotReady", "0", "3h", "<none>", "node1", "<none>", "<none>"
            ]),
        ),
        (
            "scheduling gated",
            pod(
                json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}),
            ),
            json!([
                "test1",
                "0/2",
                "SchedulingGated",
                "0",
                "3h",
                "<none>",
                "node1",
                "<none>",
                "<none>"
            ]),
        ),
    ];
    for (name, p, want) in cases {
        assert_eq!(Value::Array(row_cells("Pod", &p, now())), want, "{name}");
    }
}

#[test]
fn pod_terminating_unknown_and_init() {
    let mut deleting = pod(json!({"phase": "Running"}));
    deleting["metadata"]["deletionTimestamp"] = json!(ago(5));
    assert_eq!(
        row_cells("Pod", &deleting, now())[2],
        "Terminating",
        "deleted, not terminal"
    );
    deleting["status"]["reason"] = json!("NodeLost");
    assert_eq!(
        row_cells("Pod", &deleting, now())[2],
        "Unknown",
        "deleted on a lost node"
    );
    let mut done = pod(json!({"phase": "Succeeded"}));
    done["metadata"]["deletionTimestamp"] = json!(ago(5));
    assert_eq!(
        row_cells("Pod", &done, now())[2],
        "Succeeded",
        "a terminal pod is not Terminating"
    );

    let mut init = pod(json!({"phase": "Pending", "initContainerStatuses": [
        {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
        {"name": "i2", "restartCount": 1, "state": {"running": {}}}
    ], "containerStatuses": [{"restartCount": 5, "state": {"waiting": {"reason": "PodInitializing"}}}]}));
    init["spec"]["initContainers"] = json!([{"name": "i1"}, {"name": "i2"}]);
    let cells = row_cells("Pod", &init, now());
    assert_eq!(cells[2], "Init:1/2", "the second init container runs");
    assert_eq!(cells[3], "1", "only init restarts count while initializing");

    init["status"]["initContainerStatuses"][1]["state"] =
        json!({"waiting": {"reason": "CrashLoopBackOff"}});
    assert_eq!(row_cells("Pod", &init, now())[2], "Init:CrashLoopBackOff");
    init["status"]["initContainerStatuses"][1]["state"] =
        json!({"terminated": {"exitCode": 1, "reason": "Error"}});
    assert_eq!(row_cells("Pod", &init, now())[2], "Init:Error");

    let mut sidecar = pod(json!({"phase": "Running", "initContainerStatuses": [
        {"name": "side", "started": true, "ready": true, "restartCount": 2, "state": {"running": {}}}
    ], "containerStatuses": [{"ready": true, "state": {"running": {}}}, {"ready": true, "state": {"running": {}}}]}));
    sidecar["spec"]["initContainers"] = json!([{"name": "side", "restartPolicy": "Always"}]);
    let cells = row_cells("Pod", &sidecar, now());
    assert_eq!(
        cells[1], "3/3",
        "a restartable init container counts as a container"
    );
    assert_eq!(cells[3], "2", "its restarts count");
}

#[test]
fn pod_readiness_gates_and_row_conditions() {
    let mut p = pod(
        json!({"phase": "Running", "conditions": [{"type": "a", "status": "True"}, {"type": "b", "status": "False"}]}),
    );
    p["spec"]["readinessGates"] =
        json!([{"conditionType": "a"}, {"conditionType": "b"}, {"conditionType": "c"}]);
    assert_eq!(row_cells("Pod", &p, now())[8], "1/3");
    let done = pod(json!({"phase": "Succeeded"}));
    let t = pod_table(&[&done], now(), "7");
    assert_eq!(t["rows"][0]["conditions"][0]["type"], "Completed");
    assert_eq!(t["rows"][0]["conditions"][0]["reason"], "Succeeded");
    let failed = pod(json!({"phase": "Failed"}));
    assert_eq!(
        pod_table(&[&failed], now(), "7")["rows"][0]["conditions"][0]["reason"],
        "Failed"
    );
    let running = pod(json!({"phase": "Running"}));
    assert!(
        pod_table(&[&running], now(), "7")["rows"][0]
            .get("conditions")
            .is_none()
    );
    assert_eq!(
        pod_table(&[&running], now(), "7")["rows"][0]["object"]["metadata"]["namespace"],
        "default"
    );
    let cols = columns("Pod");
    let names: Vec<&str> = cols
        .iter()
        .map(|c| c["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "Name",
            "Ready",
            "Status",
            "Restarts",
            "Age",
            "IP",
            "Node",
            "Nominated Node",
            "Readiness Gates"
        ]
    );
}
