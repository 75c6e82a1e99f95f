//! Following the processes a traced guest starts (`hub=PATH`): see
//! `bottlenose_trace::Hub` for the design.
//!
//! - fork: QEMU forks with the plugin's state; the `pthread_atfork` child
//!   handler connects to the hub with a new shared memory file, writes HELLO
//!   and replays every block definition inherited from the parent (kept in
//!   `Writer::defs`), so that the child's stream stands alone.
//! - execve: the syscall callback reads the path, argv and envp from guest
//!   memory (at their host addresses: QEMU 7.2 runs 64-bit guests with a
//!   guest base of 0, checked on the first block), resolves `#!` scripts,
//!   writes EXEC, hands its last region over, and execs
//!   `qemu-x86_64 -plugin <this plugin>,hub=PATH -0 ARGV0 PROGRAM ARGS`;
//!   that QEMU's plugin connects as the exec'd image. What it cannot follow
//!   (not an x86-64 ELF, /proc/self/exe, execveat) it notes and lets QEMU
//!   run natively.

use std::ffi::{c_char, c_int, c_uint, CString, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{MutexGuard, OnceLock};

use qemu_plugin_sys::qemu_plugin_id_t;

use bottlenose_trace_format::record as wire;
use bottlenose_trace_format::transport::{HubOrigin, HUB_HELLO_LEN, HUB_MAGIC, SHM_HEADER, SHM_N_REGIONS_AT, SHM_REGIONS, SHM_REGION_SIZE, SHM_REGION_SIZE_AT};

use crate::writer::{stop, Sink, Writer, DISABLED, OUT_FD, WRITER};

#[path = "../../trace/src/shebang.rs"]
mod shebang;

const SYS_EXECVE: i64 = 59;
const SYS_EXIT_GROUP: i64 = 231;
const SYS_EXECVEAT: i64 = 322;
/// Layout of the shared memory a child creates (as bottlenose's own).
const REGIONS: usize = SHM_REGIONS;
const REGION_SIZE: usize = SHM_REGION_SIZE;

/// What following needs: the hub's socket, this plugin's file and QEMU's.
pub(crate) struct Follow {
    hub: Vec<u8>,
    plugin: PathBuf,
    qemu: PathBuf,
}

pub(crate) static FOLLOW: OnceLock<Follow> = OnceLock::new();

/// Guest addresses are host addresses: 0 not checked yet, 1 yes, 2 no.
static IDENTITY: AtomicU8 = AtomicU8::new(0);

pub(crate) fn enabled() -> bool {
    FOLLOW.get().is_some()
}

pub(crate) fn init(hub: &[u8]) -> Result<(), String> {
    let qemu = std::fs::read_link("/proc/self/exe").map_err(|e| format!("cannot find QEMU's binary: {e}"))?;
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr(3) on a function of this library.
    if unsafe { libc::dladdr(init as *const libc::c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return Err("cannot find the plugin's own file".into());
    }
    // SAFETY: dladdr's file name is a NUL-terminated string.
    let plugin = PathBuf::from(std::ffi::OsStr::from_bytes(unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_bytes()));
    let _ = FOLLOW.set(Follow { hub: hub.to_vec(), plugin, qemu });
    Ok(())
}

/// Copies guest memory at `addr` (its host address) without faulting on a bad pointer.
fn read_guest(addr: u64, buf: &mut [u8]) -> usize {
    let local = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let remote = libc::iovec { iov_base: addr as *mut libc::c_void, iov_len: buf.len() };
    // SAFETY: process_vm_readv(2) on ourselves reports EFAULT instead of faulting.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    n.max(0) as usize
}

/// Checks once, on the first translated block, that guest memory sits at its host address.
pub(crate) fn check_identity(vaddr: u64, bytes: &[u8]) {
    if IDENTITY.load(Ordering::Relaxed) != 0 || bytes.is_empty() {
        return;
    }
    let mut here = vec![0u8; bytes.len()];
    let same = read_guest(vaddr, &mut here) == bytes.len() && here == bytes;
    IDENTITY.store(if same { 1 } else { 2 }, Ordering::Relaxed);
}

fn read_guest_cstr(addr: u64) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = addr;
    while out.len() < 1 << 20 {
        // up to the page end, so that an unmapped next page does not fail the read
        let mut chunk = vec![0u8; (4096 - (at & 4095)) as usize];
        let n = read_guest(at, &mut chunk);
        if n == 0 {
            return None;
        }
        if let Some(z) = chunk[..n].iter().position(|&b| b == 0) {
            out.extend_from_slice(&chunk[..z]);
            return Some(out);
        }
        out.extend_from_slice(&chunk[..n]);
        at += n as u64;
    }
    None
}

/// A NULL-terminated array of string pointers (argv, envp).
fn read_guest_strings(addr: u64) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    if addr == 0 {
        return Some(out);
    }
    for i in 0..100_000u64 {
        let mut p = [0u8; 8];
        if read_guest(addr + 8 * i, &mut p) != 8 {
            return None;
        }
        let ptr = u64::from_le_bytes(p);
        if ptr == 0 {
            return Some(out);
        }
        out.push(read_guest_cstr(ptr)?);
    }
    None
}

