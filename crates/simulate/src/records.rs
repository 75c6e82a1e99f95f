//! The executed-instruction stream as it travels from the producer to the
//! timing workers: 16 bytes per instruction instead of a whole [`DynInfo`].
//!
//! Most executions need only their instruction, one data address (a
//! read-modify-write's load and store share it), the levels that served it and
//! three flags; the rest (TLB and fetch delays, prefetches, write-backs, line
//! splits, string work, two addresses) is set on 1.7 % of speed.c's, which keep
//! their whole `DynInfo` on the side.
//!
//! What it buys is memory: a sampled run keeps its exact prefix's records until
//! the end (2 M instructions), and batches are in flight to every timing worker
//! and idealized stream; the default run of `phases 40` peaked at 281 MB instead
//! of 406. In time it is even on the Zen 4 it was measured on: every record
//! crosses from the producer's core to the timing core, and the smaller records
//! cut the producer's cost of that trip from 0.53 to 0.37 s on speed.c (66 M
//! instructions, a replay of its trace), about what packing and unpacking add.

use bottlenose_timing::DynInfo;
use std::num::NonZeroU64;
use std::ops::Range;

/// One executed instruction: static index + dynamic facts.
#[derive(Clone, Copy, Debug)]
pub struct DynRecord {
    pub id: u32,
    pub info: DynInfo,
}

/// A run of executed instructions in stream order.
#[derive(Clone, Debug, Default)]
pub struct Records {
    packed: Vec<Packed>,
    /// The whole facts of the records with [`Packed::RARE`], in order.
    rare: Vec<DynInfo>,
}

/// One record: the instruction, its common facts as bits, and its one data
/// address (a read-modify-write's load and store share it), or for a rare
/// record the index of its facts in [`Records::rare`].
#[derive(Clone, Copy, Debug)]
struct Packed {
    id: u32,
    bits: u32,
    addr: u64,
}

const _: () = assert!(std::mem::size_of::<Packed>() == 16);

impl Packed {
    // the bit layout of `bits`: two 2-bit levels, then flags
    const LOAD_LEVEL_SHIFT: u32 = 0;
    const STORE_LEVEL_SHIFT: u32 = 2;
    const LEVEL_MASK: u32 = 0b11;
    const MISPREDICTED: u32 = 1 << 4;
    const NEW_FETCH_BLOCK: u32 = 1 << 5;
    const FETCH_STREAM: u32 = 1 << 6;
    /// `addr` is the load's address.
    const LOAD: u32 = 1 << 7;
    /// `addr` is the store's address.
    const STORE: u32 = 1 << 8;
    /// `addr` indexes the record's whole facts in `rare`.
    const RARE: u32 = 1 << 9;

    /// The common form of `info`, if it has one: nothing but addresses (at most
    /// one, or the same twice), levels and flags.
    #[inline(always)]
    fn common(id: u32, info: &DynInfo) -> Option<Packed> {
        // Each field read on its own, at its own width: the producer has just written
        // `info` with a wide clear and narrow stores, and a read that spans two of them
        // (the compiler merges neighbouring fields into one wide load) waits for the
        // stores to retire, a store-forwarding stall on every record.
        fn read<T: Copy>(field: &T) -> T {
            // SAFETY: a reference is valid for reads of its type.
            unsafe { std::ptr::read_volatile(field) }
        }
        // bits, not values: a -0.0 must come back as -0.0 (`--exact` is bit-identical)
        let delays = read(&info.load_extra_latency).to_bits() | read(&info.fetch_stall).to_bits() | read(&info.btb_stall).to_bits() | read(&info.fetch_bubble).to_bits();
        let prefetch = read(&info.prefetch_line).is_some() || read(&info.prefetch_level) != 0 || read(&info.prefetch_next_lines) != 0;
        let string = read(&info.string.elements) | read(&info.string.fills[0]) | read(&info.string.fills[1]) | read(&info.string.fills[2]);
        let (load_level, store_level) = (read(&info.load_level), read(&info.store_level));
        if delays != 0 || prefetch || string != 0 || read(&info.lines) != Default::default() || load_level > 3 || store_level > 3 {
            return None;
        }
        let (load_addr, store_addr) = (read(&info.load_addr), read(&info.store_addr));
        let (mispredicted, new_fetch_block, fetch_stream) = (read(&info.mispredicted), read(&info.new_fetch_block), read(&info.fetch_stream));
        let (addr, which) = match (load_addr, store_addr) {
            (None, None) => (0, 0),
            (Some(l), None) => (l.get(), Self::LOAD),
            (None, Some(s)) => (s.get(), Self::STORE),
            (Some(l), Some(s)) if l == s => (l.get(), Self::LOAD | Self::STORE),
            (Some(_), Some(_)) => return None,
        };
        let flag = |on: bool, bit: u32| if on { bit } else { 0 };
        let bits = (load_level as u32) << Self::LOAD_LEVEL_SHIFT
            | (store_level as u32) << Self::STORE_LEVEL_SHIFT
            | flag(mispredicted, Self::MISPREDICTED)
            | flag(new_fetch_block, Self::NEW_FETCH_BLOCK)
            | flag(fetch_stream, Self::FETCH_STREAM)
            | which;
        Some(Packed { id, bits, addr })
    }

