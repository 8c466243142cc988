//! `daemonset-misses-nodes`: a DaemonSet whose intended nodes (those its nodeSelector and node
//! affinity pick, every node for a node agent) carry taints it does not tolerate: the DaemonSet
//! controller places no pod there (`NodeShouldRunDaemonPod`: the pod's TaintToleration check),
//! with no event and no error. A device plugin that misses its GPU nodes advertises no GPU
//! there, and every pod requesting one stays Pending.

use std::collections::BTreeMap;

use super::RuleImpl;
use crate::affinity::RequiredNodeAffinity;
use crate::lint::{Context, Finding, LintObject, Rule, Severity, Subject, Target, fix_item};
use crate::taint::{NO_EXECUTE, NO_SCHEDULE, new_taint, taint_to_string};
use crate::toleration::tolerates;

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "daemonset-misses-nodes",
        severity: Severity::Warning,
        summary: "a DaemonSet whose intended nodes carry taints it does not tolerate: it runs on N of M",
        explain: "The DaemonSet controller runs a pod on every node its nodeSelector and node \
affinity pick whose NoSchedule and NoExecute taints the pod tolerates (NodeShouldRunDaemonPod, \
pkg/controller/daemon; the controller adds only the not-ready, unreachable, pressure, \
unschedulable and network-unavailable tolerations). A node with another taint simply gets no \
pod: no event, no error. For a GPU device plugin that means the node advertises no GPU and every \
pod requesting one stays Pending. With nodes or pools in the input the finding says how many of \
the intended nodes the DaemonSet runs on and names the taints; without them, a DaemonSet that \
selects GPU nodes (NVIDIA, NFD PCI-vendor 10de or GKE accelerator labels) and does not tolerate \
nvidia.com/gpu, the taint GPU pools carry (GKE: nvidia.com/gpu=present:NoSchedule), is reported.",
        example: "# bad: selects GPU nodes, tolerates nothing\naffinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: feature.node.kubernetes.io/pci-10de.present, operator: In, values: [\"true\"]}]}]}}}\n# good\ntolerations:\n- {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
        single_object: false,
    },
    check,
};

/// Label keys that mark GPU nodes.
fn is_gpu_label(key: &str) -> bool {
    key.starts_with("nvidia.com/")
        || key.contains("pci-10de")
        || key == "cloud.google.com/gke-accelerator"
        || key == "accelerator"
}

/// Whether the DaemonSet's placement names GPU labels.
fn selects_gpu(o: &LintObject<'_>) -> Option<String> {
    if let Some(k) = o
        .spec
        .node_selector
        .as_ref()
        .and_then(|m| m.keys().find(|k| is_gpu_label(k)))
    {
        return Some(k.clone());
    }
    let terms = &o
        .spec
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms;
    terms.iter().find_map(|t| {
        t.match_expressions
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|e| is_gpu_label(&e.key) && e.operator != "DoesNotExist" && e.operator != "NotIn")
            .map(|e| e.key.clone())
    })
}

/// Whether it is a device plugin (its name or a container's says so; not its image, which
/// NVIDIA's GPU feature discovery shares with the plugin).
fn is_device_plugin(o: &LintObject<'_>) -> bool {
    o.name().contains("device-plugin")
        || o.spec
            .containers
            .iter()
            .any(|c| c.name.contains("device-plugin"))
}

/// A node with a GPU: a GPU label or taint key, or GPUs in its capacity.
fn has_gpu(t: &Target) -> bool {
    t.node
        .metadata
        .labels
        .as_ref()
        .is_some_and(|l| l.keys().any(|k| is_gpu_label(k)))
        || t.taints().iter().any(|x| x.key.contains("gpu"))
        || t.node
            .status
            .as_ref()
            .and_then(|s| s.capacity.as_ref())
            .is_some_and(|c| c.contains_key("nvidia.com/gpu"))
}

/// The path findings on the DaemonSet's tolerations point at.
pub(crate) fn tolerations_path(o: &LintObject<'_>) -> String {
    if o.spec.tolerations.is_some() {
        format!("{}.tolerations", o.spec_path)
    } else {
        o.selector_path()
    }
}

