//! repel-api: the Kubernetes API server's JSON-level machinery, pure and synchronous, on
//! `serde_json::Value`.
//!
//! Start with [`patch`] (strategic merge patch, JSON merge patch, JSON patch) and [`status`]
//! (upstream's `Status` error objects, messages byte for byte). [`table`] renders the
//! `meta.k8s.io/v1` `Table` kubectl asks for, [`selector`] parses field and label selectors and
//! matches them against objects, and [`strict`] finds the unknown (and duplicate) fields that
//! `fieldValidation=Strict` rejects. Nothing here does I/O, reads a clock or holds state: the
//! server (`repel-server`) calls these functions with the time and objects it has.
//!
//! # Layout
//! - [`patch`]: `PatchType`, `strategic_merge` (with the merge-key schema of the served kinds),
//!   `merge_patch` (RFC 7386), `json_patch` (RFC 6902), `apply` (raw body), `PatchError::status`.
//! - [`status`]: `Status` builders (`not_found`, `conflict`, `invalid`, …) returning `(code, body)`.
//! - [`table`]: tables of the served kinds as upstream's printers fill them; `human_duration`.
//! - [`selector`]: field selectors (with each kind's supported fields) and label selectors over
//!   JSON objects.
//! - [`strict`]: unknown fields, found by decoding into the k8s-openapi types through
//!   `serde_ignored`; duplicate fields, found in the raw body.
//! - [`gofmt`]: how Go's `fmt` prints JSON-decoded values (`%v`), used in upstream's messages.
//! - [`managed`]: `metadata.managedFields` and server-side apply, as kube-apiserver's field
//!   manager does them.
//!
//! # Example: `kubectl taint` then `kubectl get nodes`
//!
//! ```
//! use repel_api::{patch, status, table};
//! use serde_json::json;
//!
//! let node = json!({"metadata": {"name": "node1", "creationTimestamp": "2026-01-01T00:00:00Z"},
//!                   "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
//! // kubectl sends the whole taint list; `taints` has no merge key, so it is replaced.
//! let body = br#"{"spec":{"taints":[{"effect":"NoSchedule","key":"key1","value":"value1"}]}}"#;
//! let pt = patch::PatchType::from_content_type("application/strategic-merge-patch+json").unwrap();
//! let node = patch::apply("Node", pt, &node, body).unwrap();
//! assert_eq!(node["spec"]["taints"][0]["key"], "key1");
//!
//! let now = "2026-01-01T00:05:00Z".parse().unwrap();
//! let t = table::node_table(&[&node], now, "42");
//! let cells = t["rows"][0]["cells"].as_array().unwrap();
//! assert_eq!(cells[..4], [json!("node1"), json!("Ready"), json!("<none>"), json!("5m")]);
//!
//! let (code, body) = status::not_found("nodes", "nope");
//! assert_eq!((code, body["message"].as_str()), (404, Some(r#"nodes "nope" not found"#)));
//! ```

pub mod gofmt;
pub mod managed;
pub mod patch;
pub mod selector;
pub mod status;
pub mod strict;
pub mod table;

pub use patch::{PatchError, PatchType};

#[cfg(test)]
mod layout_tests {
    #[test]
    fn every_public_module_is_in_the_crate_layout() {
        assert_eq!(
            repel_core::doc_layout::unlisted_modules(include_str!("lib.rs")),
            Vec::<String>::new()
        );
    }
}
