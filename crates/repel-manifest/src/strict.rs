//! Unknown and duplicate fields: worded as the API server's strict field validation words them
//! (`Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field
//! "spec.foo"`, `k8s.io/apimachinery/pkg/runtime/serializer/json`'s strict errors) and answered
//! as kubectl's `--validate` says (strict, warn or ignore).

use serde_json::Value;

use crate::Source;
use crate::documents::RawDoc;
use crate::objects::describe_value;

/// How unknown and duplicate fields are answered: kubectl's `--validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Validate {
    /// Errors, as the API server's strict field validation refuses the object (`true` too).
    #[cfg_attr(feature = "clap", value(alias = "true"))]
    Strict,
    /// One warning per object on stderr.
    Warn,
    /// Not looked at (`false` too).
    #[cfg_attr(feature = "clap", value(alias = "false"))]
    Ignore,
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
