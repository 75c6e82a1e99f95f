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

#[derive(Clone)]
pub struct ShadowMemory {
    /// A fixed-size table: an index masked by `MASK` needs no bounds check.
    entries: Box<[Entry; 1 << BITS]>,
}

impl Default for ShadowMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl ShadowMemory {
    pub fn new() -> Self {
        let entries = vec![Entry { tag: EMPTY, key: 0, ready: 0.0 }; 1 << BITS].into_boxed_slice();
        Self { entries: entries.try_into().unwrap_or_else(|_| unreachable!("the table has 1 << BITS entries")) }
    }

    /// Direct-mapped by the granule's low bits, folded with the next ones so
    /// that stack and heap addresses with equal low bits do not collide.
    #[inline(always)]
    fn slot(granule: u64) -> (usize, u32) {
        let tag = (granule >> BITS) as u32;
        (((granule ^ tag as u64) & MASK) as usize, tag)
    }

    #[inline]
    pub fn write(&mut self, addr: u64, ready: f64, key: u64) {
        let (s, tag) = Self::slot(addr >> 3);
        self.entries[s] = Entry { tag, key: short_key(key), ready };
    }

    /// When the last store to `addr` made its data available, and that store's
    /// [`short_key`].
    #[inline]
    pub fn ready(&self, addr: u64) -> Option<(f64, u32)> {
        let (s, tag) = Self::slot(addr >> 3);
        let e = self.entries[s];
        (e.tag == tag).then_some((e.ready, e.key))
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
}
