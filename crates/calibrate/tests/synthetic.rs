//! The calibration arithmetic against machines with known parameters (no hardware).

use bottlenose_calibrate::{calibrate_with, CacheGeometry, Calibration, Plan, SyntheticTimer, TrueMachine};
use std::sync::atomic::AtomicBool;

fn zen4() -> bottlenose_machine::Machine {
    bottlenose_machine::load_builtin("zen4").unwrap().unwrap()
}

fn geometry(m: &TrueMachine) -> CacheGeometry {
    CacheGeometry { l1d_bytes: Some(m.sizes[0]), l1i_bytes: Some(m.l1i_bytes), l2_bytes: Some(m.sizes[1]), l3_bytes: Some(m.sizes[2]) }
}

fn run(m: TrueMachine, plan: &Plan) -> (Calibration, u64) {
    run_on(m, plan, &zen4())
}

fn run_on(m: TrueMachine, plan: &Plan, base: &bottlenose_machine::Machine) -> (Calibration, u64) {
    let mut t = SyntheticTimer::new(m);
    let stop = AtomicBool::new(false);
    let mut steps = Vec::new();
    let mut progress = |s: &str, _: usize, _: usize| {
        if steps.last().map(String::as_str) != Some(s) {
            steps.push(s.to_string());
        }
    };
    let cal = calibrate_with(&mut t, plan, base, &mut progress, &stop).unwrap();
    assert!(steps.contains(&"clock".to_string()));
    (cal, t.calls)
}

#[track_caller]
fn near(cal: &Calibration, key: &str, want: f64, tol: f64) {
    let got = cal.value(key).unwrap_or_else(|| panic!("{key} not measured; notes: {:?}", cal.notes));
    assert!((got - want).abs() <= tol, "{key}: measured {got}, true {want} (+-{tol})");
}

