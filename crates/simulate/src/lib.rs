//! One simulation engine for both commands. A [`Source`] yields batches of
//! executed instructions (a static block repeated: [`LoopSource`]; a dynamic
//! run's trace: `bottlenose_trace_source::TraceSource`); the [`Plan`] says which
//! timing variants to run; the [`VariantEngine`] times the one stream on every
//! variant (baseline with the views' listener); [`rank`] orders the causes.

mod anomaly;
pub mod engine;
pub mod ideal;
pub mod knob;
pub mod plan;
mod rank;
mod records;
pub mod sensitivity;
mod sink;
pub mod source;
mod steady;
mod worker;

pub use anomaly::SlowerWhenFaster;
pub use ideal::{Ideal, IdealStream, IdealizeLevel};
pub use engine::{Batch, BatchCycles, DynRecord, RecordSlice, Records, Returns, Sampling, VariantEngine, VariantOutcome};
pub use worker::VARIANT_WARM_UP;
pub use knob::{accelerate, check_weight, core_knobs, known_names, parse_acceleration, Knob, WEIGHT_RANGE};
pub use plan::{DefaultKnobs, NamedWeight, Plan, PlanRequest, Variants};
pub use rank::{rank, reference_weight, Bottleneck, THRESHOLD};
pub use sensitivity::{default_weights, SensitivityPoint};
pub use source::{drive, LoopSource, Source};
pub use steady::{default_iterations, run_block, run_loop, steady_iterations, steady_marks, BlockRun};

/// A plan the machine cannot run: a name or weight that is not valid.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("unknown resource '{name}' for machine {machine} (known: {known})")]
    UnknownResource { name: String, machine: String, known: String },
    #[error("bad weight {0}: a weight must be a number from {lo} to {hi} (1.15 = 15 % faster, 0.5 = half as fast)", lo = knob::WEIGHT_RANGE.start(), hi = knob::WEIGHT_RANGE.end())]
    BadWeight(f64),
    #[error("bad --accelerate '{spec}': {why}")]
    BadAcceleration { spec: String, why: String },
    #[error("--accelerate names {0} twice")]
    RepeatedAcceleration(String),
}
