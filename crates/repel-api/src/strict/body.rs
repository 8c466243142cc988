//! Strict decoding of a raw request body: unknown and duplicate fields together, as upstream's
//! `sigs.k8s.io/json` `UnmarshalStrict` reports them.
//!
//! Upstream's rules:
//! 1. an unknown field is reported once, where it first appears;
//! 2. a known field (or map key) that appears again is a `duplicate field`, reported where it
//!    appears again; the last value wins;
//! 3. an unknown field is skipped whole: nothing inside it, and no repeat of it, is reported;
//! 4. the errors come in document order:
//!    `duplicate field "metadata.name", unknown field "metadata.unknownMeta", unknown field "spec.unknown1"`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// One strict decoding error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictError {
    /// `unknown field "<path>"`.
    Unknown(String),
    /// `duplicate field "<path>"`.
    Duplicate(String),
}

impl fmt::Display for StrictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrictError::Unknown(p) => write!(f, "unknown field {}", go_quote(p)),
            StrictError::Duplicate(p) => write!(f, "duplicate field {}", go_quote(p)),
        }
    }
}

fn go_quote(s: &str) -> String {
    repel_core::validation::go_quote(s)
}

/// Parse a request body of `kind` and find its strict decoding errors, in upstream's order.
/// Returns the parsed object (duplicates resolved as upstream does: the last value wins) and
/// the errors (empty when the body is clean or `kind` is unknown), or the JSON parse error.
pub fn check_body(kind: &str, body: &[u8]) -> Result<(Value, Vec<StrictError>), serde_json::Error> {
    let recorder = RefCell::new(Recorder::default());
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = ValueSeed {
        path: String::new(),
        rec: &recorder,
    }
    .deserialize(&mut de)?;
    de.end()?;
    let rec = recorder.into_inner();
    let unknown = super::unknown_fields(kind, &value);
    let under_unknown = |p: &str| {
        unknown.iter().any(|u| {
            p == u
                || p.strip_prefix(u.as_str())
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        })
    };
    let mut errors: Vec<(usize, StrictError)> = rec
        .duplicates
        .into_iter()
        .filter(|(_, p)| !under_unknown(p))
        .map(|(at, p)| (at, StrictError::Duplicate(p)))
        .collect();
    for u in &unknown {
        let at = rec.first_seen.get(u).copied().unwrap_or(usize::MAX);
        errors.push((at, StrictError::Unknown(u.clone())));
    }
    errors.sort_by_key(|(at, _)| *at);
    Ok((value, errors.into_iter().map(|(_, e)| e).collect()))
}

/// Repeated keys: the index of the value that repeats them and the key's path.
pub type Duplicates = Vec<(usize, String)>;

/// Parses one or more concatenated JSON values (a manifest file), keeping the last value of a
/// repeated key as upstream's decoder does; returns the values and each repeated key's path
/// with the index of its value.
pub fn parse_json_stream(text: &str) -> Result<(Vec<Value>, Duplicates), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut values = Vec::new();
    let mut duplicates = Vec::new();
    loop {
        // Whitespace only is left at the end (`end` skips it and looks for more).
        if de.end().is_ok() {
            break;
        }
        let recorder = RefCell::new(Recorder::default());
        let value = ValueSeed {
            path: String::new(),
            rec: &recorder,
        }
        .deserialize(&mut de)?;
        let i = values.len();
        duplicates.extend(
            recorder
                .into_inner()
                .duplicates
                .into_iter()
                .map(|(_, p)| (i, p)),
        );
        values.push(value);
    }
    Ok((values, duplicates))
}

/// Where each key path first appeared, and every repeat, numbered in document order.
#[derive(Default)]
struct Recorder {
    next: usize,
    first_seen: HashMap<String, usize>,
    duplicates: Vec<(usize, String)>,
}

/// Builds a `Value` like serde_json does, recording key paths as it goes.
struct ValueSeed<'a> {
    path: String,
    rec: &'a RefCell<Recorder>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let child = ValueSeed {
                path: format!("{}[{}]", self.path, items.len()),
                rec: self.rec,
            };
            match seq.next_element_seed(child)? {
                Some(v) => items.push(v),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            {
                let mut rec = self.rec.borrow_mut();
                let at = rec.next;
                rec.next += 1;
                if out.contains_key(&key) {
                    rec.duplicates.push((at, path.clone()));
                } else {
                    rec.first_seen.entry(path.clone()).or_insert(at);
                }
            }
            let value = map.next_value_seed(ValueSeed {
                path,
                rec: self.rec,
            })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests;
