//! Cases modelled on upstream `printers_test.go` (TestPrintNodeStatus, TestPrintNodeRole,
//! TestPrintPod, …) and `duration_test.go`, on JSON objects.

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::*;

fn now() -> Timestamp {
    "2026-11-30T12:00:00Z".parse().expect("time")
}

/// `now` minus `secs` seconds, RFC 3339.
fn ago(secs: i64) -> String {
    Timestamp::from_second(now().as_second() - secs)
        .expect("time")
        .to_string()
}

#[test]
fn human_duration_cases() {
    let cases = [
        (1_000, "1s"),
        (70_000, "70s"),
        (190_000, "3m10s"),
        (70 * 60_000, "70m"),
        (47 * 3_600_000, "47h"),
        (49 * 3_600_000, "2d1h"),
        ((8 * 24 + 2) * 3_600_000, "8d"),
        (367 * 24 * 3_600_000, "367d"),
        ((365 * 2 * 24 + 25) * 3_600_000, "2y1d"),
        ((365 * 8 * 24 + 2) * 3_600_000, "8y"),
        // boundaries
        (-2_000, "<invalid>"),
        (-1_999, "0s"),
        (0, "0s"),
        (999, "0s"),
        (2 * 60_000 - 1, "119s"),
        (2 * 60_000, "2m"),
        (2 * 60_000 + 1_000, "2m1s"),
        (10 * 60_000 - 1, "9m59s"),
        (10 * 60_000, "10m"),
        (10 * 60_000 + 1_000, "10m"),
        (3 * 3_600_000 - 1, "179m"),
        (3 * 3_600_000, "3h"),
        (3 * 3_600_000 + 60_000, "3h1m"),
        (8 * 3_600_000 - 1, "7h59m"),
        (8 * 3_600_000, "8h"),
        (8 * 3_600_000 + 59 * 60_000, "8h"),
        (2 * 24 * 3_600_000 - 1, "47h"),
        (2 * 24 * 3_600_000, "2d"),
        (2 * 24 * 3_600_000 + 3_600_000, "2d1h"),
        (8 * 24 * 3_600_000 - 1, "7d23h"),
        (8 * 24 * 3_600_000, "8d"),
        (2 * 365 * 24 * 3_600_000 - 1, "729d"),
        (2 * 365 * 24 * 3_600_000, "2y"),
        (2 * 365 * 24 * 3_600_000 + 24 * 3_600_000, "2y1d"),
        (8 * 365 * 24 * 3_600_000 - 1, "7y364d"),
        (8 * 365 * 24 * 3_600_000, "8y"),
        (9 * 365 * 24 * 3_600_000, "9y"),
    ];
    for (ms, want) in cases {
        assert_eq!(human_duration_millis(ms), want, "HumanDuration({ms} ms)");
    }
    assert_eq!(human_duration(300), "5m", "seconds helper");
}

