//! Analyses built on the timing model: static block/loop analysis to steady
//! state, sensitivity sweeps (Gus §3.3) and bottleneck ranking.

pub mod accounting;
pub mod dynamic;
pub mod verdict;
mod static_loop;
mod static_loops;
mod usage;
pub mod vendor_topdown;

pub use bottlenose_simulate::{
    accelerate, check_weight, core_knobs, default_iterations, default_weights, known_names, parse_acceleration, rank, reference_weight, run_block, steady_iterations,
    BlockRun, Bottleneck, Knob, PlanError, SensitivityPoint, SlowerWhenFaster, THRESHOLD, WEIGHT_RANGE,
};
pub use accounting::{find_node, AccountingReport, BuildAccounting, Ideal, IdealizationRow, StageComponents, TopDownNode};
pub use bottlenose_views::{CpiStacks, CycleAccounting, FlopsStack, SlotAccounting, StallCauses, TimelineRow, CPI_COMPONENTS, FLOPS_COMPONENTS};
pub use static_loop::{analyze_block, Assumption, BlockReport, InstructionRow, StaticOptions, UnsupportedSummary};
pub use static_loops::{analyze_loops, find_static_loops, LoopAnalysis, Locate, StaticLoop, ASSUMED_ITERATIONS_PER_ENTRY};
pub use usage::{global_usage, per_instruction_load, ResourceUsage};

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("block '{0}' has no instructions")]
    EmptyBlock(String),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

