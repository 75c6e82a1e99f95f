//! The shared picture of one timing run that every accounting view counts
//! on: the per-cycle state of the instruction-driven model, rebuilt from each
//! instruction's [`StageTimes`] and [`StageDetails`]. The picture says what
//! happened (a dispatch gap and its parts, a commit gap, a run of cycles and
//! what was in flight, who waited); the views (`crate::topdown`,
//! `crate::cpi_stacks`, `crate::flops_stack`, `crate::cycle_accounting`) say
//! what they count of it. The per-cycle sweep is in [`sweep`]. The work is
//! per instruction wherever the stage is in order, and per *event cycle*
//! otherwise:
//!
//! * **In-order stages are intervals.** Dispatch and commit are in order with
//!   fractional slot times (`StageDetails::slot`, `commit_slot`; slot k of cycle
//!   c is c + k/W). The lost slots between consecutive instructions are exactly
//!   the gap between one instruction's last slot and the next one's first. At
//!   dispatch the model tells why: before `resteer` it waited for a
//!   mispredicted branch, then `fetch_stall` (with its BTB part) is the
//!   frontend, the rest is the backend constraint (`dispatch_cause`). At
//!   commit the instruction after the gap was the ROB head all along: the ROB
//!   was empty until it dispatched (charged to its own dispatch delay), then it
//!   waited for its own result.
//! * **The ROB head over time** ([`rob_heads`]): a backend dispatch gap is
//!   charged to the head in the middle of the gap.
//! * **Per-cycle ring.** What only exists per cycle (uops executed, loads in
//!   flight per level, divider busy, uops issued, the oldest instruction
//!   waiting in the scheduler, the dispatch-stall reason) is booked into a ring
//!   indexed by cycle — counts and difference arrays, blame as change-points —
//!   and swept once the current dispatch slot has passed (no later
//!   instruction dispatches or issues before it). The sweep skips runs of
//!   cycles in which nothing was booked in O(1) per run. Cycles with ≥ 1, 2, 3
//!   uops executed are counted when a cycle's count crosses 1, 2, 3.
//! * **Blame.** The oldest instruction waiting in the scheduler at cycle c owns
//!   `[max(dispatch_i, older issues), issue_i)` (dispatch is in order, so older
//!   waiting intervals cover a prefix of i's). An instruction is blamed for a
//!   penalty only while the penalty runs (`penalty_from` .. data return for a
//!   miss, issue + 1 .. ready for a long operation; `wait_from` .. operands
//!   ready for what a waiting instruction waits for); before that it is plain
//!   dependence.
//!
//! Wrong path: the trace is the correct path. After a mispredicted branch, the
//! slots from its dispatch until it resolves (`ready`) count as wrong-path uops
//! issued but not retired, as far as the ROB has room for them (the model
//! reports that span, `StageDetails::wrong_path`; after it dispatch waits behind
//! the ROB head, a backend stall), and from
//! resolution until the resteer (the mispredict penalty) as recovery bubbles
//! (DESIGN.md). Wrong-path uops do not execute in
//! the model, so they use no ports and Levinthal's Non_Retired is 0.


use crate::counts::ViewCounts;
use crate::cpi_stacks::Component;
use crate::facts::{FpKind, StaticFacts};
use crate::flops_stack::IdleFp;
use crate::params::ViewParams;
use crate::time::{ceil_i, fclamp, floor_i, fmax, fmin, EPS};
use bottlenose_timing::{DispatchCause, LatencyClass, StageDetails, StageTimes};
use ring::{Lanes, Mark, Ring, LOAD_LANES};
use rob_heads::RobHeads;
use sweep::{sweep, SweepConstants, SweepState};

pub(crate) mod ring;
mod rob_heads;
pub(crate) mod sweep;

/// What booking one execution of a static instruction needs: one small record
/// per instruction, so that an execution touches one cache line of them.
#[derive(Clone, Copy, Default)]
pub(crate) struct Booking {
    /// Added to the issue cycle's [`ring::Cell::counts`].
    issue_counts: u32,
    fused: u16,
    divider_cycles: u16,
    load_uops: u8,
    store_uops: u8,
    is_divide: bool,
    is_fp: bool,
}

impl Booking {
    pub(crate) fn new(f: &StaticFacts) -> Self {
        let is_fp = f.fp != FpKind::None;
        Booking {
            issue_counts: f.compute_uops as u32 * Lanes::OPS + is_fp as u32 * Lanes::FP + (f.fused as u32).min(0xffff) * Lanes::ISSUED,
            fused: f.fused,
            divider_cycles: f.divider_cycles,
            load_uops: f.load_uops,
            store_uops: f.store_uops,
            is_divide: f.is_divide,
            is_fp,
        }
    }
}

