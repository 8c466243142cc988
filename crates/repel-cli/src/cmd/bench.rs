//! `repel bench`: measure what repel does with a cluster — a generated one (`--nodes`,
//! `--pods`, `--shape`) or your own (`-f`) — load, scheduling every pending pod (every node
//! scored, and upstream's adaptive percentage), the eviction plan of a NoExecute taint on
//! 1,000 nodes, `explain` of one pod, peak memory, and the whole pipeline of `repel schedule
//! -o json` phase by phase (parse, build, schedule, output: YAML in, JSON placements out).
//! A benchmark, never a test: numbers depend on the machine.

mod human;
mod pipeline;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use repel_core::FeatureGates;
use repel_core::admission::AdmissionConfig;
use repel_engine::cluster::Cluster;
use repel_engine::generate::{ClusterShape, GenerateOptions};
use repel_engine::load::build_cluster;
use repel_engine::plan::eviction_plan;
use repel_engine::scheduler::fast::{FastScheduler, FastStats};
use repel_engine::scheduler::{Outcome, Placement, Scheduler, schedule_all};
use serde::Serialize;

use crate::cluster_args::{ClusterArgs, now_unix};
use crate::generated::{shape_parser, write_manifests};
use crate::output::{print_machine, render};
use crate::{CliError, Format};
use pipeline::{Phases, TempDir, peak_rss_bytes};

/// Arguments of `repel bench`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel bench --nodes 100 --pods 2000
  repel bench --nodes 5000 --pods 150000 --seed 7")]
pub struct BenchArgs {
    /// Nodes to generate.
    #[arg(long, default_value_t = 5000)]
    pub nodes: usize,
    /// Pods to generate (workload replicas included).
    #[arg(long, default_value_t = 150_000)]
    pub pods: usize,
    /// Seed of the generator and the scheduler (and of workload pods' names with -f).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Extra taints per node (tolerated by most pods), to load taint matching.
    #[arg(long = "taints-per-node", default_value_t = 0)]
    pub taints_per_node: usize,
    /// The generated cluster's shape: `default` or `large-workloads` (see `repel generate`).
    #[arg(long, default_value = "default", value_parser = shape_parser())]
    pub shape: ClusterShape,
    /// Measure your own cluster instead of a generated one: manifest file, directory or `-`;
    /// repeatable, read as `repel schedule -f` reads it.
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "FILE|DIR|-",
        conflicts_with_all = ["nodes", "pods", "taints_per_node", "shape"]
    )]
    pub files: Vec<PathBuf>,
    /// Read directories given with -f recursively.
    #[arg(short = 'R', long, requires = "files")]
    pub recursive: bool,
    /// Measure a live cluster (read-only) through this kubeconfig, as `repel schedule
    /// --kubeconfig` reads it (the parse phase is then the cluster's read); -f files go on top.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["nodes", "pods", "taints_per_node", "shape"]
    )]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context of the live cluster to measure.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with_all = ["nodes", "pods", "taints_per_node", "shape"]
    )]
    pub context: Option<String>,
    /// Measure the live cluster this pod runs in, as its service account (as `repel schedule
    /// --in-cluster` reads it).
    #[arg(
        long,
        conflicts_with_all = ["nodes", "pods", "taints_per_node", "shape", "kubeconfig", "context"]
    )]
    pub in_cluster: bool,
    /// Feature gates in kube's syntax, as `repel schedule --feature-gates`.
    #[arg(
        long = "feature-gates",
        value_name = "GATE=BOOL,...",
        default_value = ""
    )]
    pub feature_gates: FeatureGates,
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
    /// Generating the objects, seconds (0 with `-f`).
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
    /// Every node judged `repel drain --all --independent --as cluster-autoscaler` would judge
    /// it (the cluster as scheduled, every pod's controller known), seconds.
    pub drain_all_seconds: f64,
    /// Of those nodes, how many are drainable.
    pub drain_all_drainable: usize,
    /// Every node judged as `repel drain --all --independent --ignore-daemonsets
    /// --delete-emptydir-data --force` (kubectl, every evicted pod's replacement placed by the
    /// default profile) would judge it, seconds.
    pub drain_all_kubectl_seconds: f64,
    /// Of those nodes, how many are drainable.
    pub drain_all_kubectl_drainable: usize,
    /// `repel consolidate --as cluster-autoscaler` on the same cluster, seconds.
    pub consolidate_seconds: f64,
    /// Nodes it finds removable together.
    pub consolidate_removable: usize,
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
    /// Peak resident memory of the process, bytes (`VmHWM`), before the YAML pipeline of a
    /// generated cluster (with `-f`: of the whole run).
    pub peak_rss_bytes: u64,
    /// `generated`, `files` (`-f`) or `cluster` (`--kubeconfig`/`--context`).
    pub source: &'static str,
    /// The generated cluster's shape (`null` with `-f`).
    pub shape: Option<&'static str>,
    /// Writing the generated cluster as `repel generate -o DIR` does (into a temporary
    /// directory the pipeline then reads), seconds (0 with `-f`).
    pub write_yaml_seconds: f64,
    /// The whole pipeline, YAML in to JSON placements out, phase by phase. With `-f` its
    /// schedule is the every-node run above; for a generated cluster it is a run of its own
    /// on the cluster read back from YAML.
    pub phases: Phases,
}

