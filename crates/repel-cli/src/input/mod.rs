//! Reading manifests as kubectl takes them: `-f FILE|DIR|-` repeatable, YAML or JSON,
//! multi-document, `kind: List`. Every object remembers where it came from, so that an error
//! names the file, the document and the field.
//!
//! # Layout
//! - this module: paths, documents, objects and the [`Inventory`] they are sorted into.
//! - `locate`: the line and column of a field, found again in its file's text.
//! - `yaml`: the fast multi-document YAML read (parallel, serde-saphyr's semantics).

pub mod locate;
pub mod tree;
pub mod yaml;

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::workload::Workload;
use repel_engine::load::ClusterInput;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A field of nested objects: `v.at(&["metadata", "name"])` is `v.pointer("/metadata/name")`
/// for keys without `/` or `~`, without parsing the pointer and unescaping each of its tokens
/// into a new string (reading the objects of a 150,000-pod cluster asks hundreds of thousands
/// of these).
trait At {
    fn at(&self, path: &[&str]) -> Option<&Value>;
}

impl At for Value {
    fn at(&self, path: &[&str]) -> Option<&Value> {
        path.iter()
            .try_fold(self, |v, key| v.as_object()?.get(*key))
    }
}

/// Where an object was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file as given on the command line (`-` for stdin); shared by its objects' sources.
    pub file: std::sync::Arc<str>,
    /// 1-based document number within the file.
    pub doc: usize,
    /// Index within a `kind: List` document's `items`.
    pub item: Option<usize>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: document {}", self.file, self.doc)?;
        if let Some(i) = self.item {
            write!(f, ", items[{i}]")?;
        }
        Ok(())
    }
}

/// A manifest that could not be used. Displays as `FILE: document N[, items[i]] (Kind name): field: problem`.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file or directory could not be read.
    #[error("{path}: {err}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        err: std::io::Error,
    },
    /// The input is longer than [`max_input_bytes`].
    #[error(
        "{path}: larger than {limit} bytes ({}), the most repel reads of one input; set {MAX_INPUT_BYTES_ENV} to a number of bytes to read more",
        human_bytes(*limit)
    )]
    TooLarge {
        /// The path (`-` for standard input).
        path: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// [`MAX_INPUT_BYTES_ENV`] is not a number of bytes.
    #[error("{MAX_INPUT_BYTES_ENV}: invalid value {value:?}: a number of bytes expected")]
    Limit {
        /// The variable's value.
        value: String,
    },
    /// The text is not YAML or JSON.
    #[error("{file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message, with its line and column.
        message: String,
    },
    /// A document parsed but is not a usable object.
    #[error("{at}{}: {message}", what.as_deref().map(|w| format!(" ({w})")).unwrap_or_default())]
    Object {
        /// Where the object is.
        at: Source,
        /// `Kind name` when known.
        what: Option<String>,
        /// The field and the problem.
        message: String,
    },
    /// Several inputs could not be used: each one's first problem, in input order.
    #[error("{}\nerror: {} of the inputs could not be used", .0.iter().map(|e| format!("error: {e}")).collect::<Vec<_>>().join("\n"), .0.len())]
    Many(Vec<InputError>),
}

impl InputError {
    /// One error for the problems of several inputs: none, the one, or [`InputError::Many`].
    pub fn gather(mut errors: Vec<InputError>) -> Result<(), InputError> {
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(InputError::Many(errors)),
        }
    }
}

/// `256 MiB`, `1.5 KiB`, `10 bytes`: a size for messages.
fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let text = format!("{v:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {}", UNITS[unit])
}

/// One object read from a manifest.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// Where it came from.
    pub source: Source,
    /// Position among all objects read, in input order.
    pub seq: usize,
    /// The object.
    pub obj: T,
}

/// Everything read from the `-f` arguments, by kind, in input order.
#[derive(Debug, Default)]
pub struct Inventory {
    /// Nodes.
    pub nodes: Vec<Loaded<Node>>,
    /// Pods.
    pub pods: Vec<Loaded<Pod>>,
    /// Workloads.
    pub workloads: Vec<Loaded<Workload>>,
    /// Namespaces.
    pub namespaces: Vec<Loaded<Namespace>>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<Loaded<PodDisruptionBudget>>,
    /// PriorityClasses.
    pub priority_classes: Vec<Loaded<PriorityClass>>,
    /// Node pools: Karpenter NodePools (`karpenter.sh/v1`, `v1beta1`), eksctl ClusterConfigs
    /// (`eksctl.io/v1alpha5`), AKS agent pools (`az aks nodepool show`/`list` output) and EKS
    /// managed node groups (`aws eks describe-nodegroup` output), as written.
    pub node_pools: Vec<Loaded<Value>>,
    /// Karpenter NodeClaims (`karpenter.sh/v1`, `v1beta1`), as written.
    pub node_claims: Vec<Loaded<Value>>,
    /// Karpenter node classes (`EC2NodeClass`, `AKSNodeClass`, any kind named `*NodeClass`):
    /// where each was read, its kind and its name. Otherwise skipped as kinds repel does not
    /// use; `repel lint` checks NodePools' `nodeClassRef` against them.
    pub node_classes: Vec<(Source, String, String)>,
    /// Where each `Kind/namespace/name` was read, to refuse duplicates.
    seen: std::collections::HashMap<String, Source>,
    /// Notes for the user (legacy apiVersions read, and after [`Inventory::finish`] the
    /// skipped kinds).
    pub warnings: Vec<String>,
    /// Objects with unknown or duplicate fields, in input order (see [`Validate`]).
    pub strict: Vec<StrictReport>,
    /// Objects skipped (kinds repel does not use), one line each, in input order.
    pub skipped: Vec<String>,
    /// How many objects of each skipped kind.
    skipped_kinds: std::collections::BTreeMap<String, usize>,
    /// `--strict-nodes`, handed to the cluster built from it ([`ClusterInput::strict_nodes`]).
    pub strict_nodes: bool,
    /// Seed for names generated from `metadata.generateName`.
    seed: u64,
    /// One name generator per `generateName` stream (kind, namespace, base).
    name_streams: std::collections::HashMap<String, repel_core::workload::NameRng>,
}

/// Adds `item` to `list`, or, when it was `again` defined, puts it in the place of the object
/// `same` finds there (keeping that one's position in input order).
fn put<T>(list: &mut Vec<Loaded<T>>, item: Loaded<T>, again: bool, same: impl Fn(&T) -> bool) {
    if again && let Some(slot) = list.iter_mut().find(|l| same(&l.obj)) {
        let seq = slot.seq;
        *slot = item;
        slot.seq = seq;
        return;
    }
    list.push(item);
}

/// A raw document of one file, kept for rewriting (`repel taint`).
#[derive(Debug, Clone)]
pub struct RawDoc {
    /// 1-based document number.
    pub doc: usize,
    /// The parsed document.
    pub value: Value,
    /// Keys it repeats (the last value is kept), by path (`metadata.name`), in document order.
    pub duplicates: Vec<String>,
}

/// The most repel reads of one input (a manifest, a scenario, a file a scenario names, standard
/// input): 256 MiB. Eleven times upstream's largest cluster (5,000 nodes and 150,000 pods are
/// 23 MB of generated YAML), and small enough that its parsed objects fit in 4 GB (a 257 MB
/// file of manifests peaks at 3.2 GB while read); what is longer — a device such as
/// `/dev/zero`, a FIFO that never ends, a runaway file — stops there with
/// [`InputError::TooLarge`] instead of filling memory.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// The environment variable that replaces [`MAX_INPUT_BYTES`] (a number of bytes), for inputs
/// larger still and for tests, which keep their memory small with a small limit.
pub const MAX_INPUT_BYTES_ENV: &str = "REPEL_MAX_INPUT_BYTES";

/// The limit in force: [`MAX_INPUT_BYTES_ENV`] when set, else [`MAX_INPUT_BYTES`].
pub fn max_input_bytes() -> Result<u64, InputError> {
    match std::env::var(MAX_INPUT_BYTES_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(MAX_INPUT_BYTES),
        Ok(v) => v.trim().parse().map_err(|_| InputError::Limit { value: v }),
        Err(std::env::VarError::NotUnicode(v)) => Err(InputError::Limit {
            value: v.to_string_lossy().into_owned(),
        }),
    }
}

