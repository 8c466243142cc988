//! `repel bench`'s table.

use super::{BenchReport, per_second};
use crate::output::table;

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

/// The table of the human output.
pub(super) fn human(r: &BenchReport) -> comfy_table::Table {
    let p = &r.phases;
    let mut rows: Vec<(&str, String)> = vec![
        (
            "cluster",
            match r.shape {
                Some(shape) => format!("generated, {shape} shape"),
                None if r.source == "cluster" => "your live cluster (--kubeconfig)".to_string(),
                None => "your files (-f)".to_string(),
            },
        ),
        ("nodes", r.nodes.to_string()),
        ("pods", r.pods.to_string()),
        (
            "scheduled / unschedulable",
            format!("{} / {}", r.scheduled, r.unschedulable),
        ),
        ("engine", r.engine.to_string()),
        (
            "compiled placements (repeat path)",
            format!("{} ({})", r.paths.compiled, r.paths.repeated),
        ),
        (
            "compiled unschedulable (like the pod before)",
            format!(
                "{} ({})",
                r.paths.compiled_unschedulable, r.paths.repeated_unschedulable
            ),
        ),
        ("reference path", r.paths.reference.to_string()),
        (
            "node / pod classes",
            format!("{} / {}", r.paths.node_classes, r.paths.pod_classes),
        ),
    ];
    if r.shape.is_some() {
        rows.push(("generate", format!("{:.3} s", r.generate_seconds)));
    }
    rows.extend([
        ("load", format!("{:.3} s", r.load_seconds)),
        (
            "schedule, every node scored",
            if r.scheduled + r.unschedulable == 0 {
                // A live cluster or its snapshot: every pod is bound as read.
                format!("{:.3} s (no pending pod)", r.schedule_seconds)
            } else {
                format!(
                    "{:.3} s ({:.0} pods/s)",
                    r.schedule_seconds, r.pods_per_second
                )
            },
        ),
        (
            "schedule, adaptive percentage",
            format!("{:.3} s", r.adaptive_schedule_seconds),
        ),
        (
            "eviction plan, 1,000 nodes",
            format!(
                "{:.4} s ({} pods)",
                r.eviction_plan_seconds, r.eviction_plan_pods
            ),
        ),
        (
            "drain what-if, every node (cluster-autoscaler)",
            format!(
                "{:.3} s ({} of {} drainable)",
                r.drain_all_seconds, r.drain_all_drainable, r.nodes
            ),
        ),
        (
            "drain what-if, every node (kubectl --force …)",
            format!(
                "{:.3} s ({} of {} drainable)",
                r.drain_all_kubectl_seconds, r.drain_all_kubectl_drainable, r.nodes
            ),
        ),
        (
            "consolidate (cluster-autoscaler)",
            format!(
                "{:.3} s ({} removable)",
                r.consolidate_seconds, r.consolidate_removable
            ),
        ),
        ("explain one pod", format!("{:.4} s", r.explain_seconds)),
        ("peak memory", mib(r.peak_rss_bytes)),
    ]);
    if r.shape.is_some() {
        rows.push((
            "write YAML (repel generate -o DIR)",
            format!("{:.3} s", r.write_yaml_seconds),
        ));
    }
    rows.extend([
        (
            "pipeline: parse (files, YAML to objects)",
            format!("{:.3} s ({})", p.parse_seconds, mib(p.input_bytes)),
        ),
        (
            "pipeline: build (admission, workloads, indexes)",
            format!("{:.3} s", p.build_seconds),
        ),
        (
            "pipeline: schedule, every node scored",
            format!(
                "{:.3} s ({} placed, {} unschedulable)",
                p.schedule_seconds, p.placed, p.unschedulable
            ),
        ),
        (
            "pipeline: output (JSON placements)",
            format!("{:.3} s ({})", p.output_seconds, mib(p.output_bytes as u64)),
        ),
        (
            "pipeline: end to end (YAML in, JSON out)",
            format!(
                "{:.3} s ({:.0} pods/s)",
                p.end_to_end_seconds,
                per_second(r.pods, p.end_to_end_seconds)
            ),
        ),
        ("pipeline: peak memory", mib(p.peak_rss_bytes)),
    ]);
    let mut t = table(&["MEASURE", "VALUE"]);
    for (k, v) in rows {
        t.add_row(vec![k.to_string(), v]);
    }
    t
}
