//! libFuzzer entry of the `elf_attribution` target: the work is
//! `bottlenose_fuzz_targets::elf_attribution::run` (crates/fuzz-targets/src/elf_attribution.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::elf_attribution::run(data));
