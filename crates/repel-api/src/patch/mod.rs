//! The three patch formats of `PATCH` requests, on `serde_json::Value`.
//!
//! [`PatchType::from_content_type`] picks the format from the `Content-Type` header;
//! [`strategic_merge`] (kubectl's taint, cordon, apply), [`merge_patch`] (RFC 7386) and
//! [`json_patch()`] (RFC 6902) apply one; [`apply`] does both steps from the raw body. A failure
//! is a [`PatchError`] whose [`PatchError::status`] is the `Status` the API server answers.

pub(crate) mod schema;
mod smp;
#[cfg(test)]
mod tests;

use serde_json::Value;

pub use schema::{FieldMeta, Strategy, Ty, lookup, root};

use crate::status;

/// `application/json-patch+json` (upstream `types.JSONPatchType`).
pub const JSON_PATCH: &str = "application/json-patch+json";
/// `application/merge-patch+json` (upstream `types.MergePatchType`).
pub const MERGE_PATCH: &str = "application/merge-patch+json";
/// `application/strategic-merge-patch+json` (upstream `types.StrategicMergePatchType`).
pub const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";
/// `application/apply-patch+yaml` (upstream `types.ApplyYAMLPatchType`, server-side apply).
pub const APPLY_PATCH: &str = "application/apply-patch+yaml";
/// The patch media types a built-in resource accepts, in the order upstream lists them in its
/// 415 message.
pub const PATCH_MEDIA_TYPES: [&str; 4] =
    [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];

