//! cargo-fuzz target `scenario`: see `repel_fuzz_targets::scenario`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| repel_fuzz_targets::scenario::run(data));
