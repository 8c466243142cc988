//! cargo-fuzz target `http`: see `repel_fuzz_targets::http`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| repel_fuzz_targets::http::run(data));
