//! Reports read in the order a user asks: the verdict, then where the time
//! goes (functions, source lines, the hottest loop's instructions that
//! matter), then the views; large counts with thousands separators.
mod common;
use serde_json::Value;
use std::process::Command;

/// A loop whose body is a hot accumulation and a cold block that runs once in
/// 1024 iterations (`kern`).
const COLD_BLOCK_C: &str = r#"
#include <stdio.h>
#include <stdlib.h>
__attribute__((noipa)) double kern(const double *a, long n) {
    double s = 0, t = 0;
    for (long i = 0; i < n; i++) {
        s += a[i] * a[i];
        if ((i & 1023) == 1023) {
            t += s / (double)(i + 1);
            t = t * 1.5 - s * 0.25;
            t += a[i / 2] * 3.0;
            t -= a[i / 3] * 0.5;
            t += a[i / 5] / (t + 2.0);
            t *= 0.75;
        }
    }
    return s + t;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    double *a = malloc(n * sizeof *a);
    for (long i = 0; i < n; i++) a[i] = (double)(i % 17) * 0.25;
    printf("%f\n", kern(a, n));
    return 0;
}
"#;

/// `1234567` as `1,234,567` (English grouping by three digits).
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn run_text_reads_verdict_functions_loop_then_views() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "cold", COLD_BLOCK_C, &["-O2", "-g"]);
    let json_path = d.path().join("r.json");
    let text_path = d.path().join("r.txt");
    let mut stderr = String::new();
    for (format, path) in [("json", &json_path), ("text", &text_path)] {
        let o = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
            .env("BOTTLENOSE_MACHINE", "skylake")
            // (exact: 5.3 M instructions, past the 2 M after which a run is sampled, and a
            // sampled run's hottest-loop table counts the views' windows, which may miss
            // the cold block that runs once in 1024 iterations)
            .args(["run", "-q", "--exact", "--no-sensitivity", "--format", format, "-o"])
            .arg(path)
            .arg("--")
            .arg(&exe)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    }
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let text = std::fs::read_to_string(&text_path).unwrap();

    // forms the table lacks (the dynamic loader's xsave/xrstor on this host):
    // one warning line that names each form of the JSON once
    let mut forms: Vec<&str> = Vec::new();
    for f in r["unsupported_instructions"]["forms"].as_array().unwrap().iter().map(|f| f["form"].as_str().unwrap()) {
        if !forms.contains(&f) {
            forms.push(f);
        }
    }
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("not in the skylake table")).collect();
    if forms.is_empty() {
        assert!(warnings.is_empty(), "{stderr}");
    } else {
        assert_eq!(warnings.len(), 1, "{stderr}");
        assert!(warnings[0].ends_with(&format!(": {}", forms.join(", "))), "{} names {forms:?}", warnings[0]);
    }

    // the order: verdict, functions, source lines, hottest loop, then the views
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("no '{s}' in\n{text}"));
    let order = ["\nVerdict (", "\nFunctions (by cycles):", "\nSource lines (by cycles):", "\nHottest loop at", "\nBottlenecks (", "\nTop-Down (", "\nCPI stacks (", "\nHottest instructions"];
    for w in order.windows(2) {
        assert!(at(w[0]) < at(w[1]), "'{}' before '{}'\n{text}", w[0], w[1]);
    }

    // thousands separators: the run's counts as the JSON has them, grouped
    let simulated = r["instructions_simulated"].as_u64().unwrap();
    assert!(simulated > 1_000_000, "the program runs over a million instructions");
    assert!(text.contains(&format!("{} instructions simulated", grouped(simulated))), "{text}");
    assert!(text.contains(&format!("cycles {}", grouped(r["cycles"].as_f64().unwrap().round() as u64))), "{text}");

    // the function table: kern's share and IPC from its cycles and instructions
    let kern = r["functions"].as_array().unwrap().iter().find(|f| f["function"].as_str().is_some_and(|n| n.ends_with("!kern"))).expect("kern in functions");
    let (cycles, instructions) = (kern["cycles"].as_f64().unwrap(), kern["instructions"].as_u64().unwrap());
    let functions = &text[at("Functions (by cycles):")..at("Source lines")];
    let row = functions.lines().find(|l| l.split_whitespace().next().is_some_and(|c| c.ends_with("!kern"))).unwrap_or_else(|| panic!("{functions}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1], format!("{:.1}%", kern["share"].as_f64().unwrap() * 100.0), "{row}");
    assert_eq!(cells[2], grouped(cycles.round() as u64), "{row}");
    assert_eq!(cells[3], grouped(instructions), "{row}");
    assert_eq!(cells[4], format!("{:.2}", instructions as f64 / cycles), "{row}");
    // its top bottleneck is the verdict's for kern (or its loop's)
    let hotspot = r["verdict"]["hotspots"].as_array().unwrap().iter().find(|h| h["name"].as_str().is_some_and(|n| n.ends_with("!kern"))).expect("kern has a verdict (over 5 %)");
    let title = hotspot["verdict"]["causes"][0]["title"].as_str().unwrap_or("no cause found");
    assert!(row.trim_end().ends_with(title), "{row} ends with {title}");

    // the hottest loop (kern's): the instructions that run every iteration are
    // shown, the cold block's (once in 1024 iterations: < 0.1 % of the loop's
    // instructions each, so below 0.5 % of its cycles and of any resource) are not
    let table = &text[at("Hottest loop at")..at("Bottlenecks (")];
    let rows = r["hottest_loop"].as_array().unwrap();
    let most = rows.iter().map(|x| x["executions"].as_u64().unwrap()).max().unwrap();
    let (hot, cold): (Vec<&Value>, Vec<&Value>) = rows.iter().partition(|x| x["executions"].as_u64().unwrap() * 2 > most);
    assert!(cold.len() >= 10, "the cold block has many instructions: {}", cold.len());
    assert!(hot.iter().filter(|x| x["uops"].as_u64().unwrap() > 0).count() >= 4);
    // an instruction with a uop in every iteration of a loop of a few cycles per
    // iteration uses at least 1 / (4 ports x cycles per iteration) of its port
    // group, well above 0.5 % (an eliminated move has no uop and may be hidden)
    for x in hot.iter().filter(|x| x["uops"].as_u64().unwrap() > 0) {
        assert!(table.contains(&format!("  {}  ", x["address"].as_str().unwrap())), "hot row {} shown\n{table}", x["asm"]);
    }
    for x in &cold {
        assert!(x["executions"].as_u64().unwrap() * 1000 < most, "the cold rows run once in 1024");
        assert!(!table.contains(&format!("  {}  ", x["address"].as_str().unwrap())), "cold row {} hidden\n{table}", x["asm"]);
    }
    let shown = rows.iter().filter(|x| table.contains(&format!("  {}  ", x["address"].as_str().unwrap()))).count();
    assert!(table.contains(&format!("({} of its {} instructions hidden", rows.len() - shown, rows.len())), "the count of hidden rows: {table}");
}

#[test]
fn run_progress_rate_has_three_digits_and_a_prefix() {
    // the progress bar is drawn only on a terminal: `script` gives the run one
    if Command::new("script").arg("--version").output().is_err() {
        panic!("script (util-linux) not found");
    }
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "cold", COLD_BLOCK_C, &["-O2"]);
    let cmd = format!(
        "BOTTLENOSE_MACHINE=skylake {} run --no-sensitivity --no-views -o {} -- {} 400000",
        env!("CARGO_BIN_EXE_bottlenose"),
        d.path().join("r.txt").display(),
        exe.display()
    );
    let o = Command::new("script").args(["-qec", &cmd, "/dev/null"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let screen = String::from_utf8_lossy(&o.stdout);
    // "2.29 M instr/s", "812 instr/s": not "2,291,988.2705/s"
    let rates: Vec<&str> = screen.split("instructions executed (").skip(1).filter_map(|s| s.split(')').next()).collect();
    assert!(!rates.is_empty(), "no progress line on the terminal: {screen:?}");
    for rate in rates {
        let (number, unit) = rate.split_once(' ').unwrap_or_else(|| panic!("{rate}"));
        assert!(["instr/s", "k instr/s", "M instr/s", "G instr/s"].contains(&unit), "{rate}");
        let significant = number.chars().filter(char::is_ascii_digit).count();
        assert!(significant == 3 || number.parse::<f64>().is_ok_and(|v| v < 100.0 && unit == "instr/s"), "three significant digits: {rate}");
        assert!(!number.contains(','), "{rate}");
    }
}

/// The README's quick start on the bundled example (`examples/dot.c`, built and
/// run by scripts/setup.sh): in the whole run, the function table's cause for
/// `dot` and, with the region on `dot`, the run's verdict blame the chain of
/// additions and say to split it; the split version takes at most half the
/// cycles. Skylake's addsd has a latency of 4 cycles (Agner Fog's tables), so
/// one chain costs 4 cycles per element, while four chains are bound by the
/// two loads per element on two load ports: 1 cycle.
#[test]
fn bundled_example_verdict_names_the_chain_and_the_fix_halves_it() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = d.path().join("dot");
    let gcc = Command::new("gcc").args(["-O2", "-g", "-o"]).arg(&exe).arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dot.c")).output().unwrap();
    assert!(gcc.status.success(), "{}", String::from_utf8_lossy(&gcc.stderr));
    let whole = common::run_json(&[], &exe, &["20"]);
    let dot = whole["verdict"]["hotspots"].as_array().unwrap().iter().find(|h| h["kind"] == "function" && h["name"].as_str().is_some_and(|n| n.ends_with("!dot"))).expect("dot has a verdict");
    assert_eq!(dot["verdict"]["causes"][0]["cause"]["kind"], "dependency_chain", "{:#}", dot["verdict"]);
    let slow = common::run_json(&["--roi", "function:dot"], &exe, &["20"]);
    let first = &slow["verdict"]["causes"][0];
    assert_eq!(first["cause"]["kind"], "dependency_chain", "{:#}", slow["verdict"]);
    let action = first["action"].as_str().unwrap();
    assert!(action.contains("in dot") && action.contains("addsd") && action.contains("accumulators"), "{action}");
    let split = common::run_json(&["--roi", "function:dot_split"], &exe, &["20", "split"]);
    let (chain, chains) = (slow["cycles"].as_f64().unwrap(), split["cycles"].as_f64().unwrap());
    assert!(chains * 2.0 <= chain, "dot {chain} cycles, dot_split {chains}");
}
