//! The counters → engine path with hand-computed results: Yasin's Table 2
//! formulas (the `yasin2014` model, every level), Intel's Table 7 level 1 on
//! Ivy Bridge events, the blog's 5-event recipe, and the TMA / 5-event methods
//! agreeing on level 1 where they should (SMT off, or the SMT-aware recipe).

use bottlenose_counters::collect::{collect, CollectOptions};
use bottlenose_counters::fake::FakeBackend;
use bottlenose_counters::groups::check;
use bottlenose_counters::plan::{plan, EventPlan, Method, Selection};
use bottlenose_counters::report::Report;
use bottlenose_metrics::Tree;

fn close(t: &Tree, node: &str, want: f64) {
    let n = t.find(node).unwrap_or_else(|| panic!("{node} not in tree"));
    let v = n.value.unwrap_or_else(|| panic!("{node} has no value: {:?}", n.reason));
    assert!((v - want).abs() < 1e-9, "{node}: {v} != {want}");
}

fn level(l: Option<u32>) -> Selection {
    Selection { level: l, nodes: vec![] }
}

fn run(plan: &EventPlan, fake: &mut FakeBackend) -> (Report, Vec<String>) {
    let c = collect(fake, plan, &CollectOptions::command(vec!["true".into()])).unwrap();
    assert_eq!(c.exit_status, Some(0));
    (Report::new(&plan.engine, plan.method, &c.total.counts, &plan.selection), c.warnings)
}

/// Table 1 events for a 1000-cycle run of a 4-wide machine (4000 slots).
fn table2_counts() -> FakeBackend {
    FakeBackend::new()
        .count("Clocks", 1000.0)
        .count("SlotsIssued", 2400.0)
        .count("SlotsRetired", 2000.0)
        .count("RecoveryBubbles", 200.0)
        .count("FetchBubbles", 400.0)
        .count("FetchBubbles:c4", 60.0)
        .count("BrMispredRetired", 30.0)
        .count("MachineClears", 10.0)
        .count("MsSlotsRetired", 200.0)
        .count("MemStalls.AnyLoad", 200.0)
        .count("MemStalls.L1miss", 80.0)
        .count("MemStalls.L2miss", 60.0)
        .count("MemStalls.L3miss", 40.0)
        .count("MemStalls.Stores", 50.0)
        .count("OpsExecuted:c3", 700.0)
        .count("OpsExecuted:c1", 900.0)
        .count("ExtMemOutstanding:c1", 40.0)
        .count("ExtMemOutstanding:c28", 10.0)
        .count("DividerActive", 20.0)
}

