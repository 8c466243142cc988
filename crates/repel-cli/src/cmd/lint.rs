//! `repel lint`: the mistakes made with taints and tolerations, found in manifests or a live
//! cluster before they ship (the rules are `repel_core::lint`'s); human, JSON and SARIF output,
//! and the single-object rules as a ValidatingAdmissionPolicy.

mod config;
mod sarif;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use repel_core::FeatureGates;
use repel_core::lint::{
    Finding, LintInput, LintObject, LintOptions, NodeClasses, Severity, Subject, rules,
};
use serde::Serialize;

use crate::output::warn_all;
use crate::{CliError, Format, Inputs};
use repel_manifest::Source;

/// Output formats of `repel lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// `FILE:LINE:COL severity rule message`, then the fix, grouped by file.
    Human,
    /// The JSON contract.
    Json,
    /// The same fields as YAML.
    Yaml,
    /// SARIF 2.1.0, as GitHub code scanning ingests it.
    Sarif,
}

/// The lowest severity that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Any finding.
    Info,
    /// Warnings and errors.
    Warning,
    /// Errors only.
    Error,
    /// Never (exit 0 whatever is found).
    None,
}

/// What `--emit` writes instead of linting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// A ValidatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1).
    ValidatingAdmissionPolicy,
}

/// Arguments of `repel lint`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel lint -f examples/demo/cluster.yaml
  repel lint -f examples/demo/cluster.yaml -o sarif
  repel lint --explain wildcard-toleration
  repel lint --emit validating-admission-policy")]
pub struct LintArgs {
    /// Manifest file, directory (its .yaml/.yml/.json files) or `-` for stdin; repeatable.
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    files: Vec<PathBuf>,
    /// Read directories given with -f recursively.
    #[arg(short = 'R', long)]
    recursive: bool,
    /// Lint a live cluster (read-only) through this kubeconfig.
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context of the live cluster to read.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Lint the cluster this pod runs in, as its service account (see `repel schedule --help`).
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"])]
    in_cluster: bool,
    /// Feature gates in kube's syntax (matching with `Gt`/`Lt`).
    #[arg(
        long = "feature-gates",
        value_name = "GATE=BOOL,...",
        default_value = ""
    )]
    feature_gates: FeatureGates,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "human")]
    output: LintFormat,
    /// Exit 1 when a finding is at least this severe.
    #[arg(long = "fail-on", value_enum, default_value = "warning")]
    fail_on: FailOn,
    /// Configuration file (default: .repel.yaml in the working directory, when there is one).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Turn a rule on (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    enable: Vec<String>,
    /// Turn a rule off (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    disable: Vec<String>,
    /// Print a rule's documentation and exit.
    #[arg(long, value_name = "RULE")]
    explain: Option<String>,
    /// Write the single-object rules as an admission policy instead of linting.
    #[arg(long, value_enum)]
    emit: Option<Emit>,
}

/// One finding, as the JSON contract names its fields.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The rule's id.
    pub rule: &'static str,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    /// `Kind/namespace/name` (`Kind/name` for nodes and pools).
    pub object: String,
    /// The file it was read from.
    pub file: String,
    /// 1-based line of the offending field (0 when the text cannot be read again: stdin, a
    /// live cluster).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The field, e.g. `spec.template.spec.tolerations[1]`.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The fix, as YAML to paste.
    pub fix: String,
    /// The 1-based column just past the end of the field's line (SARIF's region).
    #[serde(skip)]
    pub end_column: usize,
}

/// `repel lint -o json`.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Every finding.
    pub findings: Vec<Row>,
    /// How many of each severity.
    pub summary: Summary,
}

/// Counts per severity.
#[derive(Debug, Serialize, Default)]
pub struct Summary {
    /// Errors.
    pub error: usize,
    /// Warnings.
    pub warning: usize,
    /// Infos.
    pub info: usize,
}

