//! Engine behaviour: loading, name resolution, counts normalization,
//! transitive event lists with encodings, errors.

use bottlenose_metrics::expr::EvalError;
use bottlenose_metrics::table::{MetricDef, UarchTable};
use bottlenose_metrics::{Counts, MetricEngine, MetricsError};

#[test]
fn loading_by_name_and_cpuid() {
    assert_eq!(MetricEngine::for_uarch("SKL").unwrap().uarch(), "skl");
    assert_eq!(MetricEngine::for_cpuid("GenuineIntel-6-55-4").unwrap().uarch(), "skx");
    assert_eq!(MetricEngine::for_cpuid("AuthenticAMD-25-61-2").unwrap().uarch(), "zen4");
    let err = MetricEngine::for_uarch("pentium4").err().unwrap().to_string();
    assert!(err.starts_with("unknown microarchitecture 'pentium4' (known: skl, skx"), "{err}");
    assert!(err.contains("yasin2014"));
    assert!(MetricEngine::for_cpuid("GenuineIntel-15-2").is_err());
}

#[test]
fn counts_are_case_insensitive_with_normalized_modifiers() {
    let e = MetricEngine::for_uarch("skl").unwrap();
    let c = Counts::new()
        .with("icache_16b.ifdata_stall", 300.0)
        .with("ICACHE_16B.IFDATA_STALL:e1:c1", 50.0)
        .with("cpu_clk_unhalted.thread", 1000.0);
    let ev = e.evaluate(&c).unwrap();
    // ICache_Misses = (IFDATA_STALL + 2 * IFDATA_STALL:c1:e1) / CLKS.
    assert_eq!(ev.get("ICache_Misses"), Some(0.4));
    assert_eq!(e.metric("icache_misses").unwrap().expr, "(ICACHE_16B.IFDATA_STALL + 2 * ICACHE_16B.IFDATA_STALL:c1:e1) / tma_info_thread_clks");
    assert_eq!(c.get_str("CPU_CLK_UNHALTED.THREAD"), Some(1000.0));
}

