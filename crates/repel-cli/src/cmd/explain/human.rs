//! `repel explain`'s human output: the table of nodes, the NoExecute outcomes in words, a
//! DaemonSet's summary and the cluster scheduler's own message beside repel's.

use super::*;

/// The human lines for [`ClusterScheduler`].
fn cluster_scheduler_words(c: &ClusterScheduler, repel_message: &str) -> String {
    let since = c
        .last_transition_time
        .as_deref()
        .map(|t| format!(", since {t}"))
        .unwrap_or_default();
    let condition = format!(
        "PodScheduled=False, {}{since}",
        if c.reason.is_empty() {
            "no reason"
        } else {
            &c.reason
        }
    );
    if c.agrees {
        return format!(
            "\nThe cluster's scheduler wrote the same message ({condition}): repel agrees.\n"
        );
    }
    format!(
        "\nThe cluster's scheduler wrote ({condition}):\n  {}\n{}\n",
        c.message,
        if repel_message.is_empty() {
            "repel disagrees: it finds nodes for the pod in the cluster as it is now (the cluster may have changed since)."
        } else {
            "repel's message differs (above): the cluster may have changed since, or runs another version or configuration of the scheduler."
        }
    )
}

fn outcome_row_words(r: &NoExecuteRow) -> String {
    match (r.evict, r.seconds) {
        ("after", Some(s)) => format!("evicted after {s}s"),
        ("immediately", _) => "evicted at once".to_string(),
        _ => "stays".to_string(),
    }
}

