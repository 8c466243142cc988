//! cargo-fuzz target `taint`: see `repel_fuzz_targets::taint`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| repel_fuzz_targets::taint::run(data));
