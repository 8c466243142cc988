//! A scenario's `kubectl:` steps, run on a [`Cluster`] with kubectl v1.32's syntax, output lines
//! and refusal messages: `taint`, `cordon`, `uncordon`, `drain`, `label`, `delete`.
//!
//! The line is split like a POSIX shell splits it ([`tokenize`]); a leading `kubectl` is
//! optional. Flags are parsed with pflag's rules and messages. What kubectl prints to stdout and
//! stderr is returned line by line in a [`KubectlResult`], with `ok` standing for exit status 0,
//! and the pods that were evicted or deleted, so the caller can record events and let the
//! workload controllers react.
//!
//! Everything happens at one instant of simulated time: pods go at once (`--grace-period` is
//! accepted and has no effect), and a drain that kubectl would keep retrying is cut short (see
//! [`drain`]). `kubectl apply -f` reads files, which this module does not do: the caller turns
//! it into an apply step with [`apply_files`].

pub mod drain;
mod flags;
mod label;
pub mod scale;
mod simple;
#[cfg(test)]
mod tests;

use repel_core::FeatureGates;
use repel_core::kubectl::go_aggregate;

use crate::clock::Millis;
use crate::cluster::{Cluster, NodeId, PodId};

/// The commands [`run_kubectl`] runs.
pub const SUPPORTED_COMMANDS: [&str; 7] = [
    "taint", "cordon", "uncordon", "drain", "label", "delete", "scale",
];

/// kubectl commands that exist but are not simulated here.
const OTHER_COMMANDS: &[&str] = &[
    "annotate",
    "api-resources",
    "api-versions",
    "apply",
    "attach",
    "auth",
    "autoscale",
    "certificate",
    "cluster-info",
    "completion",
    "config",
    "cp",
    "create",
    "debug",
    "describe",
    "diff",
    "edit",
    "events",
    "exec",
    "explain",
    "expose",
    "get",
    "kustomize",
    "logs",
    "options",
    "patch",
    "plugin",
    "port-forward",
    "proxy",
    "replace",
    "rollout",
    "run",
    "set",
    "top",
    "version",
    "wait",
];

/// What one kubectl command line did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KubectlResult {
    /// Lines kubectl writes to stdout, without newlines.
    pub stdout: Vec<String>,
    /// Lines kubectl writes to stderr, without newlines.
    pub stderr: Vec<String>,
    /// kubectl's exit status would be 0.
    pub ok: bool,
    /// Pods evicted through the eviction API (`drain`), in order.
    pub evicted: Vec<PodId>,
    /// Pods deleted outright (`delete pod`, `drain --disable-eviction`, pods of a deleted node).
    pub deleted: Vec<PodId>,
    /// Nodes deleted (`delete node`). Node ids after a deleted node's shift down by one.
    pub deleted_nodes: Vec<String>,
    /// The ids the deleted nodes had when each was deleted, in order (each deletion shifts
    /// the ids after it): what controllers keeping node ids are told.
    pub deleted_node_ids: Vec<NodeId>,
    /// Pods whose eviction a PodDisruptionBudget refused (429): kubectl retries them every 5 s.
    pub blocked: Vec<PodId>,
    /// Every line of `stdout` and `stderr` in the order kubectl writes them (a terminal shows
    /// both streams interleaved so), each with the stream it went to.
    pub transcript: Vec<(Stream, String)>,
}

/// Which of kubectl's output streams a line went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stream {
    /// Standard output.
    #[default]
    Out,
    /// Standard error.
    Err,
}

impl KubectlResult {
    fn new() -> Self {
        KubectlResult {
            ok: true,
            ..Default::default()
        }
    }

    fn out(&mut self, line: impl Into<String>) {
        let line = line.into();
        self.transcript.push((Stream::Out, line.clone()));
        self.stdout.push(line);
    }

    fn err(&mut self, line: impl Into<String>) {
        let line = line.into();
        self.transcript.push((Stream::Err, line.clone()));
        self.stderr.push(line);
    }

    /// [`KubectlResult::err`] for each line.
    fn errs(&mut self, lines: impl IntoIterator<Item = String>) {
        for line in lines {
            self.err(line);
        }
    }

    /// Ends with an error (`error: msg` unless it already says so), exit status 1.
    fn fail(mut self, msg: impl AsRef<str>) -> Self {
        let msg = msg.as_ref();
        for (i, line) in msg.lines().enumerate() {
            if i == 0 && !already_formatted(line) {
                self.err(format!("error: {line}"));
            } else {
                self.err(line);
            }
        }
        self.ok = false;
        self
    }

    /// A pflag error: `error: <msg>` and kubectl's hint line.
    fn flag_error(self, cmd: &str, msg: &str) -> Self {
        self.fail(format!("{msg}\nSee 'kubectl {cmd} --help' for usage."))
    }

