//! Strategic merge patch cases ported from upstream `strategicpatch/patch_test.go` (on its
//! `MergeItem` test struct), then the patches kubectl sends (kubectl-wire.md) on real kinds,
//! then errors with upstream's texts and HTTP answers.

use serde_json::{Value, json};

use super::schema::Ty;
use super::*;

fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
        "spec": {"taints": [{"key": "key1", "value": "value1", "effect": "NoSchedule"}]},
        "status": {
            "conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}
            ],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname", "address": "node1"}]
        }
    })
}

mod properties;

mod errors;
mod kubectl_patches;
mod merge_errors;
mod merge_item;
