//! Yasin's Table 2 on hand-made counts, hand-computed, and the
//! hierarchical-safety flagging of §3.1.

use bottlenose_metrics::yasin::{self, YasinParams};
use bottlenose_metrics::{Counts, MetricEngine};

fn close(a: Option<f64>, b: f64, what: &str) {
    let a = a.unwrap_or_else(|| panic!("{what} has no value"));
    assert!((a - b).abs() < 1e-12, "{what}: {a} != {b}");
}

/// Clocks = 1000 on a 4-wide machine: TotalSlots = 4000.
fn counts() -> Counts {
    Counts::new()
        .with("Clocks", 1000.0)
        .with("FetchBubbles", 800.0)
        .with("FetchBubbles:c4", 120.0)
        .with("SlotsIssued", 1800.0)
        .with("SlotsRetired", 1600.0)
        .with("RecoveryBubbles", 200.0)
        .with("BrMispredRetired", 30.0)
        .with("MachineClears", 10.0)
        .with("MsSlotsRetired", 100.0)
        .with("FpScalarOpsRetired", 400.0)
        .with("FpVectorOpsRetired", 200.0)
        .with("OpsExecuted:c1", 700.0)
        .with("OpsExecuted:c2", 500.0)
        .with("OpsExecuted:c3", 300.0)
        .with("MemStalls.AnyLoad", 400.0)
        .with("MemStalls.L1miss", 300.0)
        .with("MemStalls.L2miss", 200.0)
        .with("MemStalls.L3miss", 150.0)
        .with("MemStalls.Stores", 50.0)
        .with("DividerActive", 50.0)
        .with("ExtMemOutstanding:c1", 150.0)
        .with("ExtMemOutstanding:c28", 40.0)
}

#[test]
fn table2_formulas() {
    let e = MetricEngine::for_uarch("yasin2014").unwrap();
    let ev = e.evaluate(&counts()).unwrap();
    // TotalSlots = 4 * Clocks when the event is absent.
    close(ev.get("total_slots"), 4000.0, "TotalSlots");
    // Level 1.
    close(ev.get("Frontend_Bound"), 800.0 / 4000.0, "FE");
    close(ev.get("Bad_Speculation"), (1800.0 - 1600.0 + 200.0) / 4000.0, "BadSpec");
    close(ev.get("Retiring"), 0.4, "Retiring");
    close(ev.get("Backend_Bound"), 0.3, "BE");
    let l1: f64 = ["Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound"].iter().map(|n| ev.get(n).unwrap()).sum();
    close(Some(l1), 1.0, "level 1 sums to 1");
    // Frontend: FetchBubbles[>= MIW] / Clocks, Bandwidth = FE - Latency.
    close(ev.get("Fetch_Latency"), 0.12, "Fetch Latency");
    close(ev.get("Fetch_Bandwidth"), 0.2 - 0.12, "Fetch Bandwidth");
    // Bad speculation split by BrMispredFraction = 30 / 40.
    close(ev.get("Branch_Mispredicts"), 0.75 * 0.1, "Branch Mispredicts");
    close(ev.get("Machine_Clears"), 0.25 * 0.1, "Machine Clears");
    // Retiring: MicroSequencer and BASE; FP arithmetic under BASE.
    close(ev.get("MicroSequencer"), 100.0 / 4000.0, "MS");
    close(ev.get("Base"), 0.4 - 0.025, "BASE");
    close(ev.get("FP_Scalar"), 0.4 * 400.0 / 1600.0, "FP scalar");
    close(ev.get("FP_Vector"), 0.4 * 200.0 / 1600.0, "FP vector");
    close(ev.get("FP_Arith"), 0.15, "FP arith");
    // Backend: ExecutionStalls = cycles with <= 2 ops executed = (1000 - 300) / 1000.
    close(ev.get("execution_stalls"), 0.7, "#ExecutionStalls");
    close(ev.get("Memory_Bound"), (400.0 + 50.0) / 1000.0, "Memory Bound");
    close(ev.get("Core_Bound"), 0.7 - 0.45, "Core Bound");
    // Memory Bound split: L1/L2/L3/Ext/Stores add up to Memory Bound.
    close(ev.get("L1_Bound"), 0.1, "L1");
    close(ev.get("L2_Bound"), 0.1, "L2");
    close(ev.get("L3_Bound"), 0.05, "L3");
    close(ev.get("Ext_Memory_Bound"), 0.15, "Ext");
    close(ev.get("Stores_Bound"), 0.05, "Stores");
    let split: f64 = ["L1_Bound", "L2_Bound", "L3_Bound", "Ext_Memory_Bound", "Stores_Bound"].iter().map(|n| ev.get(n).unwrap()).sum();
    close(Some(split), ev.get("Memory_Bound").unwrap(), "memory split");
    // Ext memory: bandwidth (>= 28 outstanding) and latency, per Clocks.
    close(ev.get("MEM_Bandwidth"), 0.04, "MEM BW");
    close(ev.get("MEM_Latency"), (150.0 - 40.0) / 1000.0, "MEM latency");
    // Core: divider and ports utilization histogram.
    close(ev.get("Divider"), 0.05, "Divider");
    close(ev.get("Ports_Utilization"), 0.25 - 0.05, "Ports Utilization");
    close(ev.get("Ports_Utilized_0"), 0.3, "0 ports");
    close(ev.get("Ports_Utilized_1_to_2"), 0.4, "1-2 ports");
    close(ev.get("Ports_Utilized_More"), 0.3, "3+ ports");
}

#[test]
fn total_slots_event_wins_when_present() {
    let e = MetricEngine::for_uarch("yasin2014").unwrap();
    let ev = e.evaluate(&counts().with("TotalSlots", 3200.0)).unwrap();
    close(ev.get("Retiring"), 0.5, "Retiring over measured slots");
}