#[test]
fn recovers_a_known_machine_through_noise_and_a_clock_change() {
    let truth = TrueMachine { ticks_per_cycle: 2.5, ticks_per_cycle_after: 2.2, clock_change_at: 1500, ..TrueMachine::default() };
    let plan = Plan { forms: vec!["vdivpd ymm, ymm, ymm".into(), "vpxor ymm, ymm, ymm".into()], ..Plan::standard(geometry(&truth)) };
    let (cal, calls) = run(truth.clone(), &plan);
    assert!(calls > 1500, "the clock change happened during the run ({calls} runs)");

    // clock: the start value, and the drift to the end
    assert!((cal.clock.ticks_per_cycle_add - 2.5).abs() < 0.03, "{:?}", cal.clock);
    assert!((cal.clock.ticks_per_cycle_imul - 2.5).abs() < 0.03, "{:?}", cal.clock);
    assert!((cal.clock.drift_pct - (-12.0)).abs() < 1.5, "{:?}", cal.clock);
    assert!((cal.clock.core_ghz - 2.6 / 2.5).abs() < 0.02);
    assert!(cal.notes.iter().any(|n| n.contains("moved")), "{:?}", cal.notes);

    near(&cal, "memory.integer_load_latency", 5.0, 0.1);
    near(&cal, "cache.L1D.latency", 5.0, 0.1);
    near(&cal, "memory.load_latency", 7.0, 0.15);
    near(&cal, "cache.L2.latency", 14.0, 0.3);
    near(&cal, "cache.L3.latency", 50.0, 1.0);
    near(&cal, "memory.dram_latency", 400.0, 8.0);
    near(&cal, "info.dram_latency_4k_pages", 400.0 + 220.0, 12.0);
    // the true translation cost (220) less zen4's DTLB miss latency (7), which the model charges first
    near(&cal, "tlb.STLB.miss_latency", 220.0 - 7.0, 14.0);
    near(&cal, "cache.L1D.bytes_per_cycle", 96.0, 2.0);
    near(&cal, "cache.L2.bytes_per_cycle", 32.0, 0.7);
    near(&cal, "cache.L3.bytes_per_cycle", 16.0, 0.4);
    near(&cal, "memory.dram_bytes_per_cycle", 8.0, 0.2);
    near(&cal, "branch.mispredict_penalty", 13.0, 0.6);
    near(&cal, "branch.taken_bubble", 1.0, 0.05);
    near(&cal, "core.dispatch_width", 6.0, 0.0);
    near(&cal, "info.ipc.add", 4.0, 0.1);
    // Wong steps: exact sizes within 2 entries
    near(&cal, "core.rob", 256.0, 2.0);
    near(&cal, "core.scheduler", 97.0, 2.0);
    near(&cal, "core.load_buffer", 88.0, 2.0);
    near(&cal, "core.store_buffer", 64.0, 2.0);
    let rob = cal.get("core.rob").unwrap();
    assert!(rob.method.contains("nops pack two"), "nops step at twice the ROB: {}", rob.method);
    assert_eq!(rob.base, Some(320.0));

    // base values come from the base machine
    assert_eq!(cal.get("cache.L2.latency").unwrap().base, Some(14.0));
    assert_eq!(cal.get("memory.dram_latency").unwrap().base, Some(400.0));
    assert_eq!(cal.get("info.ipc.add").unwrap().base, None);

    // forms: built-in ones the synthetic machine knows, the plan's, skips with reasons
    let form = |k: &str| cal.forms.iter().find(|f| f.form == k).unwrap_or_else(|| panic!("{k} missing"));
    let f = form("vaddpd ymm, ymm, ymm");
    assert!((f.latency.unwrap() - 3.0).abs() < 0.1 && (f.rthroughput.unwrap() - 0.5).abs() < 0.02, "{f:?}");
    assert_eq!((f.base_latency, f.base_rthroughput), (Some(3.0), Some(0.5)));
    let f = form("add r64, m64");
    assert!((f.latency.unwrap() - 6.0).abs() < 0.15, "operation 1 + integer load 5: {f:?}");
    let f = form("mov r64, m64");
    assert!((f.latency.unwrap() - 5.0).abs() < 0.1, "{f:?}");
    let f = form("mov m64, r64");
    assert!(f.latency.is_none() && f.rthroughput.is_some() && f.method.contains("store"), "{f:?}");
    let f = form("vdivpd ymm, ymm, ymm");
    assert!((f.latency.unwrap() - 13.0).abs() < 0.3 && (f.rthroughput.unwrap() - 5.0).abs() < 0.1, "{f:?}");
    let f = form("vpxor ymm, ymm, ymm");
    assert!(f.latency.is_none() && f.method.starts_with("skipped"), "{f:?}");

    // a quiet synthetic machine gives stable values
    let unstable: Vec<&str> = cal.entries.iter().filter(|e| e.unstable).map(|e| e.key.as_str()).collect();
    assert!(unstable.is_empty(), "{unstable:?}");
}

#[test]
fn a_different_machine_gives_different_values() {
    // the numbers must come from the timings, not from the base machine or constants
    let truth = TrueMachine {
        ticks_per_cycle: 0.7,
        ticks_per_cycle_after: 0.7,
        sizes: [32 << 10, 1 << 20, 32 << 20],
        latency: [4.0, 16.0, 70.0],
        dram_latency: 600.0,
        rob: 512,
        scheduler: 200,
        load_buffer: 192,
        store_buffer: 114,
        dispatch: 8.0,
        alu_ports: 5.0,
        mispredict_penalty: 17.0,
        taken_cycles: 1.0,
        ..TrueMachine::default()
    };
    let plan = Plan { builtin_forms: false, ..Plan::standard(geometry(&truth)) };
    let (cal, _) = run(truth, &plan);
    assert!((cal.clock.ticks_per_cycle_add - 0.7).abs() < 0.01);
    assert!(cal.clock.drift_pct.abs() < 1.0);
    near(&cal, "cache.L2.latency", 16.0, 0.3);
    near(&cal, "cache.L3.latency", 70.0, 1.5);
    near(&cal, "memory.dram_latency", 600.0, 12.0);
    near(&cal, "core.rob", 512.0, 3.0);
    near(&cal, "core.scheduler", 200.0, 2.0);
    near(&cal, "core.load_buffer", 192.0, 2.0);
    near(&cal, "core.store_buffer", 114.0, 2.0);
    near(&cal, "core.dispatch_width", 8.0, 0.0);
    // zen4 retires 8 per cycle: enough for the 8 measured, so no change
    assert!(cal.get("core.commit_width").is_none());
    near(&cal, "branch.mispredict_penalty", 17.0, 0.6);
    near(&cal, "branch.taken_bubble", 0.0, 0.05);
    assert!(cal.forms.is_empty());
}