/// Reads text from a path, or stdin for `-`, at most [`max_input_bytes`] of it.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    read_text_limited(path, max_input_bytes()?)
}

/// [`read_text`] with an explicit limit: a longer input is [`InputError::TooLarge`], found
/// without reading a regular file whose size says so, and after `limit + 1` bytes of anything
/// else (a device, a FIFO, standard input), so an endless input stops there.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, InputError> {
    let name = path.display().to_string();
    let io = |err| InputError::Io {
        path: name.clone(),
        err,
    };
    let too_large = || InputError::TooLarge {
        path: name.clone(),
        limit,
    };
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    } else {
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        if size.is_some_and(|len| len > limit) {
            return Err(too_large());
        }
        // A regular file's text is read into a buffer of its size (and one byte to see the
        // end), not grown by doubling: a 20 MB file was copied from buffer to buffer and
        // faulted in twice over.
        if let Some(len) = size.and_then(|len| usize::try_from(len).ok()) {
            bytes.reserve_exact(len.saturating_add(1));
        }
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    }
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    // The error `read_to_string` gives, as before the limit.
    String::from_utf8(bytes).map_err(|_| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Expands `-f` arguments: a directory gives its `.yaml`, `.yml` and `.json` files in name order,
/// and with `recursive` those of its subdirectories too (kubectl's `-R`).
pub fn expand_paths(args: &[PathBuf], recursive: bool) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            expand_dir(p, recursive, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn expand_dir(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    let io = |err| InputError::Io {
        path: dir.display().to_string(),
        err,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for f in entries {
        if f.is_dir() {
            if recursive {
                expand_dir(&f, recursive, out)?;
            }
        } else if matches!(
            f.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(f);
        }
    }
    Ok(())
}

/// The YAML reader's error in the user's words: a breached reading limit says which limit and
/// where (not the library's `budget breached: Depth { depth: 65 }`), and the snippet names the
/// file (not `<input>`).
fn yaml_message(file: &str, e: &serde_saphyr::Error) -> String {
    use serde_saphyr::budget::BudgetBreach;
    if let serde_saphyr::Error::Budget { breach, location } = e.without_snippet() {
        let at = format!("line {} column {}", location.line(), location.column());
        return match breach {
            BudgetBreach::Depth { .. } => {
                format!("{at}: mappings and lists nested more than 64 deep, the most repel reads")
            }
            BudgetBreach::Aliases { .. } | BudgetBreach::Anchors { .. } => format!(
                "{at}: more anchors or aliases than repel reads in one input (an alias bomb?)"
            ),
            _ => format!("{at}: more YAML than repel reads in one input"),
        };
    }
    e.to_string().replace("<input>", file)
}

/// Splits a file's text into documents: JSON (one or more concatenated values) when it starts
/// with `{` or `[`, else YAML (multi-document; empty documents skipped).
pub fn parse_documents(file: &str, text: &str) -> Result<Vec<RawDoc>, InputError> {
    parse_documents_with::<()>(file, text, &|_| None)
        .map(|docs| docs.into_iter().map(|(doc, _)| doc).collect())
}

/// [`parse_documents`], with `hook` run on each YAML document that repeats no key on the
/// thread that read it (see [`yaml::parse_stream_with`]; JSON documents get `None`).
fn parse_documents_with<T: Send>(
    file: &str,
    text: &str,
    hook: yaml::Hook<'_, T>,
) -> Result<Vec<(RawDoc, Option<T>)>, InputError> {
    let trimmed = text.trim_start();
    let (values, duplicates): (yaml::Hooked<T>, yaml::Duplicates) =
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            repel_api::strict::parse_json_stream(text)
                .map(|(v, d)| (v.into_iter().map(|v| (v, None)).collect(), d))
                .map_err(|e| InputError::Syntax {
                    file: file.to_string(),
                    message: format!("invalid JSON: {e}"),
                })?
        } else {
            yaml::parse_stream_with(text, hook).map_err(|e| InputError::Syntax {
                file: file.to_string(),
                message: format!("invalid YAML: {}", yaml_message(file, &e)),
            })?
        };
    let mut duplicates = duplicates.into_iter().peekable();
    // Sized at once: the filter below hides the count from `collect`, which would grow the
    // list by doubling (tens of thousands of documents copied again each time).
    let mut docs = Vec::with_capacity(values.len());
    docs.extend(
        values
            .into_iter()
            .enumerate()
            .map(|(i, (value, t))| {
                let mut dups = Vec::new();
                while let Some((_, path)) = duplicates.next_if(|(d, _)| *d == i) {
                    dups.push(path);
                }
                (i, value, dups, t)
            })
            .filter(|(_, v, _, _)| !v.is_null())
            .map(|(i, value, duplicates, t)| {
                (
                    RawDoc {
                        doc: i + 1,
                        value,
                        duplicates,
                    },
                    t,
                )
            }),
    );
    Ok(docs)
}

/// The [`Hook`](yaml::Hook) of [`Inventory::load_seeded`]: a document that is one object of a
/// kept kind, with its name, a current apiVersion, and a typed form without unknown fields, is
/// decoded on the thread that read it ([`decode`]) and kept only as the fields reading goes on
/// to look at (apiVersion, kind, metadata's name and namespace): a file of 150,000 pods' worth
/// of workloads is then never held whole as values beside its typed objects. Anything else
/// (an error, unknown fields, a generated name, a legacy apiVersion, a list) is left whole,
/// for the reading in order to answer as before.
fn decode_early(v: &mut Value) -> Option<Decoded> {
    let kind = v.get("kind")?.as_str()?;
    let api = v.get("apiVersion")?.as_str()?;
    if !KNOWN_KINDS.contains(&kind)
        || LEGACY_API_VERSIONS
            .iter()
            .any(|(k, old, _)| *k == kind && *old == api)
    {
        return None;
    }
    let meta = v.get("metadata")?.as_object()?;
    let name = meta.get("name")?.as_str().filter(|n| !n.is_empty())?;
    let namespace = meta.get("namespace");
    // The source is the file's reading's to name: only a clean result is kept.
    let nowhere = Source {
        file: "".into(),
        doc: 0,
        item: None,
    };
    let decoded = decode(&nowhere, kind, v);
    if !matches!(&decoded, Ok(Ok((_, unknown))) if unknown.is_empty()) {
        return None;
    }
    let mut kept_meta = serde_json::Map::new();
    kept_meta.insert("name".into(), Value::String(name.to_string()));
    if let Some(ns) = namespace {
        kept_meta.insert("namespace".into(), ns.clone());
    }
    let mut kept = serde_json::Map::new();
    kept.insert("apiVersion".into(), Value::String(api.to_string()));
    kept.insert("kind".into(), Value::String(kind.to_string()));
    kept.insert("metadata".into(), Value::Object(kept_meta));
    *v = Value::Object(kept);
    Some(decoded)
}

/// `Kind name` of a raw object, for messages.
pub fn describe_value(v: &Value) -> Option<String> {
    let kind = v.get("kind")?.as_str()?;
    let name = v
        .at(&["metadata", "name"])
        .and_then(Value::as_str)
        .unwrap_or("<no name>");
    Some(format!("{kind} {name}"))
}

/// Deserialises a typed object, naming the failing field, and lists the fields the type does
/// not declare (upstream's unknown fields
/// under strict field validation), by path, in document order.
///
/// Most objects decode: they are decoded once without following the path (which copies every
/// field name the decoder meets), and only an object that fails is decoded again following it,
/// for the message (decoding is deterministic: it fails again, at the same field).
pub fn typed_strict<T: DeserializeOwned>(
    source: &Source,
    v: &Value,
) -> Result<(T, Vec<String>), InputError> {
    if let (Ok(obj), unknown) = repel_api::strict::decode::<T, _>(v) {
        return Ok((obj, unknown));
    }
    let mut track = serde_path_to_error::Track::new();
    let (result, unknown) =
        repel_api::strict::decode::<T, _>(serde_path_to_error::Deserializer::new(v, &mut track));
    match result {
        Ok(obj) => Ok((obj, unknown)),
        Err(inner) => {
            let path = track.path().to_string();
            let inner = plain_type_error(&inner.to_string());
            Err(InputError::Object {
                at: source.clone(),
                what: describe_value(v),
                message: if path == "." {
                    inner
                } else {
                    format!("{path}: {inner}")
                },
            })
        }
    }
}

/// A decoding error in a manifest's words, not Rust's: `invalid type: string "30", expected
/// i64` becomes `invalid type: got a string ("30"), expected an integer (write the number
/// without quotes)`; serde's type names (`i64`, `u32`, `f64`, `a sequence`, `a map`, `struct
/// Toleration`) become the manifest's (an integer, a number, a list, a mapping).
pub fn plain_type_error(msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("invalid type: ") else {
        return msg.to_string();
    };
    let Some((got, expected)) = rest.split_once(", expected ") else {
        return msg.to_string();
    };
    let expected_words = match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32" | "u64" | "u128" | "isize"
        | "usize" => "an integer",
        "f32" | "f64" => "a number",
        "a sequence" => "a list",
        "a map" => "a mapping",
        "a boolean" => "a boolean (true or false)",
        e if e.starts_with("struct ") || e.starts_with("a map ") => "a mapping",
        e => e,
    };
    let (kind, value) = match got.split_once(' ') {
        Some((k, v)) => (k, Some(v.trim_matches('`'))),
        None => (got, None),
    };
    let kind_words = match kind {
        "string" => "a string",
        "integer" => "an integer",
        "floating" => "a number",
        "boolean" => "a boolean",
        "sequence" => "a list",
        "map" => "a mapping",
        "null" | "unit" => "null",
        other => other,
    };
    let got_words = match value {
        Some(v) if kind == "floating" => format!("a number ({})", v.trim_start_matches("point ")),
        Some(v) => format!("{kind_words} ({v})"),
        None => kind_words.to_string(),
    };
    let hint = if kind == "string" && matches!(expected_words, "an integer" | "a number") {
        " (write the number without quotes)"
    } else {
        ""
    };
    format!("invalid type: got {got_words}, expected {expected_words}{hint}")
}

/// How unknown and duplicate fields are answered: kubectl's `--validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Validate {
    /// Errors, as the API server's strict field validation refuses the object (`true` too).
    #[value(alias = "true")]
    Strict,
    /// One warning per object on stderr.
    Warn,
    /// Not looked at (`false` too).
    #[value(alias = "false")]
    Ignore,
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
    pub validate: Validate,
}

