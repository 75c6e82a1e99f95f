//! libFuzzer entry of the `metric_expr` target: the work is
//! `bottlenose_fuzz_targets::metric_expr::run` (crates/fuzz-targets/src/metric_expr.rs), which
//! the main workspace's tests also replay on every committed input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bottlenose_fuzz_targets::metric_expr::run(data));
