//! Field selectors (`?fieldSelector=`) and label selectors (`?labelSelector=`) over JSON
//! objects, as the API server applies them to list and watch.
//!
//! Field selectors follow upstream `k8s.io/apimachinery/pkg/fields` (v1.32):
//! 1. the string splits into terms at unescaped commas; empty terms are skipped; terms are sorted;
//! 2. each term splits at the first `!=`, `==` or `=` (checked in that order at each position);
//!    a term without one is `invalid selector: '<selector>'; can't understand '<term>'`;
//! 3. values unescape `\\`, `\,`, `\=`; another escape or a bare `,`/`=` is an error;
//! 4. `=`/`==` match when the field's value equals the value, `!=` when it differs; a field the
//!    object lacks has the value `""` (so `spec.nodeName=` selects unscheduled pods);
//! 5. the server then checks every field against the kind's supported labels
//!    (`pkg/apis/core/v1/conversion.go`): an unsupported one is
//!    `field label not supported: <field>` (a 400), see [`parse_field_selector`].
//!
//! Label selectors are `repel_core::labels::LabelSelector` (upstream `labels.Parse`, with its
//! error texts), matched against `metadata.labels`.

use std::collections::BTreeMap;
use std::str::FromStr;

use repel_core::labels::LabelSelector as CoreLabelSelector;
use serde_json::Value;

/// Why a selector was refused. `Display` is upstream's text; answer
/// `status::bad_request(&err.to_string())`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A term without an operator.
    #[error("invalid selector: '{selector}'; can't understand '{term}'")]
    Syntax {
        /// The whole selector.
        selector: String,
        /// The term that has no operator.
        term: String,
    },
    /// A backslash not followed by `\`, `,` or `=` (or at the end).
    #[error("invalid field selector: invalid escape sequence: {0}")]
    InvalidEscape(String),
    /// A bare `,` or `=` in a value; upstream prints the rune's code point (`%v` of a rune).
    #[error("invalid field selector: unescaped character in value: {}", *.0 as u32)]
    UnescapedRune(char),
    /// A field the kind does not index.
    #[error("field label not supported: {0}")]
    UnsupportedField(String),
    /// A label selector that `labels.Parse` refuses (upstream's text).
    #[error("{0}")]
    Label(String),
}

/// One `field op value` term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldTerm {
    /// The field path, e.g. `spec.nodeName`.
    pub field: String,
    /// `true` for `!=`.
    pub negated: bool,
    /// The unescaped value.
    pub value: String,
}

/// A parsed field selector: the AND of its terms (empty = everything).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

impl FieldSelector {
    /// The fields its terms name, in order.
    pub fn fields(&self) -> Vec<&str> {
        self.terms.iter().map(|t| t.field.as_str()).collect()
    }

    /// Upstream `fields.ParseSelector`: parse without checking the fields.
    pub fn parse(selector: &str) -> Result<FieldSelector, SelectorError> {
        let mut parts = split_terms(selector);
        parts.sort();
        let mut terms = Vec::new();
        for part in parts {
            if part.is_empty() {
                continue;
            }
            let Some((lhs, op, rhs)) = split_term(part) else {
                return Err(SelectorError::Syntax {
                    selector: selector.to_string(),
                    term: part.to_string(),
                });
            };
            terms.push(FieldTerm {
                field: lhs.to_string(),
                negated: op == "!=",
                value: unescape_value(rhs)?,
            });
        }
        Ok(FieldSelector { terms })
    }

    /// The terms, sorted as upstream sorts them.
    pub fn terms(&self) -> &[FieldTerm] {
        &self.terms
    }

    /// True when the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Upstream `RequiresExactMatch`: the value an `=` term requires of `field`, if any.
    pub fn exact(&self, field: &str) -> Option<&str> {
        self.terms
            .iter()
            .find(|t| !t.negated && t.field == field)
            .map(|t| t.value.as_str())
    }

    /// Whether `obj` satisfies every term (see [`field_value`] for how fields are read).
    pub fn matches(&self, obj: &Value) -> bool {
        self.terms.iter().all(|t| {
            let v = field_value(obj, &t.field);
            (v == t.value) != t.negated
        })
    }
}

/// Upstream `fields.EscapeValue`: `\\`, `,` and `=` backslash-escaped.
pub fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl std::fmt::Display for FieldSelector {
    /// Upstream `Selector.String()`: the sorted terms, values escaped, joined by commas.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            let op = if t.negated { "!=" } else { "=" };
            write!(f, "{}{op}{}", t.field, escape_value(&t.value))?;
        }
        Ok(())
    }
}

