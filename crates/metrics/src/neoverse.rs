//! Arm's Top-Down for Neoverse cores, as built-in tables `neoverse-n1` and
//! `neoverse-v2`: the metrics of Arm's Neoverse telemetry specifications
//! (facts and formulas; the specifications are Apache-2.0 JSON published by
//! Arm in `ARM-software/telemetry-solution`, `data/pmu/cpu/neoverse/`).
//!
//! * **Neoverse V2** (spec with `num_slots` 8): level 1 in slots, where Arm
//!   moves the slots a mispredict costs out of Frontend and Backend Bound
//!   into Bad Speculation (1 and 3 slot-cycles per `BR_MIS_PRED`):
//!   `frontend_bound = STALL_SLOT_FRONTEND / (#slots × CPU_CYCLES) − BR_MIS_PRED / CPU_CYCLES`,
//!   `backend_bound = STALL_SLOT_BACKEND / (#slots × CPU_CYCLES) − 3 × BR_MIS_PRED / CPU_CYCLES`,
//!   `bad_speculation = (1 − OP_RETIRED / OP_SPEC) × (1 − STALL_SLOT / (#slots × CPU_CYCLES)) + 4 × BR_MIS_PRED / CPU_CYCLES`,
//!   `retiring = OP_RETIRED / OP_SPEC × (1 − STALL_SLOT / (#slots × CPU_CYCLES))`.
//!   Level 2 is Arm's `Topdown_Frontend` / `Topdown_Backend` split (core
//!   bound vs memory bound, in % of the parent's stall cycles), which Arm
//!   first publishes in the Neoverse V3/N3 specifications: the V2 PMU has no
//!   `STALL_{FRONTEND,BACKEND}_{CPU,MEM}BOUND` events, so counts imported
//!   from V2 hardware fill level 1 only, while the simulated core counts them.
//! * **Neoverse N1** (PMUv3 without the slot events): Arm's N1 methodology
//!   starts from cycle accounting, `frontend_stalled_cycles = STALL_FRONTEND
//!   / CPU_CYCLES` and `backend_stalled_cycles = STALL_BACKEND / CPU_CYCLES`;
//!   those are the level-1 nodes, and there is no published level 2.
//!
//! Both tables carry the stage-2 ratios the specifications list beside the
//! tree (IPC, MPKIs, miss ratios) as auxiliary metrics. Arm gives no
//! thresholds; the nodes use the Intel TMA spreadsheet's for the analogous
//! nodes (as `yasin2014` does), so that the tree flags a bottleneck.

use crate::table::{EventDef, Provenance, SourceFile, UarchTable, SCHEMA};
use crate::yasin::{metrics_from_rows, Row, AUX, C, S, ST};

/// The Neoverse N1 table id (also the machine name).
pub const NEOVERSE_N1: &str = "neoverse-n1";
/// The Neoverse V2 table id (also the machine name).
pub const NEOVERSE_V2: &str = "neoverse-v2";

/// PMUv3 events: (name, event number, description), numbers from Arm's specifications.
const COMMON_EVENTS: &[(&str, u32, &str)] = &[
    ("L1I_CACHE_REFILL", 0x01, "Level 1 instruction cache refill"),
    ("L1D_CACHE_REFILL", 0x03, "Level 1 data cache refill"),
    ("L1D_CACHE", 0x04, "Level 1 data cache access"),
    ("INST_RETIRED", 0x08, "Instruction architecturally executed"),
    ("BR_MIS_PRED", 0x10, "Branch speculatively executed, mispredicted or not predicted"),
    ("CPU_CYCLES", 0x11, "Cycle"),
    ("L1I_CACHE", 0x14, "Level 1 instruction cache access"),
    ("L2D_CACHE", 0x16, "Level 2 data cache access"),
    ("L2D_CACHE_REFILL", 0x17, "Level 2 data cache refill"),
    ("INST_SPEC", 0x1b, "Operation speculatively executed"),
    ("BR_RETIRED", 0x21, "Branch architecturally executed"),
    ("BR_MIS_PRED_RETIRED", 0x22, "Branch architecturally executed, mispredicted"),
    ("STALL_FRONTEND", 0x23, "No operation sent for execution due to the frontend (cycles)"),
    ("STALL_BACKEND", 0x24, "No operation sent for execution due to the backend (cycles)"),
];