fn note(text: String) {
    let mut rec = Vec::new();
    wire::push_note(&mut rec, text.as_bytes());
    crate::writer::with_writer(|w| w.put(&rec));
}

/// Creates a shared memory file with the reader's layout, connects to the
/// hub and sends the hello; returns the connection and the sink.
unsafe fn connect(origin: HubOrigin, command: &[u8]) -> Result<(c_int, Sink), String> {
    let follow = FOLLOW.get().ok_or("no hub")?;
    let size = SHM_HEADER + REGIONS * REGION_SIZE;
    let mem = libc::memfd_create(c"bottlenose-trace".as_ptr(), libc::MFD_CLOEXEC);
    if mem < 0 || libc::ftruncate(mem, size as libc::off_t) != 0 {
        return Err(format!("cannot create shared memory: {}", std::io::Error::last_os_error()));
    }
    let base = libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, mem, 0);
    if base == libc::MAP_FAILED {
        libc::close(mem);
        return Err("cannot map shared memory".into());
    }
    let base = base.cast::<u8>();
    *(base.add(SHM_N_REGIONS_AT) as *mut u64) = REGIONS as u64;
    *(base.add(SHM_REGION_SIZE_AT) as *mut u64) = REGION_SIZE as u64;
    let sock = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
    let mut addr: libc::sockaddr_un = std::mem::zeroed();
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    if follow.hub.len() >= addr.sun_path.len() || sock < 0 {
        libc::close(mem);
        return Err("cannot reach the hub".into());
    }
    for (d, s) in addr.sun_path.iter_mut().zip(&follow.hub) {
        *d = *s as c_char;
    }
    if libc::connect(sock, (&addr as *const libc::sockaddr_un).cast(), std::mem::size_of::<libc::sockaddr_un>() as u32) != 0 {
        libc::close(mem);
        libc::close(sock);
        return Err(format!("cannot connect to the hub: {}", std::io::Error::last_os_error()));
    }
    let mut hello = Vec::with_capacity(HUB_HELLO_LEN + command.len());
    hello.extend_from_slice(HUB_MAGIC);
    hello.push(origin as u8);
    hello.extend_from_slice(&(libc::getpid() as u32).to_le_bytes());
    hello.extend_from_slice(&(libc::getppid() as u32).to_le_bytes());
    hello.extend_from_slice(&(command.len() as u32).to_le_bytes());
    hello.extend_from_slice(command);
    let mut iov = libc::iovec { iov_base: hello.as_mut_ptr().cast(), iov_len: hello.len() };
    let mut cbuf = [0u64; 8];
    let mut msg: libc::msghdr = std::mem::zeroed();
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<c_int>() as u32) as usize;
    let c = libc::CMSG_FIRSTHDR(&msg);
    (*c).cmsg_level = libc::SOL_SOCKET;
    (*c).cmsg_type = libc::SCM_RIGHTS;
    (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<c_int>() as u32) as usize;
    std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut c_int, mem);
    let sent = libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL);
    libc::close(mem);
    if sent != hello.len() as isize {
        libc::close(sock);
        return Err("cannot greet the hub".into());
    }
    Ok((sock, Sink::Shm { base, region_size: REGION_SIZE, n_regions: REGIONS, cur: 0, len: 0, sent: 0, acked: 0, inbox: Default::default() }))
}

