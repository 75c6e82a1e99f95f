//! Shadow memory: when the data stored at an address becomes available, so a
//! later load of that address waits for it (store-to-load dependencies, which
//! static analyzers miss; Gus §4.3's adi example).
//!
//! A direct-mapped table of 8-byte granules keeps memory bounded on long runs;
//! an evicted entry only loses a dependency that is long past in practice: a
//! store matters to a load only while it is in flight (a ROB's worth of
//! instructions), far fewer than the 16 Ki entries. The table (256 KiB) is
//! sized to stay in L2 next to the rest of the model: at 1 MiB its lookups
//! cost 3 % of a dynamic run.

use std::sync::Arc;

const BITS: u32 = 14;
const MASK: u64 = (1 << BITS) - 1;
/// A tag no granule has: user-space addresses are below 2^47.
const EMPTY: u32 = u32::MAX;

/// One granule's entry: 16 bytes, so a lookup touches one cache line, and
/// neighbouring granules (a stream of stores) share lines.
#[derive(Clone, Copy)]
struct Entry {
    /// The granule's bits above the slot index.
    tag: u32,
    /// The storing instruction's address-expression key, shortened ([`short_key`]).
    key: u32,
    ready: f64,
}

/// 32 bits of an address-expression key (`InstrTiming::mem_key`, a multiplicative
/// hash: its high bits depend on every input bit, its low bits do not), never 0
/// for a renamable expression (key != 0), 0 for none.
#[inline(always)]
pub fn short_key(key: u64) -> u32 {
    if key == 0 {
        0
    } else {
        (key >> 32) as u32 | 1
    }
}

/// The entries, one per slot (`1 << BITS` of them).
type Table = [Entry];

const EMPTY_ENTRY: Entry = Entry { tag: EMPTY, key: 0, ready: 0.0 };

/// A core's shadow memory.
///
/// A sampled run's sensitivity variants fork from the baseline at every unit they
/// time, a hundred of them at a time, and each fork copied the whole table (256
/// KiB): most of the cost of a fork, a tenth of a default run's CPU on a short
/// program. Now a copy of a core (the snapshot the variants fork from) freezes a
/// copy of the table once, and each fork reads that frozen table under an overlay
/// of its own writes, kept from fork to fork: a slot written since the fork is
/// read in the overlay, any other in the table. A lookup sees what a copy of the
/// table would hold.
pub struct ShadowMemory {
    tables: Tables,
}

enum Tables {
    /// The table of a core that is stepped and not a fork.
    Own(Box<Table>),
    /// A copy's table, shared with the forks made from it; written, it becomes `Own`.
    Frozen(Arc<Table>),
    /// A fork: its writes since the fork over the table it was made from.
    Fork { under: Arc<Table>, overlay: Box<Overlay> },
}

/// A fork's writes since it was made: `entries[s]` is current where `written[s]`
/// is the fork's generation (older generations are earlier forks' writes).
pub(crate) struct Overlay {
    entries: Box<Table>,
    written: Box<[u32]>,
    generation: u32,
}

impl Overlay {
    fn new() -> Self {
        Overlay { entries: vec![EMPTY_ENTRY; 1 << BITS].into_boxed_slice(), written: vec![0; 1 << BITS].into_boxed_slice(), generation: 0 }
    }

    /// A new fork: nothing written yet.
    fn restart(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // the counter went round: forget every generation
            self.written.fill(0);
            self.generation = 1;
        }
    }

    #[inline(always)]
    fn current(&self, s: usize) -> Option<Entry> {
        (self.written[s] == self.generation).then(|| self.entries[s])
    }
}

impl Default for ShadowMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for ShadowMemory {
    /// A copy whose table is frozen and shared (with the forks made from the copy).
    fn clone(&self) -> Self {
        ShadowMemory { tables: Tables::Frozen(self.frozen()) }
    }
}

impl ShadowMemory {
    pub fn new() -> Self {
        Self { tables: Tables::Own(vec![EMPTY_ENTRY; 1 << BITS].into_boxed_slice()) }
    }

    #[inline(always)]
    fn slot(granule: u64) -> (usize, u32) {
        let tag = (granule >> BITS) as u32;
        (((granule ^ tag as u64) & MASK) as usize, tag)
    }

    /// What slot `s` holds.
    #[inline(always)]
    fn entry(&self, s: usize) -> Entry {
        match &self.tables {
            Tables::Own(t) => t[s],
            Tables::Fork { under, overlay } => overlay.current(s).unwrap_or(under[s]),
            Tables::Frozen(t) => t[s],
        }
    }

