//! Yasin's own model as a built-in "uarch", `yasin2014`: the generic Top-Down
//! counters architecture of §4 (Table 1 events) with the Table 2 formulas for
//! levels 1–4, in the same metric format so the same engine evaluates it. This
//! is what the simulated core feeds.
//!
//! Events (Table 1): `TotalSlots` (optional: `#issue_width × Clocks` otherwise),
//! `SlotsIssued`, `SlotsRetired`, `FetchBubbles` (and `FetchBubbles:cW`, cycles
//! with ≥ W bubbles), `RecoveryBubbles`, `BrMispredRetired`, `MachineClears`,
//! `MsSlotsRetired`, `OpsExecuted:c1/:c2/:c3` (cycles with ≥ 1/2/3 ops
//! executed), `MemStalls.AnyLoad/.L1miss/.L2miss/.L3miss/.Stores`,
//! `ExtMemOutstanding:c1` and `:cT` (cycles with ≥ 1 / ≥ T outstanding memory
//! requests) and `Clocks`. Extensions beyond Table 1 for the nodes of Figure 2
//! it gives no formula for: `DividerActive` (cycles the divider is busy),
//! `FpScalarOpsRetired`, `FpVectorOpsRetired`.
//!
//! Choices (also in the table's provenance notes):
//! * MEM Bandwidth / MEM Latency use the Appendix-1 (Table 7) form, both per
//!   `Clocks`: `ExtMemOutstanding:cT / Clocks` and
//!   `(ExtMemOutstanding:c1 − ExtMemOutstanding:cT) / Clocks`. Table 2 divides
//!   MEM Bandwidth by `ExtMemOutstanding:c1` but subtracts it from a per-clock
//!   fraction for MEM Latency, which mixes units.
//! * `#ExecutionStalls` = cycles with ≤ FEW ops executed = `(Clocks − OpsExecuted:c(FEW+1)) / Clocks`
//!   (FEW = 2: "cycles with 0, 1 or 2 uops executed").
//! * Memory Bound / Core Bound are fractions of cycles, as in Table 2 (not
//!   rescaled to Backend Bound): their unit says so (`Stalls`, `Clocks`; the
//!   level-1 nodes are `Slots`), and the tree's normalized value fits them
//!   inside Backend Bound (see [`crate::tree`]).
//! * Thresholds are the Intel TMA spreadsheet's for the analogous nodes.

use crate::table::{EventDef, MetricDef, Provenance, UarchTable, SCHEMA};
use crate::unit::Unit;

/// The id of the built-in table.
pub const UARCH: &str = "yasin2014";

/// Parameters of the generic core.
#[derive(Clone, Debug, PartialEq)]
pub struct YasinParams {
    /// Machine issue width (MIW): slots per cycle.
    pub issue_width: u32,
    /// Cycles with at most this many ops executed are execution stalls.
    pub few_ops: u32,
    /// Outstanding memory requests from which a cycle counts as bandwidth-bound
    /// (~70 % of what the memory controller serves at once; 28 on Ivy Bridge).
    pub mem_bw_occupancy: u32,
}

impl Default for YasinParams {
    fn default() -> Self {
        YasinParams { issue_width: 4, few_ops: 2, mem_bw_occupancy: 28 }
    }
}

const EVENTS: &[(&str, &str)] = &[
    ("Clocks", "Core clock cycles"),
    ("TotalSlots", "Total number of issue-pipeline slots (optional: issue_width * Clocks)"),
    ("SlotsIssued", "Utilized issue-pipeline slots to issue operations"),
    ("SlotsRetired", "Utilized issue-pipeline slots to retire (complete) operations"),
    ("FetchBubbles", "Unutilized issue-pipeline slots while there is no backend-stall (:cN = cycles with >= N)"),
    ("RecoveryBubbles", "Unutilized issue-pipeline slots due to recovery from earlier miss-speculation"),
    ("BrMispredRetired", "Retired miss-predicted branch instructions"),
    ("MachineClears", "Machine clear events (pipeline is flushed)"),
    ("MsSlotsRetired", "Retired pipeline slots supplied by the micro-sequencer fetch-unit"),
    ("OpsExecuted", "Operations executed; :cN = cycles with >= N ops executed"),
    ("MemStalls.AnyLoad", "Cycles with no uops executed and at least 1 in-flight load that is not completed yet"),
    ("MemStalls.L1miss", "Cycles with no uops executed and at least 1 in-flight load that has missed the L1-cache"),
    ("MemStalls.L2miss", "Cycles with no uops executed and at least 1 in-flight load that has missed the L2-cache"),
    ("MemStalls.L3miss", "Cycles with no uops executed and at least 1 in-flight load that has missed the L3-cache"),
    ("MemStalls.Stores", "Cycles with few uops executed and no more stores can be issued"),
    ("ExtMemOutstanding", "Outstanding requests to the memory controller every cycle; :cN = cycles with >= N"),
    ("DividerActive", "Extension: cycles the divider unit is busy"),
    ("FpScalarOpsRetired", "Extension: retired scalar floating-point ops"),
    ("FpVectorOpsRetired", "Extension: retired vector floating-point ops"),
];

