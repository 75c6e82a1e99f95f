//! Imports of `perf stat` output from Arm Neoverse cores into Arm's telemetry
//! Top-Down (`neoverse-v2`, `neoverse-n1`): every spelling perf accepts on
//! PMUv3 maps to the table's event, and the nodes take the values worked out
//! by hand from the fixture's counts with Arm's formulas.

use bottlenose_counters::import::{self, names::Namer};
use bottlenose_counters::plan::{constants, Method, Selection};
use bottlenose_counters::report::Report;
use bottlenose_metrics::MetricEngine;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn value(r: &Report, node: &str) -> Option<f64> {
    r.tree.find(node).unwrap_or_else(|| panic!("{node} not in the tree")).value
}

#[test]
fn a_neoverse_v2_perf_stat_csv_gives_arms_level_1() {
    let parsed = import::parse_file(std::path::Path::new(&fixture("perf-neoverse-v2.csv"))).unwrap();
    let engine = MetricEngine::for_uarch("neoverse-v2").unwrap();
    let namer = Namer::new(Some(&engine), &engine, false);
    let imported = parsed.counts(&namer, &constants(false));
    let c = &imported.total.counts;
    // each spelling reached its event
    for (key, want) in [("cpu_cycles", 1e6), ("stall_slot_frontend", 1.2e6), ("op_retired", 3.24e6), ("op_spec", 3.6e6), ("inst_retired", 2.5e6), ("stall_frontend", 1e5)] {
        assert_eq!(c.get_str(key), Some(want), "{key}");
    }
    let r = Report::new(&engine, Method::Tma, c, &Selection { level: None, nodes: vec![] });
    // 8e6 slots: FE 1.2e6/8e6 - 1e4/1e6 = 0.14; BE 2.8e6/8e6 - 3e4/1e6 = 0.32;
    // Retiring 3.24/3.6 * (1 - 4e6/8e6) = 0.45; Bad Spec 0.1 * 0.5 + 4e4/1e6 = 0.09
    for (node, want) in [("Frontend_Bound", 0.14), ("Backend_Bound", 0.32), ("Retiring", 0.45), ("Bad_Speculation", 0.09)] {
        let v = value(&r, node).unwrap();
        assert!((v - want).abs() < 1e-12, "{node}: {v} != {want}");
    }
    // V2 hardware has no core/memory split events: level 2 stays empty, and says why
    assert_eq!(value(&r, "Backend_Mem_Bound"), None);
    assert!(imported.warnings.iter().any(|w| w.contains("not supported") && w.contains("STALL_BACKEND_MEMBOUND")), "{:?}", imported.warnings);
    // Backend_Bound (0.32 > 0.2) is the only flagged level-1 node
    let path: Vec<&str> = r.tree.bottleneck_path().iter().map(|n| n.label.as_str()).collect();
    assert_eq!(path, ["Backend_Bound"]);
}

#[test]
fn a_neoverse_n1_import_is_arms_cycle_accounting() {
    let text = "2000000,,CPU_CYCLES,1,100.00,,\n300000,,STALL_FRONTEND,1,100.00,,\n900000,,r24,1,100.00,,\n3000000,,INST_RETIRED,1,100.00,,\n";
    let parsed = import::parse(text, "n1.csv").unwrap();
    let engine = MetricEngine::for_uarch("neoverse-n1").unwrap();
    let imported = parsed.counts(&Namer::new(Some(&engine), &engine, false), &constants(false));
    let r = Report::new(&engine, Method::Tma, &imported.total.counts, &Selection { level: None, nodes: vec![] });
    assert_eq!(value(&r, "Frontend_Stalled_Cycles"), Some(0.15)); // 3e5 / 2e6
    assert_eq!(value(&r, "Backend_Stalled_Cycles"), Some(0.45)); // 9e5 / 2e6 (raw r24 = STALL_BACKEND)
    let ev = engine.evaluate(&imported.total.counts).unwrap();
    assert_eq!(ev.get("IPC"), Some(1.5));
}
