//! Request bodies and media types (JSON, protobuf, apply YAML, patches), and object replies.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use axum::response::Response;
use repel_api::status;
use serde_json::Value;

use crate::registry::ApiResource;
use crate::request::{ApiError, json_reply};

/// The body of an apply patch: YAML (or JSON, which is YAML), one object.
pub(crate) fn apply_body(body: &Bytes) -> Result<Value, ApiError> {
    let bad = |e: String| ApiError::from(status::bad_request(&format!("error decoding YAML: {e}")));
    let text = std::str::from_utf8(body).map_err(|e| bad(e.to_string()))?;
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))?,
    };
    if !v.is_object() {
        return Err(bad("the apply patch is not an object".into()));
    }
    Ok(v)
}

/// The media types a custom resource takes in a `PATCH` (no strategic merge patch, as
/// upstream: a custom object has no patch strategy).
pub(crate) const CUSTOM_PATCH_MEDIA_TYPES: [&str; 3] = [
    repel_api::patch::JSON_PATCH,
    repel_api::patch::MERGE_PATCH,
    repel_api::patch::APPLY_PATCH,
];

/// The request's `Accept`.
pub(crate) fn accept(headers: &HeaderMap) -> &str {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// The request's `Content-Type`.
pub(crate) fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// Whether a create/update body is protobuf (what kubectl's typed clients send for
/// `kubectl create deployment` and the like).
pub(crate) fn is_protobuf(headers: &HeaderMap) -> bool {
    let media = content_type(headers).split(';').next().unwrap_or("").trim();
    media == crate::proto::MEDIA_TYPE
}

/// A create/update body must be JSON or, for a built-in kind, protobuf; anything else gets
/// upstream's 415.
pub(crate) fn check_body_type(r: &ApiResource, headers: &HeaderMap) -> Result<(), ApiError> {
    let ct = content_type(headers);
    let media = ct.split(';').next().unwrap_or("").trim();
    if media.is_empty() || media == "application/json" || media == "*/*" {
        return Ok(());
    }
    if media == crate::proto::MEDIA_TYPE && !r.is_custom() {
        return Ok(());
    }
    let mut accepted = vec!["application/json"];
    if !r.is_custom() {
        accepted.push(crate::proto::MEDIA_TYPE);
    }
    Err(status::unsupported_media_type(&accepted).into())
}

/// A create/update body, decoded as upstream does: under `fieldValidation=Strict`, unknown and
/// duplicate fields are a 400 listing them in document order (repel-api `check_body`). A
/// protobuf body becomes the JSON object it stands for (see [`crate::proto`]); it has no
/// unknown or duplicate fields to report.
pub(crate) fn decode_body(
    r: &ApiResource,
    headers: &HeaderMap,
    body: &Bytes,
    query: &HashMap<String, String>,
) -> Result<Value, ApiError> {
    if is_protobuf(headers) {
        return crate::proto::decode(body).map_err(|e| {
            ApiError::from(status::bad_request(&format!(
                "error decoding request body: {e}"
            )))
        });
    }
    if !crate::admission::strict(query) || r.is_custom() {
        return parse_body(body);
    }
    let (obj, errors) = repel_api::strict::check_body(&r.kind, body).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "error decoding request body: {e}"
        )))
    })?;
    if !errors.is_empty() {
        return Err(status::strict_body_errors(&r.kind, &errors).into());
    }
    Ok(obj)
}

/// An object in reply: protobuf when the client asks for it first and the kind has a
/// message, else JSON.
pub(crate) fn object_reply(protobuf: bool, code: u16, obj: &Value) -> Response {
    if protobuf && let Ok(b) = crate::proto::encode(obj) {
        return crate::request::bytes_reply(code, b, crate::proto::MEDIA_TYPE);
    }
    json_reply(code, obj)
}

pub(crate) fn parse_body(body: &Bytes) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "error decoding request body: {e}"
        )))
    })
}
