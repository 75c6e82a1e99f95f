//! Other recipes beside the full TMA tree, as built-in tables in the same
//! metric format:
//!
//! * `topdown5` / `topdown5-smt`: the 5-event level-1 recipe of Yasin's slides
//!   as used by likwid's TOPDOWN group and `perf stat --topdown` on
//!   Haswell-class cores: `CPU_CLK_UNHALTED.THREAD`, `UOPS_ISSUED.ANY`,
//!   `UOPS_RETIRED.RETIRE_SLOTS`, `IDQ_UOPS_NOT_DELIVERED.CORE`,
//!   `INT_MISC.RECOVERY_CYCLES` → Frontend Bound, Bad Speculation, Retiring,
//!   Backend Bound. The `-smt` variant counts slots per physical core with SMT
//!   on (`CPU_CLK_UNHALTED.THREAD_ANY / 2`, `INT_MISC.RECOVERY_CYCLES_ANY / 2`),
//!   which is what Intel's TMA level 1 does; the plain recipe uses per-thread
//!   clocks and so differs from TMA when SMT is on.
//! * `levinthal-core2`: Levinthal's cycle accounting for Core 2:
//!   cycles = Retired + Non_Retired + Stalls at the dispatch point
//!   (`RS_UOPS_DISPATCHED`, `UOPS_RETIRED.ANY/.FUSED`), and the stalls split
//!   by penalty × event count with an `Unaccounted` remainder (which may be
//!   negative: the sequential-penalty model over-counts). Penalties are
//!   constants (`#pen_*`) that the counts may override, e.g. `pen_l2_miss = 300`
//!   on servers.

use crate::table::{EventDef, Provenance, UarchTable, SCHEMA};
use crate::yasin::{metrics_from_rows, Row, AUX, C, S};

/// The plain 5-event recipe.
pub const TOPDOWN5: &str = "topdown5";
/// The 5-event recipe with SMT handling (core-wide slots).
pub const TOPDOWN5_SMT: &str = "topdown5-smt";
/// Levinthal's Core 2 cycle accounting.
pub const LEVINTHAL: &str = "levinthal-core2";

fn events(list: &[(&str, &str)]) -> Vec<EventDef> {
    list.iter().map(|(n, d)| EventDef { name: n.to_string(), desc: Some(d.to_string()), ..EventDef::default() }).collect()
}

/// The 5-event level-1 table (`smt`: core-wide slots when `#smt_on`).
pub fn topdown5(smt: bool) -> UarchTable {
    let (clocks, recovery) = if smt {
        (
            "CPU_CLK_UNHALTED.THREAD_ANY / 2 if #smt_on else CPU_CLK_UNHALTED.THREAD",
            "INT_MISC.RECOVERY_CYCLES_ANY / 2 if #smt_on else INT_MISC.RECOVERY_CYCLES",
        )
    } else {
        ("CPU_CLK_UNHALTED.THREAD", "INT_MISC.RECOVERY_CYCLES")
    };
    let rows: Vec<Row> = vec![
        ("clocks", "Clocks", 0, "", "", clocks.into(), "", AUX),
        ("total_slots", "TotalSlots", 0, "", "", "#issue_width * clocks".into(), "", AUX),
        ("slots_issued", "SlotsIssued", 0, "", "", "UOPS_ISSUED.ANY".into(), "", AUX),
        ("slots_retired", "SlotsRetired", 0, "", "", "UOPS_RETIRED.RETIRE_SLOTS".into(), "", AUX),
        ("fetch_bubbles", "FetchBubbles", 0, "", "", "IDQ_UOPS_NOT_DELIVERED.CORE".into(), "", AUX),
        ("recovery_bubbles", "RecoveryBubbles", 0, "", "", format!("#issue_width * ({recovery})"), "", AUX),
        ("tma_frontend_bound", "Frontend_Bound", 1, "", "FE", "fetch_bubbles / total_slots".into(), "> 0.15", S),
        ("tma_bad_speculation", "Bad_Speculation", 1, "", "BAD", "(slots_issued - slots_retired + recovery_bubbles) / total_slots".into(), "> 0.15", S),
        ("tma_retiring", "Retiring", 1, "", "RET", "slots_retired / total_slots".into(), "> 0.7", S),
        ("tma_backend_bound", "Backend_Bound", 1, "", "BE", "1 - (tma_frontend_bound + tma_bad_speculation + tma_retiring)".into(), "> 0.2", S),
        ("ipc", "IPC", 0, "", "", "INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD".into(), "", AUX),
    ];
    let mut ev = vec![
        ("CPU_CLK_UNHALTED.THREAD", "likwid FIXC1 CPU_CLK_UNHALTED_CORE: core cycles"),
        ("INST_RETIRED.ANY", "likwid FIXC0: instructions retired (IPC only)"),
        ("UOPS_ISSUED.ANY", "likwid PMC0: uops issued"),
        ("UOPS_RETIRED.RETIRE_SLOTS", "likwid PMC1: retirement slots used"),
        ("IDQ_UOPS_NOT_DELIVERED.CORE", "likwid PMC2: uops not delivered by the frontend"),
        ("INT_MISC.RECOVERY_CYCLES", "likwid PMC3: allocator stalled by recovery"),
    ];
    if smt {
        ev.push(("CPU_CLK_UNHALTED.THREAD_ANY", "core cycles, any thread"));
        ev.push(("INT_MISC.RECOVERY_CYCLES_ANY", "recovery cycles, any thread"));
    }
    UarchTable {
        schema: SCHEMA,
        uarch: if smt { TOPDOWN5_SMT } else { TOPDOWN5 }.into(),
        name: format!("5-event Top-Down level 1 (likwid TOPDOWN / perf --topdown){}", if smt { ", SMT-aware" } else { "" }),
        vendor: "intel".into(),
        provenance: Provenance {
            generator: "built-in (crates/metrics/src/methods.rs)".into(),
            notes: vec!["Yasin's slide 13 event set as in the likwid TOPDOWN group for Haswell".into()],
            ..Provenance::default()
        },
        constants: [("issue_width".to_string(), 4.0)].into_iter().collect(),
        events: events(&ev),
        metrics: metrics_from_rows(rows),
    }
}

