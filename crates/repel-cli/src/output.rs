//! Printing: `-o json|yaml`, and small helpers the human printers share.

use serde::Serialize;

use crate::{CliError, Format};

/// Prints `value` to stdout in the given machine format.
pub fn print_machine<T: Serialize>(value: &T, format: Format) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write_machine(value, format, &mut out) {
        Ok(()) => {}
        Err(MachineError::Write(e)) => write_failed(&e),
        Err(MachineError::Output(e)) => return Err(e),
    }
    if let Err(e) = std::io::Write::flush(&mut out) {
        write_failed(&e);
    }
    Ok(())
}

/// What [`write_machine`] met: a value that does not serialise, or a failed write.
pub enum MachineError {
    /// The value does not serialise.
    Output(CliError),
    /// Writing failed.
    Write(std::io::Error),
}

/// Writes `value` to `out` in the given machine format, as [`print_machine`] prints it: JSON
/// is serialised straight into `out` (a placement report of 150,000 rows is 10 MB of text,
/// which a string would be grown to by doubling and copying), YAML made as one text.
pub fn write_machine<T: Serialize, W: std::io::Write>(
    value: &T,
    format: Format,
    mut out: W,
) -> Result<(), MachineError> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, value).map_err(|e| {
                if e.is_io() {
                    MachineError::Write(std::io::Error::from(e))
                } else {
                    MachineError::Output(CliError::Output(e.to_string()))
                }
            })?;
            out.write_all(b"\n").map_err(MachineError::Write)
        }
        Format::Yaml => {
            let text = to_yaml(value).map_err(MachineError::Output)?;
            out.write_all(text.as_bytes()).map_err(MachineError::Write)
        }
    }
}

/// Writes `text` to stdout. A closed pipe (the reader went away, as with `| head`) ends the
/// program quietly with exit 0; any other write error ends it with exit 2 and a message.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        write_failed(&e);
    }
}

/// A `kind: List` written item by item, byte for byte as [`print_machine`] prints the whole
/// list (`{"apiVersion": "v1", "kind": "List", "items": [...]}`), so a list of a million pods is
/// never held as one value or one text.
pub struct ListWriter<W: std::io::Write> {
    format: Format,
    out: W,
    items: usize,
}

impl ListWriter<std::io::BufWriter<std::io::Stdout>> {
    /// A list written to stdout.
    pub fn stdout(format: Format) -> Self {
        ListWriter::new(format, std::io::BufWriter::new(std::io::stdout()))
    }
}

impl<W: std::io::Write> ListWriter<W> {
    /// A list written to `out`.
    pub fn new(format: Format, out: W) -> Self {
        ListWriter {
            format,
            out,
            items: 0,
        }
    }

    /// Writes one item.
    pub fn push<T: Serialize>(&mut self, item: &T) -> Result<(), CliError> {
        let mut text = String::new();
        match self.format {
            Format::Json => {
                text.push_str(if self.items == 0 {
                    "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n"
                } else {
                    ",\n"
                });
                let item = serde_json::to_string_pretty(item)
                    .map_err(|e| CliError::Output(e.to_string()))?;
                // An item sits two levels in; JSON text has no raw line breaks in its strings.
                for (i, line) in item.lines().enumerate() {
                    if i > 0 {
                        text.push('\n');
                    }
                    text.push_str("    ");
                    text.push_str(line);
                }
            }
            Format::Yaml => {
                if self.items == 0 {
                    text.push_str("apiVersion: v1\nkind: List\nitems:\n");
                }
                // A sequence under a top-level key starts at the margin, as a document's own.
                text.push_str(&to_yaml(&[item])?);
            }
        }
        self.items += 1;
        self.write(&text)
    }

    /// Ends the list and flushes it.
    pub fn finish(mut self) -> Result<(), CliError> {
        let text = match (self.format, self.items) {
            (Format::Json, 0) => {
                "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": []\n}\n"
            }
            (Format::Json, _) => "\n  ]\n}\n",
            (Format::Yaml, 0) => "apiVersion: v1\nkind: List\nitems: []\n",
            (Format::Yaml, _) => "",
        };
        self.write(text)?;
        match self.out.flush() {
            Ok(()) => Ok(()),
            Err(e) => write_failed(&e),
        }
    }

    fn write(&mut self, text: &str) -> Result<(), CliError> {
        match self.out.write_all(text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) => write_failed(&e),
        }
    }
}

