//! Top-Down from hardware counters: the counters → engine path of bottlenose.
//!
//! * [`cpu`]: CPUID → table (hybrid Intel: P-core `cpu_core` / E-core `cpu_atom`).
//! * [`event`]: [`RawEvent`]s from the metric engine's event specs (Intel and AMD
//!   config layouts, fixed-counter pseudo-encodings, Ice Lake+ `slots` + `topdown-*`).
//! * [`groups`]: counter limits per uarch and constraint-respecting bin packing.
//! * [`plan`]: method (TMA, cycle accounting, 5-event), node selection, events, groups.
//! * [`backend`]: the [`CounterBackend`] trait; [`perf::PerfEventBackend`] (real
//!   `perf_event_open`) and [`fake::FakeBackend`] (scripted, for tests).
//! * [`collect`]: run a command / attach to a PID / system-wide, `--repeat`,
//!   interval time series; [`scaling`]: multiplexing scaling and warnings.
//! * [`import`]: `perf stat -x,` CSV, `perf stat -j` JSON, likwid-perfctr CSV.
//! * [`report`]: evaluation into a pruned tree and text / JSON / CSV output.
//! * [`errors`]: one-line errors (no PMU, perf_event_paranoid, unsupported CPU, event open).
//!
//! ```
//! use bottlenose_counters::{collect, fake::FakeBackend, plan, report};
//! let plan = plan::plan("yasin2014", plan::Method::Tma, &plan::Selection { level: Some(1), nodes: vec![] }, false).unwrap();
//! let mut fake = FakeBackend::new()
//!     .count("Clocks", 1000.0).count("SlotsIssued", 2400.0).count("SlotsRetired", 2000.0)
//!     .count("RecoveryBubbles", 200.0).count("FetchBubbles", 400.0);
//! let run = collect::collect(&mut fake, &plan, &collect::CollectOptions::command(vec!["true".into()])).unwrap();
//! let r = report::Report::new(&plan.engine, plan.method, &run.total.counts, &plan.selection);
//! assert_eq!(r.tree.find("Retiring").unwrap().value, Some(0.5));
//! assert_eq!(run.exit_status, Some(0));
//! ```

#![warn(missing_docs)]

pub mod backend;
pub mod collect;
pub mod cpu;
pub mod errors;
pub mod event;
pub mod fake;
pub mod groups;
pub mod import;
pub mod perf;
pub mod plan;
pub mod process;
pub mod report;
pub mod scaling;

pub use backend::{CounterBackend, GroupHandle, GroupOptions, OpenError, Reading, Target};
pub use errors::{CountersError, Scope, SysInfo};
pub use event::{Placement, RawEvent};
