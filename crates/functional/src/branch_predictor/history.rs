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
//! Here each table keeps a single fold of `min(L, 48)` bits (for L ≤ 48 that
//! is the exact history) from which its index and tag are hashed, instead of
//! three separate folds at the index and tag widths: a third of the update
//! work per history bit, which is what dominates the predictor's cost.

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

/// Width of the per-table fold.
pub(crate) const FOLD_BITS: u32 = 48;

/// The newest `orig_len` history bits folded to `comp_len` bits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FoldedHistory {
    pub comp: u64,
    orig_len: u32,
    comp_len: u32,
    outpoint: u32,
    mask: u64,
}

impl FoldedHistory {
    pub fn new(orig_len: u32, comp_len: u32) -> Self {
        let comp_len = comp_len.clamp(1, 63);
        Self { comp: 0, orig_len, comp_len, outpoint: orig_len % comp_len, mask: (1u64 << comp_len) - 1 }
    }

    /// Account for `bit`, just pushed onto `h`.
    #[inline(always)]
    pub fn update(&mut self, bit: bool, h: &GlobalHistory) {
        let mut c = (self.comp << 1) | bit as u64;
        c ^= h.get(self.orig_len as usize) << self.outpoint;
        c ^= c >> self.comp_len;
        self.comp = c & self.mask;
    }
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
    fn folded_history_equals_direct_fold() {
        for (len, width) in [(37u32, 10u32), (40, 10), (5, 5), (640, 48), (12, 48)] {
            let mut h = GlobalHistory::new(len as usize);
            let mut f = FoldedHistory::new(len, width);
            let mut seed = 7u64;
            for step in 0..2000 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                let bit = seed >> 63 == 1;
                h.push(bit);
                f.update(bit, &h);
                if step >= len {
                    // Direct: XOR of bit `age` at position `age mod width`.
                    let mut d = 0u64;
                    for age in 0..len as usize {
                        d ^= h.get(age) << (age % width as usize);
                    }
                    assert_eq!(f.comp, d, "len {len} width {width} step {step}");
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
