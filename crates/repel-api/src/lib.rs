//! repel-api: the Kubernetes API server's JSON-level machinery, pure and synchronous, on
//! `serde_json::Value`.
//!
//! Start with [`patch`] (strategic merge patch, JSON merge patch, JSON patch) and [`status`]
//! (upstream's `Status` error objects, messages byte for byte). [`table`] renders the
//! `meta.k8s.io/v1` `Table` kubectl asks for, [`selector`] parses field and label selectors and
//! matches them against objects, and [`strict`] finds the unknown fields that
//! `fieldValidation=Strict` rejects. Nothing here does I/O, reads a clock or holds state: the
//! server (`repel-server`) calls these functions with the time and objects it has.
//!
//! # Layout
//! - [`patch`]: `PatchType`, `strategic_merge` (with the merge-key schema of the served kinds),
//!   `merge_patch` (RFC 7386), `json_patch` (RFC 6902).
//! - [`status`]: `Status` builders (`not_found`, `conflict`, `invalid`, …) returning `(code, body)`.
//! - [`table`]: node, pod and generic tables; `human_duration`.
//! - [`selector`]: field selectors and label selectors over JSON objects.
//! - [`strict`]: unknown-field detection by round-tripping through the k8s-openapi types.
//! - [`gofmt`]: how Go's `fmt` prints JSON-decoded values (`%v`), used in upstream's messages.

pub mod gofmt;
pub mod patch;
pub mod selector;
pub mod status;
pub mod strict;
pub mod table;

pub use patch::{PatchError, PatchType};
