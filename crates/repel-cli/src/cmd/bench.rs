//! `repel bench`: generate a cluster in memory and measure what repel does with it — load,
//! scheduling every pending pod (every node scored, and upstream's adaptive percentage), the
//! eviction plan of a NoExecute taint on 1,000 nodes, `explain` of one pod, peak memory.
//! A benchmark, never a test: numbers depend on the machine.

use std::time::Instant;

use clap::Args;
use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_engine::generate::{GenerateOptions, Generated, generate};
use repel_engine::load::build_cluster;
use repel_engine::plan::eviction_plan;
use repel_engine::scheduler::fast::{FastScheduler, FastStats};
use repel_engine::scheduler::{Outcome, Placement, Scheduler, schedule_all};
use serde::Serialize;

use crate::output::{print_machine, render, table};
use crate::{CliError, Format};

/// Arguments of `repel bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Nodes to generate.
    #[arg(long, default_value_t = 5000)]
    pub nodes: usize,
    /// Pods to generate (workload replicas included).
    #[arg(long, default_value_t = 150_000)]
    pub pods: usize,
    /// Seed of the generator and the scheduler.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Extra taints per node (tolerated by most pods), to load taint matching.
    #[arg(long = "taints-per-node", default_value_t = 0)]
    pub taints_per_node: usize,
    /// Output format (default: a table).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    /// No progress lines on stderr (there are none either when stderr is not a terminal).
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Schedule with the reference engine (every plugin on every node, as upstream's framework
    /// runs them) instead of the compiled one. Same placements, far slower: for comparison.
    #[arg(long)]
    pub reference: bool,
}

/// `repel bench -o json`.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    /// Nodes.
    pub nodes: usize,
    /// Pods created (after admission).
    pub pods: usize,
    /// Pods the every-node run placed.
    pub scheduled: usize,
    /// Pods it could not place.
    pub unschedulable: usize,
    /// Generating the objects, seconds.
    pub generate_seconds: f64,
    /// Building the cluster (admission, indexes), seconds.
    pub load_seconds: f64,
    /// Scheduling every pending pod with every node scored, seconds.
    pub schedule_seconds: f64,
    /// `scheduled / schedule_seconds` of that run.
    pub pods_per_second: f64,
    /// The same with upstream's adaptive percentageOfNodesToScore, seconds.
    pub adaptive_schedule_seconds: f64,
    /// The eviction plan of a NoExecute taint on 1,000 nodes, seconds.
    pub eviction_plan_seconds: f64,
    /// Pods that plan covers.
    pub eviction_plan_pods: usize,
    /// Which engine scheduled: `compiled` or `reference`.
    pub engine: &'static str,
    /// Pods of the every-node run the compiled engine placed itself (the rest, and every pod
    /// no node fits, went through the reference path).
    pub compiled_pods: usize,
    /// Which path each pod of the every-node run took, and the classes compiled (all zero
    /// with `--reference`).
    pub paths: FastStats,
    /// `explain` of one pod against every node, seconds.
    pub explain_seconds: f64,
    /// Peak resident memory of the process, bytes (`VmHWM`).
    pub peak_rss_bytes: u64,
}

fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Schedules every pending pod with the engine `args` asks for; returns the placements and
/// which path the pods took (all zero for the reference engine).
fn run_schedule(
    cluster: &mut repel_engine::cluster::Cluster,
    gates: FeatureGates,
    percentage: Option<i64>,
    args: &BenchArgs,
) -> (Vec<Placement>, FastStats) {
    if args.reference {
        let mut s = Scheduler::new(gates, percentage, args.seed);
        (schedule_all(&mut s, cluster), FastStats::default())
    } else {
        let mut s = FastScheduler::new(gates, percentage, args.seed);
        let placements = s.schedule_all(cluster);
        (placements, s.stats)
    }
}

