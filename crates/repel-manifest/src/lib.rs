//! repel-manifest: Kubernetes objects read as kubectl reads them — manifests given with
//! `-f FILE|DIR|-` (YAML or JSON, multi-document, `kind: List`) and a live cluster read once,
//! read-only, through a kubeconfig — sorted into an [`Inventory`] that a cluster is built from.
//!
//! Reading goes by stage, one module each: [`read`] (paths and text) → [`documents`] (a file's
//! documents) → [`objects`] (each document's objects, named and checked) → [`decode`] (typed,
//! with unknown fields) → [`strict`] (unknown and repeated fields answered as `--validate`
//! says) → [`inventory`] (sorted by kind). Start with [`Inventory::load`], or
//! [`parse_documents`] and [`Inventory::add`] for text in hand; a live cluster is
//! [`live::read`] then [`live::add_to`]. The `repel` command and the fuzz targets use it.
//!
//! # Layout
//! - [`read`]: `-f` arguments expanded to files (`-R`), each input's text read with a limit.
//! - [`documents`]: a file's text split into JSON or YAML documents, repeated keys listed.
//! - [`objects`]: a document's objects (`kind: List` flattened), names, legacy apiVersions,
//!   the checks typed decoding lets through.
//! - [`decode`]: objects typed into k8s-openapi's types, unknown fields listed, on every core.
//! - [`strict`]: unknown and duplicate fields, worded as the API server and answered as
//!   kubectl's `--validate`.
//! - [`inventory`]: [`Inventory`], everything read by kind, and the cluster input it becomes.
//! - [`error`]: [`Source`] (where an object was read) and [`InputError`].
//! - [`yaml`]: the fast multi-document YAML read (parallel, serde-saphyr's semantics) and the
//!   YAML writer snapshots use.
//! - [`locate`]: the line and column of a field, found again in its file's text.
//! - [`tree`]: a JSON document read for passing through (an API server's list page).
//! - [`live`]: a live cluster read once, read-only, through a kubeconfig; snapshots.
//! - [`kubeconfig`]: which cluster a live read reaches (client-go's loading rules, in-cluster).

pub mod decode;
pub mod documents;
pub mod error;
pub mod inventory;
pub mod kubeconfig;
pub mod live;
pub mod locate;
pub mod objects;
pub mod read;
pub mod strict;
pub mod tree;
pub mod yaml;

pub use decode::{plain_type_error, typed_strict};
pub use documents::{RawDoc, parse_documents};
pub use error::{InputError, Source};
pub use inventory::{Inventory, Loaded};
pub use objects::{
    LEGACY_API_VERSIONS, MAX_GENERATED_BASE, MAX_REPLICAS, QUANTITY_ERR, describe_value,
    for_each_object,
};
pub use read::{
    MAX_INPUT_BYTES, MAX_INPUT_BYTES_ENV, expand_paths, max_input_bytes, read_text,
    read_text_limited,
};
pub use strict::{StrictReport, Validate, answer_strict, item_duplicates, strict_report};

use serde_json::Value;

/// A field of nested objects: `v.at(&["metadata", "name"])` is `v.pointer("/metadata/name")`
/// for keys without `/` or `~`, without parsing the pointer and unescaping each of its tokens
/// into a new string (reading the objects of a 150,000-pod cluster asks hundreds of thousands
/// of these).
pub(crate) trait At {
    fn at(&self, path: &[&str]) -> Option<&Value>;
}

impl At for Value {
    fn at(&self, path: &[&str]) -> Option<&Value> {
        path.iter()
            .try_fold(self, |v, key| v.as_object()?.get(*key))
    }
}

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
