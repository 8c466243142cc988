//! The real `kubectl` against `repel serve`: get, describe, taint, cordon (kubectl-wire.md §2).

use crate::util::{have_kubectl, node, pod, start, table_rows, taints_of};
use serde_json::json;

fn cluster() -> Vec<serde_json::Value> {
    vec![
        node("node1", json!(null)),
        node(
            "node2",
            json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        ),
        pod("default", "web-1", Some("node1")),
        pod("kube-system", "proxy-abc", Some("node2")),
    ]
}

#[test]
fn get_nodes_prints_kubectls_table_and_yaml_shows_taints() {
    if !have_kubectl() {
        return;
    }
    let s = start(cluster());
    let o = s.kubectl(&["get", "nodes"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        table_rows(&o.stdout, 3),
        vec![
            "NAME STATUS ROLES AGE VERSION",
            "node1 Ready <none> AGE v1.32.0",
            "node2 Ready <none> AGE v1.32.0",
        ]
    );
    let o = s.kubectl(&["get", "nodes", "-o", "yaml"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with("apiVersion: v1\nitems:\n"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("kind: List"), "{}", o.stdout);
    assert!(
        o.stdout.contains(
            "    taints:\n    - effect: NoSchedule\n      key: dedicated\n      value: gpu\n"
        ),
        "{}",
        o.stdout
    );
    let o = s.kubectl(&["get", "pods", "-A", "-o", "wide"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows = table_rows(&o.stdout, 5);
    assert_eq!(
        rows[0],
        "NAMESPACE NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES"
    );
    assert!(
        rows[1].starts_with("default web-1 1/1 Running 0 AGE 10.244."),
        "{rows:?}"
    );
    assert!(rows[1].ends_with(" node1 <none> <none>"), "{rows:?}");
    assert!(
        rows[2].starts_with("kube-system proxy-abc 1/1 Running 0 AGE "),
        "{rows:?}"
    );
}

#[test]
fn taint_add_remove_overwrite_and_refusal_as_kubectl_prints_them() {
    if !have_kubectl() {
        return;
    }
    let s = start(cluster());
    let o = s.kubectl(&["taint", "nodes", "node1", "key1=value1:NoSchedule"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 tainted\n"),
        "{}",
        o.stderr
    );
    assert_eq!(
        taints_of(&s.get("nodes", "", "node1").unwrap()),
        vec!["key1=value1:NoSchedule"]
    );

    let o = s.kubectl(&["taint", "nodes", "node1", "key1=other:NoSchedule"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "error: node node1 already has key1 taint(s) with same effect(s) and --overwrite is false\n"
    );

    let o = s.kubectl(&["taint", "nodes", "node1", "key2=v2:NoExecute"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 tainted\n"),
        "{}",
        o.stderr
    );
    let n = s.get("nodes", "", "node1").unwrap();
    assert_eq!(
        taints_of(&n),
        vec!["key2=v2:NoExecute", "key1=value1:NoSchedule"]
    );
    // As on a real cluster, a taint kubectl adds has no timeAdded, NoExecute included
    // (kubernetes#98482): only the node-lifecycle controller stamps the taints it adds.
    assert!(
        n["spec"]["taints"][0]["timeAdded"].is_null()
            && n["spec"]["taints"][1]["timeAdded"].is_null(),
        "no timeAdded: {n}"
    );

    let o = s.kubectl(&[
        "taint",
        "nodes",
        "--all",
        "dedicated=gpu:NoSchedule",
        "--overwrite",
    ]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 modified\nnode/node2 modified\n"),
        "{}",
        o.stderr
    );
    assert_eq!(
        taints_of(&s.get("nodes", "", "node1").unwrap()),
        vec![
            "dedicated=gpu:NoSchedule",
            "key2=v2:NoExecute",
            "key1=value1:NoSchedule"
        ]
    );
    assert_eq!(
        taints_of(&s.get("nodes", "", "node2").unwrap()),
        vec!["dedicated=gpu:NoSchedule"]
    );

    let o = s.kubectl(&[
        "taint",
        "nodes",
        "node1",
        "key1=value1:NoSchedule-",
        "key2-",
        "dedicated-",
    ]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 untainted\n"),
        "{}",
        o.stderr
    );
    let n = s.get("nodes", "", "node1").unwrap();
    assert!(
        n["spec"].get("taints").is_none(),
        "the last taint removed deletes the field: {n}"
    );

    let o = s.kubectl(&["taint", "nodes", "nope", "a=b:NoSchedule"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "Error from server (NotFound): nodes \"nope\" not found\n"
    );
}

#[test]
fn describe_node_shows_taints_and_cordon_uncordon_work() {
    if !have_kubectl() {
        return;
    }
    let s = start(cluster());
    let o = s.kubectl(&["describe", "node", "node2"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with("Name:               node2\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("\nTaints:             dedicated=gpu:NoSchedule\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("\nUnschedulable:      false\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  HolderIdentity:  node2\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  kube-system                 proxy-abc"),
        "{}",
        o.stdout
    );

    let o = s.kubectl(&["cordon", "node1"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 cordoned\n"),
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["cordon", "node1"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 already cordoned\n")
    );
    let o = s.kubectl(&["get", "nodes", "node1"]);
    assert_eq!(
        table_rows(&o.stdout, 3),
        vec![
            "NAME STATUS ROLES AGE VERSION",
            "node1 Ready,SchedulingDisabled <none> AGE v1.32.0"
        ]
    );
    let o = s.kubectl(&["uncordon", "node1"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node1 uncordoned\n"),
        "{}",
        o.stderr
    );
    let n = s.get("nodes", "", "node1").unwrap();
    assert!(n["spec"].get("unschedulable").is_none(), "{n}");

    let o = s.kubectl(&["describe", "node", "nope"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "Error from server (NotFound): nodes \"nope\" not found\n"
    );
}

/// Karpenter's v1 printer columns, from kubernetes-sigs/karpenter at
/// 2266468104f36373ed002241afaee2d3bbc26078
/// (https://github.com/kubernetes-sigs/karpenter/blob/2266468104f36373ed002241afaee2d3bbc26078/pkg/apis/crds/karpenter.sh_nodepools.yaml
/// and `karpenter.sh_nodeclaims.yaml`), as `kubectl get -o wide` heads them.
const NODEPOOL_WIDE_HEADER: &str = "NAME NODECLASS NODES READY AGE WEIGHT CPU MEMORY";
const NODECLAIM_WIDE_HEADER: &str =
    "NAME TYPE CAPACITY ZONE NODE READY AGE IMAGEID ID NODEPOOL NODECLASS DRIFTED";

#[test]
fn simulated_nodes_look_like_a_kubelets() {
    if !have_kubectl() {
        return;
    }
    // A hand-written node: only Ready, only allocatable.
    let mut n = node("node1", json!(null));
    n["status"] = json!({
        "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True"}]
    });
    let mut hostnet = pod("kube-system", "agent", Some("node1"));
    hostnet["spec"]["hostNetwork"] = json!(true);
    let s = start(vec![n, hostnet, pod("default", "web", Some("node1"))]);
    let out = s.kubectl_ok(&["describe", "node", "node1"]);
    for line in [
        "MemoryPressure   False",
        "KubeletHasSufficientMemory   kubelet has sufficient memory available",
        "DiskPressure     False",
        "KubeletHasNoDiskPressure     kubelet has no disk pressure",
        "PIDPressure      False",
        "KubeletHasSufficientPID      kubelet has sufficient PID available",
    ] {
        assert!(out.contains(line), "{line:?} in\n{out}");
    }
    let node = s.get("nodes", "", "node1").unwrap();
    assert_eq!(node["status"]["capacity"], node["status"]["allocatable"]);
    let types: Vec<&str> = node["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
    );
    let node_ip = node["status"]["addresses"][0]["address"].as_str().unwrap();
    let ip = s.kubectl_ok(&[
        "get",
        "pod",
        "-n",
        "kube-system",
        "agent",
        "-o",
        "jsonpath={.status.podIP}",
    ]);
    assert_eq!(ip, node_ip, "a hostNetwork pod has its node's IP");
    let ip = s.kubectl_ok(&["get", "pod", "web", "-o", "jsonpath={.status.podIP}"]);
    assert_ne!(ip, node_ip);
    // Karpenter's CRDs carry Karpenter's own printer columns.
    let f = s.write(
        "np.yaml",
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}]\n",
    );
    s.kubectl_ok(&["apply", "-f", &f]);
    let out = s.kubectl_ok(&["get", "nodepools", "-o", "wide"]);
    assert_eq!(table_rows(&out, 4)[0], NODEPOOL_WIDE_HEADER, "{out}");
    assert!(table_rows(&out, 4)[1].starts_with("gpu default "), "{out}");
    let claim = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
        "metadata": {"name": "gpu-abc", "labels": {"karpenter.sh/nodepool": "gpu"}},
        "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}});
    let f = s.write("nc.json", &claim.to_string());
    s.kubectl_ok(&["create", "-f", &f]);
    let out = s.kubectl_ok(&["get", "nodeclaims", "-o", "wide"]);
    assert_eq!(table_rows(&out, 6)[0], NODECLAIM_WIDE_HEADER, "{out}");
}
