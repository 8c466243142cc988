//! `noexecute-not-tolerated-by-agent`: a node agent that tolerates the NoSchedule taints of
//! the input's nodes but not their NoExecute taints: the taint-eviction controller evicts it
//! from those nodes (and the DaemonSet controller never places it there again).

use super::RuleImpl;
use super::daemonset_misses::{only_noexecute_missed, tolerations_path};
use crate::lint::{Context, Finding, Rule, Severity, Subject, Target, fix_item};
use crate::taint::taint_to_string;

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "noexecute-not-tolerated-by-agent",
        severity: Severity::Warning,
        summary: "a node agent DaemonSet that tolerates NoSchedule but not the NoExecute taints on the input's nodes: evicted from them",
        explain: "A NoExecute taint both keeps new pods off and evicts running pods that do not \
tolerate it (taint-eviction-controller, pkg/controller/tainteviction). A CNI, CSI, log or \
metrics agent written with `operator: Exists, effect: NoSchedule` (kube-flannel's form) runs on \
nodes tainted NoSchedule, but not on nodes tainted NoExecute: the node loses its network, its \
volumes or its logs. Reported when the input's nodes or pools carry NoExecute taints such a \
DaemonSet does not tolerate on nodes whose NoSchedule taints it does tolerate.",
        example: "# bad\ntolerations:\n- {operator: Exists, effect: NoSchedule}\n# good\ntolerations:\n- {operator: Exists, effect: NoSchedule}\n- {operator: Exists, effect: NoExecute}",
        single_object: false,
    },
    check,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if o.kind != "DaemonSet" {
            continue;
        }
        let tols = o.effective_tolerations();
        let hit: Vec<&Target> = cx
            .targets_of(o)
            .into_iter()
            .filter(|t| only_noexecute_missed(cx, t, o))
            .collect();
        if hit.is_empty() {
            continue;
        }
        let mut taints: Vec<String> = Vec::new();
        let mut fix: Vec<String> = Vec::new();
        for t in &hit {
            for x in cx.untolerated(t, &tols) {
                let s = taint_to_string(x);
                if !taints.contains(&s) {
                    taints.push(s);
                    fix.push(fix_item(&k8s_openapi::api::core::v1::Toleration {
                        key: Some(x.key.clone()),
                        operator: Some("Exists".into()),
                        effect: Some(x.effect.clone()),
                        ..Default::default()
                    }));
                }
            }
        }
        let names: Vec<&str> = hit.iter().take(3).map(|t| t.name.as_str()).collect();
        out.push(Finding {
            rule: RULE.info.id,
            severity: RULE.info.severity,
            subject: Subject::Object(oi),
            path: tolerations_path(o),
            message: format!(
                "tolerates the NoSchedule taints of {} node(s) ({}{}) but not their NoExecute taint(s) {}: it is evicted from them and never placed there again",
                hit.len(),
                names.join(", "),
                if hit.len() > 3 { ", …" } else { "" },
                taints.join(", ")
            ),
            fix: format!("tolerations:\n{}", fix.join("\n")),
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::lint::testing::{check_table, daemonset, node};

    #[test]
    fn noexecute_not_tolerated_by_agent() {
        let tainted = node(
            "db-1",
            json!({}),
            json!([
            {"key": "dedicated", "value": "db", "effect": "NoSchedule"},
            {"key": "dedicated", "value": "db", "effect": "NoExecute"}]),
        );
        check_table(
            "noexecute-not-tolerated-by-agent",
            &[
                (
                    "keyless Exists NoSchedule only (kube-flannel)",
                    vec![
                        tainted.clone(),
                        daemonset(
                            "kube-flannel-ds",
                            json!({"tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}),
                        ),
                    ],
                    vec![(
                        "spec.template.spec.tolerations",
                        "not their NoExecute taint(s) dedicated=db:NoExecute",
                    )],
                ),
                (
                    "keyless Exists NoSchedule and NoExecute (node-problem-detector)",
                    vec![
                        tainted.clone(),
                        daemonset(
                            "node-problem-detector",
                            json!({"tolerations": [
                        {"operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists", "effect": "NoExecute"}]}),
                        ),
                    ],
                    vec![],
                ),
                (
                    "no nodes in the input: nothing to judge",
                    vec![daemonset(
                        "kube-flannel-ds",
                        json!({"tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}),
                    )],
                    vec![],
                ),
            ],
        );
    }
}
