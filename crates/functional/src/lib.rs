//! The functional layer of bottlenose.
//!
//! What happens to each executed instruction *independently of timing*: which
//! cache level serves its loads, stores and fetch, whether its address
//! translations hit the TLBs, and whether its branch is predicted. These
//! results are computed once per executed instruction and shared by every
//! timing variant (the timing model turns them into latencies and penalties).
//!
//! Where things live:
//! * [`cache`] — [`cache::set_assoc`] (generic set-associative tag store with
//!   LRU / tree-PLRU), [`cache::hierarchy`] (L1I/L1D/L2/L3 built from the
//!   machine's `[[cache]]` list), [`cache::prefetch`] (optional prefetchers);
//! * [`tlb`] — DTLB/ITLB backed by the STLB;
//! * [`branch_predictor`] — [`branch_predictor::btb`], [`branch_predictor::tage`],
//!   [`branch_predictor::ittage`], [`branch_predictor::ras`] and the
//!   [`BranchUnit`] combining them.
//!
//! [`FunctionalLayer`] bundles the three with the Eyerman-style
//! [`Idealization`] switches (perfect I-cache, D-cache, branch prediction).
//!
//! The per-access paths allocate nothing: every table is sized at construction.

pub mod branch_predictor;
pub mod cache;
pub mod tlb;

#[doc(hidden)]
pub mod test_params;

pub use bottlenose_decode::BranchKind;
pub use branch_predictor::{BranchOutcome, BranchStats, BranchUnit, KindCounters};
pub use cache::{CacheCounts, CacheHierarchy, CacheStats, LevelStats, MemLevel, PendingPrefetches, Prefetcher};
pub use tlb::{TlbHierarchy, TlbStats};

use bottlenose_machine::Params;
use serde::{Deserialize, Serialize};
pub use bottlenose_report_model::functional::{FunctionalStats, Idealization};

/// Where a memory access was served and what its translation cost.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct MemOutcome {
    pub level: MemLevel,
    /// Extra cycles of address translation (0 on a first-level TLB hit).
    pub tlb_cycles: f64,
}

/// A snapshot of the functional layer's counters ([`FunctionalLayer::counts`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionalCounts {
    caches: cache::CacheCounts,
    tlbs: tlb::TlbCounts,
    branch: branch_predictor::BranchCounts,
}

/// Caches, TLBs and branch unit of one core.
#[derive(Debug, Clone)]
pub struct FunctionalLayer {
    pub caches: CacheHierarchy,
    pub tlbs: TlbHierarchy,
    pub branch: BranchUnit,
    idealization: Idealization,
}

impl FunctionalLayer {
    pub fn new(params: &Params, idealization: Idealization) -> Self {
        Self::with_prefetcher(params, idealization, Prefetcher::Machine)
    }

    pub fn with_prefetcher(params: &Params, idealization: Idealization, prefetcher: Prefetcher) -> Self {
        let mut caches = CacheHierarchy::with_prefetcher(params, prefetcher);
        caches.set_perfect(idealization.perfect_dcache, idealization.perfect_icache);
        let mut tlbs = TlbHierarchy::new(params);
        tlbs.set_perfect(idealization.perfect_dcache, idealization.perfect_icache);
        let mut branch = BranchUnit::new(&params.branch);
        branch.set_perfect(idealization.perfect_branch);
        Self { caches, tlbs, branch, idealization }
    }

    pub fn idealization(&self) -> Idealization {
        self.idealization
    }

    /// A load or store of `size` bytes at virtual address `addr`.
    #[inline]
    pub fn data_access(&mut self, addr: u64, size: u32, is_store: bool) -> MemOutcome {
        let tlb_cycles = self.tlbs.translate_data(addr);
        let level = self.caches.data_access(addr, size, is_store);
        MemOutcome { level, tlb_cycles }
    }

    /// Fetch of the instruction bytes at `addr` (one line).
    #[inline]
    pub fn inst_fetch(&mut self, addr: u64) -> MemOutcome {
        let tlb_cycles = self.tlbs.translate_inst(addr);
        let level = self.caches.inst_fetch(addr);
        MemOutcome { level, tlb_cycles }
    }

    /// Predict and train on one executed branch; see [`BranchUnit::predict_and_update`].
    #[inline]
    pub fn branch(&mut self, pc: u64, kind: BranchKind, taken: bool, target: u64, fallthrough: u64) -> BranchOutcome {
        self.branch.predict_and_update(pc, kind, taken, target, fallthrough)
    }

    /// Load-to-use latency of a data access served at `level`.
    pub fn data_latency(&self, level: MemLevel) -> f64 {
        self.caches.latency(level)
    }

    /// Latency of an instruction fetch served at `level`.
    pub fn fetch_latency(&self, level: MemLevel) -> f64 {
        self.caches.inst_latency(level)
    }

    /// The counters of the caches, TLBs and branch unit, without their state.
    pub fn counts(&self) -> FunctionalCounts {
        FunctionalCounts { caches: self.caches.counts(), tlbs: self.tlbs.counts(), branch: self.branch.counts() }
    }

    /// Puts back counters taken by [`FunctionalLayer::counts`]: what ran in
    /// between still warmed the caches and predictors but is not counted.
    pub fn restore_counts(&mut self, c: FunctionalCounts) {
        self.caches.restore_counts(c.caches);
        self.tlbs.restore_counts(c.tlbs);
        self.branch.restore_counts(c.branch);
    }

    pub fn stats(&self) -> FunctionalStats {
        FunctionalStats {
            idealization: self.idealization,
            caches: self.caches.stats(),
            tlbs: self.tlbs.stats(),
            branches: self.branch.stats(),
        }
    }
}
