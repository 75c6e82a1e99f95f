//! Import regressions found by cross-checking `topdown --import` with toplev
//! (issue 16): offcore-response events named with their MSR value, `config1`
//! keys wider than 24 bits, toplev's perf-output header row, and nodes left
//! without a value by a division by zero. Expected values are worked out by
//! hand from the fixture's counts and the SPR formulas (TMA 5.2).

use bottlenose_counters::import::{self, names::Namer, Imported};
use bottlenose_counters::plan::{constants, Method, Selection};
use bottlenose_counters::report::{Report, View};
use bottlenose_metrics::{MetricEngine, Reason, Tree};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn import_text(text: &str, uarch: &str) -> (Imported, MetricEngine) {
    let engine = MetricEngine::for_uarch(uarch).unwrap();
    let parsed = import::parse(text, "t.csv").unwrap();
    let imported = parsed.counts(&Namer::new(Some(&engine), &engine, false), &constants(false));
    (imported, engine)
}

fn tree(engine: &MetricEngine, imported: &Imported) -> Tree {
    Report::new(engine, Method::Tma, &imported.total.counts, &Selection::default()).tree
}

fn value(t: &Tree, node: &str) -> f64 {
    let n = t.find(node).unwrap_or_else(|| panic!("{node} not in the tree"));
    n.value.unwrap_or_else(|| panic!("{node} has no value: {:?}", n.reason))
}

// The fixture: clocks 3e9, REF_TSC 2e9, TSC 2e9 in 1 s → core frequency 3e9/2e9 × 2e9 / 1e9 / 1 = 3 GHz.
const FREQ: f64 = 3.0;
const CLKS: f64 = 3e9;

/// False_Sharing = (170 f · OCR.DEMAND_RFO.L3_MISS:ocr_msr_val=0x103b800002 + 81 f · OCR.DEMAND_RFO.L3_HIT.SNOOP_HITM) / clks
fn false_sharing() -> f64 {
    (170.0 * FREQ * 1e6 + 81.0 * FREQ * 5e5) / CLKS
}

#[test]
fn an_offcore_event_named_with_its_msr_value_is_found() {
    let (imp, spr) = import_text(&fixture("perf-spr-offcore.csv"), "spr");
    assert_eq!(imp.total.counts.get_str("ocr.demand_rfo.l3_miss:ocr_msr_val=0x103b800002"), Some(1e6));
    assert!(!imp.warnings.iter().any(|w| w.contains("no table describes")), "{:?}", imp.warnings);
    let t = tree(&spr, &imp);
    assert!((value(&t, "False_Sharing") - false_sharing()).abs() < 1e-12, "{}", value(&t, "False_Sharing"));
}

#[test]
fn an_offcore_event_given_as_its_raw_encoding_with_config1_is_found() {
    // as `perf stat -e cpu/event=0x2a,umask=0x01,config1=0x103b800002/` prints it
    let text = fixture("perf-spr-offcore.csv").replace("OCR.DEMAND_RFO.L3_MISS:ocr_msr_val=0x103b800002", "cpu/event=0x2a,umask=0x01,config1=0x103b800002/");
    let (imp, spr) = import_text(&text, "spr");
    let t = tree(&spr, &imp);
    assert!((value(&t, "False_Sharing") - false_sharing()).abs() < 1e-12);
}

#[test]
fn offcore_events_differing_above_bit_24_of_config1_stay_apart() {
    // SNOOP_HITM (config1 0x10003c0001) and SNOOP_HIT_WITH_FWD (0x8003c0001) share the low 24 bits
    let (imp, spr) = import_text(&fixture("perf-spr-offcore.csv"), "spr");
    let c = &imp.total.counts;
    assert_eq!(c.get_str("ocr.demand_data_rd.l3_hit.snoop_hitm"), Some(3e5));
    assert_eq!(c.get_str("ocr.demand_data_rd.l3_hit.snoop_hit_with_fwd"), Some(1e5));
    // Contested_Accesses = ((81 - 4.4) f · XSNP_FWD · HITM / (HITM + FWD) + (79 - 4.4) f · XSNP_MISS)
    //                      · (1 + FB_HIT / L1_MISS / 2) / clks
    //                    = (229.8 · 1e6 · 0.75 + 223.8 · 2e5) · 1.125 / 3e9 = 0.08141625
    // (both merged into their sum would give HITM / (HITM + FWD) = 0.5 and 0.0598725)
    let want = ((81.0 - 4.4) * FREQ * 1e6 * (3e5 / 4e5) + (79.0 - 4.4) * FREQ * 2e5) * (1.0 + 1e6 / 4e6 / 2.0) / CLKS;
    assert!((want - 0.08141625).abs() < 1e-12);
    let t = tree(&spr, &imp);
    assert!((value(&t, "Contested_Accesses") - want).abs() < 1e-12, "{}", value(&t, "Contested_Accesses"));
}

