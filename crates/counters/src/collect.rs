//! Collection: run a command (forked stopped, counters opened on its pid with
//! `enable_on_exec` and `inherit`, then released), attach to a process (one
//! group set per thread), or count system-wide (one group set per CPU).
//!
//! All groups are opened at once and the kernel multiplexes them when they do
//! not fit; values are scaled by `time_enabled / time_running` with a warning
//! naming each group's running fraction below 100 %. `repeat` instead runs the
//! command once per group (no multiplexing; runs must be alike). `interval`
//! reads every N ms and gives a time series of deltas.

use crate::backend::{CounterBackend, GroupHandle, GroupOptions, Reading, Target};
use crate::errors::{classify_open_error, CountersError, Scope, SysInfo};
use crate::plan::EventPlan;
pub use crate::scaling::{multiplex_warnings, EventValue, Sample};
use crate::scaling::{read_all, sample, values, zero};
use crate::process::StoppedChild;
use bottlenose_metrics::Counts;
use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    /// Run this command (program and arguments) and count it and its children.
    Command(Vec<OsString>),
    /// Attach to a running process (all its threads) until it exits or the stop flag/duration.
    Pid(i32),
    /// Every CPU, while the command runs (or until the stop flag/duration).
    SystemWide(Option<Vec<OsString>>),
}

/// Privilege domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// User and kernel when `perf_event_paranoid` allows, else user only (with a warning).
    Auto,
    /// User mode only.
    User,
    /// Kernel mode only.
    Kernel,
    /// Both.
    All,
}

/// How to collect.
#[derive(Clone, Debug)]
pub struct CollectOptions {
    /// What to count.
    pub what: What,
    /// Read every interval (time series).
    pub interval: Option<Duration>,
    /// Run the command once per group instead of multiplexing.
    pub repeat: bool,
    /// Privilege domain.
    pub domain: Domain,
    /// Set to stop counting (Ctrl-C) for `-p` / `-a` without a command.
    pub stop: Option<Arc<AtomicBool>>,
    /// Stop after this long (`-p` / `-a` without a command).
    pub duration: Option<Duration>,
    /// CPUs for system-wide counting (default: the online CPUs).
    pub cpus: Option<Vec<u32>>,
}

impl CollectOptions {
    /// Count a command, all groups at once, automatic domain.
    pub fn command(cmd: Vec<OsString>) -> CollectOptions {
        CollectOptions { what: What::Command(cmd), interval: None, repeat: false, domain: Domain::Auto, stop: None, duration: None, cpus: None }
    }
}

/// The result of a collection.
#[derive(Clone, Debug)]
pub struct Collection {
    /// Per interval (empty without `interval`).
    pub intervals: Vec<Sample>,
    /// The whole run.
    pub total: Sample,
    /// The command's exit status.
    pub exit_status: Option<i32>,
    /// Multiplexing, domain and not-counted warnings.
    pub warnings: Vec<String>,
}

/// One opened group (of one thread or CPU).
pub(crate) struct Instance {
    pub(crate) group: usize,
    pub(crate) handle: GroupHandle,
}

/// Checks that counting can work at all: a core PMU exists, one hardware
/// event opens, the paranoid level allows `scope`, the backend takes the
/// plan's events.
pub fn preflight<B: CounterBackend + ?Sized>(backend: &mut B, plan: &EventPlan, scope: Scope) -> Result<SysInfo, CountersError> {
    let sys = backend.sys_info();
    let hardware = plan.events.iter().any(|e| e.config.is_some() && e.pmu != "msr");
    if hardware {
        if !sys.has_core_pmu() {
            return Err(CountersError::NoPmu);
        }
        if let Err(errno) = backend.probe() {
            return Err(classify_open_error(errno, "cycles", "cycles", scope, &sys, true));
        }
    }
    if sys.forbids(scope) {
        return Err(CountersError::Paranoid { current: sys.paranoid, scope });
    }
    if let Some(e) = plan.events.iter().find(|e| e.config.is_none()) {
        if !backend.accepts_model_events() {
            return Err(CountersError::Plan(format!("the {} table is a model: its events (e.g. {}) have no hardware encoding; use --import", plan.hw, e.name)));
        }
    }
    Ok(sys)
}

