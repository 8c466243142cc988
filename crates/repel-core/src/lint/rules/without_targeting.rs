//! `toleration-without-targeting`: tolerating a dedicated taint without a nodeSelector or
//! required node affinity toward those nodes. A toleration only allows; the docs' dedicated
//! nodes recipe ("Taints and Tolerations", Example use cases) needs both the toleration and a
//! node affinity to the nodes' label — without it the pods may land anywhere.

use super::RuleImpl;
use crate::lint::{Context, Finding, LintObject, Rule, Severity, Subject, catalogue, is_transient};
use crate::taint::{NO_EXECUTE, NO_SCHEDULE, taint_to_string};
use crate::toleration::{OP_EQUAL, OP_EXISTS, tolerates};

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "toleration-without-targeting",
        severity: Severity::Warning,
        summary: "tolerates a dedicated taint with no nodeSelector or affinity toward those nodes: its pods may land anywhere",
        explain: "A toleration lets a pod onto tainted nodes; it does not send it there. The \
dedicated-nodes recipe of the Kubernetes docs (concepts/scheduling-eviction/taint-and-toleration, \
\"Example Use Cases\") needs both: the taint keeps other pods off, and a node affinity (or \
nodeSelector) on the nodes' label keeps these pods on. A taint is dedicated when a node or pool \
of the input carries it (then the finding names the untainted nodes the pods may also land on), \
or when its key is none of the well-known taints (then any nodeSelector or required affinity is \
taken as targeting). The well-known taints are never taken as dedicated: tolerating \
CriticalAddonsOnly, a Spot pool or the control plane allows pods there without meaning to \
confine them. Not reported for node agents (DaemonSets), pods with spec.nodeName, and \
pods that request an extended resource (nvidia.com/gpu…), which only the dedicated nodes offer.",
        example: "# bad: the Job may run on any node\ntolerations:\n- {key: sku, operator: Equal, value: gpu, effect: NoSchedule}\n# good\ntolerations:\n- {key: sku, operator: Equal, value: gpu, effect: NoSchedule}\nnodeSelector:\n  sku: gpu",
        single_object: false,
    },
    check,
};

/// Whether a container requests or limits an extended resource (a name with a domain).
fn requests_extended(o: &LintObject<'_>) -> bool {
    o.spec.containers.iter().any(|c| {
        c.resources.as_ref().is_some_and(|r| {
            let named = |m: &Option<std::collections::BTreeMap<String, _>>| {
                m.as_ref().is_some_and(|m| {
                    m.keys()
                        .any(|k: &String| k.contains('/') && !k.starts_with("hugepages-"))
                })
            };
            named(&r.requests) || named(&r.limits)
        })
    })
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if cx.owner_in_input(o)
            || o.is_daemon()
            || o.spec.node_name.as_deref().is_some_and(|n| !n.is_empty())
            || requests_extended(o)
        {
            continue;
        }
        let targeted = o.spec.node_selector.as_ref().is_some_and(|m| !m.is_empty())
            || o.selector_path() != o.spec_path;
        let mine = cx.targets_of(o);
        for (i, t) in o.tolerations().iter().enumerate() {
            let key = t.key.as_deref().unwrap_or_default();
            let op = t.operator.as_deref().unwrap_or(OP_EQUAL);
            let effect = t.effect.as_deref().unwrap_or_default();
            if key.is_empty()
                || catalogue::lookup(key).is_some()
                || !(op == OP_EQUAL || op == OP_EXISTS)
                || !matches!(effect, "" | NO_SCHEDULE | NO_EXECUTE)
                || t.toleration_seconds.is_some()
            {
                continue;
            }
            let dedicated: Vec<String> = cx
                .distinct_taints()
                .filter(|x| !is_transient(x) && x.effect != "PreferNoSchedule")
                .filter(|x| tolerates(t, x, &cx.input.gates))
                .map(taint_to_string)
                .collect();
            let message = if let Some(taint) = dedicated.first() {
                // Nodes it may land on without the taint it tolerates.
                let elsewhere: Vec<&str> = mine
                    .iter()
                    .filter(|x| !x.taints().iter().any(|tt| tt.key == key))
                    .filter(|x| cx.untolerated(x, o.tolerations()).is_empty())
                    .map(|x| x.name.as_str())
                    .collect();
                if elsewhere.is_empty() {
                    continue;
                }
                format!(
                    "tolerates the dedicated taint {taint} but nothing sends its pods to those nodes: they may land on {} as well",
                    elsewhere.join(", ")
                )
            } else {
                if targeted || catalogue::lookup(key).is_some() || catalogue::closest(key).is_some()
                {
                    continue;
                }
                format!(
                    "tolerates the taint {key} but has no nodeSelector or required node affinity: its pods may land on any node, not only those tainted {key}"
                )
            };
            let value = t
                .value
                .as_deref()
                .filter(|v| !v.is_empty())
                .unwrap_or("<value>");
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: o.toleration_path(i),
                message,
                fix: format!(
                    "# label the dedicated nodes (kubectl label nodes NODE {key}={value}), then:\nnodeSelector:\n  {key}: {}",
                    crate::lint::yaml_str(value)
                ),
            });
            break;
        }
    }
}

#[cfg(test)]
mod tests;