#[test]
fn noise_is_flagged_unstable() {
    // half the runs 25 % slow and a clock that wanders 6 % from run to run: the fastest
    // attempts cannot agree, and the values say so
    let truth = TrueMachine { noise: 0.05, outlier_rate: 0.5, clock_jitter: 0.06, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, ..Plan::standard(geometry(&truth)) };
    let (cal, _) = run(truth, &plan);
    let unstable = cal.entries.iter().filter(|e| e.unstable).count();
    assert!(unstable * 2 > cal.entries.len(), "{unstable} of {} unstable", cal.entries.len());
    assert!(cal.entries.iter().filter(|e| e.unstable).all(|e| e.spread_pct > 0.0));
}

#[test]
fn a_window_beyond_the_sweep_is_reported_not_invented() {
    // a ROB far beyond twice the base's: no step in the sweep, a note instead of a value
    let truth = TrueMachine { rob: 2000, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, ..Plan::standard(geometry(&truth)) };
    let (cal, _) = run(truth, &plan);
    assert!(cal.get("core.rob").is_none(), "{:?}", cal.get("core.rob"));
    assert!(cal.notes.iter().any(|n| n.starts_with("core.rob: no step")), "{:?}", cal.notes);
    near(&cal, "core.store_buffer", 64.0, 2.0);
}

#[test]
fn forms_only_plans_measure_the_loads_they_need() {
    let truth = TrueMachine::default();
    let plan = Plan::forms_only(vec!["add r64, m64".into(), "imul r64, r64".into(), "kmovw k, r32".into()]);
    let (cal, _) = run(truth, &plan);
    near(&cal, "memory.integer_load_latency", 5.0, 0.1);
    assert!(cal.get("core.rob").is_none());
    assert_eq!(cal.forms.len(), 3);
    assert!((cal.forms[1].latency.unwrap() - 3.0).abs() < 0.1);
    assert!(cal.forms[2].method.contains("mask"), "{:?}", cal.forms[2]);
}

