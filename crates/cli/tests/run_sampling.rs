//! Sampled simulation (SMARTS) in `bottlenose run`: below the threshold a run
//! is the exact run byte for byte; a sampled run gives every estimate with its
//! 99.7 % interval, and the interval of the cycles covers the exact value.
//! Machine: skylake (the tests pin BOTTLENOSE_MACHINE).
mod common;
use common::{compile, ensure_plugin, run_report};
use serde_json::Value;
use std::process::Command;

/// Two phases: a loop of independent adds, then a loop with a data-dependent
/// branch taken one time in seven (`ROUNDS` rounds of each; about 10 instructions
/// per inner iteration).
const PROG: &str = r#"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    double s = 0; long c = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 20000; i++) s += i * 0.5;
        for (int i = 0; i < 20000; i++) if ((i * 2654435761u) % 7 == 0) c++; else s += 1.0;
    }
    printf("%f %ld\n", s, c);
    return 0;
}
"#;

/// The report of `bottlenose run ARGS -- EXE PROG_ARGS`, as text and parsed. Run
/// with address-space randomization off (`setarch -R`): QEMU maps the guest where
/// the host's mmap puts it, and other addresses index caches and predictors
/// differently, so two runs of the same program differ by a few tenths of a
/// percent of their cycles unless the addresses repeat.
fn json(args: &[&str], exe: &std::path::Path, prog_args: &[&str]) -> (String, Value) {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("r.json");
    let out = Command::new("setarch")
        .args(["x86_64", "-R", env!("CARGO_BIN_EXE_bottlenose")])
        .env("BOTTLENOSE_MACHINE", "skylake")
        .arg("run")
        .args(args)
        .args(["--quiet", "--format", "json", "--output"])
        .arg(&path)
        .arg("--")
        .arg(exe)
        .args(prog_args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let v = serde_json::from_str(&text).unwrap();
    (text, v)
}

fn interval(v: &Value) -> (f64, f64) {
    (v["value"].as_f64().expect("value"), v["half_width"].as_f64().expect("half_width"))
}

#[test]
fn below_the_threshold_the_default_is_the_exact_run_byte_for_byte_but_pids() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    // the full default analysis: sweep, idealizations, views
    let args = ["--weights", "1.15", "--resources", "p23,frontend,miss_latency"];
    let (default, v) = json(&args, &exe, &["2"]);
    let (exact, _) = json(&[&args[..], &["--exact"]].concat(), &exe, &["2"]);
    assert!(v.get("sampling").is_none(), "a short run is not sampled");
    // the same text but for the process ids of the traced processes
    let without_pids = |t: &str| -> String { t.lines().filter(|l| !l.trim_start().starts_with("\"pid\":")).collect::<Vec<_>>().join("\n") };
    assert!(default.contains("\"pid\":"), "the report lists its processes");
    assert_eq!(without_pids(&default), without_pids(&exact));
}

