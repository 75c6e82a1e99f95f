//! `bottlenose topdown`: the no-PMU error on this machine, --print-events
//! without a PMU, imports in the three output formats, one-line errors.

use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().expect("run bottlenose")
}

fn fixture(name: &str) -> String {
    format!("{}/../counters/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Failure with exactly one stderr line containing every needle.
fn fails_with(o: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "expected failure; stderr: {err}");
    assert_ne!(o.status.code(), Some(101), "panicked: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line expected: {err}");
    for n in needles {
        assert!(lines[0].contains(n), "'{}' lacks '{n}'", lines[0]);
    }
}

fn has_pmu() -> bool {
    ["cpu", "cpu_core", "cpu_atom"].iter().any(|p| std::path::Path::new(&format!("/sys/bus/event_source/devices/{p}")).exists())
}

#[test]
fn counting_without_a_pmu_is_one_line() {
    let o = bn(&["topdown", "--", "true"]);
    if has_pmu() {
        // A machine with counters: the run works and the exit status passes through.
        assert!(stdout(&o).contains("Top-Down"));
        assert_eq!(bn(&["topdown", "--", "sh", "-c", "exit 4"]).status.code(), Some(4));
        return;
    }
    fails_with(
        &o,
        &["error: no hardware performance counters are exposed on this machine (as in many VMs); use `bottlenose run` to get simulated Top-Down from the model instead"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    // Before CPU detection and planning: even an unknown --cpu reports the missing PMU first.
    fails_with(&bn(&["topdown", "--cpu", "skl", "-l", "3", "--repeat", "--", "true"]), &["no hardware performance counters"]);
}

#[test]
fn print_events_needs_no_pmu() {
    let out = stdout(&bn(&["topdown", "--print-events", "--cpu", "skl", "-l", "2"]));
    assert!(out.starts_with("uarch skl, method tma (table skl), SMT off, PMU: 8 general counters per thread (SMT off) + 3 fixed"), "{out}");
    assert!(out.contains("group 1:") && out.contains("group 2:"), "{out}");
    assert!(out.contains("CPU_CLK_UNHALTED.THREAD") && out.contains("fixed1") && out.contains("cpu/event=0x3c/"), "{out}");
    assert!(out.contains("perf stat -x, -o out.csv -e '{"), "{out}");
    let icl = stdout(&bn(&["topdown", "--print-events", "--cpu", "icl"]));
    assert!(icl.contains("TOPDOWN.SLOTS:perf_metrics") && icl.contains("topdown-fe-bound") && icl.contains("'{slots,topdown-"), "{icl}");
    let smt = stdout(&bn(&["topdown", "--print-events", "--cpu", "hsw", "--smt", "on", "--method", "5-event"]));
    assert!(smt.contains("4 general counters per thread (SMT on)") && smt.contains("CPU_CLK_UNHALTED.THREAD_ANY"), "{smt}");
    // This machine's own CPU (detected) when it has a table.
    let own = bn(&["topdown", "--print-events"]);
    assert_ne!(own.status.code(), Some(101));
}

/// The suggested `perf stat` line keeps the counts apart from the program's
/// output: perf stat writes its counts to stderr (perf-stat(1): "-o file: Print
/// the output into the designated file"), so a `> FILE` after the command would
/// capture the program's stdout instead. The counts go to `-o FILE`, that file is
/// what the import reads, and nothing is redirected.
#[test]
fn print_events_suggests_perf_stat_with_an_output_file() {
    for cpu in ["skl", "icl"] {
        let out = stdout(&bn(&["topdown", "--print-events", "--cpu", cpu]));
        let line = out.lines().find(|l| l.starts_with("perf stat")).unwrap_or_else(|| panic!("no perf stat line: {out}"));
        let commands: Vec<Vec<String>> = line.split("; ").map(|c| shlex::split(c).unwrap_or_else(|| panic!("not shell words: {c}"))).collect();
        assert_eq!(commands.len(), 2, "{line}");
        let perf = &commands[0];
        assert!(perf.iter().all(|w| !w.starts_with('>') && !w.starts_with('|')), "no redirection: {line}");
        let dashdash = perf.iter().position(|w| w == "--").expect("-- before the command");
        assert_eq!(&perf[dashdash + 1..], ["CMD"], "the command ends the perf line: {line}");
        let o = perf.iter().position(|w| w == "-o").expect("-o FILE");
        assert!(o < dashdash, "-o is perf's option, before --: {line}");
        let file = &perf[o + 1];
        assert!(perf[..dashdash].iter().any(|w| w == "-x,"), "CSV: {line}");
        let import = &commands[1];
        let i = import.iter().position(|w| w == "--import").expect("--import");
        assert_eq!(&import[i + 1], file, "the import reads the file perf wrote: {line}");
        assert_eq!(import[..2], ["bottlenose", "topdown"]);
        assert!(import.windows(2).any(|w| w[0] == "--cpu" && w[1] == cpu), "{line}");
    }
}

#[test]
fn import_text_json_csv() {
    let f = fixture("perf-skl-l1.csv");
    let text = String::from_utf8_lossy(&bn(&["topdown", "--import", &f, "--cpu", "skl", "-l", "1"]).stdout).into_owned();
    assert!(text.starts_with("Top-Down (skl, method tma)"), "{text}");
    assert!(text.contains("Frontend_Bound") && text.contains("20.0%") && text.contains("<== bottleneck"), "{text}");
    let o = bn(&["topdown", "--import", &f, "--cpu", "skl", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["uarch"], "skl");
    assert_eq!(j["method"], "tma");
    assert_eq!(j["tree"]["name"], "Top-Down");
    let kids = j["tree"]["children"].as_array().unwrap();
    let fe = kids.iter().find(|n| n["label"] == "Frontend_Bound").unwrap();
    assert_eq!(fe["value"], 0.2);
    assert_eq!(fe["unit"], "Slots");
    assert_eq!(fe["normalized"], 0.2);
    assert_eq!(fe["flagged"], true);
    assert!(fe["children"].as_array().unwrap().iter().any(|c| c["label"] == "Fetch_Latency"));
    assert!(j["events"].as_array().unwrap().len() >= 15);
    assert!(j["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("multiplexed")));
    let csv = stdout(&bn(&["topdown", "--import", &f, "--cpu", "skl", "-l", "1", "--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "node,level,value,threshold,flagged,unit,normalized");
    assert!(lines.contains(&"Frontend_Bound,1,0.200000,0.15,true,Slots,0.200000"), "{csv}");
    assert_eq!(lines.len(), 5);
}

#[test]
fn import_intervals_likwid_and_methods() {
    let iv = stdout(&bn(&["topdown", "--import", &fixture("perf-hsw-interval-percpu.csv"), "--cpu", "hsw"]));
    assert_eq!(iv.matches("Top-Down (hsw, method tma) at ").count(), 2, "{iv}");
    let csv = stdout(&bn(&["topdown", "--import", &fixture("perf-hsw-interval-percpu.csv"), "--cpu", "hsw", "--format", "csv"]));
    assert!(csv.starts_with("time,node,level,value,threshold,flagged,unit,normalized\n1.001235,Frontend_Bound,1,0.083333"), "{csv}");
    let json = stdout(&bn(&["topdown", "--import", &fixture("perf-hsw-interval-percpu.csv"), "--cpu", "hsw", "--format", "json"]));
    assert_eq!(json.lines().count(), 2, "one JSON object per interval");
    let lk = stdout(&bn(&["topdown", "--import", &fixture("likwid-hsw-topdown-2t.csv"), "--method", "5-event"]));
    assert!(lk.starts_with("Top-Down (hsw, method 5-event)") && lk.contains("36.3%"), "{lk}");
    let legacy = stdout(&bn(&["topdown", "--import", &fixture("perf-hsw-topdown-legacy.csv"), "--cpu", "hsw", "--method", "5-event"]));
    assert!(legacy.contains("20.0%"), "{legacy}");
    let regions = stdout(&bn(&["topdown", "--import", &fixture("likwid-icl-tma-regions.csv")]));
    assert!(regions.contains("region init") && regions.contains("region compute") && regions.contains("52.0%"), "{regions}");
    let all = stdout(&bn(&["topdown", "--import", &fixture("likwid-icl-tma-regions.csv"), "--all", "-l", "1"]));
    assert!(all.contains("missing event INT_MISC.UOP_DROPPING"), "{all}");
}

#[test]
fn import_errors_are_one_line() {
    let f = fixture("perf-skl-l1.csv");
    fails_with(&bn(&["topdown", "--import", &f]), &["does not name its CPU: pass --cpu NAME", "skl", "zen4"]);
    fails_with(&bn(&["topdown", "--import", &f, "--cpu", "zen3"]), &["zen3 table has no Top-Down tree"]);
    fails_with(&bn(&["topdown", "--import", &f, "--cpu", "pentium4"]), &["unknown microarchitecture 'pentium4'"]);
    fails_with(&bn(&["topdown", "--import", &f, "--cpu", "skl", "--nodes", "Bogus"]), &["unknown node 'Bogus'"]);
    fails_with(&bn(&["topdown", "--import", "/nonexistent.csv", "--cpu", "skl"]), &["cannot read /nonexistent.csv"]);
    fails_with(&bn(&["topdown", "--import", &f, "--cpu", "zen4"]), &["no Top-Down node of the zen4 tree could be computed"]);
    fails_with(&bn(&["topdown", "--import", &f, "--cpu", "skl", "-I", "100"]), &["--import reads counts from a file"]);
    fails_with(&bn(&["topdown", "--print-events", "--cpu", "icl", "--method", "5-event"]), &["method 5-event needs"]);
    fails_with(&bn(&["topdown"]), &["nothing to count"]);
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.csv");
    std::fs::write(&bad, "this is not perf output\n").unwrap();
    fails_with(&bn(&["topdown", "--import", bad.to_str().unwrap(), "--cpu", "skl"]), &["bad.csv:1: not a perf stat -x, line"]);
}

/// A made-up `perf stat -x,` file of a Neoverse V2 through Arm's telemetry Top-Down;
/// `--cpu` takes the table or the machine name (the same here).
#[test]
fn import_neoverse_v2_perf_stat() {
    let f = fixture("perf-neoverse-v2.csv");
    let o = bn(&["topdown", "--import", &f, "--cpu", "neoverse-v2", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&stdout(&o).into_bytes()).expect("json");
    assert_eq!(j["uarch"], "neoverse-v2");
    let kids = j["tree"]["children"].as_array().unwrap();
    let value = |label: &str| kids.iter().find(|n| n["label"] == label).unwrap_or_else(|| panic!("{label}: {kids:?}"))["value"].as_f64().unwrap();
    // 8 slots x 1e6 cycles, 1e4 mispredicts (worked out in crates/counters/tests/neoverse.rs)
    for (label, want) in [("Frontend_Bound", 0.14), ("Backend_Bound", 0.32), ("Retiring", 0.45), ("Bad_Speculation", 0.09)] {
        assert!((value(label) - want).abs() < 1e-9, "{label}: {}", value(label));
    }
    let text = stdout(&bn(&["topdown", "--import", &f, "--cpu", "neoverse-v2"]));
    assert!(text.contains("Backend_Bound") && text.contains("<== bottleneck"), "{text}");
    // --print-events plans Arm's events with PMUv3 numbers
    let plan = stdout(&bn(&["topdown", "--print-events", "--cpu", "neoverse-v2", "-l", "1"]));
    assert!(plan.contains("STALL_SLOT_FRONTEND") && plan.contains("event=0x3e"), "{plan}");
}