/// Schedules every pending pod with the engine `args` asks for; returns the placements,
/// which path the pods took (all zero for the reference engine) and, with `keep`, the compiled
/// scheduler with its last run's state (as `repel drain --as cluster-autoscaler` keeps it).
fn run_schedule(
    cluster: &mut Cluster,
    gates: FeatureGates,
    percentage: Option<i64>,
    args: &BenchArgs,
    keep: bool,
) -> (Vec<Placement>, FastStats, Option<FastScheduler>) {
    if args.reference {
        let mut s = Scheduler::new(gates, percentage, args.seed);
        (schedule_all(&mut s, cluster), FastStats::default(), None)
    } else {
        let mut s = FastScheduler::new(gates, percentage, args.seed);
        if keep {
            s.keep_state();
        }
        let placements = s.schedule_all(cluster);
        let stats = s.stats;
        (placements, stats, keep.then_some(s))
    }
}

/// What the every-node run and the measures after it found.
struct Measures {
    nodes: usize,
    pods: usize,
    scheduled: usize,
    unschedulable: usize,
    paths: FastStats,
    eviction_plan_seconds: f64,
    eviction_plan_pods: usize,
    drain: DrainMeasures,
    explain_seconds: f64,
}

/// The drain what-ifs as cluster-autoscaler and kubectl, and consolidation.
struct DrainMeasures {
    all_seconds: f64,
    drainable: usize,
    kubectl_seconds: f64,
    kubectl_drainable: usize,
    consolidate_seconds: f64,
    removable: usize,
}

