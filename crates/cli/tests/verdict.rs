//! The verdict at the top of every report: text, JSON and HTML, for static
//! blocks and dynamic runs.
mod common;
use common::compile;
use serde_json::Value;
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

fn run(args: &[&str], prog: &std::path::Path, prog_args: &[&str]) -> Value {
    let (out, v) = common::run_report(args, prog, prog_args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    v
}

fn causes(v: &Value) -> &Vec<Value> {
    v["verdict"]["causes"].as_array().expect("verdict causes")
}

const BRANCHY: &str = r#"
#include <stdlib.h>
#include <stdio.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) long kernel(const int *a, int n) {
    long s = 0;
    for (int r = 0; r < 10; r++)
        for (int i = 0; i < n; i++)
            if (a[i] >= 128) s += a[i] * 3; else s -= 1;
    return s;
}
int main(int argc, char **argv) {
    int n = 20000; int *a = malloc(n * sizeof(int));
    srand(1); for (int i = 0; i < n; i++) a[i] = rand() % 256;
    if (argc > 1) qsort(a, n, sizeof(int), cmp);
    printf("%ld\n", kernel(a, n));
    return 0;
}
"#;

/// `a[i] >= 128` on random bytes is a coin toss: no predictor gets much more
/// than half of it right, so about every other iteration pays a misprediction
/// (~16 cycles on Skylake) against ~2 cycles of work (six instructions):
/// mispredictions are well over half of the cycles, and a perfect predictor
/// removes them. The penalty knob at +15 % shortens only a part of each
/// misprediction, so it buys far less; the verdict still ranks the
/// mispredictions first, from the idealization, and names the branch's line.
/// Sorted, the branch flips once per pass: no misprediction cause.
#[test]
fn random_branches_give_mispredictions_first_from_the_idealization() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "branchy", BRANCHY, &["-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-fno-tree-vectorize"]);
    let v = run(&["--roi", "function:kernel"], &exe, &[]);
    let first = &causes(&v)[0];
    assert_eq!(first["cause"]["kind"], "branch_mispredictions", "{:#}", v["verdict"]);
    assert_eq!(first["gain"]["source"], "idealization", "{first:#}");
    let gain = first["gain"]["share"].as_f64().unwrap();
    assert!(gain > 0.5, "gain {gain}");
    let ideal = &first["evidence"]["idealization"];
    assert_eq!(ideal["what"], "perfect_branch");
    assert_eq!(ideal["supports"], true);
    let penalty = first["evidence"]["sensitivity"].as_array().unwrap().iter().find(|s| s["resources"][0] == "mispredict_penalty").expect("penalty knob");
    assert!(penalty["speedup"].as_f64().unwrap() < gain / 2.0, "{penalty}");
    assert_eq!(first["evidence"]["topdown"]["node"], "Branch_Mispredicts");
    let action = first["action"].as_str().unwrap();
    // the `if` is the ninth line of BRANCHY (which starts with a newline)
    assert!(action.contains("branchy.c:9") && action.contains("branch-free"), "{action}");
    // without sensitivity and views the counted mispredictions still rank first:
    // ~0.4 per iteration x 16 cycles against ~2 cycles of work
    let bare = run(&["--roi", "function:kernel", "--no-views", "--no-sensitivity"], &exe, &[]);
    let first = &causes(&bare)[0];
    assert_eq!(first["cause"]["kind"], "branch_mispredictions", "{:#}", bare["verdict"]);
    assert_eq!(first["gain"]["source"], "counters");
    assert!(first["gain"]["share"].as_f64().unwrap() > 0.5, "{first:#}");
    let sorted = run(&["--roi", "function:kernel"], &exe, &["sorted"]);
    assert!(causes(&sorted).iter().all(|c| c["cause"]["kind"] != "branch_mispredictions" || c["gain"]["share"].as_f64().unwrap() < 0.03), "{:#}", sorted["verdict"]);
}

