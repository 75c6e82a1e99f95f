//! The FLOPS stack (Eyerman et al., Table III) at the issue stage, in flops
//! per cycle; it sums to the machine's peak, `fp_units × (max_bits / 64) × 2`
//! (double precision, ×2 for FMA when the machine has it).
//!
//! Accounting unit: one FP unit for one cycle. Each FP arithmetic instruction
//! that issues takes one unit-cycle, split into `base` (the flops it does:
//! FMA factor × share of the widest vector it fills), `non_fma` (what an FMA
//! of the same width would have added) and `narrow` (the lanes it leaves
//! unused: a scalar op, or a vector narrower than the machine's widest).
//! Table III's `mask` component is that unused width (m < v); it is named
//! `narrow` here because it is the instruction's width, not an AVX-512 mask: a
//! masked operation counts as full (the mask's value is not known).
//!
//! Issue slots of the FP units left idle in a cycle are charged, per Table
//! III, to the oldest FP instruction waiting in the scheduler: waiting for a
//! port (taken by something else) → `non_vfp`, for a load (its own memory
//! operand or a producer load) → `memory`, for another operand →
//! `dependence`. With no FP instruction waiting, Table III's `frontend` is
//! split three ways, as the paper suggests: the frontend was stalled on an
//! instruction-cache miss (`icache`) or a branch misprediction (`bpred`), by
//! the same rule as the issue-stage CPI stack (an empty scheduler is charged
//! to why dispatch stalled); otherwise instructions came but none was FP:
//! `non_fp`, the instruction mix. The rule is the same in every cycle, from
//! the first (it does not wait for a first FP instruction), so a stretch of
//! the run is charged alike whatever ran before it: a sampled run's windows
//! count what the exact run counts there. `non_fp` is not a frontend stall: Top-Down's Frontend_Bound
//! can be near zero while `non_fp` is most of the stack. More FP instructions
//! issuing in a cycle than there are FP units (a port layout wider than
//! `fp_units`) carry over to the next cycle.
//!
//! Flops are counted in double-precision equivalents: a single-precision lane
//! is half a double lane of the peak.

use crate::facts::StaticFacts;
use crate::params::ViewParams;

mod counts;

pub(crate) use counts::{FlopsCounts, FpUnitCarry, IdleSweep};
pub use bottlenose_report_model::views::{FlopsStack, FLOPS_COMPONENTS};

/// Why the FP units were idle (Table III's lines 9-18, its `frontend` split in three).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum IdleFp {
    /// No FP instruction waiting and the frontend not stalled: the instruction mix.
    #[default]
    NonFp = 0,
    /// An FP instruction waits for a port taken by a non-FP instruction.
    NonVfp = 1,
    /// An FP instruction waits for a load.
    Memory = 2,
    /// An FP instruction waits for another operand.
    Dependence = 3,
    /// No FP instruction waiting: the frontend is stalled on an icache/ITLB miss.
    Icache = 4,
    /// No FP instruction waiting: the frontend is recovering from a misprediction.
    Bpred = 5,
}

pub const IDLE_CAUSES: usize = 6;

impl IdleFp {
    /// Every cause, indexed by its discriminant.
    pub const ALL: [IdleFp; IDLE_CAUSES] = [IdleFp::NonFp, IdleFp::NonVfp, IdleFp::Memory, IdleFp::Dependence, IdleFp::Icache, IdleFp::Bpred];

    /// The stack's component the cause is reported as (one of [`FLOPS_COMPONENTS`]).
    pub fn component(self) -> &'static str {
        match self {
            IdleFp::NonFp => "non_fp",
            IdleFp::NonVfp => "non_vfp",
            IdleFp::Memory => "memory",
            IdleFp::Dependence => "dependence",
            IdleFp::Icache => "icache",
            IdleFp::Bpred => "bpred",
        }
    }
}


/// The unit-cycles FP instructions took (from every execution, at the end).
#[derive(Debug, Clone, Default)]
pub(crate) struct FpIssue {
    pub issued: u64,
    pub flops: u64,
    pub base: f64,
    pub non_fma: f64,
    pub narrow: f64,
}

impl FpIssue {
    /// `n` issues of an FP instruction with facts `f`.
    #[inline]
    pub(crate) fn issue(&mut self, p: &ViewParams, f: &StaticFacts, n: u64) {
        let fmax = if p.fma { 2.0 } else { 1.0 };
        let a = if f.fma && p.fma { 2.0 } else { 1.0 };
        let w = f.width as f64;
        let k = n as f64;
        self.issued += n;
        self.flops += n * f.flops as u64;
        self.base += k * (a * w / fmax);
        self.non_fma += k * ((fmax - a) * w / fmax);
        self.narrow += k * (1.0 - w);
    }

    /// The stack of a run of `clocks` cycles, with the idle unit-cycles the sweep counted.
    pub(crate) fn finish(&self, p: &ViewParams, clocks: f64, idle: &FlopsCounts) -> FlopsStack {
        let fmax = if p.fma { 2.0 } else { 1.0 };
        let peak = p.fp_units * (p.max_bits / 64.0) * fmax;
        let total = p.fp_units * clocks;
        // what the sweep did not charge (cycles not swept, rounding) had no FP
        // instruction to issue
        let i = |c: IdleFp| idle.idle[c as usize];
        let known = self.base + self.non_fma + self.narrow + idle.idle.iter().sum::<f64>() - i(IdleFp::NonFp);
        let non_fp = (total - known).max(0.0);
        let sum = (known + non_fp).max(1e-12);
        let scale = peak / sum;
        let values = [
            self.base,
            self.non_fma,
            self.narrow,
            non_fp,
            i(IdleFp::Icache),
            i(IdleFp::Bpred),
            i(IdleFp::NonVfp),
            i(IdleFp::Memory),
            i(IdleFp::Dependence),
        ];
        FlopsStack {
            peak_flops_per_cycle: peak,
            flops_per_cycle: if clocks > 0.0 { self.flops as f64 / clocks } else { 0.0 },
            fp_instructions: self.issued,
            components: FLOPS_COMPONENTS.iter().zip(values).map(|(n, v)| (n.to_string(), v * scale)).collect(),
        }
    }
}

#[cfg(test)]
mod tests;