#[test]
fn a_sampled_run_gives_intervals_that_cover_the_exact_run() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    let args = ["--weights", "1.15", "--resources", "p01,frontend", "--sample-views", "4"];
    let (_, exact) = json(&[&args[..], &["--exact"]].concat(), &exe, &["30"]);
    // the start-up (loader, first touches: units 50 times slower than the loops) timed
    // exactly, as the default threshold does on long runs, then sampled
    let (_, s) = json(&[&args[..], &["--exact-below", "1000000", "--sample-period", "8", "--warming", "full"]].concat(), &exe, &["30"]);
    let exact_cycles = exact["cycles"].as_f64().unwrap();
    let sm = &s["sampling"];
    assert!(sm.is_object(), "no sampling section");
    let (cycles, hw) = interval(&sm["cycles"]);
    assert_eq!(cycles, s["cycles"].as_f64().unwrap(), "the report's cycles are the estimate");
    // the program's output and exit, a few thousand instructions of cold code at 10 to 25
    // times the loops' CPI (2 % of the cycles), fall into one or two units that most
    // windows miss: priced at the prefix's cold code, with that part's value as its
    // half-width (counted at the loops' CPI it came out 2 % low, ±0.3 %, on half the offsets)
    assert!(hw > 0.0 && hw < 0.05 * cycles, "half-width {hw} of {cycles}");
    assert!((cycles - exact_cycles).abs() <= hw, "exact {exact_cycles} outside {cycles} ± {hw}");
    // from the run's exact instruction mix: the two phases' loops are a class each at least
    assert!(sm["code_classes"].as_u64().is_some_and(|k| k >= 2), "{}", sm["code_classes"]);
    // the exit no unit measured is priced, reported, and inside the half-width
    let priced = sm["priced_cycles"].as_f64().expect("priced_cycles");
    assert!(priced > 0.0 && priced <= hw, "priced {priced}, half-width {hw}");
    // CPI = cycles / instructions, with the same relative interval
    let (cpi, cpi_hw) = interval(&sm["cpi"]);
    let n = s["instructions_simulated"].as_f64().unwrap();
    assert!((cpi - cycles / n).abs() < 1e-9 * cpi && (cpi_hw - hw / n).abs() < 1e-9 * cpi);
    // executions are exact: every instruction went through the functional layer
    assert_eq!(s["instructions_simulated"], exact["instructions_simulated"]);
    assert_eq!(s["functional"]["branches"], exact["functional"]["branches"]);
    // fast-forward (window warming, sparse enough to skip): skipped instructions count in
    // the totals and in each function's instructions, which the plugin counts per block; the
    // branch predictor saw only what was streamed
    let (_, w) = json(&[&args[..], &["--exact-below", "1000000", "--sample-period", "512", "--warm-up", "65536"]].concat(), &exe, &["30"]);
    assert_eq!(w["instructions_simulated"], exact["instructions_simulated"]);
    let by_function = |r: &Value| -> Vec<(String, u64)> {
        let mut f: Vec<(String, u64)> = r["functions"].as_array().unwrap().iter().map(|f| (f["function"].as_str().unwrap_or("").to_string(), f["instructions"].as_u64().unwrap())).collect();
        f.sort();
        f
    };
    // (the table lists functions by their cycles, which the sampled run estimates: compare those in both)
    let exact_functions: std::collections::HashMap<String, u64> = by_function(&exact).into_iter().collect();
    let common: Vec<_> = by_function(&w).into_iter().filter(|(f, _)| exact_functions.contains_key(f)).collect();
    assert!(common.iter().any(|(f, _)| f.ends_with("!main")), "{common:?}");
    for (f, n) in &common {
        assert_eq!(*n, exact_functions[f], "{f}");
    }
    let branches = |r: &Value| r["functional"]["branches"]["branches"].as_u64().unwrap();
    assert!(branches(&w) < branches(&exact) / 2, "skipped: {} of {} branches predicted", branches(&w), branches(&exact));
    // one interval per sensitivity point, idealization, level-1 node; stacks present
    assert_eq!(sm["sensitivity"].as_array().unwrap().len(), s["sensitivity"].as_array().unwrap().len());
    for p in sm["sensitivity"].as_array().unwrap() {
        let (_, w) = interval(&p["speedup"]);
        assert!(w.is_finite() && w >= 0.0);
    }
    assert_eq!(sm["idealization"].as_array().unwrap().len(), 4, "the four single idealizations");
    // the variants (2 sensitivity points, the 1-cycle ALU, 3 idealized cores) timed a
    // sub-sample: 6 cores on a window of 2 batches in 8 cost 6 · 2 · 1.4 / (8 + 2 · 1.4) = 1.56
    // times the baseline's per period, so one window in ceil(1.56 / 0.2) = 8 keeps them within
    // their share (0.2); but no sparser than leaves 30 units by a stratum's end: the first
    // stratum (about 130 units planned) takes one in floor(130 / 30) = 4
    let units = sm["units"].as_u64().unwrap();
    let variant_units = sm["variant_units"].as_u64().unwrap();
    let strata = sm["strata"].as_array().unwrap();
    assert_eq!(variant_units, strata.iter().map(|st| st["variant_units"].as_u64().unwrap()).sum::<u64>());
    let every: Vec<u64> = strata.iter().map(|st| st["variants_every"].as_u64().unwrap()).collect();
    assert!(every[0] == 4 && every[1..].iter().all(|&k| k == 8), "{strata:?}");
    let expected: f64 = strata.iter().map(|st| st["units"].as_f64().unwrap() / st["variants_every"].as_f64().unwrap()).sum();
    assert!(variant_units >= 30 && (variant_units as f64 - expected).abs() < 0.1 * expected, "{variant_units} of {units} units, expected about {expected}");
    // the exact run's speedups within the sampled intervals (paired ratios over the sub-sample)
    for p in sm["sensitivity"].as_array().unwrap() {
        let e = exact["sensitivity"].as_array().unwrap().iter().find(|e| e["resources"] == p["resources"] && e["weight"] == p["weight"]).expect("the same point");
        let (v, w) = interval(&p["speedup"]);
        let truth = e["speedup"].as_f64().unwrap();
        assert!((v - truth).abs() <= w.max(1e-4), "{}: exact {truth}, sampled {v} ± {w}", p["resources"]);
    }
    let level1 = sm["topdown_level1"].as_array().unwrap();
    assert_eq!(level1.len(), 4);
    let total: f64 = level1.iter().map(|n| n["share"]["value"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-6, "level-1 shares add up to {total}");
    // every node of the Top-Down tree with a value, centred on the tree's value, each
    // with a half-width; the level-2 nodes among them, and those of the levels below
    let mut tree: Vec<(String, f64)> = Vec::new();
    fn walk(nodes: &Value, at: &str, out: &mut Vec<(String, f64)>) {
        for n in nodes.as_array().unwrap() {
            let path = if at.is_empty() { n["name"].as_str().unwrap().to_string() } else { format!("{at}.{}", n["name"].as_str().unwrap()) };
            if let Some(v) = n["value"].as_f64() {
                out.push((path.clone(), v));
            }
            walk(&n["children"], &path, out);
        }
    }
    walk(&s["topdown"], "", &mut tree);
    let nodes = sm["topdown"].as_array().expect("Top-Down intervals");
    assert_eq!(nodes.len(), tree.len(), "one interval per valued node");
    for (n, (path, v)) in nodes.iter().zip(&tree) {
        assert_eq!(n["path"].as_str(), Some(path.as_str()));
        let (value, w) = interval(&n["value"]);
        assert_eq!(value, *v, "{path}");
        assert!(w.is_finite() && w >= 0.0, "{n}");
        assert_eq!(n["level"].as_u64(), Some(path.matches('.').count() as u64 + 1));
    }
    let with_width = |level: u64| nodes.iter().filter(|n| n["level"] == level && n["value"]["half_width"].as_f64() > Some(0.0)).count();
    assert!(with_width(2) >= 4 && with_width(3) >= 2, "{nodes:?}");
    // and each covers the exact run's value of the node
    let mut exact_tree = Vec::new();
    walk(&exact["topdown"], "", &mut exact_tree);
    for n in nodes {
        let (v, w) = interval(&n["value"]);
        let path = n["path"].as_str().unwrap();
        let truth = exact_tree.iter().find(|(p, _)| p == path).map(|(_, t)| *t).expect("the node in the exact run");
        assert!((v - truth).abs() <= w, "{path}: exact {truth} outside {v} ± {w}");
    }
    assert!(!sm["cpi_stacks"]["commit"].as_array().unwrap().is_empty());
    // each stack component's interval is centred on the report's stack and covers the exact run's
    for stage in ["dispatch", "issue", "commit"] {
        for c in sm["cpi_stacks"][stage].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let share = |r: &Value| r["cpi_stacks"][stage][name].as_f64().unwrap() / r["cpi_stacks"]["cycles"].as_f64().unwrap();
            let (v, w) = interval(&c["share"]);
            assert!((v - share(&s)).abs() < 1e-9, "{stage} {name}: {v} against the report's {}", share(&s));
            assert!((v - share(&exact)).abs() <= w, "{stage} {name}: exact {} outside {v} ± {w}", share(&exact));
        }
    }
    // the functions of the report's table, in its order, each with an interval that covers
    // its exact share (main: the loops, nearly all the cycles)
    let functions = sm["functions"].as_array().expect("function intervals");
    let table = s["functions"].as_array().unwrap();
    assert_eq!(functions.len(), table.len().min(10));
    for (f, row) in functions.iter().zip(table) {
        assert_eq!(f["name"], row["function"]);
    }
    // every one of them covers its exact share: the loader's and the exit's
    // functions too, whose code no unit measured (priced, their whole value in the interval)
    // (one the exact run's table leaves out is below its last row)
    let covers = |table: &Value, key: &str, name: &str, v: f64, w: f64| {
        let rows = table.as_array().unwrap();
        match rows.iter().find(|r| r[key] == name) {
            Some(r) => (v - r["share"].as_f64().unwrap()).abs() <= w,
            None => v - w <= rows.iter().map(|r| r["share"].as_f64().unwrap()).fold(f64::INFINITY, f64::min),
        }
    };
    for f in functions {
        let name = f["name"].as_str().unwrap();
        let (v, w) = interval(&f["share"]);
        assert!(covers(&exact["functions"], "function", name, v, w), "{name}: {v} ± {w} misses the exact run's share");
    }
    let main = |v: &Value| v.as_array().unwrap().iter().find(|f| f["function"].as_str().is_some_and(|n| n.ends_with("!main"))).map(|f| f["share"].as_f64().unwrap());
    let (share, share_hw) = interval(&functions.iter().find(|f| f["name"].as_str().unwrap().ends_with("!main")).unwrap()["share"]);
    let exact_main = main(&exact["functions"]).expect("main in the exact run");
    assert!(exact_main > 0.5 && share_hw > 0.0, "main {exact_main}, ±{share_hw}");
    // from the code mix's own residuals, main's (the loops' classes) is about the cycles' relative
    // half-width, not the windows' ratio, which the units holding the exit widened
    assert!(share_hw <= 2.0 * hw / cycles, "main ±{share_hw}, cycles ±{}", hw / cycles);
    assert!((share - exact_main).abs() <= share_hw, "main: exact {exact_main} outside {share} ± {share_hw}");
    // every loop of the report's table, by head, with an interval; the loop holding
    // nearly all of main's cycles covers main's share at least
    let loops = sm["loops"].as_array().expect("loop intervals");
    let loop_table = s["loops"].as_array().unwrap();
    assert!(!loops.is_empty() && loops.len() == loop_table.len());
    for (l, row) in loops.iter().zip(loop_table) {
        assert_eq!(l["name"], row["head"]);
        let (v, w) = interval(&l["share"]);
        assert!(w.is_finite() && w >= 0.0 && (0.0..=1.0 + w).contains(&v), "{l}");
        let head = l["name"].as_str().unwrap();
        assert!(covers(&exact["loops"], "head", head, v, w), "loop {head}: {v} ± {w} misses the exact run's share");
    }
    let (outer, outer_hw) = interval(&loops[0]["share"]);
    assert!(outer + outer_hw >= 0.5, "the hottest loop: {outer} ± {outer_hw}");
    // the FLOPS stack (the program adds doubles): each component of the report's
    // stack with an interval, the values the report's
    let flops = sm["flops_stack"].as_array().expect("FLOPS stack intervals");
    let stack = s["flops_stack"].as_object().expect("a FLOPS stack");
    assert_eq!(flops.len(), stack.len());
    for f in flops {
        let (v, w) = interval(&f["flops_per_cycle"]);
        assert_eq!(v, stack[f["name"].as_str().unwrap()].as_f64().unwrap());
        assert!(w.is_finite() && w >= 0.0, "{f}");
        let truth = exact["flops_stack"][f["name"].as_str().unwrap()].as_f64().unwrap();
        assert!((v - truth).abs() <= w, "{}: exact {truth} outside {v} ± {w}", f["name"]);
    }
    // the units: one window of a warm-up and a unit in every 8 batches after the prefix
    let prefix = sm["exact_instructions"].as_f64().unwrap();
    assert!((1_000_000.0..1_004_096.0).contains(&prefix), "prefix {prefix}");
    let batches = (n - prefix) / 4096.0;
    assert!((units as f64 - batches / 8.0).abs() <= 2.0, "{units} units for {batches} batches");
}

