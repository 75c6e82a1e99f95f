//! What the sampled adapter needs of the views it wraps ([`Windowed`]), of
//! their counts ([`WindowCounts`]), and what one counted window measured for
//! the intervals ([`WindowTally`]).

use crate::cpi_stacks::NCOMP;
use crate::flops_stack::IDLE_CAUSES;
use crate::topdown::TOPDOWN_TALLIES;
use bottlenose_timing::{StageDetails, StageTimes};

/// Views that the adapter can count on windows.
pub trait Windowed {
    /// What booking and sweeping count.
    type Counts: WindowCounts + Clone;
    /// Whether the views look at instructions at all.
    fn is_on(&self) -> bool;
    /// Fresh, empty counts.
    fn new_counts(&self) -> Self::Counts;
    /// The counts booking and sweeping add to now.
    fn counts_mut(&mut self) -> &mut Self::Counts;
    /// Sweeps every cycle no later instruction books into.
    fn sweep_to_dispatch(&mut self);
    /// The first cycle not swept yet, and the instructions booked so far.
    fn swept(&self) -> i64;
    fn booked(&self) -> u64;
    /// The next booked instruction follows a stretch nobody looked at.
    fn restart_next(&mut self);
    fn book(&mut self, index: usize, t: &StageTimes, d: &StageDetails);
}

/// Counts that can be summed, weighted and summarized per window.
pub trait WindowCounts {
    fn add(&mut self, other: &Self);
    /// `start + w · (self - start)`: a window that stands for `w` times what the
    /// views' own windows stand for (a sampled run's unit) counts `w` times.
    fn reweight(&mut self, start: &Self, w: f64);
    /// What the counts hold, for a window's tally (`swept_cycles`: cycles swept so far).
    fn tally(&self, swept_cycles: i64) -> WindowTally;
}

/// What one counted window measured, for the intervals of the views' shares:
/// the cycles it swept, the stall components of the three CPI stacks (dispatch,
/// issue, commit) and the Top-Down dispatch gaps (wrong path, recovery,
/// frontend, backend), all in cycles; the FP units' idle unit-cycles by cause
/// (indexed by [`crate::IdleFp`]); Top-Down's other counts, in cycles (indexed
/// by [`crate::TopDownTally`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowTally {
    /// What the window stands for relative to the views' own windows (1 for those).
    pub weight: f64,
    pub cycles: f64,
    pub cpi: [[f64; NCOMP]; 3],
    pub gaps: [f64; 4],
    pub fp_idle: [f64; IDLE_CAUSES],
    pub topdown: [f64; TOPDOWN_TALLIES],
}

impl WindowTally {
    /// Every count times `f` (the weight stays).
    pub(super) fn scaled(&self, f: f64) -> Self {
        let mut d = *self;
        d.cycles *= f;
        d.cpi.iter_mut().flatten().chain(&mut d.gaps).chain(&mut d.fp_idle).chain(&mut d.topdown).for_each(|x| *x *= f);
        d
    }
}
