//! The functional layer's counters: caches, TLBs, branch prediction, and the
//! idealizations the run was made with (computed by crate `bottlenose-functional`).

use bottlenose_machine::CacheKind;
use serde::{Deserialize, Serialize};

/// Idealizations for "what if this were perfect" experiments (all off by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Idealization {
    /// Every instruction fetch hits L1I and the ITLB.
    pub perfect_icache: bool,
    /// Every data access hits L1D and the DTLB.
    pub perfect_dcache: bool,
    /// No branch mispredicts or misses the BTB.
    pub perfect_branch: bool,
}

/// All counters of the functional layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionalStats {
    pub idealization: Idealization,
    pub caches: CacheStats,
    pub tlbs: TlbStats,
    pub branches: BranchStats,
}

/// Counters of one cache.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LevelStats {
    pub name: String,
    pub level: u8,
    pub kind: CacheKind,
    /// Demand accesses that reached this level (line granular: a line-crossing
    /// access counts twice).
    pub accesses: u64,
    pub misses: u64,
    pub miss_rate: f64,
}

/// Counters of the whole hierarchy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheStats {
    /// One entry per modelled cache, nearest level first, data side before
    /// instruction side within a level (e.g. L1D, L1I, L2, L3).
    pub levels: Vec<LevelStats>,
    pub data_accesses: u64,
    pub stores: u64,
    pub line_crossings: u64,
    pub inst_fetches: u64,
    /// Demand line accesses served by DRAM (data + instruction).
    pub dram_accesses: u64,
    /// The prefetchers that ran (`none`, `next-line + stream 64 lines ahead`...).
    pub prefetcher: String,
    /// Prefetches that brought a line into L1D.
    pub prefetch_fills: u64,
    /// Of those, lines that came from DRAM.
    pub prefetch_dram: u64,
    /// Dirty lines written back over each link: L1D->L2, L2->L3, L3->DRAM.
    pub writebacks: [u64; 3],
}

/// Counters of one TLB.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TlbLevelStats {
    pub name: String,
    pub kind: CacheKind,
    pub accesses: u64,
    pub misses: u64,
}

/// Counters of all TLBs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TlbStats {
    pub levels: Vec<TlbLevelStats>,
    pub data_translations: u64,
    pub inst_translations: u64,
    /// Translations that missed every level of their side.
    pub page_walks: u64,
    /// Sum of the extra cycles returned.
    pub extra_cycles: f64,
}

/// Counters of one branch kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KindCounters {
    pub branches: u64,
    pub mispredicts: u64,
    pub btb_misses: u64,
}

/// Counters of the branch unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchStats {
    pub branches: u64,
    pub mispredicts: u64,
    pub btb_misses: u64,
    /// mispredicts / branches.
    pub mispredict_ratio: f64,
    pub conditional: KindCounters,
    pub direct_jump: KindCounters,
    pub indirect_jump: KindCounters,
    pub direct_call: KindCounters,
    pub indirect_call: KindCounters,
    #[serde(rename = "return")]
    pub ret: KindCounters,
    pub other: KindCounters,
    /// Conditional branches that TAGE's tagged tables (rather than the bimodal table) predicted.
    pub tage_tagged_provider: u64,
}
