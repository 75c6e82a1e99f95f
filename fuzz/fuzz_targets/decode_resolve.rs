//! libFuzzer entry of the `decode_resolve` target: the work is
//! `bottlenose_fuzz_targets::decode_resolve::run` (crates/fuzz-targets/src/decode_resolve.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::decode_resolve::run(data));
