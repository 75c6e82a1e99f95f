//! Finding QEMU and the plugin, checking the program, and running it with
//! the trace stream on an inherited descriptor.

use bottlenose_decode::Isa;
use std::env;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use object::read::elf::FileHeader;

use super::error::QemuError;
use super::insn::{ExecutedInsn, InstructionStream};
use super::shebang::{read_shebang, script_command, MAX_DEPTH};
use super::shm::{create_shm, ShmStream};
use super::stream::{read_stream_into, StreamSummary, TraceVisitor};

/// File name of the plugin shared object.
pub const PLUGIN_FILE_NAME: &str = "libbottlenose_qemu_plugin.so";
/// Descriptor QEMU gets the stream socket on (the plugin's `fd=` argument).
pub const STREAM_FD: i32 = 3;
/// Descriptor QEMU gets the shared memory file on (the plugin's `shm=`
/// argument); the plugin maps and closes it at start-up.
pub const SHM_FD: i32 = 4;

/// Locates `qemu-x86_64`: `$BOTTLENOSE_QEMU` (a path, or a name looked up
/// on PATH) if set and not empty, else `qemu-x86_64` on PATH.
pub fn find_qemu() -> Result<PathBuf, QemuError> {
    find_qemu_for(Isa::X86_64)
}

/// The user-mode emulator of `isa` and the variable that overrides it.
fn emulator(isa: Isa) -> (&'static str, &'static str) {
    match isa {
        Isa::X86_64 => ("qemu-x86_64", "BOTTLENOSE_QEMU"),
        Isa::Aarch64 => ("qemu-aarch64", "BOTTLENOSE_QEMU_AARCH64"),
    }
}

/// Locates the emulator of `isa` (`qemu-x86_64`, `qemu-aarch64`), or the one
/// its variable (`$BOTTLENOSE_QEMU`, `$BOTTLENOSE_QEMU_AARCH64`) names.
pub fn find_qemu_for(isa: Isa) -> Result<PathBuf, QemuError> {
    let (program, var) = emulator(isa);
    if let Some(v) = env::var_os(var).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(&v);
        let found = if p.components().count() == 1 && !p.is_absolute() {
            search_path(&v)
        } else if is_executable_file(&p) {
            Some(p.clone())
        } else {
            None
        };
        return found.ok_or(QemuError::QemuNotFound { program, tried: Some(p) });
    }
    search_path(OsStr::new(program)).ok_or(QemuError::QemuNotFound { program, tried: None })
}

/// Where the AArch64 guest's dynamic loader and libraries are: `$QEMU_LD_PREFIX` if set
/// (QEMU reads it itself), else Debian's cross sysroot (libc6-arm64-cross).
fn aarch64_sysroot() -> Option<PathBuf> {
    if env::var_os("QEMU_LD_PREFIX").is_some() {
        return None;
    }
    let p = PathBuf::from("/usr/aarch64-linux-gnu");
    p.join("lib").is_dir().then_some(p)
}

/// Locates the plugin: `$BOTTLENOSE_QEMU_PLUGIN` if set and not empty, else
/// [`PLUGIN_FILE_NAME`] next to the current executable or in its parent
/// directory (test binaries live in `target/<profile>/deps`).
pub fn find_plugin() -> Result<PathBuf, QemuError> {
    if let Some(v) = env::var_os("BOTTLENOSE_QEMU_PLUGIN").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(v);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(QemuError::PluginNotFound {
                tried: vec![p],
                from_env: true,
            })
        };
    }
    let mut tried = Vec::new();
    if let Ok(exe) = env::current_exe() {
        let mut dir = exe.parent();
        for _ in 0..2 {
            let Some(d) = dir else { break };
            let candidate = d.join(PLUGIN_FILE_NAME);
            if candidate.is_file() {
                return Ok(candidate);
            }
            tried.push(candidate);
            dir = d.parent();
        }
    }
    Err(QemuError::PluginNotFound {
        tried,
        from_env: false,
    })
}

/// Checks that `program` names an x86-64 ELF executable (or position
/// independent executable) and returns the path to run. A bare name that is
/// not a file in the current directory is looked up on PATH.
pub fn check_program(program: &Path) -> Result<PathBuf, QemuError> {
    program_isa(program).map(|(p, _)| p)
}

