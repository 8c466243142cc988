//! Unit tests of `crate::lint::rules::validation`.

use serde_json::json;

use crate::lint::testing::{check_table, deployment, pod};

/// upstream `TestValidatePod` error cases (pkg/apis/core/validation/validation_test.go),
/// names verbatim, each under the rule that reports it.
#[test]
fn upstream_validate_pod_toleration_cases() {
    check_table(
        "invalid-toleration",
        &[
            (
                "invalid toleration key",
                vec![pod(
                    "123",
                    json!({"tolerations": [{"key": "nospecialchars^=@", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}]}),
                )],
                vec![(
                    "spec.tolerations[0].key",
                    "spec.tolerations[0].key: Invalid value: \"nospecialchars^=@\": name part must consist of alphanumeric characters",
                )],
            ),
            (
                "invalid toleration operator",
                vec![pod(
                    "123",
                    json!({"tolerations": [{"key": "foo", "operator": "In", "value": "bar", "effect": "NoSchedule"}]}),
                )],
                vec![(
                    "spec.tolerations[0].operator",
                    "spec.tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"",
                )],
            ),
            (
                "operator must be 'Exists' when `key` is empty",
                vec![pod(
                    "123",
                    json!({"tolerations": [{"operator": "Equal", "value": "bar", "effect": "NoSchedule"}]}),
                )],
                vec![(
                    "spec.tolerations[0].operator",
                    "spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
                )],
            ),
            (
                "valid tolerations of a real workload (cluster-version-operator)",
                vec![deployment(
                    "cvo",
                    json!({"tolerations": [
                    {"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120}]}),
                )],
                vec![],
            ),
        ],
    );
    check_table(
        "exists-with-value",
        &[(
            "value must be empty when `operator` is 'Exists'",
            vec![pod(
                "123",
                json!({"tolerations": [{"key": "foo", "operator": "Exists", "value": "bar", "effect": "NoSchedule"}]}),
            )],
            vec![(
                "spec.tolerations[0].operator",
                "spec.tolerations[0].operator: Invalid value: \"bar\": value must be empty when `operator` is 'Exists'",
            )],
        )],
    );
    check_table(
        "toleration-seconds-without-noexecute",
        &[
            (
                "effect must be 'NoExecute' when `TolerationSeconds` is set",
                vec![pod(
                    "pod-forgiveness-invalid",
                    json!({"tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 20}]}),
                )],
                vec![(
                    "spec.tolerations[0].effect",
                    "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
                )],
            ),
            (
                "a CronJob's template, one level deeper",
                vec![
                    json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c", "namespace": "default"},
                    "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                        "containers": [{"name": "c", "image": "i"}],
                        "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": 5}]}}}}}}),
                ],
                vec![(
                    "spec.jobTemplate.spec.template.spec.tolerations[0].effect",
                    "Invalid value: \"\": effect must be 'NoExecute'",
                )],
            ),
        ],
    );
}
