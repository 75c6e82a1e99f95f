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

use crate::counts::StaticSums;
use crate::params::ViewParams;
use crate::topdown::TopDownCounters;
pub use bottlenose_report_model::views::{CycleAccounting, PenaltyTerm};

/// The countable events with a penalty, counted per booked instruction (the
/// mispredictions and divides come from every execution, [`StaticSums`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct EventCounts {
    /// Loads served by L1, L2, L3, DRAM.
    pub loads: [u64; 4],
    pub icache_events: u64,
    pub icache_cycles: f64,
    pub btb_events: u64,
    pub btb_cycles: f64,
}

impl EventCounts {
    /// A load served by `level` (0 = L1 .. 3 = DRAM).
    #[inline(always)]
    pub(crate) fn load(&mut self, level: usize) {
        self.loads[level] += 1;
    }

    /// The frontend delivered an instruction `fetch_stall` cycles late, `btb_stall` of them for branch handling.
    #[inline]
    pub(crate) fn fetch_stall(&mut self, fetch_stall: f32, btb_stall: f32) {
        let btb = btb_stall as f64;
        let icache = fetch_stall as f64 - btb;
        if icache > 0.0 {
            self.icache_events += 1;
            self.icache_cycles += icache;
        }
        if btb > 0.0 {
            self.btb_events += 1;
            self.btb_cycles += btb;
        }
    }

    pub(crate) fn add(&mut self, o: &EventCounts) {
        self.loads.iter_mut().zip(&o.loads).for_each(|(x, y)| *x += y);
        self.icache_events += o.icache_events;
        self.icache_cycles += o.icache_cycles;
        self.btb_events += o.btb_events;
        self.btb_cycles += o.btb_cycles;
    }

    /// `start + w · (self - start)` (see `crate::sampled`).
    pub(crate) fn reweight(&mut self, start: &EventCounts, w: f64) {
        let u = |x: &mut u64, s: u64| *x = s + ((x.saturating_sub(s)) as f64 * w).round() as u64;
        let f = |x: &mut f64, s: f64| *x = s + (*x - s) * w;
        self.loads.iter_mut().zip(&start.loads).for_each(|(x, s)| u(x, *s));
        u(&mut self.icache_events, start.icache_events);
        f(&mut self.icache_cycles, start.icache_cycles);
        u(&mut self.btb_events, start.btb_events);
        f(&mut self.btb_cycles, start.btb_cycles);
    }

    /// Scales windows to a run by `per_instruction` (its instructions over the windows').
    pub(crate) fn scale_to_run(&mut self, per_instruction: f64) {
        let scale = |v: &mut u64, f: f64| *v = (*v as f64 * f).round() as u64;
        self.loads.iter_mut().for_each(|v| scale(v, per_instruction));
        scale(&mut self.icache_events, per_instruction);
        scale(&mut self.btb_events, per_instruction);
        self.icache_cycles *= per_instruction;
        self.btb_cycles *= per_instruction;
    }
}

impl EventCounts {
    /// The accounting of a run of `clocks` cycles: the cycles executing uops come
    /// from Top-Down's counters (`td`), the mispredictions and divides from `all`.
    pub(crate) fn finish(&self, p: &ViewParams, td: &TopDownCounters, all: &StaticSums, clocks: f64) -> CycleAccounting {
        let executing = td.ops_c1 as f64;
        let stalls = (clocks - executing).max(0.0);
        let x = &p.level_extra_latency;
        let avg = |sum: f64, n: u64| if n > 0 { sum / n as f64 } else { 0.0 };
        let terms = [
            ("l1_miss_l2_hit", self.loads[1], x[1]),
            ("l2_miss_l3_hit", self.loads[2], x[2]),
            ("l3_miss_dram", self.loads[3], x[3]),
            ("branch_mispredict", all.mispredicts, p.mispredict_penalty),
            ("divide", all.divides, avg(all.divide_latency, all.divides)),
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

#[cfg(test)]
mod tests;
