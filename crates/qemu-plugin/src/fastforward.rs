//! Fast-forward (plugin argument `pause=N`, shared memory mode only): stretches
//! of the run in which QEMU executes with no per-instruction and no per-access
//! callback, only a per-block counting callback, between stretches streamed in
//! full.
//!
//! # Protocol
//!
//! The reader steers; the plugin asks only at switch points, so the guest never
//! waits for the reader in between:
//!
//! 1. The plugin starts in full mode and streams `N` instructions (counted per
//!    executed block, `pause=N`), then, before the next block, writes PAUSE,
//!    announces the region and blocks on the control socket for the reader's
//!    RESUME (`transport::Resume`: skip S, then full F). The reader answers
//!    when its parser reaches the PAUSE record, from its sampling schedule.
//! 2. S = 0: the plugin streams F more instructions and pauses again.
//!    S > 0: it asks QEMU to reset the plugin (`qemu_plugin_reset`: QEMU 7.2
//!    drops every callback and flushes all translations once the vCPU leaves
//!    the block it runs) and re-registers with skip instrumentation: each
//!    block gets one exec callback that counts the block's executions in a
//!    slot of its own and the instructions left to skip. Blocks keep their
//!    full-mode instrumentation until the flush, and what they execute is
//!    streamed: the reader sees exactly what was not skipped.
//! 3. Once S instructions are skipped, the plugin resets again; when the
//!    flush is done it writes SKIPPED records (every block executed while
//!    skipping and its executions: exact per-block counts, so per-function
//!    instruction counts stay exact) and streams F instructions in full
//!    (F = 0: it pauses right away, so the reader can decide again once the
//!    skip is counted).
//!
//! A block retranslated after a switch keeps the id of its first translation
//! when its instructions are the same (no second TB_DEF), so the reader's
//! block table does not grow with every switch.
//!
//! Switches happen at block boundaries, so a skip is a few instructions
//! longer than asked: the reader takes the SKIPPED counts as the truth.
//! Counters are plain loads and stores: exact for one vCPU, approximate when
//! guest threads run in parallel. A forked child is not steered (nobody
//! answers its pauses): it finishes a skip under way and streams in full.
//!
//! Why per-block callbacks rather than QEMU 7.2's inline counters: an inline
//! add cannot test a threshold, and the switch to full mode must happen on the
//! vCPU (a reset requested from another thread is unsafe in 7.2). The
//! callback costs one helper call per block (bench/notes/sampling.md has the
//! measurements).

use std::ffi::{c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use bottlenose_trace_format::record as wire;
use bottlenose_trace_format::transport::{Resume, ACK, RESUME_LEN, RESUME_TAG};
use qemu_plugin_sys::{qemu_plugin_id_t, qemu_plugin_reset};

use crate::writer::with_writer;

/// Where the plugin is in the cycle of modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Phase {
    Full = 0,
    /// A reset to skip mode is requested; blocks still stream in full.
    ToSkip = 1,
    Skip = 2,
    /// A reset to full mode is requested; blocks still count.
    ToFull = 3,
}

impl Phase {
    fn load() -> Phase {
        match PHASE.load(Ordering::Relaxed) {
            1 => Phase::ToSkip,
            2 => Phase::Skip,
            3 => Phase::ToFull,
            _ => Phase::Full,
        }
    }
    fn store(self) {
        PHASE.store(self as u8, Ordering::Relaxed);
    }
}

static PHASE: AtomicU8 = AtomicU8::new(Phase::Full as u8);
/// A reader answers pauses (`pause=` given, not a forked child).
static CONTROLLED: AtomicBool = AtomicBool::new(false);
/// Full-mode instructions left before the next pause.
static FULL_LEFT: AtomicU64 = AtomicU64::new(Resume::NEVER);
/// Instructions still to skip (0: the switch back is requested).
static SKIP_LEFT: AtomicU64 = AtomicU64::new(0);
/// The full stretch that follows the skip under way.
static NEXT_FULL: AtomicU64 = AtomicU64::new(Resume::NEVER);
static PLUGIN_ID: AtomicU64 = AtomicU64::new(0);

/// The execution count of one block while skipping; at a fixed address for
/// the block's callback.
struct Slot {
    executions: AtomicU64,
    insns: AtomicU64,
}

const CHUNK: usize = 4096;

/// Slots by block id, in chunks that never move.
static SLOTS: Mutex<Vec<Box<[Slot]>>> = Mutex::new(Vec::new());

