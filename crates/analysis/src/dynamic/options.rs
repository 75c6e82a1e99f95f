//! What a dynamic run is asked to do: [`DynamicOptions`] and the run's fixed sizes.

use bottlenose_trace_source::{Roi, RoiPlacement};
use super::sampling::{LiveEstimate, SamplingOptions};
use bottlenose_functional::{Idealization, Prefetcher};
use std::ffi::OsString;
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub(crate) use bottlenose_trace_source::BATCH;

pub struct DynamicOptions {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub roi: Roi,
    /// Keep caches and predictors warm outside the region of interest.
    pub warm: bool,
    pub weights: Vec<f64>,
    /// Resources accelerated one at a time (`None`: every port group and core/memory knob).
    pub resources: Option<Vec<String>>,
    pub combine: Vec<Vec<String>>,
    pub sensitivity: bool,
    pub max_instructions: Option<NonZeroU64>,
    pub threads: usize,
    pub prefetcher: Prefetcher,
    pub idealization: Idealization,
    /// Set by a Ctrl-C handler: stop QEMU and report what was simulated.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Called about every million simulated instructions with (executed, simulated).
    pub progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    /// Where the file of a range or function region is: the region moves to
    /// where the guest maps that file (`None` for whole-program and marker regions).
    pub roi_placement: Option<RoiPlacement>,
    /// Resources accelerated in the baseline itself (a what-if run): (name, weight).
    pub baseline: Vec<(String, f64)>,
    /// Idealization experiments run beside the baseline (Eyerman §IV).
    pub idealize: IdealizeLevel,
    /// Time the sensitivity variants on one window of [`SAMPLE_WINDOW_INSTRUCTIONS`] in
    /// every `n` (`None`: on the whole stream, exactly).
    pub sample_every: Option<u32>,
    /// Run the accounting views (Top-Down, stacks, cycle accounting) on the
    /// baseline (`run --no-views` turns them off: the report's views are then empty).
    pub accounting_views: bool,
    /// After the first [`EXACT_VIEW_BATCHES`] batches, count the views on one
    /// batch in every `n` (after a warm-up on the instructions before it) instead of on every
    /// instruction (`None`: exactly throughout).
    pub sample_views: Option<u32>,
    /// Trace the processes the program starts (forks, execs), as `perf stat`
    /// does; false (`run --no-inherit`) stays with the first.
    pub follow_children: bool,
    /// Sampled simulation (SMARTS) past a threshold (`None`: every instruction timed).
    pub sampling: Option<SamplingOptions>,
    /// Called with the progress calls while a sampled run has an estimate: (simulated, estimate).
    pub on_estimate: Option<Box<dyn FnMut(u64, LiveEstimate) + Send>>,
}

/// Length of one sampling window of a sampled sensitivity sweep.
pub const SAMPLE_WINDOW_INSTRUCTIONS: u64 = 16 * BATCH as u64;

/// Sampled views count the first 1 Mi instructions exactly: a run that ends
/// within them is an exact run, and a long one starts from an exact picture of
/// its start-up.
pub const EXACT_VIEW_BATCHES: u64 = (1 << 20) / BATCH as u64;

/// Which idealizations a run simulates beside the baseline: each functional one (perfect
/// icache, dcache, branch prediction) is the baseline's stream masked, on a timing core
/// of its own; the 1-cycle ALU is one more timing variant of the baseline stream.
pub use bottlenose_simulate::IdealizeLevel;

