//! A child process started *stopped before exec*, so that counters can be
//! opened on its pid (with `enable_on_exec`) before it runs: fork, the child
//! waits on a pipe, the parent opens the counters and then releases it; exec
//! failures come back through a close-on-exec pipe. The child's stdin, stdout
//! and stderr are this process's.

use crate::errors::CountersError;
use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A forked child waiting for [`StoppedChild::release`].
pub struct StoppedChild {
    /// Its pid.
    pub pid: i32,
    go: i32,
    err: i32,
    program: String,
    reaped: bool,
}

fn find_program(p: &OsString) -> Option<PathBuf> {
    let path = Path::new(p);
    if p.as_bytes().contains(&b'/') {
        return Some(path.to_path_buf());
    }
    let dirs = std::env::var_os("PATH")?;
    std::env::split_paths(&dirs).map(|d| d.join(path)).find(|c| {
        use std::os::unix::fs::PermissionsExt;
        c.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

fn pipe() -> Result<[i32; 2], CountersError> {
    let mut fds = [0i32; 2];
    // SAFETY: fds has room for two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(CountersError::Io(format!("pipe: {}", std::io::Error::last_os_error())));
    }
    Ok(fds)
}

/// Exit status as a shell reports it (128 + signal for a killed child).
fn decode_status(status: i32) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

impl StoppedChild {
    /// Forks `cmd` (program and arguments) stopped before exec.
    pub fn spawn(cmd: &[OsString]) -> Result<StoppedChild, CountersError> {
        let first = cmd.first().ok_or_else(|| CountersError::Io("no command given".into()))?;
        let program = first.to_string_lossy().into_owned();
        let path = find_program(first).ok_or_else(|| CountersError::Io(format!("cannot run '{program}': command not found")))?;
        let cpath = CString::new(path.as_os_str().as_bytes()).map_err(|_| CountersError::Io(format!("cannot run '{program}': NUL in path")))?;
        let args: Vec<CString> = cmd.iter().map(|a| CString::new(a.as_bytes())).collect::<Result<_, _>>().map_err(|_| CountersError::Io(format!("cannot run '{program}': NUL in an argument")))?;
        let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let go = pipe()?;
        let err = pipe()?;
        // SAFETY: after fork the child only calls async-signal-safe functions
        // (close, read, execv, write, _exit) on data prepared before the fork.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(CountersError::Io(format!("fork: {}", std::io::Error::last_os_error())));
        }
        if pid == 0 {
            unsafe {
                libc::close(go[1]);
                libc::close(err[0]);
                let mut b = 0u8;
                while libc::read(go[0], &mut b as *mut u8 as *mut libc::c_void, 1) < 0 && *libc::__errno_location() == libc::EINTR {}
                libc::execv(cpath.as_ptr(), argv.as_ptr());
                let e: i32 = *libc::__errno_location();
                libc::write(err[1], &e as *const i32 as *const libc::c_void, 4);
                libc::_exit(127);
            }
        }
        // SAFETY: closing our copies of the child's ends.
        unsafe {
            libc::close(go[0]);
            libc::close(err[1]);
        }
        Ok(StoppedChild { pid, go: go[1], err: err[0], program, reaped: false })
    }

    /// Lets the child exec; an error if exec failed.
    pub fn release(&mut self) -> Result<(), CountersError> {
        let b = 1u8;
        let mut e: i32 = 0;
        // SAFETY: go/err are our pipe ends; e has room for 4 bytes.
        let n = unsafe {
            libc::write(self.go, &b as *const u8 as *const libc::c_void, 1);
            libc::close(self.go);
            self.go = -1;
            let n = libc::read(self.err, &mut e as *mut i32 as *mut libc::c_void, 4);
            libc::close(self.err);
            self.err = -1;
            n
        };
        if n == 4 {
            self.wait();
            return Err(CountersError::Io(format!("cannot run '{}': {}", self.program, crate::errors::errno_text(e))));
        }
        Ok(())
    }

    /// Waits for the child; its exit status.
    pub fn wait(&mut self) -> i32 {
        self.wait_opt(true).unwrap_or(1)
    }

    /// The exit status if the child has exited (does not block).
    pub fn try_wait(&mut self) -> Option<i32> {
        self.wait_opt(false)
    }

    fn wait_opt(&mut self, block: bool) -> Option<i32> {
        if self.reaped {
            return None;
        }
        let mut status = 0;
        loop {
            // SAFETY: status is a valid out-pointer.
            let r = unsafe { libc::waitpid(self.pid, &mut status, if block { 0 } else { libc::WNOHANG }) };
            if r == self.pid {
                self.reaped = true;
                return Some(decode_status(status));
            }
            if r == 0 {
                return None;
            }
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                self.reaped = true;
                return Some(1);
            }
        }
    }

    /// Kills and reaps the child (when counters could not be opened).
    pub fn kill(mut self) {
        // SAFETY: signalling and reaping our own child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
        }
        self.wait();
    }
}

impl Drop for StoppedChild {
    fn drop(&mut self) {
        // An unreleased child would exec on EOF: kill it first.
        let unreleased = self.go >= 0;
        // SAFETY: signalling our own child and closing descriptors we own.
        unsafe {
            if unreleased && !self.reaped {
                libc::kill(self.pid, libc::SIGKILL);
            }
            if self.go >= 0 {
                libc::close(self.go);
            }
            if self.err >= 0 {
                libc::close(self.err);
            }
        }
        if !self.reaped {
            self.wait();
        }
    }
}
