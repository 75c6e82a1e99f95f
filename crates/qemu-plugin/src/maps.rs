//! The guest's mappings, for symbolizing what it executes.
//!
//! QEMU user mode runs the guest in QEMU's own address space, and on an
//! x86-64 host with an x86-64 guest its guest base is 0: a guest address is
//! the host address, and `/proc/self/maps` lists the guest's mappings (its
//! executable, ld.so, every library, anonymous memory) beside QEMU's own. It
//! is read here, in the process, at translation time, so what is read is the
//! address space the translated code lives in, even if the guest unmaps it
//! later or exits before the reader catches up.
//!
//! It is read again only when a block is translated at an address outside
//! every mapping seen so far, or after the guest called `mmap`, `munmap` or
//! `mremap` (which may have put another file where a known mapping was).
//! Each read writes a MAP record for every line that is new or changed since
//! the read before.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the syscall callback when the guest may have changed its mappings.
static STALE: AtomicBool = AtomicBool::new(true);

const SYS_MMAP: i64 = 9;
const SYS_MUNMAP: i64 = 11;
const SYS_MREMAP: i64 = 25;

/// Syscall callback: mapping calls make the snapshot stale.
pub(crate) fn on_syscall(num: i64) {
    if matches!(num, SYS_MMAP | SYS_MUNMAP | SYS_MREMAP) {
        STALE.store(true, Ordering::Relaxed);
    }
}

/// One line of `/proc/self/maps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MapLine {
    pub start: u64,
    pub end: u64,
    pub offset: u64,
    pub path: Vec<u8>,
}

/// The last snapshot, sorted by start.
#[derive(Default)]
pub(crate) struct Snapshot {
    lines: Vec<MapLine>,
}

impl Snapshot {
    /// Called when a block at `vaddr` is translated: the lines to report
    /// (empty when nothing needs reading).
    pub(crate) fn changes_for(&mut self, vaddr: u64) -> Vec<MapLine> {
        let covered = self.lines.iter().any(|l| l.start <= vaddr && vaddr < l.end);
        if covered && !STALE.load(Ordering::Relaxed) {
            return Vec::new();
        }
        STALE.store(false, Ordering::Relaxed);
        let Ok(text) = std::fs::read("/proc/self/maps") else { return Vec::new() };
        let fresh: Vec<MapLine> = text.split(|&b| b == b'\n').filter_map(parse_line).collect();
        let changed: Vec<MapLine> = fresh.iter().filter(|l| !self.lines.contains(l)).cloned().collect();
        self.lines = fresh;
        changed
    }
}

/// `start-end perms offset dev inode [path]`, all numbers in hex but inode.
fn parse_line(line: &[u8]) -> Option<MapLine> {
    let text = std::str::from_utf8(line).ok()?;
    let mut fields = text.splitn(6, ' ');
    let (start, end) = fields.next()?.split_once('-')?;
    let _perms = fields.next()?;
    let offset = fields.next()?;
    let _dev = fields.next()?;
    let _inode = fields.next()?;
    let path = fields.next().unwrap_or("").trim_start();
    Some(MapLine {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        offset: u64::from_str_radix(offset, 16).ok()?,
        path: path.as_bytes().to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_file_and_anonymous_lines() {
        let l = parse_line(b"4000000000-4000009000 r--p 00001000 fe:00 247774                         /usr/bin/sleep").unwrap();
        assert_eq!((l.start, l.end, l.offset), (0x40_0000_0000, 0x40_0000_9000, 0x1000));
        assert_eq!(l.path, b"/usr/bin/sleep");
        let a = parse_line(b"400000b000-400002c000 rw-p 00000000 00:00 0 ").unwrap();
        assert!(a.path.is_empty());
        let spaces = parse_line(b"1000-2000 r-xp 00000000 fe:00 1   /tmp/a b.so").unwrap();
        assert_eq!(spaces.path, b"/tmp/a b.so");
        assert!(parse_line(b"").is_none());
    }
}
