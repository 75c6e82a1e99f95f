//! Global branch history and its folded (compressed) copies, as used by TAGE
//! and ITTAGE.
//!
//! The global history is a circular bit buffer long enough for the longest
//! history length. A table with history length L cannot hash L bits on every
//! prediction, so it keeps *folded* copies: the L newest bits XOR-folded down
//! to the index or tag width, updated incrementally in O(1) per new bit (the
//! newest bit enters at position 0, the bit that falls out of the window is
//! removed at position `L mod width`, and the bit shifted past the top wraps
//! around) — Michaud's scheme from the PPM-like / TAGE papers.
//!
//! Here a table of L ≤ 48 bits reads the exact history; a longer one keeps two
//! folds, of 48 bits for its index and of 61 bits for its tag, from which each
//! is hashed, instead of three folds at the index and tag widths. Two folds, not
//! one: a fold is linear, and a structured history (a loop's branches, a
//! pattern of period 7) maps whole families of distinct histories onto the same
//! 48 bits; with the tag hashed from that fold too, each such family shared one
//! entry, tag and all. On `bench/programs/phases.c`'s data-dependent branch the
//! longest table (640 bits) then mispredicted 240 or 590 times a round, chosen by
//! the branches before the loop, with tables 8 times larger as well; from a
//! second fold of a width prime to the first, 20 times a round whatever came
//! before (bench/notes/sampling.md, session 24).

/// Circular buffer of history bits (one byte per bit for cheap access).
#[derive(Debug, Clone)]
pub(crate) struct GlobalHistory {
    bits: Vec<u8>,
    mask: usize,
    /// Index of the newest bit.
    head: usize,
}

impl GlobalHistory {
    /// A history able to return bits up to `max_len` positions old.
    pub fn new(max_len: usize) -> Self {
        let size = (max_len + 2).next_power_of_two();
        Self { bits: vec![0; size], mask: size - 1, head: 0 }
    }

    #[inline(always)]
    pub fn push(&mut self, bit: bool) {
        self.head = self.head.wrapping_sub(1) & self.mask;
        self.bits[self.head] = bit as u8;
    }

    /// Bit `age` positions old (0 = newest).
    #[inline(always)]
    pub fn get(&self, age: usize) -> u64 {
        self.bits[(self.head + age) & self.mask] as u64
    }
}

/// Width of a long table's index fold.
pub(crate) const FOLD_BITS: u32 = 48;
/// Width of a long table's tag fold: prime, and prime to [`FOLD_BITS`], so that a
/// period of the history that lines up with one fold's width does not with the other's.
const TAG_FOLD_BITS: u32 = 61;

/// Most tagged tables a predictor has (TAGE clamps its count to 30).
pub(crate) const MAX_TABLES: usize = 32;

/// The global history as a predictor's tables hash it: per table of history length
/// `L`, the newest `L` bits folded to `min(L, FOLD_BITS)` bits.
///
/// A fold of `L <= FOLD_BITS` bits is no fold: it is the newest `L` bits themselves,
/// newest in bit 0, which one 64-bit shift register holds for every such table at
/// once (the table masks it). Only the longer histories keep a fold of their own,
/// updated in O(1) per bit: the newest bit enters at position 0, the bit that falls
/// out of the window is removed at position `L mod FOLD_BITS`, and the bit shifted
/// past the top wraps around (Michaud's scheme from the PPM-like / TAGE papers). Half
/// the tables of a usual TAGE and ITTAGE fit the register, and the fold updates were
/// the predictors' largest cost.
#[derive(Debug, Clone)]
pub(crate) struct TableFolds {
    hist: GlobalHistory,
    /// The newest 64 bits, newest in bit 0.
    recent: u64,
    /// Per table: the mask of `recent` that is its history (0 for a folded one).
    recent_mask: [u64; MAX_TABLES],
    /// Per table: its index fold (0 for one read from `recent`).
    folded: [u64; MAX_TABLES],
    /// Per table: its tag fold (0 for one read from `recent`).
    tag_folded: [u64; MAX_TABLES],
    /// The folded tables.
    long: Vec<LongTable>,
}

/// A table whose history is longer than [`FOLD_BITS`]: where the bit that leaves its
/// window sits in each of its folds.
#[derive(Debug, Clone, Copy)]
struct LongTable {
    table: usize,
    len: u32,
    /// `len mod FOLD_BITS` and `len mod TAG_FOLD_BITS`.
    out_index: u32,
    out_tag: u32,
}

