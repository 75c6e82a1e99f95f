//! Imports of fixtures written in perf's CSV (`-x,`, `-x\;`, `-I`, `-A`,
//! `--per-core`, hybrid `cpu_core/` names) and JSON (`-j`) formats and in
//! likwid-perfctr's CSV layout, checked against hand-computed values and
//! against the FakeBackend path on the same counts (round trips).

use bottlenose_counters::collect::{collect, CollectOptions};
use bottlenose_counters::fake::FakeBackend;
use bottlenose_counters::import::{self, names::Namer, Format, Imported};
use bottlenose_counters::plan::{constants, plan, Method, Selection};
use bottlenose_counters::report::{Report, View};
use bottlenose_metrics::{MetricEngine, Tree};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn import(name: &str, cpu: Option<&str>, method: Method, smt: bool) -> (Imported, MetricEngine, Format) {
    let parsed = import::parse_file(std::path::Path::new(&fixture(name))).unwrap();
    let hw = cpu.map(str::to_string).or(parsed.cpu.clone()).expect("cpu");
    let engine = method.engine(&hw, smt).unwrap();
    let hw_engine = MetricEngine::for_uarch(&hw).unwrap();
    let namer = Namer::new(Some(&hw_engine), &engine, smt);
    (parsed.counts(&namer, &constants(smt)), engine, parsed.format)
}

fn tree(engine: &MetricEngine, method: Method, counts: &bottlenose_metrics::Counts, level: Option<u32>) -> Tree {
    Report::new(engine, method, counts, &Selection { level, nodes: vec![] }).tree
}

fn close(t: &Tree, node: &str, want: f64) {
    let n = t.find(node).unwrap_or_else(|| panic!("{node} not in tree"));
    let v = n.value.unwrap_or_else(|| panic!("{node} has no value: {:?}", n.reason));
    assert!((v - want).abs() < 1e-9, "{node}: {v} != {want}");
}

fn same_trees(a: &Tree, b: &Tree) {
    let (wa, wb) = (a.walk(), b.walk());
    assert_eq!(wa.len(), wb.len());
    for ((_, x), (_, y)) in wa.iter().zip(wb.iter()) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.flagged, y.flagged, "{}", x.name);
        match (x.value, y.value) {
            (Some(p), Some(q)) => assert!((p - q).abs() < 1e-9, "{}: {p} vs {q}", x.name),
            (p, q) => assert_eq!(p, q, "{}", x.name),
        }
    }
}

