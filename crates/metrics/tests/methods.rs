//! The 5-event level-1 recipe (hand-computed, and against the converted
//! Intel TMA level 1) and Levinthal's cycle accounting.

use bottlenose_metrics::{Counts, MetricEngine};

fn close(a: Option<f64>, b: f64, what: &str) {
    let a = a.unwrap_or_else(|| panic!("{what} has no value"));
    assert!((a - b).abs() < 1e-12, "{what}: {a} != {b}");
}

/// Haswell-class counts: 1000 cycles = 4000 slots.
fn five() -> Counts {
    Counts::new()
        .with("CPU_CLK_UNHALTED.THREAD", 1000.0)
        .with("INST_RETIRED.ANY", 1500.0)
        .with("UOPS_ISSUED.ANY", 2000.0)
        .with("UOPS_RETIRED.RETIRE_SLOTS", 1800.0)
        .with("IDQ_UOPS_NOT_DELIVERED.CORE", 600.0)
        .with("INT_MISC.RECOVERY_CYCLES", 25.0)
}

const L1: [&str; 4] = ["tma_frontend_bound", "tma_bad_speculation", "tma_retiring", "tma_backend_bound"];

#[test]
fn five_event_recipe_by_hand() {
    let e = MetricEngine::for_uarch("topdown5").unwrap();
    let ev = e.evaluate(&five()).unwrap();
    close(ev.get("total_slots"), 4000.0, "TotalSlots = 4 * CPU_CLK_UNHALTED.THREAD");
    close(ev.get("Frontend_Bound"), 600.0 / 4000.0, "Front End");
    close(ev.get("Bad_Speculation"), (2000.0 - 1800.0 + 4.0 * 25.0) / 4000.0, "Speculation");
    close(ev.get("Retiring"), 1800.0 / 4000.0, "Retiring");
    // likwid's Back End: 1 - (PMC2 + PMC0 + 4 * PMC3) / (4 * FIXC1).
    close(ev.get("Backend_Bound"), 1.0 - (600.0 + 2000.0 + 4.0 * 25.0) / 4000.0, "Back End");
    close(ev.get("ipc"), 1.5, "IPC");
    let needed: Vec<String> = e.events_needed(&L1).into_iter().map(|s| s.name).collect();
    assert_eq!(needed.len(), 5, "{needed:?}");
}

/// With SMT off, the recipe is exactly the TMA level 1 of the converted
/// Skylake/Haswell/Ivy Bridge/Skylake-X tables on the same counts.
#[test]
fn five_event_recipe_agrees_with_tma_level1() {
    let td5 = MetricEngine::for_uarch("topdown5").unwrap().evaluate(&five()).unwrap();
    for u in ["skl", "hsw", "ivb", "skx"] {
        let e = MetricEngine::for_uarch(u).unwrap();
        let ev = e.evaluate(&five()).unwrap();
        for m in L1 {
            close(ev.get(m), td5.get(m).unwrap(), &format!("{u} {m}"));
        }
        // The converted table needs no more than the 5 events for level 1 (SMT off).
        let specs = e.events_needed_with(&L1, &Counts::new(), false);
        let mut names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        names.sort();
        assert_eq!(
            names,
            ["CPU_CLK_UNHALTED.THREAD", "IDQ_UOPS_NOT_DELIVERED.CORE", "INT_MISC.RECOVERY_CYCLES", "UOPS_ISSUED.ANY", "UOPS_RETIRED.RETIRE_SLOTS"],
            "{u}"
        );
        assert!(specs.iter().all(|s| s.is_known()), "{u}: encodings known");
    }
    // The SKL encodings of the 5 events.
    let e = MetricEngine::for_uarch("skl").unwrap();
    let specs = e.events_needed_with(&L1, &Counts::new(), false);
    let enc = |n: &str| specs.iter().find(|s| s.name == n).unwrap().encoding().unwrap();
    assert_eq!(enc("UOPS_ISSUED.ANY"), "event=0x0e,umask=0x01");
    assert_eq!(enc("IDQ_UOPS_NOT_DELIVERED.CORE"), "event=0x9c,umask=0x01");
    assert_eq!(enc("INT_MISC.RECOVERY_CYCLES"), "event=0x0d,umask=0x01");
}

/// SMT on: TMA counts slots per physical core (THREAD_ANY / 2, RECOVERY_CYCLES_ANY / 2).
/// The plain 5-event recipe keeps per-thread clocks and so differs by the
/// ratio THREAD / (THREAD_ANY / 2); the `-smt` variant matches TMA.
#[test]
fn smt_handling_difference() {
    let c = five().with_smt(true).with("CPU_CLK_UNHALTED.THREAD_ANY", 1800.0).with("INT_MISC.RECOVERY_CYCLES_ANY", 40.0);
    let skl = MetricEngine::for_uarch("skl").unwrap().evaluate(&c).unwrap();
    let plain = MetricEngine::for_uarch("topdown5").unwrap().evaluate(&c).unwrap();
    let smt = MetricEngine::for_uarch("topdown5-smt").unwrap().evaluate(&c).unwrap();
    close(skl.get("tma_frontend_bound"), 600.0 / 3600.0, "TMA FE with SMT");
    close(skl.get("tma_bad_speculation"), (2000.0 - 1800.0 + 4.0 * 20.0) / 3600.0, "TMA BS with SMT");
    for m in L1 {
        close(smt.get(m), skl.get(m).unwrap(), m);
    }
    close(plain.get("tma_frontend_bound"), 0.15, "plain FE");
    close(Some(plain.get("tma_retiring").unwrap() / skl.get("tma_retiring").unwrap()), 900.0 / 1000.0, "constant ratio");
    // SMT on needs the _ANY events; SMT off does not.
    let e = MetricEngine::for_uarch("skl").unwrap();
    let keys = |c: &Counts| e.events_needed_with(&L1, c, false).into_iter().map(|s| s.key).collect::<Vec<_>>();
    assert!(keys(&Counts::new().with_smt(true)).contains(&"cpu_clk_unhalted.thread_any".to_string()));
    assert!(!keys(&Counts::new()).contains(&"cpu_clk_unhalted.thread_any".to_string()));
    // The conservative list has both branches.
    let all: Vec<String> = e.events_needed(&L1).into_iter().map(|s| s.key).collect();
    assert!(all.contains(&"cpu_clk_unhalted.thread_any".to_string()) && all.contains(&"cpu_clk_unhalted.thread".to_string()));
}

