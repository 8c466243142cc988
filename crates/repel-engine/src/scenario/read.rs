//! Reading a `serde_json::Value` field by field, collecting every error with its path.

use serde_json::{Map, Value};

use super::{ScenarioErrorKind, ScenarioFieldError};
use crate::clock::{Millis, parse_duration};

/// What a JSON value is, for "expected …, got …".
pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The allowed name closest to `name`, when it is close (a case slip or up to two edits).
fn suggestion(name: &str, allowed: &[&str]) -> Option<String> {
    allowed
        .iter()
        .map(|a| {
            let d = if a.eq_ignore_ascii_case(name) {
                0
            } else {
                distance(name, a)
            };
            (d, *a)
        })
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a.to_string())
}

/// Collects errors while reading.
#[derive(Debug, Default)]
pub(super) struct Reader {
    pub errors: Vec<ScenarioFieldError>,
}

/// `parent.child`, or `child` at the top.
pub(super) fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}.{child}")
    }
}

impl Reader {
    pub fn push(&mut self, field: impl Into<String>, kind: ScenarioErrorKind) {
        self.errors.push(ScenarioFieldError {
            field: field.into(),
            kind,
        });
    }

    fn wrong_type(&mut self, field: &str, expected: &'static str, got: &Value) {
        self.push(
            field,
            ScenarioErrorKind::WrongType {
                expected,
                got: type_name(got),
            },
        );
    }

    /// A map whose keys are all in `allowed`; each other key is an unknown-field error.
    pub fn object<'a>(
        &mut self,
        v: &'a Value,
        field: &str,
        allowed: &[&str],
    ) -> Option<&'a Map<String, Value>> {
        let Some(m) = v.as_object() else {
            self.wrong_type(if field.is_empty() { "<root>" } else { field }, "a map", v);
            return None;
        };
        for k in m.keys() {
            if !allowed.contains(&k.as_str()) {
                self.push(
                    join(field, k),
                    ScenarioErrorKind::UnknownField {
                        suggestion: suggestion(k, allowed),
                    },
                );
            }
        }
        Some(m)
    }

    /// A non-empty string.
    pub fn string(&mut self, v: &Value, field: &str) -> Option<String> {
        match v.as_str() {
            Some("") => {
                self.push(field, ScenarioErrorKind::Required);
                None
            }
            Some(s) => Some(s.to_string()),
            None => {
                self.wrong_type(field, "a string", v);
                None
            }
        }
    }

    /// A boolean.
    pub fn boolean(&mut self, v: &Value, field: &str) -> Option<bool> {
        let b = v.as_bool();
        if b.is_none() {
            self.wrong_type(field, "a boolean", v);
        }
        b
    }

    /// A number.
    pub fn number(&mut self, v: &Value, field: &str) -> Option<f64> {
        let n = v.as_f64();
        if n.is_none() {
            self.wrong_type(field, "a number", v);
        }
        n
    }

    /// A non-negative integer.
    pub fn count(&mut self, v: &Value, field: &str) -> Option<u64> {
        match v.as_u64() {
            Some(n) => Some(n),
            None if v.is_number() => {
                self.push(
                    field,
                    ScenarioErrorKind::Invalid("must be a whole number, 0 or more".to_string()),
                );
                None
            }
            None => {
                self.wrong_type(field, "a whole number", v);
                None
            }
        }
    }

    /// An integer (possibly negative).
    pub fn integer(&mut self, v: &Value, field: &str) -> Option<i64> {
        match v.as_i64() {
            Some(n) => Some(n),
            None if v.is_number() => {
                self.push(
                    field,
                    ScenarioErrorKind::Invalid("must be a whole number".to_string()),
                );
                None
            }
            None => {
                self.wrong_type(field, "a whole number", v);
                None
            }
        }
    }

    /// A point or span of time, 0 or more: a Go duration (`90s`, `10m`, `1h30m`) or a number
    /// of seconds.
    pub fn time(&mut self, v: &Value, field: &str) -> Option<Millis> {
        let ms = match v {
            Value::String(s) => match parse_duration(s) {
                Ok(ms) => ms,
                Err(e) => {
                    self.push(field, ScenarioErrorKind::Duration(e));
                    return None;
                }
            },
            Value::Number(n) => match n.as_f64() {
                Some(secs) if secs.is_finite() && secs.abs() < 1e12 => {
                    (secs * 1000.0).round() as Millis
                }
                _ => {
                    self.push(
                        field,
                        ScenarioErrorKind::Invalid("out of range".to_string()),
                    );
                    return None;
                }
            },
            other => {
                self.wrong_type(
                    field,
                    "a duration such as \"90s\" or a number of seconds",
                    other,
                );
                return None;
            }
        };
        if ms < 0 {
            self.push(
                field,
                ScenarioErrorKind::Invalid("must not be negative".to_string()),
            );
            return None;
        }
        Some(ms)
    }

    /// A list, or a single item taken as a list of one; each with its path.
    pub fn list<'a>(&mut self, v: &'a Value, field: &str) -> Vec<(String, &'a Value)> {
        match v {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("{field}[{i}]"), item))
                .collect(),
            other => vec![(field.to_string(), other)],
        }
    }
}