    /// `cmdutil.UsageErrorf`: the message and `See 'kubectl <cmd> -h' for help and examples`.
    fn usage_error(self, cmd: &str, msg: &str) -> Self {
        self.fail(format!(
            "{msg}\nSee 'kubectl {cmd} -h' for help and examples"
        ))
    }
}

/// Messages kubectl prints as they are, without `error: `: those that already have it, API
/// status errors (`Error from server (…)`), and Invalid statuses (`The Node "x" is invalid…`).
fn already_formatted(line: &str) -> bool {
    line.starts_with("error: ")
        || line.starts_with("Error from server")
        || (line.starts_with("The ") && line.contains(" is invalid"))
}

/// Why a command line could not be split into words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenizeError {
    /// A `'` or `"` was opened and never closed.
    #[error("unterminated {0} quote")]
    UnterminatedQuote(char),
    /// The line ends in a backslash with nothing to escape.
    #[error("trailing backslash")]
    TrailingBackslash,
}

/// Splits a command line into words as a POSIX shell does, without expansions:
///
/// 1. Unquoted blanks separate words.
/// 2. `'…'` keeps everything literally.
/// 3. `"…"` keeps everything except that `\` escapes `"`, `\`, `$` and `` ` ``.
/// 4. An unquoted `\` keeps the next character literally.
/// 5. Quotes join with adjacent text (`a'b c'` is one word); `''` is an empty word.
pub fn tokenize(line: &str) -> Result<Vec<String>, TokenizeError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err(TokenizeError::UnterminatedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.peek() {
                            Some(&n @ ('"' | '\\' | '$' | '`')) => {
                                cur.push(n);
                                chars.next();
                            }
                            _ => cur.push('\\'),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err(TokenizeError::UnterminatedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(n) => cur.push(n),
                    None => return Err(TokenizeError::TrailingBackslash),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// The words of a command line without a leading `kubectl`.
pub fn command_words(line: &str) -> Result<Vec<String>, TokenizeError> {
    let mut words = tokenize(line)?;
    if words.first().map(String::as_str) == Some("kubectl") {
        words.remove(0);
    }
    Ok(words)
}

/// The files of a `kubectl apply -f FILE…` line (`-f`, `--filename`, `-fFILE`, `--filename=F`),
/// or `None` when the line is not an apply. The caller reads them and applies the objects.
pub fn apply_files(line: &str) -> Option<Vec<String>> {
    let words = command_words(line).ok()?;
    if words.first().map(String::as_str) != Some("apply") {
        return None;
    }
    let specs = [
        flags::NAMESPACE,
        flags::value("filename", Some('f')),
        flags::boolean("server-side"),
        flags::boolean("force-conflicts"),
        flags::value("field-manager", None),
    ];
    let parsed = flags::parse_flags(&words[1..], &specs).ok()?;
    let files = parsed.all("filename").to_vec();
    Some(files)
}

/// Runs one kubectl command line on `cluster`, as kubectl v1.32 against an API server holding
/// it would: the same syntax, the same stdout and stderr lines, exit status as `ok`.
///
/// 1. The line is split with [`tokenize`]; a leading `kubectl` is dropped.
/// 2. `taint`, `cordon`, `uncordon`, `drain`, `label` and `delete` run (see the submodules);
///    other kubectl commands are refused with a repel message naming what is supported; an
///    unknown word is kubectl's `unknown command "x" for "kubectl"`.
/// 3. `--dry-run` is refused: a scenario step either happens or is not written.
///
/// `gates` are the scenario's feature gates; no command here depends on one yet (the
/// `Gt`/`Lt` gate concerns tolerations, not the taints kubectl writes).
pub fn run_kubectl(line: &str, cluster: &mut Cluster, gates: &FeatureGates) -> KubectlResult {
    let _ = gates;
    let res = KubectlResult::new();
    let words = match command_words(line) {
        Ok(w) => w,
        Err(e) => return res.fail(format!("repel: cannot split the command line: {e}")),
    };
    let Some((cmd, rest)) = words.split_first() else {
        return res.fail("repel: empty kubectl command");
    };
    if rest
        .iter()
        .any(|w| w == "--dry-run" || w.starts_with("--dry-run="))
    {
        return res.fail("repel: --dry-run is not supported in scenario steps");
    }
    match cmd.as_str() {
        "taint" => simple::taint(rest, cluster),
        "cordon" => simple::cordon(cmd, rest, cluster, true),
        "uncordon" => simple::cordon(cmd, rest, cluster, false),
        "drain" => drain::run(rest, cluster),
        "label" => label::run(rest, cluster),
        "delete" => simple::delete(rest, cluster),
        "scale" => res.fail(
            "repel: kubectl scale changes a workload; the scenario runner runs it (Simulation)",
        ),
        "apply" => res.fail(
            "repel: kubectl apply reads files; the scenario runner turns it into an apply step",
        ),
        other if OTHER_COMMANDS.contains(&other) => res.fail(format!(
            "repel: kubectl {other} is not simulated in scenario steps (supported: {})",
            SUPPORTED_COMMANDS.join(", ")
        )),
        other => res.fail(format!("unknown command {other:?} for \"kubectl\"")),
    }
}

/// A resource type word as kubectl's REST mapper resolves it, for the kinds steps act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resource {
    Node,
    Pod,
    /// A built-in kind this module does not act on (deployments, …): its plural.
    Other(&'static str),
}

/// Resolves a resource word (`nodes`, `node`, `no`, `pods`, `po`, `Pod`, `pods.v1.` …); `None`
/// when the server would not know it.
fn resource(word: &str) -> Option<Resource> {
    let lower = word.to_lowercase();
    let name = lower.split('.').next().unwrap_or_default();
    let k = repel_core::kinds::by_name(name)?;
    Some(match k.plural {
        "nodes" => Resource::Node,
        "pods" => Resource::Pod,
        p if SERVED.contains(&p) => Resource::Other(k.plural),
        _ => return None,
    })
}

/// The other resources a scenario's kubectl knows (by any name of [`repel_core::kinds`]).
const SERVED: &[&str] = &[
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "jobs",
    "cronjobs",
    "namespaces",
    "services",
    "poddisruptionbudgets",
    "configmaps",
    "secrets",
];

/// `the server doesn't have a resource type "x"` (kubectl prints it with `error: `).
fn unknown_resource(word: &str) -> String {
    format!(
        "the server doesn't have a resource type {:?}",
        word.to_lowercase()
    )
}

/// `Error from server (NotFound): nodes "x" not found`.
fn not_found(plural: &str, name: &str) -> String {
    format!("Error from server (NotFound): {plural} {name:?} not found")
}

/// Go's `time.Duration.String()` for whole milliseconds: `0s`, `500ms`, `5s`, `1m0s`,
/// `1h30m0s`, `1.5s`.
pub fn go_duration(ms: Millis) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    if ms < 1000 {
        return format!("{sign}{ms}ms");
    }
    let (h, m, s, frac) = (
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000,
    );
    let secs = if frac == 0 {
        format!("{s}s")
    } else {
        format!("{s}.{}s", format!("{frac:03}").trim_end_matches('0'))
    };
    match (h, m) {
        (0, 0) => format!("{sign}{secs}"),
        (0, m) => format!("{sign}{m}m{secs}"),
        (h, m) => format!("{sign}{h}h{m}m{secs}"),
    }
}

/// The nodes a `cordon`/`uncordon`/`drain` command names (upstream `DrainCmdOptions.Complete`,
/// kubectl v1.32):
///
/// 1. No name and no `--selector`: usage error `USAGE: <use> [flags]`.
/// 2. A name and a selector: usage error `error: cannot specify both a node name and a
///    --selector option`.
/// 3. Names are `NAME` or `TYPE/NAME`; a type other than nodes is refused; a missing node is
///    `Error from server (NotFound)` and nothing is done.
/// 4. A selector picks the matching nodes in name order (the API lists by key).
// A refusal is the command's finished result, built once per command line.
#[allow(clippy::result_large_err)]
fn select_nodes(
    cmd: &str,
    use_line: &str,
    names: &[String],
    selector: Option<&str>,
    cluster: &Cluster,
) -> Result<Vec<NodeId>, KubectlResult> {
    let res = KubectlResult::new();
    let selector = selector.filter(|s| !s.is_empty());
    match (names.is_empty(), selector) {
        (true, None) => return Err(res.usage_error(cmd, &format!("USAGE: {use_line} [flags]"))),
        (false, Some(_)) => {
            return Err(res.usage_error(
                cmd,
                "error: cannot specify both a node name and a --selector option",
            ));
        }
        _ => {}
    }
    if let Some(sel) = selector {
        let sel: repel_core::labels::LabelSelector = match sel.parse() {
            Ok(s) => s,
            Err(e) => return Err(res.fail(format!("{e}"))),
        };
        let mut ids: Vec<NodeId> = (0..cluster.nodes.len())
            .filter(|i| sel.matches(&cluster.nodes[*i].labels))
            .collect();
        ids.sort_by(|a, b| cluster.nodes[*a].name.cmp(&cluster.nodes[*b].name));
        return Ok(ids);
    }
    let mut ids = Vec::new();
    for arg in names {
        let name = match arg.split_once('/') {
            Some((ty, name)) => match resource(ty) {
                Some(Resource::Node) => name,
                Some(Resource::Pod) => {
                    return Err(res.fail(
                        "error: expected resource of type node, got \"/v1, Resource=pods\"",
                    ));
                }
                Some(Resource::Other(plural)) => {
                    return Err(res.fail(format!(
                        "error: expected resource of type node, got \"{plural}\""
                    )));
                }
                None => return Err(res.fail(unknown_resource(ty))),
            },
            None => arg.as_str(),
        };
        match cluster.node_id(name) {
            Some(id) => ids.push(id),
            None => return Err(res.fail(not_found("nodes", name))),
        }
    }
    Ok(ids)
}
