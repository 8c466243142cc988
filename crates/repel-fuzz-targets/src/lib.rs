//! repel-fuzz-targets: the bodies of repel's fuzz targets, as plain functions of `&[u8]`.
//!
//! Each target takes arbitrary bytes, reads them as the part of repel it exercises does, and
//! must end in a clear error or a result: a panic (or a broken invariant, which panics) is a
//! bug. Two drivers run them: `fuzz/` (cargo-fuzz, libFuzzer; `cargo fuzz run <name>`) and this
//! crate's replay test (`tests/replay.rs`), which runs every target over the committed corpus
//! `fuzz/corpus/<name>/` plus a few thousand inputs from the seeded [`mutate::Mutator`], so CI
//! needs neither cargo-fuzz nor a nightly toolchain. Start with [`TARGETS`].
//!
//! # Layout
//! - [`manifest`]: the manifest reader (`repel_manifest`), YAML or JSON text.
//! - [`taint`]: `kubectl taint` arguments (`repel_core::kubectl`).
//! - [`scenario`]: a `kind: Scenario` file (`repel_engine::scenario`), inline objects included.
//! - [`patch`]: strategic merge, merge and JSON patches (`repel_api::patch`).
//! - [`selector`]: label and field selectors (`repel_api::selector`).
//! - [`http`]: requests to `repel serve`'s router, in process.
//! - [`mutate`]: the seeded mutator of the replay test.

pub mod http;
pub mod manifest;
pub mod mutate;
pub mod patch;
pub mod scenario;
pub mod selector;
pub mod taint;

/// One fuzz target: its name (the cargo-fuzz target and the corpus folder) and its body.
pub struct Target {
    /// `fuzz/fuzz_targets/<name>.rs` and `fuzz/corpus/<name>/`.
    pub name: &'static str,
    /// The body: any bytes in, no panic out.
    pub run: fn(&[u8]),
    /// How many mutated inputs the replay test runs: about 2 s of a debug build each (the
    /// HTTP target builds a store per input, ~7 ms in debug, so it runs fewer).
    pub replay_mutations: usize,
}

/// Every target, in the order the replay test and `scripts/fuzz-bench.sh` run them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "manifest",
        run: manifest::run,
        replay_mutations: 1500,
    },
    Target {
        name: "taint",
        run: taint::run,
        replay_mutations: 5000,
    },
    Target {
        name: "scenario",
        run: scenario::run,
        replay_mutations: 1500,
    },
    Target {
        name: "patch",
        run: patch::run,
        replay_mutations: 5000,
    },
    Target {
        name: "selector",
        run: selector::run,
        replay_mutations: 2000,
    },
    Target {
        name: "http",
        run: http::run,
        replay_mutations: 300,
    },
];

/// The input as text, as the readers take it (they refuse what is not UTF-8).
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
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
