//! Analyses built on the timing model. Where each is assembled:
//! - `block` (`analyze`): a block or the loops of static code, timed to
//!   steady state on the engine with a loop source;
//! - `program` (`run`): a program under QEMU, its processes each a trace
//!   source for the same engine;
//! - [`verdict`]: the ranked causes and what to try, from either report;
//! - [`accounting`] and [`vendor_topdown`]: the views' results as report rows.
//!
//! [`dynamic`] holds what a run is asked (options), its plan, its report
//! types, sampling and attribution.

pub mod accounting;
pub mod dynamic;
pub mod verdict;
mod block;
mod program;
pub mod vendor_topdown;

pub use bottlenose_simulate::{
    accelerate, check_weight, core_knobs, default_iterations, default_weights, known_names, parse_acceleration, rank, reference_weight, run_block, steady_iterations,
    BlockRun, Bottleneck, Knob, PlanError, SensitivityPoint, SlowerWhenFaster, THRESHOLD, WEIGHT_RANGE,
};
pub use accounting::{find_node, AccountingReport, BuildAccounting, Ideal, IdealizationRow, StageComponents, TopDownNode};
pub use bottlenose_views::{CpiStacks, CycleAccounting, FlopsStack, SlotAccounting, StallCauses, TimelineRow, CPI_COMPONENTS, FLOPS_COMPONENTS};
pub use block::{analyze_block, Assumption, BlockReport, InstructionRow, StaticOptions, UnsupportedSummary};
pub use block::loops::{analyze_loops, find_static_loops, LoopAnalysis, Locate, StaticLoop, ASSUMED_ITERATIONS_PER_ENTRY};
pub use block::usage::{global_usage, per_instruction_load, ResourceUsage};

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("block '{0}' has no instructions")]
    EmptyBlock(String),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

