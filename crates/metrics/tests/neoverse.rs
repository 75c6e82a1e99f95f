//! Arm's Neoverse telemetry Top-Down (`neoverse-v2`, `neoverse-n1`) on
//! made-up counts, against values worked out by hand with the formulas of
//! Arm's V2/N1 telemetry specifications and the V3 core/memory split.

use bottlenose_metrics::{Counts, MetricEngine, Unit};

fn v2_counts() -> Counts {
    Counts::new()
        .with("CPU_CYCLES", 1e6)
        .with("STALL_SLOT_FRONTEND", 1.2e6)
        .with("STALL_SLOT_BACKEND", 2.8e6)
        .with("STALL_SLOT", 4e6)
        .with("OP_SPEC", 3.6e6)
        .with("OP_RETIRED", 3.24e6)
        .with("BR_MIS_PRED", 1e4)
        .with("STALL_FRONTEND", 1e5)
        .with("STALL_FRONTEND_CPUBOUND", 2.5e4)
        .with("STALL_FRONTEND_MEMBOUND", 7.5e4)
        .with("STALL_BACKEND", 3e5)
        .with("STALL_BACKEND_CPUBOUND", 6e4)
        .with("STALL_BACKEND_MEMBOUND", 2.4e5)
        .with("INST_RETIRED", 2.5e6)
}

fn close(a: Option<f64>, b: f64, what: &str) {
    let a = a.unwrap_or_else(|| panic!("{what} has no value"));
    assert!((a - b).abs() < 1e-12, "{what}: {a} != {b}");
}

#[test]
fn neoverse_v2_levels_1_and_2() {
    let e = MetricEngine::for_uarch("neoverse-v2").unwrap();
    assert_eq!(e.table().vendor, "arm");
    let t = e.tree(&e.evaluate(&v2_counts()).unwrap());
    let v = |n: &str| t.find(n).unwrap_or_else(|| panic!("{n}")).value;
    let norm = |n: &str| t.find(n).unwrap().normalized;
    // 8 slots × 1e6 cycles; a mispredict moves 1 + 3 slot-cycles to Bad Speculation
    close(v("Frontend_Bound"), 0.15 - 0.01, "FE");
    close(v("Backend_Bound"), 0.35 - 0.03, "BE");
    close(v("Retiring"), 0.9 * 0.5, "RET");
    close(v("Bad_Speculation"), 0.1 * 0.5 + 0.04, "BAD");
    let sum: f64 = t.roots.iter().map(|n| n.value.unwrap()).sum();
    close(Some(sum), 1.0, "level 1 sums to all slots");
    // level 2: shares of the parent's stall cycles, fitted inside the parent's slots
    close(v("Frontend_Core_Bound"), 0.25, "FE core");
    close(v("Backend_Mem_Bound"), 0.8, "BE mem");
    assert_eq!(t.find("Backend_Mem_Bound").unwrap().unit, Some(Unit::Stalls));
    close(norm("Frontend_Mem_Bound"), 0.75 * 0.14, "FE mem share");
    close(norm("Backend_Core_Bound"), 0.2 * 0.32, "BE core share");
    let path: Vec<&str> = t.bottleneck_path().iter().map(|n| n.label.as_str()).collect();
    assert_eq!(path, ["Backend_Bound", "Backend_Mem_Bound"]);
}

#[test]
fn neoverse_v2_slots_follow_the_counts_constant() {
    // the simulated core passes its dispatch width as #slots
    let e = MetricEngine::for_uarch("neoverse-v2").unwrap();
    let c = v2_counts().with_const("slots", 4.0);
    close(e.evaluate(&c).unwrap().get("Retiring"), 0.9 * (1.0 - 4e6 / 4e6), "RET with 4 slots");
}

#[test]
fn neoverse_n1_is_cycle_accounting() {
    let e = MetricEngine::for_uarch("neoverse-n1").unwrap();
    let c = Counts::new().with("CPU_CYCLES", 2e6).with("STALL_FRONTEND", 3e5).with("STALL_BACKEND", 9e5).with("INST_RETIRED", 3e6);
    let t = e.tree(&e.evaluate(&c).unwrap());
    assert_eq!(t.roots.len(), 2);
    close(t.find("Frontend_Stalled_Cycles").unwrap().value, 0.15, "FE");
    close(t.find("Backend_Stalled_Cycles").unwrap().value, 0.45, "BE");
    assert_eq!(t.find("Backend_Stalled_Cycles").unwrap().unit, Some(Unit::Clocks));
    assert_eq!(e.table().events.iter().find(|d| d.name == "STALL_BACKEND").unwrap().code.as_deref(), Some("0x24"));
}
