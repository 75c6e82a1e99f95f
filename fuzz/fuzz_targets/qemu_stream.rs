//! libFuzzer entry of the `qemu_stream` target: the work is
//! `bottlenose_fuzz_targets::qemu_stream::run` (crates/fuzz-targets/src/qemu_stream.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::qemu_stream::run(data));
