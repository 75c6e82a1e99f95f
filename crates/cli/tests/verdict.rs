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

/// The HTML report has the verdict as its first section after the summary,
/// before the Top-Down tree and the sensitivity heat map, and the summary
/// names the verdict's first cause (fma_chain: the chain of two dependent FMAs).
#[test]
fn html_has_the_verdict_section_at_the_top() {
    let d = tempfile::tempdir().unwrap();
    let page = d.path().join("v.html");
    let out = bn(&["analyze", &bench_block("fma_chain"), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    assert!(at("id=\"summary\"") < at("id=\"verdict\""));
    assert!(at("id=\"verdict\"") < at("id=\"topdown\""));
    assert!(at("id=\"verdict\"") < at("class=\"hm-bar\""));
    let section = &html[at("id=\"verdict\"")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("data-cause=\"dependency_chain\""), "{section}");
    assert!(section.contains("<td class=\"l\">idealization</td>") && section.contains("<b>Try:</b> break the dependency chain through ymm0"), "{section}");
    assert!(html.contains("First cause: <b>dependency chain (latency)</b>"), "summary names the first cause");
}
