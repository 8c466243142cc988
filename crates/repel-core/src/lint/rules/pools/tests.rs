//! Unit tests of `crate::lint::rules::pools`.

use serde_json::json;

use crate::lint::NodeClasses;
use crate::lint::testing::{Fixture, check_table, daemonset, deployment, node};

fn nodepool(name: &str, class: &str, startup: serde_json::Value) -> serde_json::Value {
    json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
           "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": class},
                    "requirements": [], "startupTaints": startup,
                    "taints": [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]}}}})
}

#[test]
fn stranded_taint() {
    let team = node(
        "n1",
        json!({}),
        json!([{"key": "team", "value": "ml", "effect": "NoSchedule"}, {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]),
    );
    check_table(
        "stranded-taint",
        &[
            (
                "a taint nothing tolerates",
                vec![team.clone(), deployment("web", json!({}))],
                vec![(
                    "spec.taints[0]",
                    "no workload in the input tolerates team=ml:NoSchedule",
                )],
            ),
            (
                "tolerated by one workload",
                vec![
                    team.clone(),
                    deployment(
                        "ml",
                        json!({"tolerations": [{"key": "team", "operator": "Exists"}]}),
                    ),
                ],
                vec![],
            ),
            ("nodes alone (kwok fake-node)", vec![team], vec![]),
        ],
    );
}

#[test]
fn startup_taint_without_remover() {
    let cilium =
        json!([{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}]);
    check_table(
        "startup-taint-without-remover",
        &[
            (
                "the cilium startup taint, a DaemonSet that does not tolerate it (karpenter-provider-azure general-purpose)",
                vec![
                    nodepool("general-purpose", "default", cilium.clone()),
                    daemonset(
                        "kube-flannel",
                        json!({"tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}),
                    ),
                ],
                vec![(
                    "spec.template.spec.startupTaints[0]",
                    "node.cilium.io/agent-not-ready=true:NoExecute",
                )],
            ),
            (
                "the agent tolerating everything (cilium quick-install)",
                vec![
                    nodepool("general-purpose", "default", cilium.clone()),
                    daemonset("cilium", json!({"tolerations": [{"operator": "Exists"}]})),
                ],
                vec![],
            ),
            (
                "no DaemonSets in the input",
                vec![nodepool("general-purpose", "default", cilium)],
                vec![],
            ),
        ],
    );
}

#[test]
fn pool_nodeclass_missing() {
    // karpenter-provider-azure examples/v1/system-surge.yaml: the NodePool names `default`,
    // the file defines AKSNodeClass `system-surge`.
    let mut f = Fixture::of(&[nodepool("system-surge", "default", json!([]))]);
    f.node_classes = NodeClasses {
        refs: vec![(0, "AKSNodeClass".into(), "default".into())],
        classes: vec![("AKSNodeClass".into(), "system-surge".into())],
    };
    let got = f.findings("pool-nodeclass-missing");
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].message,
        "nodeClassRef names AKSNodeClass default, which is not in the input (it holds AKSNodeClass system-surge): Karpenter launches no node for this pool"
    );
    f.node_classes
        .classes
        .push(("AKSNodeClass".into(), "default".into()));
    assert!(
        f.findings("pool-nodeclass-missing").is_empty(),
        "named class present"
    );
    f.node_classes.classes.clear();
    assert!(
        f.findings("pool-nodeclass-missing").is_empty(),
        "no classes given: nothing to judge"
    );
}
