//! The `repel` command: a thin layer of argument parsing and printing over `repel-core`,
//! `repel-engine`, `repel-server`, and `repel-manifest` (which reads manifests and live
//! clusters).
//!
//! # Layout
//! - `admission_flags`: `--enable-admission-plugins` / `--disable-admission-plugins`.
//! - `cluster_args`: `ClusterArgs`, one way from a command's flags to a built cluster or a
//!   what-if session; the what-ifs' shared flags.
//! - `generated`: a generated cluster as manifests (`generate`, `bench`).
//! - `output`: `-o json|yaml` and the human printers' shared pieces.
//! - `pod_target`: a pod named on the command line, admitted and explained (`explain`, `demo`).
//! - `scenario_file`: a scenario file and what it names, read; the built-in demo files.
//! - `schedule_pipeline`: read, build, schedule, print: `repel schedule`, timed by `bench`.
//! - `cmd`: one module per command.

/// `print!` that ends the program quietly when stdout is a closed pipe (`repel … | head`) and
/// reports other write errors instead of panicking.
macro_rules! out {
    ($($t:tt)*) => { $crate::output::emit(&format!($($t)*)) };
}

/// `println!` with [`out!`]'s handling of write errors.
macro_rules! outln {
    ($($t:tt)*) => { $crate::output::emit(&(format!($($t)*) + "\n")) };
}

mod admission_flags;
mod cluster_args;
mod cmd;
mod generated;
mod output;
mod pod_target;
mod scenario_file;
mod schedule_pipeline;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use repel_core::FeatureGates;

pub use admission_flags::AdmissionFlags;

/// What `repel --version` prints: the version, then the upstream releases followed
/// ([`repel_core::versions`]); `repel -V` prints the version alone.
static LONG_VERSION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| repel_core::versions::long_version(env!("CARGO_PKG_VERSION")));

/// Kubernetes taints and tolerations, exactly as upstream: check, explain and simulate them before they happen.
#[derive(Debug, Parser)]
#[command(
    name = "repel",
    version,
    long_version = LONG_VERSION.as_str(),
    about = "Kubernetes taints and tolerations, exactly as upstream: check, explain and rewrite manifests before they reach a cluster"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The manifests a command reads, and the feature gates it evaluates with.
#[derive(Debug, Args, Clone)]
pub struct Inputs {
    /// Manifest file, directory (its .yaml/.yml/.json files) or `-` for stdin; repeatable.
    /// With --kubeconfig or --context, applied on top of the live cluster as a what-if.
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "FILE|DIR|-",
        required_unless_present_any = ["kubeconfig", "context", "in_cluster"]
    )]
    pub files: Vec<PathBuf>,
    /// Read a live cluster (read-only) through this kubeconfig; without it, $KUBECONFIG, else
    /// ~/.kube/config, as kubectl (a cluster is read only with --kubeconfig or --context).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context of the live cluster to read (default: its current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Read the live cluster this pod runs in, as its service account (KUBERNETES_SERVICE_HOST
    /// and _PORT, the token and CA of /var/run/secrets/kubernetes.io/serviceaccount or of
    /// $REPEL_SERVICEACCOUNT_DIR).
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"])]
    pub in_cluster: bool,
    /// Read directories given with -f recursively.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// List every object skipped for its kind (by default one summary line).
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Unknown and duplicate fields, as kubectl's --validate: strict (errors, as the API server
    /// refuses the object; exit 2, or 1 for `check`, whose default it is), warn (one warning
    /// per object; the default elsewhere) or ignore.
    #[arg(long, value_enum, value_name = "strict|warn|ignore")]
    pub validate: Option<repel_manifest::Validate>,
    /// Feature gates in kube's syntax, e.g. `TaintTolerationComparisonOperators=true` (default: upstream v1.35's, all alpha gates off).
    #[arg(
        long = "feature-gates",
        value_name = "GATE=BOOL,...",
        default_value = ""
    )]
    pub feature_gates: FeatureGates,
    /// Fit no pod on a node with neither status.allocatable nor status.capacity, as kube-scheduler would (Too many pods); by default such a node is taken to allow 110 pods and unlimited resources, with a warning.
    #[arg(long = "strict-nodes")]
    pub strict_nodes: bool,
}

