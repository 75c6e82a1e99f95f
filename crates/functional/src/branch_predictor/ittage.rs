//! ITTAGE indirect branch target predictor.
//!
//! After A. Seznec, "A 64-Kbytes ITTAGE indirect branch predictor" (JWAC-2,
//! 2011): TAGE's organisation, but entries predict full targets instead of
//! directions.
//!
//! * a tagless **base** table indexed by PC holding the last target with a
//!   2-bit confidence (the BTB-like fallback);
//! * N **tagged tables** indexed and tagged by hashes of PC and the folded
//!   global history, history lengths geometric. Entries hold a full target, a
//!   partial tag, a 2-bit confidence and a 2-bit usefulness counter;
//! * **prediction**: the longest hitting table provides, unless its confidence
//!   is 0 (a fresh entry), in which case the alternate (next hitting table or
//!   the base table) is used;
//! * **update**: a correct provider gains confidence; a wrong one loses
//!   confidence and, at zero, has its target replaced; `u` tracks whether the
//!   provider beat the alternate; on a misprediction one entry is allocated in
//!   a longer-history table whose `u` is 0 (else those `u` are decremented);
//!   `u` bits are reset periodically as in TAGE.
//!
//! Sizes are derived from the machine's TAGE parameters (no separate knobs in
//! the machine files): `tage_tables - 1` tables (2..=8) of
//! `2^(tage_log_entries - 1)` entries, history lengths from
//! `tage_min_history` to `tage_max_history / 2`. The global history it sees is
//! the branch unit's: conditional outcomes plus 4 hashed bits of every
//! indirect target, which is what lets it tell consecutive targets apart.

use super::rng::XorShift;
use super::history::{geometric_lengths, hash_bits, TableFolds, MAX_TABLES};
use bottlenose_machine::BranchParams;

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    target: u64,
    tag: u16,
    conf: u8,
    u: u8,
}

#[derive(Debug, Clone, Copy, Default)]
struct BaseEntry {
    target: u64,
    conf: u8,
}

const TAG_BITS: u32 = 12;
const USEFUL_RESET_LOG: u32 = 18;
const IDX_MUL: u64 = 0xD6E8_FEB8_6659_FD93;
const TAG_MUL: u64 = 0xA076_1D64_78BD_642F;

/// ITTAGE predictor state.
#[derive(Debug, Clone)]
pub struct Ittage {
    base: Vec<BaseEntry>,
    n: usize,
    log_entries: u32,
    entries: Vec<Entry>,
    hist_len: Vec<u32>,
    folds: TableFolds,
    tick: u64,
    reset_high: bool,
    rng: XorShift,
    idx: [u32; MAX_TABLES],
    tag: [u16; MAX_TABLES],
}

impl Ittage {
    pub fn new(p: &BranchParams) -> Self {
        let n = p.tage_tables.saturating_sub(1).clamp(2, 8) as usize;
        let log_entries = p.tage_log_entries.saturating_sub(1).clamp(4, 20);
        let min = p.tage_min_history.max(2);
        let hist_len = geometric_lengths(n, min, (p.tage_max_history / 2).max(min + n as u32));
        Self {
            base: vec![BaseEntry::default(); 1 << log_entries],
            n,
            log_entries,
            entries: vec![Entry::default(); n << log_entries],
            folds: TableFolds::new(&hist_len),
            hist_len,
            tick: 0,
            reset_high: true,
            rng: XorShift(0x2545_F491_4F6C_DD1D),
            idx: [0; MAX_TABLES],
            tag: [0; MAX_TABLES],
        }
    }

    pub fn history_lengths(&self) -> &[u32] {
        &self.hist_len
    }


    #[inline(always)]
    fn slot(&self, table: usize) -> usize {
        (table << self.log_entries) | self.idx[table] as usize
    }

