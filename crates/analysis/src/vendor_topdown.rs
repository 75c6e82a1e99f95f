//! The vendor's own Top-Down on simulated counters: for a machine whose PMU
//! table is Arm's telemetry Top-Down (`neoverse-v2`, `neoverse-n1`, see
//! `bottlenose_metrics::neoverse`), the model's slot and stall accounting is
//! named as the Arm PMUv3 events count it, and the same metric engine that
//! reads `perf stat` imports builds the same tree from it.
//!
//! | event | on the model |
//! | --- | --- |
//! | `CPU_CYCLES` | cycles of the run |
//! | `OP_RETIRED` | uops of the (correct-path) trace |
//! | `OP_SPEC` | `OP_RETIRED` + the wrong-path dispatch slots of mispredicted branches |
//! | `STALL_SLOT_FRONTEND` | dispatch slots lost while the frontend delivered nothing: fetch stalls (icache/ITLB miss, BTB-miss resteer) and the resteer after a mispredict |
//! | `STALL_SLOT_BACKEND` | dispatch slots lost to a full ROB, scheduler, load or store buffer |
//! | `STALL_SLOT` | the sum of the two |
//! | `STALL_FRONTEND`, `STALL_BACKEND` | the same in cycles (the model loses whole dispatch groups) |
//! | `STALL_FRONTEND_MEMBOUND` / `_CPUBOUND` | the icache/ITLB part of the frontend stall cycles (dispatch CPI stack `icache`) / the rest |
//! | `STALL_BACKEND_MEMBOUND` / `_CPUBOUND` | the backend stall cycles the dispatch CPI stack charges to `dcache_*` (a ROB head that missed L1, a full store buffer) / the rest |
//! | `STALL_BACKEND_MEM` | the part charged to loads that missed L2 (`dcache_l3`, `dcache_dram`) |
//! | `BR_MIS_PRED`, `BR_MIS_PRED_RETIRED` | mispredicted branches |
//! | `INST_RETIRED` | instructions of the trace |
//!
//! `#slots` is the machine's dispatch width (8 on both Neoverse machines, as
//! Arm's V2 specification says).

use crate::accounting::TopDownNode;
use bottlenose_views::{CpiStacks, TopDownCounters};
use bottlenose_metrics::{Counts, MetricEngine};
pub use bottlenose_report_model::VendorTopDown;

/// Whether `table` is one the simulated counters can be named for.
pub fn simulated_table(table: &str) -> bool {
    bottlenose_metrics::engine::BUILTIN_HW.contains(&table)
}

/// The Arm PMUv3 events of the table above, from the model's counters.
pub fn arm_events(td: &TopDownCounters, stacks: &CpiStacks) -> Vec<(&'static str, f64)> {
    let w = td.width;
    let fe_cycles = td.fetch_cycles + td.recovery_cycles;
    let be_cycles = td.backend_cycles;
    let fe_mem = stacks.component("dispatch", "icache").clamp(0.0, fe_cycles);
    let be_mem = stacks.component("dispatch", "dcache").clamp(0.0, be_cycles);
    let be_llc_miss = (stacks.component("dispatch", "dcache_l3") + stacks.component("dispatch", "dcache_dram")).clamp(0.0, be_mem);
    let retired = td.slots_retired as f64;
    let mispredicts = td.mispredicts as f64;
    vec![
        ("CPU_CYCLES", td.clocks),
        ("INST_RETIRED", stacks.instructions as f64),
        ("OP_RETIRED", retired),
        ("OP_SPEC", retired + td.wrong_path_cycles * w),
        ("STALL_SLOT_FRONTEND", fe_cycles * w),
        ("STALL_SLOT_BACKEND", be_cycles * w),
        ("STALL_SLOT", (fe_cycles + be_cycles) * w),
        ("STALL_FRONTEND", fe_cycles),
        ("STALL_BACKEND", be_cycles),
        ("STALL_FRONTEND_MEMBOUND", fe_mem),
        ("STALL_FRONTEND_CPUBOUND", fe_cycles - fe_mem),
        ("STALL_BACKEND_MEMBOUND", be_mem),
        ("STALL_BACKEND_CPUBOUND", be_cycles - be_mem),
        ("STALL_BACKEND_MEM", be_llc_miss),
        ("BR_MIS_PRED", mispredicts),
        ("BR_MIS_PRED_RETIRED", mispredicts),
    ]
}

/// The vendor tree for `table` on a run's counters (None for tables the
/// simulated counters are not named for).
pub fn vendor_topdown(table: &str, td: &TopDownCounters, stacks: &CpiStacks) -> Option<VendorTopDown> {
    if !simulated_table(table) {
        return None;
    }
    let engine = MetricEngine::for_uarch(table).ok()?;
    let events = arm_events(td, stacks);
    let mut counts = Counts::new();
    for (k, v) in &events {
        counts.set(k, *v);
    }
    counts.set_const("slots", td.width);
    let ev = engine.evaluate(&counts).ok()?;
    Some(VendorTopDown {
        table: table.to_string(),
        topdown: engine.tree(&ev).roots.iter().map(TopDownNode::from_node).collect(),
        events: events.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    })
}
