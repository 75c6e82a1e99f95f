//! The reading side of the plugin's shared memory transport (`shm=` mode):
//! a memfd of one 4 KiB header page and `SHM_REGIONS` regions used round
//! robin, plus a Unix stream socket carrying "region r holds n bytes"
//! messages one way and one-byte acknowledgements the other. The header
//! holds each region's committed length (u64 at 64 * r) and the layout
//! (u64 region count at 2048, u64 region size at 2056), written here.
//!
//! The plugin updates the committed length of the region it is filling in
//! the header after every record, so when QEMU dies without flushing (QEMU
//! 7.2 runs no plugin exit hook on a guest's fatal signal) the records it
//! wrote are still there: at end of file on the socket, the region after
//! the last announced one holds the tail of the stream.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};

use bottlenose_trace_format::transport::{
    SHM_HEADER, SHM_LEN_STRIDE, SHM_MAX_REGIONS, SHM_MIN_REGIONS, SHM_N_REGIONS_AT, SHM_REGIONS, SHM_REGION_SIZE as SHM_REGION, SHM_REGION_SIZE_AT,
};

const SHM_SIZE: usize = SHM_HEADER + SHM_REGIONS * SHM_REGION;

/// Creates the shared memory file (close-on-exec) with its layout in the
/// header.
pub(crate) fn create_shm() -> io::Result<OwnedFd> {
    // SAFETY: plain syscalls on a descriptor we own; the name is
    // NUL-terminated.
    unsafe {
        let fd = libc::memfd_create(c"bottlenose-trace".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = OwnedFd::from_raw_fd(fd);
        if libc::ftruncate(fd.as_raw_fd(), SHM_SIZE as libc::off_t) != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut layout = [0u8; 16];
        layout[..8].copy_from_slice(&(SHM_REGIONS as u64).to_ne_bytes());
        layout[8..].copy_from_slice(&(SHM_REGION as u64).to_ne_bytes());
        let n = libc::pwrite(
            fd.as_raw_fd(),
            layout.as_ptr().cast(),
            layout.len(),
            SHM_N_REGIONS_AT as libc::off_t,
        );
        if n != layout.len() as isize {
            return Err(io::Error::last_os_error());
        }
        Ok(fd)
    }
}

#[derive(Debug, Clone, Copy)]
struct Chunk {
    region: usize,
    len: usize,
    off: usize,
    /// Acknowledge when consumed (false for the tail after end of file).
    ack: bool,
}

/// The trace stream of a run in shared memory mode, as a [`Read`].
#[derive(Debug)]
pub(crate) struct ShmStream {
    sock: UnixStream,
    map: *mut u8,
    map_len: usize,
    region_size: usize,
    n_regions: usize,
    cur: Option<Chunk>,
    /// Region the plugin fills after the last announced one.
    next_region: usize,
    eof: bool,
}

// SAFETY: the mapping is owned by the stream and only read through it.
unsafe impl Send for ShmStream {}

impl ShmStream {
    /// Maps `shm` for reading: made by [`create_shm`], or by the plugin of a
    /// forked or exec'd process (the layout is read from its header).
    pub(crate) fn new(sock: UnixStream, shm: &OwnedFd) -> io::Result<Self> {
        // SAFETY: fstat into a zeroed struct.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(shm.as_raw_fd(), &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let map_len = st.st_size as usize;
        let bad = |m: String| io::Error::new(io::ErrorKind::InvalidData, m);
        if map_len <= SHM_HEADER {
            return Err(bad(format!("trace shared memory of {map_len} bytes")));
        }
        // SAFETY: mapping the whole file, read only.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                shm.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let map = p.cast::<u8>();
        // SAFETY: the header page is mapped.
        let (n_regions, region_size) = unsafe {
            (
                (*(map.add(SHM_N_REGIONS_AT) as *const AtomicU64)).load(Ordering::Acquire) as usize,
                (*(map.add(SHM_REGION_SIZE_AT) as *const AtomicU64)).load(Ordering::Acquire) as usize,
            )
        };
        if !(SHM_MIN_REGIONS..=SHM_MAX_REGIONS).contains(&n_regions)
            || region_size == 0
            || region_size > u32::MAX as usize
            || SHM_HEADER + n_regions * region_size > map_len
        {
            // SAFETY: unmapping what we just mapped.
            unsafe { libc::munmap(p, map_len) };
            return Err(bad(format!(
                "trace shared memory layout of {n_regions} regions of {region_size} bytes in {map_len} bytes"
            )));
        }
        Ok(ShmStream {
            sock,
            map,
            map_len,
            region_size,
            n_regions,
            cur: None,
            next_region: 0,
            eof: false,
        })
    }

    /// Where answers to the plugin's pauses go (the control socket; see
    /// `transport::Resume`).
    pub(crate) fn answerer(&self) -> io::Result<Answerer> {
        Ok(Answerer(self.sock.try_clone()?))
    }

    fn committed(&self, region: usize) -> usize {
        // SAFETY: the header page is mapped; the plugin stores these with
        // release ordering after writing the bytes they cover.
        let len = unsafe { &*(self.map.add(region * SHM_LEN_STRIDE) as *const AtomicU64) };
        (len.load(Ordering::Acquire) as usize).min(self.region_size)
    }

    fn ack(&self) {
        // MSG_NOSIGNAL: the plugin may be gone (after its last region).
        // SAFETY: sending one byte from a local buffer.
        unsafe {
            libc::send(
                self.sock.as_raw_fd(),
                [0u8].as_ptr().cast(),
                1,
                libc::MSG_NOSIGNAL,
            );
        }
    }

    /// Reads the next 8-byte message; None at end of file.
    fn message(&mut self) -> io::Result<Option<(usize, usize)>> {
        let mut msg = [0u8; 8];
        let mut got = 0;
        while got < 8 {
            match (&self.sock).read(&mut msg[got..]) {
                Ok(0) => return Ok(None),
                // QEMU died with our acknowledgements unread.
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(None),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let region = u32::from_le_bytes(msg[..4].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(msg[4..].try_into().unwrap()) as usize;
        if region >= self.n_regions || len > self.region_size {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad shared memory message (region {region}, {len} bytes)"),
            ));
        }
        Ok(Some((region, len)))
    }
}

impl Read for ShmStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(c) = &mut self.cur {
                if c.off < c.len {
                    let n = buf.len().min(c.len - c.off);
                    // SAFETY: [off, off+n) is inside the region, which the
                    // plugin does not touch until we acknowledge it (or has
                    // exited, for the tail).
                    unsafe {
                        let src = self
                            .map
                            .add(SHM_HEADER + c.region * self.region_size + c.off);
                        std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), n);
                    }
                    c.off += n;
                    return Ok(n);
                }
                let ack = c.ack;
                self.cur = None;
                if ack {
                    self.ack();
                }
            }
            if self.eof {
                return Ok(0);
            }
            match self.message()? {
                Some((region, len)) => {
                    self.cur = Some(Chunk {
                        region,
                        len,
                        off: 0,
                        ack: true,
                    });
                    self.next_region = (region + 1) % self.n_regions;
                }
                None => {
                    self.eof = true;
                    let region = self.next_region;
                    self.cur = Some(Chunk {
                        region,
                        len: self.committed(region),
                        off: 0,
                        ack: false,
                    });
                }
            }
        }
    }
}

/// Sends answers to the plugin's pauses on the control socket. Written from
/// the thread that reads the stream (as the acknowledgements are), so the
/// two never interleave inside a message.
#[derive(Debug)]
pub(crate) struct Answerer(UnixStream);

impl Answerer {
    pub(crate) fn send(&self, r: bottlenose_trace_format::transport::Resume) {
        let msg = r.encode();
        let mut at = 0;
        while at < msg.len() {
            // MSG_NOSIGNAL: QEMU may be gone.
            // SAFETY: sending from a local buffer.
            let n = unsafe { libc::send(self.0.as_raw_fd(), msg[at..].as_ptr().cast(), msg.len() - at, libc::MSG_NOSIGNAL) };
            if n > 0 {
                at += n as usize;
            } else if !(n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted) {
                return; // the plugin is gone: nobody waits for the answer
            }
        }
    }
}

impl Drop for ShmStream {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping once.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}