/// Events of PMUv3.4+ cores (V1, V2, N2 ...): micro-operations and stall slots.
const SLOT_EVENTS: &[(&str, u32, &str)] = &[
    ("OP_RETIRED", 0x3a, "Micro-operation architecturally executed"),
    ("OP_SPEC", 0x3b, "Micro-operation speculatively executed"),
    ("STALL", 0x3c, "No operation sent for execution (cycles)"),
    ("STALL_SLOT_BACKEND", 0x3d, "No operation sent for execution on a slot due to the backend"),
    ("STALL_SLOT_FRONTEND", 0x3e, "No operation sent for execution on a slot due to the frontend"),
    ("STALL_SLOT", 0x3f, "No operation sent for execution on a slot"),
    ("STALL_BACKEND_MEM", 0x4005, "Backend stall cycles with a demand data miss in the last level core cache"),
];

/// The level-2 split events (Neoverse V3/N3 numbering; absent on V2 hardware).
const SPLIT_EVENTS: &[(&str, u32, &str)] = &[
    ("STALL_FRONTEND_MEMBOUND", 0x8158, "Frontend stall cycles, memory bound (V3/N3 event)"),
    ("STALL_FRONTEND_CPUBOUND", 0x8160, "Frontend stall cycles, processor bound (V3/N3 event)"),
    ("STALL_BACKEND_MEMBOUND", 0x8164, "Backend stall cycles, memory bound (V3/N3 event)"),
    ("STALL_BACKEND_CPUBOUND", 0x816a, "Backend stall cycles, processor bound (V3/N3 event)"),
];

fn events(lists: &[&[(&str, u32, &str)]]) -> Vec<EventDef> {
    lists
        .iter()
        .flat_map(|l| l.iter())
        .map(|(name, code, desc)| EventDef { name: name.to_string(), code: Some(format!("{code:#x}")), desc: Some(desc.to_string()), ..EventDef::default() })
        .collect()
}

/// Stage-2 ratios both specifications list (auxiliary, not tree nodes).
fn stage2_rows() -> Vec<Row<'static>> {
    vec![
        ("ipc", "IPC", 0, "", "", "INST_RETIRED / CPU_CYCLES".into(), "", AUX),
        ("frontend_stalled_cycles", "Frontend_Stalled_Cycles", 0, "", "", "STALL_FRONTEND / CPU_CYCLES".into(), "", AUX),
        ("backend_stalled_cycles", "Backend_Stalled_Cycles", 0, "", "", "STALL_BACKEND / CPU_CYCLES".into(), "", AUX),
        ("branch_mpki", "Branch_MPKI", 0, "", "", "BR_MIS_PRED_RETIRED / INST_RETIRED * 1000".into(), "", AUX),
        ("branch_misprediction_ratio", "Branch_Misprediction_Ratio", 0, "", "", "BR_MIS_PRED_RETIRED / BR_RETIRED".into(), "", AUX),
        ("l1i_cache_mpki", "L1I_Cache_MPKI", 0, "", "", "L1I_CACHE_REFILL / INST_RETIRED * 1000".into(), "", AUX),
        ("l1d_cache_mpki", "L1D_Cache_MPKI", 0, "", "", "L1D_CACHE_REFILL / INST_RETIRED * 1000".into(), "", AUX),
        ("l2_cache_mpki", "L2_Cache_MPKI", 0, "", "", "L2D_CACHE_REFILL / INST_RETIRED * 1000".into(), "", AUX),
        ("l1d_cache_miss_ratio", "L1D_Cache_Miss_Ratio", 0, "", "", "L1D_CACHE_REFILL / L1D_CACHE".into(), "", AUX),
    ]
}

fn provenance(spec: &str, notes: Vec<String>) -> Provenance {
    Provenance {
        generator: "built-in (crates/metrics/src/neoverse.rs)".into(),
        sources: vec![SourceFile {
            path: format!("ARM-software/telemetry-solution data/pmu/cpu/neoverse/{spec}.json"),
            version: Some("Telemetry Specification (PMU Events, Metrics and Methodology), quality Release".into()),
            date: Some("2025-08-08".into()),
            license: Some("Apache-2.0".into()),
        }],
        tma_version: None,
        notes,
    }
}

