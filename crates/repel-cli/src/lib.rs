//! repel-cli's library: the manifest reader the `repel` command uses, for other harnesses.
//!
//! The command itself is the `repel` binary (`main.rs`); this library holds what is shared
//! with code outside it, today the reader of `-f` manifests, which the fuzz targets drive
//! directly. Start with [`input::parse_documents`] and [`input::Inventory`].
//!
//! # Layout
//! - [`input`]: reading manifests (`-f FILE|DIR|-`, YAML/JSON, multi-document, `kind: List`).
//! - [`live`]: a live cluster read once, read-only, through a kubeconfig; `repel snapshot`.
//! - [`kubeconfig`]: which cluster a live read reaches (client-go's loading rules, in-cluster).

pub mod input;
pub mod kubeconfig;
pub mod live;

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
