//! The report of a dynamic run and its rows.

use crate::accounting::AccountingReport;
use super::roi::Roi;
use super::sampling;
use bottlenose_simulate::Bottleneck;
use bottlenose_simulate::SensitivityPoint;
use crate::static_loop::UnsupportedSummary;
use bottlenose_decode::DecodedInst;
use bottlenose_functional::FunctionalStats;
use bottlenose_views::{InstructionCost, StallCauses};
use bottlenose_trace::QemuError;
use bottlenose_timing::InstrTiming;
use serde::Serialize;

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
    pub verdict: crate::verdict::Verdict,
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
    pub files: Vec<super::symbolize::FileShare>,
    pub loops: Vec<LoopReport>,
    /// The per-instruction resource table of the hottest loop (Gus Table 1).
    pub hottest_loop: Vec<LoopTableRow>,
    /// Head address of that loop (one of `loops`).
    pub hottest_loop_head: Option<String>,
    pub unsupported_instructions: UnsupportedSummary,
    /// Static instructions seen (decoded once each).
    pub static_instructions: usize,
    #[serde(skip)]
    pub statics: Vec<StaticInstruction>,
    #[serde(skip)]
    pub cost: InstructionCost,
    /// Top-Down tree and events, CPI and FLOPS stacks, cycle accounting, idealization.
    #[serde(flatten)]
    pub accounting: AccountingReport,
    /// Every process traced: the program, then the processes it started (forks
    /// and execs) in the order they began. The rest of the report details the
    /// one marked `detailed` (the most cycles); `exit` is the first one's.
    pub processes: Vec<super::processes::ProcessRow>,
    /// Instructions and cycles of all the processes together.
    pub total: super::processes::ProcessTotal,
    /// What was not traced, and why (one line each).
    pub untraced: Vec<String>,
    /// A sampled run: its design, and every estimate's confidence interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<sampling::report::SamplingSummary>,
}

/// A static instruction of the run with its per-instruction totals.
#[derive(Debug, Clone)]
pub struct StaticInstruction {
    pub inst: DecodedInst,
    pub timing: InstrTiming,
}

#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    #[error(transparent)]
    Qemu(#[from] QemuError),
    #[error(transparent)]
    Analysis(#[from] crate::AnalysisError),
    #[error(transparent)]
    Plan(#[from] bottlenose_simulate::PlanError),
}