/// (exclude_kernel, exclude_user, scope) for a domain.
fn domain_flags(domain: Domain, system: bool, sys: &SysInfo, warnings: &mut Vec<String>) -> (bool, bool, Scope) {
    let wide = |s| if system { Scope::SystemWide } else { s };
    match domain {
        Domain::User => (true, false, wide(Scope::ProcessUser)),
        Domain::Kernel => (false, true, wide(Scope::ProcessWithKernel)),
        Domain::All => (false, false, wide(Scope::ProcessWithKernel)),
        Domain::Auto if system => (false, false, Scope::SystemWide),
        Domain::Auto if sys.forbids(Scope::ProcessWithKernel) => {
            warnings.push(format!(
                "counting user mode only: /proc/sys/kernel/perf_event_paranoid is {} (≤ 1 also counts kernel mode)",
                sys.paranoid.map(|p| p.to_string()).unwrap_or_default()
            ));
            (true, false, Scope::ProcessUser)
        }
        Domain::Auto => (false, false, Scope::ProcessWithKernel),
    }
}

fn online_cpus() -> Vec<u32> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            out.extend(a..=b);
        }
    }
    if out.is_empty() {
        out = (0..std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)).collect();
    }
    out
}

fn threads_of(pid: i32) -> Result<Vec<i32>, CountersError> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).map_err(|_| CountersError::Io(format!("no process {pid}")))?;
    let mut tids: Vec<i32> = dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect();
    tids.sort();
    Ok(tids)
}

fn open_all<B: CounterBackend + ?Sized>(
    backend: &mut B,
    plan: &EventPlan,
    groups: &[usize],
    targets: &[GroupOptions],
    scope: Scope,
    sys: &SysInfo,
) -> Result<Vec<Instance>, CountersError> {
    let mut out: Vec<Instance> = Vec::new();
    for opts in targets {
        for &g in groups {
            let events: Vec<_> = plan.groups[g].events.iter().map(|&i| plan.events[i].clone()).collect();
            match backend.open_group(&events, opts) {
                Ok(handle) => out.push(Instance { group: g, handle }),
                Err(e) => {
                    for i in &out {
                        backend.close(i.handle);
                    }
                    let Some(ev) = events.get(e.index).or(events.last()) else {
                        return Err(CountersError::Plan("empty counter group".into()));
                    };
                    let enc = ev.config.map(|c| format!("{}, config={c:#x}", ev.perf)).unwrap_or_else(|| ev.perf.clone());
                    return Err(classify_open_error(e.errno, &ev.name, &enc, scope, sys, false));
                }
            }
        }
    }
    Ok(out)
}

enum Waiter {
    Child(StoppedChild),
    Pid(i32),
    Until,
}

struct Run {
    intervals: Vec<Sample>,
    total: Sample,
    status: Option<i32>,
}

fn stop_requested(opts: &CollectOptions, start: Instant) -> bool {
    opts.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst)) || opts.duration.is_some_and(|d| start.elapsed() >= d)
}

fn pid_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence.
    unsafe { libc::kill(pid, 0) == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM) }
}