/// Every node judged independently as kubectl with the flags that evict every pod it may,
/// then as cluster-autoscaler, then consolidation as cluster-autoscaler finds it, each as
/// `repel drain` and `repel consolidate` run them: on one what-if session on the cluster,
/// starting from `compiled` (the scheduling run's state, as the commands start from it; else
/// compiling the cluster first), every pod's controller known to its listers.
fn drain_measures(c: &Cluster, compiled: Option<FastScheduler>, args: &BenchArgs) -> DrainMeasures {
    use repel_engine::drain::{Decider, ca};
    use repel_engine::load::Built;
    use repel_engine::whatif::{self, Consolidator, Session, SessionOptions};
    let opts = ca::Options {
        controllers: ca::pod_controllers(c),
        ..ca::Options::default()
    };
    let names: Vec<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
    let built = Built {
        cluster: c.clone(),
        ..Built::default()
    };
    let session_opts = SessionOptions {
        gates: args.feature_gates,
        seed: args.seed,
        now_unix: now_unix(),
        ..SessionOptions::default()
    };
    let mut session = Session::scheduled(built, compiled, Vec::new(), &session_opts);
    let kubectl = Decider::Kubectl(repel_engine::kubectl::drain::DrainOptions {
        ignore_daemonsets: true,
        delete_emptydir_data: true,
        force: true,
        ..Default::default()
    });
    let t = Instant::now();
    let by_kubectl = whatif::drain(&mut session, &names, kubectl, true);
    let kubectl_seconds = t.elapsed().as_secs_f64();
    // (Independent: the session's cluster is as it was.)
    let t = Instant::now();
    let report = whatif::drain(
        &mut session,
        &names,
        Decider::ClusterAutoscaler(opts.clone()),
        true,
    );
    let all_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let cons = whatif::consolidate(
        &mut session,
        Consolidator::ClusterAutoscaler {
            options: opts,
            threshold: 0.5,
        },
    );
    let consolidate_seconds = t.elapsed().as_secs_f64();
    drop(session);
    DrainMeasures {
        all_seconds,
        drainable: report.nodes.iter().filter(|n| n.drainable).count(),
        kubectl_seconds,
        kubectl_drainable: by_kubectl.nodes.iter().filter(|n| n.drainable).count(),
        consolidate_seconds,
        removable: cons.removable.len(),
    }
}

/// The eviction plan and `explain` on the cluster the every-node run scheduled.
fn after_schedule(
    every: &mut Cluster,
    pods: usize,
    placements: &[Placement],
    (paths, fast): (FastStats, Option<FastScheduler>),
    args: &BenchArgs,
    say: &dyn Fn(&str),
) -> Measures {
    let gates = args.feature_gates;
    let scheduled = placements
        .iter()
        .filter(|p| matches!(p.outcome, Outcome::Scheduled { .. }))
        .count();
    say("eviction plan of a NoExecute taint on 1,000 nodes");
    let mut by_load: Vec<usize> = (0..every.nodes.len()).collect();
    by_load.sort_by_key(|n| std::cmp::Reverse(every.nodes[*n].pods.len()));
    by_load.truncate(1000);
    let taint = repel_core::taint::new_taint("bench.repel.dev/maintenance", "true", "NoExecute");
    let t = Instant::now();
    let plan = eviction_plan(every, &by_load, &taint, &gates);
    let eviction_plan_seconds = t.elapsed().as_secs_f64();

    say("drain what-if of every node, and consolidation, as cluster-autoscaler");
    let drain = drain_measures(every, fast, args);

    say("explain of one pod against every node");
    let explain_seconds = match every.pods.iter().position(|p| p.node.is_some()) {
        Some(id) => {
            let mut info = every.pods[id].clone();
            every.unbind(id);
            info.node = None;
            let mut s = Scheduler::new(gates, Some(100), args.seed);
            let t = Instant::now();
            let _ = s.evaluate(every, &info);
            t.elapsed().as_secs_f64()
        }
        None => 0.0,
    };
    Measures {
        nodes: every.nodes.len(),
        pods,
        scheduled,
        unschedulable: placements.len() - scheduled,
        paths,
        eviction_plan_seconds,
        eviction_plan_pods: plan.len(),
        drain,
        explain_seconds,
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
    let report = if args.files.is_empty() && !args.live() {
        bench_generated(&args, &say)?
    } else {
        bench_files(&args, &say)?
    };
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => out!("{}", render(&human::human(&report))),
    }
    Ok(0)
}

impl BenchArgs {
    /// A live cluster is measured (`--kubeconfig`, `--context` or `--in-cluster`).
    fn live(&self) -> bool {
        self.kubeconfig.is_some() || self.context.is_some() || self.in_cluster
    }
}

