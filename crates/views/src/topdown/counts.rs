//! What Top-Down counts on the shared picture: the dispatch gaps by cause (its
//! level-1 slots), and per cycle the uops executed, load stalls, DRAM loads in
//! flight, store stalls and the busy divider (Yasin §4 Table 1, as the table
//! in the module above maps them onto the model).

use super::TopDownCounters;
use crate::picture::sweep::{Cycles, SweepConstants};
use crate::time::{ceil_i, floor_i, EPS};

/// What a counted window tallies of Top-Down beyond its dispatch gaps
/// (`crate::WindowTally::topdown`, indexed by the variant), all in cycles: the
/// numerators of the tree's nodes below level 1, each a ratio of a window's
/// count to its cycles (`FetchBubbles:cW` to its dispatch gaps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopDownTally {
    /// Cycles whose every slot the frontend lost (`FetchBubbles:cW`).
    FetchFullCycles,
    /// Cycles with no uop executed and a load in flight (`MemStalls.AnyLoad`), and
    /// of those, with one that missed L1, L2, L3 (`MemStalls.L1miss/L2miss/L3miss`).
    LoadStalls,
    LoadStallsL1Miss,
    LoadStallsL2Miss,
    LoadStallsL3Miss,
    /// `MemStalls.Stores`.
    StoreStalls,
    /// Cycles with a DRAM load in flight, and with at least the bandwidth
    /// threshold (`ExtMemOutstanding:c1`, `:cT`).
    DramCycles,
    DramBandwidthCycles,
    DividerActive,
    /// Cycles with at least 1, 2, 3 uops executed (`OpsExecuted:c1/:c2/:c3`).
    OpsAtLeast1,
    OpsAtLeast2,
    OpsAtLeast3,
}

/// How many [`TopDownTally`] kinds there are.
pub const TOPDOWN_TALLIES: usize = 12;

impl TopDownTally {
    pub const ALL: [TopDownTally; TOPDOWN_TALLIES] = [
        TopDownTally::FetchFullCycles,
        TopDownTally::LoadStalls,
        TopDownTally::LoadStallsL1Miss,
        TopDownTally::LoadStallsL2Miss,
        TopDownTally::LoadStallsL3Miss,
        TopDownTally::StoreStalls,
        TopDownTally::DramCycles,
        TopDownTally::DramBandwidthCycles,
        TopDownTally::DividerActive,
        TopDownTally::OpsAtLeast1,
        TopDownTally::OpsAtLeast2,
        TopDownTally::OpsAtLeast3,
    ];
}

/// The dispatch gaps, in cycles of slot time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DispatchGaps {
    pub(crate) wrong_path: f64,
    pub(crate) recovery: f64,
    pub(crate) frontend: f64,
    /// Cycles whose every slot the frontend lost (`FetchBubbles:cW`).
    pub(crate) frontend_full_cycles: u64,
    pub(crate) backend: f64,
}

impl DispatchGaps {
    pub(crate) fn sum(&self) -> f64 {
        self.wrong_path + self.recovery + self.frontend + self.backend
    }
}

/// Counts of cycles, from the sweep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CycleCounts {
    /// Cycles with 0, 1, 2, ≥ 3 uops executed (0: not counted).
    pub(crate) uops: [u64; 4],
    /// Cycles with no uop executed and a load in flight (any, missed L1, L2, L3).
    pub(crate) load_stalls: [u64; 4],
    pub(crate) store_stalls: u64,
    /// Cycles with a DRAM load in flight, with at least T, and the loads' sum over cycles.
    pub(crate) dram_cycles: u64,
    pub(crate) dram_bandwidth_cycles: u64,
    pub(crate) dram_occupancy: u64,
    pub(crate) divider_active: u64,
}

/// Everything Top-Down counts while instructions are booked and cycles swept.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TopDownCounts {
    pub(crate) gaps: DispatchGaps,
    pub(crate) cycles: CycleCounts,
}

impl TopDownCounts {
    /// After a mispredicted branch: `wrong_path` cycles of wrong-path dispatch,
    /// `recovery` cycles until the resteer.
    #[inline]
    pub(crate) fn mispredict(&mut self, wrong_path: f64, recovery: f64) {
        self.gaps.wrong_path += wrong_path;
        self.gaps.recovery += recovery;
    }