#[test]
fn flags_and_bottleneck_path() {
    let e = MetricEngine::for_uarch("yasin2014").unwrap();
    let ev = e.evaluate(&counts()).unwrap();
    let tree = e.tree(&ev);
    let flagged = |n: &str| tree.find(n).unwrap_or_else(|| panic!("{n}")).flagged;
    assert!(flagged("Frontend_Bound") && flagged("Fetch_Latency") && !flagged("Fetch_Bandwidth"));
    assert!(!flagged("Bad_Speculation") && !flagged("Retiring"));
    assert!(flagged("Backend_Bound") && flagged("Memory_Bound") && flagged("Core_Bound"));
    assert!(!flagged("L1_Bound"), "0.1 is not above 0.1");
    assert!(flagged("L2_Bound") && flagged("Ext_Memory_Bound") && flagged("MEM_Latency") && !flagged("MEM_Bandwidth"));
    assert_eq!(tree.find("Memory_Bound").unwrap().threshold_value, Some(0.2));
    let path: Vec<&str> = tree.bottleneck_path().iter().map(|n| n.label.as_str()).collect();
    assert_eq!(path, ["Backend_Bound", "Memory_Bound", "Ext_Memory_Bound", "MEM_Latency"]);
    assert_eq!(tree.depth(), 4);
}

/// §3.1: a divide loop over a memory-resident buffer shows high Ext. Memory
/// Bound *and* high Divider; Divider must be ignored because Core Bound is not
/// flagged.
#[test]
fn hierarchical_safety() {
    let e = MetricEngine::for_uarch("yasin2014").unwrap();
    let c = Counts::new()
        .with("Clocks", 1000.0)
        .with("FetchBubbles", 100.0)
        .with("FetchBubbles:c4", 10.0)
        .with("SlotsIssued", 400.0)
        .with("SlotsRetired", 400.0)
        .with("RecoveryBubbles", 0.0)
        .with("BrMispredRetired", 0.0)
        .with("MachineClears", 0.0)
        .with("MsSlotsRetired", 0.0)
        .with("OpsExecuted:c1", 400.0)
        .with("OpsExecuted:c3", 380.0)
        .with("MemStalls.AnyLoad", 600.0)
        .with("MemStalls.L1miss", 590.0)
        .with("MemStalls.L2miss", 580.0)
        .with("MemStalls.L3miss", 570.0)
        .with("MemStalls.Stores", 0.0)
        .with("DividerActive", 400.0)
        .with("ExtMemOutstanding:c1", 700.0)
        .with("ExtMemOutstanding:c28", 100.0);
    let ev = e.evaluate(&c).unwrap();
    let tree = e.tree(&ev);
    let core = tree.find("Core_Bound").unwrap();
    close(core.value, 0.62 - 0.6, "Core Bound");
    assert_eq!(core.above_threshold, Some(false));
    assert!(!core.flagged);
    let div = tree.find("Divider").unwrap();
    close(div.value, 0.4, "Divider");
    assert_eq!(div.above_threshold, Some(true), "Divider is above its own threshold ...");
    assert!(!div.flagged, "... but not flagged under an unflagged Core Bound");
    assert!(tree.find("Ext_Memory_Bound").unwrap().flagged);
    // Pruning hides the children of unflagged nodes unless asked for all.
    let pruned = tree.pruned(false);
    assert!(pruned.find("Core_Bound").unwrap().children.is_empty());
    assert!(pruned.find("Divider").is_none());
    assert!(pruned.find("Ext_Memory_Bound").is_some());
    assert_eq!(tree.pruned(true), tree);
    let path: Vec<&str> = tree.bottleneck_path().iter().map(|n| n.label.as_str()).collect();
    assert_eq!(path, ["Backend_Bound", "Memory_Bound", "Ext_Memory_Bound", "MEM_Latency"]);
}

#[test]
fn parameters_change_the_event_set() {
    let t = yasin::table(&YasinParams { issue_width: 6, few_ops: 3, mem_bw_occupancy: 16 });
    let e = MetricEngine::from_table(t).unwrap();
    let keys: Vec<String> = e.events_needed(&["tma_fetch_latency", "tma_mem_bandwidth", "tma_core_bound"]).into_iter().map(|s| s.key).collect();
    assert!(keys.contains(&"fetchbubbles:c6".to_string()), "{keys:?}");
    assert!(keys.contains(&"extmemoutstanding:c16".to_string()), "{keys:?}");
    assert!(keys.contains(&"opsexecuted:c4".to_string()), "{keys:?}");
    let ev = e.evaluate(&Counts::new().with("Clocks", 100.0).with("SlotsRetired", 300.0)).unwrap();
    close(ev.get("Retiring"), 0.5, "6-wide retiring");
}

#[test]
fn missing_events_give_reasons_not_panics() {
    let e = MetricEngine::for_uarch("yasin2014").unwrap();
    let ev = e.evaluate(&Counts::new().with("Clocks", 1000.0).with("SlotsRetired", 2000.0)).unwrap();
    close(ev.get("Retiring"), 0.5, "Retiring");
    let fe = ev.result("Frontend_Bound").unwrap();
    assert_eq!(fe.value, None);
    assert_eq!(fe.reason().unwrap(), "missing event FetchBubbles");
    let be = ev.result("Backend_Bound").unwrap();
    assert!(be.reason().unwrap().starts_with("depends on tma_frontend_bound: missing event FetchBubbles"), "{:?}", be.reason());
    let tree = e.tree(&ev);
    let n = tree.find("Backend_Bound").unwrap();
    assert!(!n.flagged && n.value.is_none() && n.reason.is_some());
}
