//! kubectl's own rules, the ones it applies on the client before it calls the API server, and
//! the eviction subresource its drain calls: one home for what the scenario's `kubectl:` steps
//! ([`crate::kubectl_steps`]) and the drain what-ifs ([`crate::drain`]) both follow.
//!
//! # Layout
//! - [`drain`]: `kubectl drain`'s flags, pod filters and their messages.
//! - [`eviction`]: the eviction API (`pods/<name>/eviction`) as the API server answers it.

pub mod drain;
pub mod eviction;

#[cfg(test)]
mod layout_tests {
    #[test]
    fn every_public_module_is_in_the_layout() {
        assert_eq!(
            repel_core::doc_layout::unlisted_modules(include_str!("kubectl.rs")),
            Vec::<String>::new()
        );
    }
}
