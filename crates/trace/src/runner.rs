//! Running a program under QEMU with the trace stream on an inherited
//! descriptor ([`QemuCommand`], [`QemuRun`]) and reading it to the end.
//! Finding QEMU, the plugin and the program is `locate.rs`; how the run ended
//! and killing it, `process.rs`.

use bottlenose_decode::Isa;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::error::QemuError;
use super::insn::{ExecutedInsn, InstructionStream};
use super::locate::{aarch64_sysroot, find_plugin, find_qemu_for, program_isa, resolve_command};
use super::process::{GuestExit, Killer};
use super::shm::{create_shm, ShmStream};
use super::pull::ProcessTrace;
use super::stream::{StreamSummary, TraceVisitor};

/// File name of the plugin shared object.
pub const PLUGIN_FILE_NAME: &str = "libbottlenose_qemu_plugin.so";
/// Descriptor QEMU gets the stream socket on (the plugin's `fd=` argument).
pub const STREAM_FD: i32 = 3;
/// Descriptor QEMU gets the shared memory file on (the plugin's `shm=`
/// argument); the plugin maps and closes it at start-up.
pub const SHM_FD: i32 = 4;

/// A program running under `qemu-x86_64` with the bottlenose plugin.
///
/// Its stdin, stdout and stderr are this process's unless [`QemuCommand`]
/// said otherwise. The trace arrives on [`QemuRun::take_stream`], to be read
/// with [`read_stream`](crate::read_stream) while the program runs (the
/// plugin waits when the reader falls behind). If the reader drops the
/// stream early, the plugin stops writing and the program runs on
/// untraced. Dropping a `QemuRun` that was not waited for kills QEMU.
#[derive(Debug)]
pub struct QemuRun {
    child: Child,
    stream: Option<TraceStream>,
    qemu: PathBuf,
    waited: bool,
}

impl Drop for QemuRun {
    fn drop(&mut self) {
        if !self.waited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The reading end of a run's trace stream: pass it to
/// [`read_stream`](crate::read_stream). Dropping it tells the plugin to stop
/// writing (the program then runs on untraced).
#[derive(Debug)]
pub struct TraceStream(Transport);

#[derive(Debug)]
enum Transport {
    Socket(UnixStream),
    Shm(ShmStream),
    Recorded(Recorded),
}

/// A trace read from anywhere else: a file the plugin wrote (`fd=3` with
/// `3>trace`), or bytes a test made.
struct Recorded(Box<dyn Read + Send>);

impl std::fmt::Debug for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recorded")
    }
}

impl TraceStream {
    pub(crate) fn shm(s: ShmStream) -> Self {
        TraceStream(Transport::Shm(s))
    }

    /// A recorded trace (a file the plugin wrote, or bytes in the wire
    /// format), read as a process's stream; nobody answers its pauses.
    pub fn recorded(reader: impl Read + Send + 'static) -> Self {
        TraceStream(Transport::Recorded(Recorded(Box::new(reader))))
    }

    /// Where the answers to the plugin's pauses go (shared memory transport only).
    pub(crate) fn answerer(&self) -> Option<super::shm::Answerer> {
        match &self.0 {
            Transport::Shm(s) => s.answerer().ok(),
            Transport::Socket(_) | Transport::Recorded(_) => None,
        }
    }
}

impl Read for TraceStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.0 {
            Transport::Socket(s) => match s.read(buf) {
                // QEMU died: end of the stream, as for a pipe.
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => Ok(0),
                r => r,
            },
            Transport::Shm(s) => s.read(buf),
            Transport::Recorded(r) => r.0.read(buf),
        }
    }
}

/// Builder for a [`QemuRun`], for when the defaults of [`QemuRun::spawn`]
/// (QEMU and plugin found automatically, stdio inherited) do not fit.
#[derive(Debug)]
pub struct QemuCommand {
    program: PathBuf,
    args: Vec<OsString>,
    qemu: Option<PathBuf>,
    plugin: Option<PathBuf>,
    stdin: Option<Stdio>,
    stdout: Option<Stdio>,
    stderr: Option<Stdio>,
    shared_memory: bool,
    hub: Option<PathBuf>,
    cpu: Option<String>,
    first_pause: Option<u64>,
}

impl QemuCommand {
    pub fn new(program: impl AsRef<Path>) -> Self {
        QemuCommand {
            program: program.as_ref().to_path_buf(),
            args: Vec::new(),
            qemu: None,
            plugin: None,
            stdin: None,
            stdout: None,
            stderr: None,
            shared_memory: true,
            hub: None,
            cpu: None,
            first_pause: None,
        }
    }

    /// Transport of the stream: shared memory (the default; nothing the
    /// plugin wrote is lost if QEMU dies by a signal), or plain writes to
    /// the socket (what was buffered is then lost).
    pub fn shared_memory(&mut self, on: bool) -> &mut Self {
        self.shared_memory = on;
        self
    }

    /// Trace the processes the program starts (forks and execs) through
    /// this [`Hub`](crate::Hub)'s socket.
    pub fn hub(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.hub = Some(path.as_ref().to_path_buf());
        self
    }

