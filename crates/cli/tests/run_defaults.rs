//! The defaults of `bottlenose run` are the real core's: the code before a
//! region of interest warms the caches, TLBs and predictors (`--cold` empties
//! them), the machine's data prefetchers run, and the report counts the region
//! only. Machine: skylake (the tests pin BOTTLENOSE_MACHINE).
mod common;
use common::{compile, run_json};
use serde_json::Value;

/// `init` writes 16 KiB (fits skylake's 32 KiB L1D); `sum` reads it once, `n`
/// times in a row. `stream` reads 8 MiB once (beyond the 8 MiB L3 with what
/// the program touched before it).
const PROG: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#define SMALL 2048
static double small[SMALL];
__attribute__((noinline)) void init(void) { for (int i = 0; i < SMALL; i++) small[i] = i; }
__attribute__((noinline)) double sum(void) { double s = 0; for (int i = 0; i < SMALL; i++) s += small[i]; return s; }
__attribute__((noinline)) long stream(const long *a, long n) { long s = 0; for (long i = 0; i < n; i++) s += a[i]; return s; }
int main(int argc, char **argv) {
    init();
    double s = sum();
    if (argc > 1) {
        long n = 1L << 20;
        long *a = malloc(n * sizeof(long));
        for (long i = 0; i < n; i++) a[i] = 1;
        /* evict a from the caches: 16 MiB of other data */
        long m = 2L << 20;
        double *b = malloc(m * sizeof(double));
        for (long i = 0; i < m; i++) b[i] = 2;
        s += stream(a, n) + b[m / 2];
    }
    printf("%f\n", s);
    return 0;
}
"#;

fn l1d_misses(v: &Value) -> u64 {
    let levels = v["functional"]["caches"]["levels"].as_array().unwrap();
    levels.iter().find(|l| l["name"] == "L1D").unwrap()["misses"].as_u64().unwrap()
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("no {k}"))
}

#[test]
fn regions_start_warm_unless_cold_and_count_only_themselves() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "defaults", PROG, &["-O1", "-fno-tree-vectorize"]);
    // without prefetchers, which would hide the cold misses of this sequential walk
    let warm = run_json(&["--roi", "function:sum", "--prefetcher", "none", "--no-idealize"], &exe, &[]);
    let cold = run_json(&["--roi", "function:sum", "--prefetcher", "none", "--cold", "--no-idealize"], &exe, &[]);
    // 16 KiB = 256 lines, just written by init(): all in L1D when warm, all
    // missing when cold
    assert!(l1d_misses(&warm) <= 4, "warm: {} L1D misses", l1d_misses(&warm));
    assert!(l1d_misses(&cold) >= 256, "cold: {} L1D misses", l1d_misses(&cold));
    // the counters are the region's only: its loop's 2048 conditional branches
    // and a few more (call, return), not the program's start-up or init()
    let branches = warm["functional"]["branches"]["conditional"]["branches"].as_u64().unwrap();
    assert!((2048..2048 + 16).contains(&branches), "{branches} conditional branches counted");
    let accesses = warm["functional"]["caches"]["data_accesses"].as_u64().unwrap();
    assert!((2048..2048 + 16).contains(&accesses), "{accesses} data accesses counted");
    assert!(f(&warm, "cycles") < f(&cold, "cycles"), "warm {} vs cold {}", f(&warm, "cycles"), f(&cold, "cycles"));
}

#[test]
fn streams_run_at_dram_bandwidth_with_the_default_prefetchers() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "defaults", PROG, &["-O1", "-fno-tree-vectorize"]);
    let args = ["--roi", "function:stream", "--no-idealize"];
    let default = run_json(&args, &exe, &["stream"]);
    let none = run_json(&[&args[..], &["--prefetcher", "none"]].concat(), &exe, &["stream"]);
    assert!(default["prefetcher"].as_str().unwrap().starts_with("next-line + stream"), "{}", default["prefetcher"]);
    // 8 MiB of 8-byte elements from DRAM, while the 8 MiB L3 holds the last 8 MiB
    // of `b`, written just before and so dirty: every line the stream brings in
    // pushes a dirty line of `b` out to DRAM, 16 B of DRAM traffic per element.
    // skylake's file says 8 B/cycle, so at least 2 cycles per element; the loop
    // (load+add, increment, compare and branch: 3 fused uops on a 4-wide core)
    // needs 0.75. With the prefetcher hiding DRAM latency the bandwidth bounds it
    let elements = (1u64 << 20) as f64;
    let per_element = f(&default, "cycles") / elements;
    assert!((1.95..2.6).contains(&per_element), "default: {per_element:.2} cycles per element");
    // without a prefetcher each line waits 250 cycles of DRAM latency with
    // the ROB (224) holding ~75 elements (~9 lines) in flight: ~28 cycles per
    // line, 3.5 per element, and the lines miss L1D as demand accesses
    let none_per_element = f(&none, "cycles") / elements;
    assert!(none_per_element > per_element + 1.0, "none: {none_per_element:.2} vs default {per_element:.2}");
    let lines = 131072;
    assert!(l1d_misses(&default) < lines / 10, "default: {} of {lines} lines missed", l1d_misses(&default));
    assert!(l1d_misses(&none) > lines * 9 / 10, "none: {} of {lines} lines missed", l1d_misses(&none));
}
