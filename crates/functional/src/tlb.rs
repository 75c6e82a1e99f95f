//! TLBs: first-level DTLB and ITLB backed by a shared second-level STLB.
//!
//! Built from a machine's `[[tlb]]` list: the data side is the first TLB of
//! kind `data` followed by the first of kind `unified` (the STLB); the
//! instruction side is the first `instruction` TLB followed by the same STLB.
//! Each TLB is a set-associative store of virtual page numbers (LRU), with its
//! own page size (`page_kib`); huge pages are not modelled (the trace carries
//! no page-size information), so every access uses the TLB's configured size.
//!
//! **Cost of a translation:** 0 when the first level hits; otherwise the sum of
//! the `miss_latency` of every level that missed. So a DTLB miss that hits the
//! STLB costs `DTLB.miss_latency` (the STLB lookup), and a miss in both costs
//! `DTLB.miss_latency + STLB.miss_latency` (the STLB's miss latency being the
//! page walk). Every level that missed is filled.
//!
//! Idealization: with `perfect_data` / `perfect_inst` the side always hits.
//!
//! Stats order: DTLB, ITLB, STLB (whichever exist).

use crate::cache::SetAssoc;
use bottlenose_machine::{CacheKind, Params, Replacement, TlbParams};
pub use bottlenose_report_model::functional::{TlbLevelStats, TlbStats};

#[derive(Debug, Clone)]
struct TlbLevel {
    name: String,
    kind: CacheKind,
    page_shift: u32,
    miss_latency: f64,
    store: SetAssoc,
}

