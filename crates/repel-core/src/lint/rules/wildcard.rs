//! `wildcard-toleration`: a toleration with no key and `operator: Exists` tolerates every taint
//! (of its effect, or of every effect): the control plane, every dedicated pool, GPU nodes.
//! Normal for a node agent (a DaemonSet), a mistake elsewhere — and for a DaemonSet too when
//! the input has nodes it cannot run on (EKS Fargate, virtual-kubelet nodes).

use k8s_openapi::api::core::v1::Toleration;

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, Target, fix_item, toleration_yaml};
use crate::taint::{NO_EXECUTE, NO_SCHEDULE};
use crate::toleration::{OP_EXISTS, tolerates};

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "wildcard-toleration",
        severity: Severity::Warning,
        summary: "a keyless `operator: Exists` toleration outside DaemonSets, or on a DaemonSet that would land on nodes it cannot run on",
        explain: "\"An empty key with operator Exists matches all keys, values and effects which \
means this will tolerate everything\" (k8s.io/api core/v1 types.go, Toleration.Key). Such a pod \
may be scheduled onto the control plane, onto every dedicated pool (GPU, Spot, system), and — with \
effect NoExecute or none — is never evicted by any taint. Node agents (DaemonSets) are meant to \
run everywhere; anything else should tolerate the taints it means by key. A DaemonSet is \
reported when the input has Fargate or virtual-kubelet nodes it would be placed on, where no \
DaemonSet pod can run. A NoExecute wildcard with tolerationSeconds (\"leave a failed node after N \
s\") is not reported. Allow an object in the configuration (allow: {wildcard-toleration: \
[\"ns/name\"]}) when it truly must run everywhere.",
        example: "# bad: a Deployment that tolerates everything\ntolerations:\n- operator: Exists\n# good: the taints it is meant for\ntolerations:\n- {key: CriticalAddonsOnly, operator: Exists}",
        single_object: true,
    },
    check,
};

/// Whether `t` is a keyless `Exists` that makes pods schedulable (or unevictable) everywhere.
pub fn is_wildcard(t: &Toleration) -> bool {
    t.key.as_deref().unwrap_or_default().is_empty()
        && t.operator.as_deref() == Some(OP_EXISTS)
        && matches!(
            t.effect.as_deref().unwrap_or_default(),
            "" | NO_SCHEDULE | NO_EXECUTE
        )
        && t.toleration_seconds.is_none()
}

/// A node no DaemonSet pod runs on: EKS Fargate, or a virtual-kubelet node.
fn is_virtual(t: &Target) -> bool {
    let labels = t.node.metadata.labels.as_ref();
    let label = |k: &str| labels.and_then(|l| l.get(k)).map(String::as_str);
    label("eks.amazonaws.com/compute-type") == Some("fargate")
        || label("type") == Some("virtual-kubelet")
        || t.taints().iter().any(|x| {
            x.key == "virtual-kubelet.io/provider"
                || x.key == "eks.amazonaws.com/compute-type"
                    && x.value.as_deref() == Some("fargate")
        })
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if cx.owner_in_input(o) {
            continue;
        }
        for (i, t) in o.tolerations().iter().enumerate() {
            if !is_wildcard(t) {
                continue;
            }
            let every = match t.effect.as_deref().unwrap_or_default() {
                "" => "every taint".to_string(),
                e => format!("every {e} taint"),
            };
            let message = if o.is_daemon() {
                let virt: Vec<&str> = cx
                    .targets_of(o)
                    .into_iter()
                    .filter(|x| is_virtual(x))
                    .filter(|x| {
                        x.taints().iter().all(|tt| {
                            tolerates(t, tt, &cx.input.gates) || tt.effect == "PreferNoSchedule"
                        })
                    })
                    .map(|x| x.name.as_str())
                    .collect();
                if virt.is_empty() {
                    continue;
                }
                format!(
                    "toleration {} tolerates {every}, so the DaemonSet is placed on {} where no DaemonSet pod can run (Fargate and virtual-kubelet nodes): exclude them with node affinity",
                    toleration_yaml(t),
                    virt.join(", ")
                )
            } else {
                format!(
                    "toleration {} has no key and operator Exists: it tolerates {every}, the control plane and every dedicated pool included",
                    toleration_yaml(t)
                )
            };
            // The fix: the keys of the taints it meets in the input, or a placeholder.
            let mut keys: Vec<Toleration> = Vec::new();
            for x in cx.targets_of(o) {
                for tt in x.taints() {
                    if !crate::lint::is_transient(tt)
                        && tt.effect != "PreferNoSchedule"
                        && !keys
                            .iter()
                            .any(|k| k.key.as_deref() == Some(tt.key.as_str()))
                    {
                        keys.push(Toleration {
                            key: Some(tt.key.clone()),
                            operator: Some(OP_EXISTS.into()),
                            effect: Some(tt.effect.clone()),
                            ..Default::default()
                        });
                    }
                }
            }
            let fix = if o.is_daemon() {
                "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n      - matchExpressions:\n        - {key: eks.amazonaws.com/compute-type, operator: NotIn, values: [fargate]}\n        - {key: type, operator: NotIn, values: [virtual-kubelet]}".to_string()
            } else if keys.is_empty() {
                format!(
                    "- {{key: <the taint's key>, operator: Exists{}}}",
                    t.effect
                        .as_deref()
                        .filter(|e| !e.is_empty())
                        .map(|e| format!(", effect: {e}"))
                        .unwrap_or_default()
                )
            } else {
                let mut lines: Vec<String> = keys.iter().take(5).map(fix_item).collect();
                if keys.len() > 5 {
                    lines.push(format!(
                        "# … and {} more taints of the input",
                        keys.len() - 5
                    ));
                }
                lines.join("\n")
            };
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: o.toleration_path(i),
                message,
                fix,
            });
        }
    }
}

#[cfg(test)]
mod tests;