/// An object with unknown or duplicate fields: what the API server's strict field validation
/// answers for it.
#[derive(Debug, Clone)]
pub struct StrictReport {
    /// Where it was read.
    pub source: Source,
    /// `Kind/namespace/name` (`Kind/name` when cluster-scoped).
    pub object: String,
    /// `Kind name`.
    pub what: String,
    /// The fields, in document order.
    pub errors: Vec<repel_api::strict::StrictError>,
    /// Upstream's message: `Pod in version "v1" cannot be handled as a Pod: strict decoding
    /// error: unknown field "spec.foo"`.
    pub message: String,
}

impl StrictReport {
    /// What kubectl prints when the API server refuses the object (`kubectl apply` / `create`
    /// with `--validate=strict`).
    pub fn kubectl_error(&self) -> String {
        format!(
            "Error from server (BadRequest): error when creating {}: {}",
            repel_core::validation::go_quote(&self.source.file),
            self.message
        )
    }

    /// One warning line for the object.
    pub fn warning(&self) -> String {
        let fields: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
        format!("{} ({}): {}", self.source, self.what, fields.join(", "))
    }
}

/// The report of an object of `kind` read as `api_version` with unknown fields `unknown` and
/// repeated keys `duplicates`; `None` when it has neither.
pub fn strict_report(
    source: &Source,
    kind: &str,
    api_version: &str,
    v: &Value,
    unknown: Vec<String>,
    duplicates: Vec<String>,
) -> Option<StrictReport> {
    let errors = strict_errors(v, unknown, duplicates);
    if errors.is_empty() {
        return None;
    }
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    Some(StrictReport {
        source: source.clone(),
        object: String::new(),
        what: describe_value(v).unwrap_or_else(|| kind.to_string()),
        message: format!(
            "{kind} in version {} cannot be handled as a {kind}: {}",
            repel_core::validation::go_quote(version),
            repel_api::status::strict_errors_message(&errors)
        ),
        errors,
    })
}

/// Answers unknown and duplicate fields as `mode` says: a warning per object on stderr, or
/// kubectl's error for each (`Err`, the lines to print), or nothing.
pub fn answer_strict(reports: &[StrictReport], mode: Validate) -> Result<(), String> {
    match mode {
        Validate::Ignore => Ok(()),
        Validate::Warn => {
            for r in reports {
                eprintln!("warning: {}", r.warning());
            }
            Ok(())
        }
        Validate::Strict if reports.is_empty() => Ok(()),
        Validate::Strict => {
            let lines: Vec<String> = reports.iter().map(StrictReport::kubectl_error).collect();
            Err(lines.join("\n"))
        }
    }
}

/// The repeated keys of the object at `item` of `doc` (`None`: the document itself), with
/// paths from the object's root.
pub fn item_duplicates(doc: &RawDoc, item: Option<usize>) -> Vec<String> {
    match item {
        None => doc.duplicates.clone(),
        Some(i) => {
            let prefix = format!("items[{i}].");
            doc.duplicates
                .iter()
                .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
                .collect()
        }
    }
}

/// The unknown and duplicate fields of `v` in document order (a repeat comes right after the
/// field it repeats, as the key order of the value keeps first appearances); nothing inside
/// an unknown field, as upstream's decoder skips it whole.
fn strict_errors(
    v: &Value,
    unknown: Vec<String>,
    duplicates: Vec<String>,
) -> Vec<repel_api::strict::StrictError> {
    use repel_api::strict::StrictError;
    let under = |p: &str, u: &str| {
        p.strip_prefix(u)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    };
    let duplicates: Vec<String> = duplicates
        .into_iter()
        .filter(|d| !unknown.iter().any(|u| d == u || under(d, u)))
        .collect();
    if duplicates.is_empty() {
        return unknown.into_iter().map(StrictError::Unknown).collect();
    }
    // Each path's place in a walk of the value in key order.
    let mut order = std::collections::HashMap::new();
    fn walk(v: &Value, path: &str, order: &mut std::collections::HashMap<String, usize>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    let next = order.len();
                    order.entry(p.clone()).or_insert(next);
                    walk(child, &p, order);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{path}[{i}]"), order);
                }
            }
            _ => {}
        }
    }
    walk(v, "", &mut order);
    let place = |p: &str| order.get(p).copied().unwrap_or(usize::MAX / 2);
    let mut all: Vec<(usize, StrictError)> = unknown
        .into_iter()
        .map(|u| (place(&u) * 2, StrictError::Unknown(u)))
        .chain(
            duplicates
                .into_iter()
                .map(|d| (place(&d) * 2 + 1, StrictError::Duplicate(d))),
        )
        .collect();
    all.sort_by_key(|(at, _)| *at);
    all.into_iter().map(|(_, e)| e).collect()
}

/// Calls `f` for each object of a document, flattening `kind: List`.
pub fn for_each_object(
    file: &str,
    doc: &RawDoc,
    mut f: impl FnMut(Source, &Value) -> Result<(), InputError>,
) -> Result<(), InputError> {
    let top = Source {
        file: file.into(),
        doc: doc.doc,
        item: None,
    };
    // `az aks nodepool list` prints a list of agent pools.
    if let Some(items) = doc.value.as_array()
        && !items.is_empty()
        && items.iter().all(repel_core::pools::is_aks_pool)
    {
        for (i, item) in items.iter().enumerate() {
            f(
                Source {
                    item: Some(i),
                    ..top.clone()
                },
                item,
            )?;
        }
        return Ok(());
    }
    if !doc.value.is_object() {
        return Err(InputError::Object {
            at: top,
            what: None,
            message: "expected a Kubernetes object (a mapping with apiVersion and kind)".into(),
        });
    }
    let kind = doc.value.get("kind").and_then(Value::as_str);
    if kind.is_some_and(|k| k == "List" || k.ends_with("List")) {
        let Some(items) = doc.value.get("items").and_then(Value::as_array) else {
            return Err(InputError::Object {
                at: top,
                what: Some("List".into()),
                message: "items: missing field `items`".into(),
            });
        };
        for (i, item) in items.iter().enumerate() {
            f(
                Source {
                    item: Some(i),
                    ..top.clone()
                },
                item,
            )?;
        }
        Ok(())
    } else {
        f(top, &doc.value)
    }
}

