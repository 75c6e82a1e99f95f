//! Caches: the generic set-associative tag store, the L1I/L1D/L2/L3 hierarchy
//! built from a machine's `[[cache]]` list, and the optional data prefetchers.

pub mod hierarchy;
pub mod prefetch;
pub mod set_assoc;

pub use hierarchy::{CacheCounts, CacheHierarchy, CacheStats, LevelStats, MemLevel, PendingPrefetches};
pub use prefetch::Prefetcher;
pub use set_assoc::{Access, SetAssoc};

#[cfg(test)]
mod tests;
