//! Machine parameters for tests, examples and benchmarks.
//!
//! The built-in `skylake` machine's parameters (machines/skylake.toml, the file the
//! tool itself uses), so that the functional layer's tests and the tool cannot drift
//! apart, without its prefetchers: a test sees each demand miss as it happens.

use bottlenose_machine::{Params, PrefetchParams, Replacement};

/// Skylake client (machines/skylake.toml): L1I/L1D 32 KiB 8-way, L2 256 KiB 4-way,
/// L3 8 MiB 16-way, 64 B lines; DTLB 64/4, ITLB 128/8, STLB 1536/12; no prefetcher.
pub fn skylake_like() -> Params {
    let machine = bottlenose_machine::load_builtin("skylake")
        .expect("skylake is a built-in machine")
        .unwrap_or_else(|e| panic!("machines/skylake.toml does not load: {e}"));
    Params { prefetch: PrefetchParams::default(), ..machine.params }
}

/// [`skylake_like`] with every cache switched to `replacement`.
pub fn skylake_like_with(replacement: Replacement) -> Params {
    let mut p = skylake_like();
    for c in &mut p.caches {
        c.replacement = replacement;
    }
    p
}