/// A failed write to stdout, answered as [`emit`] answers it.
fn write_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: writing output: {e}");
    std::process::exit(2);
}

/// Writes `bytes` to stdout as they are (a closed pipe ends the command quietly).
pub fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    if let Err(e) =
        std::io::Write::write_all(&mut out, bytes).and_then(|()| std::io::Write::flush(&mut out))
    {
        write_failed(&e);
    }
    Ok(())
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

/// The human timeline: steps and events in the order they happened (by time, and at one
/// instant as they were recorded: a step after the events before it), then the final placement.
pub fn timeline(r: &repel_engine::sim::RunReport) -> String {
    let mut out = String::new();
    let mut entries: Vec<(f64, usize, String)> = Vec::new();
    for s in &r.steps {
        let mut line = format!("step     {}", s.step);
        for o in &s.output {
            line.push_str(&format!("\n{:>8} {o}", if s.ok { "" } else { "!" }));
        }
        entries.push((s.at, 2 * s.events_before, line));
    }
    for (i, e) in r.events.iter().enumerate() {
        let kind = if matches!(e.kind, repel_engine::events::EventType::Warning) {
            "Warning"
        } else {
            "Normal "
        };
        let why = e
            .why
            .as_ref()
            .map(|w| format!("\n         why: {w}"))
            .unwrap_or_default();
        entries.push((
            e.at,
            2 * i + 1,
            format!(
                "{kind}  {:<26} {:<40} {}{why}",
                e.reason, e.object, e.message
            ),
        ));
    }
    entries.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (at, _, line) in entries {
        let t = repel_engine::clock::human((at * 1000.0).round() as i64);
        let mut lines = line.lines();
        if let Some(first) = lines.next() {
            out.push_str(&format!("{t:>9}  {first}\n"));
        }
        for l in lines {
            out.push_str(&format!("           {l}\n"));
        }
    }
    out.push_str("\nAt the end:\n");
    let mut t = table(&["POD", "NODE", "PHASE"]);
    for p in &r.final_state.pods {
        t.add_row(vec![
            p.pod.clone(),
            p.node.clone().unwrap_or_else(|| "<none>".into()),
            if p.terminating {
                format!("{} (Terminating)", p.phase)
            } else {
                p.phase.to_string()
            },
        ]);
    }
    out.push_str(&render(&t));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::{Value, json};

    /// What [`print_machine`] prints for the whole list.
    fn whole(items: &[Value], format: Format) -> String {
        let v = json!({"apiVersion": "v1", "kind": "List", "items": items});
        match format {
            Format::Json => serde_json::to_string_pretty(&v).unwrap() + "\n",
            Format::Yaml => to_yaml(&v).unwrap(),
        }
    }

    fn streamed(items: &[Value], format: Format) -> String {
        let mut buf = Vec::new();
        let mut list = ListWriter::new(format, &mut buf);
        for item in items {
            list.push(item).unwrap();
        }
        list.finish().unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn a_list_written_item_by_item_is_the_whole_list_byte_for_byte() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web"},
                         "annotations": {"note": "two\nlines\n", "empty": "", "quoted": "a: b"}},
            "spec": {"containers": [{"name": "app", "image": "nginx", "args": ["-c", "echo 'hi'\nexit 1"],
                                     "resources": {"requests": {"cpu": "100m"}}}],
                     "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
                     "nodeSelector": {}, "volumes": [], "priority": 0, "x": null, "y": true, "z": 1.5}});
        let cases: Vec<(&str, Vec<Value>)> = vec![
            ("no items", vec![]),
            ("one pod", vec![pod.clone()]),
            (
                "three items, one of them empty",
                vec![pod.clone(), json!({}), pod.clone()],
            ),
            (
                "scalars and lists as items",
                vec![json!("text"), json!([1, [2, 3]]), json!(null)],
            ),
        ];
        for (name, items) in cases {
            for format in [Format::Json, Format::Yaml] {
                assert_eq!(
                    streamed(&items, format),
                    whole(&items, format),
                    "{name} ({format:?})"
                );
            }
        }
    }
}