/// The human form: the tolerations, a table with one row per node (the first failing plugin
/// and its reason, or the score), why the best node wins, upstream's message, notes, and the
/// tolerations to paste.
pub fn human(
    r: &ExplainReport,
    sources: &[Option<&'static str>],
    picked: Option<&BTreeSet<String>>,
    daemonset: bool,
) -> Result<String, CliError> {
    let mut out = format!("Pod {}\n", r.pod);
    if r.tolerations.is_empty() {
        out.push_str("Tolerations: none\n");
    } else {
        out.push_str("Tolerations:\n");
        for (i, t) in r.tolerations.iter().enumerate() {
            let added = match sources.get(i).copied().flatten() {
                Some(plugin) => format!("   (added by {plugin})"),
                None => String::new(),
            };
            out.push_str(&format!("  #{i}  {}{added}\n", describe_toleration(t)));
        }
    }
    out.push('\n');
    // A DaemonSet's rows carry no score (each pod is feasible on its own node only); they name
    // the pod its controller creates for the node instead.
    let mut t = table(&[
        "NODE",
        "FITS",
        if daemonset { "POD" } else { "SCORE" },
        "TAINTS",
        "IF RUNNING THERE",
        "WHY NOT",
    ]);
    for n in &r.nodes {
        let mut taints: Vec<String> = n
            .taints
            .iter()
            .map(|t| {
                let s = taint_to_string(&repel_core::taint::new_taint(&t.key, &t.value, &t.effect));
                match t.toleration {
                    Some(i) => format!("{s} tolerated by #{i}"),
                    None => format!("{s} NOT tolerated"),
                }
            })
            .collect();
        if n.cordoned {
            taints.push("(cordoned)".to_string());
        }
        if taints.is_empty() {
            taints.push("<none>".to_string());
        }
        let why = match (n.plugin, n.reasons.is_empty(), &n.message) {
            (Some(p), false, _) => format!("{p}: {}", n.reasons.join(", ")),
            (_, _, Some(m)) => m.clone(),
            _ => String::new(),
        };
        let third = if daemonset {
            match (&n.pod, n.daemon_pod) {
                (Some(p), _) => p.rsplit('/').next().unwrap_or(p).to_string(),
                (None, Some(true)) => "(not created)".to_string(),
                (None, _) => "-".to_string(),
            }
        } else {
            n.score.map_or("-".to_string(), |s| s.to_string())
        };
        t.add_row(vec![
            n.name.clone(),
            if n.feasible { "yes" } else { "no" }.to_string(),
            third,
            taints.join("\n"),
            outcome_row_words(&n.no_execute),
            why,
        ]);
    }
    out.push_str(&render(&t));
    out.push('\n');
    let feasible: Vec<&NodeRow> = r.nodes.iter().filter(|n| n.feasible).collect();
    if daemonset {
        out.push_str(&daemon_summary(r));
    } else if feasible.is_empty() {
        out.push_str(&r.message);
        out.push('\n');
        if let Some(p) = &r.preemption {
            out.push_str(&format!(
                "Preemption would make room on {} by deleting {}.\n",
                p.node,
                p.victims.join(", ")
            ));
        }
    } else {
        let best = feasible.iter().filter_map(|n| n.score).max();
        let top: Vec<&&NodeRow> = feasible.iter().filter(|n| n.score == best).collect();
        let names: Vec<&str> = top.iter().map(|n| n.name.as_str()).collect();
        out.push_str(&format!(
            "Fits {} of {} node(s). Best: {}",
            feasible.len(),
            r.nodes.len(),
            names.join(", ")
        ));
        if let (Some(b), Some(first)) = (best, top.first()) {
            let parts: Vec<String> = first
                .scores
                .iter()
                .flatten()
                .map(|(p, s)| match default_weight(p) {
                    Some(w) if w != 1 => format!("{p} {s}×{w}"),
                    _ => format!("{p} {s}"),
                })
                .collect();
            out.push_str(&format!(" (score {b}: {})", parts.join(", ")));
        }
        out.push_str(if names.len() > 1 {
            "; the scheduler picks one of them at random.\n"
        } else {
            ".\n"
        });
    }
    if let Some(c) = &r.cluster_scheduler {
        out.push_str(&cluster_scheduler_words(c, &r.message));
    }
    for a in &r.advice {
        out.push_str(&format!("\nNote: {a}.\n"));
    }
    for m in &r.near_misses {
        out.push_str(&format!(
            "\nNear miss: toleration #{} does not match {}: {}.\n",
            m.toleration, m.taint, m.message
        ));
    }
    if let Some(launch) = r.node_pools.iter().find(|p| p.reason.is_none()) {
        out.push_str(&format!(
            "\nKarpenter would launch a node for it from NodePool {}{}{}.\n",
            launch.pool,
            launch
                .instance_type
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default(),
            launch
                .relaxed
                .as_deref()
                .map(|r| format!(", once it relaxes the pod ({r})"))
                .unwrap_or_default()
        ));
    } else if !r.node_pools.is_empty() {
        out.push_str("\nNo Karpenter NodePool would launch a node for it.\n");
    }
    for p in r.node_pools.iter().filter(|p| p.reason.is_some()) {
        out.push_str(&format!(
            "  NodePool {}: {}\n",
            p.pool,
            p.reason.as_deref().unwrap_or_default()
        ));
    }
    // Every tainted node's toleration is in -o json; the text shows them where they matter:
    // when the pod fits nowhere, for the nodes its own required affinity picks (tolerating a
    // node the affinity refuses opens nothing), each set of tolerations once with the nodes it
    // opens.
    let with_sugg: Vec<&NodeRow> = r
        .nodes
        .iter()
        .filter(|n| !n.suggested_tolerations.is_empty())
        .filter(|n| picked.is_none_or(|p| p.contains(&n.name)))
        .collect();
    if !feasible.is_empty() && !with_sugg.is_empty() {
        let names: Vec<&str> = with_sugg.iter().map(|n| n.name.as_str()).collect();
        out.push_str(&format!(
            "\nThe tolerations that would open {} are in -o json (suggestedTolerations).\n",
            names.join(", ")
        ));
    } else {
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for n in &with_sugg {
            let yaml = tolerations_yaml(&n.suggested_tolerations)?;
            match groups.iter_mut().find(|(y, _)| *y == yaml) {
                Some((_, names)) => names.push(&n.name),
                None => groups.push((yaml, vec![&n.name])),
            }
        }
        for (yaml, names) in groups {
            out.push_str(&format!(
                "\nTo let the pod onto {}, add to its tolerations:\n",
                names.join(", ")
            ));
            for line in yaml.lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The summary of a DaemonSet's rows: the nodes its controller creates a pod for, those the pod
/// runs on, and the FitError of each pod left Pending.
pub(super) fn daemon_summary(r: &ExplainReport) -> String {
    let created: Vec<&NodeRow> = r
        .nodes
        .iter()
        .filter(|n| n.daemon_pod == Some(true))
        .collect();
    if created.is_empty() {
        return "The DaemonSet controller creates this pod on no node.\n".to_string();
    }
    let runs: Vec<&str> = created
        .iter()
        .filter(|n| n.feasible)
        .map(|n| n.name.as_str())
        .collect();
    let mut out = format!(
        "The DaemonSet controller creates a pod for {} of {} node(s), each pinned to its node (matchFields metadata.name); it runs on {}.\n",
        created.len(),
        r.nodes.len(),
        if runs.is_empty() {
            "no node".to_string()
        } else {
            runs.join(", ")
        }
    );
    for n in created.iter().filter(|n| !n.feasible) {
        out.push_str(&format!(
            "Its pod for {} stays Pending: {}\n",
            n.name,
            n.message.as_deref().unwrap_or_default()
        ));
    }
    out
}
