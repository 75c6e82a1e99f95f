//! Dynamic analysis: one functional stream (decoded once, caches and
//! predictors simulated once) drives several timing variants in parallel.

mod driver;
mod illegal;
mod options;
mod plan;
mod processes;
mod report;
mod schedule;
pub mod sampling;
mod symbolize;

pub use processes::{run_program, ProcessRow, ProcessTotal};
pub use options::{DynamicOptions, IdealizeLevel, SAMPLE_WINDOW_INSTRUCTIONS};
pub use report::{
    AppliedAcceleration, DynamicError, DynamicReport, HotInstruction, HotspotRow, LoopReport, LoopTableRow, RoiReport, SamplingReport, StaticInstruction,
};
pub use bottlenose_simulate::engine::{Batch, BatchCycles, DynRecord, Sampling, VariantEngine, VariantOutcome, VariantsTime};
// the engine is the simulate crate's; `dynamic::engine` stays a path to it
pub(crate) use bottlenose_simulate::engine;
pub use symbolize::FileShare;
pub use bottlenose_trace_source::{Roi, RoiPlacement, RoiTracker, MARKER_BEGIN, MARKER_END};
