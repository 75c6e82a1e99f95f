//! The hub: a Unix socket in a private directory where the plugin of every
//! process a traced program starts announces itself, so that children are
//! traced too (`perf stat`'s default).
//!
//! Under QEMU user mode a guest fork forks QEMU, plugin state included; the
//! plugin's `pthread_atfork` child handler then connects here with a trace
//! of its own (the parent's is not the child's to write), and replays the
//! block definitions it inherited. A guest execve would run the new program
//! natively; the plugin's syscall callback execs `qemu-x86_64 -plugin ...`
//! on it instead, and that QEMU's plugin connects here as the exec'd image.
//!
//! A connection starts with one message, its shared memory file attached
//! (SCM_RIGHTS): `b"BNHB"`, u8 origin (1 fork, 2 exec), u32 pid, u32 parent
//! pid, u32 length, then the command (NUL-separated words). The connection
//! then carries the shared memory transport's messages (see `shm`).

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::QemuError;
use super::process::Killer;
use super::runner::TraceStream;
use super::shm::ShmStream;

use bottlenose_trace_format::transport::HUB_MAGIC;
use bottlenose_trace_format::transport::{HubOrigin, HUB_HELLO_LEN as HELLO_LEN};
/// Longest command a hello may carry.
const MAX_COMMAND: usize = 64 * 1024;

/// How a process came to be traced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The program bottlenose started.
    Start,
    /// A fork (or vfork, clone without CLONE_VM) of a traced process.
    Fork,
    /// A traced process exec'd a new program.
    Exec,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Start => "start",
            Origin::Fork => "fork",
            Origin::Exec => "exec",
        }
    }
}

/// The listening socket; removed with its directory when dropped.
#[derive(Debug)]
pub struct Hub {
    listener: UnixListener,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

/// A process that connected, with its trace.
#[derive(Debug)]
pub struct ChildTrace {
    pub pid: u32,
    pub parent: u32,
    pub origin: Origin,
    /// For an exec: the program and its arguments; empty for a fork.
    pub command: Vec<String>,
    pub stream: TraceStream,
    /// The connection, to cut the trace of a process still running at the end.
    pub control: UnixStream,
    /// Kills the process (None if it was already gone).
    pub killer: Option<Killer>,
}

impl Hub {
    pub fn new() -> Result<Hub, QemuError> {
        let io_err = |source| QemuError::Io { context: "cannot create the trace hub".into(), source };
        let dir = tempfile::Builder::new().prefix("bottlenose-").tempdir().map_err(io_err)?;
        let path = dir.path().join("hub");
        let listener = UnixListener::bind(&path).map_err(io_err)?;
        listener.set_nonblocking(true).map_err(io_err)?;
        Ok(Hub { listener, path, _dir: dir })
    }

    /// The socket's path (the plugin's `hub=` argument).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits up to `timeout` for a process to connect; its trace, or None.
    pub fn accept(&self, timeout: Duration) -> Result<Option<ChildTrace>, QemuError> {
        let mut p = libc::pollfd { fd: self.listener.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: poll(2) on one descriptor.
        let ready = unsafe { libc::poll(&mut p, 1, timeout.as_millis().min(i32::MAX as u128) as i32) };
        if ready <= 0 {
            return Ok(None);
        }
        let sock = match self.listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) => return Err(QemuError::Io { context: "trace hub".into(), source: e }),
        };
        let bad = |m: &str| QemuError::Io {
            context: "a traced child's hello".into(),
            source: io::Error::new(io::ErrorKind::InvalidData, m.to_string()),
        };
        sock.set_nonblocking(false).map_err(|e| QemuError::Io { context: "trace hub".into(), source: e })?;
        sock.set_read_timeout(Some(Duration::from_secs(5))).ok();
        let (hello, shm) = recv_with_fd(&sock).map_err(|e| QemuError::Io { context: "a traced child's hello".into(), source: e })?;
        let shm = shm.ok_or_else(|| bad("no shared memory attached"))?;
        if hello[..4] != HUB_MAGIC[..] {
            return Err(bad("not a bottlenose plugin"));
        }
        let origin = match HubOrigin::from_byte(hello[4]) {
            Some(HubOrigin::Fork) => Origin::Fork,
            Some(HubOrigin::Exec) => Origin::Exec,
            None => return Err(bad("unknown origin")),
        };
        let word = |i: usize| u32::from_le_bytes(hello[i..i + 4].try_into().unwrap());
        let (pid, parent, len) = (word(5), word(9), word(13) as usize);
        if len > MAX_COMMAND {
            return Err(bad("command too long"));
        }
        let mut command = vec![0u8; len];
        (&sock).read_exact(&mut command).map_err(|e| QemuError::Io { context: "a traced child's hello".into(), source: e })?;
        sock.set_read_timeout(None).ok();
        let command = command.split(|b| *b == 0).filter(|w| !w.is_empty()).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
        let control = sock.try_clone().map_err(|e| QemuError::Io { context: "trace hub".into(), source: e })?;
        let stream = ShmStream::new(sock, &shm).map_err(|e| QemuError::Io { context: "a traced child's shared memory".into(), source: e })?;
        Ok(Some(ChildTrace {
            pid,
            parent,
            origin,
            command,
            stream: TraceStream::shm(stream),
            control,
            killer: Killer::of(pid).ok(),
        }))
    }
}

/// Reads the fixed part of a hello and the descriptor sent with it.
fn recv_with_fd(sock: &UnixStream) -> io::Result<([u8; HELLO_LEN], Option<OwnedFd>)> {
    let mut hello = [0u8; HELLO_LEN];
    let mut fd = None;
    let mut got = 0;
    while got < HELLO_LEN {
        let mut iov = libc::iovec { iov_base: hello[got..].as_mut_ptr().cast(), iov_len: HELLO_LEN - got };
        // room for one descriptor
        let mut cbuf = [0u64; 8];
        // SAFETY: a zeroed msghdr pointing at our buffers.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&cbuf);
        // SAFETY: recvmsg(2) into the buffers above.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed"));
        }
        // SAFETY: walking the control messages the kernel wrote.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS && fd.is_none() {
                    let raw = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const i32);
                    fd = Some(OwnedFd::from_raw_fd(raw));
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        got += n as usize;
    }
    Ok((hello, fd))
}