/// One row of a built-in table: (name, label, level (0 = auxiliary), parent, area, formula, threshold, unit).
pub(crate) type Row<'a> = (&'a str, &'a str, u32, &'a str, &'a str, String, &'a str, Option<Unit>);

/// Row units: slots, stall cycles, cycles; none for auxiliary rows.
pub(crate) const S: Option<Unit> = Some(Unit::Slots);
pub(crate) const ST: Option<Unit> = Some(Unit::Stalls);
pub(crate) const C: Option<Unit> = Some(Unit::Clocks);
pub(crate) const AUX: Option<Unit> = None;

/// Turns rows into metric definitions.
pub(crate) fn metrics_from_rows(rows: Vec<Row<'_>>) -> Vec<MetricDef> {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    rows.into_iter()
        .map(|(name, label, level, parent, area, expr, thr, domain)| MetricDef {
            name: name.into(),
            label: opt(label),
            expr,
            unit: (level > 0).then(|| "100%".to_string()),
            domain: domain.filter(|_| level > 0),
            tma: level > 0,
            level: (level > 0).then_some(level),
            parent: opt(parent),
            area: opt(area),
            threshold: (!thr.is_empty()).then(|| format!("{name} {thr}")),
            ..MetricDef::default()
        })
        .collect()
}