#[test]
fn the_text_and_html_reports_show_the_intervals() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    ensure_plugin();
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env("BOTTLENOSE_MACHINE", "skylake")
        // (four variants on one window in 16 batches: the cost model times them on one window in 2)
        .args(["run", "-q", "--sample", "--sample-period", "16", "--no-idealize", "--weights", "1.15", "--resources", "frontend,latency,window,p01", "--html"])
        .arg(d.path().join("r.html"))
        .arg("--")
        .arg(&exe)
        .arg("10")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // the report goes to stderr (stdout is the program's)
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("(sampled, 99.7 % confidence)"), "{text}");
    assert!(text.contains("Sampling (SMARTS"), "{text}");
    assert!(text.contains("cycles from the run's exact instruction mix"), "{text}");
    // the program's exit, which no unit of 1 in 16 batches measured, priced and said so
    assert!(text.lines().any(|l| l.trim_start().starts_with("priced, not measured: ") && l.contains("% of the estimate")), "{text}");
    assert!(text.lines().any(|l| l.contains("frontend") && l.contains('±')), "{text}");
    assert!(text.contains("sensitivity and idealizations timed a sub-sample of"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("functions") && l.contains("!main") && l.contains('±')), "{text}");
    // the Top-Down table: a ± beside each node's value (the level-1 nodes always shown)
    let table = &text[text.find("Top-Down (simulated counters").expect("a Top-Down table")..];
    for node in ["Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound"] {
        assert!(table.lines().any(|l| l.trim_start().starts_with(node) && l.contains('±')), "{node}: {table}");
    }
    assert!(table.contains("±: half-width of the value's 99.7 % confidence interval"), "{table}");
    // the CPI stacks' and the FLOPS stack's intervals (the program adds doubles), in the Sampling section
    for stack in ["dispatch", "issue", "commit", "FLOPS"] {
        assert!(text.lines().any(|l| l.trim_start().starts_with(stack) && l.contains('±')), "{stack}: {text}");
    }
    let html = std::fs::read_to_string(d.path().join("r.html")).unwrap();
    let section = &html[html.find("<section id=\"sampling\">").expect("a sampling section")..];
    assert!(section.contains("exact instruction mix"), "{section}");
    assert!(section.contains("Priced, not measured: "), "{section}");
    assert!(section.contains("frontend ×1.15</td><td class=\"num\">") && section.contains(" ± "), "{section}");
    assert!(section.contains("timed a sub-sample of"), "{section}");
    assert!(section.contains("Functions (share of cycles)") && section.contains("!main</td><td class=\"num\">"), "{section}");
    // the Top-Down tree: every node's value with its ±
    let tree = &html[html.find("<section id=\"topdown\">").expect("a Top-Down section")..];
    let tree = &tree[..tree.find("</section>").unwrap()];
    assert!(tree.contains("data-node=\"Memory_Bound\"") && tree.matches(" ± ").count() >= 8, "{tree}");
    for title in ["Top-Down level 1 (share of slots)", "CPI stack at dispatch (share of cycles)", "CPI stack at commit (share of cycles)", "FLOPS stack (flops per cycle)"] {
        assert!(section.contains(title), "{title}: {section}");
    }
}