/// The skl level-1 counts of `perf-skl-l1.*` as the FakeBackend's script.
fn skl_fake() -> FakeBackend {
    FakeBackend::new()
        .count("IDQ_UOPS_NOT_DELIVERED.CORE", 800000.0)
        .count("CPU_CLK_UNHALTED.THREAD", 1000000.0)
        .count("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 120000.0)
        .count("UOPS_ISSUED.ANY", 2200000.0)
        .count("UOPS_RETIRED.RETIRE_SLOTS", 2000000.0)
        .count("INT_MISC.RECOVERY_CYCLES", 25000.0)
        .count("BR_MISP_RETIRED.ALL_BRANCHES", 9000.0)
        .count("MACHINE_CLEARS.COUNT", 1000.0)
        .count("CYCLE_ACTIVITY.STALLS_MEM_ANY", 150000.0)
        .count("INST_RETIRED.ANY", 1500000.0)
        .count("EXE_ACTIVITY.BOUND_ON_STORES", 50000.0)
        .count("CYCLE_ACTIVITY.STALLS_TOTAL", 300000.0)
        .count("EXE_ACTIVITY.1_PORTS_UTIL", 200000.0)
        .running("EXE_ACTIVITY.2_PORTS_UTIL", 0.0)
        .count("UOPS_RETIRED.MACRO_FUSED", 100000.0)
}

#[test]
fn perf_csv_and_json_round_trip_with_the_fake_backend() {
    let (csv, engine, f) = import("perf-skl-l1.csv", Some("skl"), Method::Tma, false);
    assert_eq!(f, Format::PerfCsv);
    let (json, _, f) = import("perf-skl-l1.json", Some("skl"), Method::Tma, false);
    assert_eq!(f, Format::PerfJson);
    let tc = tree(&engine, Method::Tma, &csv.total.counts, Some(1));
    close(&tc, "Frontend_Bound", 800000.0 / 4e6);
    close(&tc, "Bad_Speculation", (2.2e6 - 2.0e6 + 4.0 * 25000.0) / 4e6);
    close(&tc, "Retiring", 0.5);
    close(&tc, "Backend_Bound", 1.0 - 0.2 - (2.2e6 + 1e5) / 4e6);
    assert_eq!(csv.total.counts.constant("duration_time"), Some(1.002345678));
    same_trees(&tc, &tree(&engine, Method::Tma, &json.total.counts, Some(1)));
    // The same counts through plan → FakeBackend → engine.
    let p = plan("skl", Method::Tma, &Selection { level: Some(1), nodes: vec![] }, false).unwrap();
    let c = collect(&mut skl_fake(), &p, &CollectOptions::command(vec!["true".into()])).unwrap();
    let tf = Report::new(&p.engine, p.method, &c.total.counts, &p.selection).tree;
    same_trees(&tc, &tf);
    // Every planned event was found in the CSV under its key (except the one not counted).
    for e in &p.events {
        let got = csv.total.counts.get_str(&e.key);
        assert_eq!(got.is_some(), e.name != "EXE_ACTIVITY.2_PORTS_UTIL", "{} ({})", e.name, e.key);
    }
    let w = csv.warnings.join("\n");
    assert!(w.contains("not counted: cpu/event=0xa6,umask=0x04/"), "{w}");
    assert!(w.contains("not supported by that machine: msr/tsc/"), "{w}");
    assert!(w.contains("multiplexed") && w.contains("cpu/event=0xa6,umask=0x40/ 50.0%"), "{w}");
    assert!(json.warnings.join("\n").contains("EXE_ACTIVITY.BOUND_ON_STORES 50.0%"));
    // Retiring (0.5) is flagged through its Heavy_Operations condition
    // ((2.0M + 0.1M - 1.5M) / 4M = 0.15 > 0.1) and beats Backend_Bound (0.225) on the path.
    let r = Report::new(&engine, Method::Tma, &csv.total.counts, &Selection { level: Some(1), nodes: vec![] });
    assert_eq!(r.path(), ["tma_retiring"]);
    assert!(tc.find("Backend_Bound").unwrap().flagged && tc.find("Frontend_Bound").unwrap().flagged);
}

#[test]
fn plan_encodings_round_trip_through_perf_csv() {
    // perf prints events as given to -e: the plan's perf spellings must map back to the plan's keys.
    for u in ["skl", "skx", "hsw", "ivb", "icl", "spr", "adl", "zen4"] {
        let p = plan(u, Method::Tma, &Selection { level: Some(3), nodes: vec![] }, false).unwrap();
        let value = |perf: &str| 1000.0 + perf.bytes().map(|b| b as f64).sum::<f64>();
        let csv: String = p.events.iter().map(|e| format!("{},,{},1000000,100.00,,\n", value(&e.perf), e.perf)).collect();
        let parsed = import::parse(&csv, "generated.csv").unwrap();
        let hw = MetricEngine::for_uarch(u).unwrap();
        let imported = parsed.counts(&Namer::new(Some(&hw), &p.engine, false), &constants(false));
        for e in &p.events {
            assert_eq!(imported.total.counts.get_str(&e.key), Some(value(&e.perf)), "{u}: {} as {}", e.name, e.perf);
        }
        assert!(!imported.warnings.iter().any(|w| w.contains("no table describes")), "{u}: {:?}", imported.warnings);
    }
}

#[test]
fn interval_per_cpu_with_semicolons() {
    let (imp, engine, _) = import("perf-hsw-interval-percpu.csv", Some("hsw"), Method::Tma, false);
    assert_eq!(imp.samples.len(), 2);
    assert_eq!(imp.samples[0].time, Some(1.001234567));
    let t1 = tree(&engine, Method::Tma, &imp.samples[0].counts, Some(1));
    close(&t1, "Frontend_Bound", 500000.0 / 6e6);
    close(&t1, "Bad_Speculation", (3e6 - 2.7e6 + 4.0 * 15000.0) / 6e6);
    close(&t1, "Retiring", 2.7e6 / 6e6);
    let t2 = tree(&engine, Method::Tma, &imp.samples[1].counts, Some(1));
    close(&t2, "Frontend_Bound", 0.025);
    close(&t2, "Backend_Bound", 1.0 - 0.025 - (2e6 + 4.0 * 5000.0) / 8e6);
    assert!((imp.samples[1].counts.constant("duration_time").unwrap() - 1.001234567).abs() < 1e-9);
    // The total sums both intervals.
    let tt = tree(&engine, Method::Tma, &imp.total.counts, Some(1));
    close(&tt, "Retiring", (2.7e6 + 1.9e6) / 14e6);
    assert!(imp.warnings.is_empty(), "task-clock is ignored: {:?}", imp.warnings);
}

#[test]
fn hybrid_alder_lake_topdown_metrics() {
    let (imp, engine, _) = import("perf-adl-hybrid.csv", Some("adl"), Method::Tma, false);
    let t = tree(&engine, Method::Tma, &imp.total.counts, Some(2));
    close(&t, "Frontend_Bound", 0.2 - 0.01);
    close(&t, "Fetch_Latency", 0.7 / 6.0 - 0.01);
    close(&t, "Backend_Bound", 0.3);
    close(&t, "Memory_Bound", 1.0 / 6.0);
    close(&t, "Core_Bound", 0.3 - 1.0 / 6.0);
    close(&t, "Retiring", 0.4);
    close(&t, "Heavy_Operations", 0.05);
    close(&t, "Bad_Speculation", 1.0 - (0.19 + 0.3 + 0.4));
    let r = Report::new(&engine, Method::Tma, &imp.total.counts, &Selection { level: Some(2), nodes: vec![] });
    assert_eq!(r.path(), ["tma_backend_bound", "tma_core_bound"]);
    assert!(imp.warnings.iter().any(|w| w.contains("cpu_atom")), "{:?}", imp.warnings);
}

#[test]
fn legacy_perf_topdown_per_core_with_the_5_event_recipe() {
    let (imp, engine, _) = import("perf-hsw-topdown-legacy.csv", Some("hsw"), Method::FiveEvent, false);
    assert_eq!(engine.uarch(), "topdown5");
    let t = tree(&engine, Method::FiveEvent, &imp.total.counts, None);
    // Summed over the two cores; perf's topdown-* are already in slots.
    close(&t, "Frontend_Bound", 4.8e6 / 24e6);
    close(&t, "Bad_Speculation", (13e6 - 11.6e6 + 0.6e6) / 24e6);
    close(&t, "Retiring", 11.6e6 / 24e6);
    close(&t, "Backend_Bound", 1.0 - (4.8e6 + 13e6 + 0.6e6) / 24e6);
}

#[test]
fn likwid_topdown_group() {
    // Two hardware threads: the CPU comes from the file, the threads are summed.
    let (imp, engine, f) = import("likwid-hsw-topdown-2t.csv", None, Method::FiveEvent, false);
    assert_eq!(f, Format::Likwid);
    let t = tree(&engine, Method::FiveEvent, &imp.total.counts, None);
    close(&t, "Frontend_Bound", 1.6e6 / 8e6);
    close(&t, "Bad_Speculation", (3.2e6 - 2.8e6 + 4.0 * 75000.0) / 8e6);
    close(&t, "Retiring", 2.8e6 / 8e6);
    close(&t, "Backend_Bound", 1.0 - (1.6e6 + 3.2e6 + 4.0 * 75000.0) / 8e6);
    assert_eq!(imp.total.counts.constant("duration_time"), Some(0.5012));
    // TMA level 1 of the hsw table agrees (SMT off).
    let (imp2, hsw, _) = import("likwid-hsw-topdown-2t.csv", None, Method::Tma, false);
    let th = tree(&hsw, Method::Tma, &imp2.total.counts, Some(1));
    for n in ["Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound"] {
        close(&th, n, t.find(n).unwrap().value.unwrap());
    }
    // One thread: our values equal likwid's own Metric table.
    let parsed = import::parse_file(std::path::Path::new(&fixture("likwid-hsw-topdown-1t.csv"))).unwrap();
    assert_eq!(parsed.cpu.as_deref(), Some("hsw"));
    let (imp1, e1, _) = import("likwid-hsw-topdown-1t.csv", None, Method::FiveEvent, false);
    let t1 = tree(&e1, Method::FiveEvent, &imp1.total.counts, None);
    for (likwid, ours) in [("Front End [%]", "Frontend_Bound"), ("Speculation [%]", "Bad_Speculation"), ("Retiring [%]", "Retiring"), ("Back End [%]", "Backend_Bound")] {
        let m = parsed.tool_metrics.iter().find(|m| m.name == likwid).unwrap();
        let v = t1.find(ours).unwrap().value.unwrap() * 100.0;
        assert!((m.per_thread[0] - v).abs() < 1e-4, "{likwid}: likwid {} vs {v}", m.per_thread[0]);
    }
}

#[test]
fn likwid_marker_regions_on_ice_lake() {
    let (imp, engine, _) = import("likwid-icl-tma-regions.csv", None, Method::Tma, false);
    assert_eq!(engine.uarch(), "icl");
    let labels: Vec<Option<&str>> = imp.samples.iter().map(|s| s.label.as_deref()).collect();
    assert_eq!(labels, [Some("init"), Some("compute")]);
    let r = Report::new(&engine, Method::Tma, &imp.samples[1].counts, &Selection::default());
    close(&r.tree, "Retiring", 0.52);
    assert_eq!(imp.samples[1].counts.constant("duration_time"), Some(0.25));
    // likwid's TMA group lacks INT_MISC.UOP_DROPPING / CLEARS_COUNT: those nodes have no value, and say why.
    let fe = r.tree.find("Frontend_Bound").unwrap();
    let why = fe.reason.as_ref().unwrap();
    assert!(fe.value.is_none() && why.is_missing_input() && why.to_string().contains("INT_MISC.UOP_DROPPING"), "{why:?}");
    let shown = r.text(View { all: false, hide_missing: true });
    assert!(shown.contains("Retiring") && !shown.contains("Frontend_Bound"), "{shown}");
    let all = r.text(View { all: true, hide_missing: true });
    assert!(all.contains("Frontend_Bound") && all.contains("missing event INT_MISC.UOP_DROPPING"), "{all}");
    close(&Report::new(&engine, Method::Tma, &imp.samples[0].counts, &Selection::default()).tree, "Retiring", 0.3);
}

#[test]
fn malformed_files_are_one_line_errors() {
    let e = import::parse("hello world\n", "x.csv").err().unwrap().to_string();
    assert_eq!(e, "x.csv:1: not a perf stat -x, line: 'hello world'");
    let e = import::parse("{\"event\": \"cycles\"\n", "x.json").err().unwrap().to_string();
    assert!(e.starts_with("x.json:1: bad JSON"), "{e}");
    let e = import::parse("TABLE,Group 1 Raw,X,1\nfoo,bar\n", "l.csv").err().unwrap().to_string();
    assert!(e.starts_with("l.csv:0: no event rows"), "{e}");
    assert_eq!(import::parse("\n# nothing\n", "e.csv").err().unwrap().to_string(), "e.csv:0: no counter lines");
}
