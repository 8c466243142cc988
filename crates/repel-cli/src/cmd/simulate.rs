//! `repel simulate` and `repel test`: scenarios on the simulated clock.

use std::path::{Path, PathBuf};

use clap::Args;
use repel_engine::clock::human;
use repel_engine::sim::run_scenario;
use serde_json::Value;

use crate::ValidateFlag;
use crate::output::{print_machine, timeline, warn_all};
use crate::scenario_file::load_with_flags;
use crate::{AdmissionFlags, CliError, Format};
use repel_manifest::{expand_paths, parse_documents, read_text};

/// Arguments of `repel simulate`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel simulate examples/noexecute-toleration-seconds.yaml
  repel simulate examples/node-outage.yaml -o json")]
pub struct SimulateArgs {
    /// The scenario file (`kind: Scenario`, YAML or JSON).
    pub scenario: PathBuf,
    /// Output format (default: a timeline).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    /// Admission plugins; these override the scenario's `enableAdmissionPlugins` and
    /// `disableAdmissionPlugins` for the plugins they name.
    #[command(flatten)]
    pub admission: AdmissionFlags,
    #[command(flatten)]
    pub fields: ValidateFlag,
}

/// Arguments of `repel test`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel test examples/noexecute-toleration-seconds.yaml
  repel test examples/")]
pub struct TestArgs {
    /// Scenario files, or directories of them (every `.yaml`/`.yml`/`.json` file whose `kind` is `Scenario`).
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
    /// Output format (default: a runner's report): `{"scenarios": [{"file", "passed",
    /// "expectations", "refusedSteps"}], "passed", "failed"}`.
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    /// Admission plugins, for every scenario (as for `simulate`).
    #[command(flatten)]
    pub admission: AdmissionFlags,
    #[command(flatten)]
    pub fields: ValidateFlag,
}

/// Runs `repel simulate`.
pub fn run(args: SimulateArgs) -> Result<u8, CliError> {
    args.admission.config()?;
    let (scenario, input) = load_with_flags(&args.scenario, &args.admission, args.fields.validate)?;
    let report = run_scenario(&scenario, input);
    warn_all(&report.warnings);
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => out!("{}", timeline(&report)),
    }
    // A step refused as kubectl refuses it is something wrong with the scenario's cluster.
    Ok(if report.steps.iter().any(|s| !s.ok) {
        1
    } else {
        0
    })
}

fn is_scenario(path: &Path) -> bool {
    read_text(path)
        .ok()
        .and_then(|t| parse_documents(&path.display().to_string(), &t).ok())
        .and_then(|d| d.into_iter().next())
        .is_some_and(|d| d.value.get("kind").and_then(Value::as_str) == Some("Scenario"))
}

/// `repel test`'s exit code: 2 when a scenario could not be used, else 1 when one failed.
fn test_exit(failed: usize, unusable: usize) -> u8 {
    if unusable > 0 {
        2
    } else if failed > 0 {
        1
    } else {
        0
    }
}

/// Runs `repel test`: every scenario's expectations, each scenario reported (one that cannot
/// be read as well: `ERROR`, exit 2 at the end).
pub fn run_tests(args: TestArgs) -> Result<u8, CliError> {
    args.admission.config()?;
    let files: Vec<PathBuf> = expand_paths(&args.scenarios, true)?
        .into_iter()
        .filter(|p| args.scenarios.contains(p) || is_scenario(p))
        .collect();
    if files.is_empty() {
        return Err(CliError::Usage("no scenarios found".into()));
    }
    if let Some(format) = args.output {
        let mut rows = Vec::new();
        let (mut passed, mut failed, mut unusable) = (0, 0, 0);
        for f in &files {
            let (scenario, input) = match load_with_flags(f, &args.admission, args.fields.validate)
            {
                Ok(loaded) => loaded,
                Err(e) => {
                    unusable += 1;
                    eprintln!("{}", e.line());
                    rows.push(serde_json::json!({
                        "file": f.display().to_string(),
                        "passed": false,
                        "error": e.to_string(),
                    }));
                    continue;
                }
            };
            let report = run_scenario(&scenario, input);
            let refused: Vec<&repel_engine::sim::StepRecord> =
                report.steps.iter().filter(|s| !s.ok).collect();
            let ok = refused.is_empty() && report.expectations.iter().all(|e| e.passed);
            if ok {
                passed += 1
            } else {
                failed += 1
            }
            rows.push(serde_json::json!({
                "file": f.display().to_string(),
                "passed": ok,
                "expectations": report.expectations,
                "refusedSteps": refused,
            }));
        }
        print_machine(
            &serde_json::json!({"scenarios": rows, "passed": passed, "failed": failed, "unusable": unusable}),
            format,
        )?;
        return Ok(test_exit(failed, unusable));
    }
    let (mut passed, mut failed, mut unusable) = (0, 0, 0);
    for f in &files {
        // A scenario that cannot be read is reported, and the others still run.
        let (scenario, input) = match load_with_flags(f, &args.admission, args.fields.validate) {
            Ok(loaded) => loaded,
            Err(e) => {
                unusable += 1;
                outln!("ERROR {}  (could not be read)", f.display());
                eprintln!("{}", e.line());
                continue;
            }
        };
        let report = run_scenario(&scenario, input);
        let bad: Vec<_> = report.expectations.iter().filter(|e| !e.passed).collect();
        let refused: Vec<_> = report.steps.iter().filter(|s| !s.ok).collect();
        if bad.is_empty() && refused.is_empty() {
            passed += 1;
            outln!(
                "PASS  {}  ({} expectation(s))",
                f.display(),
                report.expectations.len()
            );
            continue;
        }
        failed += 1;
        outln!("FAIL  {}", f.display());
        for s in &refused {
            outln!(
                "      step at {}: {} was refused:",
                human((s.at * 1000.0).round() as i64),
                s.step
            );
            for o in &s.output {
                outln!("        {o}");
            }
        }
        for e in bad {
            outln!("      expect[{}]: {}", e.index, e.expected);
            outln!("        but: {}", e.actual);
            let subject = e
                .expected
                .split_whitespace()
                .find(|w| w.contains('/'))
                .unwrap_or_default();
            let related: Vec<_> = report
                .events
                .iter()
                .filter(|ev| !subject.is_empty() && ev.object.ends_with(subject))
                .collect();
            if !related.is_empty() {
                outln!("        events for {subject}:");
                for ev in related.iter().rev().take(5).rev() {
                    outln!(
                        "          {:>8}  {}  {}",
                        human((ev.at * 1000.0).round() as i64),
                        ev.reason,
                        ev.message
                    );
                }
            }
        }
    }
    if unusable > 0 {
        outln!("\n{passed} passed, {failed} failed, {unusable} could not be read");
    } else {
        outln!("\n{passed} passed, {failed} failed");
    }
    Ok(test_exit(failed, unusable))
}

#[cfg(test)]
mod tests;