/// Levinthal's Core 2 cycle accounting.
pub fn levinthal_core2() -> UarchTable {
    let comps: &[(&str, &str, &str)] = &[
        ("lev_l2_hit", "L2_Hit", "#pen_l2_hit * (MEM_LOAD_RETIRED.L1D_LINE_MISS - MEM_LOAD_RETIRED.L2_LINE_MISS)"),
        ("lev_l2_miss", "L2_Miss", "#pen_l2_miss * MEM_LOAD_RETIRED.L2_LINE_MISS"),
        (
            "lev_dtlb_miss",
            "DTLB_Miss",
            "4 * MEM_LOAD_RETIRED.DTLB_MISS + PAGE_WALKS.CYCLES if has_event(PAGE_WALKS.CYCLES) else #pen_dtlb_miss * MEM_LOAD_RETIRED.DTLB_MISS",
        ),
        ("lev_store_unknown_addr", "Load_Block_STA", "#pen_load_block_sta * LOAD_BLOCK.STA"),
        ("lev_store_forward", "Load_Block_Overlap_Store", "#pen_load_block_overlap_store * LOAD_BLOCK.OVERLAP_STORE"),
        ("lev_split_load", "Load_Block_Until_Retire", "#pen_load_block_until_retire * LOAD_BLOCK.UNTIL_RETIRE"),
        ("lev_lcp", "Length_Changing_Prefix", "#pen_ild_stall * ILD_STALL"),
        ("lev_br_miss_clear", "Br_Miss_Clear", "RESOURCE_STALLS.BR_MISS_CLEAR"),
        ("lev_divider", "Divider", "IDLE_DURING_DIV"),
    ];
    let mut rows: Vec<Row> = vec![
        ("cycles", "Cycles", 0, "", "", "CPU_CLK_UNHALTED.CORE".into(), "", AUX),
        (
            "stall_cycles",
            "Stalls",
            0,
            "",
            "",
            "RS_UOPS_DISPATCHED.CYCLES_NONE if has_event(RS_UOPS_DISPATCHED.CYCLES_NONE) else RS_UOPS_DISPATCHED:c1:i1".into(),
            "",
            AUX,
        ),
        ("retired_uops_executed", "RetiredUopsExecuted", 0, "", "", "UOPS_RETIRED.ANY + UOPS_RETIRED.FUSED".into(), "", AUX),
        ("uop_dispatch_rate", "UopDispatchRate", 0, "", "", "RS_UOPS_DISPATCHED / RS_UOPS_DISPATCHED:c1".into(), "", AUX),
        ("retired_cycles", "Retired", 0, "", "", "retired_uops_executed / uop_dispatch_rate".into(), "", AUX),
        ("non_retired_cycles", "Non_Retired", 0, "", "", "(RS_UOPS_DISPATCHED - retired_uops_executed) / uop_dispatch_rate".into(), "", AUX),
        ("lev_retired", "Retired", 1, "", "RET", "retired_cycles / cycles".into(), "", C),
        ("lev_non_retired", "Non_Retired", 1, "", "BAD", "non_retired_cycles / cycles".into(), "> 0.1", C),
        ("lev_stalls", "Stalls", 1, "", "STALL", "stall_cycles / cycles".into(), "> 0.2", C),
    ];
    for (name, label, expr) in comps {
        rows.push((name, label, 0, "", "", expr.to_string(), "", AUX));
    }
    let sum = comps.iter().map(|c| c.0).collect::<Vec<_>>().join(" + ");
    rows.push(("counted_stall_cycles", "Counted_Stall_Cycles", 0, "", "", sum, "", AUX));
    rows.push(("unaccounted_stall_cycles", "Unaccounted", 0, "", "", "stall_cycles - counted_stall_cycles".into(), "", AUX));
    let fractions: Vec<(String, String)> = comps
        .iter()
        .map(|c| (c.0.to_string(), c.1.to_string()))
        .chain([("unaccounted_stall_cycles".to_string(), "Unaccounted".to_string())])
        .map(|(n, l)| (n.replace("lev_", "").replace("_stall_cycles", ""), l))
        .collect();
    let comp_names: Vec<String> = comps.iter().map(|c| c.0.to_string()).chain(["unaccounted_stall_cycles".to_string()]).collect();
    let frac_rows: Vec<(String, String, String)> = fractions
        .iter()
        .zip(&comp_names)
        .map(|((n, l), src)| (format!("lev_stall_{n}"), l.clone(), format!("{src} / cycles")))
        .collect();
    for (n, l, e) in &frac_rows {
        rows.push((n, l, 2, "lev_stalls", "STALL", e.clone(), "> 0.05", C));
    }
    rows.push(("bus_utilization", "Bus_Utilization", 0, "", "", "BUS_DRDY_CLOCKS.ALL_AGENTS / CPU_CLK_UNHALTED.BUS".into(), "", AUX));
    rows.push(("cpi", "CPI", 0, "", "", "CPU_CLK_UNHALTED.CORE / INST_RETIRED.ANY".into(), "", AUX));
    let penalties = [
        ("pen_l2_hit", 12.0),
        ("pen_l2_miss", 165.0),
        ("pen_dtlb_miss", 10.0),
        ("pen_load_block_sta", 5.0),
        ("pen_load_block_overlap_store", 6.0),
        ("pen_load_block_until_retire", 20.0),
        ("pen_ild_stall", 6.0),
    ];
    UarchTable {
        schema: SCHEMA,
        uarch: LEVINTHAL.into(),
        name: "Levinthal cycle accounting for Intel Core 2".into(),
        vendor: "intel".into(),
        provenance: Provenance {
            generator: "built-in (crates/metrics/src/methods.rs)".into(),
            notes: vec![
                "D. Levinthal, Cycle Accounting Analysis on Intel Core 2 Processors: master equation, penalties table".into(),
                "penalties are the paper's approximate values (L2 miss 165 desktop / 300 server)".into(),
                "event names use the Core 2 LOAD_BLOCK.* spelling (the text also writes LOAD_BLOCKS.*)".into(),
                "thresholds (stalls > 20 %, non-retired > 10 %, components > 5 % of cycles) are ours".into(),
            ],
            ..Provenance::default()
        },
        constants: penalties.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        events: events(&[
            ("CPU_CLK_UNHALTED.CORE", "core cycles"),
            ("RS_UOPS_DISPATCHED", "uops dispatched from the RS (:c1 cycles dispatching, :c1:i1 cycles not)"),
            ("RS_UOPS_DISPATCHED.CYCLES_NONE", "cycles with no uops dispatched (= RS_UOPS_DISPATCHED:c1:i1)"),
            ("UOPS_RETIRED.ANY", "uops retired"),
            ("UOPS_RETIRED.FUSED", "fused uops retired"),
            ("MEM_LOAD_RETIRED.L1D_LINE_MISS", "retired loads missing L1D (line)"),
            ("MEM_LOAD_RETIRED.L2_LINE_MISS", "retired loads missing L2 (line)"),
            ("MEM_LOAD_RETIRED.DTLB_MISS", "retired loads missing the DTLB"),
            ("PAGE_WALKS.CYCLES", "page walk duration"),
            ("LOAD_BLOCK.STA", "loads blocked by a store to an unknown address"),
            ("LOAD_BLOCK.OVERLAP_STORE", "loads blocked by an overlapping store (forwarding, 4K aliasing)"),
            ("LOAD_BLOCK.UNTIL_RETIRE", "loads blocked until retirement (split loads)"),
            ("ILD_STALL", "length-changing-prefix stalls"),
            ("RESOURCE_STALLS.BR_MISS_CLEAR", "cycles purging the RS/ROB after a misprediction"),
            ("IDLE_DURING_DIV", "stalled cycles while the divider is busy"),
            ("BUS_DRDY_CLOCKS.ALL_AGENTS", "bus cycles transferring data"),
            ("CPU_CLK_UNHALTED.BUS", "bus cycles"),
            ("INST_RETIRED.ANY", "instructions retired"),
        ]),
        metrics: metrics_from_rows(rows),
    }
}