/// [`check_program`] for x86-64 and AArch64 executables: the path to run and its ISA.
pub fn program_isa(program: &Path) -> Result<(PathBuf, Isa), QemuError> {
    let mut path = program.to_path_buf();
    let bare = program.components().count() == 1 && !program.is_absolute();
    if bare && !program.exists() {
        if let Some(found) = search_path(program.as_os_str()) {
            path = found;
        }
    }
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(QemuError::ProgramNotFound(program.to_path_buf()))
        }
        Err(e) => {
            return Err(QemuError::Io {
                context: format!("cannot read {}", program.display()),
                source: e,
            })
        }
    };
    let not_exe = || QemuError::NotX86_64Executable(program.to_path_buf());
    if !meta.is_file() {
        return Err(not_exe());
    }
    let mut header = Vec::with_capacity(64);
    File::open(&path)
        .and_then(|f| f.take(64).read_to_end(&mut header))
        .map_err(|e| QemuError::Io {
            context: format!("cannot read {}", program.display()),
            source: e,
        })?;
    let elf = object::elf::FileHeader64::<object::Endianness>::parse(&header[..])
        .map_err(|_| not_exe())?;
    let endian = elf.endian().map_err(|_| not_exe())?;
    let e_type = elf.e_type(endian);
    let isa = match elf.e_machine(endian) {
        object::elf::EM_X86_64 => Isa::X86_64,
        object::elf::EM_AARCH64 => Isa::Aarch64,
        _ => return Err(not_exe()),
    };
    if !elf.is_class_64() || !(e_type == object::elf::ET_EXEC || e_type == object::elf::ET_DYN) {
        return Err(not_exe());
    }
    // SAFETY: access() on a NUL-terminated path.
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| not_exe())?;
    if unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } != 0 {
        return Err(QemuError::PermissionDenied(program.to_path_buf()));
    }
    // QEMU would take a path starting with '-' for an option.
    if path.as_os_str().as_bytes().first() == Some(&b'-') {
        path = Path::new(".").join(path);
    }
    Ok((path, isa))
}

/// The ELF executable and arguments that run `program args` as the kernel
/// would: a `#!` script (or a shim such as pyenv's) runs through its
/// interpreter (interpreters of interpreters up to Linux's depth of 4; see
/// [`script_command`]), then [`check_program`] checks the ELF file.
pub fn resolve_command(program: &Path, args: &[OsString]) -> Result<(PathBuf, Vec<OsString>), QemuError> {
    let mut path = program.to_path_buf();
    let mut args = args.to_vec();
    for _ in 0..=MAX_DEPTH {
        let found = find_program(&path)?;
        let script = match read_shebang(&found) {
            Ok(Some(s)) => s,
            // not a script (or unreadable: check_program says which)
            _ => return Ok((check_program(&found)?, args)),
        };
        if !is_executable_file(&found) {
            return Err(QemuError::PermissionDenied(path));
        }
        let cmd = script_command(&script, &found, &args, env::var_os("PATH").as_deref());
        let interpreter = PathBuf::from(&cmd[0]);
        if !interpreter.exists() {
            return Err(QemuError::InterpreterNotFound { script: path, interpreter });
        }
        path = interpreter;
        args = cmd[1..].to_vec();
    }
    Err(QemuError::NotX86_64Executable(program.to_path_buf()))
}

/// `program` itself, or a bare name not in the current directory found on PATH.
fn find_program(program: &Path) -> Result<PathBuf, QemuError> {
    let bare = program.components().count() == 1 && !program.is_absolute();
    if bare && !program.exists() {
        return search_path(program.as_os_str()).ok_or_else(|| QemuError::ProgramNotFound(program.to_path_buf()));
    }
    Ok(program.to_path_buf())
}

fn is_executable_file(p: &Path) -> bool {
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn search_path(name: &OsStr) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable_file(p))
}

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
}

impl TraceStream {
    pub(crate) fn shm(s: ShmStream) -> Self {
        TraceStream(Transport::Shm(s))
    }

    /// Where the answers to the plugin's pauses go (shared memory transport only).
    fn answerer(&self) -> Option<super::shm::Answerer> {
        match &self.0 {
            Transport::Shm(s) => s.answerer().ok(),
            Transport::Socket(_) => None,
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

    /// QEMU binary to use instead of [`find_qemu`]'s.
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
        // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork
        // and exec.
        unsafe {
            cmd.pre_exec(move || {
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
    /// Runs `program` with `args`, stdio inherited, using [`find_qemu`] and
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
    mut run: QemuRun,
    visitor: &mut V,
) -> Result<(GuestExit, StreamSummary), QemuError> {
    let stream = run.take_stream().expect("fresh run has its stream");
    let answerer = stream.answerer();
    let mut summary = StreamSummary::default();
    let result = read_stream_into(stream, visitor, &mut summary, &mut |r| {
        if let Some(a) = &answerer {
            a.send(r);
        }
    });
    let qemu = run.qemu().to_path_buf();
    match result {
        Ok(()) => {
            let exit = run.wait()?;
            if summary.tb_execs == 0 {
                return Err(QemuError::QemuFailed { qemu, exit });
            }
            Ok((exit, summary))
        }
        Err(e @ QemuError::Truncated { .. }) => {
            let exit = run.wait()?;
            if exit.signal().is_some() && summary.started {
                // `summary.bytes` stops at the last whole record.
                summary.complete = false;
                Ok((exit, summary))
            } else {
                Err(e)
            }
        }
        Err(e) => {
            let _ = run.kill();
            let _ = run.wait();
            Err(e)
        }
    }
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