/// Connects an exec'd QEMU to the hub; the command is read from QEMU's own
/// command line as [`exec_under_qemu`] built it (after `-0 ARGV0`).
pub(crate) unsafe fn connect_exec() -> Result<(c_int, Sink), String> {
    let cmdline = std::fs::read("/proc/self/cmdline").unwrap_or_default();
    let words: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let command = match words.iter().position(|w| *w == b"-0") {
        Some(i) if i + 2 < words.len() => words[i + 2..].join(&0u8),
        _ => Vec::new(),
    };
    connect(HubOrigin::Exec, &command)
}

thread_local! {
    /// The writer's lock, held across a fork by the forking thread.
    static HELD: std::cell::RefCell<Option<MutexGuard<'static, Option<Writer>>>> = const { std::cell::RefCell::new(None) };
}

/// Before a fork: no other thread may be half-way through a record.
extern "C" fn before_fork() {
    let g = WRITER.lock().unwrap_or_else(|p| p.into_inner());
    HELD.with(|h| *h.borrow_mut() = Some(g));
}

extern "C" fn after_fork_in_parent() {
    HELD.with(|h| h.borrow_mut().take());
}

/// In a forked child: the parent's stream is not ours; open our own.
extern "C" fn after_fork_in_child() {
    let guard = HELD.with(|h| h.borrow_mut().take());
    let old_fd = OUT_FD.load(Ordering::Relaxed);
    if old_fd >= 0 {
        // SAFETY: closing our copy of the parent's connection.
        unsafe { libc::close(old_fd) };
    }
    let Some(mut guard) = guard else {
        stop();
        return;
    };
    if let Some(w) = guard.as_mut() {
        w.unmap_parent_sink();
    }
    let was_on = !DISABLED.load(Ordering::Relaxed);
    crate::fastforward::forked_child();
    // SAFETY: connecting with plain system calls.
    match (was_on, unsafe { connect(HubOrigin::Fork, &[]) }) {
        (true, Ok((fd, sink))) => {
            let Some(w) = guard.as_mut() else { return stop() };
            w.fd = fd;
            w.sink = sink;
            w.last_vcpu = 0;
            OUT_FD.store(fd, Ordering::Relaxed);
            w.put(&wire::hello());
            // the block definitions the child inherited, in id order, with the mappings
            // that came before them
            let defs = std::mem::take(&mut w.defs);
            let mut at = 0;
            while at < defs.len() && !DISABLED.load(Ordering::Relaxed) {
                // records this plugin wrote: framed whole (an error would be a bug; stop there)
                let Ok(len) = wire::record_len(&defs[at..]) else { break };
                w.put(&defs[at..at + len]);
                at += len;
            }
            w.defs = defs;
        }
        _ => {
            // nobody takes this child's stream: no writer at all
            stop();
            *guard = None;
        }
    }
}

pub(crate) fn register_fork_handlers() {
    // SAFETY: registering handlers of this library, which QEMU never unloads.
    unsafe { libc::pthread_atfork(Some(before_fork), Some(after_fork_in_parent), Some(after_fork_in_child)) };
}

/// The syscall callback: exit codes, and execve followed under QEMU.
pub(crate) unsafe extern "C" fn vcpu_syscall(
    _id: qemu_plugin_id_t,
    _vcpu: c_uint,
    num: i64,
    a1: u64,
    a2: u64,
    a3: u64,
    _a4: u64,
    _a5: u64,
    _a6: u64,
    _a7: u64,
    _a8: u64,
) {
    if DISABLED.load(Ordering::Relaxed) {
        return;
    }
    match num {
        SYS_EXIT_GROUP => {
            crate::writer::with_writer(|w| w.put(&wire::exit(a1 as i32)));
        }
        SYS_EXECVE if enabled() => exec_under_qemu(a1, a2, a3),
        SYS_EXECVEAT if enabled() => note("execveat not followed: the program it runs is not traced".into()),
        _ => {}
    }
}

