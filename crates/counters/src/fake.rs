//! A scripted backend for tests: counts per event, errors per event,
//! multiplexing fractions, and the machine's settings.
//!
//! Events are matched by key, name or perf spelling (case-insensitive). Each
//! [`CounterBackend::read`] of an enabled group advances that group by one
//! *tick*: an event scripted with count `c` and running fraction `f` reads
//! `value = c·ticks·f`, `time_enabled = ticks·1 ms`, `time_running = f·time_enabled`,
//! so a single read returns `c` after scaling and each interval adds `c`.

use crate::backend::{CounterBackend, GroupHandle, GroupOptions, OpenError, Reading};
use crate::errors::SysInfo;
use crate::event::RawEvent;
use std::collections::HashMap;

const TICK_NS: u64 = 1_000_000;

struct FakeGroup {
    events: Vec<RawEvent>,
    enabled: bool,
    ticks: u64,
    open: bool,
}

/// The scripted backend.
pub struct FakeBackend {
    counts: HashMap<String, f64>,
    errors: HashMap<String, i32>,
    running: HashMap<String, f64>,
    sys: SysInfo,
    probe_errno: Option<i32>,
    groups: Vec<FakeGroup>,
    /// Every group opened: (event names, options), for assertions.
    pub opened: Vec<(Vec<String>, GroupOptions)>,
}

impl Default for FakeBackend {
    fn default() -> Self {
        FakeBackend::new()
    }
}

impl FakeBackend {
    /// A machine with a `cpu` PMU, paranoid 2, no scripted counts.
    pub fn new() -> FakeBackend {
        FakeBackend {
            counts: HashMap::new(),
            errors: HashMap::new(),
            running: HashMap::new(),
            sys: SysInfo { paranoid: Some(2), pmus: vec!["cpu".into(), "msr".into(), "software".into()], root: false },
            probe_errno: None,
            groups: Vec::new(),
            opened: Vec::new(),
        }
    }

    /// The count an event reads (per tick).
    pub fn count(mut self, event: &str, value: f64) -> FakeBackend {
        self.counts.insert(event.to_ascii_lowercase(), value);
        self
    }

    /// Opening this event fails with `errno`.
    pub fn fail(mut self, event: &str, errno: i32) -> FakeBackend {
        self.errors.insert(event.to_ascii_lowercase(), errno);
        self
    }

    /// The fraction of the enabled time this event is on a counter.
    pub fn running(mut self, event: &str, fraction: f64) -> FakeBackend {
        self.running.insert(event.to_ascii_lowercase(), fraction);
        self
    }

    /// The machine's settings.
    pub fn sys(mut self, sys: SysInfo) -> FakeBackend {
        self.sys = sys;
        self
    }

    /// A machine like this VM: no core PMU; opening cycles gives ENOENT.
    pub fn without_pmu() -> FakeBackend {
        let mut b = FakeBackend::new();
        b.sys.pmus = vec!["breakpoint".into(), "msr".into(), "software".into(), "tracepoint".into()];
        b.probe_errno = Some(libc::ENOENT);
        b
    }

    /// The probe (opening cycles) fails with `errno`.
    pub fn probe_fails(mut self, errno: i32) -> FakeBackend {
        self.probe_errno = Some(errno);
        self
    }

    fn lookup<T: Copy>(map: &HashMap<String, T>, e: &RawEvent) -> Option<T> {
        [&e.key, &e.name, &e.perf].iter().find_map(|n| map.get(&n.to_ascii_lowercase()).copied())
    }

    fn group(&mut self, g: GroupHandle) -> Result<&mut FakeGroup, i32> {
        self.groups.get_mut(g.0).filter(|g| g.open).ok_or(libc::EBADF)
    }
}

impl CounterBackend for FakeBackend {
    fn sys_info(&self) -> SysInfo {
        self.sys.clone()
    }

    fn probe(&mut self) -> Result<(), i32> {
        match self.probe_errno {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn open_group(&mut self, events: &[RawEvent], opts: &GroupOptions) -> Result<GroupHandle, OpenError> {
        for (index, e) in events.iter().enumerate() {
            if let Some(errno) = FakeBackend::lookup(&self.errors, e) {
                return Err(OpenError { index, errno });
            }
        }
        self.opened.push((events.iter().map(|e| e.name.clone()).collect(), opts.clone()));
        // enable_on_exec: the exec happens right after the release.
        self.groups.push(FakeGroup { events: events.to_vec(), enabled: opts.enable_on_exec, ticks: 0, open: true });
        Ok(GroupHandle(self.groups.len() - 1))
    }

    fn enable(&mut self, g: GroupHandle) -> Result<(), i32> {
        self.group(g)?.enabled = true;
        Ok(())
    }

    fn disable(&mut self, g: GroupHandle) -> Result<(), i32> {
        self.group(g)?.enabled = false;
        Ok(())
    }

    fn read(&mut self, g: GroupHandle) -> Result<Vec<Reading>, i32> {
        let counts = self.counts.clone();
        let running = self.running.clone();
        let grp = self.group(g)?;
        if grp.enabled {
            grp.ticks += 1;
        }
        let ticks = grp.ticks;
        Ok(grp
            .events
            .iter()
            .map(|e| {
                let c = FakeBackend::lookup(&counts, e).unwrap_or(0.0);
                let f = FakeBackend::lookup(&running, e).unwrap_or(1.0).clamp(0.0, 1.0);
                let enabled = ticks * TICK_NS;
                let run = (enabled as f64 * f).round() as u64;
                Reading { value: (c * ticks as f64 * f).round() as u64, time_enabled: enabled, time_running: run }
            })
            .collect())
    }

    fn close(&mut self, g: GroupHandle) {
        if let Some(grp) = self.groups.get_mut(g.0) {
            grp.open = false;
        }
    }

    fn accepts_model_events(&self) -> bool {
        true
    }
}
