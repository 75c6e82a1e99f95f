//! Dynamic analysis: one functional stream (decoded once, caches and
//! predictors simulated once) drives several timing variants in parallel.

mod access_span;
mod driver;
mod front;
mod illegal;
mod mappings;
mod options;
mod pipeline;
mod plan;
mod processes;
mod report;
mod roi;
mod schedule;
pub mod sampling;
mod source;
mod statics;
mod strings;
mod symbolize;
mod trace_source;

pub use processes::{run_program, ProcessRow, ProcessTotal};
pub use options::{DynamicOptions, IdealizeLevel, SAMPLE_WINDOW_INSTRUCTIONS};
pub use report::{
    AppliedAcceleration, DynamicError, DynamicReport, HotInstruction, HotspotRow, LoopReport, LoopTableRow, RoiReport, SamplingReport, StaticInstruction,
};
pub use bottlenose_simulate::engine::{Batch, BatchCycles, DynRecord, Sampling, VariantEngine, VariantOutcome, VariantsTime};
// the engine is the simulate crate's; `dynamic::engine` stays a path to it
pub(crate) use bottlenose_simulate::engine;
pub use symbolize::FileShare;
pub use roi::{Roi, RoiPlacement, RoiTracker, MARKER_BEGIN, MARKER_END};