impl TlbLevel {
    fn new(p: &TlbParams) -> Self {
        let page_bytes = (p.page_kib.max(1) as u64 * 1024).next_power_of_two();
        Self {
            name: p.name.clone(),
            kind: p.kind,
            page_shift: page_bytes.trailing_zeros(),
            miss_latency: p.miss_latency,
            store: SetAssoc::with_entries(p.entries as usize, p.ways as usize, Replacement::Lru),
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Side {
    idx: [u8; 2],
    len: u8,
}

const DATA: usize = 0;
const INST: usize = 1;

/// The TLBs of a core.
///
/// As in the cache hierarchy, only misses are counted per level and side
/// (accesses are derived in [`TlbHierarchy::stats`]), and a page that is the
/// most recently used of its first-level TLB set is answered inline (a hit
/// that changes no replacement state).
#[derive(Debug, Clone)]
pub struct TlbHierarchy {
    levels: Vec<TlbLevel>,
    sides: [Side; 2],
    misses: [[u64; 2]; 2],
    /// Page shift of each side's first level (12 when it has none).
    page_shift: [u32; 2],
    /// Index in `levels` of each side's first TLB (`usize::MAX` if none).
    first: [usize; 2],
    perfect: [bool; 2],
    translations: [u64; 2],
}

impl TlbHierarchy {
    pub fn new(params: &Params) -> Self {
        let mut levels: Vec<TlbLevel> = Vec::new();
        let add = |kind: CacheKind, levels: &mut Vec<TlbLevel>| -> Option<u8> {
            let p = params.tlbs.iter().find(|t| t.kind == kind)?;
            levels.push(TlbLevel::new(p));
            Some((levels.len() - 1) as u8)
        };
        let dtlb = add(CacheKind::Data, &mut levels);
        let itlb = add(CacheKind::Instruction, &mut levels);
        let stlb = add(CacheKind::Unified, &mut levels);
        let side = |first: Option<u8>| {
            let mut s = Side::default();
            for i in [first, stlb].into_iter().flatten() {
                s.idx[s.len as usize] = i;
                s.len += 1;
            }
            s
        };
        let sides = [side(dtlb), side(itlb)];
        let shift = |s: &Side| if s.len > 0 { levels[s.idx[0] as usize].page_shift } else { 12 };
        let page_shift = [shift(&sides[DATA]), shift(&sides[INST])];
        let first_of = |s: &Side| if s.len > 0 { s.idx[0] as usize } else { usize::MAX };
        let first = [first_of(&sides[DATA]), first_of(&sides[INST])];
        Self {
            levels,
            sides,
            misses: [[0; 2]; 2],
            page_shift,
            first,
            perfect: [false; 2],
            translations: [0; 2],
        }
    }

    pub fn set_perfect(&mut self, data: bool, inst: bool) {
        self.perfect = [data, inst];
    }

    #[inline(always)]
    fn translate(&mut self, side: usize, addr: u64) -> f64 {
        self.translations[side] += 1;
        if let Some(first) = self.levels.get(self.first[side]) {
            if first.store.is_mru(addr >> self.page_shift[side]) {
                return 0.0;
            }
        }
        self.translate_slow(side, addr)
    }

    #[inline(never)]
    fn translate_slow(&mut self, side: usize, addr: u64) -> f64 {
        let s = self.sides[side];
        if s.len == 0 || self.perfect[side] {
            return 0.0;
        }
        let mut extra = 0.0;
        for i in 0..s.len as usize {
            let lv = &mut self.levels[s.idx[i] as usize];
            if lv.store.access(addr >> lv.page_shift).hit {
                return extra;
            }
            self.misses[side][i] += 1;
            extra += lv.miss_latency;
        }
        extra
    }

    /// Extra cycles to translate a data address (0 on a first-level hit).
    #[inline(always)]
    pub fn translate_data(&mut self, addr: u64) -> f64 {
        self.translate(DATA, addr)
    }

    /// Extra cycles to translate an instruction address (0 on a first-level hit).
    #[inline(always)]
    pub fn translate_inst(&mut self, addr: u64) -> f64 {
        self.translate(INST, addr)
    }

    /// The counters alone (the TLBs' contents stay).
    pub fn counts(&self) -> TlbCounts {
        TlbCounts { misses: self.misses, translations: self.translations }
    }

    /// Puts back counters taken by [`TlbHierarchy::counts`].
    pub fn restore_counts(&mut self, c: TlbCounts) {
        self.misses = c.misses;
        self.translations = c.translations;
    }

    pub fn stats(&self) -> TlbStats {
        let mut acc = vec![0u64; self.levels.len()];
        let mut miss = vec![0u64; self.levels.len()];
        let mut walks = 0;
        let mut extra = 0.0;
        for side in [DATA, INST] {
            let s = self.sides[side];
            let mut reaching = self.translations[side];
            for i in 0..s.len as usize {
                let li = s.idx[i] as usize;
                acc[li] += reaching;
                miss[li] += self.misses[side][i];
                extra += self.misses[side][i] as f64 * self.levels[li].miss_latency;
                reaching = self.misses[side][i];
            }
            if s.len > 0 {
                walks += reaching;
            }
        }
        TlbStats {
            levels: self
                .levels
                .iter()
                .enumerate()
                .map(|(i, l)| TlbLevelStats { name: l.name.clone(), kind: l.kind, accesses: acc[i], misses: miss[i] })
                .collect(),
            data_translations: self.translations[DATA],
            inst_translations: self.translations[INST],
            page_walks: walks,
            extra_cycles: extra,
        }
    }
}

/// A snapshot of the TLBs' counters ([`TlbHierarchy::counts`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct TlbCounts {
    misses: [[u64; 2]; 2],
    translations: [u64; 2],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_params::skylake_like;

    #[test]
    fn hit_after_first_touch() {
        let p = skylake_like();
        let mut t = TlbHierarchy::new(&p);
        // First touch misses DTLB and STLB: 9 + 30.
        assert_eq!(t.translate_data(0x7fff_0000_1234), 39.0);
        assert_eq!(t.translate_data(0x7fff_0000_1ff8), 0.0, "same 4 KiB page");
        assert_eq!(t.translate_data(0x7fff_0000_2000), 39.0, "next page");
        assert_eq!(t.translate_data(0x7fff_0000_1000), 0.0);
        let s = t.stats();
        assert_eq!(s.page_walks, 2);
        assert_eq!(s.levels[0].name, "DTLB");
        assert_eq!(s.levels[0].accesses, 4);
        assert_eq!(s.levels[0].misses, 2);
    }

    #[test]
    fn page_stride_over_more_pages_than_entries_misses() {
        let p = skylake_like();
        let mut t = TlbHierarchy::new(&p);
        // 256 pages: more than the 64-entry DTLB, fewer than the 1536-entry STLB.
        let pages = 256u64;
        for _ in 0..3 {
            for i in 0..pages {
                t.translate_data(0x1000_0000 + i * 4096);
            }
        }
        let before = t.stats();
        let mut extra = 0.0;
        for i in 0..pages {
            extra += t.translate_data(0x1000_0000 + i * 4096);
        }
        let after = t.stats();
        assert_eq!(after.levels[0].misses - before.levels[0].misses, pages, "every access misses the DTLB");
        assert_eq!(after.page_walks, before.page_walks, "the STLB holds them all");
        assert_eq!(extra, 9.0 * pages as f64);

        // And 64 pages fit the DTLB: no misses after the first pass.
        let mut t = TlbHierarchy::new(&p);
        for i in 0..64 {
            t.translate_data(0x1000_0000 + i * 4096);
        }
        for i in 0..64 {
            assert_eq!(t.translate_data(0x1000_0000 + i * 4096), 0.0);
        }
    }

    #[test]
    fn instruction_side_uses_itlb_and_shares_stlb() {
        let p = skylake_like();
        let mut t = TlbHierarchy::new(&p);
        assert_eq!(t.translate_data(0x40_0000), 39.0);
        // The page is in the STLB now: an ITLB miss costs only the ITLB miss latency.
        assert_eq!(t.translate_inst(0x40_0010), 9.0);
        assert_eq!(t.translate_inst(0x40_0020), 0.0);
        let s = t.stats();
        let itlb = s.levels.iter().find(|l| l.name == "ITLB").unwrap();
        assert_eq!((itlb.accesses, itlb.misses), (2, 1));
    }

    #[test]
    fn perfect_never_misses() {
        let p = skylake_like();
        let mut t = TlbHierarchy::new(&p);
        t.set_perfect(true, true);
        for i in 0..10_000u64 {
            assert_eq!(t.translate_data(i * 4096), 0.0);
            assert_eq!(t.translate_inst(i * 8192), 0.0);
        }
        assert!(t.stats().levels.iter().all(|l| l.misses == 0));
    }
}