/// `--validate` of the commands that warn by default (`simulate`, `test`, `taint`, `serve`).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ValidateFlag {
    /// Unknown and duplicate fields of the objects read, as kubectl's --validate: strict (errors
    /// as the API server refuses the object; exit 2 and nothing is done), warn (one warning per
    /// object; the default) or ignore.
    #[arg(
        long,
        value_enum,
        value_name = "strict|warn|ignore",
        default_value = "warn"
    )]
    pub validate: repel_manifest::Validate,
}

/// The scheduler's knobs shared by `schedule` and `explain`.
#[derive(Debug, Args, Clone)]
pub struct SchedulerFlags {
    /// Seed for random choices (ties between equally good nodes, generated pod-name parts).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// kube-scheduler's percentageOfNodesToScore (1-100); unset or 0 for upstream's adaptive default.
    #[arg(long = "percentage-of-nodes-to-score", value_parser = clap::value_parser!(i64).range(0..=100))]
    pub percentage_of_nodes_to_score: Option<i64>,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON, the machine-readable contract.
    Json,
    /// YAML, the same fields as JSON.
    Yaml,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate objects as the API server does: metadata, node taints, pod tolerations, pool taints (exit 1 when anything is invalid).
    Check(cmd::check::CheckArgs),
    /// Show, node by node, whether a pod may go there and why: taints, tolerations, scores, NoExecute outcome.
    Explain(cmd::explain::ExplainArgs),
    /// `kubectl taint` on the nodes in a manifest file, which is rewritten in place.
    Taint(cmd::taint::TaintArgs),
    /// Schedule every pending pod as kube-scheduler's default profile would: placements and why not.
    Schedule(cmd::schedule::ScheduleArgs),
    /// A drain what-if: which nodes can go, what blocks them, where every pod would land (as kubectl, cluster-autoscaler or Karpenter).
    Drain(cmd::drain::DrainArgs),
    /// A consolidation what-if: which nodes could be removed together and where their pods go (as cluster-autoscaler or Karpenter).
    Consolidate(cmd::consolidate::ConsolidateArgs),
    /// Node pools (Karpenter NodePools, eksctl node groups, AKS agent pools, EKS node groups): taints, labels, nodes, and which workloads tolerate them.
    Pools(cmd::pools::PoolsArgs),
    /// Find the mistakes made with taints and tolerations, with the fix (human, JSON, SARIF), or emit them as an admission policy.
    Lint(cmd::lint::LintArgs),
    /// One self-contained page (or its JSON model): pools and taints, which workload lands on which pool and why, DaemonSet coverage, drain readiness, a scenario's timeline.
    Report(cmd::report::ReportArgs),
    /// Run a scenario on the simulated clock: a timeline of what the scheduler and controllers do.
    Simulate(cmd::simulate::SimulateArgs),
    /// Run scenarios' expectations, like a test runner (exit 1 on any failure, 2 when a scenario cannot be read).
    Test(cmd::simulate::TestArgs),
    /// Print pods as the control plane would store them: admission defaults, workload pods, DaemonSet tolerations.
    Admit(cmd::admit::AdmitArgs),
    /// Write a live cluster's objects as manifests (read-only, through a kubeconfig): share, reproduce, test.
    Snapshot(cmd::snapshot::SnapshotArgs),
    /// Write a realistic generated cluster as manifests (pools, taints, workloads; seeded).
    Generate(cmd::generate::GenerateArgs),
    /// A kubectl-compatible API server: simulated nodes, durable storage, the engine live.
    Serve(cmd::serve::ServeArgs),
    /// Measure repel on a generated cluster: load, scheduling, an eviction plan, explain, memory.
    Bench(cmd::bench::BenchArgs),
    /// A built-in cluster from the documentation: where each pod may go and why, and the classic mistakes.
    Demo(cmd::demo::DemoArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    Completions(cmd::completions::CompletionsArgs),
    /// Print the manual page (repel.1), or write one page per command into a directory.
    Man(cmd::man::ManArgs),
}

/// A command's failure: exit code 2 (a command's "no", exit 1, is an answer, not a failure).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The input could not be used (exit 2).
    #[error(transparent)]
    Input(#[from] repel_manifest::InputError),
    /// A bad argument or an unknown object named on the command line (exit 2). Printed as is.
    #[error("{0}")]
    Usage(String),
    /// Output could not be written.
    #[error("{0}")]
    Output(String),
    /// A live cluster could not be read (exit 2). Printed as is: kubectl's lines.
    #[error(transparent)]
    Live(#[from] repel_manifest::live::LiveError),
}

impl Inputs {
    /// Reads the manifests for `command`; no objects at all is an error, as kubectl's
    /// "no objects passed to …".
    pub fn load(&self, command: &str) -> Result<repel_manifest::Inventory, CliError> {
        self.load_seeded(command, 0)
    }

    /// [`Inputs::load`], with names generated from `metadata.generateName` drawn from `seed`.
    /// Unknown and duplicate fields are answered by `--validate` (default `warn`): a warning
    /// per object, or kubectl's error for each (exit 2).
    pub fn load_seeded(
        &self,
        command: &str,
        seed: u64,
    ) -> Result<repel_manifest::Inventory, CliError> {
        let mut inv = self.read(command, seed)?;
        let reports = std::mem::take(&mut inv.strict);
        repel_manifest::answer_strict(
            &reports,
            self.validate.unwrap_or(repel_manifest::Validate::Warn),
        )
        .map_err(CliError::Usage)?;
        Ok(inv)
    }

    /// Reads the manifests for `command`, leaving unknown and duplicate fields in
    /// [`repel_manifest::Inventory::strict`] for the caller to answer.
    pub fn read(&self, command: &str, seed: u64) -> Result<repel_manifest::Inventory, CliError> {
        let mut inv = if self.files.is_empty() {
            repel_manifest::Inventory::with_seed(seed)
        } else {
            repel_manifest::Inventory::load_seeded(&self.files, self.recursive, seed)?
        };
        inv.strict_nodes = self.strict_nodes;
        let skipped = inv.skipped.len();
        inv.finish(self.verbose);
        if let Some(target) = self.live_target() {
            let snapshot = repel_manifest::live::read(&target)?;
            let mut live = repel_manifest::Inventory::with_seed(seed);
            live.warnings = snapshot.warnings.clone();
            repel_manifest::live::add_to(
                &snapshot,
                &mut live,
                &repel_manifest::live::file_ids(&inv),
            )?;
            // The API server validated the cluster's objects already: fields it has and this
            // build of repel does not know are no mistake of the user's.
            live.strict.clear();
            inv = repel_manifest::live::layer(live, inv);
            inv.strict_nodes = self.strict_nodes;
            if inv.is_empty() {
                return Err(CliError::Usage(format!(
                    "no objects passed to {command}: cluster {} holds nothing repel uses",
                    snapshot.context
                )));
            }
            return Ok(inv);
        }
        if inv.is_empty() {
            // kubectl's words when the files hold nothing; when they held only kinds repel does
            // not use, the files and those kinds.
            if skipped == 0 {
                return Err(CliError::Usage(format!("no objects passed to {command}")));
            }
            let files: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
            return Err(CliError::Usage(format!(
                "no objects passed to {command}: {} held nothing repel uses ({})",
                files.join(", "),
                inv.warnings.join("; ")
            )));
        }
        Ok(inv)
    }
}

impl Inputs {
    /// The live cluster to read, when `--kubeconfig`, `--context` or `--in-cluster` is given.
    pub fn live_target(&self) -> Option<repel_manifest::live::Target> {
        (self.kubeconfig.is_some() || self.context.is_some() || self.in_cluster).then(|| {
            repel_manifest::live::Target {
                kubeconfig: self.kubeconfig.clone(),
                context: self.context.clone(),
                in_cluster: self.in_cluster,
            }
        })
    }
}

impl CliError {
    /// The error as the command line prints it on stderr: `error: …`, unless it is kubectl's
    /// own form already (or a live cluster's answer, which says what it is).
    pub fn line(&self) -> String {
        let msg = self.to_string();
        if msg.starts_with("error: ")
            || msg.starts_with("Error from server")
            || matches!(self, CliError::Live(_))
        {
            msg
        } else {
            format!("error: {msg}")
        }
    }

    fn exit_code(&self) -> u8 {
        2
    }
}

/// mimalloc: repel allocates many small objects (JSON values, typed Kubernetes objects); glibc's
/// malloc spent a fifth of `repel serve`'s time at 150,000 pods and fragmented its heap.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's setting for how long freed memory waits before it is given back to the OS.
const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// mimalloc's setting for asking the kernel for transparent huge pages for its arenas.
const ALLOW_THP: &str = "MIMALLOC_ALLOW_THP";

/// mimalloc's setting for what it does at exit.
const DESTROY_ON_EXIT: &str = "MIMALLOC_DESTROY_ON_EXIT";

/// The mimalloc settings a batch command runs with, and their values: see [`keep_freed_memory`].
const BATCH_ALLOCATOR: [(&str, &str); 3] = [
    (PURGE_DELAY, "10000"),
    (ALLOW_THP, "0"),
    (DESTROY_ON_EXIT, "2"),
];

/// A command that runs and ends keeps the memory it frees for its next allocations, in ordinary
/// pages, and leaves its memory to the OS at exit: the process is started again in place (same
/// pid, arguments and descriptors) with mimalloc's `MIMALLOC_PURGE_DELAY=10000`,
/// `MIMALLOC_ALLOW_THP=0` and `MIMALLOC_DESTROY_ON_EXIT=2`.
///
/// - mimalloc otherwise gives freed memory back to the OS after a second, and a command that
///   reads 150,000 pods frees its parsed YAML, then allocates the cluster in pages the kernel
///   must fault in and zero again: two seconds of system time on a 5,000-node cluster, a third
///   of the command. Ten seconds covers such a command whole, while a long one (`bench`, a long
///   `simulate`) still gives back what it has not reused for ten seconds (never giving memory
///   back raised `repel bench`'s peak from 0.97 to 1.01 GiB).
/// - mimalloc otherwise asks for transparent huge pages for its arenas, and where the kernel
///   compacts memory to find them (`defrag` set to `madvise`, Debian's default) a command
///   spends its time in the kernel zeroing and moving pages: `repel schedule` of the generated
///   5,000 nodes / 150,000 pods took 2.2–2.8 s of wall and 1.1–2.2 s of system time with them
///   and 1.82–1.86 s and 0.33–0.40 s without (alternating runs); the gain they
///   bring (fewer TLB misses) was never more than a few hundredths of a second here.
/// - mimalloc otherwise collects its heap at exit (it is linked in statically, where its exit
///   handler frees what it can, for a library unloaded and loaded again): every page of a
///   150,000-pod cluster walked just before the OS takes the memory anyway. With the setting
///   at 2, the handler returns at once (`_mi_auto_process_done`): output is written and flushed
///   before `main` returns, and nothing runs after the handler that would need the allocator
///   cleaned up.
///
/// The settings can only be read from the environment at start (the workspace forbids the
/// unsafe call that sets them later). `serve` runs for long and gives memory back as before; a
/// setting already in the environment is the user's and is kept (the process is started again
/// only for the ones missing); if starting again fails, the command runs as it is.
#[cfg(unix)]
fn keep_freed_memory(cli: &Cli) {
    use std::os::unix::process::CommandExt;
    if matches!(cli.command, Command::Serve(_)) {
        return;
    }
    let missing: Vec<(&str, &str)> = BATCH_ALLOCATOR
        .into_iter()
        .filter(|(name, _)| std::env::var_os(name).is_none())
        .collect();
    if missing.is_empty() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let mut again = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        again.arg0(arg0);
    }
    again.args(args).envs(missing);
    // Returns only when the process could not be replaced.
    let _ = again.exec();
}

#[cfg(not(unix))]
fn keep_freed_memory(_: &Cli) {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    keep_freed_memory(&cli);
    let result = match cli.command {
        Command::Check(a) => cmd::check::run(a),
        Command::Explain(a) => cmd::explain::run(a),
        Command::Taint(a) => cmd::taint::run(a),
        Command::Admit(a) => cmd::admit::run(a),
        Command::Schedule(a) => cmd::schedule::run(a),
        Command::Drain(a) => cmd::drain::run(a),
        Command::Consolidate(a) => cmd::consolidate::run(a),
        Command::Pools(a) => cmd::pools::run(a),
        Command::Lint(a) => cmd::lint::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Simulate(a) => cmd::simulate::run(a),
        Command::Test(a) => cmd::simulate::run_tests(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Snapshot(a) => cmd::snapshot::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Completions(a) => cmd::completions::run(a),
        Command::Man(a) => cmd::man::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{}", e.line());
            ExitCode::from(e.exit_code())
        }
    }
}
