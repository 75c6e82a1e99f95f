//! The cache hierarchy: which level serves each data access and instruction fetch.
//!
//! Built from a machine's `[[cache]]` list: the data side is the level-1 cache of
//! kind `data` (or `unified`) followed by the `unified` (or `data`) caches of
//! levels 2 and 3; the instruction side is the level-1 `instruction` (or
//! `unified`) cache followed by the same outer levels, which are therefore
//! shared. Levels above 3 are ignored. A missing level is skipped.
//!
//! **Inclusion policy: non-inclusive, non-exclusive ("NINE").** An access walks
//! the levels nearest first and stops at the first hit; every level it missed
//! on the way is filled (so on a hit at level k, levels < k are filled; a DRAM
//! access fills all levels). Evictions from an outer level do *not*
//! back-invalidate inner levels. This is the simplest policy that behaves like
//! real hierarchies for working sets that fit or do not fit a level, which is
//! what the timing model needs.
//!
//! Stores are write-allocate and write-back: a store miss fills the line like a
//! load, and the store makes the L1D line dirty. A dirty line evicted from a level
//! is written to the next one (which then holds it dirty, allocating it if it had
//! dropped the line, which may evict a dirty line in turn); from the last level it
//! goes to DRAM. Each write-back is counted per link (L1->L2, L2->L3, L3->DRAM) and
//! handed to the timing model ([`CacheHierarchy::take_writebacks`]), because it
//! takes the same bandwidth as a fill: a stream that writes moves twice the lines
//! of one that only reads.
//! An access that crosses a line boundary touches both lines and reports the
//! worse (farther) level.
//!
//! Idealization: with `perfect_data` / `perfect_inst` set, the corresponding
//! side always hits L1 (accesses are still counted, misses stay zero, no state
//! changes).
//!
//! Fast path: an access to the most recently used line of its L1 set is a hit
//! that would change no replacement state, so it is answered inline after one
//! compare (exact, not an approximation; see `set_assoc.rs`).

use super::prefetch::{PrefetchEngine, Prefetcher};
use super::set_assoc::SetAssoc;
use bottlenose_machine::{CacheKind, CacheParams, Params};
use serde::{Deserialize, Serialize};

mod stats;
pub use stats::{CacheCounts, CacheStats, LevelStats};

/// The level of the memory hierarchy that served an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemLevel {
    #[default]
    L1,
    L2,
    L3,
    Dram,
}

impl MemLevel {
    fn from_level(level: u8) -> MemLevel {
        match level {
            1 => MemLevel::L1,
            2 => MemLevel::L2,
            _ => MemLevel::L3,
        }
    }
}

#[derive(Debug, Clone)]
struct Level {
    name: String,
    level: u8,
    kind: CacheKind,
    latency: f64,
    line_shift: u32,
    cache: SetAssoc,
    /// Per slot of `cache`: the line was written since it was filled.
    dirty: Vec<bool>,
}

/// Up to three cache indices from nearest to farthest.
#[derive(Debug, Clone, Copy, Default)]
struct Path {
    idx: [u8; 3],
    mem: [MemLevel; 3],
    len: u8,
}

const DATA: usize = 0;
const INST: usize = 1;

/// L1I/L1D/L2/L3 tag stores with counters and an optional prefetcher.
///
/// Counting is arranged so that a hit in the most recent line costs one
/// counter increment: only misses are counted per level and side; the
/// accesses of a level are derived in [`CacheHierarchy::stats`] (the first
/// level of a side sees every line access of that side, a later level sees the
/// misses of the level before it).
#[derive(Debug, Clone)]
pub struct CacheHierarchy {
    levels: Vec<Level>,
    /// Data side and instruction side.
    paths: [Path; 2],
    /// Misses per side and position along the side's path.
    misses: [[u64; 3]; 2],
    dram_latency: f64,
    data_line_shift: u32,
    inst_line_shift: u32,
    prefetch: PrefetchEngine,
    /// Index in `levels` of each side's first cache (`usize::MAX` if none);
    /// the data side's is `usize::MAX` also when a prefetcher runs, since it
    /// must observe every demand access (no inline shortcut then).
    first: [usize; 2],
    perfect_data: bool,
    perfect_inst: bool,
    data_accesses: u64,
    stores: u64,
    line_crossings: u64,
    inst_fetches: u64,
    prefetch_fills: u64,
    prefetch_dram: u64,
    /// The prefetches that brought a line from beyond L1 since
    /// [`CacheHierarchy::take_prefetches`] last read them.
    pending: PendingPrefetches,
    /// Write-backs per link (L1D->L2, L2->L3, L3->DRAM): since the start, and since
    /// [`CacheHierarchy::take_writebacks`] last read them.
    writebacks: [u64; 3],
    /// Per link, and a fourth byte unused: read and cleared as one 4-byte word once per
    /// instruction (three bytes were a 2-byte and a 1-byte store, which the next read of
    /// them, one 4-byte load, could not take from the store buffer: it waited for both).
    pending_writebacks: [u8; 4],
}

