//! The report of a dynamic run and its rows.

use bottlenose_decode::DecodedInst;
use bottlenose_trace::QemuError;
use bottlenose_timing::InstrTiming;
pub use bottlenose_report_model::run::{AppliedAcceleration, DynamicReport, HotInstruction, HotspotRow, LoopReport, LoopTableRow, RoiReport, SamplingReport};

/// A static instruction of the run with its per-instruction totals.
#[derive(Debug, Clone)]
pub struct StaticInstruction {
    pub inst: DecodedInst,
    pub timing: InstrTiming,
}

#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    #[error(transparent)]
    Qemu(#[from] QemuError),
    #[error(transparent)]
    Analysis(#[from] crate::AnalysisError),
    #[error(transparent)]
    Plan(#[from] bottlenose_simulate::PlanError),
}