    /// The frontend delivered late over `[from, to)`.
    #[inline]
    pub(crate) fn frontend(&mut self, from: f64, to: f64) {
        self.gaps.frontend += to - from;
        self.gaps.frontend_full_cycles += (floor_i(to + EPS) - ceil_i(from - EPS)).max(0) as u64;
    }

    /// `cycles` of dispatch lost to a backend constraint.
    #[inline]
    pub(crate) fn backend(&mut self, cycles: f64) {
        self.gaps.backend += cycles;
    }

    pub(crate) fn add(&mut self, o: &TopDownCounts) {
        let sum = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        let (a, b) = (&mut self.cycles, &o.cycles);
        sum(&mut a.uops, &b.uops);
        sum(&mut a.load_stalls, &b.load_stalls);
        a.store_stalls += b.store_stalls;
        a.dram_cycles += b.dram_cycles;
        a.dram_bandwidth_cycles += b.dram_bandwidth_cycles;
        a.dram_occupancy += b.dram_occupancy;
        a.divider_active += b.divider_active;
        let (a, b) = (&mut self.gaps, &o.gaps);
        a.wrong_path += b.wrong_path;
        a.recovery += b.recovery;
        a.frontend += b.frontend;
        a.frontend_full_cycles += b.frontend_full_cycles;
        a.backend += b.backend;
    }

    /// `start + w · (self - start)` (see `crate::sampled`).
    pub(crate) fn reweight(&mut self, start: &TopDownCounts, w: f64) {
        let u = |x: &mut u64, s: u64| *x = s + ((x.saturating_sub(s)) as f64 * w).round() as u64;
        let f = |x: &mut f64, s: f64| *x = s + (*x - s) * w;
        let (a, b) = (&mut self.cycles, &start.cycles);
        a.uops.iter_mut().zip(&b.uops).for_each(|(x, s)| u(x, *s));
        a.load_stalls.iter_mut().zip(&b.load_stalls).for_each(|(x, s)| u(x, *s));
        u(&mut a.store_stalls, b.store_stalls);
        u(&mut a.dram_cycles, b.dram_cycles);
        u(&mut a.dram_bandwidth_cycles, b.dram_bandwidth_cycles);
        u(&mut a.dram_occupancy, b.dram_occupancy);
        u(&mut a.divider_active, b.divider_active);
        let (a, b) = (&mut self.gaps, &start.gaps);
        f(&mut a.wrong_path, b.wrong_path);
        f(&mut a.recovery, b.recovery);
        f(&mut a.frontend, b.frontend);
        u(&mut a.frontend_full_cycles, b.frontend_full_cycles);
        f(&mut a.backend, b.backend);
    }

    /// Scales windows to a run: cycle counts by `per_cycle`; the dispatch gaps so
    /// that with the retired slots (`base` cycles, exact) and the exact prefix's
    /// gaps they fill the run's `clocks`.
    pub(crate) fn scale_to_run(&mut self, per_cycle: f64, clocks: f64, base: f64, prefix_gaps: f64) {
        let scale = |v: &mut u64, f: f64| *v = (*v as f64 * f).round() as u64;
        let a = &mut self.cycles;
        a.uops.iter_mut().chain(&mut a.load_stalls).for_each(|v| scale(v, per_cycle));
        for v in [&mut a.store_stalls, &mut a.dram_cycles, &mut a.dram_bandwidth_cycles, &mut a.dram_occupancy, &mut a.divider_active] {
            scale(v, per_cycle);
        }
        let g = &mut self.gaps;
        let gaps = g.sum();
        let rest = (clocks - base - prefix_gaps).max(0.0);
        if gaps > 0.0 {
            let f = rest / gaps;
            for v in [&mut g.wrong_path, &mut g.recovery, &mut g.frontend, &mut g.backend] {
                *v *= f;
            }
            scale(&mut g.frontend_full_cycles, f);
        } else {
            // no window saw a gap: whatever the slots leave is the backend draining
            g.backend = rest;
        }
    }