    /// Fast-forward: the plugin pauses after `first_pause` instructions and
    /// then does what the visitor's `pause` answers (skip, then stream in
    /// full). Needs the shared memory transport.
    pub fn fast_forward(&mut self, first_pause: u64) -> &mut Self {
        self.first_pause = Some(first_pause);
        self
    }

    /// QEMU's `-cpu` model and properties (`neoverse-n1`, `max,sve128=on`).
    pub fn cpu(&mut self, model: impl Into<String>) -> &mut Self {
        self.cpu = Some(model.into());
        self
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// QEMU binary to use instead of [`find_qemu`](crate::find_qemu)'s.
    pub fn qemu(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.qemu = Some(path.as_ref().to_path_buf());
        self
    }

    /// Plugin to use instead of [`find_plugin`]'s.
    pub fn plugin(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.plugin = Some(path.as_ref().to_path_buf());
        self
    }

    /// The program's stdin (inherited by default).
    pub fn stdin(&mut self, cfg: Stdio) -> &mut Self {
        self.stdin = Some(cfg);
        self
    }

    /// The program's stdout (inherited by default).
    pub fn stdout(&mut self, cfg: Stdio) -> &mut Self {
        self.stdout = Some(cfg);
        self
    }

    /// The program's (and QEMU's) stderr (inherited by default).
    pub fn stderr(&mut self, cfg: Stdio) -> &mut Self {
        self.stderr = Some(cfg);
        self
    }

    /// Checks the program, finds QEMU and the plugin, and starts it.
    pub fn spawn(&mut self) -> Result<QemuRun, QemuError> {
        let (program, args) = resolve_command(&self.program, &self.args)?;
        let (program, isa) = program_isa(&program)?;
        let qemu = match &self.qemu {
            Some(q) => q.clone(),
            None => find_qemu_for(isa)?,
        };
        let plugin = match &self.plugin {
            Some(p) => p.clone(),
            None => find_plugin()?,
        };
        let io_err = |context: &str, source| QemuError::Io {
            context: context.to_string(),
            source,
        };
        // Everything is created close-on-exec; `pre_exec` dup2s the child's
        // ends onto STREAM_FD (and SHM_FD), which clears the flag on them.
        let (ours, theirs) =
            UnixStream::pair().map_err(|e| io_err("cannot create the trace socket", e))?;
        let shm = if self.shared_memory {
            Some(create_shm().map_err(|e| io_err("cannot create the trace shared memory", e))?)
        } else {
            None
        };
        let theirs_fd = theirs.as_raw_fd();
        let shm_fd = shm.as_ref().map(|f| f.as_raw_fd());
        let stream = match &shm {
            Some(f) => TraceStream(Transport::Shm(
                ShmStream::new(ours, f)
                    .map_err(|e| io_err("cannot map the trace shared memory", e))?,
            )),
            None => TraceStream(Transport::Socket(ours)),
        };

        // QEMU's option syntax doubles commas inside a value.
        let escaped = |p: &Path| -> Vec<u8> {
            p.as_os_str().as_bytes().iter().flat_map(|&b| if b == b',' { vec![b, b] } else { vec![b] }).collect()
        };
        let mut plugin_arg = escaped(&plugin);
        plugin_arg.extend_from_slice(format!(",fd={STREAM_FD}").as_bytes());
        if shm.is_some() {
            plugin_arg.extend_from_slice(format!(",shm={SHM_FD}").as_bytes());
            if let Some(n) = self.first_pause {
                plugin_arg.extend_from_slice(format!(",pause={n}").as_bytes());
            }
        }
        if let Some(hub) = &self.hub {
            plugin_arg.extend_from_slice(b",hub=");
            plugin_arg.extend_from_slice(&escaped(hub));
        }

        let mut cmd = Command::new(&qemu);
        if let Some(root) = aarch64_sysroot().filter(|_| isa == Isa::Aarch64) {
            cmd.arg("-L").arg(root);
        }
        if let Some(cpu) = &self.cpu {
            cmd.arg("-cpu").arg(cpu);
        }
        cmd.arg("-plugin")
            .arg(OsString::from_vec(plugin_arg))
            .arg(&program)
            .args(&args);
        if let Some(s) = self.stdin.take() {
            cmd.stdin(s);
        }
        if let Some(s) = self.stdout.take() {
            cmd.stdout(s);
        }
        if let Some(s) = self.stderr.take() {
            cmd.stderr(s);
        }
        // QEMU dies with us: a SIGKILLed bottlenose (OOM killer, `pkill`) cannot stop it, and
        // it would run on, or block forever on a trace nobody reads. The signal comes when the
        // *thread* that forked exits, so spawn from a thread that outlives the run (every caller
        // waits for the child before its thread returns).
        // SAFETY: getpid only reads our own pid.
        let parent = unsafe { libc::getpid() };
        // SAFETY: only async-signal-safe calls (fcntl, dup2, prctl, getppid) between fork
        // and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) < 0 {
                    return Err(io::Error::last_os_error());
                }
                // we may have died between fork and prctl
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                // Move both out of the way first (copies are close-on-exec),
                // so neither target clobbers the other's source.
                let sock = libc::fcntl(theirs_fd, libc::F_DUPFD_CLOEXEC, 10);
                if sock < 0 {
                    return Err(io::Error::last_os_error());
                }
                let mem = match shm_fd {
                    Some(m) => {
                        let m = libc::fcntl(m, libc::F_DUPFD_CLOEXEC, 10);
                        if m < 0 {
                            return Err(io::Error::last_os_error());
                        }
                        Some(m)
                    }
                    None => None,
                };
                if libc::dup2(sock, STREAM_FD) < 0 {
                    return Err(io::Error::last_os_error());
                }
                if let Some(m) = mem {
                    if libc::dup2(m, SHM_FD) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(|e| QemuError::Spawn {
            qemu: qemu.clone(),
            source: e,
        })?;
        drop(theirs);
        drop(shm);
        Ok(QemuRun {
            child,
            stream: Some(stream),
            qemu,
            waited: false,
        })
    }
}

impl QemuRun {
    /// Runs `program` with `args`, stdio inherited, using [`find_qemu`](crate::find_qemu) and
    /// [`find_plugin`]. See [`QemuCommand`] for more control.
    pub fn spawn(program: &Path, args: &[OsString]) -> Result<Self, QemuError> {
        QemuCommand::new(program).args(args).spawn()
    }

