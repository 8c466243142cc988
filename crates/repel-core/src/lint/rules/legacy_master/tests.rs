//! Unit tests of `crate::lint::rules::legacy_master`.

use serde_json::json;

use crate::lint::testing::{check_table, deployment, node};

#[test]
fn legacy_master_only() {
    check_table(
        "legacy-master-only",
        &[
            (
                "master only, operator omitted (eksctl eks-connector)",
                vec![deployment(
                    "eks-connector",
                    json!({"tolerations": [
                    {"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"},
                    {"key": "CriticalAddonsOnly", "operator": "Exists"}]}),
                )],
                vec![(
                    "spec.template.spec.tolerations[0]",
                    "tolerates node-role.kubernetes.io/master but not node-role.kubernetes.io/control-plane",
                )],
            ),
            (
                "master and control-plane (ingress-nginx kind)",
                vec![deployment(
                    "ingress-nginx-controller",
                    json!({"tolerations": [
                    {"effect": "NoSchedule", "key": "node-role.kubernetes.io/master", "operator": "Equal"},
                    {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane", "operator": "Equal"}]}),
                )],
                vec![],
            ),
            (
                "master plus a keyless Exists NoSchedule that tolerates control-plane too (fluent-bit)",
                vec![deployment(
                    "fluent-bit",
                    json!({"tolerations": [
                    {"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
                    {"operator": "Exists", "effect": "NoSchedule"}]}),
                )],
                vec![],
            ),
            (
                "master only, but the input's control plane still carries it",
                vec![
                    node(
                        "cp",
                        json!({}),
                        json!([{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}]),
                    ),
                    deployment(
                        "x",
                        json!({"tolerations": [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![],
            ),
            (
                "nodeSelector on the master label",
                vec![deployment(
                    "x",
                    json!({"nodeSelector": {"node-role.kubernetes.io/master": ""}, "tolerations": [
                    {"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"},
                    {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]}),
                )],
                vec![(
                    "spec.template.spec.nodeSelector",
                    "a label kubeadm no longer sets",
                )],
            ),
            (
                "required affinity on control-plane (hetzner cluster-autoscaler)",
                vec![deployment(
                    "x",
                    json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}]}]}}},
                    "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]}),
                )],
                vec![],
            ),
        ],
    );
}
