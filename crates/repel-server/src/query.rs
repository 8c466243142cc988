//! Query parameters as kube-apiserver decodes and validates them, per verb: the parameter
//! codec's conversion errors (a 400 with Go's `strconv` text: `strconv.ParseInt: parsing "abc":
//! invalid syntax`), then the options' validation (a 422 on `CreateOptions.meta.k8s.io`,
//! `UpdateOptions`, `PatchOptions`, `DeleteOptions` or `ListOptions`, with the field errors of
//! `k8s.io/apimachinery/pkg/apis/meta/v1/validation` and `metainternalversion/validation`).
//!
//! Decisions where repel differs from kube-apiserver, documented in the README:
//! - a watch from a malformed `resourceVersion` is the 400 a list gets; kube-apiserver answers
//!   a 500 there (kubernetes#139485, whose fix answers 400);
//! - continue tokens are decoded here (a malformed one is upstream's 400) and served by
//!   [`crate::paging`].

use std::collections::HashMap;

use repel_api::status;
use repel_core::validation::{BadValue, ErrorType, FieldError};
use serde_json::Value;

use crate::request::ApiError;

/// Upstream `FieldManagerMaxLength`.
pub const FIELD_MANAGER_MAX_LENGTH: usize = 128;

/// The options every write takes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteOptions {
    /// `dryRun=All`: admission and validation run, nothing is stored.
    pub dry_run: bool,
}

/// The options of a list or watch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListOptions {
    /// `watch` (upstream's bool conversion: anything but `0`, `f`, `false`, case-insensitive).
    pub watch: bool,
    /// `timeoutSeconds`, when given.
    pub timeout_seconds: Option<i64>,
    /// `limit` (≤ 0: no limit).
    pub limit: i64,
    /// `resourceVersion` (empty when not given).
    pub resource_version: String,
    /// `continue`, decoded.
    pub continue_token: Option<ContinueToken>,
}

/// A decoded `continue` token (upstream `storage.continueToken`, version `meta.k8s.io/v1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContinueToken {
    /// The resourceVersion the list was read at; `-1`: continue at the latest.
    pub rv: i64,
    /// The key to start at, relative to the list's key prefix (`ns/name\0`, or `name\0`).
    pub start: String,
}

/// The options of a delete, from its body or (when the body is empty) its query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeleteOptions {
    /// `dryRun=All`.
    pub dry_run: bool,
    /// `gracePeriodSeconds` (a negative value means 1, as upstream's delete path does).
    pub grace_period_seconds: Option<i64>,
    /// `propagationPolicy: Orphan` or `orphanDependents: true`.
    pub orphan: bool,
    /// `propagationPolicy: Foreground`.
    pub foreground: bool,
    /// `propagationPolicy: Background` or `orphanDependents: false`: neither orphan nor
    /// foreground, whatever the object's finalizers or its kind's default say.
    pub background: bool,
}

/// Upstream's `Convert_Slice_string_To_bool`: false for `0`, `f`, `false` (any case), true
/// for anything else, including the empty string.
pub fn query_bool(v: &str) -> bool {
    !(v == "0" || v.eq_ignore_ascii_case("f") || v.eq_ignore_ascii_case("false"))
}