/// The lost dispatch slots before an instruction, `[previous_end, slot)`, split
/// at their causes: waiting for a mispredicted branch until `resteer`, then the
/// frontend (its BTB part until `btb_end`, the instruction cache until
/// `fetch_end`), then the backend (a full store buffer, or behind the ROB head).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DispatchGap {
    pub(crate) previous_end: f64,
    pub(crate) resteer: f64,
    pub(crate) btb_end: f64,
    pub(crate) fetch_end: f64,
    pub(crate) slot: f64,
    pub(crate) store_buffer: bool,
}

impl DispatchGap {
    /// The parts of the gap before `slot` (after the previous slot end `previous_end`).
    #[inline(always)]
    pub(crate) fn new(previous_end: f64, t: &StageTimes, d: &StageDetails) -> Self {
        let slot = d.slot;
        let mut g = DispatchGap { previous_end, resteer: previous_end, btb_end: previous_end, fetch_end: previous_end, slot, store_buffer: false };
        if slot > previous_end + EPS {
            g.resteer = fclamp(d.resteer, previous_end, slot);
            g.fetch_end = fmin(g.resteer + d.fetch_stall as f64, slot);
            g.btb_end = fmin(g.resteer + d.btb_stall as f64, g.fetch_end);
            g.store_buffer = t.dispatch_cause == DispatchCause::StoreBuffer;
        }
        g
    }
}

/// The lost commit slots before an instruction, `[start, end)`: it was the ROB
/// head throughout. The ROB was empty until it dispatched (`dispatched`: its
/// own dispatch gap), then it waited for its own result: dependence until
/// `penalty_from`, its `penalty` until `penalty_end`, dependence again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CommitGap {
    pub(crate) start: f64,
    pub(crate) end: f64,
    pub(crate) dispatched: f64,
    pub(crate) penalty_from: f64,
    pub(crate) penalty_end: f64,
    pub(crate) penalty: Component,
}

/// The per-cycle picture and what the views counted on it so far.
pub(crate) struct Picture {
    ring: Ring,
    /// First cycle not swept yet.
    pub(crate) fin: i64,
    /// End of the last dispatch slot and of the last commit slot.
    pub(crate) slot_end: f64,
    commit_end: f64,
    heads: RobHeads,
    /// First cycle not yet owned by an older waiting instruction (scheduler / FP).
    waiting_from: i64,
    fp_waiting_from: i64,
    constants: SweepConstants,
    pub(crate) sweep: SweepState,
    /// What the views count (sampled views swap it with scratch counts).
    pub(crate) counts: ViewCounts,
    /// Instructions booked (sampled views count the windows' share with it).
    pub(crate) booked: u64,
    /// The next booked instruction starts after a stretch nobody looked at.
    pub(crate) restart_pending: bool,
}

impl Picture {
    pub(crate) fn new(p: &ViewParams) -> Self {
        Picture {
            ring: Ring::new(1024),
            fin: 0,
            slot_end: 0.0,
            commit_end: 0.0,
            heads: RobHeads::new(),
            waiting_from: 0,
            fp_waiting_from: 0,
            constants: SweepConstants::new(p),
            sweep: SweepState::default(),
            counts: ViewCounts::new(),
            booked: 0,
            restart_pending: false,
        }
    }

    /// Starts booking again after a skipped stretch: the ring and the timelines
    /// begin at this instruction (the gaps before it are nobody's).
    #[cold]
    fn restart(&mut self, d: &StageDetails) {
        self.restart_pending = false;
        self.ring.clear();
        self.sweep = SweepState::default();
        let c = floor_i(d.slot);
        self.fin = c;
        self.waiting_from = c;
        self.fp_waiting_from = c;
        self.slot_end = d.slot;
        self.commit_end = d.commit_slot;
        self.heads.restart(d.slot);
    }

    /// Marks the dispatch-stall reason from cycle `floor(at)` on.
    #[inline]
    fn mark_dispatch_stall(&mut self, at: f64, blame: Component) {
        self.ring.cell(floor_i(at)).dispatch_stall = Mark::blame(Some(blame));
    }

