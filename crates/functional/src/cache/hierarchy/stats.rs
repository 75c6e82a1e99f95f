//! The hierarchy's counters: per-level statistics derived from the misses
//! counted per side (see [`CacheHierarchy`] on why only misses are counted),
//! and the snapshot a region of interest keeps while the code around it warms
//! the caches.

use super::{CacheHierarchy, DATA, INST};
pub use bottlenose_report_model::functional::{CacheStats, LevelStats};

/// A snapshot of the hierarchy's counters ([`CacheHierarchy::counts`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct CacheCounts {
    misses: [[u64; 3]; 2],
    data_accesses: u64,
    stores: u64,
    line_crossings: u64,
    inst_fetches: u64,
    prefetch_fills: u64,
    prefetch_dram: u64,
    writebacks: [u64; 3],
}

impl CacheHierarchy {
    /// The counters alone (the caches' contents stay): a region of interest
    /// keeps its own while the code around it warms the caches.
    pub fn counts(&self) -> CacheCounts {
        CacheCounts {
            misses: self.misses,
            data_accesses: self.data_accesses,
            stores: self.stores,
            line_crossings: self.line_crossings,
            inst_fetches: self.inst_fetches,
            prefetch_fills: self.prefetch_fills,
            prefetch_dram: self.prefetch_dram,
            writebacks: self.writebacks,
        }
    }

    /// Puts back counters taken by [`CacheHierarchy::counts`].
    pub fn restore_counts(&mut self, c: CacheCounts) {
        self.misses = c.misses;
        self.data_accesses = c.data_accesses;
        self.stores = c.stores;
        self.line_crossings = c.line_crossings;
        self.inst_fetches = c.inst_fetches;
        self.prefetch_fills = c.prefetch_fills;
        self.prefetch_dram = c.prefetch_dram;
        self.writebacks = c.writebacks;
    }

    /// Demand line accesses of a side (what its first level sees).
    fn side_lines(&self, side: usize) -> u64 {
        if side == DATA {
            self.data_accesses + self.line_crossings
        } else {
            self.inst_fetches
        }
    }

    pub fn stats(&self) -> CacheStats {
        let mut acc = vec![0u64; self.levels.len()];
        let mut miss = vec![0u64; self.levels.len()];
        let mut dram = 0;
        for side in [DATA, INST] {
            let path = self.paths[side];
            let mut reaching = self.side_lines(side);
            for i in 0..path.len as usize {
                let li = path.idx[i] as usize;
                acc[li] += reaching;
                miss[li] += self.misses[side][i];
                reaching = self.misses[side][i];
            }
            dram += reaching;
        }
        CacheStats {
            levels: self
                .levels
                .iter()
                .enumerate()
                .map(|(i, l)| LevelStats {
                    name: l.name.clone(),
                    level: l.level,
                    kind: l.kind,
                    accesses: acc[i],
                    misses: miss[i],
                    miss_rate: if acc[i] > 0 { miss[i] as f64 / acc[i] as f64 } else { 0.0 },
                })
                .collect(),
            data_accesses: self.data_accesses,
            stores: self.stores,
            line_crossings: self.line_crossings,
            inst_fetches: self.inst_fetches,
            dram_accesses: dram,
            prefetcher: self.prefetch.describe(),
            prefetch_fills: self.prefetch_fills,
            prefetch_dram: self.prefetch_dram,
            writebacks: self.writebacks,
        }
    }

    /// Counters of the cache named `name`.
    pub fn level_stats(&self, name: &str) -> Option<LevelStats> {
        self.stats().levels.into_iter().find(|l| l.name == name)
    }
}
