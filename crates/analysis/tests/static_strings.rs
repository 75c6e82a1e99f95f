//! Static analysis of blocks with string instructions: the element count is a run-time
//! value, so the block is timed with the stated assumption (ASSUMED_STATIC_BYTES) and the
//! report says so, instead of LLVM's 100-cycle placeholder per element.

mod common;

use bottlenose_analysis::StaticOptions;
use bottlenose_timing::ASSUMED_STATIC_BYTES;
use common::{machine, run};

fn no_sensitivity() -> StaticOptions {
    StaticOptions { sensitivity: false, ..Default::default() }
}

#[test]
fn rep_movsb_is_timed_as_the_assumed_count_and_says_so() {
    let r = run("zen4", ".intel_syntax noprefix\nrep movsb\n", &no_sensitivity());
    let s = machine("zen4").params.strings;
    // 64 bytes take zen4's short path (FSRM): 14 cycles each, back to back
    assert!(ASSUMED_STATIC_BYTES <= s.movs.short_bytes);
    assert!((r.cycles_per_iteration - s.movs.short_cycles).abs() < 0.01, "{} cycles per rep movsb", r.cycles_per_iteration);
    assert_eq!(r.assumptions.len(), 1);
    let a = &r.assumptions[0];
    assert!(a.asm.starts_with("rep movsb"), "{}", a.asm);
    assert!(a.assumption.contains(&format!("{ASSUMED_STATIC_BYTES} bytes")), "{}", a.assumption);
    assert!(r.unsupported_instructions.count == 0);
}

#[test]
fn rep_movsq_assumes_the_same_bytes_in_quadwords() {
    // skylake has no short path: start-up + 64 bytes at its copy rate, back to back
    let r = run("skylake", ".intel_syntax noprefix\nrep movsq\n", &no_sensitivity());
    let s = machine("skylake").params.strings;
    let expected = s.movs.startup + ASSUMED_STATIC_BYTES as f64 / s.movs.bytes_per_cycle;
    assert!((r.cycles_per_iteration - expected).abs() < 0.01, "{} cycles, expected {expected}", r.cycles_per_iteration);
    assert!(r.assumptions[0].assumption.contains(&format!("{} elements of 8", ASSUMED_STATIC_BYTES / 8)), "{}", r.assumptions[0].assumption);
}

#[test]
fn blocks_without_a_repeated_string_instruction_assume_nothing() {
    let r = run("zen4", ".intel_syntax noprefix\nadd rax, rbx\nmovsb\n", &no_sensitivity());
    assert!(r.assumptions.is_empty(), "{:?}", r.assumptions);
    // movsb without a prefix is one element: a cycle, not 100
    assert!(r.cycles_per_iteration < 5.0, "{}", r.cycles_per_iteration);
}