/// Prefetched lines waiting for the timing model: at most a few per
/// instruction (two per access, a few accesses), fixed size; more are filled
/// functionally but not timed (they count in `prefetch_fills`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PendingPrefetches {
    lines: [(u64, MemLevel); 4],
    len: u8,
}

impl PendingPrefetches {
    #[inline]
    fn push(&mut self, line_addr: u64, from: MemLevel) {
        if (self.len as usize) < self.lines.len() {
            self.lines[self.len as usize] = (line_addr, from);
            self.len += 1;
        }
    }

    /// (line address, level it comes from), in the order they were started.
    #[inline]
    pub fn as_slice(&self) -> &[(u64, MemLevel)] {
        &self.lines[..self.len as usize]
    }
}

fn line_shift(p: &CacheParams) -> u32 {
    p.line_bytes.max(1).next_power_of_two().trailing_zeros()
}

fn build_level(p: &CacheParams) -> Level {
    let line_bytes = 1u64 << line_shift(p);
    let lines = (p.size_kib as u64 * 1024 / line_bytes).max(1) as usize;
    Level {
        name: p.name.clone(),
        level: p.level,
        kind: p.kind,
        latency: p.latency,
        line_shift: line_shift(p),
        cache: SetAssoc::with_entries(lines, p.ways as usize, p.replacement),
        dirty: Vec::new(),
    }
}

impl CacheHierarchy {
    /// Build the hierarchy of a machine with the prefetchers its file names.
    pub fn new(params: &Params) -> Self {
        Self::with_prefetcher(params, Prefetcher::Machine)
    }

    pub fn with_prefetcher(params: &Params, prefetcher: Prefetcher) -> Self {
        let mut levels: Vec<Level> = Vec::new();
        let mut data = Path::default();
        let mut inst = Path::default();
        for level in 1..=3u8 {
            // Per side, prefer the dedicated kind at level 1 and the unified kind beyond.
            let pick = |side: CacheKind| -> Option<usize> {
                let first = if level == 1 { side } else { CacheKind::Unified };
                let second = if level == 1 { CacheKind::Unified } else { side };
                params
                    .caches
                    .iter()
                    .position(|c| c.level == level && c.kind == first)
                    .or_else(|| params.caches.iter().position(|c| c.level == level && c.kind == second))
            };
            let slot_for = |pi: usize, levels: &mut Vec<Level>| -> u8 {
                let p = &params.caches[pi];
                if let Some(i) = levels.iter().position(|l| l.name == p.name && l.level == p.level) {
                    return i as u8;
                }
                levels.push(build_level(p));
                (levels.len() - 1) as u8
            };
            for (side, path) in [(CacheKind::Data, &mut data), (CacheKind::Instruction, &mut inst)] {
                if let Some(pi) = pick(side) {
                    let i = slot_for(pi, &mut levels);
                    path.idx[path.len as usize] = i;
                    path.mem[path.len as usize] = MemLevel::from_level(level);
                    path.len += 1;
                }
            }
        }
        for l in &mut levels {
            l.dirty = vec![false; l.cache.sets() * l.cache.ways()];
        }
        let shift_of = |p: &Path| if p.len > 0 { levels[p.idx[0] as usize].line_shift } else { 6 };
        let data_line_shift = shift_of(&data);
        let inst_line_shift = shift_of(&inst);
        let first_of = |p: &Path| if p.len > 0 { p.idx[0] as usize } else { usize::MAX };
        let prefetch = PrefetchEngine::new(prefetcher, params, data_line_shift);
        let first = [if prefetch.runs() { usize::MAX } else { first_of(&data) }, first_of(&inst)];
        Self {
            levels,
            paths: [data, inst],
            misses: [[0; 3]; 2],
            dram_latency: params.memory.dram_latency,
            data_line_shift,
            inst_line_shift,
            prefetch,
            first,
            perfect_data: false,
            perfect_inst: false,
            data_accesses: 0,
            stores: 0,
            line_crossings: 0,
            inst_fetches: 0,
            prefetch_fills: 0,
            prefetch_dram: 0,
            pending: PendingPrefetches::default(),
            writebacks: [0; 3],
            pending_writebacks: [0; 4],
        }
    }

