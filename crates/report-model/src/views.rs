//! What the views report: the CPI stacks, the FLOPS stack, cycle accounting,
//! Top-Down's level-1 slots, binding stall causes and the timeline (computed
//! by crate `bottlenose-views`).

use serde::Serialize;
use std::collections::BTreeMap;

/// Number of components.
pub const NCOMP: usize = 13;

/// Component names as reports show them, indexed by `bottlenose_views::Component`.
pub const COMPONENTS: [&str; NCOMP] = [
    "base",
    "icache",
    "bpred",
    "dcache_l2",
    "dcache_l3",
    "dcache_dram",
    "dcache_stores",
    "alu_latency",
    "dependence",
    "microcode",
    "structural",
    "other",
    "unattributed",
];

/// The three stacks of one run.
#[derive(Debug, Clone, Serialize)]
pub struct CpiStacks {
    pub cycles: f64,
    pub instructions: u64,
    /// W: slots per cycle.
    pub width: f64,
    pub dispatch: BTreeMap<String, f64>,
    pub issue: BTreeMap<String, f64>,
    pub commit: BTreeMap<String, f64>,
}

impl CpiStacks {
    /// The stacks from their components in [`COMPONENTS`] order.
    pub fn new(cycles: f64, instructions: u64, width: f64, c: &[[f64; NCOMP]; 3]) -> Self {
        let map = |s: &[f64; NCOMP]| COMPONENTS.iter().zip(s).map(|(n, v)| (n.to_string(), *v)).collect();
        CpiStacks { cycles, instructions, width, dispatch: map(&c[0]), issue: map(&c[1]), commit: map(&c[2]) }
    }

    /// The stack of one stage (`dispatch`, `issue`, `commit`).
    pub fn stage(&self, stage: &str) -> Option<&BTreeMap<String, f64>> {
        match stage {
            "dispatch" => Some(&self.dispatch),
            "issue" => Some(&self.issue),
            "commit" => Some(&self.commit),
            _ => None,
        }
    }

    /// A group of components (`dcache` = every `dcache_*`) in cycles at one stage.
    pub fn component(&self, stage: &str, name: &str) -> f64 {
        let Some(s) = self.stage(stage) else { return 0.0 };
        s.iter().filter(|(k, _)| *k == name || (k.starts_with(name) && k[name.len()..].starts_with('_'))).map(|(_, v)| v).sum()
    }
}

/// The components, in report order (Table III's, with `mask` named `narrow`
/// and `frontend` split into `non_fp`, `icache` and `bpred`).
pub const FLOPS_COMPONENTS: [&str; 9] = ["base", "non_fma", "narrow", "non_fp", "icache", "bpred", "non_vfp", "memory", "dependence"];

#[derive(Debug, Clone, Serialize)]
pub struct FlopsStack {
    /// Peak flops per cycle (double precision).
    pub peak_flops_per_cycle: f64,
    /// Flops per cycle actually executed (as counted: single-precision lanes count 1).
    pub flops_per_cycle: f64,
    pub fp_instructions: u64,
    /// Component → flops per cycle; sums to the peak (reported separately as `flops_stack`).
    #[serde(skip)]
    pub components: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PenaltyTerm {
    pub event: String,
    pub count: u64,
    /// Cycles per event.
    pub penalty: f64,
    pub cycles: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CycleAccounting {
    pub cycles: f64,
    /// Cycles executing uops that retire.
    pub retired: f64,
    /// Cycles executing uops that do not retire (0 on a correct-path trace).
    pub non_retired: f64,
    /// Cycles with no uop executed.
    pub stalls: f64,
    /// Uops executed per cycle with uops executed.
    pub uop_dispatch_rate: f64,
    pub penalties: Vec<PenaltyTerm>,
    /// Σ count × penalty.
    pub counted_stall_cycles: f64,
    /// stalls − counted (may be negative).
    pub unaccounted: f64,
    pub note: String,
}

/// Level-1 slot fractions counted directly (not through the metric engine).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SlotAccounting {
    pub total_slots: f64,
    pub retiring: f64,
    pub bad_speculation: f64,
    pub frontend_bound: f64,
    pub backend_bound: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct StallCauses {
    pub dispatch: BTreeMap<String, u64>,
    pub issue: BTreeMap<String, u64>,
    pub commit: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineRow {
    pub iteration: u32,
    pub index: usize,
    pub dispatch: f64,
    pub issue: f64,
    pub complete: f64,
    pub commit: f64,
    pub dispatch_cause: String,
    pub issue_cause: String,
    pub commit_cause: String,
}

/// What sampled views measured (reported beside their results).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ViewsSampling {
    /// Instructions counted exactly at the start of the run.
    pub exact_instructions: u64,
    /// After them, one counted batch (after one batch of warm-up) of every `period` batches.
    pub period: u64,
    /// Counted windows and the instructions in them.
    pub windows: u64,
    pub counted_instructions: u64,
    /// Cycles swept in the windows (the run's clocks are scaled from these).
    pub counted_cycles: f64,
}
