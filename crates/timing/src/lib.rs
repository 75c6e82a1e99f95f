//! The timing model of bottlenose.
//!
//! Input: a stream of resolved instructions ([`InstrTiming`], built once per
//! static instruction by [`resolve`]) with per-execution dynamic facts
//! ([`DynInfo`]). Output: per-instruction [`StageTimes`] (dispatch, issue,
//! complete, commit, and the binding constraint of each), handed to listeners,
//! and from the detailed step the [`StageDetails`] the accounting views read.
//! One [`Core`] is one variant; sensitivity analysis runs several cores with
//! different [`Acceleration`]s over the same stream.

mod calendar;
mod config;
mod events;
mod knob;
mod model;
mod ports;
mod prefetched;
mod resolve;
mod shadow;
mod strings;
mod thinning;
mod window;

pub use calendar::Calendar;
pub use config::{Acceleration, CoreConfig};
pub use knob::{CoreKnob, KnobInfo, KnobScope, KNOBS};
pub use events::{BatchPart, CommitCause, Details, DispatchCause, DynInfo, IssueCause, LatencyClass, LineEvents, Listener, StageDetails, StageTimes};
pub use model::Core;
pub use prefetched::PrefetchedLines;
pub use resolve::{resolve, resolve_block, InstrTiming, UnknownForm, Use};
pub use shadow::ShadowMemory;
pub use strings::{StringTiming, StringWork, ASSUMED_STATIC_BYTES};
pub use thinning::{RateEvent, Thinning, RATE_EVENTS};
pub use window::{FifoWindow, Scheduler};
