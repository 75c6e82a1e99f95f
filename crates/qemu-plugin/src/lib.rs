//! QEMU TCG plugin (plugin API version 1, QEMU 7.2 and later) that streams
//! what the guest executes to bottlenose over an inherited file descriptor.
//!
//! It is deliberately tiny: it decodes nothing and models nothing, it only
//! writes facts. All decoding happens in the bottlenose process
//! (`bottlenose_trace`).
//!
//! Usage: `qemu-x86_64 -plugin ./libbottlenose_qemu_plugin.so,fd=3[,shm=4] ./prog`.
//!
//! - `pause=N` (with `shm`): fast-forward steered by the reader; the first
//!   pause after N instructions (module `fastforward`).
//! - `hub=PATH` (with `fd`, or alone in a QEMU this plugin exec'd): follow
//!   forks and execs, each process writing its own stream to the hub socket
//!   at PATH (module `follow`).
//!
//! - `fd=N`: the stream goes to inherited descriptor N, in writes of up to
//!   256 KiB (a file, a pipe, or a Unix stream socket). With a socket, writes
//!   use `MSG_NOSIGNAL`, so when the reader goes away the plugin silently
//!   stops writing and the guest runs on; with a pipe the kernel would raise
//!   SIGPIPE. What is still buffered when QEMU dies by a signal is lost
//!   (QEMU 7.2 does not run the plugin's exit hook for a guest's fatal
//!   signal).
//! - `fd=N,shm=M` (what bottlenose uses): M is a shared memory file (memfd):
//!   a 4 KiB header page, then `n` regions of `size` bytes (the reader puts
//!   `n` and `size` in the header as u64 at offsets 2048 and 2056); N is a
//!   Unix stream socket for control messages. Records are written straight
//!   into the current region, and its committed length (u64 at offset
//!   64 * region in the header) is updated after every record, so nothing
//!   written is lost if QEMU dies. When a region is full the plugin sends an
//!   8-byte message (u32 region index, u32 length) and goes on in the next
//!   region (round robin), first waiting, if all regions are announced and
//!   unacknowledged, for the reader's one-byte acknowledgements (one per
//!   message, in order). At exit the last region is announced the same way.
//!   The reader, at end of file on the socket, takes the committed length of
//!   the region after the last announced one as the tail of the stream.
//!
//! # Wire format
//!
//! The records, their tags and layouts are defined (and documented) in crate
//! `bottlenose-trace-format`, which the reader uses too.
//!
//! # Why this file is over 500 lines
//!
//! Not for a lasting reason: the fast-forward work in progress changes the
//! writer and the callbacks here, so the split waits for it to land. Then the
//! writer and its sinks (`Writer`, `Sink`) and the argument parsing (`install`)
//! get files of their own, the translation and execution callbacks stay.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Mutex;

mod fastforward;
mod follow;

use bottlenose_trace_format::record::{self as wire, MemInfo};
use bottlenose_trace_format::transport::{SHM_HEADER, SHM_LEN_STRIDE, SHM_MAX_REGIONS, SHM_MIN_REGIONS, SHM_MIN_REGION_SIZE, SHM_N_REGIONS_AT, SHM_REGION_SIZE_AT};
use qemu_plugin_sys::{
    qemu_info_t, qemu_plugin_cb_flags, qemu_plugin_id_t, qemu_plugin_insn_data,
    qemu_plugin_insn_size, qemu_plugin_insn_vaddr, qemu_plugin_mem_is_store, qemu_plugin_mem_rw,
    qemu_plugin_mem_size_shift, qemu_plugin_meminfo_t, qemu_plugin_outs,
    qemu_plugin_register_atexit_cb, qemu_plugin_register_vcpu_mem_cb,
    qemu_plugin_register_vcpu_syscall_cb, qemu_plugin_register_vcpu_tb_exec_cb,
    qemu_plugin_register_vcpu_tb_trans_cb, qemu_plugin_tb, qemu_plugin_tb_get_insn, qemu_plugin_tb_n_insns as tb_n_insns,
    qemu_plugin_tb_vaddr, QEMU_PLUGIN_VERSION,
};