    #[inline(always)]
    fn unpack(self, rare: &[DynInfo]) -> DynRecord {
        let b = self.bits;
        if b & Self::RARE != 0 {
            return DynRecord { id: self.id, info: rare[self.addr as usize] };
        }
        let addr = NonZeroU64::new(self.addr);
        let info = DynInfo {
            load_addr: if b & Self::LOAD != 0 { addr } else { None },
            store_addr: if b & Self::STORE != 0 { addr } else { None },
            load_level: (b >> Self::LOAD_LEVEL_SHIFT & Self::LEVEL_MASK) as u8,
            store_level: (b >> Self::STORE_LEVEL_SHIFT & Self::LEVEL_MASK) as u8,
            mispredicted: b & Self::MISPREDICTED != 0,
            new_fetch_block: b & Self::NEW_FETCH_BLOCK != 0,
            fetch_stream: b & Self::FETCH_STREAM != 0,
            ..DynInfo::default()
        };
        DynRecord { id: self.id, info }
    }
}

impl Records {
    pub fn with_capacity(records: usize) -> Self {
        Self { packed: Vec::with_capacity(records), rare: Vec::new() }
    }

    /// Appends one execution of static instruction `id`.
    #[inline(always)]
    pub fn push(&mut self, id: u32, info: &DynInfo) {
        let p = match Packed::common(id, info) {
            Some(p) => p,
            None => {
                self.rare.push(*info);
                Packed { id, bits: Packed::RARE, addr: (self.rare.len() - 1) as u64 }
            }
        };
        self.packed.push(p);
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Empties it, keeping its memory (buffers are reused warm).
    pub fn clear(&mut self) {
        self.packed.clear();
        self.rare.clear();
    }

    /// All of it, as a view that can be cut.
    pub fn all(&self) -> RecordSlice<'_> {
        RecordSlice { packed: &self.packed, rare: &self.rare }
    }

    /// The records in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = DynRecord> + Clone + '_ {
        self.all().iter()
    }

    /// The static instruction of each record, in order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = u32> + Clone + '_ {
        self.packed.iter().map(|p| p.id)
    }
}

impl Extend<DynRecord> for Records {
    fn extend<I: IntoIterator<Item = DynRecord>>(&mut self, iter: I) {
        for r in iter {
            self.push(r.id, &r.info);
        }
    }
}

impl FromIterator<DynRecord> for Records {
    fn from_iter<I: IntoIterator<Item = DynRecord>>(iter: I) -> Self {
        let mut r = Records::default();
        r.extend(iter);
        r
    }
}

/// A contiguous part of [`Records`].
#[derive(Clone, Copy)]
pub struct RecordSlice<'a> {
    packed: &'a [Packed],
    rare: &'a [DynInfo],
}

