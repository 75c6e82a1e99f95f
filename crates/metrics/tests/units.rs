//! Units and normalized values of Top-Down nodes: every node of every shipped
//! tree has the unit of Intel's tables, raw values stay the formulas' values,
//! and normalized values follow the rule of `tree.rs` (expected values worked
//! out by hand from the raw ones).

use bottlenose_metrics::table::{MetricDef, UarchTable, SCHEMA};
use bottlenose_metrics::{yasin, Counts, MetricEngine, NameRef, Node, Unit};

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-12, "{what}: {a} != {b}");
}

#[test]
fn every_node_of_every_table_has_a_unit() {
    for uarch in MetricEngine::available() {
        let e = MetricEngine::for_uarch(uarch).unwrap();
        for m in e.metrics().iter().filter(|m| m.tma) {
            assert!(m.domain.is_some(), "{uarch}: {} has no unit", m.name);
        }
    }
    // spot checks against Intel's skylake_metrics.json CountDomain
    let skl = MetricEngine::for_uarch("skl").unwrap();
    for (node, unit) in [
        ("Backend_Bound", Unit::Slots),
        ("Memory_Bound", Unit::Slots),
        ("L1_Bound", Unit::Stalls),
        ("Ports_Utilization", Unit::Clocks),
        ("FP_Scalar", Unit::Uops),
        ("Contested_Accesses", Unit::ClocksEstimated),
        ("Port_0", Unit::CoreClocks),
    ] {
        assert_eq!(skl.metric(node).unwrap().domain, Some(unit), "{node}");
    }
}

/// The simulated tree's gzip case of issue 16: Backend_Bound 45 % of slots,
/// Memory_Bound 49 % and Core_Bound 33 % of cycles.
#[test]
fn cycle_children_of_a_slot_parent_fit_inside_it() {
    let e = MetricEngine::for_uarch("yasin2014").unwrap();
    let clocks = 1000.0;
    // level 1: Retiring 0.30, Frontend 0.20, Bad_Speculation 0.05 → Backend 0.45
    let counts = Counts::new()
        .with("Clocks", clocks)
        .with("SlotsRetired", 1200.0)
        .with("SlotsIssued", 1400.0)
        .with("RecoveryBubbles", 0.0)
        .with("FetchBubbles", 800.0)
        .with("FetchBubbles:c4", 150.0)
        .with("BrMispredRetired", 10.0)
        .with("MachineClears", 0.0)
        .with("MsSlotsRetired", 0.0)
        // ExecutionStalls = (1000 - 180) / 1000 = 0.82; Memory_Bound = (440 + 50) / 1000 = 0.49
        .with("OpsExecuted:c3", 180.0)
        .with("OpsExecuted:c1", 400.0)
        .with("MemStalls.AnyLoad", 440.0)
        .with("MemStalls.L1miss", 240.0)
        .with("MemStalls.L2miss", 100.0)
        .with("MemStalls.L3miss", 0.0)
        .with("MemStalls.Stores", 50.0)
        .with("ExtMemOutstanding:c1", 0.0)
        .with("ExtMemOutstanding:c28", 0.0)
        .with("DividerActive", 0.0)
        .with("FpScalarOpsRetired", 0.0)
        .with("FpVectorOpsRetired", 0.0);
    let t = e.tree(&e.evaluate(&counts).unwrap());
    let n = |name: &str| t.find(name).unwrap_or_else(|| panic!("{name}"));
    close(n("Backend_Bound").value.unwrap(), 0.45, "Backend raw");
    close(n("Memory_Bound").value.unwrap(), 0.49, "Memory raw stays the formula's");
    close(n("Core_Bound").value.unwrap(), 0.33, "Core raw stays the formula's");
    assert_eq!(n("Backend_Bound").unit, Some(Unit::Slots));
    assert_eq!(n("Memory_Bound").unit, Some(Unit::Stalls));
    // level 1 is in slots and sums to 1: normalized = raw
    for l1 in &t.roots {
        assert_eq!(l1.normalized, l1.value, "{}", l1.label);
    }
    // 0.49 + 0.33 = 0.82 > 0.45: both scaled by 0.45 / 0.82
    close(n("Memory_Bound").normalized.unwrap(), 0.45 * 0.49 / 0.82, "Memory normalized");
    close(n("Core_Bound").normalized.unwrap(), 0.45 * 0.33 / 0.82, "Core normalized");
    // L1..Stores are cycles like Memory_Bound: the parent's conversion 0.45/0.82, then no fit
    // needed (L1 0.20 + L2 0.14 + L3 0.10 + Ext 0 + Stores 0.05 = 0.49)
    let f = 0.45 / 0.82;
    close(n("L1_Bound").normalized.unwrap(), 0.20 * f, "L1 normalized");
    close(n("L2_Bound").normalized.unwrap(), 0.14 * f, "L2 normalized");
    close(n("Stores_Bound").normalized.unwrap(), 0.05 * f, "Stores normalized");
    // Frontend: Fetch_Latency (cycles with all 4 slots empty, 0.15) + Fetch_Bandwidth (0.05) = 0.20
    close(n("Fetch_Latency").normalized.unwrap(), 0.15, "Fetch_Latency");
    close(n("Fetch_Bandwidth").normalized.unwrap(), 0.20 - 0.15, "Fetch_Bandwidth");
    children_never_exceed_parents(&t.roots, 1.0);
}

