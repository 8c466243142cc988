//! Protobuf bodies (`application/vnd.kubernetes.protobuf`), as kube-apiserver reads and writes
//! them: the `k8s\0` magic, then a `runtime.Unknown` envelope holding the object's apiVersion
//! and kind and the object's own message.
//!
//! The codec is table-driven: [`schema::MESSAGES`] lists, for every message of the served group
//! versions, each field's protobuf tag and type (from the kube-rs project's `k8s-pb` crate,
//! whose prost types the tests use as the reference encoder and decoder) and its JSON name,
//! whether Go writes its zero value in JSON (a pointer, or no `omitempty`) and whether it is
//! inlined (from the Go types of k8s.io/api). `scripts/gen-proto-schema.py` writes the table.
//! Decoding gives the JSON object the same request would have carried as JSON — a non-pointer
//! `omitempty` field Go's protobuf always writes is left out when zero, as Go's JSON would —
//! so everything after the decode (admission, validation, storage) is the JSON path's.
//!
//! Types with their own JSON form are converted as upstream's `MarshalJSON` does: IntOrString
//! (a number or a string), Quantity (its string), Time (RFC 3339 seconds; the zero time is
//! left out), MicroTime (six fractional digits), Duration (Go's duration string), RawExtension
//! and FieldsV1 (their raw JSON). Fields the table lacks (newer than the k8s-pb release) are
//! skipped on decode and not written on encode.

mod decode;
mod encode;
#[allow(clippy::all, missing_docs)]
#[rustfmt::skip]
mod schema;

pub use decode::*;
pub use encode::*;

#[cfg(test)]
mod tests;

use std::sync::LazyLock;

use base64::Engine;
use serde_json::{Map, Value};

/// The media type of Kubernetes protobuf.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The four bytes every Kubernetes protobuf body starts with.
const MAGIC: &[u8; 4] = b"k8s\0";

/// A message of the table.
pub(crate) struct Message {
    name: &'static str,
    fields: &'static [Field],
}

/// A field of a message.
pub(crate) struct Field {
    tag: u32,
    json: &'static str,
    ty: Ty,
    repeated: bool,
    /// Go writes the zero value into JSON (a pointer field, or one without `omitempty`).
    emit_zero: bool,
    /// An embedded Go struct: its fields are the parent's in JSON.
    inline: bool,
}

/// A field's protobuf type. Map keys are always strings.
#[derive(Clone, Copy)]
pub(crate) enum Ty {
    Str,
    Bool,
    I32,
    I64,
    /// No message of the served group versions has one today; kept for the table's next release.
    #[allow(dead_code)]
    F64,
    Bytes,
    Msg(u16),
    MapStr,
    MapBytes,
    MapMsg(u16),
}

/// A message whose JSON form is not its fields'.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    None,
    IntOrString,
    Quantity,
    Time,
    MicroTime,
    Duration,
    Raw,
}

static SPECIAL: LazyLock<Vec<Special>> = LazyLock::new(|| {
    schema::MESSAGES
        .iter()
        .map(|m| match m.name {
            "apimachinery.pkg.util.intstr.IntOrString" => Special::IntOrString,
            "apimachinery.pkg.api.resource.Quantity" => Special::Quantity,
            "apimachinery.pkg.apis.meta.v1.Time" => Special::Time,
            "apimachinery.pkg.apis.meta.v1.MicroTime" => Special::MicroTime,
            "apimachinery.pkg.apis.meta.v1.Duration" => Special::Duration,
            "apimachinery.pkg.runtime.RawExtension" | "apimachinery.pkg.apis.meta.v1.FieldsV1" => {
                Special::Raw
            }
            _ => Special::None,
        })
        .collect()
});

/// Why a body could not be read or an object not written as protobuf.
#[derive(Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

/// Whether `accept` (an Accept header) asks for protobuf before JSON, as client-go's typed
/// clients do (`application/vnd.kubernetes.protobuf,application/json`).
pub fn preferred(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .and_then(|m| m.split(';').next())
        .is_some_and(|m| m.trim() == MEDIA_TYPE)
}

/// The message of `kind` at `api_version`, when the table has it.
fn message_of(api_version: &str, kind: &str) -> Option<u16> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let module = match group {
        "" => "api.core".to_string(),
        "meta.k8s.io" => "apimachinery.pkg.apis.meta".to_string(),
        "apiextensions.k8s.io" => return None,
        g => {
            let g = g.strip_suffix(".k8s.io").unwrap_or(g);
            format!("api.{}", g.split('.').next().unwrap_or(g))
        }
    };
    let find = |name: &str| {
        schema::MESSAGES
            .binary_search_by(|m| m.name.cmp(name))
            .ok()
            .and_then(|i| u16::try_from(i).ok())
    };
    find(&format!("{module}.{version}.{kind}")).or_else(|| {
        // `Status` and the other meta kinds are served at `v1` too.
        (group.is_empty() || group == "meta.k8s.io")
            .then(|| find(&format!("apimachinery.pkg.apis.meta.{version}.{kind}")))
            .flatten()
    })
}

/// Whether an object of `kind` at `api_version` can be written as protobuf.
pub fn has_kind(api_version: &str, kind: &str) -> bool {
    message_of(api_version, kind).is_some()
}
