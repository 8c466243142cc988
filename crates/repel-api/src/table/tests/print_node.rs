//! Upstream `TestPrintNodeStatus`, `TestPrintNodeRole` and the node rows' shape, wide columns included.

use super::*;

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
