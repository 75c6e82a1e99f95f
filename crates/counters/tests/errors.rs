//! Errors through the FakeBackend: no PMU, perf_event_paranoid too strict,
//! unsupported CPU, an event failing to open. Every message is one line.

use bottlenose_counters::collect::{collect, CollectOptions, Domain, What};
use bottlenose_counters::cpu::{identify, CpuId};
use bottlenose_counters::fake::FakeBackend;
use bottlenose_counters::plan::{plan, EventPlan, Method, Selection};
use bottlenose_counters::{CountersError, SysInfo};

fn skl() -> EventPlan {
    plan("skl", Method::Tma, &Selection { level: Some(1), nodes: vec![] }, false).unwrap()
}

fn run(fake: &mut FakeBackend, opts: &CollectOptions) -> String {
    let e = collect(fake, &skl(), opts).expect_err("collection fails");
    let m = e.to_string();
    assert!(!m.contains('\n'), "one line: {m}");
    m
}

fn cmd() -> CollectOptions {
    CollectOptions::command(vec!["true".into()])
}

#[test]
fn no_pmu() {
    let m = run(&mut FakeBackend::without_pmu(), &cmd());
    assert_eq!(
        m,
        "no hardware performance counters are exposed on this machine (as in many VMs); use `bottlenose run` to get simulated Top-Down from the model instead"
    );
    // A cpu PMU directory but cycles does not open (EOPNOTSUPP, as KVM without vPMU reports).
    let mut f = FakeBackend::new().probe_fails(libc::EOPNOTSUPP);
    assert_eq!(collect(&mut f, &skl(), &cmd()).err(), Some(CountersError::NoPmu));
    assert!(f.opened.is_empty(), "nothing opened, no child left behind");
}

#[test]
fn paranoid_too_strict() {
    let sys = |p| SysInfo { paranoid: Some(p), pmus: vec!["cpu".into()], root: false };
    // Debian's 3 forbids everything for unprivileged users.
    let m = run(&mut FakeBackend::new().sys(sys(3)), &cmd());
    assert!(m.contains("/proc/sys/kernel/perf_event_paranoid is 3"), "{m}");
    assert!(m.contains("needs ≤ 2") && m.contains("sudo sysctl kernel.perf_event_paranoid=2"), "{m}");
    // System-wide needs ≤ 0.
    let mut wide = cmd();
    wide.what = What::SystemWide(None);
    let m = run(&mut FakeBackend::new().sys(sys(1)), &wide);
    assert!(m.contains("is 1, system-wide counting (-a) needs ≤ 0") && m.contains("kernel.perf_event_paranoid=0"), "{m}");
    // Kernel mode asked explicitly with paranoid 2.
    let mut k = cmd();
    k.domain = Domain::All;
    let m = run(&mut FakeBackend::new().sys(sys(2)), &k);
    assert!(m.contains("counting kernel mode needs ≤ 1"), "{m}");
    // EACCES from the open itself (an LSM, or a setting changed meanwhile).
    let m = run(&mut FakeBackend::new().sys(sys(1)).fail("UOPS_ISSUED.ANY", libc::EACCES), &cmd());
    assert!(m.starts_with("permission denied opening hardware counters: /proc/sys/kernel/perf_event_paranoid is 1"), "{m}");
    // Auto domain with paranoid 2: user mode only, with a warning.
    let c = collect(&mut FakeBackend::new().sys(sys(2)), &skl(), &cmd()).unwrap();
    assert!(c.warnings.iter().any(|w| w.contains("counting user mode only")), "{:?}", c.warnings);
}

#[test]
fn unsupported_cpu() {
    let id = CpuId { vendor: "GenuineIntel".into(), family: 6, model: 0x1a, stepping: 5, hybrid: false, core_type: None };
    let e = identify(&id, &SysInfo::default()).table().unwrap_err().to_string();
    assert!(e.starts_with("unsupported CPU GenuineIntel-6-1A-5: no event table for it (supported: "), "{e}");
    for u in ["skl", "skx", "icl", "spr", "adl", "hsw", "ivb", "zen3", "zen4", "zen5"] {
        assert!(e.contains(u), "{u} in {e}");
    }
    assert!(!e.contains("yasin2014") && !e.contains('\n'));
    let e = plan("pentium4", Method::Tma, &Selection::default(), false).err().unwrap().to_string();
    assert!(e.starts_with("unknown microarchitecture 'pentium4'"), "{e}");
}

#[test]
fn event_failing_to_open() {
    let m = run(&mut FakeBackend::new().fail("UOPS_ISSUED.ANY", libc::EINVAL), &cmd());
    assert_eq!(m, "cannot open event UOPS_ISSUED.ANY (cpu/event=0x0e,umask=0x01/, config=0x10e): Invalid argument (errno 22)");
    let l2 = plan("skl", Method::Tma, &Selection { level: Some(2), nodes: vec![] }, false).unwrap();
    let e = collect(&mut FakeBackend::new().fail("MACHINE_CLEARS.COUNT", libc::EOPNOTSUPP), &l2, &cmd()).err().unwrap().to_string();
    assert_eq!(e, "cannot open event MACHINE_CLEARS.COUNT (cpu/event=0xc3,umask=0x01,cmask=1,edge/, config=0x10401c3): Operation not supported (errno 95)");
    let m = run(&mut FakeBackend::new().fail("INST_RETIRED.ANY", libc::EBUSY), &cmd());
    assert!(m.starts_with("cannot open event INST_RETIRED.ANY (cpu/event=0xc0/, config=0xc0): Device or resource busy"), "{m}");
}

#[test]
fn bad_commands_and_options() {
    let mut f = FakeBackend::new();
    let m = run(&mut f, &CollectOptions::command(vec!["/nonexistent/prog".into()]));
    assert!(m.starts_with("cannot run '/nonexistent/prog': No such file or directory"), "{m}");
    let m = run(&mut FakeBackend::new(), &CollectOptions::command(vec!["no-such-command-xyz".into()]));
    assert_eq!(m, "cannot run 'no-such-command-xyz': command not found");
    let mut o = cmd();
    o.repeat = true;
    o.interval = Some(std::time::Duration::from_millis(10));
    assert_eq!(run(&mut FakeBackend::new(), &o), "--repeat and -I cannot be combined");
    let m = plan("icl", Method::FiveEvent, &Selection::default(), false).err().unwrap().to_string();
    assert!(m.contains("method 5-event needs") && m.contains("Sandy Bridge to Skylake"), "{m}");
}

#[test]
fn the_real_backend_here_fails_cleanly() {
    // On this KVM guest there is no PMU; on a machine with one, the probe succeeds.
    let mut real = bottlenose_counters::perf::PerfEventBackend::new();
    match collect(&mut real, &skl(), &cmd()) {
        Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
        Ok(c) => assert_eq!(c.exit_status, Some(0)),
    }
}
