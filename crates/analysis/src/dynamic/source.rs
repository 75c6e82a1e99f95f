//! Where a process's trace comes from, and stopping the process behind it.

use bottlenose_trace::{read_stream, trace_run, GuestExit, ProcessEvents, QemuError, QemuRun, StreamSummary, TraceStream, TraceVisitor};

/// Where a process's trace comes from.
pub(super) enum Source {
    /// The program bottlenose started: QEMU is our child, stopped by SIGKILL
    /// when the run stops it.
    Root(QemuRun),
    /// A process that connected to the hub; when the run stops simulating it,
    /// it runs on untraced.
    Child(TraceStream),
}


impl Source {
    /// Reads the whole trace into `visitor`: how the process ended (`None` for
    /// a child, whose end is in its stream's events) and what the stream held.
    pub(super) fn read<V: TraceVisitor>(self, visitor: &mut V) -> Result<(Option<GuestExit>, StreamSummary), QemuError> {
        match self {
            Source::Root(run) => trace_run(run, visitor).map(|(exit, summary)| (Some(exit), summary)),
            // a child's trace ends with END, an exec, or its death (mid-record when killed)
            Source::Child(trace) => match read_stream(trace, visitor) {
                Ok(s) => Ok((None, s)),
                Err(QemuError::Truncated { .. }) => Ok((None, StreamSummary { started: true, ..Default::default() })),
                Err(e) => Err(e),
            },
        }
    }
}

/// Stops the process behind a trace once the run stops simulating it: QEMU,
/// our child, by SIGKILL; a process that connected to the hub runs on untraced.
pub(super) struct Stopper {
    pid: Option<libc::pid_t>,
    /// The run stopped the process (or stopped listening to it).
    pub(super) stopped: bool,
}

impl Stopper {
    pub(super) fn of(source: &Source) -> Self {
        let pid = match source {
            Source::Root(run) => Some(run.id() as libc::pid_t),
            Source::Child(_) => None,
        };
        Stopper { pid, stopped: false }
    }

    /// Whether the process is bottlenose's own child (the program it started).
    pub(super) fn is_root(&self) -> bool {
        self.pid.is_some()
    }

    pub(super) fn stop(&mut self) {
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
pub(super) struct Ending {
    /// Why the report is partial (`None`: complete).
    pub(super) stop_reason: Option<String>,
    pub(super) exit_text: String,
    pub(super) exit_code: Option<i32>,
    pub(super) signal: Option<i32>,
}

/// Says why a run that is not `complete` stopped, and how the process exited.
pub(super) fn ending(complete: bool, interrupted: bool, limit_hit: bool, events: &ProcessEvents, exit: &GuestExit, stopper: &Stopper) -> Ending {
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
