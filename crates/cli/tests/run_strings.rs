//! `bottlenose run` on string instructions. QEMU reports a `rep movs` once per element;
//! the run must time each execution once, from its count, with its lines through the
//! caches. Bounds come from the zen4 machine file's figures (its `[strings]` section and
//! its memory bandwidths), not from the model's output.

mod common;

use bottlenose_machine::{load_builtin, Machine};
use common::{compile, run_json};
use serde_json::Value;

/// `copy MODE`: between the ROI markers, 4 copies of 1 MiB (`movsb`, `movsq`, `loop`: a
/// word-by-word loop, `back`: `std; rep movsb` from the top down), or 1000 `repne scasb`
/// over a buffer whose byte 100 is the one looked for (`scan`), or 1000 `rep stosb` with
/// rcx = 0 (`zero`).
const COPY_C: &str = r#"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#define N (1L << 20)
int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "movsb";
    char *src = malloc(N), *dst = malloc(N);
    memset(src, 1, N);
    memset(dst, 2, N);
    src[100] = 0;
    long found = 0;
    __asm__ volatile("xchg %%rbx, %%rbx" ::: "memory");
    if (!strcmp(mode, "scan") || !strcmp(mode, "zero")) {
        for (int k = 0; k < 1000; k++) {
            void *d = src; unsigned long n = 1000;
            if (mode[0] == 's') __asm__ volatile("repne scasb" : "+D"(d), "+c"(n) : "a"(0) : "memory", "cc");
            else { n = 0; __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory"); }
            found += n;
        }
    } else {
        for (int k = 0; k < 4; k++) {
            void *d = dst, *s = src; unsigned long n = N;
            if (!strcmp(mode, "movsb")) __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
            else if (!strcmp(mode, "movsq")) { n = N / 8; __asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory"); }
            else if (!strcmp(mode, "back")) {
                d = dst + N - 1; s = src + N - 1;
                __asm__ volatile("std; rep movsb; cld" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
            } else {
                volatile long *x = (long *)dst; const long *y = (const long *)src;
                for (long i = 0; i < N / 8; i++) x[i] = y[i];
            }
        }
    }
    __asm__ volatile("xchg %%rcx, %%rcx" ::: "memory");
    printf("%d %ld\n", dst[N - 1], found);
    return 0;
}
"#;

fn zen4() -> Machine {
    load_builtin("zen4").expect("zen4 is built in").expect("zen4 parses")
}

fn run(mode: &str) -> Value {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "copy", COPY_C, &["-O1", "-fno-tree-loop-distribute-patterns"]);
    run_json(&["--machine", "zen4", "--roi", "markers", "--no-idealize"], &exe, &[mode])
}

/// Executions and cycles of the instructions whose text starts with `prefix` (QEMU may
/// translate one address in several blocks: each is a row).
fn hot(v: &Value, prefix: &str) -> (u64, f64) {
    let rows: Vec<&Value> = v["hot_instructions"].as_array().unwrap().iter().filter(|h| h["asm"].as_str().unwrap().starts_with(prefix)).collect();
    assert!(!rows.is_empty(), "no {prefix} among {}", v["hot_instructions"]);
    (rows.iter().map(|h| h["executions"].as_u64().unwrap()).sum(), rows.iter().map(|h| h["cycles"].as_f64().unwrap()).sum())
}

const COPIED: f64 = 4.0 * (1 << 20) as f64;

/// The fewest cycles 4 MiB can be copied in: the core's copy rate, data in L1.
fn fastest(m: &Machine) -> f64 {
    COPIED / m.params.strings.movs.bytes_per_cycle
}

/// The most: every line loaded and write-allocated from DRAM at its bandwidth, plus each
/// copy's start-up and one DRAM latency.
fn slowest(m: &Machine) -> f64 {
    2.0 * COPIED / m.params.memory.dram_bytes_per_cycle + 4.0 * (m.params.strings.movs.startup + m.params.memory.dram_latency)
}

#[test]
fn rep_movsb_of_4_mib_takes_bandwidth_time_not_per_byte_time() {
    let m = zen4();
    let v = run("movsb");
    let cycles = v["cycles"].as_f64().unwrap();
    // QEMU reported 4 Mi elements: they are 4 executions (the placeholder latency of
    // LLVM's table had made this 423 M cycles)
    let (executions, rep_cycles) = hot(&v, "rep movsb");
    assert_eq!(executions, 4);
    // 4 Mi element reports would count as that many instructions; the loop around the
    // copies (strcmp calls included) runs a few hundred
    assert!(v["instructions_simulated"].as_u64().unwrap() < 10_000, "{}", v["instructions_simulated"]);
    assert!(cycles >= fastest(&m) && cycles <= slowest(&m), "4 x 1 MiB rep movsb: {cycles} cycles, bounds {}..{}", fastest(&m), slowest(&m));
    assert!(rep_cycles / cycles > 0.9, "the copies are the run: {rep_cycles} of {cycles}");
}

#[test]
fn rep_movsq_copies_no_slower_than_a_word_loop() {
    let m = zen4();
    let q = run("movsq");
    let (executions, _) = hot(&q, "rep movsq");
    assert_eq!(executions, 4);
    let rep = q["cycles"].as_f64().unwrap();
    let lp = run("loop")["cycles"].as_f64().unwrap();
    // both move the same lines through the same caches; the loop stores 8 bytes per store
    // (at most stores_per_cycle a cycle), rep movsq moves bytes_per_cycle
    assert!(rep >= fastest(&m) && rep <= slowest(&m), "rep movsq: {rep} cycles");
    assert!(rep <= lp * 1.05, "rep movsq {rep} cycles against a loop copy's {lp}");
    assert!(lp >= COPIED / (8.0 * m.params.memory.stores_per_cycle), "the loop copy: {lp} cycles");
}

#[test]
fn a_backward_copy_covers_the_same_lines() {
    let m = zen4();
    let back = run("back");
    let (executions, _) = hot(&back, "rep movsb");
    assert_eq!(executions, 4);
    let b = back["cycles"].as_f64().unwrap();
    assert!(b >= fastest(&m) && b <= slowest(&m), "std; rep movsb: {b} cycles");
}

#[test]
fn early_stop_and_zero_count_are_timed_by_what_ran() {
    let m = zen4();
    // repne scasb stops at byte 100: start-up + 101 elements at 2.06 cycles each, 1000 times
    // one after the other (data in L1 after the first; the loop's own instructions overlap
    // with the scans): the region takes that, give or take the loop's few cycles
    let scan = run("scan");
    let (executions, _) = hot(&scan, "repne scasb");
    assert_eq!(executions, 1000);
    let s = &m.params.strings.scas;
    let expected = 1000.0 * (s.startup + 101.0 * s.cycles_per_element);
    let got = scan["cycles"].as_f64().unwrap();
    assert!(got >= expected && got < expected * 1.05, "repne scasb: {got} cycles, expected ~{expected}");
    // rep stosb with rcx = 0: the short path, 1000 times, one after the other; the loop
    // around it (a load, a compare and a branch more than the scan's) adds less than half
    let zero = run("zero");
    let (executions, _) = hot(&zero, "rep stosb");
    assert_eq!(executions, 1000);
    let expected = 1000.0 * m.params.strings.stos.short_cycles;
    let got = zero["cycles"].as_f64().unwrap();
    assert!(got >= expected && got < expected * 1.5, "rep stosb rcx=0: {got} cycles, expected ~{expected}");
}