#[test]
fn events_needed_is_transitive_with_encodings() {
    let e = MetricEngine::for_uarch("skl").unwrap();
    // Backend_Bound references Frontend_Bound and the Info SLOTS/CORE_CLKS/CLKS metrics.
    let specs = e.events_needed(&["Backend_Bound"]);
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    for n in ["IDQ_UOPS_NOT_DELIVERED.CORE", "UOPS_ISSUED.ANY", "INT_MISC.RECOVERY_CYCLES", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_ANY"] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let fixed = specs.iter().find(|s| s.name == "CPU_CLK_UNHALTED.THREAD").unwrap();
    assert_eq!(fixed.def.as_ref().unwrap().fixed_counter(), Some(1));
    // Modifiers from the formula are applied to the encoding.
    let ic = e.events_needed(&["tma_icache_misses"]);
    let edge = ic.iter().find(|s| s.key == "icache_16b.ifdata_stall:c1:e1").unwrap();
    let d = edge.def.as_ref().unwrap();
    assert!(d.cmask == 1 && d.edge);
    assert_eq!(edge.encoding().unwrap(), "event=0x80,umask=0x04,cmask=1,edge");
    // Unknown metric names are ignored; duplicates are listed once.
    assert_eq!(e.events_needed(&["no_such_metric"]), vec![]);
    let twice = e.events_needed(&["tma_frontend_bound", "tma_frontend_bound"]);
    assert_eq!(twice.len(), e.events_needed(&["tma_frontend_bound"]).len());
    // Offcore events keep their MSR programming.
    let fs = e.events_needed(&["tma_false_sharing"]);
    let ocr = fs.iter().find(|s| s.name.starts_with("OFFCORE_RESPONSE")).unwrap();
    assert!(ocr.def.as_ref().unwrap().msr_value.is_some());
    // The tree's events up to level 2 (with thresholds), SMT off.
    let tree2 = e.events_for_tree(Some(2), &Counts::new());
    let any: Vec<&str> = tree2.iter().filter(|s| s.key == "cpu_clk_unhalted.thread_any" || s.key == "int_misc.recovery_cycles_any").map(|s| s.key.as_str()).collect();
    assert!(tree2.len() > 10 && any.is_empty(), "{any:?}");
}

#[test]
fn hybrid_pmu_and_amd_modifiers() {
    let adl = MetricEngine::for_uarch("adl").unwrap();
    let s = adl.events_needed(&["tma_retiring"]);
    assert!(s.iter().all(|x| x.pmu.as_deref() == Some("cpu_core") || !x.is_known()), "{s:?}");
    let z4 = MetricEngine::for_uarch("zen4").unwrap();
    let s = z4.events_needed(&["frontend_bound_latency"]);
    let c6 = s.iter().find(|x| x.key == "de_no_dispatch_per_slot.no_ops_from_frontend:c6").unwrap();
    assert_eq!(c6.encoding().unwrap(), "event=0x1a0,umask=0x01,cmask=6");
    // Zen 4 level 1 + SMT contention add up to one on consistent counts.
    let c = Counts::new()
        .with("ls_not_halted_cyc", 1000.0)
        .with("de_no_dispatch_per_slot.no_ops_from_frontend", 1200.0)
        .with("de_no_dispatch_per_slot.backend_stalls", 2100.0)
        .with("de_no_dispatch_per_slot.smt_contention", 600.0)
        .with("de_src_op_disp.all", 2100.0)
        .with("ex_ret_ops", 1800.0);
    let ev = z4.evaluate(&c).unwrap();
    let sum: f64 = ["frontend_bound", "bad_speculation", "backend_bound", "smt_contention", "retiring"].iter().map(|m| ev.get(m).unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-12, "{sum}");
    assert_eq!(ev.get("retiring"), Some(0.3));
}

#[test]
fn missing_constants_and_division_by_zero() {
    let e = MetricEngine::for_uarch("skl").unwrap();
    let c = Counts::new().with("CPU_CLK_UNHALTED.REF_TSC", 10.0).with("TSC", 20.0).with("INST_RETIRED.ANY", 0.0).with("CPU_CLK_UNHALTED.THREAD", 5.0);
    let ev = e.evaluate(&c).unwrap();
    assert_eq!(ev.get("Info_System_CPUs_Utilized"), Some(0.5));
    let u = ev.result("tma_info_system_cpu_utilization").unwrap();
    assert_eq!(u.error, Some(EvalError::MissingConstant("num_cpus".into())));
    let cpi = ev.result("tma_info_thread_cpi").unwrap();
    assert_eq!(cpi.value, None);
    assert!(cpi.reason().unwrap().contains("division by zero"), "{:?}", cpi.reason());
    let ev = e.evaluate(&c.clone().with_const("num_cpus", 4.0)).unwrap();
    assert_eq!(ev.get("tma_info_system_cpu_utilization"), Some(0.125));
    // perf's spelling of the same constant, set like an event; duration_time likewise.
    let c = c.with("#num_cpus_online", 4.0).with("duration_time", 2.0);
    assert_eq!(c.constant("duration_time"), Some(2.0));
    let ev = e.evaluate(&c).unwrap();
    assert_eq!(ev.get("tma_info_system_cpu_utilization"), Some(0.125));
    assert_eq!(ev.get("Info_System_Time"), Some(2.0));
}

#[test]
fn bad_tables_are_errors_not_panics() {
    let m = |name: &str, expr: &str| MetricDef { name: name.into(), expr: expr.into(), ..MetricDef::default() };
    let t = UarchTable { uarch: "t".into(), metrics: vec![m("a", "b + 1"), m("b", "a * 2"), m("c", "X / 2")], ..UarchTable::default() };
    let e = MetricEngine::from_table(t).unwrap();
    let ev = e.evaluate(&Counts::new().with("x", 4.0)).unwrap();
    assert!(matches!(ev.result("a").unwrap().error, Some(EvalError::Cycle(_))), "{:?}", ev.result("a"));
    assert_eq!(ev.get("c"), Some(2.0));
    assert_eq!(e.evaluate_expr("c * 10 + X", &Counts::new().with("x", 4.0)).unwrap(), Ok(24.0));
    let t = UarchTable { uarch: "t".into(), metrics: vec![m("a", "1 +")], ..UarchTable::default() };
    match MetricEngine::from_table(t) {
        Err(e @ MetricsError::Formula { .. }) => assert_eq!(e.to_string(), "t: metric a: col 4: expected an operand, found end of input"),
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn tree_display() {
    let e = MetricEngine::for_uarch("topdown5").unwrap();
    let c = Counts::new()
        .with("CPU_CLK_UNHALTED.THREAD", 1000.0)
        .with("UOPS_ISSUED.ANY", 1000.0)
        .with("UOPS_RETIRED.RETIRE_SLOTS", 1000.0)
        .with("IDQ_UOPS_NOT_DELIVERED.CORE", 400.0)
        .with("INT_MISC.RECOVERY_CYCLES", 0.0);
    let text = e.tree(&e.evaluate(&c).unwrap()).to_string();
    assert!(text.contains("Frontend_Bound") && text.contains("10.0%"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("Backend_Bound") && l.contains("65.0%") && l.ends_with("<==")), "{text}");
}
