//! The report of a static analysis: a block's (or loop body's) steady state,
//! resource usage, sensitivity and views (`bottlenose analyze`, built by
//! `bottlenose_analysis::analyze_block` and `analyze_loops`).

use crate::accounting::AccountingReport;
use crate::sensitivity::{Bottleneck, SensitivityPoint};
use crate::verdict::Verdict;
use crate::views::{StallCauses, TimelineRow};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct InstructionRow {
    pub address: String,
    pub asm: String,
    pub form: String,
    /// Unfused uops (port uops).
    pub uops: u32,
    /// Slots taken at dispatch (after micro/macro fusion).
    pub fused_uops: u32,
    pub latency: f64,
    /// Fraction of each resource's capacity this instruction uses in steady state.
    pub usage: BTreeMap<String, f64>,
    /// Groups the instruction's uops go to, e.g. `p01 p23`.
    pub ports: String,
    pub unknown_form: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnsupportedSummary {
    pub count: usize,
    pub forms: Vec<UnknownForm>,
}

/// Something static analysis cannot know and had to assume, per instruction.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Assumption {
    pub address: String,
    pub asm: String,
    pub assumption: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlockReport {
    /// The ranked causes with every view's evidence (see `verdict`).
    pub verdict: Verdict,
    pub machine: String,
    pub block: String,
    pub iterations: u32,
    pub instructions_per_iteration: usize,
    pub total_cycles: f64,
    pub cycles_per_iteration: f64,
    pub ipc: f64,
    pub resources: Vec<ResourceUsage>,
    pub sensitivity: Vec<SensitivityPoint>,
    pub bottlenecks: Vec<Bottleneck>,
    pub instructions: Vec<InstructionRow>,
    pub unsupported_instructions: UnsupportedSummary,
    /// What the timing assumed where the block does not say (a repeated string
    /// instruction's count); absent when nothing was assumed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<Assumption>,
    pub timeline: Vec<TimelineRow>,
    pub stall_causes: StallCauses,
    /// Top-Down tree and events, CPI and FLOPS stacks, cycle accounting, idealization.
    #[serde(flatten)]
    pub accounting: AccountingReport,
}

/// A form the machine's table lacks.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnknownForm {
    pub form: String,
    pub asm: String,
    /// Hex digits in JSON, as every address of the reports.
    #[serde(serialize_with = "hex")]
    pub address: u64,
}

fn hex<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:x}"))
}

#[derive(Debug, Clone, Serialize)]
pub struct ResourceUsage {
    pub name: String,
    /// Units in the resource (its capacity in uops per cycle at nominal speed).
    pub capacity: f64,
    /// Uops (or busy cycles) per iteration.
    pub uops_per_iteration: f64,
    /// Fraction of capacity used in steady state.
    pub usage: f64,
}

/// Iterations per entry that the hotness estimate assumes for every loop:
/// LLVM's static branch probabilities take a loop's back edge with
/// probability 124/128 (`LBH_TAKEN_WEIGHT` / (`LBH_TAKEN_WEIGHT` +
/// `LBH_NONTAKEN_WEIGHT`) in BranchProbabilityInfo), which is 32 iterations
/// per entry on average.
pub const ASSUMED_ITERATIONS_PER_ENTRY: f64 = 32.0;

/// One loop of a static analysis and its own report.
#[derive(Debug, Clone, Serialize)]
pub struct LoopAnalysis {
    /// 1, 2, ... in header address order.
    pub number: usize,
    pub head: String,
    pub back_edge: String,
    pub start: String,
    pub end: String,
    /// The function the header is in, when the input names functions.
    pub function: Option<String>,
    /// Where the header comes from: `file:line` (DWARF, or the line of the assembly file).
    pub source: Option<String>,
    pub depth: u32,
    pub instructions: usize,
    /// Instructions timed for this loop: its own, without those of loops nested in it.
    pub own_instructions: usize,
    /// Steady-state cycles per iteration of the own instructions.
    pub cycles_per_iteration: f64,
    /// Static estimate of this loop's share of the time spent in the block's
    /// loops: cycles per iteration × [`ASSUMED_ITERATIONS_PER_ENTRY`]^(depth + 1),
    /// over the sum of that for every loop.
    pub estimated_share: f64,
    /// The loop with the largest estimate.
    pub hottest: bool,
    pub report: BlockReport,
}
