//! The report of a dynamic run (`bottlenose run`, built by
//! `bottlenose_analysis::dynamic`): the region of interest, the run's
//! totals, sensitivity and views, hotspots, loops, and the processes traced.

use crate::accounting::AccountingReport;
use crate::block::UnsupportedSummary;
use crate::functional::FunctionalStats;
use crate::sampling::SamplingSummary;
use crate::sensitivity::{Bottleneck, SensitivityPoint};
use crate::verdict::Verdict;
use crate::views::StallCauses;
use serde::Serialize;

/// A region of interest. Addresses are the ones objdump shows in the file
/// the region is in (the main executable, or the library `dso` names): the
/// run moves them to where the guest mapped that file (see `bottlenose_analysis::dynamic::RoiPlacement`).
/// In JSON they are hex strings (digits only), as every address of the reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Roi {
    Whole,
    /// Instructions whose address is in [start, end).
    Range {
        #[serde(serialize_with = "hex")]
        start: u64,
        #[serde(serialize_with = "hex")]
        end: u64,
    },
    /// From entering the function at `start` until it returns; [start, end) is its code.
    Function {
        name: String,
        /// The file (`libc.so.6`) when it is not the main executable.
        #[serde(skip_serializing_if = "Option::is_none")]
        dso: Option<String>,
        #[serde(serialize_with = "hex")]
        start: u64,
        #[serde(serialize_with = "hex")]
        end: u64,
    },
    /// Between `xchg rbx, rbx` and `xchg rcx, rcx` markers.
    Markers,
}

impl Roi {
    pub fn describe(&self) -> String {
        match self {
            Roi::Whole => "whole program".into(),
            Roi::Range { start, end } => format!("addresses 0x{start:x}..0x{end:x}"),
            Roi::Function { name, dso: None, start, .. } => format!("function {name} (0x{start:x}) and its callees"),
            Roi::Function { name, dso: Some(d), start, .. } => format!("function {d}!{name} (0x{start:x} in {d}) and its callees"),
            Roi::Markers => "between xchg rbx,rbx and xchg rcx,rcx markers".into(),
        }
    }
}

fn hex<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:x}"))
}

/// How a run's sensitivity was sampled.
#[derive(Debug, Clone, Serialize)]
pub struct SamplingReport {
    pub every: u32,
    pub window_instructions: u64,
}

/// One row of the hottest instructions.
#[derive(Debug, Clone, Serialize)]
pub struct HotInstruction {
    /// The address objdump shows in `dso` (hex), or the guest address of JIT code.
    pub address: String,
    /// The file the instruction is in (`None`: JIT or unmapped code).
    pub dso: Option<String>,
    pub asm: String,
    pub executions: u64,
    pub cycles: f64,
    pub share: f64,
    pub mispredicts: u64,
}

/// Where the cycles went, by source line (DWARF) or function.
pub type HotspotRow = bottlenose_attribution::Hotspot;