/// Turns fast-forward on: the first pause after `first_full` instructions.
pub(crate) fn enable(id: qemu_plugin_id_t, first_full: u64) {
    PLUGIN_ID.store(id, Ordering::Relaxed);
    FULL_LEFT.store(first_full, Ordering::Relaxed);
    CONTROLLED.store(true, Ordering::Relaxed);
}

/// Whether a reader steers this plugin (block ids are then reused on retranslation).
pub(crate) fn enabled() -> bool {
    CONTROLLED.load(Ordering::Relaxed)
}

/// Whether blocks translated now get the skip instrumentation.
#[inline]
pub(crate) fn skipping() -> bool {
    matches!(Phase::load(), Phase::Skip | Phase::ToFull)
}

/// The slot of block `id` holding `n` instructions, for its skip callback.
pub(crate) fn slot(id: u32, n: usize) -> *const c_void {
    let mut slots = SLOTS.lock().unwrap_or_else(|p| p.into_inner());
    let (chunk, at) = (id as usize / CHUNK, id as usize % CHUNK);
    while slots.len() <= chunk {
        slots.push((0..CHUNK).map(|_| Slot { executions: AtomicU64::new(0), insns: AtomicU64::new(0) }).collect());
    }
    let s = &slots[chunk][at];
    s.insns.store(n as u64, Ordering::Relaxed);
    s as *const Slot as *const c_void
}

