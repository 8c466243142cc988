//! `repel demo`: the documentation's cluster, pod by pod: where each may go and why, what a
//! NoExecute taint would do, and the classic mistakes. Runs on built-in data; the same cluster
//! is `examples/demo/cluster.yaml`.

use clap::Args;
use k8s_openapi::api::core::v1::{Node, Pod, Toleration};
use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_core::advice::{Advice, advise};
use repel_core::explain::{Explanation, NodeVerdict};
use repel_core::taint::taint_to_string;
use repel_core::toleration::describe_toleration;
use repel_core::workload::{namespace_of, representative_pod};

use crate::CliError;
use crate::output::{render, table, tolerations_yaml};
use crate::pod_target::{Target, evaluate, outcome_words};
use crate::scenario_file::{DEMO_CLUSTER, DEMO_PATH, DEMO_STORY, STORY_PATH};
use repel_manifest::{Inventory, for_each_object, parse_documents};

/// Arguments of `repel demo`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel demo")]
pub struct DemoArgs {}

/// Reads the built-in cluster.
pub fn demo_inventory() -> Result<Inventory, CliError> {
    let mut inv = Inventory::default();
    for doc in parse_documents(DEMO_PATH, DEMO_CLUSTER)? {
        for_each_object(DEMO_PATH, &doc, |source, v| inv.add(source, v))?;
    }
    Ok(inv)
}

fn names(vs: &[&NodeVerdict]) -> String {
    vs.iter()
        .map(|v| v.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn placement(out: &mut String, e: &Explanation) {
    let feasible: Vec<&NodeVerdict> = e.nodes.iter().filter(|v| v.feasible()).collect();
    if feasible.is_empty() {
        out.push_str("  may go to:  nowhere\n");
        if !e.message.is_empty() {
            out.push_str(&format!("  scheduler:  {}\n", e.message));
        }
    } else {
        let best = feasible.iter().filter_map(|v| v.score()).max().unwrap_or(0);
        let list: Vec<String> = feasible
            .iter()
            .map(|v| {
                if v.score() == Some(best) {
                    v.name.clone()
                } else {
                    format!("{} (avoided: PreferNoSchedule)", v.name)
                }
            })
            .collect();
        out.push_str(&format!("  may go to:  {}\n", list.join(", ")));
    }
    let mut by_reason: Vec<(&str, Vec<&NodeVerdict>)> = Vec::new();
    for v in e.nodes.iter().filter(|v| !v.feasible()) {
        let reason = v.rejection.as_ref().map_or("", |r| r.reason);
        match by_reason.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, list)) => list.push(v),
            None => by_reason.push((reason, vec![v])),
        }
    }
    for (reason, list) in by_reason {
        out.push_str(&format!("  kept off:   {}: {reason}\n", names(&list)));
    }
}

fn advice_lines(out: &mut String, advice: &[Advice], e: &Explanation) -> Result<(), CliError> {
    for a in advice {
        out.push_str(&format!("  ! {a}\n"));
        let Advice::KeptOffOwnNodes { nodes: kept } = a else {
            continue;
        };
        if let Some(v) = e
            .nodes
            .iter()
            .find(|v| kept.iter().any(|(n, _)| n == &v.name))
        {
            out.push_str("    the fix: add to its tolerations\n");
            for line in tolerations_yaml(&v.suggestions)?.lines() {
                out.push_str(&format!("      {line}\n"));
            }
        }
    }
    Ok(())
}

fn section(
    out: &mut String,
    title: &str,
    own: &[Toleration],
    target: &Target,
    nodes: &[Node],
    gates: &FeatureGates,
) -> Result<(Explanation, Vec<Advice>), CliError> {
    let (_, _, admitted, e) = evaluate(target, nodes, gates, false, &AdmissionConfig::default())?;
    let tols: Vec<String> = own.iter().map(describe_toleration).collect();
    let tols = if tols.is_empty() {
        "no tolerations".to_string()
    } else {
        tols.join("; ")
    };
    out.push_str(&format!("{title}  [{tols}]\n"));
    // A DaemonSet's controller, not the scheduler, decides where its pods go: no FitError.
    let e = if target.daemonset {
        Explanation {
            message: String::new(),
            ..e
        }
    } else {
        e
    };
    placement(out, &e);
    let mut spec = target.pod.spec.clone().unwrap_or_default();
    spec.tolerations = Some(admitted);
    let advice = advise(&spec, nodes, &e);
    advice_lines(out, &advice, &e)?;
    Ok((e, advice))
}

