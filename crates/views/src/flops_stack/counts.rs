//! The FLOPS stack's rule on the shared picture: per cycle, the FP units no
//! FP instruction issued on are idle, charged to the oldest waiting FP
//! instruction's wait, or with none waiting to a stalled frontend or the
//! instruction mix (see the module above).

use super::{IdleFp, IDLE_CAUSES};
use crate::cpi_stacks::Component;
use crate::picture::sweep::{Cycles, SweepConstants};
use crate::time::fmin;

/// Idle FP-unit cycles by cause, indexed by [`IdleFp`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct FlopsCounts {
    pub(crate) idle: [f64; IDLE_CAUSES],
}

impl FlopsCounts {
    pub(crate) fn add(&mut self, o: &FlopsCounts) {
        self.idle.iter_mut().zip(&o.idle).for_each(|(x, y)| *x += y);
    }

    /// `start + w · (self - start)` (see `crate::sampled`).
    pub(crate) fn reweight(&mut self, start: &FlopsCounts, w: f64) {
        self.idle.iter_mut().zip(&start.idle).for_each(|(x, s)| *x = s + (*x - s) * w);
    }

    pub(crate) fn scale_to_run(&mut self, per_cycle: f64) {
        self.idle.iter_mut().for_each(|v| *v *= per_cycle);
    }
}

/// FP instructions issued beyond the FP units in a cycle, carried to the next ones.
pub(crate) type FpUnitCarry = f64;

/// The running sum of idle unit-cycles during one sweep: the current cause and
/// what it has collected since it took over.
pub(crate) struct IdleSweep {
    why: Option<IdleFp>,
    sum: f64,
}

impl IdleSweep {
    pub(crate) fn new() -> Self {
        IdleSweep { why: None, sum: 0.0 }
    }

    /// Idle FP-unit cycles of a run of cycles (Table III).
    #[inline(always)]
    pub(crate) fn count(&mut self, run: &Cycles, k: &SweepConstants, carry: &mut FpUnitCarry, counts: &mut FlopsCounts) {
        let units = k.fp_units;
        let n = run.cycles;
        let idle = if run.fp_issued == 0 && *carry == 0.0 {
            n as f64 * units
        } else {
            let mut idle = 0.0;
            let mut c = run.fp_issued as f64 + *carry;
            for _ in 0..n.min(4) {
                let used = fmin(c, units);
                c -= used;
                idle += units - used;
            }
            *carry = c;
            idle + (n - n.min(4)) as f64 * units
        };
        // no FP instruction waiting: a stalled frontend (as the issue CPI stack
        // says for an empty scheduler) or else the instruction mix
        let why = match (run.fp_waiting, run.oldest_waiting, run.dispatch_stall) {
            (IdleFp::NonFp, None, Some(Component::Icache)) => IdleFp::Icache,
            (IdleFp::NonFp, None, Some(Component::Bpred)) => IdleFp::Bpred,
            (v, _, _) => v,
        };
        if Some(why) != self.why {
            self.flush(counts);
            self.why = Some(why);
            self.sum = 0.0;
        }
        self.sum += idle;
    }

    #[inline]
    pub(crate) fn flush(&self, counts: &mut FlopsCounts) {
        if let Some(w) = self.why {
            counts.idle[w as usize] += self.sum;
        }
    }
}