const MATMUL: &str = r#"
#include <stdlib.h>
#include <stdio.h>
#define N 256
#define ROWS 8
static double A[N][N], B[N][N], C[N][N];
__attribute__((noinline)) void ijk(void) { for (int i = 0; i < ROWS; i++) for (int j = 0; j < N; j++) { double s = 0; for (int k = 0; k < N; k++) s += A[i][k] * B[k][j]; C[i][j] = s; } }
__attribute__((noinline)) void ikj(void) { for (int i = 0; i < ROWS; i++) for (int k = 0; k < N; k++) { double a = A[i][k]; for (int j = 0; j < N; j++) C[i][j] += a * B[k][j]; } }
int main(int argc, char **argv) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = i + j; B[i][j] = i - j; }
    if (argv[1][0] == 'n') ijk(); else ikj();
    printf("%f\n", C[ROWS / 2][N / 3]);
    return 0;
}
"#;

/// The naive order walks a column of B: 256 lines 2 KiB apart. On Skylake's
/// L1 (64 sets, 8 ways) they fall in 2 sets (16 lines), on its L2 (1024 sets,
/// 4 ways) in 32 sets (128 lines): the column does not fit L2, its loads are
/// served by L3. First cause: cache misses served by L3, with a blocking
/// action. The interchanged order streams rows (prefetched): no cache-miss
/// cause comes first.
#[test]
fn naive_matmul_gives_l3_misses_and_says_block_it() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "mm", MATMUL, &["-O1", "-g", "-fno-tree-vectorize"]);
    let v = run(&["--roi", "function:ijk"], &exe, &["naive"]);
    let first = &causes(&v)[0];
    assert_eq!(first["cause"], serde_json::json!({ "kind": "cache_misses", "level": "l3" }), "{:#}", v["verdict"]);
    assert_eq!(first["evidence"]["topdown"]["node"], "L3_Bound");
    assert_eq!(first["evidence"]["idealization"]["what"], "perfect_dcache");
    let action = first["action"].as_str().unwrap();
    // ijk is the seventh line of MATMUL (which starts with a newline)
    assert!(action.contains("does not fit L2") && action.contains("block") && action.contains("mm.c:7"), "{action}");
    // per loop: the static analysis of the k loop blames its addsd chain (4 of
    // the ~8 cycles per iteration), but the run's experiments (1-cycle ALU,
    // latency knob) measure nothing for it: the loop's verdict keeps the misses
    // and says the chain hides behind them
    let hotspots = v["verdict"]["hotspots"].as_array().expect("hotspots");
    let k_loop = hotspots.iter().find(|h| h["kind"] == "loop" && h["name"].as_str().unwrap().ends_with("in mm!ijk")).expect("ijk's loop");
    let lv = &k_loop["verdict"];
    assert_eq!(lv["causes"][0]["cause"], serde_json::json!({ "kind": "cache_misses", "level": "l3" }), "{lv:#}");
    assert!(lv["causes"].as_array().unwrap().iter().all(|c| c["cause"]["kind"] != "dependency_chain"), "{lv:#}");
    assert!(lv["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("hides behind")), "{lv:#}");
    let inter = run(&["--roi", "function:ikj"], &exe, &["interchanged"]);
    assert_ne!(causes(&inter)[0]["cause"]["kind"], "cache_misses", "{:#}", inter["verdict"]);
}

/// A random pointer chase over 4 MiB: every load depends on the one before and
/// misses Skylake's 256 KiB L2 (the 8 MiB L3 holds it), so the misses cannot overlap: cache
/// misses first, and the action says why prefetching or several chains help.
#[test]
fn a_pointer_chase_beyond_l2_says_the_misses_are_serialized() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "chase", common::CHASE_C, &["-O2", "-g"]);
    let v = run(&["--roi", "function:chase"], &exe, &["4194304", "100000"]);
    let first = &causes(&v)[0];
    assert_eq!(first["cause"]["kind"], "cache_misses", "{:#}", v["verdict"]);
    let action = first["action"].as_str().unwrap();
    assert!(action.contains("pointer chasing") && action.contains("prefetch"), "{action}");
}