/// A period longer than the run: no unit is measured. The report says so
/// plainly, gives no interval (null in JSON), and what to do.
#[test]
fn a_run_without_units_says_it_has_no_interval() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    ensure_plugin();
    let args = ["--exact-below", "200000", "--sample-period", "1000000", "--no-idealize", "--no-sensitivity"];
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env("BOTTLENOSE_MACHINE", "skylake")
        .arg("run")
        .args(args)
        .arg("--html")
        .arg(d.path().join("r.html"))
        .arg("--")
        .arg(&exe)
        .arg("2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("NO INTERVAL: 0 units measured"), "{text}");
    assert!(text.contains("no unit was measured") && text.contains("run --exact"), "{text}");
    let html = std::fs::read_to_string(d.path().join("r.html")).unwrap();
    assert!(html.contains("(no interval)"), "the HTML report says so too");
    let (_, v) = json(&args, &exe, &["2"]);
    let sm = &v["sampling"];
    assert!(sm["cycles"]["half_width"].is_null() && sm["cpi"]["half_width"].is_null(), "{sm}");
    // the estimate: the prefix's 200 000 instructions timed, the rest at the CPI
    // timed (the start-up's, higher than the loops'): more cycles than the
    // prefix alone would give, and a CPI between the loops' and the start-up's
    let cpi = sm["cpi"]["value"].as_f64().unwrap();
    assert!(v["instructions_simulated"].as_f64().unwrap() > 500_000.0);
    assert!((0.2..5.0).contains(&cpi), "CPI {cpi}");
    assert_eq!(v["cycles"], sm["cycles"]["value"]);
}