fn node(unschedulable: bool, conditions: Value, labels: Value) -> Value {
    json!({
        "metadata": {"name": "node1", "labels": labels, "creationTimestamp": ago(300)},
        "spec": {"unschedulable": unschedulable},
        "status": {"conditions": conditions,
                   "nodeInfo": {"kubeletVersion": "v1.32.0", "osImage": "SimOS", "kernelVersion": "6.1.0", "containerRuntimeVersion": "sim://1.0"},
                   "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}
    })
}

#[test]
fn node_status_column() {
    let ready = json!([{"type": "Ready", "status": "True"}]);
    let not_ready = json!([{"type": "Ready", "status": "False"}]);
    let unknown = json!([{"type": "Ready", "status": "Unknown"}]);
    let invalid = json!([{"type": "InvalidValue", "status": "True"}]);
    let cases = [
        ("ready", false, ready.clone(), "Ready"),
        (
            "cordoned ready node",
            true,
            ready.clone(),
            "Ready,SchedulingDisabled",
        ),
        (
            "a repeated condition counts once",
            false,
            json!([{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "True"}]),
            "Ready",
        ),
        ("not ready", false, not_ready.clone(), "NotReady"),
        (
            "cordoned not-ready node",
            true,
            not_ready,
            "NotReady,SchedulingDisabled",
        ),
        ("Ready=Unknown prints NotReady", false, unknown, "NotReady"),
        (
            "only other conditions: Unknown",
            false,
            invalid.clone(),
            "Unknown",
        ),
        ("no conditions: Unknown", false, json!([]), "Unknown"),
        (
            "cordoned, other conditions",
            true,
            invalid,
            "Unknown,SchedulingDisabled",
        ),
        (
            "cordoned, no conditions",
            true,
            json!([]),
            "Unknown,SchedulingDisabled",
        ),
    ];
    for (name, unsched, conds, want) in cases {
        let n = node(unsched, conds, json!({}));
        assert_eq!(row_cells("Node", &n, now())[1], json!(want), "{name}");
    }
}

#[test]
fn node_roles_column() {
    let cases = [
        (
            "one node-role label",
            json!({"node-role.kubernetes.io/fooRole": "true"}),
            "fooRole",
        ),
        (
            "roles sorted",
            json!({"node-role.kubernetes.io/bazRole": "true", "node-role.kubernetes.io/barRole": "true"}),
            "barRole,bazRole",
        ),
        (
            "kubernetes.io/role value",
            json!({"kubernetes.io/role": "node"}),
            "node",
        ),
        (
            "both kinds, deduplicated",
            json!({"kubernetes.io/role": "control-plane", "node-role.kubernetes.io/control-plane": ""}),
            "control-plane",
        ),
        (
            "an empty role name is no role",
            json!({"node-role.kubernetes.io/": "true"}),
            "<none>",
        ),
        (
            "an empty kubernetes.io/role is no role",
            json!({"kubernetes.io/role": ""}),
            "<none>",
        ),
        ("no labels", json!({}), "<none>"),
    ];
    for (name, labels, want) in cases {
        let n = node(false, json!([]), labels);
        assert_eq!(row_cells("Node", &n, now())[2], json!(want), "{name}");
    }
}

#[test]
fn node_row_and_table_shape() {
    let n = node(
        true,
        json!([{"type": "Ready", "status": "True"}]),
        json!({}),
    );
    let t = node_table(&[&n], now(), "123");
    assert_eq!(t["kind"], "Table");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(t["metadata"], json!({"resourceVersion": "123"}));
    let names: Vec<&str> = t["columnDefinitions"]
        .as_array()
        .expect("cols")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "Name",
            "Status",
            "Roles",
            "Age",
            "Version",
            "Internal-IP",
            "External-IP",
            "OS-Image",
            "Kernel-Version",
            "Container-Runtime"
        ]
    );
    let prio: Vec<i64> = t["columnDefinitions"]
        .as_array()
        .expect("cols")
        .iter()
        .map(|c| c["priority"].as_i64().unwrap_or(-1))
        .collect();
    assert_eq!(prio, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    assert_eq!(t["columnDefinitions"][0]["format"], "name");
    assert_eq!(
        t["columnDefinitions"][1]["format"], "",
        "format is always present"
    );
    assert_eq!(
        t["rows"][0]["cells"],
        json!([
            "node1",
            "Ready,SchedulingDisabled",
            "<none>",
            "5m",
            "v1.32.0",
            "10.0.0.1",
            "<none>",
            "SimOS",
            "6.1.0",
            "sim://1.0"
        ])
    );
    assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(t["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(t["rows"][0]["object"]["metadata"]["name"], "node1");
    let bare = node(false, json!([]), json!({}));
    let mut bare = bare;
    bare["status"]["nodeInfo"] = json!({});
    bare["metadata"]
        .as_object_mut()
        .expect("meta")
        .remove("creationTimestamp");
    let cells = row_cells("Node", &bare, now());
    assert_eq!(cells[3], "<unknown>", "no creationTimestamp");
    assert_eq!(cells[7], "<unknown>", "no osImage");
}

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

#[test]
fn other_kinds() {
    let created = ago(120);
    let cases = [
        (
            "Namespace",
            json!({"metadata": {"name": "default", "creationTimestamp": created}, "status": {"phase": "Active"}}),
            json!(["default", "Active", "2m"]),
        ),
        (
            "Deployment",
            json!({"metadata": {"name": "web", "creationTimestamp": created},
                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}, {"name": "side", "image": "busybox"}]}}},
                   "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}}),
            json!([
                "web",
                "2/3",
                3,
                2,
                "2m",
                "nginx,side",
                "nginx:1.27,busybox",
                "app=web"
            ]),
        ),
        (
            "ReplicaSet",
            json!({"metadata": {"name": "web-1", "creationTimestamp": created},
                   "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                            "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}},
                   "status": {"replicas": 1}}),
            json!(["web-1", 1, 1, 0, "2m", "nginx", "nginx", "app in (web)"]),
        ),
        (
            "DaemonSet",
            json!({"metadata": {"name": "proxy", "creationTimestamp": created},
                   "spec": {"selector": {"matchLabels": {"app": "proxy"}},
                            "template": {"spec": {"nodeSelector": {"kubernetes.io/os": "linux"}, "containers": [{"name": "p", "image": "proxy:1"}]}}},
                   "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2, "updatedNumberScheduled": 3, "numberAvailable": 2}}),
            json!([
                "proxy",
                3,
                3,
                2,
                3,
                2,
                "kubernetes.io/os=linux",
                "2m",
                "p",
                "proxy:1",
                "app=proxy"
            ]),
        ),
        (
            "StatefulSet",
            json!({"metadata": {"name": "db", "creationTimestamp": created},
                   "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "pg", "image": "postgres"}]}}},
                   "status": {"readyReplicas": 1}}),
            json!(["db", "1/2", "2m", "pg", "postgres"]),
        ),
        (
            "Job",
            json!({"metadata": {"name": "pi", "creationTimestamp": created},
                   "spec": {"completions": 1, "selector": {"matchLabels": {"job": "pi"}}, "template": {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}},
                   "status": {"succeeded": 1, "startTime": ago(100), "completionTime": ago(40),
                              "conditions": [{"type": "Complete", "status": "True"}]}}),
            json!(["pi", "Complete", "1/1", "60s", "2m", "pi", "perl", "job=pi"]),
        ),
        (
            "PodDisruptionBudget",
            json!({"metadata": {"name": "web-pdb", "creationTimestamp": created},
                   "spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 0}}),
            json!(["web-pdb", "50%", "N/A", 0, "2m"]),
        ),
        (
            "Lease",
            json!({"metadata": {"name": "node1", "creationTimestamp": created}, "spec": {"holderIdentity": "node1"}}),
            json!(["node1", "node1", "2m"]),
        ),
        (
            "ResourceQuota",
            json!({"metadata": {"name": "q", "creationTimestamp": created},
                   "status": {"hard": {"pods": "10", "limits.cpu": "2", "requests.cpu": "1"},
                              "used": {"pods": "3", "requests.cpu": "500m"}}}),
            json!([
                "q",
                "2m",
                "pods: 3/10, requests.cpu: 500m/1",
                "limits.cpu: 0/2"
            ]),
        ),
        (
            "ControllerRevision",
            json!({"metadata": {"name": "ds-6d4cf56db6", "creationTimestamp": created,
                   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": "u", "controller": true}]},
                   "revision": 2}),
            json!(["ds-6d4cf56db6", "daemonset.apps/ds", 2, "2m"]),
        ),
        (
            "Event",
            json!({"metadata": {"name": "node1.abc"}, "type": "Normal", "reason": "NodeNotReady",
                   "involvedObject": {"kind": "Node", "name": "node1"}, "source": {"component": "node-controller"},
                   "message": "Node node1 status is now: NodeNotReady ", "firstTimestamp": ago(600), "lastTimestamp": ago(60), "count": 2}),
            json!([
                "60s",
                "Normal",
                "NodeNotReady",
                "node/node1",
                "",
                "node-controller",
                "Node node1 status is now: NodeNotReady",
                "10m",
                2,
                "node1.abc"
            ]),
        ),
        (
            "ConfigMap",
            json!({"metadata": {"name": "cm", "creationTimestamp": created}, "data": {"a": "1"}, "binaryData": {"b": "AA=="}}),
            json!(["cm", 2, "2m"]),
        ),
        (
            "Widget",
            json!({"metadata": {"name": "w", "creationTimestamp": created}}),
            json!(["w", "2m"]),
        ),
        (
            "Service",
            json!({"metadata": {"name": "lb", "creationTimestamp": created},
                   "spec": {"type": "LoadBalancer", "clusterIPs": ["10.96.0.12"], "externalIPs": ["1.2.3.4"],
                            "ports": [{"port": 80, "nodePort": 30001, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
                            "selector": {"b": "2", "a": "1"}},
                   "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example"}, {"ip": "9.9.9.9"}]}}}),
            json!([
                "lb",
                "LoadBalancer",
                "10.96.0.12",
                "9.9.9.9,lb.example,1.2.3.4",
                "80:30001/TCP,53/UDP",
                "2m",
                "a=1,b=2"
            ]),
        ),
        (
            "Service",
            json!({"metadata": {"name": "ext", "creationTimestamp": created},
                   "spec": {"type": "ExternalName", "externalName": "db.example"}}),
            json!([
                "ext",
                "ExternalName",
                "<none>",
                "db.example",
                "<none>",
                "2m",
                "<none>"
            ]),
        ),
        (
            "Secret",
            json!({"metadata": {"name": "s", "creationTimestamp": created}, "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}}),
            json!(["s", "kubernetes.io/tls", 2, "2m"]),
        ),
        (
            "PersistentVolumeClaim",
            json!({"metadata": {"name": "data", "creationTimestamp": created},
                   "spec": {"volumeName": "pv-1", "storageClassName": "fast", "volumeMode": "Block"},
                   "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"]}}),
            json!([
                "data", "Bound", "pv-1", "10Gi", "RWO,RWX", "fast", "<unset>", "2m", "Block"
            ]),
        ),
        (
            "StorageClass",
            json!({"metadata": {"name": "gp3", "creationTimestamp": created,
                   "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                   "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": true}),
            json!([
                "gp3 (default)",
                "ebs.csi.aws.com",
                "Delete",
                "WaitForFirstConsumer",
                true,
                "2m"
            ]),
        ),
        (
            "Ingress",
            json!({"metadata": {"name": "i", "creationTimestamp": created},
                   "spec": {"ingressClassName": "nginx", "tls": [{}],
                            "rules": [{"host": "a"}, {"host": "b"}, {}, {"host": "c"}, {"host": "d"}]},
                   "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.2"}, {"ip": "10.0.0.1"}]}}}),
            json!([
                "i",
                "nginx",
                "a,b,c + 2 more...",
                "10.0.0.1,10.0.0.2",
                "80, 443",
                "2m"
            ]),
        ),
        (
            "RoleBinding",
            json!({"metadata": {"name": "rb", "creationTimestamp": created},
                   "roleRef": {"kind": "ClusterRole", "name": "view"},
                   "subjects": [{"kind": "User", "name": "a"}, {"kind": "User", "name": "b"},
                                {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}]}),
            json!(["rb", "ClusterRole/view", "2m", "a, b", "", "ns/sa"]),
        ),
        (
            "ClusterRole",
            json!({"metadata": {"name": "view", "creationTimestamp": "2026-01-02T03:04:05Z"}}),
            json!(["view", "2026-01-02T03:04:05Z"]),
        ),
        (
            "HorizontalPodAutoscaler",
            json!({"metadata": {"name": "h", "creationTimestamp": created},
                   "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 10,
                            "metrics": [
                                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
                                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                                {"type": "Pods", "pods": {"target": {"averageValue": "1k"}}}]},
                   "status": {"currentReplicas": 3, "currentMetrics": [{}, {"resource": {"current": {"averageUtilization": 42}}}]}}),
            json!([
                "h",
                "Deployment/web",
                "memory: <unknown>/500Mi, cpu: 42%/60% + 1 more...",
                "<unset>",
                10,
                3,
                "2m"
            ]),
        ),
    ];
    for (kind, obj, want) in cases {
        let cells = row_cells(kind, &obj, now());
        assert_eq!(Value::Array(cells.clone()), want, "{kind}");
        assert_eq!(
            columns(kind).len(),
            cells.len(),
            "{kind}: one column per cell"
        );
    }
    let t = generic_table(&[], now(), "");
    assert_eq!(t["metadata"], json!({}), "no resourceVersion given");
    assert_eq!(t["rows"], json!([]));
    let include = IncludeObject::from_query("Object");
    let obj = json!({"metadata": {"name": "x"}, "spec": {}});
    assert_eq!(
        table("Lease", &[&obj], now(), "1", include)["rows"][0]["object"],
        obj
    );
    assert!(
        table("Lease", &[&obj], now(), "1", IncludeObject::None)["rows"][0]
            .get("object")
            .is_none()
    );
}

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