/// The plugin API version this plugin was built for; QEMU refuses to load
/// a plugin without this symbol.
#[no_mangle]
pub static qemu_plugin_version: c_int = QEMU_PLUGIN_VERSION as c_int;

mod maps;

/// Buffer size in `fd` mode.
const BUF_CAP: usize = 256 * 1024;

/// Set once writing is pointless: the reader is gone, the guest exited, or
/// this is a forked child (which must not write into its parent's stream).
/// Checked before taking the lock, so a disabled plugin costs one load.
static DISABLED: AtomicBool = AtomicBool::new(true);
/// The control/output descriptor, for the fork handler (which must not lock).
static OUT_FD: AtomicI32 = AtomicI32::new(-1);

/// Where records go.
enum Sink {
    /// Buffered writes to a descriptor.
    Fd {
        buf: Vec<u8>,
        /// `send(MSG_NOSIGNAL)` works on it (it is a socket).
        is_socket: bool,
    },
    /// Regions of shared memory, announced over the socket.
    Shm {
        /// Start of the mapping (the header page).
        base: *mut u8,
        region_size: usize,
        n_regions: usize,
        /// Region being filled, and its length.
        cur: usize,
        len: usize,
        /// Messages sent, and acknowledgements received.
        sent: u64,
        acked: u64,
        /// What the reader sends back: acknowledgements and answers to pauses.
        inbox: fastforward::Inbox,
    },
}

struct Writer {
    fd: c_int,
    sink: Sink,
    next_tb: u32,
    /// vCPU of the latest TB_EXEC or MEM_VCPU record.
    last_vcpu: u32,
    /// Every TB_DEF record written, when children are followed: a forked
    /// child replays them into its own stream.
    defs: Vec<u8>,
    /// The guest mappings last reported.
    maps: maps::Snapshot,
    /// Fast-forward: the block defined at each address (its id and TB_DEF
    /// record with id 0), so that a retranslation after a switch keeps its id.
    defined: std::collections::HashMap<u64, (u32, Vec<u8>)>,
}

// SAFETY: the raw pointer is to a shared mapping owned by the writer for the
// life of the process; all access goes through the mutex.
unsafe impl Send for Writer {}

static WRITER: Mutex<Option<Writer>> = Mutex::new(None);

fn stop() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// Writes all of `data` to `fd`, retrying on EINTR; false on failure.
fn write_all(fd: c_int, mut data: &[u8], is_socket: &mut bool) -> bool {
    while !data.is_empty() {
        // SAFETY: plain syscalls with a valid pointer/length pair.
        let n = unsafe {
            if *is_socket {
                libc::send(fd, data.as_ptr().cast(), data.len(), libc::MSG_NOSIGNAL)
            } else {
                libc::write(fd, data.as_ptr().cast(), data.len())
            }
        };
        if n > 0 {
            data = &data[n as usize..];
            continue;
        }
        let errno = std::io::Error::last_os_error().raw_os_error();
        if n < 0 && errno == Some(libc::EINTR) {
            continue;
        }
        if n < 0 && *is_socket && errno == Some(libc::ENOTSOCK) {
            *is_socket = false;
            continue;
        }
        return false;
    }
    true
}

impl Writer {
    /// Appends one whole record.
    #[inline]
    fn put(&mut self, rec: &[u8]) {
        match &mut self.sink {
            Sink::Fd { buf, .. } => {
                if buf.len() + rec.len() > buf.capacity() {
                    self.flush(false);
                    if DISABLED.load(Ordering::Relaxed) {
                        return;
                    }
                }
                if let Sink::Fd { buf, .. } = &mut self.sink {
                    buf.extend_from_slice(rec);
                }
            }
            Sink::Shm {
                region_size, len, ..
            } => {
                if *len + rec.len() > *region_size {
                    if rec.len() > *region_size {
                        // Cannot happen with sane region sizes (a block is
                        // at most a few KiB); stop rather than corrupt.
                        stop();
                        return;
                    }
                    self.flush(false);
                    if DISABLED.load(Ordering::Relaxed) {
                        return;
                    }
                }
                if let Sink::Shm {
                    base,
                    region_size,
                    cur,
                    len,
                    ..
                } = &mut self.sink
                {
                    // SAFETY: the region [cur] has room for `rec` (checked
                    // above) and lies inside the mapping.
                    unsafe {
                        let dst = base.add(SHM_HEADER + *cur * *region_size + *len);
                        std::ptr::copy_nonoverlapping(rec.as_ptr(), dst, rec.len());
                        *len += rec.len();
                        shm_len(*base, *cur).store(*len as u64, Ordering::Release);
                    }
                }
            }
        }
    }

