//! One metric engine for Top-Down analysis, from hardware counters and from a
//! simulated core alike.
//!
//! * [`expr`]: the formula language (parser, printer, evaluator).
//! * [`table`]: our table format; the converted Intel/AMD tables are embedded
//!   from `data/` (written by `tools/convert-perfmon`, never read at run time
//!   from elsewhere).
//! * [`engine`]: [`MetricEngine`] — `for_uarch`, `events_needed`, `evaluate`.
//! * [`tree`]: the Top-Down tree with hierarchical-safety flags, pruning and
//!   the bottleneck path.
//! * [`unit`]: what a node's value is a fraction of (slots, clocks, uops).
//! * [`yasin`]: Yasin's generic counters architecture (`yasin2014`), the model
//!   the simulated core feeds.
//! * [`methods`]: the 5-event level-1 recipe and Levinthal's cycle accounting.
//! * [`neoverse`]: Arm's Neoverse N1/V2 telemetry Top-Down.
//! * [`cpuid`]: CPU id → uarch.
//!
//! ```
//! use bottlenose_metrics::{Counts, MetricEngine};
//! let engine = MetricEngine::for_uarch("yasin2014").unwrap();
//! let counts = Counts::new()
//!     .with("Clocks", 1000.0)
//!     .with("SlotsIssued", 2400.0)
//!     .with("SlotsRetired", 2000.0)
//!     .with("RecoveryBubbles", 200.0)
//!     .with("FetchBubbles", 400.0);
//! let ev = engine.evaluate(&counts).unwrap();
//! assert_eq!(ev.get("Retiring"), Some(0.5));
//! assert_eq!(ev.get("Backend_Bound"), Some(0.25));
//! ```

#![warn(missing_docs)]

pub mod counts;
pub mod cpuid;
pub mod engine;
pub mod evaluation;
pub mod event;
pub mod expr;
pub mod methods;
pub mod neoverse;
pub mod table;
pub mod tree;
pub mod unit;
pub mod yasin;

pub use counts::Counts;
pub use engine::{EventSpec, Evaluation, MetricEngine, MetricResult, MetricsError};
pub use evaluation::Reason;
pub use event::NameRef;
pub use table::{EventDef, MetricDef, UarchTable};
pub use tree::{Node, Tree};
pub use unit::{Basis, Unit};
