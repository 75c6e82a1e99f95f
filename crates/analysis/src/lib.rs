//! Analyses built on the timing model: static block/loop analysis to steady
//! state, sensitivity sweeps (Gus §3.3) and bottleneck ranking.

mod bottleneck;
pub mod knobs;
mod sensitivity;
mod simulate;
mod static_loop;
mod usage;

pub use bottleneck::{rank, reference_weight, Bottleneck, THRESHOLD};
pub use knobs::{accelerate, Knob, CORE_KNOBS};
pub use sensitivity::{default_weights, sweep, SensitivityPoint};
pub use simulate::{default_iterations, run_block, BlockRun};
pub use static_loop::{analyze_block, known_names, BlockReport, InstructionRow, StaticOptions, StallCauses, TimelineRow, UnsupportedSummary};
pub use usage::{global_usage, per_instruction_load, ResourceUsage};

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("block '{0}' has no instructions")]
    EmptyBlock(String),
    #[error("unknown resource '{name}' for machine {machine} (known: {known})")]
    UnknownResource { name: String, machine: String, known: String },
}

/// `LoadBuffer` → `load_buffer`
pub(crate) fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