#[test]
fn yasin_table2_through_fake_backend() {
    let p = plan("yasin2014", Method::Tma, &level(None), false).unwrap();
    // A generic 4-counter PMU: the 20 events take several groups.
    assert!(p.groups.len() >= 5, "{}", p.describe());
    check(&p.groups, &p.events, &p.limits).unwrap();
    let (r, warnings) = run(&p, &mut table2_counts());
    assert!(!warnings.iter().any(|w| w.contains("multiplexed") || w.contains("never counted")), "{warnings:?}");
    let t = &r.tree;
    // Level 1.
    close(t, "Frontend_Bound", 400.0 / 4000.0);
    close(t, "Bad_Speculation", (2400.0 - 2000.0 + 200.0) / 4000.0);
    close(t, "Retiring", 2000.0 / 4000.0);
    close(t, "Backend_Bound", 1.0 - (0.1 + 0.15 + 0.5));
    // Level 2.
    close(t, "Fetch_Latency", 60.0 / 1000.0);
    close(t, "Fetch_Bandwidth", 0.1 - 0.06);
    close(t, "Branch_Mispredicts", 30.0 / (30.0 + 10.0) * 0.15);
    close(t, "Machine_Clears", 0.15 - 0.1125);
    close(t, "MicroSequencer", 200.0 / 4000.0);
    close(t, "Base", 0.5 - 0.05);
    close(t, "Memory_Bound", (200.0 + 50.0) / 1000.0);
    close(t, "Core_Bound", (1000.0 - 700.0) / 1000.0 - 0.25);
    // Level 3 and 4.
    close(t, "L1_Bound", (200.0 - 80.0) / 1000.0);
    close(t, "L2_Bound", (80.0 - 60.0) / 1000.0);
    close(t, "L3_Bound", (60.0 - 40.0) / 1000.0);
    close(t, "Ext_Memory_Bound", 40.0 / 1000.0);
    close(t, "Stores_Bound", 50.0 / 1000.0);
    close(t, "MEM_Bandwidth", 10.0 / 1000.0);
    close(t, "MEM_Latency", (40.0 - 10.0) / 1000.0);
    close(t, "Divider", 20.0 / 1000.0);
    // Hierarchical safety and the bottleneck path: BE (0.25 > 0.2) → Memory (0.25) → L1 (0.12).
    assert_eq!(r.path(), ["tma_backend_bound", "tma_memory_bound", "tma_l1_bound"]);
    assert!(!t.find("Frontend_Bound").unwrap().flagged);
    assert!(!t.find("Fetch_Latency").unwrap().flagged, "children of unflagged nodes are never flagged");
    let text = r.text(Default::default());
    assert!(text.contains("Backend_Bound") && text.contains("<=="), "{text}");
    assert!(!text.contains("Fetch_Latency"), "hidden under an unflagged parent:\n{text}");
    assert!(r.text(bottlenose_counters::report::View { all: true, hide_missing: false }).contains("Fetch_Latency"));
}

#[test]
fn multiplexed_groups_are_scaled_and_reported() {
    let p = plan("yasin2014", Method::Tma, &level(Some(1)), false).unwrap();
    let mut fake = table2_counts().running("SlotsRetired", 0.5).running("RecoveryBubbles", 0.25);
    let (r, warnings) = run(&p, &mut fake);
    close(&r.tree, "Retiring", 0.5);
    close(&r.tree, "Bad_Speculation", 0.15);
    let w = warnings.join("\n");
    assert!(w.contains("ran 50.0% of the time") && w.contains("SlotsRetired"), "{w}");
    assert!(w.contains("ran 25.0% of the time") && w.contains("RecoveryBubbles"), "{w}");
}

/// Ivy Bridge, SMT off: 1000 cycles.
fn ivb_counts() -> FakeBackend {
    FakeBackend::new()
        .count("CPU_CLK_UNHALTED.THREAD", 1000.0)
        .count("UOPS_ISSUED.ANY", 2000.0)
        .count("UOPS_RETIRED.RETIRE_SLOTS", 1800.0)
        .count("IDQ_UOPS_NOT_DELIVERED.CORE", 600.0)
        .count("INT_MISC.RECOVERY_CYCLES", 25.0)
        .count("IDQ.MS_UOPS", 100.0)
        .count("INST_RETIRED.ANY", 1500.0)
}

#[test]
fn intel_table7_level1_on_ivy_bridge_events() {
    let p = plan("ivb", Method::Tma, &level(Some(1)), false).unwrap();
    let names: Vec<&str> = p.events.iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"IDQ_UOPS_NOT_DELIVERED.CORE") && names.contains(&"INT_MISC.RECOVERY_CYCLES"), "{names:?}");
    let (r, _) = run(&p, &mut ivb_counts());
    // Table 7: Slots = 4 * Clocks.
    close(&r.tree, "Frontend_Bound", 600.0 / 4000.0);
    close(&r.tree, "Bad_Speculation", (2000.0 - 1800.0 + 4.0 * 25.0) / 4000.0);
    close(&r.tree, "Retiring", 1800.0 / 4000.0);
    close(&r.tree, "Backend_Bound", 1.0 - (600.0 + 2000.0 + 4.0 * 25.0) / 4000.0);
}