fn per_second(pods: usize, seconds: f64) -> f64 {
    if seconds > 0.0 {
        pods as f64 / seconds
    } else {
        0.0
    }
}

/// The [`ClusterArgs`] of `repel schedule -f FILE… [-R] --seed SEED
/// --percentage-of-nodes-to-score 100`, parsed from those arguments so that the cluster is
/// read, built and scheduled exactly as `schedule` does it (every other flag at its default).
fn cluster_args(
    files: &[PathBuf],
    recursive: bool,
    gates: FeatureGates,
    args: &BenchArgs,
    live: bool,
) -> Result<ClusterArgs, CliError> {
    #[derive(Debug, clap::Parser)]
    struct Schedule {
        #[command(flatten)]
        cluster: ClusterArgs,
    }
    let mut argv: Vec<OsString> = vec!["schedule".into()];
    for f in files {
        let mut arg = OsString::from("--filename=");
        arg.push(f);
        argv.push(arg);
    }
    if recursive {
        argv.push("--recursive".into());
    }
    if live {
        if let Some(k) = &args.kubeconfig {
            let mut arg = OsString::from("--kubeconfig=");
            arg.push(k);
            argv.push(arg);
        }
        if let Some(c) = &args.context {
            argv.push(format!("--context={c}").into());
        }
        if args.in_cluster {
            argv.push("--in-cluster".into());
        }
    }
    argv.push(format!("--seed={}", args.seed).into());
    argv.push("--percentage-of-nodes-to-score=100".into());
    let mut parsed = <Schedule as clap::Parser>::try_parse_from(argv)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    parsed.cluster.inputs.feature_gates = gates;
    Ok(parsed.cluster)
}

