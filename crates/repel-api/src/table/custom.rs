//! The table of a custom resource: its CRD's `additionalPrinterColumns`, each a JSONPath into
//! the object, as apiextensions-apiserver's `tableconvertor` fills them (v1.32):
//!
//! 1. the first column is always `Name` (format `name`);
//! 2. a CRD version without columns gets upstream's default, one `Age` column of type `date`
//!    on `.metadata.creationTimestamp`;
//! 3. a path that finds nothing gives a `null` cell; otherwise its first result is printed:
//!    for a `string` column as kubectl's JSONPath prints it (a string as is, a number or
//!    boolean as Go prints it, a list or map as compact JSON), for the other types by
//!    `cellForJSONValue` (`integer` truncates, `date` is an age, `<invalid>` when it is not a
//!    timestamp, a value of another type is `null`).

use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::cells::{human_duration_millis, millis_between, parse_time};
use super::columns::{CREATION_DOC, NAME_DOC};

/// One of a CRD version's `additionalPrinterColumns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The header (`Tier`).
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub column_type: String,
    /// The OpenAPI format (`int32`, `date-time`, …), often empty.
    pub format: String,
    /// What the column means.
    pub description: String,
    /// 0: always shown; more: only with `-o wide`.
    pub priority: i64,
    /// A simple JSONPath into the object (`.spec.tier`).
    pub json_path: String,
}

impl PrinterColumn {
    /// A column from one entry of a CRD's `additionalPrinterColumns` (`None` without a name or
    /// a path).
    pub fn from_crd(c: &Value) -> Option<PrinterColumn> {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let col = PrinterColumn {
            name: s("name"),
            column_type: s("type"),
            format: s("format"),
            description: s("description"),
            priority: c.get("priority").and_then(Value::as_i64).unwrap_or(0),
            json_path: s("jsonPath"),
        };
        (!col.name.is_empty() && !col.json_path.is_empty()).then_some(col)
    }

    /// Upstream's column when a CRD version declares none.
    pub fn default_age() -> PrinterColumn {
        PrinterColumn {
            name: "Age".to_string(),
            column_type: "date".to_string(),
            format: String::new(),
            description: CREATION_DOC.to_string(),
            priority: 0,
            json_path: ".metadata.creationTimestamp".to_string(),
        }
    }
}

/// The column definitions: `Name`, then `columns` (upstream's `Age` when there are none).
pub fn custom_columns(columns: &[PrinterColumn]) -> Vec<Value> {
    let mut out = vec![
        json!({"name": "Name", "type": "string", "format": "name", "description": NAME_DOC, "priority": 0}),
    ];
    for c in with_default(columns) {
        out.push(json!({"name": c.name, "type": c.column_type, "format": c.format, "description": c.description, "priority": c.priority}));
    }
    out
}

fn with_default(columns: &[PrinterColumn]) -> Vec<PrinterColumn> {
    if columns.is_empty() {
        vec![PrinterColumn::default_age()]
    } else {
        columns.to_vec()
    }
}

/// The cells of one custom object's row.
pub fn custom_cells(columns: &[PrinterColumn], obj: &Value, now: Timestamp) -> Vec<Value> {
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut cells = vec![json!(name)];
    for c in with_default(columns) {
        let found = find(obj, &c.json_path);
        let cell = match found.first() {
            None => Value::Null,
            Some(v) if c.column_type == "string" => print_string(v),
            Some(v) => json_cell(&c.column_type, v, now),
        };
        cells.push(cell);
    }
    cells
}

/// kubectl's JSONPath printing of one result (`PrintResults`): lists and maps as compact
/// JSON, `null` gives no cell.
fn print_string(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::String(s) => json!(s),
        Value::Array(_) | Value::Object(_) => json!(sorted(v).to_string()),
        Value::Bool(b) => json!(b.to_string()),
        Value::Number(n) => json!(go_number(n)),
    }
}

/// Go's `%v` of a JSON number as the unstructured decoder holds it: an `int64`, or a `float64`.
fn go_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        Some(f) => f.to_string(),
        None => n.to_string(),
    }
}