#[test]
fn five_event_recipe_and_tma_agree_on_level1() {
    // The blog's likwid TOPDOWN formulas on Haswell.
    let five = plan("hsw", Method::FiveEvent, &level(None), false).unwrap();
    assert_eq!(five.events.len(), 5);
    assert_eq!(five.groups.len(), 1, "5 events fit one group");
    let (r5, _) = run(&five, &mut ivb_counts());
    close(&r5.tree, "Frontend_Bound", 600.0 / (4.0 * 1000.0));
    close(&r5.tree, "Bad_Speculation", (2000.0 - 1800.0 + 4.0 * 25.0) / (4.0 * 1000.0));
    close(&r5.tree, "Retiring", 1800.0 / (4.0 * 1000.0));
    close(&r5.tree, "Backend_Bound", 1.0 - (600.0 + 2000.0 + 4.0 * 25.0) / (4.0 * 1000.0));
    for u in ["hsw", "ivb", "skl", "skx"] {
        let tma = plan(u, Method::Tma, &level(Some(1)), false).unwrap();
        let (rt, _) = run(&tma, &mut ivb_counts());
        for n in ["Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound"] {
            close(&rt.tree, n, r5.tree.find(n).unwrap().value.unwrap());
        }
    }
}

#[test]
fn with_smt_only_the_smt_aware_recipe_agrees() {
    let counts = || ivb_counts().count("CPU_CLK_UNHALTED.THREAD_ANY", 1800.0).count("INT_MISC.RECOVERY_CYCLES_ANY", 40.0);
    let tma = plan("skl", Method::Tma, &level(Some(1)), true).unwrap();
    let five = plan("skl", Method::FiveEvent, &level(None), true).unwrap();
    assert_eq!(five.engine.uarch(), "topdown5-smt");
    let (rt, _) = run(&tma, &mut counts());
    let (r5, _) = run(&five, &mut counts());
    // Core-wide slots: 4 * THREAD_ANY / 2.
    close(&rt.tree, "Frontend_Bound", 600.0 / 3600.0);
    for n in ["Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound"] {
        close(&r5.tree, n, rt.tree.find(n).unwrap().value.unwrap());
    }
    // The plain recipe keeps per-thread clocks, so it differs from TMA with SMT on.
    let plain = plan("skl", Method::FiveEvent, &level(None), false).unwrap();
    assert_eq!(plain.engine.uarch(), "topdown5");
    let (rp, _) = run(&plain, &mut counts());
    close(&rp.tree, "Frontend_Bound", 600.0 / 4000.0);
    assert!((600.0f64 / 4000.0 - 600.0 / 3600.0).abs() > 0.01);
}

#[test]
fn exit_status_passes_through_and_intervals_add_up() {
    let p = plan("yasin2014", Method::Tma, &level(Some(1)), false).unwrap();
    let c = collect(&mut table2_counts(), &p, &CollectOptions::command(vec!["sh".into(), "-c".into(), "exit 3".into()])).unwrap();
    assert_eq!(c.exit_status, Some(3));
    // Interval mode: the fake advances one tick per read, so each interval holds the scripted counts.
    let mut opts = CollectOptions::command(vec!["sleep".into(), "0.12".into()]);
    opts.interval = Some(std::time::Duration::from_millis(30));
    let c = collect(&mut table2_counts(), &p, &opts).unwrap();
    assert!(c.intervals.len() >= 3, "{} intervals", c.intervals.len());
    for s in &c.intervals {
        let r = Report::new(&p.engine, p.method, &s.counts, &p.selection);
        close(&r.tree, "Retiring", 0.5);
    }
    let clocks: f64 = c.intervals.iter().map(|s| s.counts.get_str("Clocks").unwrap()).sum();
    assert_eq!(clocks, c.total.counts.get_str("Clocks").unwrap());
    assert!(c.intervals.windows(2).all(|w| w[0].time < w[1].time));
}