/// Gus Table 1 for one loop: per-instruction share of each resource's capacity
/// over the cycles the loop took.
#[derive(Debug, Clone, Serialize)]
pub struct LoopTableRow {
    pub address: String,
    pub asm: String,
    pub executions: u64,
    /// Cycles charged to the instruction at retirement, and their fraction of the loop's.
    pub cycles: f64,
    pub share: f64,
    pub uops: u32,
    pub latency: f64,
    pub usage: std::collections::BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LoopReport {
    /// The header's address as objdump shows it in `dso` (hex).
    pub head: String,
    pub dso: Option<String>,
    pub function: Option<String>,
    pub iterations: u64,
    pub cycles: f64,
    pub share: f64,
    pub depth: u32,
}

/// One resource of a what-if run and the weight its capacity was multiplied by.
#[derive(Debug, Clone, Serialize)]
pub struct AppliedAcceleration {
    pub resource: String,
    pub weight: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RoiReport {
    #[serde(flatten)]
    pub roi: Roi,
    pub description: String,
    pub entries: u64,
    pub instructions: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DynamicReport {
    /// The ranked causes of the run's time with every view's evidence, and the
    /// same for its hottest functions and loops (see `verdict`).
    pub verdict: Verdict,
    pub machine: String,
    pub program: String,
    pub args: Vec<String>,
    /// "exited with code 0", "killed by signal 11 (SIGSEGV)", ...
    pub exit: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// False when the run was cut short (crash, interrupt, instruction limit): the report covers what ran.
    pub complete: bool,
    pub interrupted: bool,
    /// Why the report is partial: "instruction limit", "interrupted", "killed by signal N (..)",
    /// "trace ended early (exec or QEMU died)"; `None` for a complete run.
    pub stop_reason: Option<String>,
    pub instructions_executed: u64,
    pub instructions_simulated: u64,
    pub cycles: f64,
    pub ipc: f64,
    pub roi: RoiReport,
    pub sensitivity: Vec<SensitivityPoint>,
    /// Present when the sensitivity variants were timed on sampled windows only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitivity_sampling: Option<SamplingReport>,
    pub bottlenecks: Vec<Bottleneck>,
    pub stall_causes: StallCauses,
    pub functional: FunctionalStats,
    pub prefetcher: String,
    /// Resources accelerated in the baseline itself (`run --accelerate`): every
    /// number of the report is for this faster (or slower) core. Empty for the machine as described.
    pub acceleration: Vec<AppliedAcceleration>,
    pub hot_instructions: Vec<HotInstruction>,
    /// Source lines (or functions without line information) by cycles.
    pub hotspots: Vec<HotspotRow>,
    pub functions: Vec<HotspotRow>,
    /// Cycles by file (perf's `--sort dso`), most first: every cycle, not the top rows only.
    pub files: Vec<FileShare>,
    pub loops: Vec<LoopReport>,
    /// The per-instruction resource table of the hottest loop (Gus Table 1).
    pub hottest_loop: Vec<LoopTableRow>,
    /// Head address of that loop (one of `loops`).
    pub hottest_loop_head: Option<String>,
    pub unsupported_instructions: UnsupportedSummary,
    /// Static instructions seen (decoded once each).
    pub static_instructions: usize,
    /// Top-Down tree and events, CPI and FLOPS stacks, cycle accounting, idealization.
    #[serde(flatten)]
    pub accounting: AccountingReport,
    /// Every process traced: the program, then the processes it started (forks
    /// and execs) in the order they began. The rest of the report details the
    /// one marked `detailed` (the most cycles); `exit` is the first one's.
    pub processes: Vec<ProcessRow>,
    /// Instructions and cycles of all the processes together.
    pub total: ProcessTotal,
    /// What was not traced, and why (one line each).
    pub untraced: Vec<String>,
    /// A sampled run: its design, and every estimate's confidence interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingSummary>,
}

/// One traced process image (a fork that execs is two: the forked copy, then the program it ran).
#[derive(Debug, Clone, Serialize)]
pub struct ProcessRow {
    pub pid: u32,
    /// The pid of the process that started it (None for the program bottlenose ran).
    pub parent: Option<u32>,
    /// `start`, `fork` or `exec`.
    pub origin: &'static str,
    pub program: String,
    pub args: Vec<String>,
    pub instructions_simulated: u64,
    pub cycles: f64,
    pub ipc: f64,
    pub exit: String,
    pub complete: bool,
    /// The report's views, hotspots and verdict are this process's.
    pub detailed: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ProcessTotal {
    pub processes: usize,
    pub instructions_simulated: u64,
    pub cycles: f64,
    pub ipc: f64,
}

/// The cycles of the code of one file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileShare {
    /// The file (`None`: JIT code in anonymous memory, or unmapped code).
    pub dso: Option<String>,
    pub cycles: f64,
    /// Of the run's cycles.
    pub share: f64,
    /// The part of `share` in code a symbol names (the rest is named by
    /// address ranges: `file+0x...`).
    pub named_share: f64,
}