    /// The read end of the trace stream (once).
    pub fn take_stream(&mut self) -> Option<TraceStream> {
        self.stream.take()
    }

    /// QEMU's stdout when [`QemuCommand::stdout`] asked for a pipe.
    pub fn take_stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.child.stdout.take()
    }

    /// QEMU's stdin when [`QemuCommand::stdin`] asked for a pipe.
    pub fn take_stdin(&mut self) -> Option<std::process::ChildStdin> {
        self.child.stdin.take()
    }

    /// Process id of QEMU (which is the guest process).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The QEMU binary that runs the program.
    pub fn qemu(&self) -> &Path {
        &self.qemu
    }

    /// A handle that kills this QEMU from any thread, safe against the pid
    /// being reused once QEMU is reaped (a pidfd).
    pub fn killer(&self) -> Result<Killer, QemuError> {
        Killer::of(self.child.id())
    }

    /// Kills QEMU (and so the program) with SIGKILL.
    pub fn kill(&mut self) -> Result<(), QemuError> {
        self.child.kill().map_err(|e| QemuError::Io {
            context: "cannot kill qemu-x86_64".to_string(),
            source: e,
        })
    }

    /// Closes our end of the stream if still held, and waits for QEMU.
    pub fn wait(mut self) -> Result<GuestExit, QemuError> {
        self.stream = None;
        let status = self.child.wait().map_err(|e| QemuError::Io {
            context: "waiting for qemu-x86_64".to_string(),
            source: e,
        })?;
        self.waited = true;
        Ok(GuestExit::from_status(status))
    }
}

/// What [`run_program`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOutcome {
    pub exit: GuestExit,
    /// Executed instructions emitted to the callback.
    pub instructions: u64,
    /// The stream ended with END (the plugin's exit hook ran). False when
    /// QEMU died without it; everything up to that point was still parsed.
    pub complete: bool,
    pub stream: StreamSummary,
}

/// Runs `program` under QEMU and feeds every record to `visitor` while it
/// runs; returns how the program ended and what the stream held.
///
/// A stream without END (QEMU killed, or the guest killed by a signal) is
/// not an error: the summary says `complete: false`, and a record cut off by
/// the death is dropped. A stream without any executed block means QEMU
/// failed before the program ran ([`QemuError::QemuFailed`]). If the
/// stream is corrupt, QEMU is killed and the error returned.
pub fn run_program_with<V: TraceVisitor + ?Sized>(
    program: &Path,
    args: &[OsString],
    visitor: &mut V,
) -> Result<(GuestExit, StreamSummary), QemuError> {
    trace_run(QemuRun::spawn(program, args)?, visitor)
}

/// Reads the whole stream of a started run into `visitor`, then waits for
/// QEMU; see [`run_program_with`].
pub fn trace_run<V: TraceVisitor + ?Sized>(
    run: QemuRun,
    visitor: &mut V,
) -> Result<(GuestExit, StreamSummary), QemuError> {
    let (exit, summary) = ProcessTrace::root(run).read_all(visitor)?;
    Ok((exit.expect("the program we started has an exit"), summary))
}

/// Runs `program` under QEMU and calls `on_insn` once per executed
/// instruction (see [`InstructionStream`]).
pub fn run_program(
    program: &Path,
    args: &[OsString],
    on_insn: impl FnMut(&ExecutedInsn<'_>),
) -> Result<RunOutcome, QemuError> {
    let mut insns = InstructionStream::new(on_insn);
    let (exit, stream) = run_program_with(program, args, &mut insns)?;
    if !stream.complete {
        insns.finish();
    }
    Ok(RunOutcome {
        exit,
        instructions: insns.executed(),
        complete: stream.complete,
        stream,
    })
}