/// Upstream `names.SimpleNameGenerator`: a generated name is the base (cut to 58 characters)
/// and 5 random characters.
pub const MAX_GENERATED_BASE: usize = 58;

/// The object's name: `metadata.name`, or one generated from `metadata.generateName` (`None`),
/// or the API server's error when neither is usable.
fn require_name(source: &Source, v: &Value) -> Result<Option<String>, InputError> {
    let generate = v
        .at(&["metadata", "generateName"])
        .and_then(Value::as_str)
        .filter(|g| !g.is_empty());
    let message = match v.at(&["metadata", "name"]) {
        Some(Value::String(n)) if !n.is_empty() => return Ok(None),
        None | Some(Value::Null) | Some(Value::String(_)) if generate.is_some() => {
            return Ok(generate.map(str::to_string));
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {
            "metadata.name: Required value: name or generateName is required".to_string()
        }
        Some(other) => format!(
            "metadata.name: invalid type: {other}, expected a string (YAML reads unquoted y, n, yes, no, on, off, true, false and numbers as such: quote the name)"
        ),
    };
    Err(InputError::Object {
        at: source.clone(),
        what: v.get("kind").and_then(Value::as_str).map(str::to_string),
        message,
    })
}

/// Workload apiVersions upstream removed (v1.16 and v1.25) that old repositories still hold,
/// with the current apiVersion of the kind. Their pod templates are the same; repel reads them
/// as the current version with one warning, as a user converting them would.
pub const LEGACY_API_VERSIONS: &[(&str, &str, &str)] = &[
    ("Deployment", "extensions/v1beta1", "apps/v1"),
    ("Deployment", "apps/v1beta1", "apps/v1"),
    ("Deployment", "apps/v1beta2", "apps/v1"),
    ("DaemonSet", "extensions/v1beta1", "apps/v1"),
    ("DaemonSet", "apps/v1beta2", "apps/v1"),
    ("ReplicaSet", "extensions/v1beta1", "apps/v1"),
    ("ReplicaSet", "apps/v1beta2", "apps/v1"),
    ("StatefulSet", "apps/v1beta1", "apps/v1"),
    ("StatefulSet", "apps/v1beta2", "apps/v1"),
    ("CronJob", "batch/v1beta1", "batch/v1"),
    ("CronJob", "batch/v2alpha1", "batch/v1"),
    ("PodDisruptionBudget", "policy/v1beta1", "policy/v1"),
];

/// Converts a legacy workload to its current apiVersion (see [`LEGACY_API_VERSIONS`]): the
/// apiVersion is replaced, and a missing `spec.selector` becomes the template's labels where the
/// old version's defaulting did that: `extensions/v1beta1` and `apps/v1beta1`
/// (`SetDefaults_Deployment` and the others in their `defaults.go`). `apps/v1beta2` made the
/// selector required and never defaulted it: such a workload without one stays invalid, as
/// the API server refused it (`spec.selector: Required value`). Returns the current apiVersion
/// when it converted.
fn convert_legacy(kind: &str, v: &mut Value) -> Option<&'static str> {
    let api = v.get("apiVersion").and_then(Value::as_str)?;
    let (_, old, current) = LEGACY_API_VERSIONS
        .iter()
        .find(|(k, old, _)| *k == kind && *old == api)?;
    v["apiVersion"] = Value::String((*current).to_string());
    if matches!(*old, "extensions/v1beta1" | "apps/v1beta1")
        && matches!(
            kind,
            "Deployment" | "DaemonSet" | "ReplicaSet" | "StatefulSet"
        )
        && v.at(&["spec", "selector"]).is_none_or(Value::is_null)
        && let Some(labels) = v.at(&["spec", "template", "metadata", "labels"]).cloned()
        && let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut)
    {
        spec.insert(
            "selector".to_string(),
            serde_json::json!({ "matchLabels": labels }),
        );
    }
    Some(current)
}

/// Upstream's message for a quantity that does not parse.
pub const QUANTITY_ERR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// The most pods one workload may ask for: repel simulates upstream's largest clusters (150,000
/// pods), not a typo's billions. A workload at the cap fits in 4 GB: `admit` makes, admits and
/// prints its pods one at a time (30 MB measured), and the commands that hold the cluster
/// (`schedule`) keep its pods sharing one admitted spec (2.1–2.8 GB measured; README, "CLI
/// input").
pub const MAX_REPLICAS: i64 = 1_000_000;

