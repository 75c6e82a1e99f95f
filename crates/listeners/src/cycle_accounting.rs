//! Levinthal's cycle accounting on the model: cycles = Retired + Non_Retired +
//! Stalls at uop execution (cycles in which uops execute, split by whether
//! they retire, and cycles in which none execute), and beside the measured
//! stalls the naive decomposition Σ count × penalty of the countable events,
//! with its `unaccounted` remainder — negative when the sequential-penalty
//! model over-counts overlapping events, which is Levinthal's point.
//!
//! The trace is the correct path and wrong-path uops do not execute in the
//! model, so every executed uop retires: Non_Retired is 0 (a hardware PMU would
//! see the wrong-path uops here).

use crate::accounting::ViewParams;
use crate::topdown::TopDownCounters;
use serde::Serialize;

#[derive(Debug, Clone, Default)]
pub(crate) struct LevinthalCounters {
    /// Loads served by L1, L2, L3, DRAM.
    pub loads: [u64; 4],
    pub mispredicts: u64,
    pub divides: u64,
    pub divide_latency: f64,
    pub icache_events: u64,
    pub icache_cycles: f64,
    pub btb_events: u64,
    pub btb_cycles: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PenaltyTerm {
    pub event: String,
    pub count: u64,
    /// Cycles per event.
    pub penalty: f64,
    pub cycles: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CycleAccounting {
    pub cycles: f64,
    /// Cycles executing uops that retire.
    pub retired: f64,
    /// Cycles executing uops that do not retire (0 on a correct-path trace).
    pub non_retired: f64,
    /// Cycles with no uop executed.
    pub stalls: f64,
    /// Uops executed per cycle with uops executed.
    pub uop_dispatch_rate: f64,
    pub penalties: Vec<PenaltyTerm>,
    /// Σ count × penalty.
    pub counted_stall_cycles: f64,
    /// stalls − counted (may be negative).
    pub unaccounted: f64,
    pub note: String,
}

impl LevinthalCounters {
    pub(crate) fn finish(&self, p: &ViewParams, td: &TopDownCounters, clocks: f64) -> CycleAccounting {
        let executing = td.ops_c1 as f64;
        let stalls = (clocks - executing).max(0.0);
        let x = &p.level_extra_latency;
        let avg = |sum: f64, n: u64| if n > 0 { sum / n as f64 } else { 0.0 };
        let terms = [
            ("l1_miss_l2_hit", self.loads[1], x[1]),
            ("l2_miss_l3_hit", self.loads[2], x[2]),
            ("l3_miss_dram", self.loads[3], x[3]),
            ("branch_mispredict", self.mispredicts, p.mispredict_penalty),
            ("divide", self.divides, avg(self.divide_latency, self.divides)),
            ("icache_miss", self.icache_events, avg(self.icache_cycles, self.icache_events)),
            ("btb_miss", self.btb_events, avg(self.btb_cycles, self.btb_events)),
        ];
        let penalties: Vec<PenaltyTerm> = terms
            .iter()
            .map(|(e, n, pen)| PenaltyTerm { event: e.to_string(), count: *n, penalty: *pen, cycles: *n as f64 * pen })
            .collect();
        let counted: f64 = penalties.iter().map(|t| t.cycles).sum();
        CycleAccounting {
            cycles: clocks,
            retired: executing,
            non_retired: 0.0,
            stalls,
            uop_dispatch_rate: if executing > 0.0 { td.ops_executed as f64 / executing } else { 0.0 },
            penalties,
            counted_stall_cycles: counted,
            unaccounted: stalls - counted,
            note: "correct-path trace: wrong-path uops do not execute in the model, so Non_Retired is 0; penalties are the machine's extra latency over an L1 hit, the mispredict penalty, the divide latency and the measured fetch stalls".into(),
        }
    }
}