/// What the kernel would run for `path`: an x86-64 ELF, after `#!` interpreters.
fn resolve(path: &Path, args: Vec<OsString>, argv0: OsString) -> Result<(PathBuf, OsString, Vec<OsString>), String> {
    let (mut path, mut args, mut argv0) = (path.to_path_buf(), args, argv0);
    for _ in 0..=shebang::MAX_DEPTH {
        let mut head = [0u8; 20];
        let n = std::fs::File::open(&path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).map_err(|_| String::new())?;
        let head = &head[..n];
        if head.len() >= 20 && head.starts_with(b"\x7fELF") && head[4] == 2 && u16::from_le_bytes([head[18], head[19]]) == 62 {
            return Ok((path, argv0, args));
        }
        let Some(sh) = shebang::read_shebang(&path).ok().flatten() else {
            return Err(format!("exec of {} not traced: not an x86-64 ELF program or script", path.display()));
        };
        let path_var = std::env::var_os("PATH");
        let cmd = shebang::script_command(&sh, &path, &args, path_var.as_deref());
        path = PathBuf::from(&cmd[0]);
        argv0 = cmd[0].clone();
        args = cmd[1..].to_vec();
    }
    Err(format!("exec of {} not traced: too many interpreters", path.display()))
}

unsafe fn exec_under_qemu(path_p: u64, argv_p: u64, envp_p: u64) {
    if IDENTITY.load(Ordering::Relaxed) != 1 {
        return note("exec not followed: guest memory is not at its host addresses".into());
    }
    let (Some(path), Some(argv), Some(envp)) = (read_guest_cstr(path_p), read_guest_strings(argv_p), read_guest_strings(envp_p)) else {
        return; // the guest's own execve fails with EFAULT
    };
    if path == b"/proc/self/exe" {
        return note("exec of /proc/self/exe not followed: it runs untraced".into());
    }
    let c_path = CString::new(path.clone()).unwrap_or_default();
    if libc::access(c_path.as_ptr(), libc::X_OK) != 0 {
        return; // the guest's execve fails as it would
    }
    let os = |b: &[u8]| OsString::from_vec(b.to_vec());
    let argv0 = argv.first().map(|a| os(a)).unwrap_or_else(|| os(&path));
    let args: Vec<OsString> = argv.iter().skip(1).map(|a| os(a)).collect();
    let (exe, argv0, args) = match resolve(Path::new(&os(&path)), args, argv0) {
        Ok(r) => r,
        Err(why) if why.is_empty() => return,
        Err(why) => return note(why),
    };
    let Some(follow) = FOLLOW.get() else { return };
    let mut plugin_arg = Vec::new();
    for &b in follow.plugin.as_os_str().as_bytes() {
        plugin_arg.push(b);
        if b == b',' {
            plugin_arg.push(b',');
        }
    }
    plugin_arg.extend_from_slice(b",hub=");
    for &b in &follow.hub {
        plugin_arg.push(b);
        if b == b',' {
            plugin_arg.push(b',');
        }
    }
    let mut words: Vec<Vec<u8>> = vec![follow.qemu.as_os_str().as_bytes().to_vec(), b"-plugin".to_vec(), plugin_arg, b"-0".to_vec()];
    words.push(argv0.into_vec());
    words.push(exe.into_os_string().into_vec());
    words.extend(args.into_iter().map(|a| a.into_vec()));
    let c_words: Vec<CString> = words.into_iter().filter_map(|w| CString::new(w).ok()).collect();
    let c_env: Vec<CString> = envp.into_iter().filter_map(|e| CString::new(e).ok()).collect();
    let mut argv_ptrs: Vec<*const c_char> = c_words.iter().map(|c| c.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut env_ptrs: Vec<*const c_char> = c_env.iter().map(|c| c.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    // hand everything written so far over, then become the new QEMU
    crate::writer::with_writer(|w| {
        let mut rec = Vec::new();
        wire::push_exec(&mut rec, &path);
        w.put(&rec);
        w.flush(true);
    });
    libc::execve(argv_ptrs[0], argv_ptrs.as_ptr(), env_ptrs.as_ptr());
    // the exec failed after our stream was handed over: the rest is untraced
    stop();
}