/// Whether every untolerated taint of the node is NoExecute and the DaemonSet tolerates the
/// node's NoSchedule taints ([`super::noexecute_agent`]'s case).
pub(crate) fn only_noexecute_missed(cx: &Context<'_>, t: &Target, o: &LintObject<'_>) -> bool {
    let tols = o.effective_tolerations();
    let missed = cx.untolerated(t, &tols);
    let tolerates_no_schedule = t.taints().iter().any(|x| {
        x.effect == NO_SCHEDULE && tols.iter().any(|tol| tolerates(tol, x, &cx.input.gates))
    }) || tols.iter().any(|tol| {
        tol.key.as_deref().unwrap_or_default().is_empty()
            && tol.effect.as_deref() == Some(NO_SCHEDULE)
    });
    !missed.is_empty() && missed.iter().all(|x| x.effect == NO_EXECUTE) && tolerates_no_schedule
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if o.kind != "DaemonSet" {
            continue;
        }
        let tols = o.effective_tolerations();
        if cx.targets.is_empty() {
            let Some(label) = selects_gpu(o) else {
                continue;
            };
            let gpu = new_taint("nvidia.com/gpu", "present", NO_SCHEDULE);
            if tols.iter().any(|t| tolerates(t, &gpu, &cx.input.gates)) {
                continue;
            }
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: o.selector_path(),
                message: format!(
                    "selects GPU nodes ({label}) but does not tolerate nvidia.com/gpu, the taint GPU node pools carry (GKE sets nvidia.com/gpu=present:NoSchedule): on tainted GPU nodes it runs on none of them{}",
                    if is_device_plugin(o) { ", and they advertise no GPU" } else { "" }
                ),
                fix: format!("tolerations:\n- {{key: nvidia.com/gpu, operator: Exists, effect: {NO_SCHEDULE}}}"),
            });
            continue;
        }
        let aff = RequiredNodeAffinity::from_pod_spec(o.spec);
        let intended: Vec<&Target> = cx
            .targets
            .iter()
            .filter(|t| aff.matches_ignoring_errors(&t.node))
            .collect();
        let missed: Vec<(&Target, Vec<String>)> = intended
            .iter()
            .filter(|t| !only_noexecute_missed(cx, t, o))
            .map(|t| {
                (
                    *t,
                    cx.untolerated(t, &tols)
                        .into_iter()
                        .map(taint_to_string)
                        .collect::<Vec<_>>(),
                )
            })
            .filter(|(_, m)| !m.is_empty())
            .collect();
        if missed.is_empty() {
            continue;
        }
        let runs = intended
            .iter()
            .filter(|t| cx.untolerated(t, &tols).is_empty())
            .count();
        let mut by_taint: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for (t, taints) in &missed {
            for x in taints {
                by_taint.entry(x.clone()).or_default().push(&t.name);
            }
        }
        let listed: Vec<String> = by_taint
            .iter()
            .map(|(taint, nodes)| {
                let shown: Vec<&str> = nodes.iter().take(3).copied().collect();
                let more = nodes.len().saturating_sub(3);
                format!(
                    "{taint} on {}{}",
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                )
            })
            .collect();
        let gpu = is_device_plugin(o) && missed.iter().any(|(t, _)| has_gpu(t));
        let mut fix = Vec::new();
        for (t, _) in &missed {
            for x in cx.untolerated(t, &tols) {
                let tol = k8s_openapi::api::core::v1::Toleration {
                    key: Some(x.key.clone()),
                    operator: Some("Exists".into()),
                    effect: Some(x.effect.clone()),
                    ..Default::default()
                };
                let line = fix_item(&tol);
                if !fix.contains(&line) {
                    fix.push(line);
                }
            }
        }
        out.push(Finding {
            rule: RULE.info.id,
            severity: RULE.info.severity,
            subject: Subject::Object(oi),
            path: tolerations_path(o),
            message: format!(
                "runs on {runs} of {} intended nodes: taints it does not tolerate keep it off the others ({}){}",
                intended.len(),
                listed.join("; "),
                if gpu {
                    "; this is a device plugin: those nodes advertise no GPU, and every pod requesting one there stays Pending"
                } else {
                    ""
                }
            ),
            fix: format!("tolerations:\n{}", fix.join("\n")),
        });
    }
}

#[cfg(test)]
mod tests;
