//! The fuzz targets of `fuzz/` as plain functions of one input.
//!
//! Each target checks what bottlenose does with one arbitrary input and
//! panics when something is wrong (a panic inside our crates, an overflow in
//! a build with overflow checks, a broken invariant). `fuzz/fuzz_targets/`
//! hands them to libFuzzer, and `tests/replay.rs` runs every committed input
//! (`fuzz/seeds/TARGET/`, `fuzz/regressions/TARGET/`) and the generated
//! corpus (`fuzz/corpus/TARGET/`, when `fuzz/make_seeds.py` or a fuzzing
//! campaign made one) through the same functions on every `cargo test`, so a
//! change that breaks a fuzzed invariant fails the test suite too.

pub mod asm_gnu_as;
pub mod asm_offline;
pub mod counters_import;
pub mod decode_resolve;
pub mod elf_attribution;
pub mod elf_sources;
pub mod hex;
pub mod machine_loader;
pub mod metric_expr;
pub mod numeric_args;
pub mod qemu_stream;

/// One fuzz target: its name (the binary in `fuzz/` and the corpus folders)
/// and what it does with one input.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

pub const TARGETS: &[Target] = &[
    Target { name: "hex", run: hex::run },
    Target { name: "asm_offline", run: asm_offline::run },
    Target { name: "asm_gnu_as", run: asm_gnu_as::run },
    Target { name: "decode_resolve", run: decode_resolve::run },
    Target { name: "machine_loader", run: machine_loader::run },
    Target { name: "metric_expr", run: metric_expr::run },
    Target { name: "elf_sources", run: elf_sources::run },
    Target { name: "elf_attribution", run: elf_attribution::run },
    Target { name: "qemu_stream", run: qemu_stream::run },
    Target { name: "counters_import", run: counters_import::run },
    Target { name: "numeric_args", run: numeric_args::run },
];
