//! Hand-built machine parameters for tests, examples and benchmarks.
//!
//! A copy of `machines/skylake.toml`'s memory hierarchy and branch
//! parameters, so the functional layer's tests do not depend on the machine
//! files (or their form tables) loading.

use bottlenose_machine::{
    BranchParams, CacheKind, CacheParams, CoreParams, FusionParams, MemoryParams, Params, Replacement, TlbParams,
    VectorParams,
};

fn cache(name: &str, level: u8, kind: CacheKind, size_kib: u32, ways: u32, latency: f64) -> CacheParams {
    CacheParams {
        name: name.into(),
        level,
        kind,
        size_kib,
        ways,
        line_bytes: 64,
        latency,
        bytes_per_cycle: 32.0,
        replacement: Replacement::Plru,
    }
}

fn tlb(name: &str, kind: CacheKind, entries: u32, ways: u32, miss_latency: f64) -> TlbParams {
    TlbParams { name: name.into(), kind, entries, ways, page_kib: 4, miss_latency }
}

/// Skylake client: L1I/L1D 32 KiB 8-way, L2 256 KiB 4-way, L3 8 MiB 16-way
/// (all PLRU, 64 B lines), DTLB 64/4, ITLB 128/8, STLB 1536/12.
pub fn skylake_like() -> Params {
    Params {
        core: CoreParams {
            dispatch_width: 4.0,
            commit_width: 4.0,
            rob: 224,
            scheduler: 97,
            load_buffer: 72,
            store_buffer: 56,
            fetch_bytes: 16,
            ignore_dependencies: false,
            fetch_block_bytes: 0,
            fetch_blocks_per_cycle: 0.0,
            fetch_runahead_cycles: 4.0,
            icache_misses_in_flight: 1.0,
        },
        fusion: FusionParams::default(),
        memory: MemoryParams {
            load_latency: 5.0,
            store_forward_latency: 5.0,
            memory_renaming: false,
            renamed_forward_latency: 0.0,
            load_groups: vec!["p23".into()],
            store_address_groups: vec!["p237".into()],
            indexed_store_address_groups: vec![],
            store_data_groups: vec!["p4".into()],
            stores_skip_groups: vec![],
            integer_load_latency: None,
            indexed_load_extra_latency: 0.0,
            stores_per_cycle: 1.0,
            dram_latency: 250.0,
            dram_bytes_per_cycle: 8.0,
        },
        caches: vec![
            cache("L1I", 1, CacheKind::Instruction, 32, 8, 1.0),
            cache("L1D", 1, CacheKind::Data, 32, 8, 5.0),
            cache("L2", 2, CacheKind::Unified, 256, 4, 12.0),
            cache("L3", 3, CacheKind::Unified, 8192, 16, 42.0),
        ],
        tlbs: vec![
            tlb("DTLB", CacheKind::Data, 64, 4, 9.0),
            tlb("STLB", CacheKind::Unified, 1536, 12, 30.0),
            tlb("ITLB", CacheKind::Instruction, 128, 8, 9.0),
        ],
        branch: BranchParams {
            mispredict_penalty: 16.0,
            btb_entries: 4096,
            btb_ways: 4,
            ras_entries: 16,
            tage_tables: 7,
            tage_log_entries: 10,
            tage_min_history: 5,
            tage_max_history: 640,
            taken_bubble: 0.0,
            return_bubble: 0.0,
            indirect_bubble: 0.0,
        },
        vector: VectorParams::default(),
        prefetch: Default::default(),
        strings: Default::default(),
    }
}

/// [`skylake_like`] with every cache switched to `replacement`.
pub fn skylake_like_with(replacement: Replacement) -> Params {
    let mut p = skylake_like();
    for c in &mut p.caches {
        c.replacement = replacement;
    }
    p
}
