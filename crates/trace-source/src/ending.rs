//! Stopping the process behind a trace, and how its run ended.

use bottlenose_trace::{GuestExit, ProcessEvents, ProcessTrace};

/// Stops the process behind a trace once the run stops simulating it: QEMU,
/// our child, by SIGKILL; a process that connected to the hub runs on untraced.
pub(crate) struct Stopper {
    pid: Option<libc::pid_t>,
    /// The run stopped the process (or stopped listening to it).
    pub(crate) stopped: bool,
}

impl Stopper {
    pub(crate) fn of(trace: &ProcessTrace) -> Self {
        Stopper { pid: trace.root_pid().map(|p| p as libc::pid_t), stopped: false }
    }

    /// Whether the process is bottlenose's own child (the program it started).
    pub(crate) fn is_root(&self) -> bool {
        self.pid.is_some()
    }

    pub(crate) fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        if let Some(pid) = self.pid {
            // SAFETY: plain kill(2) of our own child process.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// How a process's run ended, as the report says it.
pub struct Ending {
    /// Why the report is partial (`None`: complete).
    pub stop_reason: Option<String>,
    pub exit_text: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
}

/// Says why a run that is not `complete` stopped, and how the process exited.
pub(crate) fn ending(complete: bool, interrupted: bool, limit_hit: bool, events: &ProcessEvents, exit: &GuestExit, stopper: &Stopper) -> Ending {
    let stop_reason = if complete {
        None
    } else if interrupted {
        Some("interrupted".to_string())
    } else if limit_hit {
        Some("instruction limit".to_string())
    } else if let Some(program) = &events.exec {
        Some(format!("exec'd {program} (traced as a process of its own)"))
    } else if exit.signal().is_some_and(|s| s > 0) {
        Some(exit.to_string())
    } else if !stopper.is_root() {
        Some("trace ended early (killed, or still running when the first process ended)".to_string())
    } else {
        Some("trace ended early (the program called exec, or QEMU died)".to_string())
    };
    // a program we stopped ourselves did not fail: don't report our SIGKILL as its status
    let (exit_text, exit_code, signal) = if stopper.stopped {
        (format!("stopped by bottlenose ({})", stop_reason.as_deref().unwrap_or("")), None, None)
    } else if exit.signal() == Some(0) {
        (stop_reason.clone().unwrap_or_default(), None, None)
    } else {
        (exit.to_string(), exit.code(), exit.signal())
    };
    Ending { stop_reason, exit_text, exit_code, signal }
}