/// Runs `repel lint`.
pub fn run(args: LintArgs) -> Result<u8, CliError> {
    if let Some(id) = &args.explain {
        let rule = rules::find(id).ok_or_else(|| unknown_rule(id))?;
        outln!("{}", explain_text(&rule.info));
        return Ok(0);
    }
    let cfg = config::read(args.config.as_deref())?;
    for id in args.enable.iter().chain(&args.disable) {
        rules::find(id).ok_or_else(|| unknown_rule(id))?;
    }
    let mut opts: LintOptions = cfg.options;
    opts.disabled.extend(args.disable.iter().cloned());
    for id in &args.enable {
        opts.disabled.remove(id);
        opts.enabled.insert(id.clone());
    }
    if args.emit.is_some() {
        let docs = repel_core::lint::vap::policy(&opts, &cfg.exclude_namespaces);
        out!(
            "{}",
            repel_core::lint::vap::to_text(&docs, crate::output::to_yaml)?
        );
        return Ok(0);
    }
    if args.files.is_empty()
        && args.kubeconfig.is_none()
        && args.context.is_none()
        && !args.in_cluster
    {
        return Err(CliError::Usage(
            "error: must specify one of -f or --kubeconfig/--context (or --explain RULE, --emit validating-admission-policy)".into(),
        ));
    }
    let inputs = Inputs {
        files: args.files.clone(),
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        in_cluster: args.in_cluster,
        recursive: args.recursive,
        verbose: false,
        validate: None,
        feature_gates: args.feature_gates,
        strict_nodes: false,
    };
    let inv = inputs.load("lint")?;
    warn_all(&inv.warnings);
    let report = lint_inventory(&inv, &opts, &args.feature_gates)?;
    let fail = report.findings.iter().any(|r| {
        let s = Severity::parse(r.severity).unwrap_or(Severity::Info);
        match args.fail_on {
            FailOn::Info => true,
            FailOn::Warning => s >= Severity::Warning,
            FailOn::Error => s >= Severity::Error,
            FailOn::None => false,
        }
    });
    match args.output {
        LintFormat::Human => out!("{}", human(&report)),
        LintFormat::Json => crate::output::print_machine(&report, Format::Json)?,
        LintFormat::Yaml => crate::output::print_machine(&report, Format::Yaml)?,
        LintFormat::Sarif => crate::output::print_machine(&sarif::log(&report), Format::Json)?,
    }
    Ok(u8::from(fail))
}

fn unknown_rule(id: &str) -> CliError {
    let ids: Vec<&str> = rules::RULES.iter().map(|r| r.info.id).collect();
    CliError::Usage(format!(
        "error: unknown rule {id:?}; the rules are: {}",
        ids.join(", ")
    ))
}

/// What `--explain RULE` prints.
pub fn explain_text(r: &repel_core::lint::Rule) -> String {
    format!(
        "{} ({})\n\n{}\n\n{}\n\nExample:\n\n{}\n",
        r.id,
        r.severity.as_str(),
        r.summary,
        r.explain,
        r.example
    )
}

