//! The rules on nodes and pools: `stranded-taint` (a taint no workload of the input tolerates),
//! `startup-taint-without-remover` (a Karpenter startup taint no DaemonSet of the input
//! tolerates) and `pool-nodeclass-missing` (a NodePool naming a node class the input lacks).

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, is_transient};
use crate::taint::{NO_EXECUTE, NO_SCHEDULE, taint_to_string};
use crate::toleration::tolerates;

/// `stranded-taint`.
pub const STRANDED: RuleImpl = RuleImpl {
    info: Rule {
        id: "stranded-taint",
        severity: Severity::Info,
        summary: "a node or pool taint no workload in the input tolerates",
        explain: "A NoSchedule or NoExecute taint keeps every pod that does not tolerate it off the \
node. When no workload of the input tolerates a node's or pool's taint, the node runs only what \
the DaemonSet controller and static pods bring (and a pool scales for nothing): either the \
workloads meant for it are missing their toleration, or they are not in the input. Only \
reported when the input has workloads; the control plane's transient taints are left out.",
        example: "# nodes: team=ml:NoSchedule; no workload tolerates team=ml",
        single_object: false,
    },
    check: check_stranded,
};

/// `startup-taint-without-remover`.
pub const STARTUP: RuleImpl = RuleImpl {
    info: Rule {
        id: "startup-taint-without-remover",
        severity: Severity::Info,
        summary: "a Karpenter startupTaints entry that no DaemonSet in the input tolerates",
        explain: "Karpenter puts a NodePool's startupTaints on new nodes and expects \"another \
system\" (a DaemonSet: a CNI agent, a GPU driver installer) to remove them once the node is \
ready (karpenter.sh NodePool docs, spec.template.spec.startupTaints). The remover must run on the \
tainted node, so it must tolerate the taint: when no DaemonSet of the input does, nothing removes \
it and the node never takes pods. Only reported when the input has DaemonSets.",
        example: "# NodePool: startupTaints: [{key: node.cilium.io/agent-not-ready, value: \"true\", effect: NoExecute}]\n# the cilium agent DaemonSet:\ntolerations:\n- operator: Exists",
        single_object: false,
    },
    check: check_startup,
};

/// `pool-nodeclass-missing`.
pub const NODECLASS: RuleImpl = RuleImpl {
    info: Rule {
        id: "pool-nodeclass-missing",
        severity: Severity::Error,
        summary: "a NodePool whose nodeClassRef names a node class not in the input",
        explain: "A Karpenter NodePool launches nodes from the node class its \
spec.template.spec.nodeClassRef names (EC2NodeClass, AKSNodeClass, …). When it names one that \
does not exist, Karpenter launches no node for the pool. Reported when the input holds node \
classes but not the one named.",
        example: "# bad: NodePool nodeClassRef {kind: AKSNodeClass, name: default}, only AKSNodeClass system-surge given\n# good\nnodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: system-surge}",
        single_object: false,
    },
    check: check_nodeclass,
};

/// The path of a pool's or node's `i`th taint (`""` where the pool's file is not a NodePool).
fn taint_path(cx: &Context<'_>, s: Subject, field: &str, i: usize) -> String {
    match s {
        Subject::Node(_) => format!("spec.taints[{i}]"),
        Subject::Pool(p) if cx.input.pools[p].provider == "karpenter" => {
            format!("spec.template.spec.{field}[{i}]")
        }
        _ => String::new(),
    }
}

fn check_stranded(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.input.objects.is_empty() {
        return;
    }
    // Each distinct toleration once, and each distinct taint judged once: a large cluster has
    // thousands of nodes and workloads but few of either.
    let mut tols: Vec<k8s_openapi::api::core::v1::Toleration> = Vec::new();
    for o in &cx.input.objects {
        for t in o.effective_tolerations() {
            if !tols.contains(&t) {
                tols.push(t);
            }
        }
    }
    let mut judged: std::collections::HashMap<(String, Option<String>, String), bool> =
        std::collections::HashMap::new();
    for t in &cx.targets {
        for (i, x) in t.taints().iter().enumerate() {
            if is_transient(x) || !(x.effect == NO_SCHEDULE || x.effect == NO_EXECUTE) {
                continue;
            }
            let tolerated = *judged
                .entry((x.key.clone(), x.value.clone(), x.effect.clone()))
                .or_insert_with(|| tols.iter().any(|tol| tolerates(tol, x, &cx.input.gates)));
            if tolerated {
                continue;
            }
            let s = taint_to_string(x);
            out.push(Finding {
                rule: STRANDED.info.id,
                severity: STRANDED.info.severity,
                subject: t.subject,
                path: taint_path(cx, t.subject, "taints", i),
                message: format!("no workload in the input tolerates {s}: {} runs none of them", t.name),
                fix: format!(
                    "# in the pod template of the workloads meant for {}:\ntolerations:\n- {{key: {}, operator: Exists, effect: {}}}",
                    t.name, x.key, x.effect
                ),
            });
        }
    }
}

fn check_startup(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let daemons: Vec<_> = cx
        .input
        .objects
        .iter()
        .filter(|o| o.kind == "DaemonSet")
        .map(|o| o.effective_tolerations())
        .collect();
    if daemons.is_empty() {
        return;
    }
    for (pi, p) in cx.input.pools.iter().enumerate() {
        for (i, x) in p.startup_taints.iter().enumerate() {
            if daemons
                .iter()
                .flatten()
                .any(|tol| tolerates(tol, x, &cx.input.gates))
            {
                continue;
            }
            out.push(Finding {
                rule: STARTUP.info.id,
                severity: STARTUP.info.severity,
                subject: Subject::Pool(pi),
                path: format!("spec.template.spec.startupTaints[{i}]"),
                message: format!(
                    "no DaemonSet in the input tolerates the startup taint {}: whatever removes it must run on the new node",
                    taint_to_string(x)
                ),
                fix: format!(
                    "# in the DaemonSet that removes it:\ntolerations:\n- {{key: {}, operator: Exists, effect: {}}}",
                    x.key, x.effect
                ),
            });
        }
    }
}

fn check_nodeclass(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let nc = &cx.input.node_classes;
    if nc.classes.is_empty() {
        return;
    }
    for (pi, kind, name) in &nc.refs {
        if nc.classes.iter().any(|(k, n)| k == kind && n == name) {
            continue;
        }
        let given: Vec<String> = nc.classes.iter().map(|(k, n)| format!("{k} {n}")).collect();
        out.push(Finding {
            rule: NODECLASS.info.id,
            severity: NODECLASS.info.severity,
            subject: Subject::Pool(*pi),
            path: "spec.template.spec.nodeClassRef".into(),
            message: format!(
                "nodeClassRef names {kind} {name}, which is not in the input (it holds {}): Karpenter launches no node for this pool",
                given.join(", ")
            ),
            fix: match nc.classes.iter().find(|(k, _)| k == kind) {
                Some((k, n)) => format!("nodeClassRef: {{kind: {k}, name: {n}}}"),
                None => format!("# add the {kind} {name} to the manifests"),
            },
        });
    }
}

#[cfg(test)]
mod tests;
