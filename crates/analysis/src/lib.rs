//! Analyses built on the timing model: static block/loop analysis to steady
//! state, sensitivity sweeps (Gus §3.3) and bottleneck ranking.

pub mod accounting;
mod anomaly;
mod bottleneck;
pub mod dynamic;
pub mod knobs;
pub mod verdict;
mod sensitivity;
mod simulate;
mod static_loop;
mod static_loops;
mod usage;
pub mod vendor_topdown;

pub use bottleneck::{rank, reference_weight, Bottleneck, THRESHOLD};
pub use knobs::{accelerate, check_weight, core_knobs, known_names, parse_acceleration, Knob, WEIGHT_RANGE};
pub use anomaly::SlowerWhenFaster;
pub use sensitivity::{default_weights, sweep, SensitivityPoint};
pub use simulate::{default_iterations, run_block, steady_iterations, BlockRun};
pub use accounting::{find_node, AccountingReport, Ideal, IdealizationRow, StageComponents, TopDownNode};
pub use bottlenose_views::{CpiStacks, CycleAccounting, FlopsStack, SlotAccounting, StallCauses, TimelineRow, CPI_COMPONENTS, FLOPS_COMPONENTS};
pub use static_loop::{analyze_block, Assumption, BlockReport, InstructionRow, StaticOptions, UnsupportedSummary};
pub use static_loops::{analyze_loops, find_static_loops, LoopAnalysis, Locate, StaticLoop, ASSUMED_ITERATIONS_PER_ENTRY};
pub use usage::{global_usage, per_instruction_load, ResourceUsage};

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("block '{0}' has no instructions")]
    EmptyBlock(String),
    #[error("unknown resource '{name}' for machine {machine} (known: {known})")]
    UnknownResource { name: String, machine: String, known: String },
    #[error("bad weight {0}: a weight must be a number from {lo} to {hi} (1.15 = 15 % faster, 0.5 = half as fast)", lo = knobs::WEIGHT_RANGE.start(), hi = knobs::WEIGHT_RANGE.end())]
    BadWeight(f64),
    #[error("bad --accelerate '{spec}': {why}")]
    BadAcceleration { spec: String, why: String },
    #[error("--accelerate names {0} twice")]
    RepeatedAcceleration(String),
}