fn children_never_exceed_parents(nodes: &[Node], frame: f64) {
    let sum: f64 = nodes.iter().filter_map(|n| n.normalized).sum();
    assert!(sum <= frame + 1e-12, "{sum} > {frame}: {:?}", nodes.iter().map(|n| (&n.label, n.normalized)).collect::<Vec<_>>());
    for n in nodes {
        if let Some(v) = n.normalized {
            assert!(v >= 0.0, "{}", n.label);
            children_never_exceed_parents(&n.children, v);
        }
    }
}

fn node(name: &str, parent: &str, level: u32, value: f64, unit: Unit) -> MetricDef {
    MetricDef {
        name: name.into(),
        expr: format!("{value}"),
        tma: true,
        level: Some(level),
        parent: (!parent.is_empty()).then(|| parent.into()),
        domain: Some(unit),
        ..MetricDef::default()
    }
}

/// A uops node converts through Retiring; a same-basis child takes its
/// parent's conversion; a group that fits is left as it is.
#[test]
fn uops_nodes_convert_through_retiring() {
    let table = UarchTable {
        schema: SCHEMA,
        uarch: "t".into(),
        metrics: vec![
            node("retiring", "", 1, 0.4, Unit::Slots),
            node("backend", "", 1, 0.6, Unit::Slots),
            node("light", "retiring", 2, 0.3, Unit::Slots),
            node("heavy", "retiring", 2, 0.1, Unit::Slots),
            node("fp_arith", "light", 3, 0.5, Unit::Uops),
            node("memory_ops", "light", 3, 0.05, Unit::Slots),
            node("fp_scalar", "fp_arith", 4, 0.3, Unit::Uops),
            node("fp_vector", "fp_arith", 4, 0.2, Unit::Uops),
            node("ports", "backend", 2, 0.8, Unit::Clocks),
            node("ports_0", "ports", 3, 0.6, Unit::Clocks),
            node("ports_1", "ports", 3, 0.5, Unit::Clocks),
        ],
        ..UarchTable::default()
    };
    let e = MetricEngine::from_table(table).unwrap();
    let t = e.tree(&e.evaluate(&Counts::new()).unwrap());
    let n = |name: &str| t.find(name).unwrap().normalized.unwrap();
    close(n("light"), 0.3, "slots under slots, fits");
    // 50 % of retired uops = 0.5 × 0.4 of all slots; memory_ops 0.05: 0.25 ≤ 0.3, no fit
    close(n("fp_arith"), 0.2, "uops through Retiring");
    close(n("memory_ops"), 0.05, "slots beside uops");
    // uops under uops: fp_arith's conversion 0.2 / 0.5
    close(n("fp_scalar"), 0.3 * 0.4, "fp_scalar");
    close(n("fp_vector"), 0.2 * 0.4, "fp_vector");
    // 0.8 of cycles under 0.6 of slots: scaled to 0.6
    close(n("ports"), 0.6, "cycles under slots, fitted");
    // same basis: 0.6 × 0.6/0.8 = 0.45 and 0.5 × 0.6/0.8 = 0.375, sum 0.825 > 0.6 → × 0.6/0.825
    close(n("ports_0"), 0.45 * 0.6 / 0.825, "ports_0");
    close(n("ports_1"), 0.375 * 0.6 / 0.825, "ports_1");
    children_never_exceed_parents(&t.roots, 1.0);
    // the bottleneck path ranks siblings by normalized share
    let path: Vec<&str> = t.bottleneck_path().iter().map(|n| n.name.as_str()).collect();
    assert!(path.is_empty(), "no thresholds, nothing flagged: {path:?}");
}

#[test]
fn the_simulated_tree_names_its_units() {
    let t = yasin::table(&yasin::YasinParams::default());
    let unit = |n: &str| t.metric(n).unwrap().domain;
    assert_eq!(unit("Frontend_Bound"), Some(Unit::Slots));
    assert_eq!(unit("Fetch_Latency"), Some(Unit::Clocks));
    assert_eq!(unit("L1_Bound"), Some(Unit::Stalls));
    assert_eq!(unit("Ports_Utilized_0"), Some(Unit::Clocks));
    assert_eq!(t.metric("total_slots").unwrap().domain, None, "auxiliary rows have no unit");
}

/// `OCR.X:ocr_msr_val=V` programs V, not the table's MSR value of OCR.X.
#[test]
fn an_ocr_msr_val_modifier_sets_the_msr_value() {
    let spr = MetricEngine::for_uarch("spr").unwrap();
    let plain = spr.spec(&NameRef::plain("OCR.DEMAND_RFO.L3_MISS"));
    assert_eq!(plain.def.unwrap().msr_value.as_deref(), Some("0x3F3FC00002"));
    let r = NameRef::new(None, "OCR.DEMAND_RFO.L3_MISS", &["ocr_msr_val=0x103b800002".into()]);
    let spec = spr.spec(&r);
    assert_eq!(spec.key, "ocr.demand_rfo.l3_miss:ocr_msr_val=0x103b800002");
    assert_eq!(spec.def.unwrap().msr_value.as_deref(), Some("0x103b800002"));
}