/// The `yasin2014` table for the given parameters.
pub fn table(p: &YasinParams) -> UarchTable {
    let w = p.issue_width;
    let few1 = p.few_ops + 1;
    let bw = p.mem_bw_occupancy;
    let rows: Vec<Row> = vec![
        ("total_slots", "TotalSlots", 0, "", "", "TotalSlots if has_event(TotalSlots) else #issue_width * Clocks".into(), "", AUX),
        ("tma_frontend_bound", "Frontend_Bound", 1, "", "FE", "FetchBubbles / total_slots".into(), "> 0.15", S),
        ("tma_fetch_latency", "Fetch_Latency", 2, "tma_frontend_bound", "FE", format!("FetchBubbles:c{w} / Clocks"), "> 0.1", C),
        ("tma_fetch_bandwidth", "Fetch_Bandwidth", 2, "tma_frontend_bound", "FE", "tma_frontend_bound - tma_fetch_latency".into(), "> 0.2", S),
        ("tma_bad_speculation", "Bad_Speculation", 1, "", "BAD", "(SlotsIssued - SlotsRetired + RecoveryBubbles) / total_slots".into(), "> 0.15", S),
        ("br_mispred_fraction", "BrMispredFraction", 0, "", "", "BrMispredRetired / (BrMispredRetired + MachineClears)".into(), "", AUX),
        ("tma_branch_mispredicts", "Branch_Mispredicts", 2, "tma_bad_speculation", "BAD", "br_mispred_fraction * tma_bad_speculation".into(), "> 0.1", S),
        ("tma_machine_clears", "Machine_Clears", 2, "tma_bad_speculation", "BAD", "tma_bad_speculation - tma_branch_mispredicts".into(), "> 0.1", S),
        ("tma_retiring", "Retiring", 1, "", "RET", "SlotsRetired / total_slots".into(), "> 0.7 | tma_microcode_sequencer > 0.05", S),
        ("tma_base", "Base", 2, "tma_retiring", "RET", "tma_retiring - tma_microcode_sequencer".into(), "> 0.6", S),
        ("tma_fp_arith", "FP_Arith", 3, "tma_base", "RET", "tma_fp_scalar + tma_fp_vector".into(), "> 0.2", S),
        ("tma_fp_scalar", "FP_Scalar", 4, "tma_fp_arith", "RET", "tma_retiring * FpScalarOpsRetired / SlotsRetired".into(), "> 0.1", S),
        ("tma_fp_vector", "FP_Vector", 4, "tma_fp_arith", "RET", "tma_retiring * FpVectorOpsRetired / SlotsRetired".into(), "> 0.1", S),
        ("tma_other_base", "Other", 3, "tma_base", "RET", "tma_base - tma_fp_arith".into(), "> 0.3", S),
        ("tma_microcode_sequencer", "MicroSequencer", 2, "tma_retiring", "RET", "MsSlotsRetired / total_slots".into(), "> 0.05", S),
        ("tma_backend_bound", "Backend_Bound", 1, "", "BE", "1 - (tma_frontend_bound + tma_bad_speculation + tma_retiring)".into(), "> 0.2", S),
        ("execution_stalls", "ExecutionStalls", 0, "", "", format!("(Clocks - OpsExecuted:c{few1}) / Clocks"), "", AUX),
        ("tma_memory_bound", "Memory_Bound", 2, "tma_backend_bound", "BE/Mem", "(MemStalls.AnyLoad + MemStalls.Stores) / Clocks".into(), "> 0.2", ST),
        ("tma_l1_bound", "L1_Bound", 3, "tma_memory_bound", "BE/Mem", "(MemStalls.AnyLoad - MemStalls.L1miss) / Clocks".into(), "> 0.1", ST),
        ("tma_l2_bound", "L2_Bound", 3, "tma_memory_bound", "BE/Mem", "(MemStalls.L1miss - MemStalls.L2miss) / Clocks".into(), "> 0.05", ST),
        ("tma_l3_bound", "L3_Bound", 3, "tma_memory_bound", "BE/Mem", "(MemStalls.L2miss - MemStalls.L3miss) / Clocks".into(), "> 0.05", ST),
        ("tma_ext_memory_bound", "Ext_Memory_Bound", 3, "tma_memory_bound", "BE/Mem", "MemStalls.L3miss / Clocks".into(), "> 0.1", ST),
        ("tma_mem_bandwidth", "MEM_Bandwidth", 4, "tma_ext_memory_bound", "BE/Mem", format!("ExtMemOutstanding:c{bw} / Clocks"), "> 0.2", C),
        ("tma_mem_latency", "MEM_Latency", 4, "tma_ext_memory_bound", "BE/Mem", format!("(ExtMemOutstanding:c1 - ExtMemOutstanding:c{bw}) / Clocks"), "> 0.1", C),
        ("tma_stores_bound", "Stores_Bound", 3, "tma_memory_bound", "BE/Mem", "MemStalls.Stores / Clocks".into(), "> 0.2", ST),
        ("tma_core_bound", "Core_Bound", 2, "tma_backend_bound", "BE/Core", "execution_stalls - tma_memory_bound".into(), "> 0.1", ST),
        ("tma_divider", "Divider", 3, "tma_core_bound", "BE/Core", "DividerActive / Clocks".into(), "> 0.2", C),
        ("tma_ports_utilization", "Ports_Utilization", 3, "tma_core_bound", "BE/Core", "tma_core_bound - tma_divider".into(), "> 0.15", C),
        ("tma_ports_utilized_0", "Ports_Utilized_0", 4, "tma_ports_utilization", "BE/Core", "(Clocks - OpsExecuted:c1) / Clocks".into(), "> 0.2", C),
        ("tma_ports_utilized_few", "Ports_Utilized_1_to_FEW", 4, "tma_ports_utilization", "BE/Core", format!("(OpsExecuted:c1 - OpsExecuted:c{few1}) / Clocks"), "> 0.2", C),
        ("tma_ports_utilized_many", "Ports_Utilized_More", 4, "tma_ports_utilization", "BE/Core", format!("OpsExecuted:c{few1} / Clocks"), "> 0.4", C),
    ];
    let mut metrics = metrics_from_rows(rows);
    for m in &mut metrics {
        if m.name == "tma_ports_utilized_few" {
            m.label = Some(format!("Ports_Utilized_1_to_{}", p.few_ops));
        }
    }
    UarchTable {
        schema: SCHEMA,
        uarch: UARCH.into(),
        name: "Yasin 2014 generic Top-Down counters architecture".into(),
        vendor: "model".into(),
        provenance: Provenance {
            generator: "built-in (crates/metrics/src/yasin.rs)".into(),
            sources: vec![],
            tma_version: None,
            notes: vec![
                "A. Yasin, A Top-Down Method for Performance Analysis and Counters Architecture (ISPASS 2014), Table 1 events and Table 2 formulas".into(),
                "MEM Bandwidth/Latency use the Table 7 (Appendix 1) per-Clocks form".into(),
                "DividerActive, FpScalarOpsRetired, FpVectorOpsRetired are extensions beyond Table 1".into(),
                "thresholds borrowed from the Intel TMA spreadsheet's analogous nodes".into(),
            ],
        },
        constants: [("issue_width".to_string(), w as f64)].into_iter().collect(),
        events: EVENTS
            .iter()
            .map(|(n, d)| EventDef { name: n.to_string(), pmu: Some("model".into()), desc: Some(d.to_string()), ..EventDef::default() })
            .collect(),
        metrics,
    }
}
