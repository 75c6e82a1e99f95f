//! Runs the conversion on the hand-written fixture and checks the output.

use bottlenose_metrics::cpuid::{uarch_in, CpuidMap};
use bottlenose_metrics::{Counts, MetricEngine, UarchTable};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture")
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("convert-perfmon-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn load(dir: &Path, u: &str) -> UarchTable {
    UarchTable::from_json(&std::fs::read_to_string(dir.join(format!("{u}.json"))).unwrap()).unwrap()
}

fn metric<'a>(t: &'a UarchTable, name: &str) -> &'a bottlenose_metrics::MetricDef {
    t.metrics.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("{} has no {name}", t.uarch))
}

#[test]
fn converts_the_fixture() {
    let out = out_dir("all");
    let only: Vec<String> = ["skl", "ivb", "zen4", "hsw"].iter().map(|s| s.to_string()).collect();
    let summaries = convert_perfmon::run(&fixture(), &out, &only).unwrap();
    // hsw has no data in the fixture and is skipped.
    let got: Vec<(&str, usize, usize, usize, u32)> = summaries.iter().map(|s| (s.uarch.as_str(), s.events, s.metrics, s.tma_nodes, s.levels)).collect();
    assert_eq!(got, [("skl", 10, 11, 6, 2), ("ivb", 16, 16, 10, 2), ("zen4", 7, 9, 7, 2)]);
    assert!(!out.join("hsw.json").exists());
    assert!(out.join("LICENSE.intel-perfmon").exists());

    // --- Skylake from the metrics JSON.
    let skl = load(&out, "skl");
    assert_eq!(skl.schema, 1);
    assert_eq!(skl.provenance.sources[0].version.as_deref(), Some("7"));
    assert_eq!(skl.provenance.sources[1].version.as_deref(), Some("1.5"));
    assert_eq!(skl.provenance.tma_version.as_deref(), Some("9.9 (Full)"));
    // The duplicate CPU_CLK_UNHALTED.THREAD keeps its first (fixed counter) form.
    let clk = skl.event("CPU_CLK_UNHALTED.THREAD").unwrap();
    assert_eq!((clk.fixed_counter(), clk.code.as_deref()), (Some(1), Some("0x00")));
    let ocr = skl.event("OFFCORE_RESPONSE.DEMAND_RFO.ANY").unwrap();
    assert_eq!((ocr.code.as_deref(), ocr.msr_index.as_deref(), ocr.msr_value.as_deref()), (Some("0xB7,0xBB"), Some("0x1a6,0x1a7"), Some("0x10002")));
    assert_eq!(skl.event("INT_MISC.RECOVERY_CYCLES").unwrap().counters_ht_off.as_deref(), Some("0,1,2,3,4,5,6,7"));
    assert_eq!(skl.event("INST_RETIRED.ANY").unwrap().desc.as_deref(), Some("Instructions retired"));
    assert_eq!(skl.event("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE").unwrap().cmask, 4);
    let fl = metric(&skl, "tma_fetch_latency");
    assert_eq!(fl.expr, "4 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / tma_info_thread_slots");
    assert_eq!(fl.threshold.as_deref(), Some("tma_fetch_latency > 0.1"));
    assert_eq!((fl.level, fl.parent.as_deref(), fl.area.as_deref(), fl.tma), (Some(2), Some("tma_frontend_bound"), Some("FE"), true));
    assert_eq!(fl.groups, ["Frontend", "TmaL2"]);
    assert_eq!(fl.unit.as_deref(), Some("100%"));
    assert_eq!(fl.desc.as_deref(), Some("Fetch Latency (fixture)"));
    assert_eq!(
        metric(&skl, "tma_bad_speculation").expr,
        "(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * (INT_MISC.RECOVERY_CYCLES_ANY / 2 if #smt_on else INT_MISC.RECOVERY_CYCLES)) / tma_info_thread_slots"
    );
    assert!(metric(&skl, "tma_frontend_bound").tma && metric(&skl, "tma_frontend_bound").level == Some(1));
    assert!(!metric(&skl, "tma_info_thread_ipc").tma);
    // Alias-formula metric without BaseFormula.
    let f = metric(&skl, "cpu_operating_frequency");
    assert_eq!(f.expr, "CPU_CLK_UNHALTED.THREAD / CPU_CLK_UNHALTED.REF_TSC * #system_tsc_freq / 1000000000");
    assert_eq!(f.unit.as_deref(), Some("GHz"));
    // A formula with an unknown reference is skipped, and so is what depends on it.
    assert!(skl.metrics.iter().all(|m| m.name != "tma_info_broken" && m.name != "tma_info_depends_on_broken"));
    let notes = skl.provenance.notes.join("\n");
    assert!(notes.contains("skipped Info_Broken: unknown metric tma_no_such_metric"), "{notes}");
    assert!(notes.contains("dropped tma_info_depends_on_broken"), "{notes}");
    assert!(notes.contains("cross-check vs TMA_Metrics-full.csv column SKL/KBL: 6 JSON nodes, 11 CSV nodes"), "{notes}");
    assert!(!notes.contains("remote_mem"), "client columns do not inherit server-only nodes: {notes}");

    // --- Ivy Bridge from the spreadsheet column (inheritance, #NA, auxiliaries).
    let ivb = load(&out, "ivb");
    assert_eq!(ivb.provenance.tma_version.as_deref(), Some("9.9-fixture (TMA_Metrics-full.csv)"));
    assert!(ivb.metrics.iter().all(|m| m.name != "tma_icache_misses"), "#NA on IVB");
    assert!(ivb.metrics.iter().all(|m| m.name != "tma_remote_mem"), "server-only");
    assert_eq!(metric(&ivb, "tma_fetch_latency").expr, "4 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / tma_info_thread_slots");
    assert_eq!(metric(&ivb, "tma_fetch_latency").threshold.as_deref(), Some("tma_fetch_latency > 0.1"));
    assert_eq!(metric(&ivb, "tma_fetch_bandwidth").threshold.as_deref(), Some("tma_fetch_bandwidth > 0.2"));
    assert_eq!(metric(&ivb, "tma_bad_speculation").expr, metric(&skl, "tma_bad_speculation").expr);
    assert_eq!(metric(&ivb, "tma_retiring").threshold.as_deref(), Some("tma_retiring > 0.7 | tma_heavy_operations > 0.1"));
    assert_eq!(
        metric(&ivb, "tma_memory_bound").expr,
        "(CYCLE_ACTIVITY.STALLS_LDM_PENDING + RESOURCE_STALLS.SB) / (CYCLE_ACTIVITY.CYCLES_NO_EXECUTE + RESOURCE_STALLS.SB) * tma_backend_bound"
    );
    let mb = metric(&ivb, "tma_memory_bound");
    assert_eq!((mb.level, mb.parent.as_deref(), mb.area.as_deref()), (Some(2), Some("tma_backend_bound"), Some("BE/Mem")));
    assert_eq!(metric(&ivb, "tma_info_memory_ipload").expr, "INST_RETIRED.ANY / MEM_UOPS_RETIRED.ALL_LOADS", "_PS dropped");
    assert_eq!(metric(&ivb, "tma_info_memory_ipload").threshold.as_deref(), Some("tma_info_memory_ipload < 3"));
    assert_eq!(
        metric(&ivb, "tma_info_frontend_dsb_coverage").threshold.as_deref(),
        Some("tma_info_frontend_dsb_coverage < 0.7 & tma_info_thread_ipc / 4 > 0.35")
    );
    assert_eq!(metric(&ivb, "tma_info_core_core_clks").expr, "CPU_CLK_UNHALTED.THREAD_ANY / 2 if #smt_on else tma_info_thread_clks");
    assert_eq!(metric(&ivb, "tma_frontend_bound").desc.as_deref(), Some("Frontend undersupplies the \"backend\""));

    // --- Zen 4 from pmu-events JSON.
    let z4 = load(&out, "zen4");
    assert_eq!(z4.constants.get("pipeline_width"), Some(&6.0));
    assert_eq!(z4.event("l3_lookup_state.all_coherent_accesses_to_l3").unwrap().pmu.as_deref(), Some("l3pmc"));
    let lat = metric(&z4, "frontend_bound_latency");
    assert_eq!(lat.expr, "d_ratio(6 * de_no_dispatch_per_slot.no_ops_from_frontend:c6, total_dispatch_slots)");
    assert_eq!((lat.level, lat.parent.as_deref(), lat.threshold.as_deref()), (Some(2), Some("frontend_bound"), Some("frontend_bound_latency > 0.1")));
    assert_eq!(metric(&z4, "smt_contention").area.as_deref(), Some("SMT"));
    assert_eq!(metric(&z4, "l3_accesses_per_second").threshold.as_deref(), Some("l3_accesses_per_second > 1000000000"));
    assert_eq!(metric(&z4, "l3_accesses_per_second").expr, "l3_lookup_state.all_coherent_accesses_to_l3 / duration_time");

    // --- CPU id rules.
    let map: CpuidMap = serde_json::from_str(&std::fs::read_to_string(out.join("cpuid.json")).unwrap()).unwrap();
    assert_eq!(uarch_in(&map.rules, "GenuineIntel-6-5E-3"), Some("skl"));
    assert_eq!(uarch_in(&map.rules, "GenuineIntel-6-3A"), Some("ivb"));
    assert_eq!(uarch_in(&map.rules, "GenuineIntel-6-2A"), None, "SNB is not converted");
    assert_eq!(uarch_in(&map.rules, "AuthenticAMD-25-61"), Some("zen4"));
    assert_eq!(uarch_in(&map.rules, "AuthenticAMD-25-21"), None, "zen3 not converted here");

    // --- The converted tables evaluate, and agree on level 1.
    let c = Counts::new()
        .with("CPU_CLK_UNHALTED.THREAD", 1000.0)
        .with("INST_RETIRED.ANY", 2000.0)
        .with("UOPS_ISSUED.ANY", 2200.0)
        .with("UOPS_RETIRED.RETIRE_SLOTS", 2000.0)
        .with("IDQ_UOPS_NOT_DELIVERED.CORE", 1000.0)
        .with("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 150.0)
        .with("INT_MISC.RECOVERY_CYCLES", 50.0);
    let (s, i) = (MetricEngine::from_table(skl).unwrap(), MetricEngine::from_table(ivb).unwrap());
    let (es, ei) = (s.evaluate(&c).unwrap(), i.evaluate(&c).unwrap());
    for (m, v) in [("tma_frontend_bound", 0.25), ("tma_bad_speculation", 0.1), ("tma_retiring", 0.5), ("tma_backend_bound", 0.15), ("tma_fetch_latency", 0.15)] {
        assert!((es.get(m).unwrap() - v).abs() < 1e-12, "skl {m}");
        assert!((ei.get(m).unwrap() - v).abs() < 1e-12, "ivb {m}");
    }
    let tree = s.tree(&es);
    assert_eq!(tree.bottleneck_path().iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["tma_frontend_bound", "tma_fetch_latency"]);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn unknown_uarch_and_missing_data_are_errors() {
    let out = out_dir("err");
    assert!(convert_perfmon::run(&fixture(), &out, &["pentium4".to_string()]).is_err());
    assert!(convert_perfmon::run(&fixture().join("nope"), &out, &[]).is_err());
    let _ = std::fs::remove_dir_all(&out);
}