/// The field labels a kind supports in field selectors (upstream's field label conversion
/// functions, v1.32). Every kind supports `metadata.name` and `metadata.namespace`.
pub fn supported_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &[
            "metadata.name",
            "metadata.namespace",
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        "Node" => &["metadata.name", "metadata.namespace", "spec.unschedulable"],
        "Namespace" => &["metadata.name", "metadata.namespace", "status.phase"],
        "Event" => &[
            "metadata.name",
            "metadata.namespace",
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        "ReplicaSet" => &["metadata.name", "metadata.namespace", "status.replicas"],
        "Job" => &["metadata.name", "metadata.namespace", "status.successful"],
        _ => &["metadata.name", "metadata.namespace"],
    }
}

/// Parse a field selector for a list of `kind` and check its fields as the API server does
/// (`ConvertFieldLabel`): `spec.host` is the old name of `spec.nodeName` for pods.
pub fn parse_field_selector(kind: &str, selector: &str) -> Result<FieldSelector, SelectorError> {
    let mut parsed = FieldSelector::parse(selector)?;
    let supported = supported_fields(kind);
    for t in &mut parsed.terms {
        if kind == "Pod" && t.field == "spec.host" {
            t.field = "spec.nodeName".to_string();
        }
        if !supported.contains(&t.field.as_str()) {
            return Err(SelectorError::UnsupportedField(t.field.clone()));
        }
    }
    Ok(parsed)
}

/// The string value of a selectable field of `obj`, as upstream's `GetAttrs` builds its field
/// set: strings as they are, booleans and integers printed (`true`, `3`), a missing field `""`.
/// `source` (Events) reads `source.component`; `status.podIP` is the pod's first IP.
pub fn field_value(obj: &Value, field: &str) -> String {
    if field == "status.podIP"
        && let Some(ip) = obj.pointer("/status/podIPs/0/ip").and_then(Value::as_str)
    {
        return ip.to_string();
    }
    let path = match field {
        "source" => "source.component",
        other => other,
    };
    let mut cur = obj;
    for part in path.split('.') {
        match cur.get(part) {
            Some(v) => cur = v,
            None => return default_for(field),
        }
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null => default_for(field),
        other => other.to_string(),
    }
}

/// What upstream's field set holds for a field the object leaves unset.
fn default_for(field: &str) -> String {
    match field {
        "spec.unschedulable" | "spec.hostNetwork" => "false".to_string(),
        "status.replicas" | "status.successful" => "0".to_string(),
        _ => String::new(),
    }
}

/// `splitTerms`: split at commas not escaped by a backslash.
fn split_terms(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut in_slash = false;
    for (i, c) in s.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(&s[start..i]);
            start = i + 1;
        }
    }
    terms.push(&s[start..]);
    terms
}

/// `splitTerm`: the first position where `!=`, `==` or `=` starts.
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        for op in ["!=", "==", "="] {
            if rest.starts_with(op) {
                return Some((&term[..i], op, &term[i + op.len()..]));
            }
        }
    }
    None
}

/// `UnescapeValue`.
fn unescape_value(s: &str) -> Result<String, SelectorError> {
    if !s.contains(['\\', ',', '=']) {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            match c {
                '\\' | ',' | '=' => out.push(c),
                _ => return Err(SelectorError::InvalidEscape(format!("\\{c}"))),
            }
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => return Err(SelectorError::UnescapedRune(c)),
            _ => out.push(c),
        }
    }
    if in_slash {
        return Err(SelectorError::InvalidEscape("\\".to_string()));
    }
    Ok(out)
}

/// A `?labelSelector=` query: a label selector in upstream's string syntax
/// (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), parsed into [`repel_core::labels::LabelSelector`]
/// with the API's errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelQuery(CoreLabelSelector);

impl LabelQuery {
    /// Upstream `labels.Parse` (an empty string selects everything).
    pub fn parse(s: &str) -> Result<LabelQuery, SelectorError> {
        CoreLabelSelector::from_str(s)
            .map(LabelQuery)
            .map_err(|e| SelectorError::Label(e.to_string()))
    }

    /// True when the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the object's `metadata.labels` satisfy the selector.
    pub fn matches(&self, obj: &Value) -> bool {
        self.0.matches(&labels_of(obj))
    }

    /// The parsed selector, for callers that hold typed objects.
    pub fn inner(&self) -> &CoreLabelSelector {
        &self.0
    }
}

/// `metadata.labels` of a JSON object as a map (non-string values are skipped).
pub fn labels_of(obj: &Value) -> BTreeMap<String, String> {
    obj.pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
