//! Rate knobs: a timing variant in which a share of the run's miss events do
//! not happen. Sensitivity analysis scales a *rate* by a weight `w` (the rate
//! is divided by `w`), which is what the idealizations do at the limit
//! (perfect branch prediction = misprediction rate / ∞) and what a fix such as
//! a branch-free rewrite or cache blocking changes.
//!
//! The functional layer is shared by every variant, so a variant cannot
//! re-run the caches or predictors with a lower miss rate. Instead it thins
//! the events it is handed: of the mispredictions (or misses at a level, or
//! TLB misses), a share `1 - 1/w`, spread evenly over the run, is timed as a
//! correct prediction (a hit one level closer, a TLB hit). Lines the thinned
//! misses would have brought, and their effect on later accesses, stay as the
//! functional layer saw them: a first-order estimate, as a rate change is.

use crate::events::DynInfo;
use serde::Serialize;

/// The event kinds a rate knob thins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(usize)]
pub enum RateEvent {
    /// A mispredicted branch is timed as predicted.
    Mispredict = 0,
    /// An access that missed L1 is timed as an L1 hit.
    L1Miss = 1,
    /// An access that missed L2 is timed as an L2 hit.
    L2Miss = 2,
    /// An access served by DRAM is timed as an L3 hit.
    L3Miss = 3,
    /// A load's TLB miss (its extra latency) is timed as a TLB hit.
    TlbMiss = 4,
}

pub const RATE_EVENTS: usize = 5;

/// The share of each event kind that a variant removes, and the running
/// credit that spreads the removals evenly (deterministic: a run's variants
/// are reproducible).
#[derive(Debug, Clone)]
pub struct Thinning {
    remove: [f64; RATE_EVENTS],
    credit: [f64; RATE_EVENTS],
}

impl Thinning {
    /// From the rate weights (1.0 = nominal, `w` divides the rate); `None`
    /// when every weight is nominal (no work per instruction then).
    pub fn from_weights(weights: [f64; RATE_EVENTS]) -> Option<Self> {
        let remove = weights.map(|w| if w > 1.0 { 1.0 - 1.0 / w } else { 0.0 });
        remove.iter().any(|&r| r > 0.0).then_some(Self { remove, credit: [0.0; RATE_EVENTS] })
    }

    /// Whether this occurrence of `e` is removed.
    #[inline]
    fn drop(&mut self, e: RateEvent) -> bool {
        let k = e as usize;
        if self.remove[k] == 0.0 {
            return false;
        }
        self.credit[k] += self.remove[k];
        if self.credit[k] >= 1.0 - 1e-9 {
            self.credit[k] -= 1.0;
            true
        } else {
            false
        }
    }

    /// One level of a load's or store's source (0 = L1 .. 3 = DRAM) after thinning.
    #[inline]
    fn level(&mut self, mut level: u8) -> u8 {
        if level >= 3 && self.drop(RateEvent::L3Miss) {
            level = 2;
        }
        if level >= 2 && self.drop(RateEvent::L2Miss) {
            level = 1;
        }
        if level >= 1 && self.drop(RateEvent::L1Miss) {
            level = 0;
        }
        level
    }

    /// The instruction's dynamic facts with this variant's share of its events removed.
    #[inline]
    pub fn apply(&mut self, dy: &DynInfo) -> DynInfo {
        let mut d = *dy;
        if d.mispredicted && self.drop(RateEvent::Mispredict) {
            d.mispredicted = false;
        }
        if d.load_level > 0 {
            d.load_level = self.level(d.load_level);
        }
        if d.store_level > 0 {
            d.store_level = self.level(d.store_level);
        }
        if d.load_extra_latency > 0.0 && self.drop(RateEvent::TlbMiss) {
            d.load_extra_latency = 0.0;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(e: RateEvent, w: f64) -> [f64; RATE_EVENTS] {
        let mut a = [1.0; RATE_EVENTS];
        a[e as usize] = w;
        a
    }

    #[test]
    fn nominal_weights_thin_nothing() {
        assert!(Thinning::from_weights([1.0; RATE_EVENTS]).is_none());
        // a slower rate (w < 1) cannot add events that did not happen
        assert!(Thinning::from_weights(weights(RateEvent::Mispredict, 0.5)).is_none());
    }

    #[test]
    fn a_weight_divides_the_rate_evenly() {
        // w = 2: every other misprediction goes; w = 1.25: one in five
        for (w, kept_of_100) in [(2.0, 50), (1.25, 80), (4.0, 25)] {
            let mut t = Thinning::from_weights(weights(RateEvent::Mispredict, w)).unwrap();
            let dy = DynInfo { mispredicted: true, ..Default::default() };
            let kept = (0..100).filter(|_| t.apply(&dy).mispredicted).count();
            assert_eq!(kept, kept_of_100, "w = {w}");
        }
    }

    #[test]
    fn a_level_knob_moves_misses_one_level_closer() {
        let mut t = Thinning::from_weights(weights(RateEvent::L2Miss, 2.0)).unwrap();
        // L2 misses halve, every other one in the order they occur: a DRAM
        // load becomes an L2 hit (level 1) every other time
        let dram = DynInfo { load_level: 3, ..Default::default() };
        let levels: Vec<u8> = (0..4).map(|_| t.apply(&dram).load_level).collect();
        assert_eq!(levels, [3, 1, 3, 1]);
        let store = DynInfo { store_level: 2, ..Default::default() };
        let levels: Vec<u8> = (0..4).map(|_| t.apply(&store).store_level).collect();
        assert_eq!(levels, [2, 1, 2, 1]);
        // L1 misses that hit L2 are not L2 misses: untouched
        let l2 = DynInfo { load_level: 1, ..Default::default() };
        assert!((0..10).all(|_| t.apply(&l2).load_level == 1));
    }
}