/// Checks what typed decoding lets through but the API server would not: every resource
/// quantity parses (requests, limits, overhead, pod-level resources, node capacity and
/// allocatable), and replica counts are between 0 and [`MAX_REPLICAS`].
fn check_object(source: &Source, kind: &str, v: &Value) -> Result<(), InputError> {
    let err = |field: String, message: String| InputError::Object {
        at: source.clone(),
        what: describe_value(v),
        message: format!("{field}: {message}"),
    };
    // Paths are made only for an error: most objects have none, and a big cluster's
    // containers are hundreds of thousands.
    let check_list = |path: &dyn Fn() -> String, list: Option<&Value>| -> Result<(), InputError> {
        let Some(map) = list.and_then(Value::as_object) else {
            return Ok(());
        };
        for (name, q) in map {
            let text: std::borrow::Cow<'_, str> = match q {
                Value::String(s) => s.as_str().into(),
                Value::Number(n) => n.to_string().into(),
                other => other.to_string().into(),
            };
            if repel_core::quantity::parse_quantity_nanos(&text).is_none() {
                return Err(err(
                    format!("{}.{name}", path()),
                    format!("Invalid value: {text:?}: {QUANTITY_ERR}"),
                ));
            }
        }
        Ok(())
    };
    let check_spec = |path: &str, spec: Option<&Value>| -> Result<(), InputError> {
        let Some(spec) = spec else { return Ok(()) };
        for list in ["containers", "initContainers"] {
            for (i, c) in spec
                .get(list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                for part in ["requests", "limits"] {
                    check_list(
                        &|| format!("{path}.{list}[{i}].resources.{part}"),
                        c.at(&["resources", part]),
                    )?;
                }
            }
        }
        check_list(&|| format!("{path}.overhead"), spec.get("overhead"))?;
        for part in ["requests", "limits"] {
            check_list(
                &|| format!("{path}.resources.{part}"),
                spec.at(&["resources", part]),
            )?;
        }
        Ok(())
    };
    match kind {
        "Node" => {
            check_list(
                &|| "status.allocatable".into(),
                v.at(&["status", "allocatable"]),
            )?;
            check_list(&|| "status.capacity".into(), v.at(&["status", "capacity"]))?;
        }
        "Pod" => check_spec("spec", v.get("spec"))?,
        "CronJob" => check_spec(
            "spec.jobTemplate.spec.template.spec",
            v.at(&["spec", "jobTemplate", "spec", "template", "spec"]),
        )?,
        _ => check_spec("spec.template.spec", v.at(&["spec", "template", "spec"]))?,
    }
    // apps/v1 requires a workload's selector (`ValidateDeploymentSpec` and the others:
    // `field.Required(fldPath.Child("selector"), "")`); the typed decoding would take a missing
    // one for an empty selector, which selects every pod.
    if matches!(
        kind,
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
    ) && v.at(&["spec", "selector"]).is_none_or(Value::is_null)
    {
        return Err(err("spec.selector".into(), "Required value".into()));
    }
    for field in ["replicas", "parallelism", "completions"] {
        if let Some(n) = v.at(&["spec", field]).and_then(Value::as_i64) {
            if n < 0 {
                return Err(err(
                    format!("spec.{field}"),
                    format!("Invalid value: {n}: must be greater than or equal to 0"),
                ));
            }
            if n > MAX_REPLICAS {
                return Err(err(
                    format!("spec.{field}"),
                    format!(
                        "{n} pods are more than repel simulates (at most {MAX_REPLICAS} per workload)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An object of a kind repel reads, typed (boxed: they are kilobytes, and move from thread to
/// thread).
enum Typed {
    Node(Box<Node>),
    Pod(Box<Pod>),
    Namespace(Box<Namespace>),
    Pdb(Box<PodDisruptionBudget>),
    PriorityClass(Box<PriorityClass>),
    /// (Each workload object is boxed within.)
    Workload(Workload),
}

/// The part of reading one object that depends on the object alone: its checks
/// ([`check_object`]) — the outer result — and, when they pass, its typed form with the fields
/// its type does not declare — the inner one (reported later than the checks', after the
/// object's name is found not to repeat another's). [`predecode`] computes it for a file's
/// documents on every core.
type Decoded = Result<Result<(Typed, Vec<String>), InputError>, InputError>;

/// Checks and decodes `v` as `kind` (one of the kinds [`Inventory::add`] keeps).
fn decode(source: &Source, kind: &str, v: &Value) -> Decoded {
    check_object(source, kind, v)?;
    Ok(typed_as(source, kind, v))
}

/// `v` typed as `kind`.
fn typed_as(source: &Source, kind: &str, v: &Value) -> Result<(Typed, Vec<String>), InputError> {
    Ok(match kind {
        "Node" => typed_strict(source, v).map(|(o, u)| (Typed::Node(Box::new(o)), u))?,
        "Pod" => typed_strict(source, v).map(|(o, u)| (Typed::Pod(Box::new(o)), u))?,
        "Namespace" => typed_strict(source, v).map(|(o, u)| (Typed::Namespace(Box::new(o)), u))?,
        "PodDisruptionBudget" => {
            typed_strict(source, v).map(|(o, u)| (Typed::Pdb(Box::new(o)), u))?
        }
        "PriorityClass" => {
            typed_strict(source, v).map(|(o, u)| (Typed::PriorityClass(Box::new(o)), u))?
        }
        _ => {
            let (workload, unknown) = match kind {
                "Deployment" => {
                    typed_strict(source, v).map(|(o, u)| (Workload::Deployment(o), u))?
                }
                "ReplicaSet" => {
                    typed_strict(source, v).map(|(o, u)| (Workload::ReplicaSet(o), u))?
                }
                "StatefulSet" => {
                    typed_strict(source, v).map(|(o, u)| (Workload::StatefulSet(o), u))?
                }
                "DaemonSet" => typed_strict(source, v).map(|(o, u)| (Workload::DaemonSet(o), u))?,
                "Job" => typed_strict(source, v).map(|(o, u)| (Workload::Job(o), u))?,
                "ReplicationController" => {
                    let (mut rc, u) = typed_strict(source, v)?;
                    repel_core::workload::set_defaults_replication_controller(&mut rc);
                    (Workload::from(rc), u)
                }
                _ => typed_strict(source, v).map(|(o, u)| (Workload::CronJob(o), u))?,
            };
            (Typed::Workload(workload), unknown)
        }
    })
}

/// The kinds [`Inventory::add`] keeps (anything else is skipped with a warning).
const KNOWN_KINDS: [&str; 12] = [
    "Node",
    "Pod",
    "Namespace",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
    "PodDisruptionBudget",
    "PriorityClass",
];

/// Below this many documents a file is decoded on one core (threads cost more than they save).
const PREDECODE_MIN_DOCS: usize = 512;

/// [`decode`] for each document of a file that is one object of a kept kind, on every core:
/// the typed decoding and checks are most of reading a big file after its YAML. `None` for a
/// document that is not (a `List`, an unknown kind), which is read as before, in order.
fn predecode(file: &str, docs: &[RawDoc], have: Vec<Option<Decoded>>) -> Vec<Option<Decoded>> {
    let one = |doc: &RawDoc| -> Option<Decoded> {
        let kind = doc.value.get("kind")?.as_str()?;
        if !KNOWN_KINDS.contains(&kind) {
            return None;
        }
        let source = Source {
            file: file.into(),
            doc: doc.doc,
            item: None,
        };
        Some(decode(&source, kind, &doc.value))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8);
    let missing = have.iter().filter(|d| d.is_none()).count();
    if threads < 2 || missing < PREDECODE_MIN_DOCS || have.len() != docs.len() {
        return have;
    }
    let chunk = docs.len().div_ceil(threads);
    let mut have = have;
    std::thread::scope(|s| {
        let handles: Vec<_> = docs
            .chunks(chunk)
            .zip(have.chunks_mut(chunk))
            .map(|(part, done)| {
                s.spawn(move || {
                    for (doc, d) in part.iter().zip(done) {
                        if d.is_none() {
                            *d = one(doc);
                        }
                    }
                })
            })
            .collect();
        // A thread that failed leaves its documents to be read in order.
        for h in handles {
            let _ = h.join();
        }
    });
    have
}

impl Inventory {
    /// An empty inventory whose generated names come from `seed`.
    pub fn with_seed(seed: u64) -> Inventory {
        Inventory {
            seed,
            ..Inventory::default()
        }
    }

    /// Reads every `-f` argument (generated names from seed 0).
    pub fn load(paths: &[PathBuf], recursive: bool) -> Result<Inventory, InputError> {
        Inventory::load_seeded(paths, recursive, 0)
    }

    /// Reads every `-f` argument; names generated from `metadata.generateName` come from `seed`.
    pub fn load_seeded(
        paths: &[PathBuf],
        recursive: bool,
        seed: u64,
    ) -> Result<Inventory, InputError> {
        let paths = expand_paths(paths, recursive)?;
        // The next files are read on another thread while this one is parsed: two ahead at
        // most (one waiting in the channel, one read and waiting to be sent), so that a small
        // file between two large ones does not stop the reading. The reader stops when the
        // reading here ends early (an error), as its next send then fails.
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move || {
                for p in paths {
                    let text = read_text(&p);
                    if tx.send((p, text)).is_err() {
                        break;
                    }
                }
            });
            Inventory::load_texts(rx, seed)
        })
    }

    /// Reads the files' texts in the order they arrive (each with its path).
    fn load_texts(
        texts: std::sync::mpsc::Receiver<(PathBuf, Result<String, InputError>)>,
        seed: u64,
    ) -> Result<Inventory, InputError> {
        let mut inv = Inventory::with_seed(seed);
        // Every file is read: a file that cannot be used is reported (its first problem) and
        // the others are still read, so that one run names every broken file of a directory.
        let mut errors = Vec::new();
        for (path, text) in texts {
            let file = path.display().to_string();
            if let Err(e) = text.and_then(|text| inv.load_text(&file, &text)) {
                errors.push(e);
            }
        }
        InputError::gather(errors)?;
        Ok(inv)
    }

    /// Reads one file's text into the inventory.
    fn load_text(&mut self, file: &str, text: &str) -> Result<(), InputError> {
        let (docs, early): (Vec<RawDoc>, Vec<Option<Decoded>>) =
            parse_documents_with(file, text, &decode_early)?
                .into_iter()
                .unzip();
        self.reserve_for(&docs);
        let mut decoded = predecode(file, &docs, early).into_iter();
        for doc in docs {
            let mut pre = decoded.next().flatten();
            for_each_object(file, &doc, |source, v| {
                let duplicates = item_duplicates(&doc, source.item);
                // Decoded ahead only when the document is this one object.
                let pre = if source.item.is_none() {
                    pre.take()
                } else {
                    None
                };
                self.add_decoded(source, v, duplicates, pre)
            })?;
        }
        Ok(())
    }

    /// Makes room for the objects of `docs` by kind, so that a file of tens of thousands of
    /// workloads (kilobytes each) is not copied each time its list doubles.
    fn reserve_for(&mut self, docs: &[RawDoc]) {
        let (mut nodes, mut pods, mut workloads) = (0, 0, 0);
        for doc in docs {
            match doc.value.get("kind").and_then(Value::as_str) {
                Some("Node") => nodes += 1,
                Some("Pod") => pods += 1,
                Some(
                    "Deployment"
                    | "ReplicaSet"
                    | "StatefulSet"
                    | "DaemonSet"
                    | "Job"
                    | "CronJob"
                    | "ReplicationController",
                ) => workloads += 1,
                _ => {}
            }
        }
        self.nodes.reserve(nodes);
        self.pods.reserve(pods);
        self.workloads.reserve(workloads);
        self.seen.reserve(nodes + pods + workloads);
    }

    /// Adds one object by its kind; unknown kinds become warnings.
    pub fn add(&mut self, source: Source, v: &Value) -> Result<(), InputError> {
        self.add_with_duplicates(source, v, Vec::new())
    }

    /// [`Inventory::add`] for an object whose document repeated the keys `duplicates` (paths
    /// from the object's root); they and its unknown fields go to [`Inventory::strict`].
    pub fn add_with_duplicates(
        &mut self,
        source: Source,
        v: &Value,
        duplicates: Vec<String>,
    ) -> Result<(), InputError> {
        self.add_decoded(source, v, duplicates, None)
    }

    /// [`Inventory::add_with_duplicates`] with the object's [`Decoded`] checks and typed form
    /// when they were computed ahead (on another core) from this same value.
    fn add_decoded(
        &mut self,
        source: Source,
        v: &Value,
        duplicates: Vec<String>,
        pre: Option<Decoded>,
    ) -> Result<(), InputError> {
        if repel_core::pools::is_aks_pool(v) || repel_core::pools::is_eks_nodegroup(v) {
            return self.add_agent_pool(source, v);
        }
        let Some(kind) = v.get("kind").and_then(Value::as_str) else {
            return Err(InputError::Object {
                at: source,
                what: None,
                message: "kind: Required value: every object needs a kind".into(),
            });
        };
        let api = v
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind == "NodePool" && (api == "karpenter.sh/v1" || api == "karpenter.sh/v1beta1")
            || kind == "ClusterConfig" && api == "eksctl.io/v1alpha5"
        {
            return self.add_node_pool(source, v, kind, api);
        }
        if kind == "NodeClaim" && (api == "karpenter.sh/v1" || api == "karpenter.sh/v1beta1") {
            let before = self.node_pools.len();
            self.add_node_pool(source, v, kind, api)?;
            // Read like a NodePool (named, once), kept apart.
            if self.node_pools.len() > before
                && let Some(c) = self.node_pools.pop()
            {
                self.node_claims.push(c);
            }
            return Ok(());
        }
        if !KNOWN_KINDS.contains(&kind) {
            if kind.ends_with("NodeClass")
                && let Some(name) = v.pointer("/metadata/name").and_then(Value::as_str)
            {
                self.node_classes
                    .push((source.clone(), kind.to_string(), name.to_string()));
            }
            self.skipped.push(format!(
                "{source}: skipping {}: kind {kind} is not used by repel",
                describe_value(v).unwrap_or_else(|| kind.to_string())
            ));
            *self.skipped_kinds.entry(kind.to_string()).or_default() += 1;
            return Ok(());
        }
        let generate = require_name(&source, v)?;
        // A legacy apiVersion or a generated name: work on a copy.
        let mut owned: Option<Value> = None;
        let api = v
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if LEGACY_API_VERSIONS
            .iter()
            .any(|(k, old, _)| *k == kind && *old == api)
        {
            let mut edited = v.clone();
            if let Some(current) = convert_legacy(kind, &mut edited) {
                self.warnings.push(format!(
                    "{source} ({kind} {}): apiVersion {api} is no longer served; read as {current}",
                    v.at(&["metadata", "name"])
                        .and_then(Value::as_str)
                        .or(generate.as_deref())
                        .unwrap_or_default(),
                ));
            }
            owned = Some(edited);
        }
        if let Some(base) = generate {
            let mut obj = owned.take().unwrap_or_else(|| v.clone());
            let name = self.generate_name(kind, &obj, &base);
            if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("name".to_string(), Value::String(name));
            }
            owned = Some(obj);
        }
        // Decoded ahead from the value as given: valid only when nothing above edited it.
        let decoded = match (pre, &owned) {
            (Some(d), None) => d,
            _ => decode(&source, kind, owned.as_ref().unwrap_or(v)),
        };
        let v = owned.as_ref().unwrap_or(v);
        let typed = decoded?;
        let ns = match kind {
            "Node" | "Namespace" | "PriorityClass" => None,
            _ => Some(
                v.at(&["metadata", "namespace"])
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .unwrap_or("default"),
            ),
        };
        let name = v
            .at(&["metadata", "name"])
            .and_then(Value::as_str)
            .unwrap_or_default();
        // `Kind ns/name` (`Kind name` for cluster-scoped kinds); the report's is `Kind/…`.
        let named = |sep: char| match ns {
            Some(ns) => format!("{kind}{sep}{ns}/{name}"),
            None => format!("{kind}{sep}{name}"),
        };
        let id = named(' ');
        let again = self.defined_again(&id, &source);
        let seq = self.nodes.len()
            + self.pods.len()
            + self.workloads.len()
            + self.namespaces.len()
            + self.pdbs.len()
            + self.priority_classes.len();
        fn w<T>(obj: T, source: &Source, seq: usize) -> Loaded<T> {
            Loaded {
                source: source.clone(),
                seq,
                obj,
            }
        }
        let strict =
            |unknown: Vec<String>| strict_report(&source, kind, api, v, unknown, duplicates);
        let (typed, unknown) = typed?;
        let ns = ns.unwrap_or_default();
        let same = |m: &ObjectMeta| {
            m.name.as_deref() == Some(name)
                && m.namespace
                    .as_deref()
                    .filter(|n| !n.is_empty())
                    .unwrap_or("default")
                    == ns
        };
        let named_so = |m: &ObjectMeta| m.name.as_deref() == Some(name);
        match typed {
            Typed::Node(obj) => put(&mut self.nodes, w(*obj, &source, seq), again, |o| {
                named_so(&o.metadata)
            }),
            Typed::Pod(obj) => put(&mut self.pods, w(*obj, &source, seq), again, |o| {
                same(&o.metadata)
            }),
            Typed::Namespace(obj) => put(&mut self.namespaces, w(*obj, &source, seq), again, |o| {
                named_so(&o.metadata)
            }),
            Typed::Pdb(obj) => put(&mut self.pdbs, w(*obj, &source, seq), again, |o| {
                same(&o.metadata)
            }),
            Typed::PriorityClass(obj) => put(
                &mut self.priority_classes,
                w(*obj, &source, seq),
                again,
                |o| named_so(&o.metadata),
            ),
            Typed::Workload(obj) => put(&mut self.workloads, w(obj, &source, seq), again, |o| {
                o.kind() == kind && same(o.metadata())
            }),
        }
        let report = strict(unknown);
        if let Some(mut report) = report {
            report.object = named('/');
            self.strict.push(report);
        }
        Ok(())
    }

    /// An AKS agent pool (`az aks nodepool show` output, named at its root) or an EKS managed
    /// node group (`aws eks describe-nodegroup` output), once.
    fn add_agent_pool(&mut self, source: Source, v: &Value) -> Result<(), InputError> {
        let id = match v["name"].as_str() {
            Some(name) => format!("agent pool {name}"),
            None => format!(
                "nodegroup {}",
                v["nodegroup"]["nodegroupName"].as_str().unwrap_or_default()
            ),
        };
        let again = self.defined_again(&id, &source);
        let seq = self.nodes.len() + self.pods.len() + self.workloads.len() + self.node_pools.len();
        let name = v["name"].as_str().map(str::to_string);
        let group = v["nodegroup"]["nodegroupName"].clone();
        put(
            &mut self.node_pools,
            Loaded {
                source,
                seq,
                obj: v.clone(),
            },
            again,
            |o| match &name {
                Some(n) => o["name"].as_str() == Some(n),
                None => o["nodegroup"]["nodegroupName"] == group,
            },
        );
        Ok(())
    }

    /// Whether `id` was read before; if so, warns that the later definition is the one read.
    /// `kubectl apply -f DIR` applies every file in turn, so an object defined in two files (a
    /// repository of alternatives) is created by the first and updated by the second: the
    /// second is what the cluster holds.
    fn defined_again(&mut self, id: &str, source: &Source) -> bool {
        match self.seen.insert(id.to_string(), source.clone()) {
            Some(first) => {
                self.warnings.push(format!(
                    "{source}: {id} is defined again (first at {first}); the later definition is read, as kubectl apply would update the object with it"
                ));
                true
            }
            None => false,
        }
    }

    /// A Karpenter NodePool, or an eksctl ClusterConfig (its node groups): named, once;
    /// `v1beta1` NodePools read as `v1` with a warning (the template's taints, startup taints
    /// and labels are where they were).
    fn add_node_pool(
        &mut self,
        source: Source,
        v: &Value,
        kind: &str,
        api: &str,
    ) -> Result<(), InputError> {
        if require_name(&source, v)?.is_some() {
            return Err(InputError::Object {
                at: source,
                what: describe_value(v),
                message: format!(
                    "metadata.name: Required value: a {kind} needs a name (generateName is not read)"
                ),
            });
        }
        let name = v
            .at(&["metadata", "name"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let id = format!("{kind} {name}");
        let again = self.defined_again(&id, &source);
        if api == "karpenter.sh/v1beta1" {
            self.warnings.push(format!(
                "{source} ({kind} {name}): apiVersion karpenter.sh/v1beta1 is no longer served by Karpenter v1; read as karpenter.sh/v1"
            ));
        }
        let seq = self.nodes.len() + self.pods.len() + self.workloads.len() + self.node_pools.len();
        put(
            &mut self.node_pools,
            Loaded {
                source,
                seq,
                obj: v.clone(),
            },
            again,
            |o| {
                o.at(&["kind"]).and_then(Value::as_str) == Some(kind)
                    && o.at(&["metadata", "name"]).and_then(Value::as_str) == Some(&name)
            },
        );
        Ok(())
    }

    /// A name for an object with `metadata.generateName` `base`, as the API server makes it
    /// (upstream `SimpleNameGenerator.GenerateName`: the base cut to
    /// [`MAX_GENERATED_BASE`] characters, then 5 characters of upstream's alphabet), drawn from
    /// the inventory's seed; a name already taken is drawn again, as the API server retries a
    /// generated name that already exists.
    fn generate_name(&mut self, kind: &str, v: &Value, base: &str) -> String {
        let ns = match kind {
            "Node" | "Namespace" | "PriorityClass" => String::new(),
            _ => v
                .at(&["metadata", "namespace"])
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .unwrap_or("default")
                .to_string(),
        };
        let base: String = base.chars().take(MAX_GENERATED_BASE).collect();
        let stream = format!("generateName/{kind}/{ns}/{base}");
        let seed = self.seed;
        let rng = self
            .name_streams
            .entry(stream)
            .or_insert_with_key(|k| repel_core::workload::NameRng::new(seed, k));
        let prefix = if ns.is_empty() {
            format!("{kind} ")
        } else {
            format!("{kind} {ns}/")
        };
        // 27^5 names per base: far more tries than objects, so this ends.
        loop {
            let name = format!("{base}{}", rng.suffix(5));
            if !self.seen.contains_key(&format!("{prefix}{name}")) {
                return name;
            }
        }
    }

    /// Ends reading: the skipped objects become one summary warning (`skipped 31 objects of
    /// kinds repel does not use: 23 CustomResourceDefinition, 3 ServiceAccount, …`), or with
    /// `verbose` one warning per object.
    pub fn finish(&mut self, verbose: bool) {
        if self.skipped.is_empty() {
            return;
        }
        if verbose {
            self.warnings.append(&mut self.skipped);
            return;
        }
        let total = self.skipped.len();
        let mut kinds: Vec<(&String, &usize)> = self.skipped_kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        self.warnings.push(format!(
            "skipped {total} object{} of kinds repel does not use: {} (-v lists them)",
            if total == 1 { "" } else { "s" },
            list.join(", ")
        ));
    }

    /// Whether nothing usable was read.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
            && self.pods.is_empty()
            && self.workloads.is_empty()
            && self.namespaces.is_empty()
            && self.pdbs.is_empty()
            && self.priority_classes.is_empty()
            && self.node_pools.is_empty()
            && self.node_claims.is_empty()
    }

    /// The pod template specs of the input's DaemonSets (Karpenter's DaemonSet overhead).
    pub fn daemon_set_specs(&self) -> Vec<k8s_openapi::api::core::v1::PodSpec> {
        self.workloads
            .iter()
            .filter(|w| matches!(w.obj, repel_core::workload::Workload::DaemonSet(_)))
            .filter_map(|w| w.obj.template().and_then(|(t, _)| t.spec.clone()))
            .collect()
    }

    /// The node pools of the input, read by their providers' rules (`Err`: the pool, its
    /// source and the field that could not be read).
    pub fn pools(&self) -> Result<Vec<repel_core::pools::Pool>, InputError> {
        Ok(self
            .pools_with_sources()?
            .into_iter()
            .map(|(p, _)| p)
            .collect())
    }

    /// [`Inventory::pools`], each with where it was read.
    pub fn pools_with_sources(&self) -> Result<Vec<(repel_core::pools::Pool, String)>, InputError> {
        use repel_core::pools::{
            Pool, aks_pool, eks_nodegroup, eksctl_pools, is_aks_pool, is_eks_nodegroup,
            karpenter_pool,
        };
        let mut pools: Vec<(Pool, String)> = Vec::new();
        for p in &self.node_pools {
            let (kind, name) = if is_aks_pool(&p.obj) {
                ("agent pool", p.obj["name"].as_str())
            } else if is_eks_nodegroup(&p.obj) {
                ("nodegroup", p.obj["nodegroup"]["nodegroupName"].as_str())
            } else {
                (
                    p.obj["kind"].as_str().unwrap_or_default(),
                    p.obj["metadata"]["name"].as_str(),
                )
            };
            let read = if is_aks_pool(&p.obj) {
                aks_pool(&p.obj).map(|pool| vec![pool])
            } else if is_eks_nodegroup(&p.obj) {
                eks_nodegroup(&p.obj).map(|pool| vec![pool])
            } else if kind == "ClusterConfig" {
                eksctl_pools(&p.obj)
            } else {
                karpenter_pool(&p.obj).map(|pool| vec![pool])
            };
            let read = read.map_err(|message| InputError::Object {
                at: p.source.clone(),
                what: Some(format!("{kind} {}", name.unwrap_or_default())),
                message,
            })?;
            pools.extend(read.into_iter().map(|x| (x, p.source.to_string())));
        }
        Ok(pools)
    }

    /// The objects a cluster is built from.
    pub fn cluster_input(&self) -> ClusterInput {
        ClusterInput {
            nodes: self.nodes.iter().map(|n| n.obj.clone()).collect(),
            pods: self.pods.iter().map(|p| p.obj.clone()).collect(),
            workloads: self.workloads.iter().map(|w| w.obj.clone()).collect(),
            namespaces: self.namespaces.iter().map(|n| n.obj.clone()).collect(),
            pdbs: self.pdbs.iter().map(|p| p.obj.clone()).collect(),
            priority_classes: self
                .priority_classes
                .iter()
                .map(|p| p.obj.clone())
                .collect(),
            // Read by [`Inventory::pools`], which can refuse them, by the commands that run
            // the pools' controllers.
            pools: Vec::new(),
            node_claims: self.node_claims.iter().map(|c| c.obj.clone()).collect(),
            instance_types: Default::default(),
            strict_nodes: self.strict_nodes,
        }
    }

    /// The objects a cluster is built from, moved out of the inventory (no copy of 150,000
    /// pods' worth of objects).
    pub fn into_cluster_input(self) -> ClusterInput {
        ClusterInput {
            nodes: self.nodes.into_iter().map(|n| n.obj).collect(),
            pods: self.pods.into_iter().map(|p| p.obj).collect(),
            workloads: self.workloads.into_iter().map(|w| w.obj).collect(),
            namespaces: self.namespaces.into_iter().map(|n| n.obj).collect(),
            pdbs: self.pdbs.into_iter().map(|p| p.obj).collect(),
            priority_classes: self.priority_classes.into_iter().map(|p| p.obj).collect(),
            pools: Vec::new(),
            node_claims: self.node_claims.into_iter().map(|c| c.obj).collect(),
            instance_types: Default::default(),
            strict_nodes: self.strict_nodes,
        }
    }

    /// The namespace object named `name`, if one was given.
    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.namespaces
            .iter()
            .map(|n| &n.obj)
            .find(|n| n.metadata.name.as_deref() == Some(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The objects of `text` read one by one without [`decode_early`]: every document whole,
    /// decoded in order ([`Inventory::add_with_duplicates`]).
    fn read_in_order(file: &str, text: &str) -> Result<Inventory, InputError> {
        let mut inv = Inventory::with_seed(0);
        for doc in parse_documents(file, text)? {
            for_each_object(file, &doc, |source, v| {
                let duplicates = item_duplicates(&doc, source.item);
                inv.add_with_duplicates(source, v, duplicates)
            })?;
        }
        Ok(inv)
    }

    fn fields(inv: &Inventory) -> Vec<String> {
        vec![
            format!("{:?}", inv.nodes),
            format!("{:?}", inv.pods),
            format!("{:?}", inv.workloads),
            format!("{:?}", inv.namespaces),
            format!("{:?}", inv.pdbs),
            format!("{:?}", inv.priority_classes),
            format!("{:?}", inv.warnings),
            format!("{:?}", inv.strict),
            format!("{:?}", inv.skipped),
        ]
    }

    /// Documents of every kind reading treats apart: clean objects (decoded early), unknown
    /// fields, a repeated key, a generated name, a legacy apiVersion, a list, a kind repel
    /// does not use, a namespace other than the default.
    const MIXED: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-N
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web-N
  template:
    metadata:
      labels:
        app: web-N
    spec:
      containers:
      - name: app
        image: web
        resources:
          requests:
            cpu: 100m
---
apiVersion: v1
kind: Pod
metadata:
  name: odd-N
  color: blue
spec:
  containers:
  - name: app
    image: app
---
apiVersion: v1
kind: Pod
metadata:
  name: twice-N
  name: twice-N
spec:
  containers:
  - name: app
    image: app
---
apiVersion: v1
kind: Pod
metadata:
  generateName: gen-N-
spec:
  containers:
  - name: app
    image: app
---
apiVersion: apps/v1beta1
kind: StatefulSet
metadata:
  name: old-N
spec:
  serviceName: old
  template:
    metadata:
      labels:
        app: old-N
    spec:
      containers:
      - name: app
        image: app
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: ns-N
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-N
---
apiVersion: v1
kind: Node
metadata:
  name: node-N
status:
  allocatable:
    cpu: \"4\"
    pods: \"110\"
";

    #[test]
    fn objects_decoded_early_read_as_objects_decoded_in_order() {
        // Small (one thread) and large enough for threads (several hundred documents).
        for copies in [1, 400] {
            let text: String = (0..copies)
                .map(|i| MIXED.replace("-N", &format!("-{i}")))
                .collect::<Vec<_>>()
                .join("---\n");
            let dir =
                std::env::temp_dir().join(format!("repel-early-{}-{copies}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("mixed.yaml");
            std::fs::write(&path, &text).unwrap();
            let file = path.display().to_string();
            let early = Inventory::load(std::slice::from_ref(&path), false).unwrap();
            let in_order = read_in_order(&file, &text).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            assert_eq!(early.workloads.len(), 2 * copies);
            assert_eq!(early.pods.len(), 3 * copies);
            assert!(!early.strict.is_empty() && !early.warnings.is_empty());
            assert_eq!(fields(&early), fields(&in_order), "{copies} copies");
        }
    }

    #[test]
    fn only_clean_objects_are_decoded_early_and_kept_thin() {
        let text = MIXED.replace("-N", "-1");
        let docs = parse_documents_with("mixed.yaml", &text, &decode_early).unwrap();
        let early: Vec<(String, bool)> = docs
            .iter()
            .map(|(d, t)| (describe_value(&d.value).unwrap_or_default(), t.is_some()))
            .collect();
        let want = [
            ("Deployment web-1", true),
            ("Pod odd-1", false),
            ("Pod twice-1", false),
            ("Pod <no name>", false),
            ("StatefulSet old-1", false),
            ("List <no name>", false),
            ("ConfigMap cm-1", false),
            ("Node node-1", true),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(d, e)| (d.to_string(), *e)).collect();
        assert_eq!(early, want);
        // What is kept of an object decoded early: what reading still looks at.
        assert_eq!(
            docs[0].0.value,
            serde_json::json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web-1", "namespace": "shop"}
            })
        );
    }

    #[test]
    fn an_object_refused_late_is_refused_as_in_order() {
        // A bad quantity is refused by the checks, and a name repeated is warned about: both
        // are named with their document, as reading in order names them.
        let good = MIXED.replace("-N", "-1");
        let bad = good.replace("cpu: 100m", "cpu: lots");
        let twice = format!("{good}---\n{good}");
        for text in [bad, twice] {
            let dir = std::env::temp_dir().join(format!("repel-late-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("bad.yaml");
            std::fs::write(&path, &text).unwrap();
            let file = path.display().to_string();
            let early = Inventory::load(std::slice::from_ref(&path), false)
                .map(|inv| inv.warnings)
                .map_err(|e| e.to_string());
            let in_order = read_in_order(&file, &text)
                .map(|inv| inv.warnings)
                .map_err(|e| e.to_string());
            let _ = std::fs::remove_dir_all(&dir);
            assert_eq!(early, in_order);
            let said = match early {
                Ok(warnings) => warnings.join("\n"),
                Err(e) => e,
            };
            assert!(said.contains("bad.yaml"), "{said}");
        }
    }

    #[test]
    fn files_read_ahead_are_taken_in_order_and_every_error_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let a = write("a.yaml", &MIXED.replace("-N", "-a"));
        let b = write("b.yaml", &MIXED.replace("-N", "-b"));
        let c = write("c.yaml", &MIXED.replace("-N", "-c"));
        // Several files (the next read on another thread) read as the files one by one.
        let all = Inventory::load(&[a.clone(), b.clone(), c.clone()], false).unwrap();
        let mut one_by_one = Inventory::with_seed(0);
        for path in [&a, &b, &c] {
            let text = std::fs::read_to_string(path).unwrap();
            let file = path.display().to_string();
            for doc in parse_documents(&file, &text).unwrap() {
                for_each_object(&file, &doc, |source, v| {
                    let duplicates = item_duplicates(&doc, source.item);
                    one_by_one.add_with_duplicates(source, v, duplicates)
                })
                .unwrap();
            }
        }
        assert_eq!(all.workloads.len(), 6);
        assert_eq!(fields(&all), fields(&one_by_one));
        // Every file is read: an error in the first file and a missing one after it (read
        // ahead meanwhile) are both named, in input order; a missing file after good ones is
        // named.
        let bad = write(
            "bad.yaml",
            &MIXED.replace("-N", "-x").replace("cpu: 100m", "cpu: lots"),
        );
        let missing = dir.path().join("missing.yaml");
        let err = Inventory::load(&[bad.clone(), missing.clone(), a.clone()], false)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.yaml") && err.contains("lots"), "{err}");
        assert!(err.contains("missing.yaml"), "{err}");
        assert!(
            err.find("bad.yaml") < err.find("missing.yaml"),
            "in input order: {err}"
        );
        let err = Inventory::load(&[a, b, missing], false)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing.yaml"), "{err}");
    }

    #[test]
    fn type_errors_in_a_manifests_words() {
        for (serde, want) in [
            (
                "invalid type: string \"30\", expected i64",
                "invalid type: got a string (\"30\"), expected an integer (write the number without quotes)",
            ),
            (
                "invalid type: integer `5`, expected a string",
                "invalid type: got an integer (5), expected a string",
            ),
            (
                "invalid type: sequence, expected a map",
                "invalid type: got a list, expected a mapping",
            ),
            (
                "invalid type: string \"x\", expected struct Toleration",
                "invalid type: got a string (\"x\"), expected a mapping",
            ),
            ("missing field `containers`", "missing field `containers`"),
        ] {
            assert_eq!(plain_type_error(serde), want, "{serde}");
        }
    }

    #[test]
    fn a_yaml_reading_limit_is_named_in_words_with_the_file() {
        let deep = format!(
            "a:\n{}",
            (1..80)
                .map(|i| format!("{}b:\n", "  ".repeat(i)))
                .collect::<String>()
        );
        let err = parse_documents("deep.yaml", &deep)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("deep.yaml: invalid YAML: line ")
                && err
                    .contains("mappings and lists nested more than 64 deep, the most repel reads"),
            "{err}"
        );
        assert!(
            !err.contains("Depth {") && !err.contains("<input>"),
            "{err}"
        );
        let bad = "a: [1, 2\n";
        let err = parse_documents("bad.yaml", bad)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(!err.contains("<input>"), "{err}");
    }
}
