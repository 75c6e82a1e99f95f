//! A traced process as a [`bottlenose_simulate::Source`]: the engine pulls
//! batches ([`TraceSource`]), the source reads the QEMU trace until a batch is
//! full. Each executed instruction goes through the region of interest
//! ([`roi`]), the static-instruction cache with its decode fallbacks
//! ([`statics`]), string collapsing ([`strings`]) and the functional layer with
//! the frontend ([`front`]) into a record of the batch ([`producer`]); a
//! sampled run fast-forwards between its windows as its [`Schedule`] says, and
//! each idealized stream gets a masked copy of the batches it times.
//!
//! Why a crate of its own and not part of `bottlenose-simulate`: the engine
//! and the static loop source need neither QEMU and its process control
//! (`bottlenose-trace`) nor the functional layer, and static analysis, the
//! engine's tests and its speed measurements stay free of them. This crate is
//! where the trace, the functional layer and the engine meet.

mod access_span;
mod ending;
pub mod front;
mod mappings;
pub mod producer;
pub mod roi;
mod source;
pub mod statics;
pub mod strings;

pub use ending::Ending;
pub use mappings::MappingLog;
pub use producer::{IdealStream, BATCH};
pub use roi::{Roi, RoiPlacement, RoiTracker, MARKER_BEGIN, MARKER_END};
pub use source::{Exact, Schedule, TraceEnd, TraceOptions, TraceSource};
pub use statics::StaticInstruction;
