//! What the four views count on the shared picture, together: the unit that
//! sampled views swap, weight and scale (`crate::sampled`), and the sums over
//! every execution that follow from static facts alone.

use crate::cpi_stacks::CpiCounts;
use crate::cycle_accounting::EventCounts;
use crate::facts::{FpKind, StaticFacts};
use crate::flops_stack::FlopsCounts;
use crate::sampled::{WindowCounts, WindowTally};
use crate::topdown::TopDownCounts;

/// What booking and sweeping count, per view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
/// (Opaque outside the crate: the adapter only swaps, weights and tallies it.)
pub struct ViewCounts {
    pub(crate) topdown: TopDownCounts,
    pub(crate) cpi: CpiCounts,
    pub(crate) flops: FlopsCounts,
    pub(crate) events: EventCounts,
}

impl ViewCounts {
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

impl WindowCounts for ViewCounts {
    fn add(&mut self, o: &ViewCounts) {
        self.topdown.add(&o.topdown);
        self.cpi.add(&o.cpi);
        self.flops.add(&o.flops);
        self.events.add(&o.events);
    }

    fn reweight(&mut self, start: &ViewCounts, w: f64) {
        self.topdown.reweight(&start.topdown, w);
        self.cpi.reweight(&start.cpi, w);
        self.flops.reweight(&start.flops, w);
        self.events.reweight(&start.events, w);
    }

    fn tally(&self, swept_cycles: i64) -> WindowTally {
        let g = &self.topdown.gaps;
        WindowTally {
            weight: 1.0,
            cycles: swept_cycles as f64,
            cpi: self.cpi.stacks,
            gaps: [g.wrong_path, g.recovery, g.frontend, g.backend],
            fp_idle: self.flops.idle,
            topdown: self.topdown.tally(),
        }
    }
}

/// Sums over every execution that follow from each instruction's static facts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StaticSums {
    pub(crate) instructions: u64,
    pub(crate) slots_retired: u64,
    pub(crate) microcode_slots: u64,
    pub(crate) uops_executed: u64,
    pub(crate) divides: u64,
    pub(crate) divide_latency: f64,
    pub(crate) fp_scalar: u64,
    pub(crate) fp_vector: u64,
    pub(crate) mispredicts: u64,
}

impl StaticSums {
    /// `n` executions of an instruction with facts `f`.
    #[inline]
    pub(crate) fn add(&mut self, f: &StaticFacts, n: u64) {
        let fused = f.fused as u64;
        self.instructions += n;
        self.slots_retired += n * fused;
        self.microcode_slots += n * fused * f.microcoded as u64;
        self.uops_executed += n * (f.load_uops as u64 + f.compute_uops as u64 + f.store_uops as u64);
        if f.is_divide {
            self.divides += n;
            self.divide_latency += n as f64 * f.op_latency as f64;
        }
        match f.fp {
            FpKind::None => {}
            FpKind::Vector => self.fp_vector += n,
            FpKind::Scalar => self.fp_scalar += n,
        }
    }
}