    #[inline]
    pub fn write(&mut self, addr: u64, ready: f64, key: u64) {
        let (s, tag) = Self::slot(addr >> 3);
        let e = Entry { tag, key: short_key(key), ready };
        match &mut self.tables {
            Tables::Own(t) => t[s] = e,
            Tables::Fork { overlay, .. } => {
                overlay.entries[s] = e;
                overlay.written[s] = overlay.generation;
            }
            Tables::Frozen(t) => {
                let mut own: Box<Table> = t.iter().copied().collect();
                own[s] = e;
                self.tables = Tables::Own(own);
            }
        }
    }

    #[inline]
    pub fn ready(&self, addr: u64) -> Option<(f64, u32)> {
        let (s, tag) = Self::slot(addr >> 3);
        let e = self.entry(s);
        (e.tag == tag).then_some((e.ready, e.key))
    }

    /// The table as it reads now, frozen: the shared one if it is frozen already.
    fn frozen(&self) -> Arc<Table> {
        match &self.tables {
            Tables::Frozen(t) => t.clone(),
            _ => (0..1 << BITS).map(|s| self.entry(s)).collect(),
        }
    }

    /// The overlay of a fork, to be reused by the next fork into the same core.
    pub(crate) fn take_overlay(&mut self) -> Option<Box<Overlay>> {
        match std::mem::replace(&mut self.tables, Tables::Frozen(Arc::from(Vec::new()))) {
            Tables::Fork { under, overlay } => {
                self.tables = Tables::Frozen(under);
                Some(overlay)
            }
            other => {
                self.tables = other;
                None
            }
        }
    }

    /// This memory (a copy, its table frozen) becomes a fork: its writes from
    /// now on go to `overlay` (a new one when `None`), over the frozen table.
    pub(crate) fn begin_fork(&mut self, overlay: Option<Box<Overlay>>) {
        let under = self.frozen();
        let mut overlay = overlay.unwrap_or_else(|| Box::new(Overlay::new()));
        overlay.restart();
        self.tables = Tables::Fork { under, overlay };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_seen_by_loads_of_its_granule_only() {
        let mut m = ShadowMemory::new();
        m.write(0x7ffd_1234_5678, 12.0, 0xabcd_0001_0000_0000);
        assert_eq!(m.ready(0x7ffd_1234_567c), Some((12.0, short_key(0xabcd_0001_0000_0000))));
        assert_eq!(m.ready(0x7ffd_1234_5680), None);
        // same slot index in another region: a different tag
        assert_eq!(m.ready(0x5555_1234_5678), None);
        m.write(0x5555_1234_5678, 3.0, 0);
        assert_eq!(m.ready(0x5555_1234_5678), Some((3.0, 0)));
    }

    /// A fork reads what a copy of the table would hold: the source's entries at the
    /// fork, its own writes after it; the source's later writes and an earlier fork's
    /// writes into the same overlay are not seen, and the copy it came from is left as it was.
    #[test]
    fn a_fork_sees_its_source_at_the_fork_and_its_own_writes() {
        let (a, b, c) = (0x7ffd_0000_1000u64, 0x7ffd_0000_2000u64, 0x7ffd_0000_3000u64);
        let mut base = ShadowMemory::new();
        base.write(a, 1.0, 0);
        base.write(b, 2.0, 0);
        let snapshot = base.clone();
        base.write(a, 10.0, 0); // after the snapshot: no fork of it sees this
        let mut fork = snapshot.clone();
        fork.begin_fork(None);
        assert_eq!((fork.ready(a), fork.ready(b), fork.ready(c)), (Some((1.0, 0)), Some((2.0, 0)), None));
        fork.write(b, 20.0, 0);
        fork.write(c, 30.0, 0);
        assert_eq!((fork.ready(b), fork.ready(c)), (Some((20.0, 0)), Some((30.0, 0))));
        assert_eq!((snapshot.ready(b), snapshot.ready(c), base.ready(a)), (Some((2.0, 0)), None, Some((10.0, 0))));
        // the next fork into the same core reuses the overlay, emptied
        let overlay = fork.take_overlay();
        let mut fork = base.clone();
        fork.begin_fork(overlay);
        assert_eq!((fork.ready(a), fork.ready(b), fork.ready(c)), (Some((10.0, 0)), Some((2.0, 0)), None));
        // a copy of a fork holds the fork's view, and a written copy its own
        fork.write(c, 31.0, 0);
        let mut copy = fork.clone();
        assert_eq!(copy.ready(c), Some((31.0, 0)));
        copy.write(a, 5.0, 0);
        assert_eq!((copy.ready(a), fork.ready(a)), (Some((5.0, 0)), Some((10.0, 0))));
    }
}
