//! `condition-toleration-outside-daemonset`: a toleration of `node.kubernetes.io/unschedulable`
//! or of a pressure taint on anything but a node agent. The DaemonSet controller gives its pods
//! these (`AddOrUpdateDaemonPodTolerations`) because they must run on cordoned nodes and nodes
//! under pressure; any other pod with them is scheduled onto cordoned and draining nodes, or
//! onto nodes whose kubelet is evicting pods.

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, toleration_yaml};
use crate::taint::{
    TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNSCHEDULABLE,
};

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "condition-toleration-outside-daemonset",
        severity: Severity::Warning,
        summary: "tolerates node.kubernetes.io/unschedulable or a pressure taint outside a DaemonSet: lands on cordoned or starved nodes",
        explain: "The node lifecycle controller taints a cordoned node \
node.kubernetes.io/unschedulable:NoSchedule and a node under memory, disk or PID pressure \
node.kubernetes.io/<x>-pressure:NoSchedule (TaintNodesByCondition). The DaemonSet controller \
adds tolerations of these to its pods (pkg/controller/daemon/util) because a node agent must \
run there. Any other workload that tolerates them is scheduled onto nodes being drained \
(kubectl drain cordons first) and onto nodes whose kubelet is evicting pods to relieve the \
pressure. (A pod of a live cluster with only the memory-pressure toleration that \
PodTolerationRestriction adds to non-BestEffort pods is not reported.)",
        example: "# bad: a Deployment\ntolerations:\n- {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}\n# good: remove it",
        single_object: true,
    },
    check,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if o.is_daemon() || cx.owner_in_input(o) {
            continue;
        }
        for (i, t) in o.tolerations().iter().enumerate() {
            let key = t.key.as_deref().unwrap_or_default();
            let why = match key {
                TAINT_NODE_UNSCHEDULABLE => "cordoned and draining nodes",
                TAINT_NODE_MEMORY_PRESSURE if o.kind == "Pod" => continue,
                TAINT_NODE_MEMORY_PRESSURE => {
                    "nodes under memory pressure, whose kubelet evicts pods"
                }
                TAINT_NODE_DISK_PRESSURE => "nodes under disk pressure, whose kubelet evicts pods",
                TAINT_NODE_PID_PRESSURE => "nodes under PID pressure, whose kubelet evicts pods",
                _ => continue,
            };
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: o.toleration_path(i),
                message: format!(
                    "toleration {} is one the DaemonSet controller gives node agents: this {}'s pods are scheduled onto {why}",
                    toleration_yaml(t),
                    o.kind
                ),
                fix: "# remove this toleration".into(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::lint::testing::{check_table, daemonset, deployment};

    #[test]
    fn condition_toleration_outside_daemonset() {
        check_table(
            "condition-toleration-outside-daemonset",
            &[
                (
                    "unschedulable on a Deployment",
                    vec![deployment(
                        "web",
                        json!({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}),
                    )],
                    vec![(
                        "spec.template.spec.tolerations[0]",
                        "scheduled onto cordoned and draining nodes",
                    )],
                ),
                (
                    "disk-pressure on the local-path helper pod's Deployment",
                    vec![deployment(
                        "helper",
                        json!({"tolerations": [{"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"}]}),
                    )],
                    vec![(
                        "spec.template.spec.tolerations[0]",
                        "nodes under disk pressure",
                    )],
                ),
                (
                    "network-unavailable and not-ready (cluster-version-operator)",
                    vec![deployment(
                        "cvo",
                        json!({"tolerations": [
                        {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"},
                        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}]}),
                    )],
                    vec![],
                ),
                (
                    "a DaemonSet (its controller adds them anyway)",
                    vec![daemonset(
                        "agent",
                        json!({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}),
                    )],
                    vec![],
                ),
            ],
        );
    }
}