    /// Hands what was written over to the reader. At exit (`last`), does
    /// not wait for anything.
    fn flush(&mut self, last: bool) {
        let fd = self.fd;
        match &mut self.sink {
            Sink::Fd { buf, is_socket } => {
                if !write_all(fd, buf, is_socket) {
                    stop();
                }
                buf.clear();
            }
            Sink::Shm {
                base,
                n_regions,
                cur,
                len,
                sent,
                acked,
                inbox,
                ..
            } => {
                let next = (*cur + 1) % *n_regions;
                // SAFETY: header inside the mapping. Cleared before the
                // message, so a reader that sees end of file right after it
                // finds an empty tail, never the region's old contents.
                unsafe { shm_len(*base, next).store(0, Ordering::Release) };
                let mut msg = [0u8; 8];
                msg[..4].copy_from_slice(&(*cur as u32).to_le_bytes());
                msg[4..].copy_from_slice(&(*len as u32).to_le_bytes());
                let mut is_socket = true;
                if !write_all(fd, &msg, &mut is_socket) {
                    stop();
                    return;
                }
                *sent += 1;
                if last {
                    return;
                }
                // `next` is free unless all regions are announced and
                // unacknowledged (acknowledgements come in order).
                while *sent - *acked >= *n_regions as u64 {
                    match inbox.receive(fd) {
                        Some(n) => *acked += n,
                        None => {
                            stop();
                            return;
                        }
                    }
                }
                *cur = next;
                *len = 0;
            }
        }
    }
}

impl Writer {
    /// Waits for the reader's answer to a pause (`None`: the reader is gone,
    /// or this is no shared memory stream).
    fn wait_resume(&mut self) -> Option<bottlenose_trace_format::transport::Resume> {
        let fd = self.fd;
        let Sink::Shm { acked, inbox, .. } = &mut self.sink else { return None };
        loop {
            if let Some(r) = inbox.take_resume() {
                return Some(r);
            }
            match inbox.receive(fd) {
                Some(n) => *acked += n,
                None => {
                    stop();
                    return None;
                }
            }
        }
    }

    /// The id of the block `rec` (a TB_DEF with id 0) defines at `vaddr`:
    /// the one defined before if the instructions are the same (fast-forward
    /// retranslates after each switch), else a new one, and whether it is new.
    fn block_id(&mut self, vaddr: u64, rec: &[u8]) -> (u32, bool) {
        if fastforward::enabled() {
            if let Some((id, known)) = self.defined.get(&vaddr) {
                if known.as_slice() == rec {
                    return (*id, false);
                }
            }
        }
        let id = self.next_tb;
        self.next_tb = self.next_tb.wrapping_add(1);
        if fastforward::enabled() {
            self.defined.insert(vaddr, (id, rec.to_vec()));
        }
        (id, true)
    }
}

/// The committed length of region `r` in the header page.
///
/// # Safety
/// `base` is the start of the shared mapping.
unsafe fn shm_len<'a>(base: *mut u8, r: usize) -> &'a AtomicU64 {
    &*(base.add(r * SHM_LEN_STRIDE) as *const AtomicU64)
}

#[inline]
fn with_writer<T>(f: impl FnOnce(&mut Writer) -> T) -> Option<T> {
    if DISABLED.load(Ordering::Relaxed) {
        return None;
    }
    let mut guard = match WRITER.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    if DISABLED.load(Ordering::Relaxed) {
        return None;
    }
    guard.as_mut().map(f)
}

