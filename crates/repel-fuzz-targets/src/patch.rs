//! `PATCH` bodies: the input is
//!
//! ```text
//! <Kind> <Content-Type>          e.g. `Pod application/strategic-merge-patch+json`
//! <original object as JSON>      optional: without it, a stored object of the kind
//! ---
//! <patch body>
//! ```
//!
//! (without a `---` line everything after the first line is the body). The body is applied
//! with [`repel_api::patch::apply`] as `repel serve` applies it. Besides ending in a result or
//! an error:
//! 1. an error is answered with a 4xx: patches are client input;
//! 2. a strategic merge patch never leaves a directive (`$patch`, `$retainKeys`,
//!    `$setElementOrder/…`, `$deleteFromPrimitiveList/…`) in an object that had none.

use repel_api::patch::{PatchType, apply};
use serde_json::{Value, json};

/// The target body.
pub fn run(data: &[u8]) {
    let (head, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut words = head.split_whitespace();
    let kind = words.next().unwrap_or("Pod");
    let patch_type = words
        .next()
        .map_or(Some(PatchType::Strategic), PatchType::from_content_type);
    let (original, body) = match find(rest, b"\n---\n") {
        Some(i) => {
            let original = serde_json::from_slice::<Value>(&rest[..i])
                .ok()
                .filter(Value::is_object);
            (original, &rest[i + 5..])
        }
        None => (None, rest),
    };
    let original = original.unwrap_or_else(|| stored(kind));
    let Some(patch_type) = patch_type else {
        return;
    };
    match apply(kind, patch_type, &original, body) {
        Ok(patched) => {
            if patch_type == PatchType::Strategic && !has_directive(&original) {
                assert!(
                    !has_directive(&patched),
                    "a directive reached the patched object: {patched}"
                );
            }
            let _ = serde_json::to_vec(&patched);
        }
        Err(e) => {
            let (code, status) = e.status();
            assert!(
                (400..500).contains(&code),
                "patch error answered {code}: {e} ({status})"
            );
        }
    }
}

/// Whether any key of any object in `v` is a strategic merge patch directive.
fn has_directive(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| {
            k == "$patch"
                || k == "$retainKeys"
                || k.starts_with("$setElementOrder")
                || k.starts_with("$deleteFromPrimitiveList")
                || has_directive(v)
        }),
        Value::Array(items) => items.iter().any(has_directive),
        _ => false,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// An object of `kind` as the server stores it, with lists of each patch strategy.
fn stored(kind: &str) -> Value {
    let metadata = json!({
        "name": "x", "namespace": "default", "uid": "u1", "resourceVersion": "7",
        "labels": {"app": "web"}, "annotations": {"a": "1"}, "finalizers": ["f1", "f2"],
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "o1"}]
    });
    let pod_spec = json!({
        "containers": [
            {"name": "app", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
             "env": [{"name": "A", "value": "1"}], "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
            {"name": "sidecar", "image": "busybox", "args": ["a", "b"]}
        ],
        "volumes": [{"name": "v", "emptyDir": {}}],
        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
        "nodeSelector": {"disk": "ssd"},
        "nodeName": "node1"
    });
    match kind {
        "Node" => json!({
            "apiVersion": "v1", "kind": "Node", "metadata": metadata,
            "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}], "podCIDRs": ["10.0.0.0/24"]},
            "status": {
                "conditions": [{"type": "Ready", "status": "True"}, {"type": "MemoryPressure", "status": "False"}],
                "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                "capacity": {"cpu": "4", "pods": "110"}
            }
        }),
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => json!({
            "apiVersion": "apps/v1", "kind": kind, "metadata": metadata,
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec}},
            "status": {"conditions": [{"type": "Available", "status": "True"}]}
        }),
        "PodDisruptionBudget" => json!({
            "apiVersion": "policy/v1", "kind": kind, "metadata": metadata,
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}
        }),
        "Namespace" => json!({
            "apiVersion": "v1", "kind": kind, "metadata": metadata,
            "status": {"phase": "Active"}
        }),
        _ => json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec,
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                       "podIPs": [{"ip": "10.1.0.1"}]}
        }),
    }
}
