//! The patches kubectl sends, on served kinds: the rest left alone, directives never in the result.

use super::*;

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "web"},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
                     "finalizers": ["a", "b"],
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u1", "controller": true}]},
        "spec": {
            "containers": [
                {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                 "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "busybox"}
            ],
            "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}],
            "nodeName": "node1"
        }
    })
}

#[test]
fn kubectl_patches_on_served_kinds() {
    let cases = [
        (
            "kubectl taint adds a taint: the taint list is atomic and replaced",
            "Node",
            node(),
            json!({"spec": {"taints": [{"effect": "NoExecute", "key": "key2", "value": "v2"}, {"effect": "NoSchedule", "key": "key1", "value": "value1"}]}}),
            "/spec/taints",
            json!([{"effect": "NoExecute", "key": "key2", "value": "v2"}, {"effect": "NoSchedule", "key": "key1", "value": "value1"}]),
        ),
        (
            "kubectl taint removing the last taint sends null: the field goes",
            "Node",
            node(),
            json!({"spec": {"taints": null}}),
            "/spec",
            json!({}),
        ),
        (
            "kubectl cordon sets unschedulable",
            "Node",
            node(),
            json!({"spec": {"unschedulable": true}}),
            "/spec/unschedulable",
            json!(true),
        ),
        (
            "a node condition merges by type, in place",
            "Node",
            node(),
            json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]}}),
            "/status/conditions",
            json!([{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]),
        ),
        (
            "node addresses merge by type",
            "Node",
            node(),
            json!({"status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.9"}]}}),
            "/status/addresses",
            json!([{"type": "InternalIP", "address": "10.0.0.9"}, {"type": "Hostname", "address": "node1"}]),
        ),
        (
            "labels merge key by key",
            "Node",
            node(),
            json!({"metadata": {"labels": {"tier": "gpu"}}}),
            "/metadata/labels",
            json!({"kubernetes.io/hostname": "node1", "tier": "gpu"}),
        ),
        (
            "kubectl apply: $setElementOrder/containers and a container merged by name",
            "Pod",
            pod(),
            json!({"metadata": {"labels": {"tier": "web"}},
                   "spec": {"$setElementOrder/containers": [{"name": "nginx"}, {"name": "sidecar"}],
                            "containers": [{"image": "nginx:1.27", "name": "nginx"}]}}),
            "/spec/containers",
            json!([
                {"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}], "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "busybox"}
            ]),
        ),
        (
            "$setElementOrder reorders containers",
            "Pod",
            pod(),
            json!({"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "nginx"}]}}),
            "/spec/containers/0/name",
            json!("sidecar"),
        ),
        (
            "a container deleted with $patch: delete",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}),
            "/spec/containers",
            json!([{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}], "env": [{"name": "A", "value": "1"}]}]),
        ),
        (
            "env merges by name inside a container",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "nginx", "env": [{"name": "B", "value": "2"}]}]}}),
            "/spec/containers/0/env",
            json!([{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]),
        ),
        (
            "ports merge by containerPort",
            "Pod",
            pod(),
            json!({"spec": {"containers": [{"name": "nginx", "ports": [{"containerPort": 80, "name": "http"}]}]}}),
            "/spec/containers/0/ports",
            json!([{"containerPort": 80, "protocol": "TCP", "name": "http"}]),
        ),
        (
            "tolerations are atomic: the patch list replaces them",
            "Pod",
            pod(),
            json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}),
            "/spec/tolerations",
            json!([{"key": "b", "operator": "Exists"}]),
        ),
        (
            "finalizers merge as a set; a new item before the live ones it precedes",
            "Pod",
            pod(),
            json!({"metadata": {"finalizers": ["c", "a"]}}),
            "/metadata/finalizers",
            json!(["c", "a", "b"]),
        ),
        (
            "$deleteFromPrimitiveList removes a finalizer",
            "Pod",
            pod(),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
            "/metadata/finalizers",
            json!(["b"]),
        ),
        (
            "ownerReferences merge by uid",
            "Pod",
            pod(),
            json!({"metadata": {"ownerReferences": [{"uid": "u1", "blockOwnerDeletion": true}]}}),
            "/metadata/ownerReferences",
            json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u1", "controller": true, "blockOwnerDeletion": true}]),
        ),
        (
            "a deployment's template containers merge by name",
            "Deployment",
            json!({"spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}}}),
            json!({"spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "b", "image": "z"}]}}}}),
            "/spec",
            json!({"replicas": 3, "template": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "z"}]}}}),
        ),
        (
            "a PDB selector is replaced, not merged",
            "PodDisruptionBudget",
            json!({"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web", "tier": "x"}}}}),
            json!({"spec": {"selector": {"matchLabels": {"app": "db"}}}}),
            "/spec/selector",
            json!({"matchLabels": {"app": "db"}}),
        ),
        (
            "a Lease spec merges as JSON merge patch",
            "Lease",
            json!({"spec": {"holderIdentity": "node1", "renewTime": "2026-01-01T00:00:00.000000Z"}}),
            json!({"spec": {"renewTime": "2026-01-01T00:00:10.000000Z"}}),
            "/spec",
            json!({"holderIdentity": "node1", "renewTime": "2026-01-01T00:00:10.000000Z"}),
        ),
    ];
    for (name, kind, original, patch, pointer, want) in cases {
        let got =
            strategic_merge(kind, &original, &patch).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.pointer(pointer), Some(&want), "{name}: {got}");
        assert!(
            !got.to_string().contains("\"$"),
            "{name}: a directive was stored: {got}"
        );
    }
}

#[test]
fn strategic_merge_leaves_the_rest_alone() {
    let got =
        strategic_merge("Node", &node(), &json!({"spec": {"unschedulable": true}})).expect("patch");
    let mut want = node();
    want["spec"]["unschedulable"] = json!(true);
    assert_eq!(got, want);
}

#[test]
fn directives_never_reach_the_result() {
    // Found by the `patch` fuzz target: a list without patch metadata is atomic, and the
    // directives nested in its elements were kept.
    let cases = [
        (
            "a $patch nested in an element of a list of an unknown field",
            json!({"spec": {"co$tainers": [{"name": "app", "ports": [{"containerPort": 80, "$patch": "delete"}]}]}}),
            json!({"name": "app", "ports": [{"containerPort": 80}]}),
        ),
        (
            "directives in a nested map of an atomic list's element",
            json!({"spec": {"co$tainers": [{"name": "app", "m": {"$retainKeys": ["a"], "a": 1, "$setElementOrder/l": []}}]}}),
            json!({"name": "app", "m": {"a": 1}}),
        ),
        (
            "a directive at the top of an atomic list's element",
            json!({"spec": {"co$tainers": [{"name": "app", "$patch": "replace"}]}}),
            json!({"name": "app"}),
        ),
    ];
    for (name, patch, want) in cases {
        let got = strategic_merge("Pod", &pod(), &patch).expect(name);
        assert_eq!(got["spec"]["co$tainers"], json!([want]), "{name}");
    }
    let tolerations = strategic_merge(
        "Pod",
        &pod(),
        &json!({"spec": {"tolerations": [{"key": "k", "operator": "Exists", "x": [{"$patch": "delete"}]}]}}),
    )
    .expect("tolerations");
    assert_eq!(
        tolerations["spec"]["tolerations"],
        json!([{"key": "k", "operator": "Exists", "x": [{}]}]),
        "an atomic list of a served kind"
    );
}