impl<'a> RecordSlice<'a> {
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// The records at `range` of this slice's positions.
    pub fn slice(self, range: Range<usize>) -> RecordSlice<'a> {
        RecordSlice { packed: &self.packed[range], rare: self.rare }
    }

    /// The records from position `start` on.
    pub fn starting_at(self, start: usize) -> RecordSlice<'a> {
        self.slice(start..self.len())
    }

    #[inline]
    pub fn iter(self) -> impl ExactSizeIterator<Item = DynRecord> + Clone + 'a {
        let rare = self.rare;
        self.packed.iter().map(move |p| p.unpack(rare))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_timing::{LineEvents, StringWork};

    fn addr(a: u64) -> Option<NonZeroU64> {
        NonZeroU64::new(a)
    }

    /// Every field of `DynInfo` compared, the delays by their bits.
    fn same(a: &DynInfo, b: &DynInfo) -> bool {
        format!("{a:?}") == format!("{b:?}")
            && [a.load_extra_latency, a.fetch_stall, a.btb_stall, a.fetch_bubble].map(f32::to_bits)
                == [b.load_extra_latency, b.fetch_stall, b.btb_stall, b.fetch_bubble].map(f32::to_bits)
    }

    /// Executions that take every path of the packing: common ones with each
    /// address form, levels and flags; and one of each rare kind.
    fn executions() -> Vec<DynInfo> {
        let d = DynInfo::default;
        let mut lines = LineEvents::default();
        lines.set_writebacks([1, 0, 2]);
        vec![
            d(),
            DynInfo { load_addr: addr(0x7fff_1234_5678), load_level: 3, ..d() },
            DynInfo { store_addr: addr(0x40_1000), store_level: 2, new_fetch_block: true, ..d() },
            DynInfo { load_addr: addr(0x1008), store_addr: addr(0x1008), load_level: 1, store_level: 1, ..d() },
            DynInfo { mispredicted: true, fetch_stream: true, ..d() },
            // rare: two addresses, delays (a negative zero too), prefetches, lines, string work
            DynInfo { load_addr: addr(0x2000), store_addr: addr(0x3000), ..d() },
            DynInfo { load_extra_latency: 7.5, ..d() },
            DynInfo { fetch_stall: 12.0, btb_stall: 3.0, ..d() },
            DynInfo { fetch_bubble: -0.0, ..d() },
            DynInfo { load_addr: addr(0x5000), prefetch_line: addr(0x141), prefetch_level: 2, prefetch_next_lines: 1, ..d() },
            DynInfo { store_addr: addr(0x6000), lines, ..d() },
            DynInfo { string: StringWork { elements: 64, fills: [8, 2, 0] }, ..d() },
            DynInfo { load_level: 9, ..d() },
        ]
    }

    #[test]
    fn every_execution_comes_back_as_it_went_in() {
        let infos = executions();
        let records: Records = infos.iter().enumerate().map(|(i, &info)| DynRecord { id: i as u32 * 7, info }).collect();
        assert_eq!(records.len(), infos.len());
        for (k, (r, info)) in records.iter().zip(&infos).enumerate() {
            assert_eq!(r.id, k as u32 * 7);
            assert!(same(&r.info, info), "record {k}: {:?} came back as {:?}", info, r.info);
        }
        // the five common forms are packed, the eight others kept whole
        assert_eq!(records.rare.len(), 8);
    }

    #[test]
    fn a_slice_reads_its_own_records_rare_ones_included() {
        let infos = executions();
        let records: Records = infos.iter().enumerate().map(|(i, &info)| DynRecord { id: i as u32, info }).collect();
        let cut = records.all().slice(4..9);
        assert_eq!(cut.len(), 5);
        for (r, k) in cut.iter().zip(4..) {
            assert_eq!(r.id, k);
            assert!(same(&r.info, &infos[k as usize]));
        }
        let tail = records.all().starting_at(11);
        assert_eq!(tail.iter().map(|r| r.id).collect::<Vec<_>>(), [11, 12]);
    }

    #[test]
    fn cleared_records_are_empty_and_take_new_ones() {
        let mut records: Records = executions().into_iter().map(|info| DynRecord { id: 1, info }).collect();
        records.clear();
        assert!(records.is_empty() && records.iter().next().is_none());
        let rare = DynInfo { fetch_stall: 2.0, ..DynInfo::default() };
        records.push(5, &rare);
        let back = records.iter().next().expect("one record");
        assert_eq!((back.id, back.info.fetch_stall), (5, 2.0));
    }
}
