//! The second stage: a file's text split into documents, as kubectl's `YAMLOrJSONDecoder`
//! (`k8s.io/apimachinery/pkg/util/yaml/decoder.go`) splits a stream: JSON (one or more
//! concatenated values) when it starts with `{` or `[`, else multi-document YAML (read by
//! [`crate::yaml`]). Keys a document repeats are kept with their last value and listed.

use serde_json::Value;

use crate::InputError;
use crate::yaml;

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
pub(crate) fn parse_documents_with<T: Send>(
    file: &str,
    text: &str,
    hook: yaml::Hook<'_, T>,
) -> Result<Vec<(RawDoc, Option<T>)>, InputError> {
    parse_documents_hooked(file, text, hook, None)
}

/// [`parse_documents_with`], a bound pod of a remembered template given to `pod` read
/// straight into its typed form (see [`yaml::parse_stream_hooked`]).
pub(crate) fn parse_documents_hooked<T: Send>(
    file: &str,
    text: &str,
    hook: yaml::Hook<'_, T>,
    pod: Option<yaml::PodHook<'_, T>>,
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
            yaml::parse_stream_hooked(text, hook, pod).map_err(|e| InputError::Syntax {
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

#[cfg(test)]
mod tests;
