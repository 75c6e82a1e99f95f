//! The parts of a dynamic run besides its assembly (`crate::program`): its
//! options, the plan of its variants, its report types, sampling (SMARTS) and
//! the attribution of cycles to code.

pub(crate) mod illegal;
pub(crate) mod options;
pub(crate) mod plan;
pub(crate) mod report;
mod schedule;
pub mod sampling;
pub(crate) mod symbolize;

pub use crate::program::processes::{run_program, ProcessRow, ProcessTotal};
pub use options::{DynamicOptions, IdealizeLevel, SAMPLE_WINDOW_INSTRUCTIONS};
pub use report::{
    AppliedAcceleration, DynamicError, DynamicReport, HotInstruction, HotspotRow, LoopReport, LoopTableRow, RoiReport, SamplingReport, StaticInstruction,
};
pub use bottlenose_simulate::engine::{Batch, BatchCycles, DynRecord, Sampling, VariantEngine, VariantOutcome, VariantsTime};
// the engine is the simulate crate's; `dynamic::engine` stays a path to it
pub(crate) use bottlenose_simulate::engine;
pub use symbolize::FileShare;
pub use bottlenose_trace_source::{Roi, RoiPlacement, RoiTracker, MARKER_BEGIN, MARKER_END};
