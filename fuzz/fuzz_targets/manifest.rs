//! cargo-fuzz target `manifest`: see `repel_fuzz_targets::manifest`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| repel_fuzz_targets::manifest::run(data));