thread_local! {
    /// Scratch space for TB_DEF records.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

unsafe extern "C" fn vcpu_tb_trans(_id: qemu_plugin_id_t, tb: *mut qemu_plugin_tb) {
    if DISABLED.load(Ordering::Relaxed) {
        return;
    }
    let n = tb_n_insns(tb).min(u16::MAX as usize);
    let tb_vaddr = qemu_plugin_tb_vaddr(tb);
    let tb_id = SCRATCH.with(|scratch| {
        let mut rec = scratch.borrow_mut();
        rec.clear();
        wire::push_tb_def_header(&mut rec, 0, n as u16); // id, filled in under the lock
        for i in 0..n {
            let insn = qemu_plugin_tb_get_insn(tb, i);
            let len = qemu_plugin_insn_size(insn).min(u8::MAX as usize);
            let data = qemu_plugin_insn_data(insn).cast::<u8>();
            let bytes = if len > 0 && !data.is_null() {
                // SAFETY: QEMU guarantees `len` bytes at `data` for this insn.
                std::slice::from_raw_parts(data, len)
            } else {
                &[0; u8::MAX as usize][..len]
            };
            wire::push_tb_def_insn(&mut rec, qemu_plugin_insn_vaddr(insn), bytes);
        }
        if n > 0 {
            let first = qemu_plugin_tb_get_insn(tb, 0);
            let len = qemu_plugin_insn_size(first).min(15);
            let data = qemu_plugin_insn_data(first).cast::<u8>();
            if !data.is_null() && follow::enabled() {
                // SAFETY: QEMU guarantees `len` bytes at `data`.
                follow::check_identity(qemu_plugin_insn_vaddr(first), std::slice::from_raw_parts(data, len));
            }
        }
        with_writer(|w| {
            for m in w.maps.changes_for(tb_vaddr) {
                let mut map = Vec::new();
                wire::push_map(&mut map, m.start, m.end, m.offset, &m.path);
                w.put(&map);
                // a forked child replays the definitions: the mappings go with them
                if follow::enabled() {
                    w.defs.extend_from_slice(&map);
                }
            }
            let (id, new) = w.block_id(tb_vaddr, &rec);
            if new {
                wire::set_tb_def_id(&mut rec, id);
                w.put(&rec);
                if follow::enabled() {
                    w.defs.extend_from_slice(&rec);
                }
            }
            id
        })
    });
    let Some(id) = tb_id else { return };
    if fastforward::skipping() {
        // counting only: one callback per block, no memory callbacks
        qemu_plugin_register_vcpu_tb_exec_cb(
            tb,
            Some(fastforward::skip_exec),
            qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
            fastforward::slot(id, n).cast_mut(),
        );
        return;
    }
    // the block's id and length (for fast-forward's count) in the one pointer QEMU passes back
    qemu_plugin_register_vcpu_tb_exec_cb(
        tb,
        Some(vcpu_tb_exec),
        qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
        (id as usize | (n << 32)) as *mut c_void,
    );
    for i in 0..n {
        let insn = qemu_plugin_tb_get_insn(tb, i);
        qemu_plugin_register_vcpu_mem_cb(
            insn,
            Some(vcpu_mem),
            qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
            qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_RW,
            i as *mut c_void,
        );
    }
}

unsafe extern "C" fn vcpu_tb_exec(vcpu_index: c_uint, userdata: *mut c_void) {
    let id = userdata as usize as u32;
    if fastforward::enabled() {
        fastforward::before_full_block((userdata as usize >> 32) as u64);
    }
    let rec = wire::tb_exec(id, vcpu_index.min(u16::MAX as u32) as u16);
    with_writer(|w| {
        w.put(&rec);
        w.last_vcpu = vcpu_index;
    });
}

unsafe extern "C" fn vcpu_mem(
    vcpu_index: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    userdata: *mut c_void,
) {
    let index = userdata as usize as u16;
    let shift = qemu_plugin_mem_size_shift(info).min(0x7f) as u8;
    let rec = wire::mem(index, MemInfo::new(shift, qemu_plugin_mem_is_store(info)), vaddr);
    with_writer(|w| {
        if vcpu_index != w.last_vcpu {
            w.put(&wire::mem_vcpu(vcpu_index.min(u16::MAX as u32) as u16));
            w.last_vcpu = vcpu_index;
        }
        w.put(&rec);
    });
}

#[allow(clippy::too_many_arguments)]
/// The one syscall callback (QEMU keeps one per plugin and event: a second
/// registration would replace the first): mapping changes, then exit codes and
/// execve for following processes.
unsafe extern "C" fn vcpu_syscall(
    id: qemu_plugin_id_t,
    vcpu_index: c_uint,
    num: i64,
    a1: u64,
    a2: u64,
    a3: u64,
    a4: u64,
    a5: u64,
    a6: u64,
    a7: u64,
    a8: u64,
) {
    maps::on_syscall(num);
    follow::vcpu_syscall(id, vcpu_index, num, a1, a2, a3, a4, a5, a6, a7, a8);
}

unsafe extern "C" fn atexit(_id: qemu_plugin_id_t, _userdata: *mut c_void) {
    fastforward::at_exit();
    with_writer(|w| {
        w.put(&wire::end());
        if !DISABLED.load(Ordering::Relaxed) {
            w.flush(true);
        }
        stop();
    });
}

/// Reports a setup problem. `qemu_plugin_outs` only reaches QEMU's log
/// (`-d plugin`), so the message also goes to stderr.
fn say(msg: &str) {
    eprint!("{msg}");
    if let Ok(c) = std::ffi::CString::new(msg) {
        // SAFETY: valid NUL-terminated string.
        unsafe { qemu_plugin_outs(c.as_ptr()) };
    }
}

/// Maps the shared memory file `fd`; returns (mapping, region size, number
/// of regions).
unsafe fn map_shm(fd: c_int) -> Result<(*mut u8, usize, usize), String> {
    let mut st: libc::stat = std::mem::zeroed();
    if libc::fstat(fd, &mut st) != 0 {
        return Err(format!("shm fd {fd} is not open"));
    }
    let size = st.st_size as usize;
    if size <= SHM_HEADER {
        return Err(format!("shm fd {fd} is too small ({size} bytes)"));
    }
    let p = libc::mmap(
        std::ptr::null_mut(),
        size,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_SHARED,
        fd,
        0,
    );
    if p == libc::MAP_FAILED {
        return Err(format!(
            "cannot map shm fd {fd}: {}",
            std::io::Error::last_os_error()
        ));
    }
    let base = p.cast::<u8>();
    let n = (*(base.add(SHM_N_REGIONS_AT) as *const AtomicU64)).load(Ordering::Acquire) as usize;
    let region =
        (*(base.add(SHM_REGION_SIZE_AT) as *const AtomicU64)).load(Ordering::Acquire) as usize;
    if !(SHM_MIN_REGIONS..=SHM_MAX_REGIONS).contains(&n)
        || region < SHM_MIN_REGION_SIZE
        || region > u32::MAX as usize
        || SHM_HEADER + n * region > size
    {
        libc::munmap(p, size);
        return Err(format!(
            "shm fd {fd}: bad layout ({n} regions of {region} bytes in {size} bytes)"
        ));
    }
    Ok((base, region, n))
}

fn parse_fd(key: &str, v: &str) -> Result<c_int, String> {
    match v.trim().parse::<c_int>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err(format!("bad {key} value `{v}`")),
    }
}