/// How a `PATCH` body is to be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatchType {
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/apply-patch+yaml` (server-side apply; not implemented by [`apply`]).
    Apply,
}

impl PatchType {
    /// The patch type of a `Content-Type` header value, as upstream's `PatchResource` reads it:
    /// parameters after `;` are dropped; anything else is `None` (answer
    /// [`status::unsupported_media_type`] with [`PATCH_MEDIA_TYPES`]).
    pub fn from_content_type(content_type: &str) -> Option<PatchType> {
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        match media.as_str() {
            STRATEGIC_MERGE_PATCH => Some(PatchType::Strategic),
            MERGE_PATCH => Some(PatchType::Merge),
            JSON_PATCH => Some(PatchType::Json),
            APPLY_PATCH => Some(PatchType::Apply),
            _ => None,
        }
    }

    /// The media type of this patch type.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Strategic => STRATEGIC_MERGE_PATCH,
            PatchType::Merge => MERGE_PATCH,
            PatchType::Json => JSON_PATCH,
            PatchType::Apply => APPLY_PATCH,
        }
    }
}

/// Why a patch could not be applied. `Display` is upstream's error text; [`PatchError::status`]
/// is the HTTP answer upstream gives for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The body (or the original) is not a JSON object (`mergepatch.ErrBadJSONDoc`).
    #[error("invalid JSON document")]
    BadJsonDoc,
    /// The body is not valid JSON at all (upstream decodes it first: a 400 with the decoder's text).
    #[error("{0}")]
    Decode(String),
    /// A `$patch` directive with an unknown value (`mergepatch.ErrBadPatchType`):
    /// `unknown patch type: bogus in map: map[$patch:bogus]`.
    #[error("{0}")]
    BadPatchType(String),
    /// A malformed `$deleteFromPrimitiveList/…` key or value.
    #[error("invalid patch format of primitive list")]
    BadFormatPrimitiveList,
    /// A malformed `$retainKeys` list, or a patch key it does not list.
    #[error("invalid patch format of retainKeys")]
    BadFormatRetainKeys,
    /// A malformed `$setElementOrder/…` key.
    #[error("invalid patch format of setElementOrder list")]
    BadFormatSetElementOrder,
    /// A list of lists (`mergepatch.ErrNoListOfLists`).
    #[error("lists of lists are not supported")]
    NoListOfLists,
    /// A merging list element without its merge key (`mergepatch.ErrNoMergeKey`):
    /// `map: map[value:b] does not contain declared merge key: name`.
    #[error("{0}")]
    NoMergeKey(String),
    /// Any other strategic merge patch failure, with upstream's text: a value of the wrong type
    /// where a list or map must be (`mergepatch.ErrBadArgType`, e.g. a `$setElementOrder/…`
    /// that is not a list), list elements of different types, `$patch: merge` in a list, a
    /// patch list out of its `$setElementOrder`'s order.
    #[error("{0}")]
    Other(String),
    /// The JSON patch document is malformed (`jsonpatch.DecodePatch`).
    #[error("{0}")]
    JsonPatchDecode(String),
    /// A JSON patch operation failed (test failed, path missing, …).
    #[error("{0}")]
    JsonPatchApply(String),
    /// Server-side apply (`application/apply-patch+yaml`) is not implemented here.
    #[error("server-side apply is not supported")]
    Unsupported,
}

impl PatchError {
    /// The `Status` answered for this error, upstream's `interpretStrategicMergePatchError`
    /// and the JSON patcher's errors, except that no client input is answered with a 5xx:
    /// 1. malformed documents and directives: 400 BadRequest with the error text;
    /// 2. lists of lists: 422 from `NewGenericServerResponse` ("the server rejected our
    ///    request due to an error in our request"), as is a failed JSON patch operation;
    /// 3. every other strategic merge patch error (an unknown `$patch`, a missing merge key, a
    ///    `$setElementOrder/…` that is not a list, …): 400 BadRequest with upstream's text.
    ///    Upstream returns these errors unwrapped, so kube-apiserver answers them 500 with no
    ///    reason; here a 5xx would mean a bug in repel, and the request is what is wrong;
    /// 4. server-side apply: 415 listing the patch types that work here.
    pub fn status(&self) -> (u16, Value) {
        match self {
            PatchError::BadJsonDoc
            | PatchError::Decode(_)
            | PatchError::BadPatchType(_)
            | PatchError::BadFormatPrimitiveList
            | PatchError::BadFormatRetainKeys
            | PatchError::BadFormatSetElementOrder
            | PatchError::NoMergeKey(_)
            | PatchError::Other(_)
            | PatchError::JsonPatchDecode(_) => status::bad_request(&self.to_string()),
            PatchError::NoListOfLists | PatchError::JsonPatchApply(_) => {
                status::generic_unprocessable()
            }
            PatchError::Unsupported => {
                status::unsupported_media_type(&[JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH])
            }
        }
    }
}

/// Apply a strategic merge patch to an object of `kind` (upstream
/// `strategicpatch.StrategicMergeMapPatch` with the kind's Go struct as schema). Lists with a
/// patch merge key merge by it (`containers`/`volumes`/`env` by `name`, `ports` by
/// `containerPort`, `conditions`/`addresses` by `type`, `ownerReferences` by `uid`, …); lists
/// without one (`taints`, `tolerations`, …) are replaced; `null` deletes; the directives
/// `$patch`, `$retainKeys`, `$setElementOrder/…` and `$deleteFromPrimitiveList/…` are applied
/// and never stored. See the `smp` module docs for the full rule list.
pub fn strategic_merge(kind: &str, original: &Value, patch: &Value) -> Result<Value, PatchError> {
    let (Value::Object(o), Value::Object(p)) = (original, patch) else {
        return Err(PatchError::BadJsonDoc);
    };
    smp::merge_map(o.clone(), p.clone(), root(kind)).map(Value::Object)
}

/// RFC 7386 JSON merge patch (upstream uses `jsonpatch.MergePatch`): objects merge
/// recursively, `null` deletes, anything else (including lists) replaces.
pub fn merge_patch(original: &Value, patch: &Value) -> Value {
    let mut out = original.clone();
    json_patch::merge(&mut out, patch);
    out
}

/// RFC 6902 JSON patch: the body must be an array of operations (`null` is no operation, as
/// upstream's `jsonpatch.DecodePatch` reads it); anything else is upstream's decode error
/// `json: cannot unmarshal object into Go value of type jsonpatch.Patch`.
pub fn json_patch(original: &Value, patch: &Value) -> Result<Value, PatchError> {
    match patch {
        Value::Null => return Ok(original.clone()),
        Value::Array(_) => {}
        other => {
            return Err(PatchError::JsonPatchDecode(format!(
                "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
                go_json_type(other)
            )));
        }
    }
    let ops: json_patch::Patch = serde_json::from_value(patch.clone())
        .map_err(|e| PatchError::JsonPatchDecode(e.to_string()))?;
    let mut out = original.clone();
    json_patch::patch(&mut out, &ops).map_err(|e| PatchError::JsonPatchApply(e.to_string()))?;
    Ok(out)
}

/// The JSON type name Go's `encoding/json` uses in an `UnmarshalTypeError`.
fn go_json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Parse a raw `PATCH` body and apply it with `patch_type` to `original` (an object of `kind`),
/// reading the body as the API server does:
/// 1. a body that is not JSON: [`PatchError::Decode`] (400) with the parser's message;
/// 2. strategic merge: `null` is an empty patch; another non-object is
///    `json: cannot unmarshal array into Go value of type map[string]interface {}` (400);
/// 3. merge patch: `null` is `Invalid JSON Patch` (400, `jsonpatch.MergePatch`'s error); a
///    non-object replaces the document (RFC 7386);
/// 4. JSON patch: see [`json_patch()`];
/// 5. server-side apply: [`PatchError::Unsupported`] (415).
pub fn apply(
    kind: &str,
    patch_type: PatchType,
    original: &Value,
    body: &[u8],
) -> Result<Value, PatchError> {
    if patch_type == PatchType::Apply {
        return Err(PatchError::Unsupported);
    }
    let patch: Value =
        serde_json::from_slice(body).map_err(|e| PatchError::Decode(e.to_string()))?;
    match patch_type {
        PatchType::Strategic => match &patch {
            Value::Null => strategic_merge(kind, original, &Value::Object(Default::default())),
            Value::Object(_) => strategic_merge(kind, original, &patch),
            other => Err(PatchError::Decode(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                go_json_type(other)
            ))),
        },
        PatchType::Merge => match &patch {
            Value::Null => Err(PatchError::Decode("Invalid JSON Patch".to_string())),
            _ => Ok(merge_patch(original, &patch)),
        },
        PatchType::Json => json_patch(original, &patch),
        PatchType::Apply => Err(PatchError::Unsupported),
    }
}