#[test]
fn node_wide_columns_as_upstream() {
    let with = |addresses: Value, info: Value| json!({"metadata": {"name": "n"}, "status": {"addresses": addresses, "nodeInfo": info}});
    let cases = [
        (
            "internal IP: none when only external",
            with(
                json!([{"type": "ExternalIP", "address": "1.1.1.1"}]),
                json!({}),
            ),
            5,
            "<none>",
        ),
        (
            "internal IP: the first one",
            with(
                json!([{"type": "InternalIP", "address": "1.1.1.1"}, {"type": "ExternalIP", "address": "2.2.2.2"}, {"type": "InternalIP", "address": "3.3.3.3"}]),
                json!({}),
            ),
            5,
            "1.1.1.1",
        ),
        (
            "external IP",
            with(
                json!([{"type": "ExternalIP", "address": "1.1.1.1"}]),
                json!({}),
            ),
            6,
            "1.1.1.1",
        ),
        (
            "external IP: none when only internal",
            with(
                json!([{"type": "InternalIP", "address": "1.1.1.1"}]),
                json!({}),
            ),
            6,
            "<none>",
        ),
        (
            "external IP: the first one",
            with(
                json!([{"type": "ExternalIP", "address": "2.2.2.2"}, {"type": "InternalIP", "address": "3.3.3.3"}, {"type": "ExternalIP", "address": "4.4.4.4"}]),
                json!({}),
            ),
            6,
            "2.2.2.2",
        ),
        (
            "OS image",
            with(json!([]), json!({"osImage": "fake-os-image"})),
            7,
            "fake-os-image",
        ),
        ("no OS image", with(json!([]), json!({})), 7, "<unknown>"),
        (
            "kernel version",
            with(json!([]), json!({"kernelVersion": "fake-kernel-version"})),
            8,
            "fake-kernel-version",
        ),
        (
            "container runtime",
            with(json!([]), json!({"containerRuntimeVersion": "foo://1.2.3"})),
            9,
            "foo://1.2.3",
        ),
        (
            "no container runtime",
            with(json!([]), json!({})),
            9,
            "<unknown>",
        ),
        (
            "kubelet version, empty when unset",
            with(json!([]), json!({})),
            4,
            "",
        ),
    ];
    for (name, node, col, want) in cases {
        assert_eq!(row_cells("Node", &node, now())[col], json!(want), "{name}");
    }
}

#[test]
fn include_object_values_as_upstreams_as_table_reads_them() {
    assert_eq!(IncludeObject::parse(""), Ok(IncludeObject::Metadata));
    assert_eq!(
        IncludeObject::parse("Metadata"),
        Ok(IncludeObject::Metadata)
    );
    assert_eq!(IncludeObject::parse("Object"), Ok(IncludeObject::Object));
    assert_eq!(IncludeObject::parse("None"), Ok(IncludeObject::None));
    assert_eq!(
        IncludeObject::parse("object"),
        Err("unrecognized includeObject value: \"object\"".to_string())
    );
}
