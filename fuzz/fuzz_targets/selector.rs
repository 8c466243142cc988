//! cargo-fuzz target `selector`: see `repel_fuzz_targets::selector`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| repel_fuzz_targets::selector::run(data));