/// The whole demo text.
pub fn demo_text() -> Result<String, CliError> {
    let inv = demo_inventory()?;
    let nodes: Vec<Node> = inv.nodes.iter().map(|n| n.obj.clone()).collect();
    let off = FeatureGates::default();
    let on = FeatureGates::with_comparison_operators();
    let mut out = String::new();
    out.push_str(&format!(
        "repel demo: taints and tolerations on a cluster drawn from the Kubernetes docs\n\
         ({} nodes, {} pods, {} DaemonSet; the same cluster is {DEMO_PATH})\n\n",
        nodes.len(),
        inv.pods.len(),
        inv.workloads.len()
    ));
    out.push_str("Taints repel pods; tolerations let them past. The nodes:\n\n");
    let mut t = table(&["NODE", "TAINTS"]);
    for n in &nodes {
        let taints: Vec<String> = n
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .map(|ts| ts.iter().map(taint_to_string).collect())
            .unwrap_or_default();
        let taints = if taints.is_empty() {
            "<none>".to_string()
        } else {
            taints.join(", ")
        };
        t.add_row(vec![n.metadata.name.clone().unwrap_or_default(), taints]);
    }
    out.push_str(&render(&t));
    out.push_str(
        "\nWhere each pod may go (the scheduler's NodeUnschedulable, TaintToleration and \
         NodeAffinity filters, upstream v1.35):\n\n",
    );
    let mut explained: Vec<(String, Explanation)> = Vec::new();
    for p in &inv.pods {
        let pod: &Pod = &p.obj;
        let name = pod.metadata.name.clone().unwrap_or_default();
        let target = Target {
            pod: pod.clone(),
            namespace: None,
            origin: None,
            daemonset: false,
        };
        let uses_gt = pod
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.as_ref())
            .is_some_and(|ts| {
                ts.iter()
                    .any(|t| matches!(t.operator.as_deref(), Some("Gt" | "Lt")))
            });
        let title = format!("{}/{name}", namespace_of(&pod.metadata));
        let own = pod
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.clone())
            .unwrap_or_default();
        let (e, _) = section(&mut out, &title, &own, &target, &nodes, &off)?;
        if uses_gt {
            out.push_str("  Gt and Lt never match while TaintTolerationComparisonOperators is off (the v1.35 default).\n");
            out.push_str("  With --feature-gates TaintTolerationComparisonOperators=true:\n");
            let (_, _, _, e_on) =
                evaluate(&target, &nodes, &on, false, &AdmissionConfig::default())?;
            let mut sub = String::new();
            placement(&mut sub, &e_on);
            for line in sub.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out.push('\n');
        explained.push((name, e));
    }
    for w in &inv.workloads {
        let Some(pod) = representative_pod(&w.obj, 0) else {
            continue;
        };
        let title = format!("{} {}/{}", w.obj.kind(), w.obj.namespace(), w.obj.name());
        let own = w
            .obj
            .template()
            .and_then(|(t, _)| t.spec.as_ref())
            .and_then(|s| s.tolerations.clone())
            .unwrap_or_default();
        let target = Target {
            pod,
            namespace: None,
            origin: None,
            daemonset: true,
        };
        section(&mut out, &title, &own, &target, &nodes, &off)?;
        out.push_str(
            "  (judged with the tolerations the DaemonSet controller adds: not-ready and unreachable forever,\n   the pressure taints and unschedulable)\n\n",
        );
    }
    if let Some(node1) = nodes
        .iter()
        .find(|n| n.metadata.name.as_deref() == Some("node1"))
    {
        let taint = node1
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .and_then(|t| t.first())
            .map(taint_to_string)
            .unwrap_or_default();
        out.push_str(&format!(
            "NoExecute: if `kubectl taint nodes node1 {taint}` hit node1 while these pods ran there\n(bound by spec.nodeName, past the scheduler), the taint-eviction controller would act so:\n\n"
        ));
        let mut t = table(&["POD", "ON NODE1"]);
        for (name, e) in &explained {
            if let Some(v) = e.nodes.iter().find(|v| v.name == "node1") {
                t.add_row(vec![name.clone(), outcome_words(v.no_execute)]);
            }
        }
        out.push_str(&render(&t));
    }
    out.push_str(&format!(
        "\nNext: repel explain default/group-app-toleration-only -f {DEMO_PATH}\n      \
         repel check -f {DEMO_PATH}   (Gt is refused until the gate is on: add\n      --feature-gates TaintTolerationComparisonOperators=true)\n      \
         repel admit -f {DEMO_PATH}\n      \
         repel schedule -f {DEMO_PATH} --feature-gates TaintTolerationComparisonOperators=true\n"
    ));
    Ok(out)
}

/// The second half: the story over time on the simulated clock.
pub fn story_text() -> Result<String, CliError> {
    let (scenario, input) = crate::scenario_file::load_scenario_text(
        STORY_PATH,
        DEMO_STORY,
        std::path::Path::new("examples/demo"),
        repel_manifest::Validate::Strict,
    )?;
    let report = repel_engine::sim::run_scenario(&scenario, input);
    let mut out = format!(
        "\n\nOver time, on the simulated clock (the same story is {STORY_PATH}):\n\
         - node1 gets key1=value1:NoExecute: the pod without a toleration goes at once, the one with\n  \
         tolerationSeconds: 3600 an hour later, the one without tolerationSeconds never;\n\
         - node2 gets the same taint, removed after 30 minutes: its pod's deletion is cancelled;\n\
         - node3's kubelet stops: after node-monitor-grace-period (50 s) the node is unreachable, and\n  \
         300 s later (the default toleration) its pod is deleted and replaced on another node (the\n  \
         old one stays Terminating: node3's kubelet cannot finish), while the DaemonSet's agent stays;\n\
         - node4 is cordoned (its pod keeps running), then drained (its pod moves).\n\n"
    );
    out.push_str(&crate::output::timeline(&report));
    let failed = report.expectations.iter().filter(|e| !e.passed).count();
    out.push_str(&format!(
        "\nThe story's {} expectations: {}.\n",
        report.expectations.len(),
        if failed == 0 {
            "all hold".to_string()
        } else {
            format!("{failed} failed")
        }
    ));
    Ok(out)
}

/// Runs `repel demo`.
pub fn run(_args: DemoArgs) -> Result<u8, CliError> {
    out!("{}{}", demo_text()?, story_text()?);
    Ok(0)
}
