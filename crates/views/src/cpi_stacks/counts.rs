//! The CPI stacks' rules on the shared picture: lost dispatch slots by the
//! cause of each part of a dispatch gap, lost commit slots by the ROB head's
//! wait, lost issue slots per cycle by the oldest waiting instruction (or why
//! dispatch stalled); and at the end the base and Eyerman's carry.

use super::{Component, CpiStacks, NCOMP};
use crate::picture::sweep::{Cycles, SweepConstants};
use crate::picture::{CommitGap, DispatchGap};
use crate::time::{fmax, fmin, EPS};

const DISPATCH: usize = 0;
const ISSUE: usize = 1;
const COMMIT: usize = 2;

/// Stall cycles per component at dispatch, issue and commit (the base is computed at the end).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CpiCounts {
    pub(crate) stacks: [[f64; NCOMP]; 3],
}

impl Default for CpiCounts {
    fn default() -> Self {
        CpiCounts { stacks: [[0.0; NCOMP]; 3] }
    }
}

impl CpiCounts {
    /// `cycles` of dispatch slots lost to `c`.
    #[inline]
    pub(crate) fn dispatch_lost(&mut self, c: Component, cycles: f64) {
        self.stacks[DISPATCH][c as usize] += cycles;
    }

    /// `cycles` of commit slots lost to `c`.
    #[inline]
    pub(crate) fn commit_lost(&mut self, c: Component, cycles: f64) {
        self.stacks[COMMIT][c as usize] += cycles;
    }

    /// The lost commit slots before an instruction (`gap`), whose own dispatch gap was `dispatch`.
    #[inline]
    pub(crate) fn commit_gap(&mut self, gap: &CommitGap, dispatch: &DispatchGap) {
        let c = &mut self.stacks[COMMIT];
        let (start, end, dispatched) = (gap.start, gap.end, gap.dispatched);
        // the ROB was empty until the instruction dispatched: its own dispatch gap
        if dispatched > start {
            let d = dispatch;
            // the part of [from, to) in the commit gap before the dispatch
            let part = |from: f64, to: f64| fmax(fmin(to, dispatched) - fmax(from, start), 0.0);
            c[Component::Bpred as usize] += part(d.previous_end, d.resteer) + part(d.resteer, d.btb_end);
            c[Component::Icache as usize] += part(d.btb_end, d.fetch_end);
            c[if d.store_buffer { Component::DcacheStores } else { Component::Other } as usize] += part(d.fetch_end, d.slot);
            c[Component::Other as usize] += part(f64::MIN, d.previous_end);
        }
        // then it waited for its own result: dependence, its penalty, dependence
        let waits_from = fmax(dispatched, start);
        c[Component::Dependence as usize] += (gap.penalty_from - waits_from) + (end - gap.penalty_end);
        c[gap.penalty as usize] += gap.penalty_end - gap.penalty_from;
    }

    pub(crate) fn add(&mut self, o: &CpiCounts) {
        for (a, b) in self.stacks.iter_mut().zip(&o.stacks) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
    }

    /// `start + w · (self - start)` (see `crate::sampled`).
    pub(crate) fn reweight(&mut self, start: &CpiCounts, w: f64) {
        for (x, s) in self.stacks.iter_mut().zip(&start.stacks) {
            x.iter_mut().zip(s).for_each(|(x, s)| *x = s + (*x - s) * w);
        }
    }

    /// Scales windows to a run: every stall component by `per_cycle` (the
    /// dispatch stack's base is exact; what its stalls miss is left unattributed).
    pub(crate) fn scale_to_run(&mut self, per_cycle: f64) {
        let [dispatch, issue, commit] = &mut self.stacks;
        issue.iter_mut().chain(commit.iter_mut()).for_each(|v| *v *= per_cycle);
        dispatch[1..].iter_mut().for_each(|v| *v *= per_cycle);
    }

    /// The stacks of a run of `clocks` cycles that retired `slots` fused uops
    /// (`instructions` instructions) at `width` slots per cycle, with commit
    /// slots of `commit_gap` cycles; `issue_carry`: issue slots still carried
    /// at the end.
    pub(crate) fn finish(&self, clocks: f64, slots: f64, instructions: u64, width: f64, commit_gap: f64, issue_carry: f64) -> CpiStacks {
        let base = slots / width;
        let mut cpi = self.stacks;
        cpi[DISPATCH][0] = base;
        cpi[ISSUE][0] = (slots - issue_carry) / width;
        // commit slots are 1/commit width: a wider commit stage's excess goes to
        // the lost slots after it (Eyerman's carry), here spread over them evenly
        let commit_base = slots * commit_gap;
        let stalls: f64 = cpi[COMMIT][1..].iter().sum();
        if stalls > 0.0 && (commit_base - base).abs() > EPS {
            let f = ((stalls + commit_base - base) / stalls).max(0.0);
            cpi[COMMIT][1..].iter_mut().for_each(|v| *v *= f);
        }
        cpi[COMMIT][0] = base;
        // what no rule attributed (rounding of the carries, the drain at the very
        // end, and for sampled views the windows' error against the whole run)
        // is shown as such, never folded into a component
        for stack in &mut cpi {
            let total: f64 = stack[..Component::Unattributed as usize].iter().sum();
            stack[Component::Unattributed as usize] = clocks - total;
        }
        CpiStacks::new(clocks, instructions, width, &cpi)
    }
}

/// Issue slots carried to the next cycle: more fused uops issued in a cycle
/// than the width (Eyerman's carry), drained one cycle at a time.
pub(crate) type IssueCarry = f64;

/// The issue stack's running sum during one sweep: the current blame and what
/// it has collected since it took over.
pub(crate) struct IssueSweep {
    blame: Option<Component>,
    sum: f64,
}

impl IssueSweep {
    pub(crate) fn new() -> Self {
        IssueSweep { blame: None, sum: 0.0 }
    }

    /// Issue stage (Eyerman Table II, column 2): the slots of a run of cycles
    /// not used by fused uops starting execution go to the oldest waiting
    /// instruction; with an empty scheduler, to why dispatch stalled.
    #[inline(always)]
    pub(crate) fn count(&mut self, run: &Cycles, k: &SweepConstants, carry: &mut IssueCarry, counts: &mut CpiCounts) {
        let blame = run.oldest_waiting.or(run.dispatch_stall).unwrap_or(Component::Other);
        let n = run.cycles;
        let lost = if run.fused_issued == 0 && *carry == 0.0 {
            n as f64
        } else {
            // a carry drains over the following cycles, one at a time
            let avail = run.fused_issued as f64 + *carry;
            let used = fmin(avail, k.width);
            *carry = avail - used;
            let mut lost = 1.0 - used * k.inverse_width;
            let mut rest = n - 1;
            while rest > 0 && *carry > 0.0 {
                let used = fmin(*carry, k.width);
                *carry -= used;
                lost += 1.0 - used * k.inverse_width;
                rest -= 1;
            }
            lost + rest as f64
        };
        if Some(blame) != self.blame {
            self.flush(counts);
            self.blame = Some(blame);
            self.sum = 0.0;
        }
        self.sum += lost;
    }

    #[inline]
    pub(crate) fn flush(&self, counts: &mut CpiCounts) {
        if let Some(b) = self.blame {
            counts.stacks[ISSUE][b as usize] += self.sum;
        }
    }
}