fn core2() -> Counts {
    Counts::new()
        .with("CPU_CLK_UNHALTED.CORE", 10000.0)
        .with("INST_RETIRED.ANY", 8000.0)
        .with("RS_UOPS_DISPATCHED", 12000.0)
        .with("RS_UOPS_DISPATCHED:c1", 6000.0)
        .with("RS_UOPS_DISPATCHED:c1:i1", 4000.0)
        .with("UOPS_RETIRED.ANY", 8000.0)
        .with("UOPS_RETIRED.FUSED", 1000.0)
        .with("MEM_LOAD_RETIRED.L1D_LINE_MISS", 100.0)
        .with("MEM_LOAD_RETIRED.L2_LINE_MISS", 10.0)
        .with("MEM_LOAD_RETIRED.DTLB_MISS", 20.0)
        .with("LOAD_BLOCK.STA", 30.0)
        .with("LOAD_BLOCK.OVERLAP_STORE", 20.0)
        .with("LOAD_BLOCK.UNTIL_RETIRE", 5.0)
        .with("ILD_STALL", 10.0)
        .with("RESOURCE_STALLS.BR_MISS_CLEAR", 300.0)
        .with("IDLE_DURING_DIV", 200.0)
        .with("BUS_DRDY_CLOCKS.ALL_AGENTS", 250.0)
        .with("CPU_CLK_UNHALTED.BUS", 1000.0)
}

#[test]
fn levinthal_cycle_accounting() {
    let e = MetricEngine::for_uarch("levinthal-core2").unwrap();
    let ev = e.evaluate(&core2()).unwrap();
    // dispatch rate = 12000 / 6000 = 2 uops per dispatching cycle.
    close(ev.get("uop_dispatch_rate"), 2.0, "rate");
    close(ev.get("retired_cycles"), 9000.0 / 2.0, "Retired");
    close(ev.get("non_retired_cycles"), 3000.0 / 2.0, "Non_Retired");
    close(ev.get("stall_cycles"), 4000.0, "Stalls");
    // Master equation: cycles = Retired + Non_Retired + Stalls.
    let sum = ev.get("retired_cycles").unwrap() + ev.get("non_retired_cycles").unwrap() + ev.get("stall_cycles").unwrap();
    close(Some(sum), ev.get("cycles").unwrap(), "master equation");
    close(ev.get("lev_stalls"), 0.4, "stall fraction");
    // Penalty sums: 12*90 + 165*10 + 10*20 + 5*30 + 6*20 + 20*5 + 6*10 + 300 + 200.
    close(ev.get("lev_l2_hit"), 1080.0, "L2 hit");
    close(ev.get("lev_l2_miss"), 1650.0, "L2 miss");
    close(ev.get("counted_stall_cycles"), 3860.0, "counted");
    close(ev.get("unaccounted_stall_cycles"), 140.0, "unaccounted");
    close(ev.get("lev_stall_unaccounted"), 0.014, "unaccounted fraction");
    close(ev.get("bus_utilization"), 0.25, "FSB utilization");
    close(ev.get("cpi"), 1.25, "CPI");
    let stalls: f64 = e.tree(&ev).find("lev_stalls").unwrap().children.iter().map(|c| c.value.unwrap()).sum();
    close(Some(stalls), 0.4, "stall components add up to the stalls");
}

#[test]
fn levinthal_variants() {
    let e = MetricEngine::for_uarch("levinthal-core2").unwrap();
    // Page-walk refinement: 4 * DTLB_MISS + PAGE_WALKS.CYCLES instead of 10 * DTLB_MISS.
    let ev = e.evaluate(&core2().with("PAGE_WALKS.CYCLES", 150.0)).unwrap();
    close(ev.get("lev_dtlb_miss"), 230.0, "DTLB refined");
    close(ev.get("unaccounted_stall_cycles"), 110.0, "unaccounted");
    // Server penalty for L2 misses: the sequential model over-counts, Unaccounted < 0.
    let ev = e.evaluate(&core2().with_const("pen_l2_miss", 300.0)).unwrap();
    close(ev.get("unaccounted_stall_cycles"), 4000.0 - (3860.0 - 1650.0 + 3000.0), "negative unaccounted");
    // The predefined CYCLES_NONE alias replaces the cmask/inv form.
    let ev = e.evaluate(&core2().with("RS_UOPS_DISPATCHED.CYCLES_NONE", 4100.0)).unwrap();
    close(ev.get("stall_cycles"), 4100.0, "CYCLES_NONE");
}
