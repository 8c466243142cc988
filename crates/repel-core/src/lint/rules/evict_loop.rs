//! `evict-reschedule-loop`: a controller's pod template with a NoExecute toleration with a
//! finite `tolerationSeconds` for a taint that nodes it can be scheduled on carry. The
//! scheduler places the pod there (the toleration lets it past the taint), the taint-eviction
//! controller deletes it after `tolerationSeconds`, the controller creates a new one, which is
//! scheduled there again: forever (kubernetes/kubernetes#117520).

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, fix_item, is_transient};
use crate::taint::{NO_EXECUTE, taint_to_string};
use crate::toleration::tolerates;

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "evict-reschedule-loop",
        severity: Severity::Warning,
        summary: "a workload's NoExecute toleration with finite tolerationSeconds for a taint its nodes carry: scheduled, evicted after N s, recreated, forever",
        explain: "A NoExecute toleration with tolerationSeconds lets a pod onto a node with that \
taint and has the taint-eviction controller delete it tolerationSeconds later \
(pkg/controller/tainteviction). That is meant for taints that come and go (a node that stops \
being ready). For a taint the node keeps, a Deployment, StatefulSet, Job or ReplicaSet recreates \
the evicted pod, the scheduler places it on the same kind of node, and it is evicted again: \
a loop of evictions (kubernetes/kubernetes#117520, a 10-second toleration). Reported when nodes \
or pools of the input, reachable by the workload's selector and tolerations, carry such a taint; \
the control plane's transient taints (not-ready, unreachable, …) are left out.",
        example: "# nodes: maintenance=true:NoExecute\n# bad\n- {key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 10}\n# good: stay, or keep away with node affinity\n- {key: maintenance, operator: Exists, effect: NoExecute}",
        single_object: false,
    },
    check,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.targets.is_empty() {
        return;
    }
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if !o.is_controller_template() || o.is_daemon() || cx.owner_in_input(o) {
            continue;
        }
        let tols = o.tolerations();
        if !tols
            .iter()
            .any(|t| t.toleration_seconds.is_some() && t.effect.as_deref() == Some(NO_EXECUTE))
        {
            continue;
        }
        let reachable: Vec<_> = cx
            .targets_of(o)
            .into_iter()
            .filter(|t| cx.untolerated(t, tols).is_empty())
            .collect();
        for (i, t) in tols.iter().enumerate() {
            let Some(secs) = t.toleration_seconds else {
                continue;
            };
            if t.effect.as_deref() != Some(NO_EXECUTE) {
                continue;
            }
            let mut nodes = Vec::new();
            let mut taint = None;
            for x in &reachable {
                if let Some(tt) = x.taints().iter().find(|tt| {
                    tt.effect == NO_EXECUTE
                        && !is_transient(tt)
                        && tolerates(t, tt, &cx.input.gates)
                }) {
                    nodes.push(x.name.as_str());
                    taint.get_or_insert(taint_to_string(tt));
                }
            }
            let Some(taint) = taint else { continue };
            let shown: Vec<&str> = nodes.iter().take(3).copied().collect();
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: o.toleration_path(i),
                message: format!(
                    "tolerates {taint} for only {secs} s, and {}{} carry it: its pods are scheduled there, evicted after {secs} s, recreated by the {} and scheduled there again, forever",
                    shown.join(", "),
                    if nodes.len() > 3 { format!(" and {} more", nodes.len() - 3) } else { String::new() },
                    o.kind
                ),
                fix: format!(
                    "# to stay on those nodes, tolerate the taint without a limit:\n{}\n# or keep the pods off them with node affinity",
                    fix_item(&k8s_openapi::api::core::v1::Toleration { toleration_seconds: None, ..t.clone() })
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests;