impl TableFolds {
    /// The folds of tables with history lengths `lengths` (each at least 1, at most
    /// [`MAX_TABLES`] of them).
    pub fn new(lengths: &[u32]) -> Self {
        assert!(lengths.len() <= MAX_TABLES && lengths.iter().all(|&l| l >= 1), "history lengths {lengths:?}");
        let mut recent_mask = [0; MAX_TABLES];
        let mut long = Vec::new();
        for (t, &l) in lengths.iter().enumerate() {
            if l <= FOLD_BITS {
                recent_mask[t] = (1u64 << l) - 1;
            } else {
                long.push(LongTable { table: t, len: l, out_index: l % FOLD_BITS, out_tag: l % TAG_FOLD_BITS });
            }
        }
        let max_len = lengths.iter().copied().max().unwrap_or(1) as usize;
        Self { hist: GlobalHistory::new(max_len), recent: 0, recent_mask, folded: [0; MAX_TABLES], tag_folded: [0; MAX_TABLES], long }
    }

    /// Push one bit of global history.
    #[inline(always)]
    pub fn push(&mut self, bit: bool) {
        self.hist.push(bit);
        self.recent = (self.recent << 1) | bit as u64;
        for l in &self.long {
            let leaving = self.hist.get(l.len as usize);
            self.folded[l.table] = fold_in(self.folded[l.table], bit, leaving, l.out_index, FOLD_BITS);
            self.tag_folded[l.table] = fold_in(self.tag_folded[l.table], bit, leaving, l.out_tag, TAG_FOLD_BITS);
        }
    }

    /// Table `t`'s history as its index hashes it: exact, or folded to [`FOLD_BITS`].
    #[inline(always)]
    pub fn comp(&self, t: usize) -> u64 {
        (self.recent & self.recent_mask[t]) | self.folded[t]
    }

    /// Table `t`'s history as its tag hashes it: exact, or folded to 61 bits.
    #[inline(always)]
    pub fn comp_tag(&self, t: usize) -> u64 {
        (self.recent & self.recent_mask[t]) | self.tag_folded[t]
    }
}

/// A fold of `width` bits after one more history bit: the new bit enters at position 0,
/// the one leaving the window is removed at `out` (the length mod `width`), and the bit
/// shifted past the top wraps around.
#[inline(always)]
fn fold_in(fold: u64, bit: bool, leaving: u64, out: u32, width: u32) -> u64 {
    let mut c = (fold << 1) | bit as u64;
    c ^= leaving << out;
    c ^= c >> width;
    c & ((1u64 << width) - 1)
}

/// Multiplicative hash of `x` to `bits` bits (1..=32).
#[inline(always)]
pub(crate) fn hash_bits(x: u64, mul: u64, bits: u32) -> u64 {
    x.wrapping_mul(mul) >> (64 - bits)
}

/// Geometric series of `n` history lengths from `min` to `max` (strictly
/// increasing, each at least 1).
pub(crate) fn geometric_lengths(n: usize, min: u32, max: u32) -> Vec<u32> {
    let min = min.max(1);
    let max = max.max(min + n as u32);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let l = if n == 1 {
            min as f64
        } else {
            min as f64 * (max as f64 / min as f64).powf(i as f64 / (n - 1) as f64)
        };
        let mut l = l.round() as u32;
        if let Some(&prev) = out.last() {
            l = l.max(prev + 1);
        }
        out.push(l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_holds_its_history_folded() {
        // lengths below, at and above the fold width, one a multiple of it
        let lengths = [5u32, 12, 47, 48, 49, 61, 62, 96, 122, 130, 640];
        let mut folds = TableFolds::new(&lengths);
        let mut bits: Vec<bool> = Vec::new(); // newest first
        let mut seed = 7u64;
        for step in 0..2000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let bit = seed >> 63 == 1;
            folds.push(bit);
            bits.insert(0, bit);
            if step % 7 == 0 {
                for (t, &len) in lengths.iter().enumerate() {
                    // direct: the bit `age` pushes old sits at position `age mod width`
                    let direct = |fold: u32| {
                        let width = if len <= FOLD_BITS { len } else { fold } as usize;
                        bits.iter().take(len as usize).enumerate().fold(0u64, |d, (age, &b)| d ^ ((b as u64) << (age % width)))
                    };
                    assert_eq!(folds.comp(t), direct(FOLD_BITS), "length {len} after {} bits", step + 1);
                    assert_eq!(folds.comp_tag(t), direct(TAG_FOLD_BITS), "tag fold, length {len} after {} bits", step + 1);
                }
            }
        }
    }

    #[test]
    fn lengths_are_geometric_and_increasing() {
        let l = geometric_lengths(7, 5, 640);
        assert_eq!(l.first(), Some(&5));
        assert_eq!(l.last(), Some(&640));
        assert!(l.windows(2).all(|w| w[0] < w[1]));
        let l = geometric_lengths(4, 3, 4);
        assert!(l.windows(2).all(|w| w[0] < w[1]));
    }
}
