//! libFuzzer entry of the `counters_import` target: the work is
//! `bottlenose_fuzz_targets::counters_import::run` (crates/fuzz-targets/src/counters_import.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::counters_import::run(data));