const TWO: &str = r#"
#include <stdlib.h>
#include <stdio.h>
__attribute__((noinline)) long branchy(const int *a, int n) {
    long s = 0;
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < n; i++)
            if (a[i] >= 128) s += a[i] * 3; else s -= 1;
    return s;
}
__attribute__((noinline)) double chain(double x, long n) {
    double s = 1.0;
    for (long i = 0; i < n; i++)
        s = s * x + 0.5;
    return s;
}
int main(void) {
    int n = 20000; int *a = malloc(n * sizeof(int));
    srand(1); for (int i = 0; i < n; i++) a[i] = rand() % 256;
    printf("%ld %f\n", branchy(a, n), chain(0.999, 100000));
    return 0;
}
"#;

/// Two hot functions with different causes: `branchy` tests random bytes (a
/// coin toss per iteration), `chain` runs `s = s * x + 0.5`, a mulsd then an
/// addsd on s each iteration: 4 + 4 = 8 cycles per iteration on Skylake, the
/// whole loop. The whole run mixes them; the per-hotspot verdicts tell them
/// apart, and the run's dependency-chain action points at `chain`'s loop,
/// not at the hottest loop (branchy's).
#[test]
fn per_hotspot_verdicts_tell_two_functions_apart() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "two", TWO, &["-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-fno-tree-vectorize"]);
    // exact (2.56 M instructions: a default run samples past 2 M, and a sampled run's
    // per-hotspot verdicts cut their gains to the whole run's experiments)
    let v = run(&["--exact"], &exe, &[]);
    let hotspots = v["verdict"]["hotspots"].as_array().expect("hotspots");
    let function = |name: &str| hotspots.iter().find(|h| h["kind"] == "function" && h["name"] == name).unwrap_or_else(|| panic!("no {name}: {hotspots:#?}"));
    let branchy = &function("two!branchy")["verdict"];
    assert_eq!(branchy["causes"][0]["cause"]["kind"], "branch_mispredictions", "{branchy:#}");
    let chain = &function("two!chain")["verdict"];
    let first = &chain["causes"][0];
    assert_eq!(first["cause"]["kind"], "dependency_chain", "{chain:#}");
    assert_eq!(first["evidence"]["recurrence"]["cycles"], 8.0, "{first:#}");
    assert!(first["gain"]["share"].as_f64().unwrap() > 0.5, "{first:#}");
    assert!(chain["causes"].as_array().unwrap().iter().all(|c| c["cause"]["kind"] != "branch_mispredictions"), "{chain:#}");
    // the loop of chain: measured 8 cycles per iteration, 8 statically
    let the_loop = hotspots.iter().find(|h| h["kind"] == "loop" && h["name"].as_str().unwrap().ends_with("in two!chain")).expect("chain's loop");
    assert!(the_loop["verdict"]["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("exist for the whole run only")));
    let run_chain = causes(&v).iter().find(|c| c["cause"]["kind"] == "dependency_chain").expect("run-level chain");
    let action = run_chain["action"].as_str().unwrap();
    assert!(action.contains("in two!chain") && action.contains("mulsd"), "{action}");
    // the chain's steps (`mulsd xmm0, xmm1 at 0x1189 (4 cycles)`) and the
    // loop's and its function's verdicts name the addresses objdump shows
    // in the (PIE) file, inside chain as nm places it, not QEMU's guest addresses
    let (start, size) = nm_symbol(&exe, "chain");
    let steps = &first["evidence"]["recurrence"]["steps"];
    for text in [action.to_string(), steps.to_string(), the_loop["name"].to_string()] {
        let addresses: Vec<u64> = text.match_indices("0x").map(|(i, _)| u64::from_str_radix(&text[i + 2..].chars().take_while(char::is_ascii_hexdigit).collect::<String>(), 16).unwrap()).collect();
        assert!(!addresses.is_empty(), "{text}");
        for a in addresses {
            assert!((start..start + size).contains(&a), "0x{a:x} in chain (0x{start:x}, {size} bytes): {text}");
        }
    }
}

/// `(start, size)` of `name` by nm.
fn nm_symbol(path: &std::path::Path, name: &str) -> (u64, u64) {
    let out = Command::new("nm").args(["-S", "--defined-only"]).arg(path).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() == 4 && f[3] == name)
        .map(|f| (u64::from_str_radix(f[0], 16).unwrap(), u64::from_str_radix(f[1], 16).unwrap()))
        .unwrap_or_else(|| panic!("nm: no {name} in {}", path.display()))
}