/// Keys in Go's `encoding/json` order (sorted), at every level.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Upstream `cellForJSONValue`.
fn json_cell(column_type: &str, v: &Value, now: Timestamp) -> Value {
    match (column_type, v) {
        ("integer", Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .map_or(Value::Null, |i| json!(i)),
        ("number", Value::Number(n)) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        ("boolean", Value::Bool(b)) => json!(b),
        ("date", Value::String(s)) => match parse_time(s) {
            Some(t) => json!(human_duration_millis(millis_between(t, now))),
            None => json!("<invalid>"),
        },
        _ => Value::Null,
    }
}

/// One step of a simple JSONPath.
#[derive(Debug, PartialEq)]
enum Step {
    /// `.name` or `['name']`.
    Field(String),
    /// `[2]`.
    Index(usize),
    /// `[*]` or `.*`.
    All,
    /// `[?(@.a.b=="x")]` (or `!=`): the list items whose field equals (or not) the literal.
    Filter(Vec<String>, bool, Value),
}

/// The values `path` finds in `obj`, in order (empty when it finds none or does not parse).
pub fn find<'a>(obj: &'a Value, path: &str) -> Vec<&'a Value> {
    let path = path.trim();
    let path = path
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .unwrap_or(path);
    let Some(steps) = parse(path) else {
        return Vec::new();
    };
    let mut cur = vec![obj];
    for step in &steps {
        let mut next = Vec::new();
        for v in cur {
            match step {
                Step::Field(f) => next.extend(v.get(f.as_str())),
                Step::Index(i) => next.extend(v.as_array().and_then(|a| a.get(*i))),
                Step::All => match v {
                    Value::Array(a) => next.extend(a.iter()),
                    Value::Object(m) => next.extend(m.values()),
                    _ => {}
                },
                Step::Filter(field, equal, lit) => {
                    for item in v.as_array().into_iter().flatten() {
                        let got = field.iter().try_fold(item, |x, f| x.get(f.as_str()));
                        let same = got.is_some_and(|g| literal_eq(g, lit));
                        if got.is_some() && same == *equal {
                            next.push(item);
                        }
                    }
                }
            }
        }
        cur = next;
    }
    cur
}

fn literal_eq(got: &Value, lit: &Value) -> bool {
    match (got, lit) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => got == lit,
    }
}

fn parse(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let b = path.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'$') {
        i = 1;
    }
    while i < b.len() {
        match b[i] {
            b'.' => {
                // A field name runs to the next unescaped `.` or `[`; `\.` is a dot in the name
                // (`.metadata.labels.node\.kubernetes\.io/instance-type`), as client-go's
                // jsonpath reads it.
                let start = i + 1;
                let mut j = start;
                let mut name = String::new();
                while j < b.len() && b[j] != b'.' && b[j] != b'[' {
                    if b[j] == b'\\' && j + 1 < b.len() {
                        j += 1;
                    }
                    let ch = path[j..].chars().next()?;
                    name.push(ch);
                    j += ch.len_utf8();
                }
                match name.as_str() {
                    "" => return None,
                    "*" => steps.push(Step::All),
                    _ => steps.push(Step::Field(name)),
                }
                i = j;
            }
            b'[' => {
                let close = bracket_end(path, i)?;
                steps.push(bracket(&path[i + 1..close])?);
                i = close + 1;
            }
            _ => return None,
        }
    }
    Some(steps)
}

/// The index of the `]` closing the bracket at `open`, skipping quoted text.
fn bracket_end(path: &str, open: usize) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (k, c) in path[open + 1..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ']') => return Some(open + 1 + k),
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> Option<&str> {
    let s = s.trim();
    s.strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|x| x.strip_suffix('"')))
}

fn bracket(inner: &str) -> Option<Step> {
    let inner = inner.trim();
    if inner == "*" {
        return Some(Step::All);
    }
    if let Some(key) = unquote(inner) {
        return Some(Step::Field(key.to_string()));
    }
    if let Ok(i) = inner.parse::<usize>() {
        return Some(Step::Index(i));
    }
    let cond = inner.strip_prefix("?(")?.strip_suffix(')')?.trim();
    let (lhs, equal, rhs) = if let Some((l, r)) = cond.split_once("==") {
        (l, true, r)
    } else {
        let (l, r) = cond.split_once("!=")?;
        (l, false, r)
    };
    let field: Vec<String> = lhs
        .trim()
        .strip_prefix("@.")?
        .split('.')
        .map(str::to_string)
        .collect();
    let lit = match unquote(rhs) {
        Some(s) => json!(s),
        None => serde_json::from_str(rhs.trim()).ok()?,
    };
    Some(Step::Filter(field, equal, lit))
}

/// A table of custom objects with `columns`, rows carrying what `include` says.
pub fn custom_table(
    columns: &[PrinterColumn],
    objs: &[&Value],
    now: Timestamp,
    rv: &str,
    include: super::IncludeObject,
) -> Value {
    let rows: Vec<Value> = objs
        .iter()
        .map(|obj| {
            let mut row = Map::new();
            row.insert(
                "cells".into(),
                Value::Array(custom_cells(columns, obj, now)),
            );
            if let Some(o) = super::row_object(obj, include) {
                row.insert("object".into(), o);
            }
            Value::Object(row)
        })
        .collect();
    super::envelope(rv, custom_columns(columns), rows)
}

#[cfg(test)]
mod tests;
