//! One-line errors of collection and import, and the mapping of
//! `perf_event_open` errno values to them.
//!
//! | cause | message |
//! | --- | --- |
//! | no PMU (VMs: `/sys/bus/event_source/devices/cpu` missing, ENOENT/EOPNOTSUPP on a hardware event) | [`CountersError::NoPmu`] |
//! | EACCES/EPERM | [`CountersError::Paranoid`]: names `/proc/sys/kernel/perf_event_paranoid`, its value, the value needed and the sysctl |
//! | CPU without a table | [`CountersError::UnsupportedCpu`]: lists the supported uarchs |
//! | any other errno | [`CountersError::EventOpen`]: the event, its encoding and the errno text |

use std::fmt;

/// Where the counters are asked to count; decides the `perf_event_paranoid` level needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Per-CPU, system-wide (`-a`): needs paranoid ≤ 0.
    SystemWide,
    /// A process, kernel mode included: needs paranoid ≤ 1.
    ProcessWithKernel,
    /// A process, user mode only: needs paranoid ≤ 2.
    ProcessUser,
}

impl Scope {
    /// The highest `perf_event_paranoid` value that allows this scope for an unprivileged user.
    pub fn paranoid_needed(self) -> i32 {
        match self {
            Scope::SystemWide => 0,
            Scope::ProcessWithKernel => 1,
            Scope::ProcessUser => 2,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Scope::SystemWide => "system-wide counting (-a)",
            Scope::ProcessWithKernel => "counting kernel mode",
            Scope::ProcessUser => "counting your own process in user mode",
        }
    }
}

/// Errors of this crate; each displays as one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CountersError {
    /// The machine exposes no hardware PMU.
    #[error("no hardware performance counters are exposed on this machine (as in many VMs); use `bottlenose run` to get simulated Top-Down from the model instead")]
    NoPmu,
    /// `perf_event_paranoid` forbids what was asked.
    #[error("{}", paranoid_message(*.current, *.scope))]
    Paranoid {
        /// The current value of `/proc/sys/kernel/perf_event_paranoid`, when readable.
        current: Option<i32>,
        /// What was asked.
        scope: Scope,
    },
    /// No event table for this CPU.
    #[error("unsupported CPU {cpu}: no event table for it (supported: {supported}); count elsewhere and use --import FILE --cpu NAME")]
    UnsupportedCpu {
        /// The CPU (`GenuineIntel-6-1A-5`, with a name when known).
        cpu: String,
        /// Comma-separated supported uarchs.
        supported: String,
    },
    /// An event could not be opened.
    #[error("cannot open event {event} ({encoding}): {text} (errno {errno})")]
    EventOpen {
        /// Event name.
        event: String,
        /// Its encoding as perf would spell it.
        encoding: String,
        /// The errno.
        errno: i32,
        /// The errno text.
        text: String,
    },
    /// The event plan cannot be built (no tree, event without encoding, unschedulable event ...).
    #[error("{0}")]
    Plan(String),
    /// An import file is malformed.
    #[error("{file}:{line}: {msg}")]
    Import {
        /// The file.
        file: String,
        /// 1-based line (0: the whole file).
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// Reading a file, starting a command or a system call failed.
    #[error("{0}")]
    Io(String),
}

fn paranoid_message(current: Option<i32>, scope: Scope) -> String {
    let needed = scope.paranoid_needed();
    let cur = current.map(|c| c.to_string()).unwrap_or_else(|| "unreadable".into());
    format!(
        "permission denied opening hardware counters: /proc/sys/kernel/perf_event_paranoid is {cur}, {} needs ≤ {needed} (run `sudo sysctl kernel.perf_event_paranoid={needed}`, or run as root or with CAP_PERFMON)",
        scope.what()
    )
}

/// The text of an errno (`No such file or directory`).
pub fn errno_text(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    // "No such file or directory (os error 2)" → without the suffix.
    match s.rfind(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// What the machine says about its counters (read from /proc and /sys, or scripted in tests).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SysInfo {
    /// `/proc/sys/kernel/perf_event_paranoid`.
    pub paranoid: Option<i32>,
    /// PMUs under `/sys/bus/event_source/devices` (`cpu`, `cpu_core`, `msr`, `software` ...).
    pub pmus: Vec<String>,
    /// Running as root (paranoid does not apply).
    pub root: bool,
}

impl SysInfo {
    /// Reads the real machine's settings.
    pub fn probe() -> SysInfo {
        let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").ok().and_then(|s| s.trim().parse().ok());
        let mut pmus: Vec<String> = std::fs::read_dir("/sys/bus/event_source/devices")
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        pmus.sort();
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        SysInfo { paranoid, pmus, root }
    }

    /// Whether a core PMU (`cpu`, or `cpu_core`/`cpu_atom` on hybrid parts) is exposed.
    pub fn has_core_pmu(&self) -> bool {
        self.pmus.iter().any(|p| p == "cpu" || p == "cpu_core" || p == "cpu_atom")
    }

    /// Whether the paranoid setting forbids `scope` (root is never forbidden).
    pub fn forbids(&self, scope: Scope) -> bool {
        !self.root && self.paranoid.is_some_and(|p| p > scope.paranoid_needed())
    }
}

/// Maps an errno from opening `event` (encoded as `encoding`) to an error.
/// `hardware_probe` is set when the event is the first hardware event tried
/// (ENOENT/EOPNOTSUPP/ENODEV there mean that no PMU is exposed).
pub fn classify_open_error(errno: i32, event: &str, encoding: &str, scope: Scope, sys: &SysInfo, hardware_probe: bool) -> CountersError {
    match errno {
        libc::EACCES | libc::EPERM => CountersError::Paranoid { current: sys.paranoid, scope },
        libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV if hardware_probe || !sys.has_core_pmu() => CountersError::NoPmu,
        _ => CountersError::EventOpen { event: event.into(), encoding: encoding.into(), errno, text: errno_text(errno) },
    }
}

/// A warning (multiplexing, skipped events ...), shown on stderr and in JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning(pub String);

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line() {
        let sys = SysInfo { paranoid: Some(2), pmus: vec!["cpu".into()], root: false };
        let e = classify_open_error(libc::EACCES, "cycles", "cpu/event=0x3c/", Scope::SystemWide, &sys, false);
        let m = e.to_string();
        assert!(m.contains("/proc/sys/kernel/perf_event_paranoid is 2") && m.contains("≤ 0") && m.contains("kernel.perf_event_paranoid=0"), "{m}");
        assert!(!m.contains('\n'));
        let e = classify_open_error(libc::EINVAL, "X", "cpu/event=0x1/", Scope::ProcessUser, &sys, false);
        assert_eq!(e.to_string(), "cannot open event X (cpu/event=0x1/): Invalid argument (errno 22)");
        let none = SysInfo { paranoid: Some(2), pmus: vec!["software".into()], root: false };
        assert_eq!(classify_open_error(libc::ENOENT, "X", "", Scope::ProcessUser, &none, false), CountersError::NoPmu);
        assert!(sys.forbids(Scope::SystemWide) && !sys.forbids(Scope::ProcessUser));
    }
}