/// A generated cluster: the measures on the generated objects, then the pipeline on them
/// written as YAML.
fn bench_generated(args: &BenchArgs, say: &dyn Fn(&str)) -> Result<BenchReport, CliError> {
    let gates = args.feature_gates;
    say(&format!(
        "generating {} nodes and {} pods (seed {}, {} shape)",
        args.nodes, args.pods, args.seed, args.shape
    ));
    let options = GenerateOptions {
        nodes: args.nodes,
        pods: args.pods,
        seed: args.seed,
        taints_per_node: args.taints_per_node,
    };
    let generate = || args.shape.generate(&options);
    let t = Instant::now();
    let generated = generate();
    let generate_seconds = t.elapsed().as_secs_f64();
    say("loading (admission, indexes)");
    let build = |generated: repel_engine::generate::Generated| {
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
    let t = Instant::now();
    let mut adaptive = build(generated);
    let load_seconds = t.elapsed().as_secs_f64();
    let pods = adaptive.pods.len();

    say("scheduling with the adaptive percentageOfNodesToScore");
    let t = Instant::now();
    run_schedule(&mut adaptive, gates, None, args, false);
    let adaptive_schedule_seconds = t.elapsed().as_secs_f64();
    drop(adaptive);

    say("scheduling every pending pod again, every node scored");
    let mut every = build(generate());
    let t = Instant::now();
    let (placements, paths, fast) = run_schedule(&mut every, gates, Some(100), args, true);
    let schedule_seconds = t.elapsed().as_secs_f64();
    let m = after_schedule(&mut every, pods, &placements, (paths, fast), args, say);
    drop((every, placements));
    let peak_rss_bytes = peak_rss_bytes();

    say("writing the cluster as YAML (as repel generate -o DIR)");
    let dir = TempDir::new()?;
    let generated = generate();
    let t = Instant::now();
    write_manifests(&generated, dir.path())?;
    let write_yaml_seconds = t.elapsed().as_secs_f64();
    drop(generated);
    let cluster = cluster_args(&[dir.path().to_path_buf()], false, gates, args, false)?;
    let phases = pipeline::run(&cluster, args.reference, say)?.phases;
    if phases.placed != m.scheduled {
        eprintln!(
            "warning: the cluster read back from YAML placed {} pods, the generated objects {}",
            phases.placed, m.scheduled
        );
    }
    Ok(report(
        m,
        Timings {
            generate_seconds,
            load_seconds,
            schedule_seconds,
            adaptive_schedule_seconds,
            write_yaml_seconds,
            peak_rss_bytes,
        },
        args,
        Some(args.shape.name()),
        phases,
    ))
}

/// Your own cluster: the pipeline on the files, the measures on its cluster, then the
/// adaptive run on a cluster built again from the same objects.
fn bench_files(args: &BenchArgs, say: &dyn Fn(&str)) -> Result<BenchReport, CliError> {
    let gates = args.feature_gates;
    let cluster = cluster_args(&args.files, args.recursive, gates, args, true)?;
    let run = pipeline::run(&cluster, args.reference, say)?;
    let mut built = run.built;
    let pods = built.cluster.pods.len();
    let m = after_schedule(
        &mut built.cluster,
        pods,
        &run.placements,
        (run.stats, None),
        args,
        say,
    );
    drop((built, run.placements));
    say("scheduling again with the adaptive percentageOfNodesToScore");
    // The same objects read again (their warnings were printed by the pipeline).
    let inventory = cluster.inputs.load_seeded("bench", args.seed)?;
    let mut adaptive = build_cluster(
        inventory.into_cluster_input(),
        &gates,
        &AdmissionConfig::default(),
        args.seed,
    )
    .cluster;
    let t = Instant::now();
    run_schedule(&mut adaptive, gates, None, args, false);
    let adaptive_schedule_seconds = t.elapsed().as_secs_f64();
    drop(adaptive);
    let phases = run.phases;
    Ok(report(
        m,
        Timings {
            generate_seconds: 0.0,
            load_seconds: phases.build_seconds,
            schedule_seconds: phases.schedule_seconds,
            adaptive_schedule_seconds,
            write_yaml_seconds: 0.0,
            peak_rss_bytes: peak_rss_bytes(),
        },
        args,
        None,
        phases,
    ))
}

/// The timings outside the pipeline.
struct Timings {
    generate_seconds: f64,
    load_seconds: f64,
    schedule_seconds: f64,
    adaptive_schedule_seconds: f64,
    write_yaml_seconds: f64,
    peak_rss_bytes: u64,
}

fn report(
    m: Measures,
    t: Timings,
    args: &BenchArgs,
    shape: Option<&'static str>,
    phases: Phases,
) -> BenchReport {
    BenchReport {
        nodes: m.nodes,
        pods: m.pods,
        scheduled: m.scheduled,
        unschedulable: m.unschedulable,
        generate_seconds: t.generate_seconds,
        load_seconds: t.load_seconds,
        schedule_seconds: t.schedule_seconds,
        pods_per_second: per_second(m.scheduled, t.schedule_seconds),
        adaptive_schedule_seconds: t.adaptive_schedule_seconds,
        eviction_plan_seconds: m.eviction_plan_seconds,
        eviction_plan_pods: m.eviction_plan_pods,
        drain_all_seconds: m.drain.all_seconds,
        drain_all_drainable: m.drain.drainable,
        drain_all_kubectl_seconds: m.drain.kubectl_seconds,
        drain_all_kubectl_drainable: m.drain.kubectl_drainable,
        consolidate_seconds: m.drain.consolidate_seconds,
        consolidate_removable: m.drain.removable,
        engine: if args.reference {
            "reference"
        } else {
            "compiled"
        },
        compiled_pods: m.paths.compiled,
        paths: m.paths,
        explain_seconds: m.explain_seconds,
        peak_rss_bytes: t.peak_rss_bytes,
        source: if shape.is_some() {
            "generated"
        } else if args.live() {
            "cluster"
        } else {
            "files"
        },
        shape,
        write_yaml_seconds: t.write_yaml_seconds,
        phases,
    }
}