/// Runs `repel bench`.
pub fn run(args: BenchArgs) -> Result<u8, CliError> {
    // Progress on stderr, one line per phase, only for a person watching (a terminal) and
    // not with -q.
    let chatty = !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let say = |msg: &str| {
        if chatty {
            eprintln!("bench: {msg}");
        }
    };
    let gates = FeatureGates::default();
    say(&format!(
        "generating {} nodes and {} pods (seed {})",
        args.nodes, args.pods, args.seed
    ));
    let options = GenerateOptions {
        nodes: args.nodes,
        pods: args.pods,
        seed: args.seed,
        taints_per_node: args.taints_per_node,
    };
    let t = Instant::now();
    let generated = generate(&options);
    let generate_seconds = t.elapsed().as_secs_f64();
    say("loading (admission, indexes)");
    let t = Instant::now();
    let build = |generated: Generated| {
        build_cluster(
            generated.into_input(),
            &gates,
            &AdmissionConfig::default(),
            args.seed,
        )
        .cluster
    };
    // Each run gets a cluster built afresh from objects generated afresh (the generator is
    // seeded: the same objects) rather than a clone of either, so that only one cluster and
    // one set of objects are in memory at a time (peak memory is one of the measures).
    let mut adaptive = build(generated);
    let load_seconds = t.elapsed().as_secs_f64();
    let pods = adaptive.pods.len();

    say("scheduling with the adaptive percentageOfNodesToScore");
    let t = Instant::now();
    run_schedule(&mut adaptive, gates, None, &args);
    let adaptive_schedule_seconds = t.elapsed().as_secs_f64();
    drop(adaptive);

    say("scheduling every pending pod again, every node scored");
    let mut every = build(generate(&options));
    let t = Instant::now();
    let (placements, paths) = run_schedule(&mut every, gates, Some(100), &args);
    let schedule_seconds = t.elapsed().as_secs_f64();
    let scheduled = placements
        .iter()
        .filter(|p| matches!(p.outcome, Outcome::Scheduled { .. }))
        .count();
    let unschedulable = placements.len() - scheduled;

    say("eviction plan of a NoExecute taint on 1,000 nodes");
    let mut by_load: Vec<usize> = (0..every.nodes.len()).collect();
    by_load.sort_by_key(|n| std::cmp::Reverse(every.nodes[*n].pods.len()));
    by_load.truncate(1000);
    let taint = repel_core::taint::new_taint("bench.repel.dev/maintenance", "true", "NoExecute");
    let t = Instant::now();
    let plan = eviction_plan(&every, &by_load, &taint, &gates);
    let eviction_plan_seconds = t.elapsed().as_secs_f64();

    say("explain of one pod against every node");
    let explain_seconds = match every.pods.iter().position(|p| p.node.is_some()) {
        Some(id) => {
            let mut info = every.pods[id].clone();
            every.unbind(id);
            info.node = None;
            let mut s = Scheduler::new(gates, Some(100), args.seed);
            let t = Instant::now();
            let _ = s.evaluate(&every, &info);
            t.elapsed().as_secs_f64()
        }
        None => 0.0,
    };
    let report = BenchReport {
        nodes: every.nodes.len(),
        pods,
        scheduled,
        unschedulable,
        generate_seconds,
        load_seconds,
        schedule_seconds,
        pods_per_second: if schedule_seconds > 0.0 {
            scheduled as f64 / schedule_seconds
        } else {
            0.0
        },
        adaptive_schedule_seconds,
        eviction_plan_seconds,
        eviction_plan_pods: plan.len(),
        engine: if args.reference {
            "reference"
        } else {
            "compiled"
        },
        compiled_pods: paths.compiled,
        paths,
        explain_seconds,
        peak_rss_bytes: peak_rss_bytes(),
    };
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => {
            let mut t = table(&["MEASURE", "VALUE"]);
            let rows: Vec<(&str, String)> = vec![
                ("nodes", report.nodes.to_string()),
                ("pods", report.pods.to_string()),
                (
                    "scheduled / unschedulable",
                    format!("{} / {}", report.scheduled, report.unschedulable),
                ),
                ("engine", report.engine.to_string()),
                (
                    "compiled placements (repeat path)",
                    format!("{} ({})", report.paths.compiled, report.paths.repeated),
                ),
                (
                    "compiled unschedulable (like the pod before)",
                    format!(
                        "{} ({})",
                        report.paths.compiled_unschedulable, report.paths.repeated_unschedulable
                    ),
                ),
                ("reference path", report.paths.reference.to_string()),
                (
                    "node / pod classes",
                    format!(
                        "{} / {}",
                        report.paths.node_classes, report.paths.pod_classes
                    ),
                ),
                ("generate", format!("{:.3} s", report.generate_seconds)),
                ("load", format!("{:.3} s", report.load_seconds)),
                (
                    "schedule, every node scored",
                    format!(
                        "{:.3} s ({:.0} pods/s)",
                        report.schedule_seconds, report.pods_per_second
                    ),
                ),
                (
                    "schedule, adaptive percentage",
                    format!("{:.3} s", report.adaptive_schedule_seconds),
                ),
                (
                    "eviction plan, 1,000 nodes",
                    format!(
                        "{:.4} s ({} pods)",
                        report.eviction_plan_seconds, report.eviction_plan_pods
                    ),
                ),
                (
                    "explain one pod",
                    format!("{:.4} s", report.explain_seconds),
                ),
                (
                    "peak memory",
                    format!("{:.1} MiB", report.peak_rss_bytes as f64 / 1_048_576.0),
                ),
            ];
            for (k, v) in rows {
                t.add_row(vec![k.to_string(), v]);
            }
            out!("{}", render(&t));
        }
    }
    Ok(0)
}