/// The exec callback of a block translated while skipping.
pub(crate) unsafe extern "C" fn skip_exec(_vcpu: c_uint, userdata: *mut c_void) {
    // SAFETY: `userdata` is a slot from `slot`, which lives for the process.
    let s = &*(userdata as *const Slot);
    s.executions.store(s.executions.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    let left = SKIP_LEFT.load(Ordering::Relaxed);
    let n = s.insns.load(Ordering::Relaxed);
    if left > n {
        SKIP_LEFT.store(left - n, Ordering::Relaxed);
    } else if left != 0 {
        SKIP_LEFT.store(0, Ordering::Relaxed);
        Phase::ToFull.store();
        request_reset();
    }
}

/// Called in full mode before block entry of `n` instructions is written:
/// pauses when the full stretch is used up.
#[inline]
pub(crate) fn before_full_block(n: u64) {
    let left = FULL_LEFT.load(Ordering::Relaxed);
    if left == Resume::NEVER {
        return;
    }
    if left > 0 {
        FULL_LEFT.store(left.saturating_sub(n), Ordering::Relaxed);
        return;
    }
    FULL_LEFT.store(Resume::NEVER, Ordering::Relaxed);
    let r = pause();
    if r.skip > 0 {
        SKIP_LEFT.store(r.skip, Ordering::Relaxed);
        NEXT_FULL.store(r.full, Ordering::Relaxed);
        Phase::ToSkip.store();
        request_reset();
    } else {
        FULL_LEFT.store(full_budget(r.full).saturating_sub(n), Ordering::Relaxed);
    }
}

/// A full stretch of `full` instructions (0 after no skip would pause forever: never).
fn full_budget(full: u64) -> u64 {
    if full == 0 {
        Resume::NEVER
    } else {
        full
    }
}

/// Writes PAUSE, hands the region over and waits for the reader's answer.
/// A reader that is gone gets the rest of the run in full.
fn pause() -> Resume {
    if !CONTROLLED.load(Ordering::Relaxed) {
        return Resume::FULL;
    }
    let r = with_writer(|w| {
        w.put(&wire::pause());
        w.flush(false);
        w.wait_resume()
    });
    match r.flatten() {
        Some(r) => r,
        None => {
            CONTROLLED.store(false, Ordering::Relaxed);
            Resume::FULL
        }
    }
}

fn request_reset() {
    // SAFETY: called from a vCPU callback, as QEMU requires.
    unsafe { qemu_plugin_reset(PLUGIN_ID.load(Ordering::Relaxed), Some(on_reset)) };
}

/// QEMU flushed the translations and dropped every callback: register again
/// for the mode that comes next.
unsafe extern "C" fn on_reset(id: qemu_plugin_id_t) {
    match Phase::load() {
        Phase::ToSkip => Phase::Skip.store(),
        Phase::ToFull => {
            write_skipped();
            let mut full = NEXT_FULL.load(Ordering::Relaxed);
            while full == 0 {
                let r = pause();
                if r.skip > 0 {
                    SKIP_LEFT.store(r.skip, Ordering::Relaxed);
                    NEXT_FULL.store(r.full, Ordering::Relaxed);
                    Phase::Skip.store();
                    crate::callbacks::register(id);
                    return;
                }
                full = full_budget(r.full);
            }
            FULL_LEFT.store(full, Ordering::Relaxed);
            Phase::Full.store();
        }
        Phase::Full | Phase::Skip => {}
    }
    crate::callbacks::register(id);
}

/// SKIPPED records of every block executed while skipping; their counts start again.
fn write_skipped() {
    let mut entries: Vec<(u32, u64)> = Vec::new();
    {
        let slots = SLOTS.lock().unwrap_or_else(|p| p.into_inner());
        for (c, chunk) in slots.iter().enumerate() {
            for (i, s) in chunk.iter().enumerate() {
                let n = s.executions.swap(0, Ordering::Relaxed);
                if n > 0 {
                    entries.push(((c * CHUNK + i) as u32, n));
                }
            }
        }
    }
    with_writer(|w| {
        let mut rec = Vec::new();
        for part in entries.chunks(wire::MAX_SKIPPED_ENTRIES) {
            rec.clear();
            wire::push_skipped(&mut rec, part);
            w.put(&rec);
        }
    });
}

/// At exit: what was skipped since the last switch.
pub(crate) fn at_exit() {
    if skipping() {
        write_skipped();
    }
}

/// In a forked child: nobody answers its pauses. A skip under way ends at the
/// next block (its count goes to the child's own stream), then all is full.
pub(crate) fn forked_child() {
    if !CONTROLLED.swap(false, Ordering::Relaxed) {
        return;
    }
    NEXT_FULL.store(Resume::NEVER, Ordering::Relaxed);
    FULL_LEFT.store(Resume::NEVER, Ordering::Relaxed);
    if Phase::load() == Phase::Skip {
        SKIP_LEFT.store(1, Ordering::Relaxed);
    }
}

/// The bytes the reader sends on the control socket: region acknowledgements
/// and answers to pauses, taken apart as they arrive.
#[derive(Default)]
pub(crate) struct Inbox {
    buf: [u8; 32],
    len: usize,
    resume: Option<Resume>,
}

impl Inbox {
    /// Reads what is there (blocking for at least one byte) and returns the
    /// acknowledgements it held; `None` when the reader is gone or broke the protocol.
    pub(crate) fn receive(&mut self, fd: libc::c_int) -> Option<u64> {
        loop {
            // SAFETY: reading into our own buffer past its valid bytes.
            let n = unsafe { libc::read(fd, self.buf[self.len..].as_mut_ptr().cast(), self.buf.len() - self.len) };
            if n > 0 {
                self.len += n as usize;
                break;
            }
            if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return None;
        }
        let mut acks = 0;
        let mut at = 0;
        while at < self.len {
            match self.buf[at] {
                ACK => {
                    acks += 1;
                    at += 1;
                }
                RESUME_TAG if self.len - at >= RESUME_LEN => {
                    let body: &[u8; RESUME_LEN - 1] = self.buf[at + 1..at + RESUME_LEN].try_into().expect("length checked");
                    self.resume = Some(Resume::decode(body));
                    at += RESUME_LEN;
                }
                RESUME_TAG => break, // the rest of it is still on its way
                _ => return None,
            }
        }
        self.buf.copy_within(at..self.len, 0);
        self.len -= at;
        Some(acks)
    }

    /// The answer to the latest pause, once.
    pub(crate) fn take_resume(&mut self) -> Option<Resume> {
        self.resume.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;

    #[test]
    fn the_inbox_takes_acknowledgements_and_answers_apart_across_reads() {
        let (mut reader_side, plugin_side) = UnixStream::pair().unwrap();
        let mut inbox = Inbox::default();
        let answer = Resume { skip: 0x0102_0304_0506_0708, full: 77 };
        let bytes = answer.encode();
        // two acknowledgements and the first 5 bytes of an answer
        reader_side.write_all(&[ACK, ACK]).unwrap();
        reader_side.write_all(&bytes[..5]).unwrap();
        assert_eq!(inbox.receive(plugin_side.as_raw_fd()), Some(2));
        assert_eq!(inbox.take_resume(), None, "half an answer is no answer");
        // the rest of it, then one more acknowledgement
        reader_side.write_all(&bytes[5..]).unwrap();
        reader_side.write_all(&[ACK]).unwrap();
        assert_eq!(inbox.receive(plugin_side.as_raw_fd()), Some(1));
        assert_eq!(inbox.take_resume(), Some(answer));
        assert_eq!(inbox.take_resume(), None, "once");
        // a byte that is neither breaks the protocol
        reader_side.write_all(&[7]).unwrap();
        assert_eq!(inbox.receive(plugin_side.as_raw_fd()), None);
        // and a reader that is gone ends it
        drop(reader_side);
        let mut inbox = Inbox::default();
        assert_eq!(inbox.receive(plugin_side.as_raw_fd()), None);
    }
}