#[test]
fn bad_sampling_options_are_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    for (args, word) in [
        (&["--target-error", "0"][..], "--target-error"),
        (&["--time-budget", "0"][..], "--time-budget"),
        (&["--exact", "--sample"][..], "--sample"),
        (&["--sample", "--exact-below", "1000"][..], "--exact-below"),
        (&["--sample-period", "1"][..], "--sample-period"),
    ] {
        let (out, _) = run_report(args, &exe, &[]);
        assert!(!out.status.success(), "{args:?} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(word), "{args:?}: {err}");
    }
}

/// A sampled run whose first window would come after its end times nothing: no
/// figure of the report could be more than 0 or 0/0, so it is an error, on one line.
#[test]
fn a_sampled_run_that_timed_nothing_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    let (out, v) = run_report(&["--sample", "--sample-period", "1000000", "--no-idealize", "--no-sensitivity"], &exe, &["2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.status.code() != Some(101), "{err}");
    assert!(v.is_null(), "no report written");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("nothing was timed") && lines[0].contains("--exact"), "{err}");
}

/// Two phases again, the second with a branch on random data taken half the
/// time (if-conversion off, so that it stays a branch): about one
/// misprediction in 14 instructions of that phase. The bench program itself.
const RANDOM_BRANCH: &str = include_str!("../../../bench/programs/branchy.c");

