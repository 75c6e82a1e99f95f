//! The real standard set on this host (x86-64 Linux with binutils): plausibility only, since
//! the host is shared and may be any x86-64 core. Set BOTTLENOSE_SKIP_HOST_CALIBRATION=1 to skip.

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn the_standard_set_on_this_host_is_plausible() {
    use bottlenose_calibrate::{calibrate, CacheGeometry, Plan};
    use std::sync::atomic::AtomicBool;
    if std::env::var_os("BOTTLENOSE_SKIP_HOST_CALIBRATION").is_some() {
        return;
    }
    if std::process::Command::new("as").arg("--version").output().is_err() {
        eprintln!("no `as`: skipped");
        return;
    }
    let base = bottlenose_machine::load_builtin("zen4").unwrap().unwrap();
    let plan = Plan { builtin_forms: false, forms: vec!["imul r64, r64".into(), "add r64, r64".into(), "div r64".into()], ..Plan::standard(CacheGeometry::default()) };
    let stop = AtomicBool::new(false);
    let cal = calibrate(&plan, &base, &mut |_, _, _| {}, &stop).expect("calibration runs");
    let c = &cal.clock;
    assert!(c.ticks_per_cycle_add > 0.1 && c.ticks_per_cycle_add < 10.0, "{c:?}");
    assert!((c.ticks_per_cycle_imul / c.ticks_per_cycle_add - 1.0).abs() < 0.03, "add and imul chains disagree: {c:?}");
    assert!(c.core_ghz > 0.5 && c.core_ghz < 7.0, "{c:?}");
    let l1 = cal.value("cache.L1D.latency").expect("L1 latency");
    assert!((3.0..=7.0).contains(&l1), "L1 load-to-use {l1}");
    let l2 = cal.value("cache.L2.latency").expect("L2 latency");
    assert!(l2 > l1, "L2 {l2} vs L1 {l1}");
    let dram = cal.value("memory.dram_latency").expect("DRAM latency");
    assert!(dram > l2 * 3.0, "DRAM {dram} vs L2 {l2}");
    let imul = cal.forms.iter().find(|f| f.form == "imul r64, r64").unwrap();
    assert!((imul.latency.unwrap() - 3.0).abs() < 0.3, "{imul:?}");
    // a load-add-store round through memory: forwarding takes a few cycles on every core
    // (a core that renames the load whatever the store's naming, as Zen 5, shows no forwarding)
    let renaming = cal.value("memory.memory_renaming").expect("memory renaming");
    assert!(renaming == 0.0 || renaming == 1.0);
    match cal.value("memory.store_forward_latency") {
        Some(fwd) => assert!((0.5..=20.0).contains(&fwd), "store forwarding {fwd}"),
        None => assert_eq!(renaming, 1.0, "no forwarding figure, and no renaming either"),
    }
    let streams = cal.value("core.icache_misses_in_flight").expect("code streaming from L2");
    assert!((1.0..=32.0).contains(&streams), "icache misses in flight {streams}");
    let div = cal.forms.iter().find(|f| f.form == "div r64").unwrap();
    assert!(div.latency.is_some_and(|l| (4.0..=120.0).contains(&l)) && div.rthroughput.is_some_and(|t| t >= 1.0), "{div:?}");
    assert!(cal.seconds < 180.0, "the standard set took {} s", cal.seconds);
}
