//! The stream writer: the records of every callback go through the one
//! [`Writer`] (behind a mutex) into its sink, buffered writes to a descriptor
//! or regions of shared memory announced over the control socket (the
//! protocol is described at the top of `lib.rs`).

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Mutex;

use bottlenose_trace_format::transport::{SHM_HEADER, SHM_LEN_STRIDE, SHM_MAX_REGIONS, SHM_MIN_REGIONS, SHM_MIN_REGION_SIZE, SHM_N_REGIONS_AT, SHM_REGION_SIZE_AT};

use crate::{fastforward, maps};

/// Buffer size in `fd` mode.
pub(crate) const BUF_CAP: usize = 256 * 1024;

/// Set once writing is pointless: the reader is gone, the guest exited, or
/// this is a forked child (which must not write into its parent's stream).
/// Checked before taking the lock, so a disabled plugin costs one load.
pub(crate) static DISABLED: AtomicBool = AtomicBool::new(true);
/// The control/output descriptor, for the fork handler (which must not lock).
pub(crate) static OUT_FD: AtomicI32 = AtomicI32::new(-1);

/// Where records go.
pub(crate) enum Sink {
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

pub(crate) struct Writer {
    pub(crate) fd: c_int,
    pub(crate) sink: Sink,
    pub(crate) next_tb: u32,
    /// vCPU of the latest TB_EXEC or MEM_VCPU record.
    pub(crate) last_vcpu: u32,
    /// Every TB_DEF record written, when children are followed: a forked
    /// child replays them into its own stream.
    pub(crate) defs: Vec<u8>,
    /// The guest mappings last reported.
    pub(crate) maps: maps::Snapshot,
    /// Fast-forward: the block defined at each address (its id and TB_DEF
    /// record with id 0), so that a retranslation after a switch keeps its id.
    pub(crate) defined: std::collections::HashMap<u64, (u32, Vec<u8>)>,
}

// SAFETY: the raw pointer is to a shared mapping owned by the writer for the
// life of the process; all access goes through the mutex.
unsafe impl Send for Writer {}

pub(crate) static WRITER: Mutex<Option<Writer>> = Mutex::new(None);

pub(crate) fn stop() {
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
    pub(crate) fn put(&mut self, rec: &[u8]) {
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
    pub(crate) fn flush(&mut self, last: bool) {
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
    /// In a forked child: the parent's shared memory is not the child's to write,
    /// so its mapping goes (a stray write then faults instead of corrupting the
    /// parent's stream), and the sink with it.
    pub(crate) fn unmap_parent_sink(&mut self) {
        if let Sink::Shm { base, region_size, n_regions, .. } = self.sink {
            // SAFETY: the mapping `map_shm` made, of this size; nothing uses it after this
            unsafe { libc::munmap(base.cast(), SHM_HEADER + n_regions * region_size) };
            self.sink = Sink::Fd { buf: Vec::new(), is_socket: true };
        }
    }

    /// Waits for the reader's answer to a pause (`None`: the reader is gone,
    /// or this is no shared memory stream).
    pub(crate) fn wait_resume(&mut self) -> Option<bottlenose_trace_format::transport::Resume> {
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
    pub(crate) fn block_id(&mut self, vaddr: u64, rec: &[u8]) -> (u32, bool) {
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
pub(crate) fn with_writer<T>(f: impl FnOnce(&mut Writer) -> T) -> Option<T> {
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

/// Maps the shared memory file `fd`; returns (mapping, region size, number
/// of regions).
pub(crate) unsafe fn map_shm(fd: c_int) -> Result<(*mut u8, usize, usize), String> {
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
