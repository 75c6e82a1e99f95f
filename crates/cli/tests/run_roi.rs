//! Regions of interest of `bottlenose run`: markers and address ranges.
mod common;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(args: &[&str], prog: &Path) -> Value {
    // no assertion reads the idealizations, each of which times the region again
    common::run_json(&[args, &["--no-idealize"]].concat(), prog, &[])
}

const PROG: &str = r#"
#include <stdio.h>
#include "bottlenose_roi.h"
__attribute__((noinline, noipa)) long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }
int main(void) {
    long s = work(5000);            /* outside: not simulated */
    for (int r = 0; r < 3; r++) {
        BOTTLENOSE_ROI_BEGIN();
        s += work(1000);
        BOTTLENOSE_ROI_END();
    }
    printf("%ld\n", s);
    return 0;
}
"#;

fn build(dir: &Path) -> PathBuf {
    let c = dir.join("p.c");
    std::fs::write(&c, PROG).unwrap();
    let exe = dir.join("p");
    let inc = concat!(env!("CARGO_MANIFEST_DIR"), "/../../include");
    let st = Command::new("gcc").args(["-O1", "-I", inc]).arg(&c).arg("-o").arg(&exe).status().unwrap();
    assert!(st.success());
    exe
}

#[test]
fn markers_select_the_marked_calls_only() {
    let d = tempfile::tempdir().unwrap();
    let exe = build(d.path());
    let marked = run(&["--roi", "markers"], &exe);
    let func = run(&["--roi", "function:work"], &exe);
    assert_eq!(marked["roi"]["entries"], 3);
    assert_eq!(func["roi"]["entries"], 4);
    let m = marked["instructions_simulated"].as_u64().unwrap();
    let f = func["instructions_simulated"].as_u64().unwrap();
    // the three marked calls of work(1000) plus the call/return glue, versus all four calls
    assert!(m > 3 * 3000 && m < 3 * 1000 * 10, "marked region: {m}");
    assert!(f > m * 2, "function ROI also covers work(5000): {f} vs {m}");
    // warming keeps the caches hot: the marked region runs no slower with --warm
    let warm = run(&["--roi", "markers", "--warm"], &exe);
    assert_eq!(warm["instructions_simulated"], marked["instructions_simulated"]);
    assert!(warm["cycles"].as_f64().unwrap() <= marked["cycles"].as_f64().unwrap());
}

#[test]
fn address_range_roi() {
    let d = tempfile::tempdir().unwrap();
    let exe = build(d.path());
    let whole = run(&["--roi", "whole"], &exe);
    // the hottest instruction of the program itself, at its address as objdump
    // shows it in the (position-independent) program
    let hot = whole["hot_instructions"].as_array().unwrap().iter().find(|h| h["dso"] == "p").unwrap();
    let a = u64::from_str_radix(hot["address"].as_str().unwrap(), 16).unwrap();
    let range = run(&["--roi", &format!("range:0x{a:x}:0x{:x}", a + 1)], &exe);
    // the hottest instruction is in work's loop: once per iteration of its four
    // calls, 5000 + 3 x 1000 (QEMU may split them over several translations)
    assert_eq!(range["instructions_simulated"], 5000 + 3 * 1000, "{hot}");
    assert!(hot["executions"].as_u64().unwrap() <= 8000);
}
