//! libFuzzer entry of the `asm_offline` target: the work is
//! `bottlenose_fuzz_targets::asm_offline::run` (crates/fuzz-targets/src/asm_offline.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::asm_offline::run(data));