#[test]
fn a_header_row_of_column_names_is_skipped() {
    // toplev --perf-output writes this row above perf's `-x;` lines
    let body = fixture("perf-skl-l1.csv").replace(',', ";");
    let with_header = format!("Value;Unit;Event;Run-Time;Enabled;;\n{body}");
    let plain = import::parse(&body, "p.csv").unwrap();
    let headed = import::parse(&with_header, "p.csv").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(headed.rows.len(), plain.rows.len());
    assert_eq!(headed.rows.iter().map(|r| (&r.event, r.value)).collect::<Vec<_>>(), plain.rows.iter().map(|r| (&r.event, r.value)).collect::<Vec<_>>());
    let interval = "Timestamp;Location;Value;Unit;Event;Run-Time;Enabled;;\n1.000123456;CPU0;1000000;;cpu/event=0x3c/;1000000;100.00;;\n";
    let rows = import::parse(interval, "i.csv").unwrap().rows;
    assert_eq!((rows.len(), rows[0].time, rows[0].prefix.as_deref()), (1, Some(1.000123456), Some("CPU0")));
    // a line that is not column names is still an error
    assert!(import::parse("Value;Unit;Evnt;;\n", "b.csv").is_err());
}

#[test]
fn a_node_divided_by_zero_says_why_and_is_not_hidden() {
    // No mispredicts and no machine clears: Branch_Mispredicts divides by their sum, 0.
    // Bad_Speculation (2.6M - 2.0M + 4 · 25k) / 4M = 0.175 > 0.15 is flagged, so its children show.
    let text = fixture("perf-skl-l1.csv")
        .replace("2200000,,cpu/event=0x0e,umask=0x01/", "2600000,,cpu/event=0x0e,umask=0x01/")
        .replace("9000,,cpu/event=0xc5/", "0,,cpu/event=0xc5/")
        .replace("1000,,cpu/event=0xc3,umask=0x01,cmask=1,edge/", "0,,cpu/event=0xc3,umask=0x01,cmask=1,edge/");
    let (imp, skl) = import_text(&text, "skl");
    let r = Report::new(&skl, Method::Tma, &imp.total.counts, &Selection { level: Some(2), nodes: vec![] });
    assert!((value(&r.tree, "Bad_Speculation") - 0.175).abs() < 1e-12);
    let n = r.tree.find("Branch_Mispredicts").unwrap();
    assert_eq!(n.value, None);
    let divisor = "(BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT)";
    assert_eq!(n.reason, Some(Reason::DivisionByZero { divisor: divisor.into(), within: None }));
    // an import hides nodes whose events are not in the file, not these
    let view = View { all: false, hide_missing: true };
    let text = r.text(view);
    let line = |node: &str| text.lines().find(|l| l.trim_start().starts_with(node)).unwrap_or_else(|| panic!("{node} hidden:\n{text}")).to_string();
    assert!(line("Branch_Mispredicts").contains("n/a") && line("Branch_Mispredicts").contains(&format!("(division by zero: {divisor} is 0)")), "{text}");
    assert!(line("Machine_Clears").contains(&format!("(division by zero in Branch_Mispredicts: {divisor} is 0)")), "{text}");
    assert!(!text.contains("Fetch_Latency\n") && text.lines().all(|l| !l.contains("missing event")), "nodes lacking events stay hidden: {text}");
    let json = r.json(view).to_string();
    assert!(json.contains(&format!("\"reason\":\"division by zero: {divisor} is 0\"")), "{json}");
}