#[test]
fn stop_returns_stopped() {
    let mut t = SyntheticTimer::new(TrueMachine::default());
    let stop = AtomicBool::new(false);
    let mut n = 0;
    let mut progress = |_: &str, _: usize, _: usize| {
        n += 1;
        if n == 5 {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let plan = Plan::standard(CacheGeometry::default());
    let r = calibrate_with(&mut t, &plan, &zen4(), &mut progress, &stop);
    assert!(matches!(r, Err(bottlenose_calibrate::CalibrateError::Stopped)), "{r:?}");
}

#[test]
fn a_clock_that_slows_down_mid_run_is_followed() {
    // the clock drops (more ticks per cycle): values measured after it stay right
    let truth = TrueMachine { ticks_per_cycle: 2.2, ticks_per_cycle_after: 2.5, clock_change_at: 800, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, ..Plan::standard(geometry(&truth)) };
    let (cal, calls) = run(truth, &plan);
    assert!(calls > 800);
    assert!((cal.clock.drift_pct - 13.6).abs() < 1.5, "{:?}", cal.clock);
    near(&cal, "cache.L2.latency", 14.0, 0.3);
    near(&cal, "memory.dram_latency", 400.0, 8.0);
    near(&cal, "branch.mispredict_penalty", 13.0, 0.6);
    near(&cal, "core.rob", 256.0, 2.0);
    near(&cal, "core.store_buffer", 64.0, 2.0);
}

#[test]
fn window_sizes_survive_bursts_of_dram_latency() {
    // DRAM 60 % slower during every other stretch of 150 runs: each Wong point is a ratio
    // to N = 0 timed beside it, so the steps stay where they are
    let truth = TrueMachine { dram_burst: 1.6, dram_burst_calls: 150, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, only: vec!["windows".into()], ..Plan::standard(geometry(&truth)) };
    let (cal, calls) = run(truth, &plan);
    assert!(calls > 1500, "{calls}");
    near(&cal, "core.rob", 256.0, 2.0);
    near(&cal, "core.scheduler", 97.0, 2.0);
    near(&cal, "core.load_buffer", 88.0, 2.0);
    near(&cal, "core.store_buffer", 64.0, 2.0);
}

#[test]
fn port_conflicts_from_pairwise_mixes() {
    let truth = TrueMachine::default();
    let mut plan = Plan::forms_only(vec!["vaddpd ymm, ymm, ymm".into(), "vmulpd ymm, ymm, ymm".into(), "vfmadd231pd ymm, ymm, ymm".into(), "vdivpd ymm, ymm, ymm".into()]);
    plan.conflicts = true;
    let (cal, _) = run(truth, &plan);
    let c = |a: &str, b: &str| cal.conflicts.iter().find(|c| (c.0 == a && c.1 == b) || (c.0 == b && c.1 == a)).map(|c| c.2);
    assert_eq!(c("vaddpd ymm, ymm, ymm", "vmulpd ymm, ymm, ymm"), Some(0.0), "{:?}", cal.conflicts);
    let shared = c("vmulpd ymm, ymm, ymm", "vfmadd231pd ymm, ymm, ymm").unwrap();
    assert!((shared - 1.0).abs() < 0.05, "{:?}", cal.conflicts);
    // 0.5 against 5 cycles: too far apart to tell, not reported
    assert_eq!(c("vaddpd ymm, ymm, ymm", "vdivpd ymm, ymm, ymm"), None);
}

#[test]
fn a_wrong_base_is_corrected_on_forwarding_renaming_divides_and_code_streaming() {
    // skylake as the base (no memory renaming, forwarding 5, one icache miss at a time,
    // divides of 76 / 102 cycles) on a Zen 4-like truth
    let skylake = bottlenose_machine::load_builtin("skylake").unwrap().unwrap();
    let truth = TrueMachine {
        store_forward_latency: 5.6,
        renamed_forward_latency: Some(0.0),
        icache_misses_in_flight: 3.25,
        code_l1_line_cycles: 1.34,
        ..TrueMachine::default()
    };
    let plan = Plan { only: vec!["latency".into(), "forwarding".into(), "frontend".into(), "dispatch".into()], ..Plan::standard(geometry(&truth)) };
    let (cal, _) = run_on(truth, &plan, &skylake);
    // 6 measured per cycle: skylake's 4-wide retirement would cap the model at 4
    near(&cal, "core.dispatch_width", 6.0, 0.0);
    near(&cal, "core.commit_width", 6.0, 0.0);
    assert_eq!(cal.get("core.commit_width").unwrap().base, Some(4.0));
    near(&cal, "memory.store_forward_latency", 5.6, 0.1);
    near(&cal, "memory.memory_renaming", 1.0, 0.0);
    near(&cal, "memory.renamed_forward_latency", 0.0, 0.05);
    assert_eq!(cal.get("memory.memory_renaming").unwrap().base, Some(0.0));
    assert_eq!(cal.get("memory.store_forward_latency").unwrap().base, Some(5.0));
    // L2 14 (measured) and skylake's L1I latency 1: (14 - 1) / 3.25 = 4 cycles per line
    near(&cal, "cache.L2.latency", 14.0, 0.3);
    near(&cal, "core.icache_misses_in_flight", 3.25, 0.1);
    assert_eq!(cal.get("core.icache_misses_in_flight").unwrap().base, Some(1.0));
    assert_eq!(cal.get("core.icache_misses_in_flight").unwrap().depends_on, vec!["cache.L2.latency".to_string()]);
    near(&cal, "info.code_line_cycles_l1i", 1.34, 0.05);
    let form = |k: &str| cal.forms.iter().find(|f| f.form == k).unwrap_or_else(|| panic!("{k} missing"));
    for (k, lat, rt) in [("div r64", 13.0, 7.5), ("idiv r64", 14.0, 8.0), ("div r32", 11.0, 6.0)] {
        let f = form(k);
        assert!((f.latency.unwrap() - lat).abs() < 0.2 && (f.rthroughput.unwrap() - rt).abs() < 0.1, "{f:?}");
        assert!(f.method.contains("closing instruction") && f.method.contains("dividend"), "{}", f.method);
    }
    assert_eq!(form("div r64").base_latency, Some(76.0));
}

#[test]
fn a_core_without_memory_renaming_turns_it_off() {
    // zen4 renames memory; this truth forwards in 4.5 and renames nothing
    let truth = TrueMachine { store_forward_latency: 4.5, renamed_forward_latency: None, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, only: vec!["forwarding".into()], ..Plan::standard(geometry(&truth)) };
    let (cal, _) = run(truth, &plan);
    near(&cal, "memory.store_forward_latency", 4.5, 0.1);
    near(&cal, "memory.memory_renaming", 0.0, 0.0);
    assert_eq!(cal.get("memory.memory_renaming").unwrap().base, Some(1.0));
    assert!(cal.get("memory.renamed_forward_latency").is_none());
}

#[test]
fn a_core_that_renames_any_naming_keeps_the_base_forwarding() {
    // both chains at the add's pace (as the Zen 5 here): renaming, and no forwarding figure
    // (a round of 1 would read as -1 cycles of forwarding, clamped to a wrong 0)
    let truth = TrueMachine { renamed_forward_latency: Some(0.0), renames_any_naming: true, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, only: vec!["forwarding".into()], ..Plan::standard(geometry(&truth)) };
    let skylake = bottlenose_machine::load_builtin("skylake").unwrap().unwrap();
    let (cal, _) = run_on(truth, &plan, &skylake);
    near(&cal, "memory.memory_renaming", 1.0, 0.0);
    near(&cal, "memory.renamed_forward_latency", 0.0, 0.05);
    assert!(cal.value("memory.store_forward_latency").is_none(), "{:?}", cal.get("memory.store_forward_latency"));
    assert!(cal.get("memory.memory_renaming").unwrap().method.contains("whatever the naming"));
}

#[test]
fn code_streaming_rides_on_the_l2_latency_it_was_derived_with() {
    // another L2 latency and fewer misses in flight: (20 - 1) / 2 = 9.5 cycles per line
    let truth = TrueMachine { latency: [5.0, 20.0, 50.0], icache_misses_in_flight: 2.0, ..TrueMachine::default() };
    let plan = Plan { builtin_forms: false, only: vec!["latency".into(), "frontend".into()], ..Plan::standard(geometry(&truth)) };
    let (mut cal, _) = run(truth, &plan);
    near(&cal, "core.icache_misses_in_flight", 2.0, 0.05);
    assert!(!cal.get("core.icache_misses_in_flight").unwrap().unstable);
    // without the L2 latency it was computed with, the value is not written either
    cal.entries.iter_mut().find(|e| e.key == "cache.L2.latency").unwrap().unstable = true;
    cal.settle_dependencies();
    let e = cal.get("core.icache_misses_in_flight").unwrap();
    assert!(e.unstable && e.method.contains("left out with cache.L2.latency"), "{e:?}");
}
