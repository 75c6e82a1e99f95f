//! libFuzzer entry of the `hex` target: the work is
//! `bottlenose_fuzz_targets::hex::run` (crates/fuzz-targets/src/hex.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::hex::run(data));
