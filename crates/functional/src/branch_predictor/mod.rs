//! Branch prediction: BTB, TAGE, ITTAGE and RAS combined into one
//! [`BranchUnit`] that classifies every executed branch as correctly
//! predicted, a BTB miss (frontend resteer) or a misprediction (pipeline flush).
//!
//! Per branch kind:
//! * `Conditional`: direction from TAGE; a wrong direction is a mispredict. A
//!   correctly predicted *taken* branch whose target is not in the BTB is a
//!   `btb_miss` (resteer), not a mispredict. Taken branches train the BTB.
//! * `DirectJump` / `DirectCall`: BTB only; the first encounter (or an evicted
//!   or stale entry) is a `btb_miss`; never a mispredict.
//! * `IndirectJump` / `IndirectCall`: ITTAGE predicts the target (its base
//!   table plays the BTB's role); a missing or wrong target is a mispredict. The
//!   BTB is trained too (it is what tells the frontend there is a branch).
//! * `Return`: popped from the RAS; a missing or wrong address is a mispredict.
//! * Calls (direct and indirect) push their fall-through address on the RAS.
//! * `Other` (syscall, int, …) is counted but not predicted; `None` is ignored.
//!
//! Global history (shared input of TAGE and ITTAGE): each conditional branch
//! pushes its outcome, each indirect branch pushes 4 hashed bits of its target;
//! every branch shifts one address bit into TAGE's path history.
//!
//! With `perfect` set nothing is predicted or trained: every branch is counted
//! and reported correct.

mod rng;
pub mod btb;
mod history;
pub mod ittage;
pub mod ras;
pub mod tage;

pub use bottlenose_decode::BranchKind;
pub use btb::Btb;
pub use ittage::Ittage;
pub use ras::Ras;
pub use tage::{Tage, TagePrediction};

use bottlenose_machine::BranchParams;
use serde::{Deserialize, Serialize};
pub use bottlenose_report_model::functional::{BranchStats, KindCounters};

/// How one branch went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BranchOutcome {
    /// Wrong direction or wrong target found at execution: a pipeline flush.
    pub mispredicted: bool,
    /// Correct prediction but the target was not in the BTB: a frontend resteer.
    pub btb_miss: bool,
}

const KINDS: usize = 7;

fn kind_slot(kind: BranchKind) -> Option<usize> {
    Some(match kind {
        BranchKind::None => return None,
        BranchKind::Conditional => 0,
        BranchKind::DirectJump => 1,
        BranchKind::IndirectJump => 2,
        BranchKind::DirectCall => 3,
        BranchKind::IndirectCall => 4,
        BranchKind::Return => 5,
        BranchKind::Other => 6,
    })
}

/// 4 bits of an indirect target for the global history.
#[inline(always)]
fn target_bits(t: u64) -> u64 {
    (t ^ (t >> 4) ^ (t >> 8) ^ (t >> 12) ^ (t >> 20)) & 0xf
}

/// BTB + TAGE + ITTAGE + RAS.
#[derive(Debug, Clone)]
pub struct BranchUnit {
    pub btb: Btb,
    pub tage: Tage,
    pub ittage: Ittage,
    pub ras: Ras,
    perfect: bool,
    counters: [KindCounters; KINDS],
    tage_tagged_provider: u64,
}

impl BranchUnit {
    pub fn new(p: &BranchParams) -> Self {
        Self {
            btb: Btb::new(p.btb_entries, p.btb_ways),
            tage: Tage::new(p),
            ittage: Ittage::new(p),
            ras: Ras::new(p.ras_entries),
            perfect: false,
            counters: [KindCounters::default(); KINDS],
            tage_tagged_provider: 0,
        }
    }

    /// Never mispredict, never miss the BTB (Eyerman-style idealization).
    pub fn set_perfect(&mut self, perfect: bool) {
        self.perfect = perfect;
    }

    #[inline]
    fn push_history(&mut self, bit: bool) {
        self.tage.push_history(bit);
        self.ittage.push_history(bit);
    }

    /// Predict the branch at `pc` and train on what it did. `taken` matters for
    /// conditional branches (others are taken by definition); `target` is where
    /// it went when taken; `fallthrough` is the next instruction's address.
    #[inline]
    pub fn predict_and_update(
        &mut self,
        pc: u64,
        kind: BranchKind,
        taken: bool,
        target: u64,
        fallthrough: u64,
    ) -> BranchOutcome {
        let Some(k) = kind_slot(kind) else { return BranchOutcome::default() };
        self.counters[k].branches += 1;
        if self.perfect {
            return BranchOutcome::default();
        }
        let mut out = BranchOutcome::default();
        match kind {
            BranchKind::Conditional => {
                let p = self.tage.predict_and_update(pc, taken);
                self.tage_tagged_provider += (p.provider > 0) as u64;
                out.mispredicted = p.taken != taken;
                if taken {
                    let btb_hit = self.btb.check_and_update(pc, target);
                    out.btb_miss = !out.mispredicted && !btb_hit;
                }
                self.push_history(taken);
            }
            BranchKind::DirectJump | BranchKind::DirectCall => {
                out.btb_miss = !self.btb.check_and_update(pc, target);
                if kind == BranchKind::DirectCall {
                    self.ras.push(fallthrough);
                }
            }
            BranchKind::IndirectJump | BranchKind::IndirectCall => {
                let pred = self.ittage.predict_and_update(pc, target);
                out.mispredicted = pred != Some(target);
                self.btb.update(pc, target);
                if kind == BranchKind::IndirectCall {
                    self.ras.push(fallthrough);
                }
                let bits = target_bits(target);
                for i in 0..4 {
                    self.push_history(bits >> i & 1 == 1);
                }
            }
            BranchKind::Return => {
                out.mispredicted = self.ras.pop() != Some(target);
            }
            BranchKind::Other | BranchKind::None => {}
        }
        self.tage.push_path(pc);
        let c = &mut self.counters[k];
        c.mispredicts += out.mispredicted as u64;
        c.btb_misses += out.btb_miss as u64;
        out
    }

    /// Counters of one kind.
    pub fn counters(&self, kind: BranchKind) -> KindCounters {
        kind_slot(kind).map_or_else(KindCounters::default, |k| self.counters[k])
    }

    /// The counters alone (the predictors' state stays).
    pub fn counts(&self) -> BranchCounts {
        BranchCounts { kinds: self.counters, tage_tagged_provider: self.tage_tagged_provider }
    }

    /// Puts back counters taken by [`BranchUnit::counts`].
    pub fn restore_counts(&mut self, c: BranchCounts) {
        self.counters = c.kinds;
        self.tage_tagged_provider = c.tage_tagged_provider;
    }

    pub fn stats(&self) -> BranchStats {
        let c = &self.counters;
        let branches: u64 = c.iter().map(|k| k.branches).sum();
        let mispredicts: u64 = c.iter().map(|k| k.mispredicts).sum();
        BranchStats {
            branches,
            mispredicts,
            btb_misses: c.iter().map(|k| k.btb_misses).sum(),
            mispredict_ratio: if branches > 0 { mispredicts as f64 / branches as f64 } else { 0.0 },
            conditional: c[0],
            direct_jump: c[1],
            indirect_jump: c[2],
            direct_call: c[3],
            indirect_call: c[4],
            ret: c[5],
            other: c[6],
            tage_tagged_provider: self.tage_tagged_provider,
        }
    }
}

/// A snapshot of the branch unit's counters ([`BranchUnit::counts`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct BranchCounts {
    kinds: [KindCounters; KINDS],
    tage_tagged_provider: u64,
}

#[cfg(test)]
mod tests;
