//! Process control: how QEMU (and so the guest) ended, with signal names,
//! and a pidfd killer usable from any thread.

use std::fmt;
use std::io;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use super::error::QemuError;

/// How QEMU (and so the guest) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestExit {
    /// Normal exit with this code.
    Code(i32),
    /// Killed by a signal (QEMU re-raises the guest's fatal signal on itself).
    Signal { signal: i32, core_dumped: bool },
}

impl GuestExit {
    pub fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(c), _) => GuestExit::Code(c),
            (None, Some(s)) => GuestExit::Signal {
                signal: s,
                core_dumped: status.core_dumped(),
            },
            // Stopped/continued statuses are not returned by wait().
            (None, None) => GuestExit::Code(-1),
        }
    }

    pub fn success(&self) -> bool {
        *self == GuestExit::Code(0)
    }

    pub fn code(&self) -> Option<i32> {
        match *self {
            GuestExit::Code(c) => Some(c),
            GuestExit::Signal { .. } => None,
        }
    }

    pub fn signal(&self) -> Option<i32> {
        match *self {
            GuestExit::Code(_) => None,
            GuestExit::Signal { signal, .. } => Some(signal),
        }
    }
}

impl From<ExitStatus> for GuestExit {
    fn from(s: ExitStatus) -> Self {
        GuestExit::from_status(s)
    }
}

impl fmt::Display for GuestExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GuestExit::Code(c) => write!(f, "exited with code {c}"),
            GuestExit::Signal {
                signal,
                core_dumped,
            } => {
                write!(f, "killed by signal {signal}")?;
                if let Some(name) = signal_name(signal) {
                    write!(f, " ({name})")?;
                }
                if core_dumped {
                    write!(f, ", core dumped")?;
                }
                Ok(())
            }
        }
    }
}

fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// Kills one process from any thread: a pidfd, so a reaped process's pid
/// that the system gave to another never gets the signal.
#[derive(Debug)]
pub struct Killer(std::os::fd::OwnedFd);

impl Killer {
    pub fn of(pid: u32) -> Result<Self, QemuError> {
        // SAFETY: pidfd_open(2) returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        if fd < 0 {
            return Err(QemuError::Io {
                context: format!("cannot watch process {pid}"),
                source: io::Error::last_os_error(),
            });
        }
        // SAFETY: a descriptor we just got and own.
        Ok(Killer(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd as i32) }))
    }

    /// Sends SIGKILL (nothing happens if the process is already gone).
    pub fn kill(&self) {
        // SAFETY: pidfd_send_signal(2) on our own descriptor.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.0.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
    }

    /// Whether the process has ended (the pidfd is readable then).
    pub fn ended(&self) -> bool {
        let mut p = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll(2) on one descriptor, no waiting.
        unsafe { libc::poll(&mut p, 1, 0) > 0 }
    }
}