/// Go's `strconv.ParseInt(s, 10, 64)` error text, or the value.
pub fn parse_int64(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseInt: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<i64>().map_err(|_| {
        format!(
            "strconv.ParseInt: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

/// Go's `strconv.ParseUint(s, 10, 64)` error text, or the value.
pub fn parse_uint64(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

fn go_quote(s: &str) -> String {
    repel_core::validation::go_quote(s)
}

fn bad_request(msg: &str) -> ApiError {
    status::bad_request(msg).into()
}

fn invalid_options(kind: &str, errs: &[FieldError]) -> ApiError {
    status::invalid(&format!("{kind}.meta.k8s.io"), "", errs).into()
}

/// Go's `unicode.IsPrint`, for the characters a field manager may hold: letters, marks,
/// numbers, punctuation, symbols and the ASCII space — not controls, other spaces, or the
/// format characters (soft hyphen, zero-width and direction marks, BOM).
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'))
}

/// Upstream `ValidateFieldManager`.
fn validate_field_manager(fm: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if fm.len() > FIELD_MANAGER_MAX_LENGTH {
        errs.push(FieldError {
            field: "fieldManager".into(),
            error_type: ErrorType::TooLong,
            bad_value: BadValue::Omitted,
            detail: format!("may not be more than {FIELD_MANAGER_MAX_LENGTH} bytes"),
        });
    }
    for (i, c) in fm.char_indices() {
        if !is_print(c) {
            errs.push(FieldError::invalid(
                "fieldManager",
                BadValue::Str(fm.to_string()),
                format!("invalid character U+{:04X} (at position {i})", c as u32),
            ));
        }
    }
    errs
}

/// Upstream `ValidateDryRun`: every value must be `All`.
fn validate_dry_run(values: &[String]) -> Vec<FieldError> {
    if values.iter().all(|v| v == "All") {
        return Vec::new();
    }
    let json = serde_json::to_string(values).unwrap_or_default();
    vec![FieldError {
        field: "dryRun".into(),
        error_type: ErrorType::NotSupported,
        bad_value: BadValue::Json(json),
        detail: "supported values: \"All\"".into(),
    }]
}

/// Upstream `ValidateFieldValidation`.
fn validate_field_validation(v: &str) -> Vec<FieldError> {
    if ["", "Ignore", "Strict", "Warn"].contains(&v) {
        return Vec::new();
    }
    vec![FieldError::not_supported(
        "fieldValidation",
        v,
        &["", "Ignore", "Strict", "Warn"],
    )]
}

/// The query's values of `key`, in order (a repeated key gives several).
pub fn values(raw: &[(String, String)], key: &str) -> Vec<String> {
    raw.iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .collect()
}

fn first<'a>(
    q: &'a HashMap<String, String>,
    raw: &'a [(String, String)],
    key: &str,
) -> Option<&'a str> {
    raw.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .or_else(|| q.get(key).map(String::as_str))
}

/// `CreateOptions`/`UpdateOptions` (`kind`), or `PatchOptions` with `apply` for an apply patch.
pub fn write_options(
    kind: &str,
    raw: &[(String, String)],
    q: &HashMap<String, String>,
    apply: Option<bool>,
) -> Result<WriteOptions, ApiError> {
    let mut errs = Vec::new();
    let fm = first(q, raw, "fieldManager").unwrap_or("");
    if let Some(apply) = apply {
        if !apply && first(q, raw, "force").is_some() {
            errs.push(FieldError::forbidden(
                "force",
                "may not be specified for non-apply patch",
            ));
        }
        if apply && fm.is_empty() {
            errs.push(FieldError::required(
                "fieldManager",
                "is required for apply patch",
            ));
        }
    }
    errs.extend(validate_field_manager(fm));
    let dry = values(raw, "dryRun");
    errs.extend(validate_dry_run(&dry));
    errs.extend(validate_field_validation(
        first(q, raw, "fieldValidation").unwrap_or(""),
    ));
    if !errs.is_empty() {
        return Err(invalid_options(kind, &errs));
    }
    Ok(WriteOptions {
        dry_run: !dry.is_empty(),
    })
}

/// `ListOptions`: decoded (timeoutSeconds, then limit: upstream's field order), then
/// validated for a list or for a watch; the resourceVersion is parsed as the storage does.
pub fn list_options(
    raw: &[(String, String)],
    q: &HashMap<String, String>,
) -> Result<ListOptions, ApiError> {
    let watch = first(q, raw, "watch").is_some_and(query_bool);
    let timeout_seconds = match first(q, raw, "timeoutSeconds") {
        None => None,
        Some(t) => Some(parse_int64(t).map_err(|e| bad_request(&e))?),
    };
    let limit = match first(q, raw, "limit") {
        None => 0,
        Some(l) => parse_int64(l).map_err(|e| bad_request(&e))?,
    };
    let rv = first(q, raw, "resourceVersion").unwrap_or("").to_string();
    let rv_match = first(q, raw, "resourceVersionMatch").unwrap_or("");
    let cont = first(q, raw, "continue").unwrap_or("");
    let send_initial = first(q, raw, "sendInitialEvents").is_some();
    let mut errs = Vec::new();
    let forbid = |d: &str| FieldError::forbidden("resourceVersionMatch", d);
    if watch {
        if send_initial {
            if rv_match != "NotOlderThan" {
                errs.push(forbid(
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            errs.push(FieldError::forbidden(
                "sendInitialEvents",
                "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            ));
        }
        if !rv_match.is_empty() {
            if !send_initial {
                errs.push(forbid(
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ));
            }
            if rv_match != "NotOlderThan" {
                errs.push(FieldError::not_supported(
                    "resourceVersionMatch",
                    rv_match,
                    &["NotOlderThan"],
                ));
            }
            if !cont.is_empty() {
                errs.push(forbid(
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
        }
    } else {
        if !rv_match.is_empty() {
            if rv.is_empty() {
                errs.push(forbid(
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if !cont.is_empty() {
                errs.push(forbid(
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
            if rv_match != "Exact" && rv_match != "NotOlderThan" {
                errs.push(FieldError::not_supported(
                    "resourceVersionMatch",
                    rv_match,
                    &["Exact", "NotOlderThan", ""],
                ));
            }
            if rv_match == "Exact" && rv == "0" {
                errs.push(forbid(
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
        }
        if send_initial {
            errs.push(FieldError::forbidden(
                "sendInitialEvents",
                "sendInitialEvents is forbidden for list",
            ));
        }
    }
    if !errs.is_empty() {
        return Err(invalid_options("ListOptions", &errs));
    }
    if !rv.is_empty()
        && let Err(e) = parse_uint64(&rv)
    {
        let err = FieldError::invalid("resourceVersion", BadValue::Str(rv.clone()), e);
        return Err(bad_request(&format!("invalid resource version: {err}")));
    }
    let mut continue_token = None;
    if !cont.is_empty() {
        if !rv.is_empty() && rv != "0" {
            return Err(bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        continue_token = Some(decode_continue(cont)?);
    }
    Ok(ListOptions {
        watch,
        timeout_seconds,
        limit,
        resource_version: rv,
        continue_token,
    })
}

/// Upstream `storage.DecodeContinue`: a token that does not decode is a 400 (`invalid continue
/// token: continue key is not valid: …`).
pub fn decode_continue(token: &str) -> Result<ContinueToken, ApiError> {
    let invalid = |why: String| {
        bad_request(&format!(
            "invalid continue token: continue key is not valid: {why}"
        ))
    };
    let bytes = match decode_raw_url_base64(token) {
        Ok(b) => b,
        Err(at) => return Err(invalid(format!("illegal base64 data at input byte {at}"))),
    };
    let parsed: Result<Value, _> = serde_json::from_slice(&bytes);
    let Ok(v) = parsed else {
        let first = bytes
            .iter()
            .find(|b| !b" \t\r\n".contains(b))
            .copied()
            .unwrap_or(b' ');
        return Err(invalid(format!(
            "invalid character {} looking for beginning of value",
            go_quote_char(first)
        )));
    };
    let version = v["v"].as_str().unwrap_or("");
    if version != "meta.k8s.io/v1" {
        return Err(invalid(format!(
            "server does not recognize this encoded version {version:?}"
        )));
    }
    let rv = v["rv"].as_i64().unwrap_or(0);
    if rv == 0 {
        return Err(invalid(
            "incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into(),
        ));
    }
    let start = v["start"].as_str().unwrap_or("");
    if start.is_empty() {
        return Err(invalid(
            "encoded start key empty (version meta.k8s.io/v1)".into(),
        ));
    }
    // Upstream cleans "/" + start as a path and refuses a key that cleaning changes, so that a
    // token cannot reach above its list's prefix.
    let key = if start.starts_with('/') {
        start.to_string()
    } else {
        format!("/{start}")
    };
    let clean = key == "/"
        || key[1..]
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
    if !clean {
        return Err(invalid(start.to_string()));
    }
    Ok(ContinueToken {
        rv,
        start: key[1..].to_string(),
    })
}

/// Upstream `storage.EncodeContinue`: `start` is relative to the list's key prefix.
/// The JSON is written in Go's field order (`v`, `rv`, `start`), so the token is upstream's
/// byte for byte.
pub fn encode_continue(start: &str, rv: i64) -> String {
    let start = Value::String(start.to_string()).to_string();
    let json = format!("{{\"v\":\"meta.k8s.io/v1\",\"rv\":{rv},\"start\":{start}}}");
    encode_raw_url_base64(json.as_bytes())
}

/// `base64.RawURLEncoding.EncodeToString`.
fn encode_raw_url_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// Go's `quoteChar` in encoding/json's syntax errors.
fn go_quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        0x20..=0x7e => format!("'{}'", c as char),
        _ => format!("'\\u{c:04x}'"),
    }
}

/// `base64.RawURLEncoding.DecodeString`: the offset of the first bad byte on failure.
fn decode_raw_url_base64(s: &str) -> Result<Vec<u8>, usize> {
    let val = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let v = val(b).ok_or(i)?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bytes.len() % 4 == 1 {
        return Err(bytes.len() - 1);
    }
    Ok(out)
}

/// `DeleteOptions`: from the body when it is not empty (the query is then ignored, as
/// upstream's handler does), else from the query; validated by `ValidateDeleteOptions`.
pub fn delete_options(
    body: &[u8],
    raw: &[(String, String)],
    q: &HashMap<String, String>,
) -> Result<DeleteOptions, ApiError> {
    let (dry, grace, policy, orphan_dependents): (
        Vec<String>,
        Option<i64>,
        Option<String>,
        Option<bool>,
    ) = if body.iter().any(|b| !b.is_ascii_whitespace()) {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| bad_request(&format!("error decoding request body: {e}")))?;
        let dry = match &v["dryRun"] {
            Value::Array(a) => a
                .iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect(),
            _ => Vec::new(),
        };
        (
            dry,
            v["gracePeriodSeconds"].as_i64(),
            v["propagationPolicy"].as_str().map(str::to_string),
            v["orphanDependents"].as_bool(),
        )
    } else {
        let grace = match first(q, raw, "gracePeriodSeconds") {
            None => None,
            Some(g) => Some(parse_int64(g).map_err(|e| bad_request(&e))?),
        };
        (
            values(raw, "dryRun"),
            grace,
            first(q, raw, "propagationPolicy").map(str::to_string),
            first(q, raw, "orphanDependents").map(query_bool),
        )
    };
    let mut errs = Vec::new();
    if let (Some(_), Some(p)) = (orphan_dependents, &policy) {
        errs.push(FieldError::invalid(
            "propagationPolicy",
            BadValue::Str(p.clone()),
            "orphanDependents and deletionPropagation cannot be both set",
        ));
    }
    if let Some(p) = &policy
        && !["Foreground", "Background", "Orphan"].contains(&p.as_str())
    {
        errs.push(FieldError::not_supported(
            "propagationPolicy",
            p,
            &["Foreground", "Background", "Orphan", "nil"],
        ));
    }
    errs.extend(validate_dry_run(&dry));
    if !errs.is_empty() {
        return Err(invalid_options("DeleteOptions", &errs));
    }
    Ok(DeleteOptions {
        dry_run: !dry.is_empty(),
        grace_period_seconds: grace.map(|g| if g < 0 { 1 } else { g }),
        orphan: policy.as_deref() == Some("Orphan") || orphan_dependents == Some(true),
        foreground: policy.as_deref() == Some("Foreground"),
        background: policy.as_deref() == Some("Background") || orphan_dependents == Some(false),
    })
}

#[cfg(test)]
mod tests;
