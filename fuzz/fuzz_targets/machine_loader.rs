//! libFuzzer entry of the `machine_loader` target: the work is
//! `bottlenose_fuzz_targets::machine_loader::run` (crates/fuzz-targets/src/machine_loader.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::machine_loader::run(data));
