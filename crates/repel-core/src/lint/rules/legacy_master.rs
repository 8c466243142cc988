//! `legacy-master-only`: tolerates or selects `node-role.kubernetes.io/master` but not
//! `node-role.kubernetes.io/control-plane`. kubeadm taints control-plane nodes
//! `node-role.kubernetes.io/control-plane:NoSchedule` since v1.24, stopped setting the `master`
//! taint in v1.25, and stopped setting the `master` label in v1.24
//! (kubernetes/kubeadm#2200, KEP-2067).

use super::RuleImpl;
use crate::lint::{Context, Finding, LintObject, Rule, Severity, Subject};
use crate::near_miss::{CONTROL_PLANE_TAINT_KEY, LEGACY_MASTER_TAINT_KEY};
use crate::taint::{NO_SCHEDULE, new_taint};
use crate::toleration::tolerates;

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "legacy-master-only",
        severity: Severity::Warning,
        summary: "tolerates or selects node-role.kubernetes.io/master but not node-role.kubernetes.io/control-plane",
        explain: "kubeadm renamed the control-plane node role (KEP-2067, kubernetes/kubeadm#2200): \
it has set the taint node-role.kubernetes.io/control-plane:NoSchedule since v1.24 and no longer \
sets node-role.kubernetes.io/master:NoSchedule since v1.25; the node-role.kubernetes.io/master \
label went in v1.24. A pod that tolerates or selects only the legacy key stays off the control \
plane of every cluster built since (Pending forever when it selects it). Keep the legacy key for \
older clusters (and OpenShift, which still sets it) and add the new one. Not reported when the \
input's nodes carry the legacy taint or label, nor in openshift-* namespaces.",
        example: "# bad\ntolerations:\n- {key: node-role.kubernetes.io/master, effect: NoSchedule}\n# good\ntolerations:\n- {key: node-role.kubernetes.io/master, effect: NoSchedule}\n- {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}",
        single_object: true,
    },
    check,
};

/// Whether the required node affinity names `key` in a match expression.
fn affinity_names(o: &LintObject<'_>, key: &str) -> bool {
    o.spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| {
            n.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .is_some_and(|ns| {
            ns.node_selector_terms.iter().any(|t| {
                t.match_expressions
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .any(|e| e.key == key)
            })
        })
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let tainted = cx
        .targets
        .iter()
        .any(|t| t.taints().iter().any(|x| x.key == LEGACY_MASTER_TAINT_KEY));
    let labelled = cx.targets.iter().any(|t| {
        t.node
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key(LEGACY_MASTER_TAINT_KEY))
    });
    let master = new_taint(LEGACY_MASTER_TAINT_KEY, "", NO_SCHEDULE);
    let control_plane = new_taint(CONTROL_PLANE_TAINT_KEY, "", NO_SCHEDULE);
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if cx.owner_in_input(o) || o.namespace().starts_with("openshift-") {
            continue;
        }
        let tols = o.tolerations();
        let gates = &cx.input.gates;
        if !tainted && !tols.iter().any(|t| tolerates(t, &control_plane, gates)) {
            let legacy = tols.iter().position(|t| {
                t.key.as_deref() == Some(LEGACY_MASTER_TAINT_KEY) && tolerates(t, &master, gates)
            });
            if let Some(i) = legacy {
                let t = &tols[i];
                out.push(Finding {
                    rule: RULE.info.id,
                    severity: RULE.info.severity,
                    subject: Subject::Object(oi),
                    path: o.toleration_path(i),
                    message: format!(
                        "tolerates {LEGACY_MASTER_TAINT_KEY} but not {CONTROL_PLANE_TAINT_KEY}, the taint kubeadm sets on control-plane nodes since v1.24 (the legacy one is gone since v1.25)"
                    ),
                    fix: format!(
                        "- {{key: {CONTROL_PLANE_TAINT_KEY}, operator: Exists, effect: {}}}",
                        t.effect.as_deref().filter(|e| !e.is_empty()).unwrap_or(NO_SCHEDULE)
                    ),
                });
            }
        }
        if labelled {
            continue;
        }
        let selects = o
            .spec
            .node_selector
            .as_ref()
            .is_some_and(|m| m.contains_key(LEGACY_MASTER_TAINT_KEY));
        let selects_new = o
            .spec
            .node_selector
            .as_ref()
            .is_some_and(|m| m.contains_key(CONTROL_PLANE_TAINT_KEY))
            || affinity_names(o, CONTROL_PLANE_TAINT_KEY);
        let (path, fix) = if selects {
            (
                format!("{}.nodeSelector", o.spec_path),
                format!("nodeSelector:\n  {CONTROL_PLANE_TAINT_KEY}: \"\""),
            )
        } else if affinity_names(o, LEGACY_MASTER_TAINT_KEY) {
            (
                o.selector_path(),
                format!(
                    "- matchExpressions:\n  - {{key: {CONTROL_PLANE_TAINT_KEY}, operator: Exists}}"
                ),
            )
        } else {
            continue;
        };
        if selects_new {
            continue;
        }
        out.push(Finding {
            rule: RULE.info.id,
            severity: RULE.info.severity,
            subject: Subject::Object(oi),
            path,
            message: format!(
                "selects nodes labelled {LEGACY_MASTER_TAINT_KEY}, a label kubeadm no longer sets since v1.24: use {CONTROL_PLANE_TAINT_KEY}"
            ),
            fix,
        });
    }
}

#[cfg(test)]
mod tests;
