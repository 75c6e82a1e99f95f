//! Dynamic analysis: one functional stream (decoded once, caches and
//! predictors simulated once) drives several timing variants in parallel.

mod access_span;
mod driver;
mod engine;
mod illegal;
mod processes;
mod roi;
pub mod sampling;
mod strings;
mod symbolize;

pub use processes::{run_program, ProcessRow, ProcessTotal};
pub use driver::{
    AppliedAcceleration, DynamicError, DynamicOptions, DynamicReport, IdealizeLevel, HotInstruction, HotspotRow, LoopReport, LoopTableRow, RoiReport,
    SamplingReport, StaticInstruction, SAMPLE_WINDOW_INSTRUCTIONS,
};
pub use engine::{Batch, BatchCycles, DynRecord, Sampling, VariantEngine, VariantOutcome};
pub use symbolize::FileShare;
pub use roi::{Roi, RoiPlacement, RoiTracker, MARKER_BEGIN, MARKER_END};
