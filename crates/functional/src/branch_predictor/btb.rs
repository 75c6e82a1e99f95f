//! Branch target buffer: set-associative (LRU) map from branch address to its
//! last taken target.
//!
//! The frontend needs the target of a taken branch before decode; a taken
//! branch whose address is not in the BTB (or whose stored target is stale)
//! costs a frontend resteer once it is decoded (direct branches) or executed.
//! Keys are the full branch address; targets live in an array parallel to the
//! tag store, indexed by its slot.

use crate::cache::SetAssoc;
use bottlenose_machine::Replacement;

#[derive(Debug, Clone)]
pub struct Btb {
    store: SetAssoc,
    targets: Vec<u64>,
}

impl Btb {
    pub fn new(entries: u32, ways: u32) -> Self {
        let store = SetAssoc::with_entries(entries.max(1) as usize, ways.max(1) as usize, Replacement::Lru);
        let n = store.sets() * store.ways();
        Self { store, targets: vec![0; n] }
    }

    /// Predicted target of the branch at `pc` (touches LRU on a hit).
    #[inline]
    pub fn lookup(&mut self, pc: u64) -> Option<u64> {
        let slot = self.store.lookup(pc)?;
        Some(self.targets[slot])
    }

    /// Record `target` as the branch's target (allocating if needed).
    #[inline]
    pub fn update(&mut self, pc: u64, target: u64) {
        let slot = self.store.access(pc).slot;
        self.targets[slot] = target;
    }

    /// Look up and train in one step; returns whether the BTB already held the
    /// right target.
    #[inline]
    pub fn check_and_update(&mut self, pc: u64, target: u64) -> bool {
        let a = self.store.access(pc);
        let right = a.hit && self.targets[a.slot] == target;
        self.targets[a.slot] = target;
        right
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_encounter_misses_then_hits_and_capacity_evicts_lru() {
        let mut b = Btb::new(8, 2); // 4 sets × 2 ways
        assert!(!b.check_and_update(0x100, 0x900));
        assert!(b.check_and_update(0x100, 0x900));
        assert!(!b.check_and_update(0x100, 0xa00), "changed target");
        assert_eq!(b.lookup(0x100), Some(0xa00));
        // Three branches in one set (keys ≡ 0 mod 4): the least recent goes.
        b.update(0x104, 1);
        b.update(0x108, 2); // evicts 0x100
        assert_eq!(b.lookup(0x100), None);
        assert_eq!(b.lookup(0x104), Some(1));
        assert_eq!(b.lookup(0x108), Some(2));
    }
}
