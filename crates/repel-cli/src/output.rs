//! Printing: `-o json|yaml`, and small helpers the human printers share.

use serde::Serialize;

use crate::{CliError, Format};

/// Prints `value` to stdout in the given machine format.
pub fn print_machine<T: Serialize>(value: &T, format: Format) -> Result<(), CliError> {
    let text = match format {
        Format::Json => serde_json::to_string_pretty(value)
            .map(|s| s + "\n")
            .map_err(|e| CliError::Output(e.to_string()))?,
        Format::Yaml => to_yaml(value)?,
    };
    emit(&text);
    Ok(())
}

/// Writes `text` to stdout. A closed pipe (the reader went away, as with `| head`) ends the
/// program quietly with exit 0; any other write error ends it with exit 2 and a message.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing output: {e}");
        std::process::exit(2);
    }
}

/// YAML text of a value.
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String, CliError> {
    serde_saphyr::to_string(value).map_err(|e| CliError::Output(e.to_string()))
}

/// Leaves `value` to the operating system: the command is about to exit, and freeing a cluster
/// of 150,000 pods object by object costs a few hundred milliseconds the user would wait for.
pub fn leave_at_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Prints warnings (skipped objects and the like) to stderr.
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// A table with kubectl's look: no borders, upper-case headers, columns separated by spaces.
pub fn table(header: &[&str]) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    t.set_header(header.iter().map(|h| h.to_string()));
    t
}

/// A table's text with each line's trailing spaces trimmed and its leading pad removed.
pub fn render(t: &comfy_table::Table) -> String {
    let mut out = String::new();
    for line in t.to_string().lines() {
        out.push_str(line.strip_prefix(' ').unwrap_or(line).trim_end());
        out.push('\n');
    }
    out
}

/// Tolerations as YAML in the order the documentation writes them (key, operator, value,
/// effect, tolerationSeconds), ready to paste under `tolerations:`.
pub fn tolerations_yaml(
    tolerations: &[k8s_openapi::api::core::v1::Toleration],
) -> Result<String, CliError> {
    let list: Vec<serde_json::Value> = tolerations
        .iter()
        .map(|t| {
            let mut m = serde_json::Map::new();
            let mut put = |k: &str, v: &Option<String>| {
                if let Some(v) = v.as_ref().filter(|v| !v.is_empty()) {
                    m.insert(k.to_string(), serde_json::Value::String(v.clone()));
                }
            };
            put("key", &t.key);
            put("operator", &t.operator);
            put("value", &t.value);
            put("effect", &t.effect);
            if let Some(s) = t.toleration_seconds {
                m.insert("tolerationSeconds".to_string(), s.into());
            }
            serde_json::Value::Object(m)
        })
        .collect();
    to_yaml(&list)
}
