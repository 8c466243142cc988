//! `targeting-without-toleration`: a nodeSelector or required node affinity whose every
//! matching node (or pool template) carries a taint the pod does not tolerate. The scheduler's
//! NodeAffinity and TaintToleration filters then leave no node: the pods stay Pending forever
//! ("0/N nodes are available: … node(s) had untolerated taint(s), … didn't match Pod's node
//! affinity/selector").

use k8s_openapi::api::core::v1::Toleration;

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, fix_item};
use crate::taint::taint_to_string;
use crate::toleration::OP_EQUAL;

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "targeting-without-toleration",
        severity: Severity::Error,
        summary: "a nodeSelector or required affinity whose every matching node carries a taint the pod does not tolerate: Pending forever",
        explain: "The scheduler keeps a pod off nodes its nodeSelector or required node affinity \
does not match (NodeAffinity filter) and off nodes with a NoSchedule or NoExecute taint it does \
not tolerate (TaintToleration filter). When every node the selector picks is tainted, no node is \
left and the pod is Pending forever: \"0/N nodes are available: N node(s) had untolerated \
taint(s)\". Judged against the nodes and pool templates of the input (a pool's startup taints and \
the control plane's transient taints are left out); the finding names each node and the taint.",
        example: "# nodes: sku=gpu:NoSchedule, labelled sku=gpu\n# bad\nnodeSelector: {sku: gpu}\n# good\nnodeSelector: {sku: gpu}\ntolerations:\n- {key: sku, operator: Equal, value: gpu, effect: NoSchedule}",
        single_object: false,
    },
    check,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.targets.is_empty() {
        return;
    }
    for (oi, o) in cx.input.objects.iter().enumerate() {
        let path = o.selector_path();
        if cx.owner_in_input(o)
            || o.is_daemon()
            || path == o.spec_path
            || o.spec.node_name.as_deref().is_some_and(|n| !n.is_empty())
        {
            continue;
        }
        let mine = cx.targets_of(o);
        if mine.is_empty() {
            continue;
        }
        let tols = o.tolerations();
        let blocked: Vec<(String, Vec<String>)> = mine
            .iter()
            .map(|x| {
                (
                    x.name.clone(),
                    cx.untolerated(x, tols)
                        .into_iter()
                        .map(taint_to_string)
                        .collect(),
                )
            })
            .collect();
        if blocked.iter().any(|(_, t)| t.is_empty()) {
            continue;
        }
        let listed: Vec<String> = blocked
            .iter()
            .take(5)
            .map(|(n, t)| format!("{n} ({})", t.join(", ")))
            .collect();
        let more = blocked.len().saturating_sub(5);
        let mut fix: Vec<Toleration> = Vec::new();
        for x in &mine {
            for t in cx.untolerated(x, tols) {
                if !fix.iter().any(|f| f.key.as_deref() == Some(t.key.as_str())) {
                    fix.push(Toleration {
                        key: Some(t.key.clone()),
                        operator: Some(OP_EQUAL.into()),
                        value: t.value.clone(),
                        effect: Some(t.effect.clone()),
                        toleration_seconds: None,
                    });
                }
            }
        }
        out.push(Finding {
            rule: RULE.info.id,
            severity: RULE.info.severity,
            subject: Subject::Object(oi),
            path,
            message: format!(
                "every node its selector picks carries a taint it does not tolerate, so its pods stay Pending: {}{}",
                listed.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            ),
            fix: format!(
                "tolerations:\n{}",
                fix.iter().map(fix_item).collect::<Vec<_>>().join("\n")
            ),
        });
    }
}

#[cfg(test)]
mod tests;
