//! libFuzzer entry of the `numeric_args` target: the work is
//! `bottlenose_fuzz_targets::numeric_args::run` (crates/fuzz-targets/src/numeric_args.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::numeric_args::run(data));