#[test]
fn repeat_runs_once_per_group() {
    let p = plan("yasin2014", Method::Tma, &level(None), false).unwrap();
    let mut fake = table2_counts();
    let mut opts = CollectOptions::command(vec!["true".into()]);
    opts.repeat = true;
    let c = collect(&mut fake, &p, &opts).unwrap();
    assert_eq!(fake.opened.len(), p.groups.len(), "one run (and one open) per group");
    assert!(fake.opened.iter().all(|(_, o)| o.enable_on_exec && o.inherit));
    let r = Report::new(&p.engine, p.method, &c.total.counts, &p.selection);
    close(&r.tree, "L1_Bound", 0.12);
    assert!(!c.warnings.iter().any(|w| w.contains("multiplexed")), "{:?}", c.warnings);
}

#[test]
fn attach_to_a_pid_and_system_wide() {
    use bottlenose_counters::collect::What;
    use bottlenose_counters::{SysInfo, Target};
    let p = plan("yasin2014", Method::Tma, &level(Some(1)), false).unwrap();
    let mut opts = CollectOptions::command(vec![]);
    opts.what = What::Pid(std::process::id() as i32);
    opts.duration = Some(std::time::Duration::from_millis(20));
    let mut fake = table2_counts();
    let c = collect(&mut fake, &p, &opts).unwrap();
    assert_eq!(c.exit_status, None);
    assert!(fake.opened.iter().all(|(_, o)| matches!(o.target, Target::Task(t) if t > 0)));
    // -a needs perf_event_paranoid <= 0.
    opts.what = What::SystemWide(None);
    opts.cpus = Some(vec![0, 1]);
    let err = collect(&mut table2_counts(), &p, &opts).unwrap_err().to_string();
    assert!(err.contains("perf_event_paranoid is 2") && err.contains("needs ≤ 0"), "{err}");
    let mut fake = table2_counts().sys(SysInfo { paranoid: Some(0), pmus: vec!["cpu".into()], root: false });
    let c = collect(&mut fake, &p, &opts).unwrap();
    let cpus: Vec<Target> = fake.opened.iter().map(|(_, o)| o.target).collect();
    assert!(cpus.contains(&Target::Cpu(0)) && cpus.contains(&Target::Cpu(1)));
    // Two CPUs counted: the sums double, the fractions stay.
    assert_eq!(c.total.counts.get_str("Clocks"), Some(2000.0));
    close(&Report::new(&p.engine, p.method, &c.total.counts, &p.selection).tree, "Retiring", 0.5);
}

#[test]
fn ice_lake_slots_leads_the_topdown_metrics_group() {
    let p = plan("icl", Method::Tma, &level(Some(1)), false).unwrap();
    let mut fake = FakeBackend::new()
        .count("TOPDOWN.SLOTS:perf_metrics", 5000.0)
        .count("PERF_METRICS.FRONTEND_BOUND", 1000.0)
        .count("PERF_METRICS.BAD_SPECULATION", 500.0)
        .count("PERF_METRICS.RETIRING", 2000.0)
        .count("PERF_METRICS.BACKEND_BOUND", 1500.0)
        .count("INT_MISC.UOP_DROPPING", 50.0)
        .count("INT_MISC.CLEARS_COUNT", 10.0);
    let (r, _) = run(&p, &mut fake);
    // The kernel only accepts topdown-* events in a group led by slots.
    let (first, _) = &fake.opened[0];
    assert_eq!(first[0], "TOPDOWN.SLOTS:perf_metrics");
    assert!(first[1..].iter().all(|n| n.starts_with("PERF_METRICS.")) && first.len() == 5, "{first:?}");
    assert!(fake.opened[1..].iter().all(|(g, _)| !g.iter().any(|n| n.starts_with("PERF_METRICS."))));
    close(&r.tree, "Frontend_Bound", 1000.0 / 5000.0 - 50.0 / 5000.0);
    close(&r.tree, "Backend_Bound", 1500.0 / 5000.0 + 5.0 * 10.0 / 5000.0);
    close(&r.tree, "Retiring", 2000.0 / 5000.0);
}