/// The mispredictions' share of the slots is measured on the units as on the
/// whole run: every unit's branches were predicted by a predictor that saw every
/// branch before it (functional warming: the same mispredictions as the exact
/// run), and the wrong path and recovery after each misprediction are charged in
/// the unit as in the exact run. Gaps charged differently in windows show as a
/// Bad_Speculation share far from the exact one (the issue's bar: 2 points).
#[test]
fn a_sampled_run_measures_bad_speculation_as_the_exact_run_does() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "random_branch", RANDOM_BRANCH, &["-O1", "-fno-if-conversion", "-fno-if-conversion2"]);
    let args = ["--no-sensitivity", "--no-idealize"];
    let (_, exact) = json(&[&args[..], &["--exact"]].concat(), &exe, &["12"]);
    let (_, s) = json(&[&args[..], &["--sample", "--sample-period", "8", "--warming", "full"]].concat(), &exe, &["12"]);
    assert!(s["sampling"].is_object(), "not sampled");
    // the predictor saw every branch in both runs, in the same order: the same mispredictions
    assert_eq!(s["functional"]["branches"]["mispredicts"], exact["functional"]["branches"]["mispredicts"]);
    let share = |v: &Value, k: &str| 100.0 * v["slot_accounting"][k].as_f64().unwrap();
    // one misprediction (skylake: 16 cycles of penalty, 4 slots each) in every 14
    // instructions of half the run: far above the integer phase's few percent
    let exact_bad = share(&exact, "bad_speculation");
    assert!(exact_bad > 20.0, "exact Bad_Speculation {exact_bad:.1} %: the branch was converted?");
    // Compared as shares of the slots outside Frontend_Bound: the exact run's 3 % of
    // Frontend_Bound is one-off code (below) that no unit sees, and it dilutes the other
    // three by as much; with it in, the difference was 1.7-2.1 points depending on the
    // guest's environment (its size moves the startup code and so the units' alignment),
    // which made the test pass or fail with the shell it ran from. Renormalized, the
    // units' charging of the wrong path and recovery is what is compared.
    let beyond_frontend = |v: &Value, k: &str| share(v, k) / (1.0 - share(v, "frontend_bound") / 100.0);
    for k in ["bad_speculation", "backend_bound", "retiring"] {
        let (e, m) = (beyond_frontend(&exact, k), beyond_frontend(&s, k));
        assert!((e - m).abs() <= 2.0, "{k}: exact {e:.2} %, sampled {m:.2} % of the slots outside Frontend_Bound");
    }
    // Frontend_Bound (3 % exact) is the loader's and the exit's instruction-cache misses:
    // one-off code no unit measured (`--sample` has no exact prefix), priced, and
    // whatever it held is in the level-1 intervals, which the exact shares fall in
    for (k, name) in [("bad_speculation", "Bad_Speculation"), ("frontend_bound", "Frontend_Bound"), ("backend_bound", "Backend_Bound"), ("retiring", "Retiring")] {
        let node = s["sampling"]["topdown_level1"].as_array().unwrap().iter().find(|n| n["name"] == name).expect("a level-1 node");
        let (v, w) = interval(&node["share"]);
        let e = share(&exact, k) / 100.0;
        assert!((e - v).abs() <= w, "{name}: exact {e:.4}, sampled {v:.4} ± {w:.4}");
    }
}

