//! The report of a dynamic run and its rows.

use bottlenose_trace::QemuError;
pub use bottlenose_report_model::run::{AppliedAcceleration, DynamicReport, HotInstruction, HotspotRow, LoopReport, LoopTableRow, RoiReport, SamplingReport};
pub use bottlenose_trace_source::StaticInstruction;

#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    #[error(transparent)]
    Qemu(#[from] QemuError),
    #[error(transparent)]
    Analysis(#[from] crate::AnalysisError),
    #[error(transparent)]
    Plan(#[from] bottlenose_simulate::PlanError),
}

