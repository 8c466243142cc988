//! `noexecute-forever`: a workload tolerating every NoExecute taint with no
//! `tolerationSeconds` (a keyless `Exists` with effect NoExecute or none). The
//! DefaultTolerationSeconds admission plugin then adds nothing (it sees the not-ready and
//! unreachable taints tolerated already), and the pods never leave a failed node.

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, toleration_yaml};
use crate::toleration::OP_EXISTS;

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "noexecute-forever",
        severity: Severity::Warning,
        summary: "a workload tolerating every NoExecute taint forever: its pods never leave a failed node",
        explain: "DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds) gives \
every pod `node.kubernetes.io/not-ready` and `unreachable` NoExecute tolerations of 300 s unless \
one of its tolerations already has that key or an empty key, with effect NoExecute or empty. A \
keyless `operator: Exists` with effect NoExecute (or none) and no tolerationSeconds is such a \
toleration: the defaults are not added, and when the node stops being ready or reachable the \
pods stay bound to it forever instead of being recreated elsewhere after 5 minutes. Node agents \
(DaemonSets, static pods) are meant to; other workloads are not.",
        example: "# bad\ntolerations:\n- operator: Exists\n# good\ntolerations:\n- {operator: Exists, effect: NoSchedule}\n- {operator: Exists, effect: NoExecute, tolerationSeconds: 300}",
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
            if !(t.key.as_deref().unwrap_or_default().is_empty()
                && t.operator.as_deref() == Some(OP_EXISTS)
                && matches!(t.effect.as_deref().unwrap_or_default(), "" | "NoExecute")
                && t.toleration_seconds.is_none())
            {
                continue;
            }
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: o.toleration_path(i),
                message: format!(
                    "toleration {} tolerates every NoExecute taint with no tolerationSeconds: DefaultTolerationSeconds adds no not-ready/unreachable toleration, and its pods never leave a failed node",
                    toleration_yaml(t)
                ),
                fix: "- {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n- {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}".into(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::lint::testing::{check_table, daemonset, deployment, pod};

    #[test]
    fn noexecute_forever() {
        check_table(
            "noexecute-forever",
            &[
                (
                    "keyless Exists NoExecute on a Deployment (calico tigera-operator)",
                    vec![deployment(
                        "tigera-operator",
                        json!({"tolerations": [
                        {"effect": "NoExecute", "operator": "Exists"}, {"effect": "NoSchedule", "operator": "Exists"}]}),
                    )],
                    vec![(
                        "spec.template.spec.tolerations[0]",
                        "its pods never leave a failed node",
                    )],
                ),
                (
                    "keyless Exists NoExecute with 300 s (aws-ebs-csi controller)",
                    vec![deployment(
                        "ebs-csi-controller",
                        json!({"tolerations": [
                        {"effect": "NoExecute", "operator": "Exists", "tolerationSeconds": 300}]}),
                    )],
                    vec![],
                ),
                (
                    "a node agent (weave DaemonSet)",
                    vec![daemonset(
                        "weave-net",
                        json!({"tolerations": [
                        {"effect": "NoSchedule", "operator": "Exists"}, {"effect": "NoExecute", "operator": "Exists"}]}),
                    )],
                    vec![],
                ),
                (
                    "a static pod's mirror (nri-kubernetes 1.35 pods: etcd)",
                    vec![{
                        let mut p = pod(
                            "etcd-cp",
                            json!({"tolerations": [{"effect": "NoExecute", "operator": "Exists"}]}),
                        );
                        p["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "x"});
                        p
                    }],
                    vec![],
                ),
            ],
        );
    }
}
