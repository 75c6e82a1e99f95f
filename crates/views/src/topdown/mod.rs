//! Simulated Top-Down events: the counters architecture of Yasin §4 (Table 1)
//! implemented on the model, with the names the `yasin2014` metric table
//! expects, plus the direct slot accounting they summarize.
//!
//! | event | on the model |
//! | --- | --- |
//! | `Clocks` | cycles of the run |
//! | `TotalSlots` | W × Clocks (W = dispatch width, the issue point of Top-Down) |
//! | `SlotsRetired` | fused uops of the (correct-path) trace |
//! | `SlotsIssued` | `SlotsRetired` + wrong-path slots: the dispatch slots from a mispredicted branch until it resolves |
//! | `FetchBubbles` | dispatch slots lost while the frontend delivered late (icache/ITLB miss, BTB-miss resteer) and no backend constraint held; `:cW` = cycles with all W slots lost so |
//! | `RecoveryBubbles` | slots from a mispredicted branch's resolution until the resteer (the mispredict penalty) |
//! | `BrMispredRetired` | mispredicted branches |
//! | `MachineClears` | 0 (the model has no machine clears) |
//! | `MsSlotsRetired` | fused uops of instructions with more than 4 fused uops (Intel's microcode-sequencer threshold; the fused count, because busy cycles of unpipelined units inflate unfused counts) |
//! | `OpsExecuted` | uops started on ports (load, compute, store parts), `:c1/:c2/:c3` = cycles with ≥ 1/2/3 |
//! | `MemStalls.AnyLoad/L1miss/L2miss/L3miss` | cycles with no uop executed and a load in flight (issued, data not back) that missed nothing / L1 / L2 / L3, counted when a load that missed L1 is in flight, and with only L1 hits in flight when the oldest instruction waiting in the scheduler waits for a load's data (or none waits): L1 hits running ahead of a latency chain are in flight without stalling it |
//! | `MemStalls.Stores` | cycles with ≤ FEW uops executed while dispatch waited for a store-buffer entry, except those already counted as a load stall (Yasin §3.7: loads first), so Memory Bound stays ≤ 1 |
//! | `ExtMemOutstanding` | loads served by DRAM in flight each cycle (sum), `:c1` and `:c<T>` cycles with ≥ 1 / ≥ T |
//! | `DividerActive` | cycles some divide keeps its unit busy (issue .. issue + its busy count) |
//! | `FpScalarOpsRetired`, `FpVectorOpsRetired` | FP arithmetic instructions, scalar and packed |
//!
//! Backend slots are the rest: dispatch slots lost to a full ROB, scheduler,
//! load or store buffer, and the drain after the last dispatch.

use serde::Serialize;

mod counts;

pub(crate) use counts::{TopDownCounts, UopCycles};
pub use counts::{TopDownTally, TOPDOWN_TALLIES};
pub use bottlenose_report_model::views::SlotAccounting;

/// Counts of one run (slot amounts kept in cycles of slot time; × `width` = slots).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TopDownCounters {
    pub clocks: f64,
    pub width: f64,
    pub slots_retired: u64,
    pub wrong_path_cycles: f64,
    pub recovery_cycles: f64,
    pub fetch_cycles: f64,
    pub fetch_full_cycles: u64,
    pub backend_cycles: f64,
    pub mispredicts: u64,
    pub ms_slots: u64,
    pub ops_executed: u64,
    pub ops_c1: u64,
    pub ops_c2: u64,
    pub ops_c3: u64,
    pub mem_any: u64,
    pub mem_l1: u64,
    pub mem_l2: u64,
    pub mem_l3: u64,
    pub mem_stores: u64,
    pub ext_c1: u64,
    pub ext_ct: u64,
    pub ext_occupancy: u64,
    pub divider_active: u64,
    pub fp_scalar: u64,
    pub fp_vector: u64,
}

impl TopDownCounters {
    /// The simulated event counts, named as in the `yasin2014` table
    /// (`mem_bw_occupancy`: the T of `ExtMemOutstanding:cT`).
    pub fn events(&self, mem_bw_occupancy: u32) -> Vec<(String, f64)> {
        let w = self.width;
        let slots_retired = self.slots_retired as f64;
        let wrong = self.wrong_path_cycles * w;
        let miw = w.round().max(1.0) as u32;
        vec![
            ("Clocks".into(), self.clocks),
            ("TotalSlots".into(), w * self.clocks),
            ("SlotsIssued".into(), slots_retired + wrong),
            ("SlotsRetired".into(), slots_retired),
            ("FetchBubbles".into(), self.fetch_cycles * w),
            (format!("FetchBubbles:c{miw}"), self.fetch_full_cycles as f64),
            ("RecoveryBubbles".into(), self.recovery_cycles * w),
            ("BrMispredRetired".into(), self.mispredicts as f64),
            ("MachineClears".into(), 0.0),
            ("MsSlotsRetired".into(), self.ms_slots as f64),
            ("OpsExecuted".into(), self.ops_executed as f64),
            ("OpsExecuted:c1".into(), self.ops_c1 as f64),
            ("OpsExecuted:c2".into(), self.ops_c2 as f64),
            ("OpsExecuted:c3".into(), self.ops_c3 as f64),
            ("MemStalls.AnyLoad".into(), self.mem_any as f64),
            ("MemStalls.L1miss".into(), self.mem_l1 as f64),
            ("MemStalls.L2miss".into(), self.mem_l2 as f64),
            ("MemStalls.L3miss".into(), self.mem_l3 as f64),
            ("MemStalls.Stores".into(), self.mem_stores as f64),
            ("ExtMemOutstanding".into(), self.ext_occupancy as f64),
            ("ExtMemOutstanding:c1".into(), self.ext_c1 as f64),
            (format!("ExtMemOutstanding:c{mem_bw_occupancy}"), self.ext_ct as f64),
            ("DividerActive".into(), self.divider_active as f64),
            ("FpScalarOpsRetired".into(), self.fp_scalar as f64),
            ("FpVectorOpsRetired".into(), self.fp_vector as f64),
        ]
    }

    /// Every slot classified directly: retired, wrong path + recovery, frontend, backend.
    pub fn slots(&self) -> SlotAccounting {
        let w = self.width;
        let total = (w * self.clocks).max(1e-12);
        SlotAccounting {
            total_slots: w * self.clocks,
            retiring: self.slots_retired as f64 / total,
            bad_speculation: (self.wrong_path_cycles + self.recovery_cycles) * w / total,
            frontend_bound: self.fetch_cycles * w / total,
            backend_bound: self.backend_cycles * w / total,
        }
    }
}

#[cfg(test)]
mod tests;