    /// Predict the target of the indirect branch at `pc` (None: no target
    /// known), then train with the actual target. History is pushed by the caller.
    pub fn predict_and_update(&mut self, pc: u64, target: u64) -> Option<u64> {
        let log = self.log_entries;
        let mask = (1u64 << log) - 1;
        for i in 0..self.n.min(MAX_TABLES) {
            let f = self.folds.comp(i);
            let h = pc ^ (pc >> (log - 1).max(1)) ^ hash_bits(f, IDX_MUL, log);
            self.idx[i] = (h & mask) as u32;
            let t = pc ^ (pc >> 9) ^ hash_bits(self.folds.comp_tag(i), TAG_MUL, TAG_BITS);
            self.tag[i] = (t & ((1 << TAG_BITS) - 1)) as u16;
        }
        let mut hits = 0u32;
        for i in 0..self.n.min(MAX_TABLES) {
            hits |= ((self.entries[self.slot(i)].tag == self.tag[i]) as u32) << i;
        }
        let provider = (hits != 0).then(|| 31 - hits.leading_zeros() as usize);
        let rest = provider.map_or(0, |p| hits & !(1 << p));
        let alt = (rest != 0).then(|| 31 - rest.leading_zeros() as usize);
        let base_idx = ((pc ^ (pc >> log)) & mask) as usize;
        let base = self.base[base_idx];
        let base_target = (base.target != 0).then_some(base.target);
        let alt_target = match alt {
            Some(a) => Some(self.entries[self.slot(a)].target),
            None => base_target,
        };
        let pred = match provider {
            Some(p) => {
                let e = self.entries[self.slot(p)];
                if e.conf == 0 && alt_target.is_some() {
                    alt_target
                } else {
                    Some(e.target)
                }
            }
            None => base_target,
        };

        // --- update ---
        let correct = pred == Some(target);
        match provider {
            Some(p) => {
                let s = self.slot(p);
                let alt_right = alt_target == Some(target);
                let e = &mut self.entries[s];
                let provider_right = e.target == target;
                let was_fresh = e.conf == 0;
                if provider_right {
                    e.conf = (e.conf + 1).min(3);
                } else if e.conf > 0 {
                    e.conf -= 1;
                } else {
                    e.target = target;
                }
                if provider_right && !alt_right {
                    e.u = (e.u + 1).min(3);
                } else if !provider_right && alt_right {
                    e.u = e.u.saturating_sub(1);
                }
                if was_fresh && alt.is_none() {
                    self.update_base(base_idx, target);
                }
            }
            None => self.update_base(base_idx, target),
        }

        let start = provider.map_or(0, |p| p + 1);
        if !correct && start < self.n {
            let mut first = start;
            if first + 1 < self.n && self.rng.next() & 1 == 1 {
                first += 1;
            }
            let mut done = false;
            for j in first..self.n {
                let s = self.slot(j);
                if self.entries[s].u == 0 {
                    self.entries[s] = Entry { target, tag: self.tag[j], conf: 0, u: 0 };
                    done = true;
                    break;
                }
            }
            if !done {
                for j in start..self.n {
                    let s = self.slot(j);
                    self.entries[s].u = self.entries[s].u.saturating_sub(1);
                }
            }
        }

        self.tick += 1;
        if self.tick & ((1 << USEFUL_RESET_LOG) - 1) == 0 {
            let keep = if self.reset_high { 0b01 } else { 0b10 };
            for e in self.entries.iter_mut() {
                e.u &= keep;
            }
            self.reset_high = !self.reset_high;
        }
        pred
    }

    #[inline(always)]
    fn update_base(&mut self, i: usize, target: u64) {
        let b = &mut self.base[i];
        if b.target == target {
            b.conf = (b.conf + 1).min(3);
        } else if b.conf > 0 {
            b.conf -= 1;
        } else {
            b.target = target;
        }
    }

    /// Push one bit of global history.
    #[inline]
    pub fn push_history(&mut self, bit: bool) {
        self.folds.push(bit);
    }
}
