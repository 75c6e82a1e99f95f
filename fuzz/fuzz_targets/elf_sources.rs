//! libFuzzer entry of the `elf_sources` target: the work is
//! `bottlenose_fuzz_targets::elf_sources::run` (crates/fuzz-targets/src/elf_sources.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::elf_sources::run(data));