    /// A window's [`TopDownTally`] counts (the counts so far; a window is the
    /// difference of two tallies).
    pub(crate) fn tally(&self) -> [f64; TOPDOWN_TALLIES] {
        let (g, c) = (&self.gaps, &self.cycles);
        let mut t = [0.0; TOPDOWN_TALLIES];
        for k in TopDownTally::ALL {
            t[k as usize] = match k {
                TopDownTally::FetchFullCycles => g.frontend_full_cycles,
                TopDownTally::LoadStalls => c.load_stalls[0],
                TopDownTally::LoadStallsL1Miss => c.load_stalls[1],
                TopDownTally::LoadStallsL2Miss => c.load_stalls[2],
                TopDownTally::LoadStallsL3Miss => c.load_stalls[3],
                TopDownTally::StoreStalls => c.store_stalls,
                TopDownTally::DramCycles => c.dram_cycles,
                TopDownTally::DramBandwidthCycles => c.dram_bandwidth_cycles,
                TopDownTally::DividerActive => c.divider_active,
                TopDownTally::OpsAtLeast1 => c.uops[1] + c.uops[2] + c.uops[3],
                TopDownTally::OpsAtLeast2 => c.uops[2] + c.uops[3],
                TopDownTally::OpsAtLeast3 => c.uops[3],
            } as f64;
        }
        t
    }

    /// Fills the counters that booking and sweeping count.
    pub(crate) fn export(&self, td: &mut TopDownCounters) {
        let (g, c) = (&self.gaps, &self.cycles);
        td.wrong_path_cycles = g.wrong_path;
        td.recovery_cycles = g.recovery;
        td.fetch_cycles = g.frontend;
        td.fetch_full_cycles = g.frontend_full_cycles;
        td.backend_cycles = g.backend;
        td.ops_c1 = c.uops[1] + c.uops[2] + c.uops[3];
        td.ops_c2 = c.uops[2] + c.uops[3];
        td.ops_c3 = c.uops[3];
        td.mem_any = c.load_stalls[0];
        td.mem_l1 = c.load_stalls[1];
        td.mem_l2 = c.load_stalls[2];
        td.mem_l3 = c.load_stalls[3];
        td.mem_stores = c.store_stalls;
        td.ext_c1 = c.dram_cycles;
        td.ext_ct = c.dram_bandwidth_cycles;
        td.ext_occupancy = c.dram_occupancy;
        td.divider_active = c.divider_active;
    }
}

/// Cycles with ≥ 1, 2, 3 uops executed during one sweep (kept in registers).
#[derive(Default)]
pub(crate) struct UopCycles {
    c1: u64,
    c2: u64,
    c3: u64,
}

impl UopCycles {
    /// Top-Down's per-cycle counts of a run of cycles.
    #[inline(always)]
    pub(crate) fn count(&mut self, run: &Cycles, k: &SweepConstants, counts: &mut TopDownCounts) {
        let ops = run.uops_executed;
        self.c1 += (ops >= 1) as u64;
        self.c2 += (ops >= 2) as u64;
        self.c3 += (ops >= 3) as u64;
        let n = run.cycles as u64;
        let m = run.in_flight;
        let a = &mut counts.cycles;
        // a load stall: no uop executed while a load that missed L1 is in flight,
        // or an L1 hit is and the oldest waiting instruction waits for a load's
        // data (or none waits). L1 hits running ahead of an FP-add chain are in
        // flight in its stall cycles without causing them.
        let load_stall = ops == 0 && m.some() && (m.missed_l1() || run.waits_on_load || run.oldest_waiting.is_none());
        if m.any() {
            let dram = m.from_dram();
            if load_stall {
                a.load_stalls[0] += n;
                a.load_stalls[1] += n * m.missed_l1() as u64;
                a.load_stalls[2] += n * m.missed_l2() as u64;
                a.load_stalls[3] += n * (dram != 0) as u64;
            }
            if dram != 0 {
                a.dram_cycles += n;
                a.dram_bandwidth_cycles += n * (dram >= k.bandwidth_loads) as u64;
                a.dram_occupancy += n * dram;
            }
        }
        // stores count only where no load stall does: Yasin §3.7 puts loads first
        if run.dispatch_stall == Some(crate::cpi_stacks::Component::DcacheStores) && ops <= k.few_uops && !load_stall {
            a.store_stalls += n;
        }
        if run.divider_busy {
            a.divider_active += n;
        }
    }

    pub(crate) fn flush(self, counts: &mut TopDownCounts) {
        let a = &mut counts.cycles.uops;
        a[1] += self.c1 - self.c2;
        a[2] += self.c2 - self.c3;
        a[3] += self.c3;
    }
}
