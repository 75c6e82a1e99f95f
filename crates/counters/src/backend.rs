//! The counter backend interface: open a group, enable, disable, read.
//! [`crate::perf::PerfEventBackend`] is the real one (`perf_event_open`);
//! [`crate::fake::FakeBackend`] is scripted for tests.

use crate::errors::SysInfo;
use crate::event::RawEvent;

/// What a group counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One task (`pid`, 0 = this process) on any CPU.
    Task(i32),
    /// Every task on one CPU (system-wide, per CPU).
    Cpu(u32),
}

/// Options of one group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupOptions {
    /// What to count.
    pub target: Target,
    /// Children created after opening are counted too (`inherit`).
    pub inherit: bool,
    /// Do not count kernel mode.
    pub exclude_kernel: bool,
    /// Do not count user mode.
    pub exclude_user: bool,
    /// Start counting when the target calls exec (the group is opened disabled).
    pub enable_on_exec: bool,
}

impl GroupOptions {
    /// Options for a task: inherit, both modes, no enable-on-exec.
    pub fn task(pid: i32) -> GroupOptions {
        GroupOptions { target: Target::Task(pid), inherit: true, exclude_kernel: false, exclude_user: false, enable_on_exec: false }
    }
}

/// An open group, as numbered by its backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupHandle(pub usize);

/// One event's reading (cumulative since opening).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Raw count while running.
    pub value: u64,
    /// Nanoseconds the event was enabled.
    pub time_enabled: u64,
    /// Nanoseconds it was actually on a counter (less than enabled when multiplexed).
    pub time_running: u64,
}

impl Reading {
    /// The count extrapolated to the enabled time (`None` when it never ran).
    pub fn scaled(&self) -> Option<f64> {
        if self.time_running == 0 {
            return if self.time_enabled == 0 && self.value > 0 { Some(self.value as f64) } else { None };
        }
        Some(self.value as f64 * self.time_enabled as f64 / self.time_running as f64)
    }

    /// Difference to an earlier reading of the same event.
    pub fn since(&self, earlier: &Reading) -> Reading {
        Reading {
            value: self.value.saturating_sub(earlier.value),
            time_enabled: self.time_enabled.saturating_sub(earlier.time_enabled),
            time_running: self.time_running.saturating_sub(earlier.time_running),
        }
    }
}

/// Opening a group failed at `events[index]` with `errno`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenError {
    /// Which event of the group.
    pub index: usize,
    /// The errno.
    pub errno: i32,
}

/// A source of hardware counters.
pub trait CounterBackend {
    /// What the machine exposes (PMUs, `perf_event_paranoid`).
    fn sys_info(&self) -> SysInfo;

    /// Tries one hardware event (core cycles) on this process; the errno when
    /// it cannot be opened (ENOENT/EOPNOTSUPP: no PMU).
    fn probe(&mut self) -> Result<(), i32>;

    /// Opens `events` as one group (the first is the leader), disabled.
    fn open_group(&mut self, events: &[RawEvent], opts: &GroupOptions) -> Result<GroupHandle, OpenError>;

    /// Starts counting.
    fn enable(&mut self, group: GroupHandle) -> Result<(), i32>;

    /// Stops counting.
    fn disable(&mut self, group: GroupHandle) -> Result<(), i32>;

    /// Reads every event of the group, in opening order.
    fn read(&mut self, group: GroupHandle) -> Result<Vec<Reading>, i32>;

    /// Closes the group.
    fn close(&mut self, group: GroupHandle);

    /// Whether events without a hardware encoding (model tables) can be counted.
    fn accepts_model_events(&self) -> bool {
        false
    }
}