/// Lints the inventory's objects, nodes and pools: the findings, located in their files.
pub fn lint_inventory(
    inv: &repel_manifest::Inventory,
    opts: &LintOptions,
    gates: &FeatureGates,
) -> Result<Report, CliError> {
    let mut objects = Vec::new();
    let mut sources: Vec<&Source> = Vec::new();
    for w in &inv.workloads {
        if let Some(o) = LintObject::from_workload(&w.obj) {
            objects.push((w.seq, o, &w.source));
        }
    }
    for p in &inv.pods {
        if let Some(o) = LintObject::from_pod(&p.obj) {
            objects.push((p.seq, o, &p.source));
        }
    }
    objects.sort_by_key(|(seq, ..)| *seq);
    let objects: Vec<LintObject<'_>> = objects
        .into_iter()
        .map(|(_, o, s)| {
            sources.push(s);
            o
        })
        .collect();
    let pools_read = inv.pools_with_sources()?;
    let pool_sources: HashMap<String, &Source> = inv
        .node_pools
        .iter()
        .map(|p| (p.source.to_string(), &p.source))
        .collect();
    let mut classes = NodeClasses::default();
    for (i, (_, src)) in pools_read.iter().enumerate() {
        if let Some(v) = inv.node_pools.iter().find(|p| p.source.to_string() == *src)
            && v.obj["kind"] == "NodePool"
        {
            let r = &v.obj["spec"]["template"]["spec"]["nodeClassRef"];
            if let (Some(kind), Some(name)) = (r["kind"].as_str(), r["name"].as_str()) {
                classes.refs.push((i, kind.to_string(), name.to_string()));
            }
        }
    }
    classes.classes = inv
        .node_classes
        .iter()
        .map(|(_, k, n)| (k.clone(), n.clone()))
        .collect();
    let input = LintInput {
        objects,
        nodes: inv.nodes.iter().map(|n| &n.obj).collect(),
        pools: pools_read.iter().map(|(p, _)| p).collect(),
        node_classes: classes,
        gates: *gates,
    };
    let findings = repel_core::lint::lint(&input, opts);
    let mut texts: HashMap<Arc<str>, Option<String>> = HashMap::new();
    let mut rows = Vec::with_capacity(findings.len());
    let mut summary = Summary::default();
    for f in &findings {
        let (object, source) = match f.subject {
            Subject::Object(i) => (input.objects[i].id(), Some(sources[i])),
            Subject::Node(i) => (
                format!(
                    "Node/{}",
                    input.nodes[i].metadata.name.as_deref().unwrap_or_default()
                ),
                Some(&inv.nodes[i].source),
            ),
            Subject::Pool(i) => (
                format!(
                    "{}/{}",
                    pool_kind(input.pools[i].provider),
                    input.pools[i].name
                ),
                pool_sources.get(&pools_read[i].1).copied(),
            ),
        };
        let (file, line, column, end_column) = match source {
            Some(s) => {
                let (l, c, e) = position(&mut texts, s, &f.path);
                (s.file.to_string(), l, c, e)
            }
            None => (String::new(), 0, 0, 0),
        };
        match f.severity {
            Severity::Error => summary.error += 1,
            Severity::Warning => summary.warning += 1,
            Severity::Info => summary.info += 1,
        }
        rows.push(row(f, object, file, line, column, end_column));
    }
    Ok(Report {
        findings: rows,
        summary,
    })
}

fn row(f: &Finding, object: String, file: String, line: usize, column: usize, end: usize) -> Row {
    Row {
        rule: f.rule,
        severity: f.severity.as_str(),
        object,
        file,
        line,
        column,
        path: f.path.clone(),
        message: f.message.clone(),
        fix: f.fix.clone(),
        end_column: end,
    }
}

/// The kind a pool is reported as.
fn pool_kind(provider: &str) -> &'static str {
    match provider {
        "karpenter" => "NodePool",
        "aks" => "AgentPool",
        _ => "NodeGroup",
    }
}

/// The line, column and end column of `path` in the object read from `s` (zeros when its
/// text cannot be read again).
fn position(
    texts: &mut HashMap<Arc<str>, Option<String>>,
    s: &Source,
    path: &str,
) -> (usize, usize, usize) {
    let text = texts.entry(s.file.clone()).or_insert_with(|| {
        (&*s.file != "-")
            .then(|| std::fs::read_to_string(&*s.file).ok())
            .flatten()
    });
    let Some(text) = text else {
        return (0, 0, 0);
    };
    match repel_manifest::locate::locate(text, s.doc, s.item, path) {
        Some((line, col)) => {
            let len = text
                .lines()
                .nth(line - 1)
                .map(|l| l.chars().count())
                .unwrap_or(0);
            (line, col, len.max(col) + 1)
        }
        None => (0, 0, 0),
    }
}

/// The human report: per file, `FILE:LINE:COL severity rule object: message` and the fix.
pub fn human(r: &Report) -> String {
    let mut s = String::new();
    let mut files: Vec<&str> = Vec::new();
    for f in &r.findings {
        if !files.contains(&f.file.as_str()) {
            files.push(&f.file);
        }
    }
    for file in files {
        for f in r.findings.iter().filter(|f| f.file == file) {
            s.push_str(&format!(
                "{}:{}:{} {} {} {}: {}\n",
                f.file, f.line, f.column, f.severity, f.rule, f.object, f.message
            ));
            s.push_str("  fix:\n");
            for l in f.fix.lines() {
                s.push_str(&format!("    {l}\n"));
            }
        }
        s.push('\n');
    }
    let n = r.findings.len();
    s.push_str(&format!(
        "{n} finding{}: {} error{}, {} warning{}, {} info\n",
        if n == 1 { "" } else { "s" },
        r.summary.error,
        if r.summary.error == 1 { "" } else { "s" },
        r.summary.warning,
        if r.summary.warning == 1 { "" } else { "s" },
        r.summary.info
    ));
    s
}