/// Entry point called by QEMU when the plugin is loaded. Arguments arrive as
/// `key=value` strings: `fd=N` (required) and `shm=M` (optional).
///
/// # Safety
/// Called by QEMU with valid `argc`/`argv`.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: qemu_plugin_id_t,
    _info: *const qemu_info_t,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    match install(id, argc, argv) {
        Ok(()) => 0,
        Err(msg) => {
            say(&format!("bottlenose plugin: {msg}\n"));
            -1
        }
    }
}

unsafe fn install(id: qemu_plugin_id_t, argc: c_int, argv: *mut *mut c_char) -> Result<(), String> {
    let mut fd: Option<c_int> = None;
    let mut shm: Option<c_int> = None;
    let mut hub: Option<Vec<u8>> = None;
    let mut pause: Option<u64> = None;
    for i in 0..argc.max(0) as usize {
        let raw = CStr::from_ptr(*argv.add(i)).to_bytes();
        if let Some(path) = raw.strip_prefix(b"hub=") {
            hub = Some(path.to_vec());
            continue;
        }
        let arg = String::from_utf8_lossy(raw);
        match arg.split_once('=') {
            Some(("fd", v)) => fd = Some(parse_fd("fd", v)?),
            Some(("shm", v)) => shm = Some(parse_fd("shm", v)?),
            Some(("pause", v)) => match v.trim().parse::<u64>() {
                Ok(n) => pause = Some(n),
                Err(_) => return Err(format!("bad pause value `{v}` (a number of instructions)")),
            },
            _ => return Err(format!("unknown argument `{arg}` (expected fd=N, shm=M, pause=N or hub=PATH)")),
        }
    }
    if pause.is_some() && (shm.is_none() || fd.is_none()) {
        return Err("pause=N needs fd=N and shm=M (the reader answers pauses on the control socket)".into());
    }
    if let Some(h) = &hub {
        follow::init(h)?;
    }
    // an exec'd process of a followed program: its trace goes to the hub
    let exec_connection = match (fd, &hub) {
        (None, Some(_)) => match follow::connect_exec() {
            Ok(c) => Some(c),
            // bottlenose is gone (a process that outlived the traced program):
            // the program runs on untraced rather than not at all
            Err(_) => return Ok(()),
        },
        _ => None,
    };
    let fd = match (&exec_connection, fd) {
        (Some((c, _)), _) => *c,
        (None, Some(fd)) => fd,
        (None, None) => return Err("missing argument fd=N".into()),
    };
    if libc::fcntl(fd, libc::F_GETFD) < 0 {
        return Err(format!("fd {fd} is not open (run through bottlenose)"));
    }
    // The guest must not hand the stream to programs it executes.
    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);

    let sink = match (exec_connection, shm) {
        (Some((_, sink)), _) => sink,
        (None, None) => Sink::Fd {
            buf: Vec::with_capacity(BUF_CAP),
            is_socket: true,
        },
        (None, Some(m)) => {
            let (base, region_size, n_regions) = map_shm(m)?;
            // The mapping stays; the descriptor is not needed any more.
            libc::close(m);
            Sink::Shm {
                base,
                region_size,
                n_regions,
                cur: 0,
                len: 0,
                sent: 0,
                acked: 0,
                inbox: Default::default(),
            }
        }
    };
    OUT_FD.store(fd, Ordering::Relaxed);
    follow::register_fork_handlers();

    let mut w = Writer {
        fd,
        sink,
        next_tb: 0,
        last_vcpu: 0,
        defs: Vec::new(),
        maps: maps::Snapshot::default(),
        defined: Default::default(),
    };
    w.put(&wire::hello());
    *WRITER.lock().unwrap_or_else(|p| p.into_inner()) = Some(w);
    DISABLED.store(false, Ordering::Relaxed);
    if let Some(n) = pause {
        fastforward::enable(id, n);
    }
    register(id);
    Ok(())
}

/// Registers the plugin's callbacks (at install, and again after each
/// fast-forward reset, which drops them all).
fn register(id: qemu_plugin_id_t) {
    // SAFETY: registering this library's callbacks with QEMU's id for it.
    unsafe {
        qemu_plugin_register_vcpu_tb_trans_cb(id, Some(vcpu_tb_trans));
        qemu_plugin_register_vcpu_syscall_cb(id, Some(vcpu_syscall));
        qemu_plugin_register_atexit_cb(id, Some(atexit), std::ptr::null_mut());
    }
}
