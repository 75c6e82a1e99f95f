//! Dynamic analysis: one functional stream (decoded once, caches and
//! predictors simulated once) drives several timing variants in parallel.

mod engine;

pub use engine::{Batch, DynRecord, VariantEngine, VariantOutcome};
