//! `repel taint`: `kubectl taint` on the nodes of manifest files, which are rewritten in place.
//!
//! The arguments, checks, messages and results are kubectl's (repel-core's `kubectl` module).
//! Like kubectl and the API server, repel does not set `timeAdded` on the taints it adds:
//! upstream sets it only on the taints the node-lifecycle controller adds (kubernetes#98482).
//! A YAML file keeps every document but the changed nodes' byte for byte; the changed documents
//! are re-emitted (their comments are lost; a `kind: List` is one document). A JSON file is
//! re-emitted whole. A file whose taints end up as they were is not rewritten.

use std::path::{Path, PathBuf};

use clap::Args;
use k8s_openapi::api::core::v1::Taint;
use repel_core::kubectl::{
    ApplyTaintError, NodeSelection, TaintCommand, apply_taints, kubectl_stderr_for_nodes,
    parse_taint_command, success_line,
};
use repel_core::labels::LabelSelector;
use serde_json::Value;

use crate::ValidateFlag;
use crate::output::{print_machine, to_yaml};
use crate::{CliError, Format};
use repel_manifest::{
    InputError, Source, StrictReport, answer_strict, for_each_object, item_duplicates,
    parse_documents, read_text, strict_report,
};

/// Arguments of `repel taint`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel taint -f examples/demo/cluster.yaml nodes general-1 dedicated=groupName:NoSchedule
  repel taint -f examples/demo/cluster.yaml nodes general-1 dedicated:NoSchedule-")]
pub struct TaintArgs {
    /// `nodes NAME... KEY=VALUE:EFFECT | KEY:EFFECT | KEY- | KEY:EFFECT- ...`, as kubectl takes them.
    #[arg(num_args = 0.., value_name = "nodes NAME... TAINT")]
    pub args: Vec<String>,
    /// The manifest file(s) holding the nodes; rewritten in place. Repeatable.
    #[arg(short = 'f', long = "filename", required = true)]
    pub files: Vec<PathBuf>,
    /// Every node in the files.
    #[arg(long)]
    pub all: bool,
    /// Nodes matching this label selector, e.g. `pool=gpu,zone!=a`.
    #[arg(short = 'l', long = "selector")]
    pub selector: Option<String>,
    /// Replace a taint with the same key and effect instead of failing.
    #[arg(long)]
    pub overwrite: bool,
    /// `client`: print what would change and leave the files alone; `none` (default) writes.
    #[arg(long = "dry-run", value_name = "none|client", num_args = 0..=1, default_missing_value = "client")]
    pub dry_run: Option<String>,
    /// Print the changed nodes instead of kubectl's one-line results.
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    #[command(flatten)]
    pub fields: ValidateFlag,
}

/// One file's content, kept for rewriting.
struct FileDocs {
    path: PathBuf,
    json: bool,
    /// YAML: the text of each `---` segment; JSON: one segment, the whole file.
    segments: Vec<String>,
    /// The parsed value of each segment (`None` for an empty segment).
    values: Vec<Option<Value>>,
    changed: Vec<bool>,
    /// Its nodes' unknown and repeated fields.
    strict: Vec<StrictReport>,
}

/// Splits YAML text at document markers (`---` at the start of a line).
fn split_yaml(text: &str) -> Vec<String> {
    let mut segments = vec![String::new()];
    for line in text.split_inclusive('\n') {
        let is_marker =
            line.starts_with("---") && line[3..].chars().next().is_none_or(char::is_whitespace);
        if is_marker {
            segments.push(String::new());
        }
        if let Some(last) = segments.last_mut() {
            last.push_str(line);
        }
    }
    segments
}

fn load_file(path: &Path) -> Result<FileDocs, CliError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let trimmed = text.trim_start();
    let json = trimmed.starts_with('{') || trimmed.starts_with('[');
    let segments = if json {
        vec![text.clone()]
    } else {
        split_yaml(&text)
    };
    let mut values = Vec::new();
    for seg in &segments {
        let docs = parse_documents(&file, seg)?;
        match docs.len() {
            0 => values.push(None),
            1 => values.push(docs.into_iter().next().map(|d| d.value)),
            _ if json => {
                return Err(CliError::Usage(format!(
                    "{file}: a JSON file with several values cannot be rewritten; use a List"
                )));
            }
            _ => {
                return Err(CliError::Usage(format!(
                    "{file}: cannot find the document boundaries to rewrite it"
                )));
            }
        }
    }
    // Check that the whole file also parses as the same documents (catches `---` in block
    // scalars), and list the nodes' unknown and repeated fields.
    let mut strict = Vec::new();
    for doc in parse_documents(&file, &text)? {
        for_each_object(&file, &doc, |source: Source, obj: &Value| {
            if obj.get("kind").and_then(Value::as_str) == Some("Node") {
                let api = obj
                    .get("apiVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("v1");
                let unknown = repel_api::strict::unknown_fields("Node", obj);
                let duplicates = item_duplicates(&doc, source.item);
                strict.extend(strict_report(
                    &source, "Node", api, obj, unknown, duplicates,
                ));
            }
            Ok(())
        })?;
    }
    let changed = vec![false; segments.len()];
    Ok(FileDocs {
        path: path.to_path_buf(),
        json,
        segments,
        values,
        changed,
        strict,
    })
}

