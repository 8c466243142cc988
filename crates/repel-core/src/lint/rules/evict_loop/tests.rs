//! Unit tests of `crate::lint::rules::evict_loop`.

use serde_json::json;

use crate::lint::testing::{check_table, deployment, node, pod};

#[test]
fn evict_reschedule_loop() {
    let maint = node(
        "n1",
        json!({}),
        json!([{"key": "maintenance", "value": "true", "effect": "NoExecute"}]),
    );
    check_table(
        "evict-reschedule-loop",
        &[
            (
                "10-second toleration of a taint the node keeps (kubernetes#117520)",
                vec![
                    maint.clone(),
                    deployment(
                        "web",
                        json!({"tolerations": [
                    {"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}]}),
                    ),
                ],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "for only 10 s, and node/n1 carry it",
                )],
            ),
            (
                "the control plane's not-ready/unreachable with 120 s (cluster-version-operator)",
                vec![
                    node(
                        "n2",
                        json!({}),
                        json!([{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]),
                    ),
                    deployment(
                        "cvo",
                        json!({"tolerations": [
                    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120}]}),
                    ),
                ],
                vec![],
            ),
            (
                "a bare pod is not recreated",
                vec![
                    maint,
                    pod(
                        "p",
                        json!({"tolerations": [
                    {"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}]}),
                    ),
                ],
                vec![],
            ),
        ],
    );
}
