//! The whole pipeline of `repel schedule -f … --percentage-of-nodes-to-score 100 -o json`,
//! timed phase by phase (parse, build, schedule, output) through the command's own pipeline.

use std::path::{Path, PathBuf};
use std::time::Instant;

use repel_engine::load::Built;
use repel_engine::scheduler::Placement;
use repel_engine::scheduler::fast::FastStats;
use serde::Serialize;

use crate::cluster_args::ClusterArgs;
use crate::output::{MachineError, write_machine};
use crate::schedule_pipeline::{self, Phase, PhaseObserver};
use crate::{CliError, Format};
use repel_manifest::expand_paths;

/// The pipeline's phases, YAML in to JSON placements out (`phases` in `repel bench -o json`).
#[derive(Debug, Default, Serialize)]
pub struct Phases {
    /// Reading the files and YAML → objects (`repel schedule`'s `-f` reading), seconds.
    pub parse_seconds: f64,
    /// Defaulting, admission, workload expansion and the cluster's indexes, seconds.
    pub build_seconds: f64,
    /// Scheduling every pending pod, every node scored, seconds.
    pub schedule_seconds: f64,
    /// Rendering the placements as `repel schedule -o json` does, into a buffer, seconds.
    pub output_seconds: f64,
    /// The sum of the four: YAML in → JSON placements out, seconds.
    pub end_to_end_seconds: f64,
    /// Bytes of manifests read (0 for stdin).
    pub input_bytes: u64,
    /// Bytes of JSON rendered.
    pub output_bytes: usize,
    /// Pods the JSON lists as placed.
    pub placed: usize,
    /// Pods the JSON lists as unschedulable.
    pub unschedulable: usize,
    /// Peak resident memory during the pipeline, bytes (`VmHWM`, reset before the pipeline
    /// where the kernel allows it; else the process's peak until then).
    pub peak_rss_bytes: u64,
}

/// A pipeline's run: its phases, and what it leaves for the other measures.
pub struct Run {
    /// The timings.
    pub phases: Phases,
    /// The cluster, scheduled.
    pub built: Built,
    /// The placements.
    pub placements: Vec<Placement>,
    /// Which path the pods took.
    pub stats: FastStats,
    /// The placements as `repel schedule -o json` prints them (kept for the tests).
    #[cfg(test)]
    pub json: Vec<u8>,
}

/// Peak resident memory of the process, bytes (`VmHWM`; 0 where there is no `/proc`).
pub fn peak_rss_bytes() -> u64 {
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

/// Resets `VmHWM` to the current resident size (Linux ≥ 4.0); whether it could.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Times each phase of the pipeline, saying which starts.
struct Timer<'a> {
    say: &'a dyn Fn(&str),
    started: Instant,
    seconds: [f64; 4],
}

impl Timer<'_> {
    fn slot(phase: Phase) -> usize {
        match phase {
            Phase::Parse => 0,
            Phase::Build => 1,
            Phase::Schedule => 2,
            Phase::Output => 3,
        }
    }
}

impl PhaseObserver for Timer<'_> {
    fn started(&mut self, phase: Phase) {
        (self.say)(match phase {
            Phase::Parse => "pipeline: parse (reading the files, YAML to objects)",
            Phase::Build => "pipeline: build (defaulting, admission, workload pods, indexes)",
            Phase::Schedule => "pipeline: schedule, every node scored",
            Phase::Output => "pipeline: output (the placements as JSON)",
        });
        self.started = Instant::now();
    }

    fn finished(&mut self, phase: Phase) {
        self.seconds[Self::slot(phase)] = self.started.elapsed().as_secs_f64();
    }
}

/// Runs `repel schedule`'s own pipeline on `cluster` (read as `repel schedule
/// --percentage-of-nodes-to-score 100 -f …` reads it), timed phase by phase, the placements
/// rendered as `repel schedule -o json` renders them, into a buffer.
pub fn run(cluster: &ClusterArgs, reference: bool, say: &dyn Fn(&str)) -> Result<Run, CliError> {
    let inputs = &cluster.inputs;
    let input_bytes = expand_paths(&inputs.files, inputs.recursive)
        .map(|paths| {
            paths
                .iter()
                .filter_map(|p| std::fs::metadata(p).ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    reset_peak_rss();
    let mut timer = Timer {
        say,
        started: Instant::now(),
        seconds: [0.0; 4],
    };
    let mut json = Vec::new();
    let scheduled = schedule_pipeline::run(cluster, "bench", reference, &mut timer, |r| {
        // As `repel schedule -o json` writes it (into a buffer here, not to stdout).
        match write_machine(&r, Format::Json, &mut json) {
            Err(MachineError::Output(e)) => Err(e),
            _ => Ok(()),
        }
    })?;
    let [
        parse_seconds,
        build_seconds,
        schedule_seconds,
        output_seconds,
    ] = timer.seconds;
    let phases = Phases {
        parse_seconds,
        build_seconds,
        schedule_seconds,
        output_seconds,
        end_to_end_seconds: parse_seconds + build_seconds + schedule_seconds + output_seconds,
        input_bytes,
        output_bytes: json.len(),
        placed: scheduled.placed,
        unschedulable: scheduled.unschedulable,
        peak_rss_bytes: peak_rss_bytes(),
    };
    Ok(Run {
        phases,
        built: scheduled.built,
        placements: scheduled.placements,
        stats: scheduled.stats,
        #[cfg(test)]
        json,
    })
}

/// A directory of its own under the system's temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `repel-bench-<pid>-<n>` under the temporary directory.
    pub fn new() -> Result<TempDir, CliError> {
        let base = std::env::temp_dir();
        let mut last = None;
        for n in 0..1000 {
            let path = base.join(format!("repel-bench-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(CliError::Usage(format!("{}: {e}", path.display())));
                }
            }
        }
        Err(CliError::Usage(format!(
            "{}: no free directory name: {}",
            base.display(),
            last.map(|e| e.to_string()).unwrap_or_default()
        )))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
