//! Request parsing: the resource path (`/api/v1/namespaces/ns/pods/x/eviction`), query
//! parameters, and the error type every handler returns (an upstream `Status`).

use std::collections::HashMap;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use std::sync::Arc;

use crate::registry::{ApiResource, Registry};

/// An error reply: an HTTP code and an upstream `Status` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError(pub u16, pub Value);

impl From<(u16, Value)> for ApiError {
    fn from((code, body): (u16, Value)) -> Self {
        ApiError(code, body)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_reply(self.0, &self.1)
    }
}

/// A `Status` error with the given code, reason and message (for the few replies the status
/// builders of repel-api do not cover).
pub fn status_error(code: u16, reason: &str, message: &str) -> ApiError {
    ApiError(
        code,
        serde_json::json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code
        }),
    )
}

/// A JSON reply with the given code.
pub fn json_reply(code: u16, body: &Value) -> Response {
    json_reply_as(code, body, "application/json")
}

/// A JSON reply with the given code and content type.
pub fn json_reply_as(code: u16, body: &Value, content_type: &'static str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// A reply of raw bytes with the given code and content type.
pub fn bytes_reply(code: u16, body: Vec<u8>, content_type: &'static str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (status, body).into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// What a resource path names.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The resource.
    pub resource: Arc<ApiResource>,
    /// The namespace in the path, if any.
    pub namespace: Option<String>,
    /// The object's name, for item paths.
    pub name: Option<String>,
    /// The subresource (`status`, `eviction`, `binding`).
    pub sub: Option<String>,
}

/// Parses `/api/v1/...` or `/apis/<group>/<version>/...`. `None` when the path names no
/// resource `reg` serves (a 404).
pub fn parse_path(reg: &Registry, path: &str) -> Option<Target> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match segs.as_slice() {
        ["api", "v1", rest @ ..] => ("", "v1", rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return None,
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some(path_decode(ns)), rest),
        _ => (None, rest),
    };
    let (res, name, sub) = match rest {
        [res] => (*res, None, None),
        [res, name] => (*res, Some(path_decode(name)), None),
        [res, name, sub] => (*res, Some(path_decode(name)), Some(sub.to_string())),
        _ => return None,
    };
    let resource = reg.find(group, version, res)?;
    if namespace.is_some() && !resource.namespaced {
        return None;
    }
    if namespace.is_none() && resource.namespaced && name.is_some() {
        return None;
    }
    if let Some(s) = &sub
        && !resource.has_sub(s)
    {
        return None;
    }
    if name.as_deref() == Some("") {
        return None;
    }
    Some(Target {
        resource,
        namespace,
        name,
        sub,
    })
}

/// Percent-decoding of a path segment (`+` is itself): kubectl escapes a namespace or name
/// that is no DNS name (`${NS}`, `FILLED BY THE OPERATOR`), and the server sees it unescaped,
/// as Go's `url.URL.Path` holds it.
pub fn path_decode(s: &str) -> String {
    percent_decode(&s.replace('+', "%2B"))
}

/// Percent-decoding of a query component (`+` is a space).
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Query parameters, decoded (the last value of a repeated key wins).
pub fn parse_query(q: Option<&str>) -> HashMap<String, String> {
    parse_query_pairs(q).into_iter().collect()
}

/// Query parameters, decoded, in order, repeated keys kept (`dryRun=All&dryRun=All`).
pub fn parse_query_pairs(q: Option<&str>) -> Vec<(String, String)> {
    q.unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (percent_decode(k), percent_decode(v)),
            None => (percent_decode(p), String::new()),
        })
        .collect()
}

/// Whether the `Accept` header asks for a `meta.k8s.io` Table.
pub fn wants_table(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .is_some_and(|first| first.contains("as=Table"))
}

#[cfg(test)]
mod tests;
