//! The verdict at the top of every report: text, JSON and HTML, for static
//! blocks and dynamic runs.
mod common;
use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().unwrap()
}

fn bench_block(name: &str) -> String {
    format!("{}/../../bench/blocks/{name}.s", env!("CARGO_MANIFEST_DIR"))
}

/// The text report: the verdict is the first section after the block's header
/// lines, before the bottlenecks. shuffle_bound's three vpshufb per iteration
/// run on p5 alone (3 cycles per iteration), so p5 is the first cause.
#[test]
fn analyze_text_starts_with_the_verdict() {
    let out = bn(&["analyze", &bench_block("shuffle_bound")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("Block ")).expect("header");
    let verdict = lines.iter().position(|l| l.starts_with("Verdict (")).expect("verdict");
    let bottlenecks = lines.iter().position(|l| l.starts_with("Bottlenecks")).expect("bottlenecks");
    // only the header's own lines (cycles, warnings) and a blank line come between
    assert!(verdict > header && verdict < bottlenecks, "{text}");
    assert!(lines[header + 1..verdict].iter().all(|l| l.starts_with("  ") || l.is_empty()), "{text}");
    assert!(lines[verdict + 1].trim_start().starts_with("1. port pressure on p5"), "{}", lines[verdict + 1]);
    let section = lines[verdict..bottlenecks].join("\n");
    assert!(section.contains("evidence: sensitivity p5") && section.contains("try: take work off p5"), "{section}");
}