    /// Charges `[from, to)` of dispatch to the ROB head in the middle of it (for
    /// the issue stack too: the dispatch-stall reason of those cycles).
    fn charge_heads(&mut self, from: f64, to: f64) {
        let blame = self.heads.blame_at(0.5 * (from + to));
        self.counts.cpi.dispatch_lost(blame, to - from);
        self.mark_dispatch_stall(from, blame);
    }

    /// The lost dispatch slots between the previous instruction and this one.
    fn dispatch_gap(&mut self, g: &DispatchGap, wrong_path: f64, mispredict_penalty: f64) {
        let DispatchGap { previous_end, resteer, btb_end, fetch_end, slot, store_buffer } = *g;
        if resteer > previous_end {
            let resolved = fmax(resteer - mispredict_penalty, previous_end);
            self.counts.topdown.mispredict(wrong_path, resteer - resolved);
            self.counts.cpi.dispatch_lost(Component::Bpred, wrong_path + (resteer - resolved));
            self.mark_dispatch_stall(previous_end, Component::Bpred);
            if resolved > previous_end + wrong_path + EPS {
                // the wrong path filled the ROB: dispatch waited behind its head
                self.counts.topdown.backend(resolved - (previous_end + wrong_path));
                self.charge_heads(previous_end + wrong_path, resolved);
                self.mark_dispatch_stall(resolved, Component::Bpred);
            }
        }
        if fetch_end > resteer {
            self.counts.cpi.dispatch_lost(Component::Bpred, btb_end - resteer);
            self.counts.cpi.dispatch_lost(Component::Icache, fetch_end - btb_end);
            self.counts.topdown.frontend(resteer, fetch_end);
            if btb_end > resteer {
                self.mark_dispatch_stall(resteer, Component::Bpred);
            }
            if fetch_end > btb_end {
                self.mark_dispatch_stall(btb_end, Component::Icache);
            }
        }
        if slot > fetch_end {
            self.counts.topdown.backend(slot - fetch_end);
            if store_buffer {
                self.counts.cpi.dispatch_lost(Component::DcacheStores, slot - fetch_end);
                self.mark_dispatch_stall(fetch_end, Component::DcacheStores);
            } else {
                self.charge_heads(fetch_end, slot);
            }
        }
        self.ring.cell(floor_i(slot)).dispatch_stall = Mark::blame(None);
    }

    /// Sweeps every cycle before `to`.
    #[inline(never)]
    pub(crate) fn sweep_to(&mut self, to: i64) {
        sweep(&mut self.ring, self.fin, to, &self.constants, &mut self.sweep, &mut self.counts);
        self.fin = to;
    }

    /// Sweeps every cycle before the current dispatch point: no later instruction books into them.
    pub(crate) fn sweep_to_dispatch(&mut self) {
        let bound = floor_i(self.slot_end);
        if bound > self.fin {
            self.sweep_to(bound);
        }
    }

    /// The end of an exactly counted run: the machine drains after the last
    /// dispatch and commit, and every cycle is swept. `booking`: whether
    /// anything was booked (else there are no cycles to sweep, nor a ring to grow).
    pub(crate) fn close_run(&mut self, clocks: f64, booking: bool) {
        let end = clocks.max(self.slot_end);
        let last = ceil_i(end);
        if !booking {
            self.fin = last;
        }
        self.ring.reserve(self.fin, last + 2);
        // dispatch tail: the machine drains after the last dispatch
        if end > self.slot_end + EPS {
            let t = self.slot_end;
            self.counts.topdown.backend(end - t);
            self.charge_heads(t, end);
        }
        // commit tail: the part of the last cycle after the last commit
        if end > self.commit_end {
            self.counts.cpi.commit_lost(Component::Other, end - self.commit_end);
        }
        if last > self.fin {
            self.sweep_to(last);
        }
    }