fn session<B: CounterBackend + ?Sized>(backend: &mut B, plan: &EventPlan, groups: &[usize], opts: &CollectOptions, sys: &SysInfo, warnings: &mut Vec<String>) -> Result<Run, CountersError> {
    let system = matches!(opts.what, What::SystemWide(_));
    let (exclude_kernel, exclude_user, scope) = domain_flags(opts.domain, system, sys, warnings);
    if sys.forbids(scope) {
        return Err(CountersError::Paranoid { current: sys.paranoid, scope });
    }
    let base = GroupOptions { target: Target::Task(0), inherit: !system, exclude_kernel, exclude_user, enable_on_exec: false };
    let mut extra = Counts::new();
    let (mut waiter, targets, enable) = match &opts.what {
        What::Command(cmd) => {
            let child = StoppedChild::spawn(cmd)?;
            let t = vec![GroupOptions { target: Target::Task(child.pid), enable_on_exec: true, ..base.clone() }];
            (Waiter::Child(child), t, false)
        }
        What::Pid(pid) => {
            let t = threads_of(*pid)?.into_iter().map(|tid| GroupOptions { target: Target::Task(tid), ..base.clone() }).collect();
            (Waiter::Pid(*pid), t, true)
        }
        What::SystemWide(cmd) => {
            let cpus = opts.cpus.clone().unwrap_or_else(online_cpus);
            extra.set_const("num_cpus", cpus.len() as f64);
            let t = cpus.iter().map(|&c| GroupOptions { target: Target::Cpu(c), ..base.clone() }).collect();
            let w = match cmd {
                Some(c) => Waiter::Child(StoppedChild::spawn(c)?),
                None => Waiter::Until,
            };
            (w, t, true)
        }
    };
    let inst = match open_all(backend, plan, groups, &targets, scope, sys) {
        Ok(i) => i,
        Err(e) => {
            if let Waiter::Child(c) = waiter {
                c.kill();
            }
            return Err(e);
        }
    };
    let close = |backend: &mut B| inst.iter().for_each(|i| backend.close(i.handle));
    if enable {
        for i in &inst {
            if let Err(errno) = backend.enable(i.handle) {
                close(backend);
                return Err(CountersError::Io(format!("enabling counters: {}", crate::errors::errno_text(errno))));
            }
        }
    }
    if let Waiter::Child(c) = &mut waiter {
        if let Err(e) = c.release() {
            close(backend);
            return Err(e);
        }
    }
    let start = Instant::now();
    let mut prev: Option<Vec<Vec<Reading>>> = None;
    let (mut intervals, mut last_t) = (Vec::new(), 0.0);
    let mut next = opts.interval.map(|iv| start + iv);
    let status = loop {
        let finished = match &mut waiter {
            Waiter::Child(c) if next.is_none() => Some(Some(c.wait())),
            Waiter::Child(c) => c.try_wait().map(Some),
            Waiter::Pid(p) => (!pid_alive(*p) || stop_requested(opts, start)).then_some(None),
            Waiter::Until => stop_requested(opts, start).then_some(None),
        };
        if let Some(st) = finished {
            break st;
        }
        if let (Some(n), Some(iv)) = (next, opts.interval) {
            if Instant::now() >= n {
                let now = read_all(backend, &inst).inspect_err(|_| close(backend))?;
                let p = prev.take().unwrap_or_else(|| zero(&now));
                let t = start.elapsed().as_secs_f64();
                intervals.push(sample(plan, values(plan, &inst, &now, &p), t, t - last_t, &extra));
                last_t = t;
                prev = Some(now);
                next = Some(n + iv);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let end = read_all(backend, &inst).inspect_err(|_| close(backend))?;
    let t = start.elapsed().as_secs_f64();
    if opts.interval.is_some() {
        let p = prev.clone().unwrap_or_else(|| zero(&end));
        intervals.push(sample(plan, values(plan, &inst, &end, &p), t, t - last_t, &extra));
    }
    let total = sample(plan, values(plan, &inst, &end, &zero(&end)), t, t, &extra);
    for i in &inst {
        backend.disable(i.handle).ok();
    }
    close(backend);
    Ok(Run { intervals, total, status })
}

/// Collects the plan's events as `opts` asks.
pub fn collect<B: CounterBackend + ?Sized>(backend: &mut B, plan: &EventPlan, opts: &CollectOptions) -> Result<Collection, CountersError> {
    let system = matches!(opts.what, What::SystemWide(_));
    let mut warnings = Vec::new();
    let probe_scope = if system { Scope::SystemWide } else { Scope::ProcessUser };
    let sys = preflight(backend, plan, probe_scope)?;
    if opts.repeat && !matches!(opts.what, What::Command(_)) {
        return Err(CountersError::Plan("--repeat needs a command to run once per group".into()));
    }
    if opts.repeat && opts.interval.is_some() {
        return Err(CountersError::Plan("--repeat and -I cannot be combined".into()));
    }
    let all: Vec<usize> = (0..plan.groups.len()).collect();
    let (intervals, total, status) = if opts.repeat {
        let mut vals = Vec::new();
        let mut statuses = Vec::new();
        let mut seconds = 0.0;
        for g in &all {
            let mut w = Vec::new();
            let run = session(backend, plan, &[*g], opts, &sys, &mut w)?;
            if warnings.is_empty() {
                warnings.extend(w);
            }
            seconds += run.total.seconds;
            vals.extend(run.total.values);
            statuses.push(run.status);
        }
        if statuses.windows(2).any(|w| w[0] != w[1]) {
            warnings.push(format!("--repeat: the {} runs exited differently ({statuses:?}); counts mix different runs", statuses.len()));
        }
        let n = all.len().max(1) as f64;
        (Vec::new(), sample(plan, vals, seconds, seconds / n, &Counts::new()), statuses.last().copied().flatten())
    } else {
        let run = session(backend, plan, &all, opts, &sys, &mut warnings)?;
        (run.intervals, run.total, run.status)
    };
    warnings.extend(multiplex_warnings(&total.values));
    Ok(Collection { intervals, total, exit_status: status, warnings })
}
