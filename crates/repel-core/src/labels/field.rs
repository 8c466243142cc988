//! Upstream `field.Error` and `errors.Aggregate` as label selectors print them, and Go's
//! quoting of bad values (`%q` for strings, `encoding/json` for everything else).

use std::fmt;

/// The kind of an upstream `field.Error` raised while building a selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldErrorKind {
    /// `field.Invalid`, shown as "Invalid value".
    Invalid,
    /// `field.NotSupported`, shown as "Unsupported value".
    NotSupported,
}

/// One upstream `field.Error`: `Display` is its `Error()` text,
/// `<field>: <Invalid value|Unsupported value>: <value>: <detail>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorFieldError {
    /// The field path as upstream prints it (`<nil>` when built without a path).
    pub field: String,
    /// What went wrong.
    pub kind: FieldErrorKind,
    /// The bad value, already rendered as upstream renders it (`"x"`, `["a","b"]`, `null`).
    pub value: String,
    /// Upstream's detail message.
    pub detail: String,
}

impl fmt::Display for SelectorFieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            FieldErrorKind::Invalid => "Invalid value",
            FieldErrorKind::NotSupported => "Unsupported value",
        };
        write!(f, "{}: {kind}: {}", self.field, self.value)?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

/// Upstream `utilerrors.Aggregate.Error()`: one message alone, several as `[a, b]`, duplicates once.
pub(crate) fn aggregate_message(errs: &[SelectorFieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        let msg = e.to_string();
        if !seen.contains(&msg) {
            seen.push(msg);
        }
    }
    if seen.len() > 1 {
        format!("[{}]", seen.join(", "))
    } else {
        seen.concat()
    }
}

pub(crate) use crate::validation::{go_json_string, go_quote};

/// Go's `encoding/json` rendering of a `[]string` bad value: `null` for a nil slice.
pub(crate) fn go_json_list(values: Option<&[String]>) -> String {
    match values {
        None => "null".to_string(),
        Some(vs) => {
            let items: Vec<String> = vs.iter().map(|v| go_json_string(v)).collect();
            format!("[{}]", items.join(","))
        }
    }
}

/// Upstream `field.Path` as printed: `None` is a nil path (`<nil>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldPath(Option<String>);

impl FieldPath {
    /// A root path (`field.NewPath(name)`).
    #[cfg(test)]
    pub(crate) fn new(name: &str) -> Self {
        FieldPath(Some(name.to_string()))
    }
    /// `Path.Child(name)`.
    pub(crate) fn child(&self, name: &str) -> Self {
        match &self.0 {
            None => FieldPath(Some(name.to_string())),
            Some(p) => FieldPath(Some(format!("{p}.{name}"))),
        }
    }
    /// `Path.Index(i)`.
    pub(crate) fn index(&self, i: usize) -> Self {
        self.key(&i.to_string())
    }
    /// `Path.Key(k)`.
    pub(crate) fn key(&self, k: &str) -> Self {
        FieldPath(Some(format!(
            "{}[{k}]",
            self.0.as_deref().unwrap_or_default()
        )))
    }
    /// `Path.String()`.
    pub(crate) fn render(&self) -> String {
        self.0.clone().unwrap_or_else(|| "<nil>".to_string())
    }
}

/// `field.Invalid(path, <string value>, detail)`.
pub(crate) fn invalid_str(path: &FieldPath, value: &str, detail: &str) -> SelectorFieldError {
    SelectorFieldError {
        field: path.render(),
        kind: FieldErrorKind::Invalid,
        value: go_quote(value),
        detail: detail.to_string(),
    }
}

/// `field.Invalid(path, <[]string value>, detail)`.
pub(crate) fn invalid_list(
    path: &FieldPath,
    values: Option<&[String]>,
    detail: &str,
) -> SelectorFieldError {
    SelectorFieldError {
        field: path.render(),
        kind: FieldErrorKind::Invalid,
        value: go_json_list(values),
        detail: detail.to_string(),
    }
}

/// `field.NotSupported(path, <named string type>, valid)`: the value renders through JSON.
pub(crate) fn not_supported(path: &FieldPath, value: &str, valid: &[&str]) -> SelectorFieldError {
    let quoted: Vec<String> = valid.iter().map(|v| go_quote(v)).collect();
    SelectorFieldError {
        field: path.render(),
        kind: FieldErrorKind::NotSupported,
        value: go_json_string(value),
        detail: format!("supported values: {}", quoted.join(", ")),
    }
}