    /// Make the data side and/or the instruction side always hit L1.
    pub fn set_perfect(&mut self, data: bool, inst: bool) {
        self.perfect_data = data;
        self.perfect_inst = inst;
    }

    /// log2 of the L1D line size (the unit prefetches are made in).
    #[inline]
    pub fn data_line_shift(&self) -> u32 {
        self.data_line_shift
    }

    /// The prefetchers that run: `none`, `next-line + stream 63 lines ahead`...
    pub fn prefetcher_description(&self) -> String {
        self.prefetch.describe()
    }

    pub fn prefetcher(&self) -> Prefetcher {
        self.prefetch.kind()
    }

    /// One entry per cache (`L1D 64x8-way Plru 64B-line lat 5`), then the prefetcher.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .levels
            .iter()
            .map(|l| {
                format!(
                    "{} {}x{}-way {:?} {}B-line lat {}",
                    l.name,
                    l.cache.sets(),
                    l.cache.ways(),
                    l.cache.policy(),
                    1u64 << l.line_shift,
                    l.latency
                )
            })
            .collect();
        parts.push(format!("prefetcher {}", self.prefetch.describe()));
        parts.join("; ")
    }

    /// Walk a side's levels for one address; counts misses and fills. Returns the
    /// level that held the line and the slot of the line in the side's first cache.
    #[inline]
    fn walk(&mut self, side: usize, addr: u64) -> (MemLevel, usize) {
        let path = self.paths[side];
        let mut first_slot = usize::MAX;
        for i in 0..path.len as usize {
            let (hit, slot) = self.access_at(side, i, addr);
            if i == 0 {
                first_slot = slot;
            }
            if hit {
                return (path.mem[i], first_slot);
            }
            self.misses[side][i] += 1;
        }
        (MemLevel::Dram, first_slot)
    }

    /// Looks `addr` up at position `i` of a side's path, filling it on a miss; a dirty
    /// line the fill evicts is written back outward. Returns (hit, slot).
    #[inline]
    fn access_at(&mut self, side: usize, i: usize, addr: u64) -> (bool, usize) {
        let lv = &mut self.levels[self.paths[side].idx[i] as usize];
        let a = lv.cache.access(addr >> lv.line_shift);
        if !a.hit {
            // the slot held the victim until now: its dirty bit is the victim's
            let victim_dirty = std::mem::replace(&mut lv.dirty[a.slot], false);
            if let (Some(victim), true) = (a.evicted, victim_dirty) {
                let victim_addr = victim << lv.line_shift;
                self.write_back(side, i, victim_addr);
            }
        }
        (a.hit, a.slot)
    }

    /// A dirty line leaves position `i` of a side's path: the next level holds it
    /// dirty (allocating it if needed, which may write back in turn), or DRAM takes it.
    #[cold]
    fn write_back(&mut self, side: usize, i: usize, addr: u64) {
        let path = self.paths[side];
        // the link into the next level (0: into L2, 1: into L3), or to DRAM (2) from the last
        let link = if i + 1 < path.len as usize { (path.mem[i + 1] as usize).clamp(1, 2) - 1 } else { 2 };
        self.writebacks[link] += 1;
        self.pending_writebacks[link] = self.pending_writebacks[link].saturating_add(1);
        if i + 1 < path.len as usize {
            let (_, slot) = self.access_at(side, i + 1, addr);
            self.levels[path.idx[i + 1] as usize].dirty[slot] = true;
        }
    }

    /// The write-backs since the last call, per link (L1D->L2, L2->L3, L3->DRAM),
    /// once: the timing model books their transfers on the links' bandwidth.
    #[inline]
    pub fn take_writebacks(&mut self) -> [u8; 3] {
        // a copy and a clear, as `take_prefetches` (`mem::take` built the default out of line)
        let taken = self.pending_writebacks;
        self.pending_writebacks = [0; 4];
        [taken[0], taken[1], taken[2]]
    }

    #[inline]
    fn data_line(&mut self, addr: u64, is_store: bool) -> MemLevel {
        let line = addr >> self.data_line_shift;
        let (lvl, slot) = self.walk(DATA, addr);
        if is_store {
            self.levels[self.paths[DATA].idx[0] as usize].dirty[slot] = true;
        }
        if self.prefetch.runs() {
            let wanted = self.prefetch.observe(line, lvl != MemLevel::L1);
            for &pl in wanted.as_slice() {
                let from = self.prefetch_line(pl);
                if from != MemLevel::L1 {
                    self.pending.push(pl << self.data_line_shift, from);
                }
            }
        }
        lvl
    }

    /// Bring an L1D line into L1D (and L2/L3 on the way) without counting it as a
    /// demand access; returns the level that held it (L1: nothing to do).
    fn prefetch_line(&mut self, line: u64) -> MemLevel {
        let addr = line << self.data_line_shift;
        let path = self.paths[DATA];
        for i in 0..path.len as usize {
            if self.access_at(DATA, i, addr).0 {
                if i > 0 {
                    self.prefetch_fills += 1;
                }
                return path.mem[i];
            }
        }
        if path.len > 0 {
            self.prefetch_fills += 1;
            self.prefetch_dram += 1;
        }
        MemLevel::Dram
    }

    /// The prefetches the data accesses since the last call started from
    /// beyond L1 (line address and the level it comes from), nearest first,
    /// once: the timing model books their transfers and makes demand loads of
    /// the lines wait for them.
    #[inline]
    pub fn take_prefetches(&mut self) -> PendingPrefetches {
        // a copy and a cleared count, not `mem::take`: building the default value
        // (out of line, field by field) and reading it back whole stalled store
        // forwarding on every instruction (10 % of a fast-forward's time)
        let taken = self.pending;
        self.pending.len = 0;
        taken
    }

    /// A data access of `size` bytes at `addr`. Returns the level that served
    /// it (the worse one when it crosses a line boundary).
    #[inline(always)]
    pub fn data_access(&mut self, addr: u64, size: u32, is_store: bool) -> MemLevel {
        self.data_accesses += 1;
        self.stores += is_store as u64;
        let last = addr.wrapping_add(size.saturating_sub(1) as u64);
        let line = addr >> self.data_line_shift;
        if last >> self.data_line_shift == line {
            if let Some(l1) = self.levels.get_mut(self.first[DATA]) {
                if let Some(slot) = l1.cache.mru_slot(line) {
                    if is_store {
                        l1.dirty[slot] = true;
                    }
                    return MemLevel::L1;
                }
            }
        }
        self.data_access_slow(addr, last, is_store)
    }

    #[inline(never)]
    fn data_access_slow(&mut self, addr: u64, last: u64, is_store: bool) -> MemLevel {
        if self.paths[DATA].len == 0 {
            return MemLevel::Dram;
        }
        if self.perfect_data {
            return MemLevel::L1;
        }
        let first = self.data_line(addr, is_store);
        if (addr ^ last) >> self.data_line_shift != 0 {
            self.line_crossings += 1;
            let second = self.data_line(last, is_store);
            return first.max(second);
        }
        first
    }

    /// An instruction fetch of the line containing `addr`.
    #[inline(always)]
    pub fn inst_fetch(&mut self, addr: u64) -> MemLevel {
        self.inst_fetches += 1;
        if let Some(l1) = self.levels.get(self.first[INST]) {
            if l1.cache.is_mru(addr >> self.inst_line_shift) {
                return MemLevel::L1;
            }
        }
        self.inst_fetch_slow(addr)
    }

    #[inline(never)]
    fn inst_fetch_slow(&mut self, addr: u64) -> MemLevel {
        if self.paths[INST].len == 0 {
            return MemLevel::Dram;
        }
        if self.perfect_inst {
            return MemLevel::L1;
        }
        self.walk(INST, addr).0
    }

    /// Load-to-use latency of a data access served at `level` (L1D's latency for
    /// L1, `memory.dram_latency` for DRAM). A level the data side lacks gives
    /// the latency of the next level that exists.
    pub fn latency(&self, level: MemLevel) -> f64 {
        self.path_latency(self.paths[DATA], level)
    }

    /// Latency of an instruction fetch served at `level` (L1I's latency for L1).
    pub fn inst_latency(&self, level: MemLevel) -> f64 {
        self.path_latency(self.paths[INST], level)
    }

    fn path_latency(&self, path: Path, level: MemLevel) -> f64 {
        for i in 0..path.len as usize {
            if path.mem[i] >= level {
                return self.levels[path.idx[i] as usize].latency;
            }
        }
        self.dram_latency
    }

    /// Line size of the L1D in bytes.
    pub fn line_bytes(&self) -> u64 {
        1 << self.data_line_shift
    }

    /// Whether the line holding `addr` is present in the cache named `name`
    /// (no state change; for tests and debugging).
    pub fn contains(&self, name: &str, addr: u64) -> bool {
        self.levels.iter().any(|l| l.name == name && l.cache.contains(addr >> l.line_shift))
    }
}