/// Arm's Neoverse V2 Top-Down (`#slots` = 8, the V2's `num_slots`; the
/// simulated core passes its own dispatch width).
pub fn neoverse_v2() -> UarchTable {
    let slots = "(#slots * CPU_CYCLES)";
    let rows: Vec<Row> = [
        vec![
            ("frontend_bound", "Frontend_Bound", 1, "", "FE", format!("STALL_SLOT_FRONTEND / {slots} - BR_MIS_PRED / CPU_CYCLES"), "> 0.15", S),
            ("frontend_core_bound", "Frontend_Core_Bound", 2, "frontend_bound", "FE", "STALL_FRONTEND_CPUBOUND / STALL_FRONTEND".into(), "> 0.5", ST),
            ("frontend_mem_bound", "Frontend_Mem_Bound", 2, "frontend_bound", "FE", "STALL_FRONTEND_MEMBOUND / STALL_FRONTEND".into(), "> 0.5", ST),
            (
                "bad_speculation",
                "Bad_Speculation",
                1,
                "",
                "BAD",
                format!("(1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / {slots}) + 4 * BR_MIS_PRED / CPU_CYCLES"),
                "> 0.15",
                S,
            ),
            ("retiring", "Retiring", 1, "", "RET", format!("OP_RETIRED / OP_SPEC * (1 - STALL_SLOT / {slots})"), "> 0.7", S),
            ("backend_bound", "Backend_Bound", 1, "", "BE", format!("STALL_SLOT_BACKEND / {slots} - 3 * BR_MIS_PRED / CPU_CYCLES"), "> 0.2", S),
            ("backend_core_bound", "Backend_Core_Bound", 2, "backend_bound", "BE/Core", "STALL_BACKEND_CPUBOUND / STALL_BACKEND".into(), "> 0.5", ST),
            ("backend_mem_bound", "Backend_Mem_Bound", 2, "backend_bound", "BE/Mem", "STALL_BACKEND_MEMBOUND / STALL_BACKEND".into(), "> 0.5", ST),
        ],
        stage2_rows(),
    ]
    .concat();
    UarchTable {
        schema: SCHEMA,
        uarch: NEOVERSE_V2.into(),
        name: "Arm Neoverse V2 (Arm telemetry Top-Down)".into(),
        vendor: "arm".into(),
        provenance: provenance(
            "neoverse-v2",
            vec![
                "level 1: the V2 specification's Topdown_L1 formulas, #slots = num_slots = 8".into(),
                "level 2: Topdown_Frontend/Topdown_Backend core/memory split of the Neoverse V3 specification (neoverse-v3.json); V2 hardware lacks its STALL_*_{CPU,MEM}BOUND events".into(),
                "event numbers of the split events are the V3's".into(),
                "thresholds borrowed from the Intel TMA spreadsheet's analogous nodes; level-2 nodes flag the larger half".into(),
            ],
        ),
        constants: [("slots".to_string(), 8.0)].into_iter().collect(),
        events: events(&[COMMON_EVENTS, SLOT_EVENTS, SPLIT_EVENTS]),
        metrics: metrics_from_rows(rows),
    }
}

/// Arm's Neoverse N1 Top-Down: cycle accounting (the N1 PMU has no slot events).
pub fn neoverse_n1() -> UarchTable {
    let rows: Vec<Row> = [
        vec![
            ("frontend_stalled_cycles", "Frontend_Stalled_Cycles", 1, "", "FE", "STALL_FRONTEND / CPU_CYCLES".into(), "> 0.15", C),
            ("backend_stalled_cycles", "Backend_Stalled_Cycles", 1, "", "BE", "STALL_BACKEND / CPU_CYCLES".into(), "> 0.2", C),
        ],
        stage2_rows().into_iter().filter(|r| !r.0.ends_with("_stalled_cycles")).collect(),
    ]
    .concat();
    UarchTable {
        schema: SCHEMA,
        uarch: NEOVERSE_N1.into(),
        name: "Arm Neoverse N1 (Arm telemetry cycle accounting)".into(),
        vendor: "arm".into(),
        provenance: provenance(
            "neoverse-n1",
            vec![
                "level 1: the N1 specification's stage-1 Cycle_Accounting metrics (frontend_stalled_cycles, backend_stalled_cycles); no level 2 is published".into(),
                "thresholds borrowed from the Intel TMA spreadsheet's Frontend/Backend Bound".into(),
            ],
        ),
        constants: Default::default(),
        events: events(&[COMMON_EVENTS]),
        metrics: metrics_from_rows(rows),
    }
}