    /// Everything one instruction adds to the picture and the views.
    #[inline(never)]
    pub(crate) fn book(&mut self, f: Booking, t: &StageTimes, d: &StageDetails, p: &ViewParams) {
        if self.restart_pending {
            self.restart(d);
        }
        self.booked += 1;
        let previous_end = self.slot_end;
        // sweep in batches: cycles before the dispatch point are final
        let bound = floor_i(previous_end);
        if bound > self.fin + 64 {
            self.sweep_to(bound);
        }
        let commit_c = floor_i(t.commit);
        let issue_c = floor_i(t.issue);
        let dispatch_c = floor_i(t.dispatch);
        self.ring.reserve(self.fin, commit_c + 2);
        let fused = f.fused;

        // ---- dispatch: the lost slots before this instruction -----------------
        let gap = DispatchGap::new(previous_end, t, d);
        if d.slot > previous_end + EPS {
            self.dispatch_gap(&gap, d.wrong_path, p.mispredict_penalty);
        }
        self.slot_end = d.slot + fused as f64 * p.dispatch_gap;

        // ---- commit: the lost commit slots and the ROB-head timeline ----------
        if fused > 0 {
            let (start, end) = (self.commit_end, d.commit_slot);
            if end > start + EPS {
                let dispatched = fmin(d.slot, end);
                let waits_from = fmax(dispatched, start);
                let penalty_from = fclamp(d.penalty_from, waits_from, end);
                let own_miss = matches!(d.self_class, LatencyClass::L2 | LatencyClass::L3 | LatencyClass::Dram);
                let penalty_end = fclamp(if own_miss { d.load_done } else { t.ready }, penalty_from, end);
                let penalty = Component::of_latency(d.self_class);
                let commit = CommitGap { start, end, dispatched, penalty_from, penalty_end, penalty };
                self.counts.cpi.commit_gap(&commit, &gap);
                self.heads.push_wait(waits_from, penalty_from, penalty_end, penalty, self.slot_end);
            }
            self.commit_end = fmax(end, start) + fused as f64 * p.commit_gap;
        }

        // ---- execution: uops per cycle, loads in flight, issue slots -----------
        if f.load_uops > 0 {
            let load_c = floor_i(d.load_start);
            let done_c = ceil_i(d.load_done - EPS).max(load_c + 1);
            self.ring.reserve(self.fin, done_c + 1);
            let level = d.load_level.min(3) as usize;
            let e = self.ring.cell(load_c);
            e.counts = e.counts.wrapping_add(f.load_uops as u32 * Lanes::OPS);
            e.d_loads += LOAD_LANES[level];
            self.ring.cell(done_c).d_loads -= LOAD_LANES[level];
            self.counts.events.load(level);
        }
        {
            let e = self.ring.cell(issue_c);
            e.counts = e.counts.wrapping_add(f.issue_counts);
        }
        if f.store_uops > 0 {
            let e = self.ring.cell(floor_i(t.complete - 1.0).max(dispatch_c));
            e.counts = e.counts.wrapping_add(f.store_uops as u32 * Lanes::OPS);
        }
        if f.is_divide {
            let end = issue_c + f.divider_cycles as i64;
            self.ring.reserve(self.fin, end + 1);
            self.ring.cell(issue_c).d_divider += 1;
            self.ring.cell(end).d_divider -= 1;
        }

        // ---- issue stage: the oldest waiting instruction in the scheduler ------
        // owns [max(dispatch, older issues), issue): dependence until its operand's
        // penalty starts, then the penalty's class, then the port wait
        let waits_on_load = matches!(d.wait_class, LatencyClass::L1 | LatencyClass::L2 | LatencyClass::L3 | LatencyClass::Dram | LatencyClass::Forward);
        let a = dispatch_c.max(self.waiting_from);
        if issue_c > a {
            let op = floor_i(d.operands).max(a).min(issue_c);
            let wf = floor_i(d.wait_from).max(a).min(op);
            self.ring.cell(a).waiting = Mark::waiting(Component::Dependence, waits_on_load);
            self.ring.cell(wf).waiting = Mark::waiting(Component::of_latency(d.wait_class), waits_on_load);
            self.ring.cell(op).waiting = Mark::waiting(Component::Structural, false);
            self.ring.cell(issue_c).waiting = Mark::blame(None);
            self.waiting_from = issue_c;
        }

        // ---- frontend events (cycle accounting) ---------------------------------
        if d.fetch_stall > 0.0 {
            self.counts.events.fetch_stall(d.fetch_stall, d.btb_stall);
        }

        // ---- the oldest waiting FP instruction (FLOPS stack) -------------------
        if f.is_fp {
            let a = dispatch_c.max(self.fp_waiting_from);
            if issue_c > a {
                let op = floor_i(d.operands).max(a).min(issue_c);
                let waited = if waits_on_load { IdleFp::Memory } else { IdleFp::Dependence };
                self.ring.cell(a).fp_waiting = Mark::idle_fp(waited);
                self.ring.cell(op).fp_waiting = Mark::idle_fp(IdleFp::NonVfp);
                self.ring.cell(issue_c).fp_waiting = Mark::idle_fp(IdleFp::NonFp);
                self.fp_waiting_from = issue_c;
            }
        }
    }
}
