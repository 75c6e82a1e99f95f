//! Shadow memory: when the data stored at an address becomes available, so a
//! later load of that address waits for it (store-to-load dependencies, which
//! static analyzers miss; Gus §4.3's adi example).
//!
//! A direct-mapped table of 8-byte granules keeps memory bounded on long runs;
//! an evicted entry only loses a dependency that is long past in practice.

const BITS: u32 = 16;

#[derive(Clone)]
pub struct ShadowMemory {
    tags: Vec<u64>,
    ready: Vec<f64>,
    /// The storing instruction's address-expression key (`InstrTiming::mem_key`), for memory renaming.
    keys: Vec<u64>,
}

impl Default for ShadowMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl ShadowMemory {
    pub fn new() -> Self {
        Self { tags: vec![u64::MAX; 1 << BITS], ready: vec![0.0; 1 << BITS], keys: vec![0; 1 << BITS] }
    }

    #[inline]
    fn slot(granule: u64) -> usize {
        (granule.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BITS)) as usize
    }

    #[inline]
    pub fn write(&mut self, addr: u64, ready: f64, key: u64) {
        let g = addr >> 3;
        let s = Self::slot(g);
        self.tags[s] = g;
        self.ready[s] = ready;
        self.keys[s] = key;
    }

    /// When the last store to `addr` made its data available, and that store's key.
    #[inline]
    pub fn ready(&self, addr: u64) -> Option<(f64, u64)> {
        let g = addr >> 3;
        let s = Self::slot(g);
        (self.tags[s] == g).then(|| (self.ready[s], self.keys[s]))
    }
}
