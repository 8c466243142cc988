//! cargo-fuzz target `patch`: see `repel_fuzz_targets::patch`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| repel_fuzz_targets::patch::run(data));