/// Where a node sits: file, segment, item within a List.
#[derive(Debug, Clone)]
struct NodeRef {
    file: usize,
    segment: usize,
    item: Option<usize>,
    name: String,
}

fn node_value_mut<'a>(files: &'a mut [FileDocs], r: &NodeRef) -> Option<&'a mut Value> {
    let v = files.get_mut(r.file)?.values.get_mut(r.segment)?.as_mut()?;
    match r.item {
        Some(i) => v.get_mut("items")?.get_mut(i),
        None => Some(v),
    }
}

fn find_nodes(files: &[FileDocs]) -> Result<Vec<NodeRef>, CliError> {
    let mut out = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let file = f.path.display().to_string();
        for (si, v) in f.values.iter().enumerate() {
            let Some(value) = v else { continue };
            let doc = repel_manifest::RawDoc {
                doc: si + 1,
                value: value.clone(),
                duplicates: Vec::new(),
            };
            for_each_object(&file, &doc, |source: Source, obj: &Value| {
                if obj.get("kind").and_then(Value::as_str) == Some("Node") {
                    let name = obj
                        .pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    out.push(NodeRef {
                        file: fi,
                        segment: si,
                        item: source.item,
                        name,
                    });
                }
                Ok(())
            })?;
        }
    }
    Ok(out)
}

fn taints_of(file: &str, node: &Value) -> Result<Vec<Taint>, CliError> {
    match node.pointer("/spec/taints") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => serde_path_to_error::deserialize(v).map_err(|e| {
            CliError::Input(InputError::Syntax {
                file: file.to_string(),
                message: format!("Node: spec.taints.{}: {}", e.path(), e.inner()),
            })
        }),
    }
}

fn set_taints(node: &mut Value, taints: &[Taint]) -> Result<(), CliError> {
    let Some(obj) = node.as_object_mut() else {
        return Ok(());
    };
    let spec = obj
        .entry("spec")
        .or_insert_with(|| Value::Object(Default::default()));
    if !spec.is_object() {
        *spec = Value::Object(Default::default());
    }
    if let Some(spec) = spec.as_object_mut() {
        if taints.is_empty() {
            spec.remove("taints");
        } else {
            let v = serde_json::to_value(taints).map_err(|e| CliError::Output(e.to_string()))?;
            spec.insert("taints".to_string(), v);
        }
    }
    Ok(())
}

fn write_back(f: &FileDocs) -> Result<(), CliError> {
    let text = if f.json {
        let v = f.values.first().cloned().flatten().unwrap_or(Value::Null);
        serde_json::to_string_pretty(&v).map_err(|e| CliError::Output(e.to_string()))? + "\n"
    } else {
        let mut out = String::new();
        for (i, seg) in f.segments.iter().enumerate() {
            match (&f.values[i], f.changed[i]) {
                (Some(v), true) => {
                    if i > 0 {
                        out.push_str("---\n");
                    }
                    out.push_str(&to_yaml(v)?);
                }
                _ => out.push_str(seg),
            }
        }
        out
    };
    std::fs::write(&f.path, text).map_err(|err| {
        CliError::Input(InputError::Io {
            path: f.path.display().to_string(),
            err,
        })
    })
}