/// The start-up (the loader, first touches: icache and dcache misses) falls in
/// the exact prefix, the loops after it in the windows. The idealizations time
/// the prefix after the windows, so their gains there count: taken at their
/// ratio over the windows, where the loops fit the caches, a perfect icache
/// and dcache came out 0.0 (exact: 0.12 and 0.02 CPI). The sensitivity
/// variants time a sub-sample of it: 30 of its 123 batches, one in 4; at the
/// windows' ratio, a 15 % longer miss latency cost 0.0 % ± 0.0 (exact: 0.6 %).
#[test]
fn the_variants_count_the_exact_prefix_of_a_sampled_run() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "phases", PROG, &["-O1"]);
    let args = ["--weights", "1.15", "--resources", "latency,frontend,miss_latency"];
    let (_, exact) = json(&[&args[..], &["--exact"]].concat(), &exe, &["5"]);
    let (_, s) = json(&[&args[..], &["--exact-below", "500000", "--sample-period", "8"]].concat(), &exe, &["5"]);
    let sm = &s["sampling"];
    assert!(sm["units"].as_u64().is_some_and(|n| n >= 30), "{sm}");
    assert_eq!((sm["prefix_variant_units"].as_u64(), sm["prefix_idealized"].as_bool()), (Some(30), Some(true)), "{sm}");
    // the exact run's speedups within the sampled intervals, which carry the prefix's error
    for p in sm["sensitivity"].as_array().unwrap() {
        let e = exact["sensitivity"].as_array().unwrap().iter().find(|e| e["resources"] == p["resources"] && e["weight"] == p["weight"]).expect("the same point");
        let (v, w) = interval(&p["speedup"]);
        let truth = e["speedup"].as_f64().unwrap();
        assert!((v - truth).abs() <= w.max(1e-4), "{}: exact {truth}, sampled {v} ± {w}", p["resources"]);
    }
    let reduction = |r: &Value, what: &str| -> f64 {
        r["idealization"].as_array().unwrap().iter().find(|i| i["what"] == what).unwrap_or_else(|| panic!("no {what}"))["cpi_reduction"].as_f64().unwrap()
    };
    for what in ["perfect_icache", "perfect_dcache"] {
        let (e, v) = (reduction(&exact, what), reduction(&s, what));
        assert!(e > 0.01, "{what}: the start-up misses in the exact run ({e})");
        // the program's own end (output, exit: cold code) is sampled: a share of the gain
        // the windows may miss
        assert!((v - e).abs() <= 0.4 * e, "{what}: exact {e}, sampled {v}");
    }
    // a run more than 10 times its prefix (49 batches, 2.4 M instructions): the
    // idealizations sub-sample it too, with fewer units, 30 · 10 · 49 · 4096 / 2.4 M = 24
    let (_, l) = json(&[&args[..], &["--exact-below", "200000", "--sample-period", "8"]].concat(), &exe, &["5"]);
    let lm = &l["sampling"];
    assert_eq!(lm["prefix_idealized"].as_bool(), Some(false), "{lm}");
    assert!(lm["prefix_variant_units"].as_u64().is_some_and(|n| (20..30).contains(&n)), "{lm}");
    for what in ["perfect_icache", "perfect_dcache"] {
        let (e, v) = (reduction(&exact, what), reduction(&l, what));
        assert!((v - e).abs() <= 0.4 * e, "{what}: exact {e}, sampled {v}");
    }
}