fn targets<'a>(
    cmd: &TaintCommand,
    nodes: &'a [NodeRef],
    files: &[FileDocs],
) -> Result<(Vec<&'a NodeRef>, Vec<String>), CliError> {
    match cmd.selection() {
        NodeSelection::All => Ok((nodes.iter().collect(), Vec::new())),
        NodeSelection::Selector(s) => {
            let sel: LabelSelector = s.parse().map_err(|e| CliError::Usage(format!("{e}")))?;
            let picked = nodes
                .iter()
                .filter(|r| {
                    let labels = files[r.file].values[r.segment]
                        .as_ref()
                        .and_then(|v| match r.item {
                            Some(i) => v.get("items").and_then(|it| it.get(i)),
                            None => Some(v),
                        })
                        .and_then(|n| n.pointer("/metadata/labels"))
                        .and_then(|l| serde_json::from_value(l.clone()).ok())
                        .unwrap_or_default();
                    sel.matches(&labels)
                })
                .collect();
            Ok((picked, Vec::new()))
        }
        NodeSelection::Names(names) => {
            let mut picked = Vec::new();
            let mut missing = Vec::new();
            for n in names {
                match nodes.iter().find(|r| &r.name == n) {
                    Some(r) => picked.push(r),
                    None => missing.push(n.clone()),
                }
            }
            Ok((picked, missing))
        }
    }
}

/// Runs `repel taint`.
pub fn run(args: TaintArgs) -> Result<u8, CliError> {
    let cmd = match parse_taint_command(
        &args.args,
        args.all,
        args.selector.as_deref(),
        args.overwrite,
    ) {
        Ok(c) => c,
        Err(e) => {
            eprint!(
                "{}",
                e.kubectl_stderr()
                    .replace("kubectl taint -h", "repel taint -h")
            );
            return Ok(2);
        }
    };
    let dry_run = match args.dry_run.as_deref() {
        None | Some("none") => false,
        Some("client") | Some("server") => true,
        Some(other) => {
            return Err(CliError::Usage(format!(
                "Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
            )));
        }
    };
    let prints = dry_run || args.output.is_some();
    // A directory is read as kubectl reads `-f DIR` (its manifests, not recursively) when
    // nothing is written; rewriting a whole directory in place is refused.
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    for p in &args.files {
        if p == Path::new("-") && !prints {
            return Err(CliError::Usage(
                "-f -: standard input cannot be rewritten in place; add -o yaml to print the changed nodes, or give a file".into(),
            ));
        }
        if p.is_dir() {
            if !prints {
                return Err(CliError::Usage(format!(
                    "{}: is a directory; repel taint rewrites files, so -f takes files (a directory is read with --dry-run or -o)",
                    p.display()
                )));
            }
            paths.extend(repel_manifest::expand_paths(
                std::slice::from_ref(p),
                false,
            )?);
        } else {
            paths.push(p.clone());
        }
    }
    let mut files: Vec<FileDocs> = paths
        .iter()
        .map(|p| load_file(p))
        .collect::<Result<_, _>>()?;
    let strict: Vec<StrictReport> = files.iter().flat_map(|f| f.strict.clone()).collect();
    answer_strict(&strict, args.fields.validate).map_err(CliError::Usage)?;
    let nodes = find_nodes(&files)?;
    let (picked, missing) = targets(&cmd, &nodes, &files)?;
    let picked: Vec<NodeRef> = picked.into_iter().cloned().collect();
    let mut errors: Vec<ApplyTaintError> = Vec::new();
    let mut printed: Vec<Value> = Vec::new();
    for r in &picked {
        let file = files[r.file].path.display().to_string();
        let Some(node) = node_value_mut(&mut files, r) else {
            continue;
        };
        let old = taints_of(&file, node)?;
        match apply_taints(&r.name, &old, &cmd.to_add, &cmd.to_remove, cmd.overwrite) {
            Ok((new, op)) => {
                let changed = new != old;
                if changed {
                    set_taints(node, &new)?;
                }
                printed.push(node.clone());
                if changed {
                    files[r.file].changed[r.segment] = true;
                }
                if args.output.is_none() {
                    let suffix = if dry_run { " (dry run)" } else { "" };
                    outln!("{}{suffix}", success_line(&r.name, op));
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if let Some(format) = args.output {
        match printed.as_slice() {
            [one] => print_machine(one, format)?,
            many => print_machine(
                &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": many}),
                format,
            )?,
        }
    }
    if !dry_run {
        for f in files
            .iter()
            .filter(|f| f.path != Path::new("-") && f.changed.iter().any(|c| *c))
        {
            write_back(f)?;
        }
    }
    for name in &missing {
        eprintln!("Error from server (NotFound): nodes {name:?} not found");
    }
    if !errors.is_empty() {
        eprint!("{}", kubectl_stderr_for_nodes(&errors));
    }
    Ok(if !missing.is_empty() {
        2
    } else if !errors.is_empty() {
        1
    } else {
        0
    })
}
