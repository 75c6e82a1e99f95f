//! The per-cycle sweep: once no later instruction can book into a cycle, what
//! was booked into it (uops executed, loads in flight, change-points of blame)
//! becomes the state of that cycle ([`Cycles`]), which each view counts by its
//! own rule: Top-Down's event counts (`crate::topdown`), the issue CPI stack
//! (`crate::cpi_stacks`) and idle FP-unit cycles (`crate::flops_stack`).

use super::ring::{Cell, Lanes, LoadsInFlight, Ring};
use crate::counts::ViewCounts;
use crate::cpi_stacks::{Component, IssueCarry, IssueSweep};
use crate::flops_stack::{FpUnitCarry, IdleFp, IdleSweep};
use crate::params::ViewParams;
use crate::topdown::UopCycles;

/// Constants of the per-cycle sweep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SweepConstants {
    /// Dispatch slots per cycle and its inverse.
    pub(crate) width: f64,
    pub(crate) inverse_width: f64,
    /// Yasin's FEW: cycles with at most this many uops executed are execution stalls.
    pub(crate) few_uops: u8,
    /// DRAM loads in flight from which a cycle counts as bandwidth-bound (ExtMemOutstanding:cT).
    pub(crate) bandwidth_loads: u64,
    pub(crate) fp_units: f64,
}

impl SweepConstants {
    pub(crate) fn new(p: &ViewParams) -> Self {
        SweepConstants { width: p.width, inverse_width: 1.0 / p.width, few_uops: p.few_ops as u8, bandwidth_loads: p.mem_bw_occupancy as u64, fp_units: p.fp_units }
    }
}

/// State carried from cycle to cycle by the sweep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SweepState {
    pub(crate) in_flight: i64,
    pub(crate) divider: i32,
    /// Why the oldest instruction waiting in the scheduler waits (none waits: `None`),
    /// and whether it waits for a load's data.
    pub(crate) oldest_waiting: Option<Component>,
    pub(crate) waits_on_load: bool,
    /// Why dispatch stalls (`None`: it does not).
    pub(crate) dispatch_stall: Option<Component>,
    /// Why the FP units would be idle: the oldest waiting FP instruction's wait.
    pub(crate) fp_waiting: IdleFp,
    pub(crate) issue_carry: IssueCarry,
    pub(crate) fp_carry: FpUnitCarry,
}

/// A run of `cycles` cycles that share one state: the first had this cell's
/// counts, the others had nothing booked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cycles {
    pub(crate) cycles: i64,
    /// Uops executed, fused uops issued, FP instructions issued (in the first cycle).
    pub(crate) uops_executed: u8,
    pub(crate) fused_issued: u32,
    pub(crate) fp_issued: u8,
    pub(crate) in_flight: LoadsInFlight,
    pub(crate) divider_busy: bool,
    pub(crate) oldest_waiting: Option<Component>,
    pub(crate) waits_on_load: bool,
    pub(crate) dispatch_stall: Option<Component>,
    pub(crate) fp_waiting: IdleFp,
}

/// Sweeps cycles `from..to` of the ring (a free function, so that the compiler
/// knows the ring, the state and the counts do not alias). `k` cycles in a row
/// in which nothing was booked share one state and are counted at once. The
/// views' running sums are locals while the sweep runs (a memory accumulator
/// per cycle would serialize the loop).
pub(crate) fn sweep(ring: &mut Ring, from: i64, to: i64, k: &SweepConstants, st: &mut SweepState, counts: &mut ViewCounts) {
    let mut s = *st;
    let mask = ring.mask;
    let cells = &mut ring.cells[..];
    let mut uops = UopCycles::default();
    let mut issue = IssueSweep::new();
    let mut idle = IdleSweep::new();
    let mut c = from;
    while c < to {
        let slot = &mut cells[c as usize & mask];
        let e = *slot;
        // how many cycles share this state: this one, and the empty ones after it
        let mut n: i64 = 1;
        if e.is_empty() {
            while c + n < to && cells[(c + n) as usize & mask].is_empty() {
                n += 1;
            }
        } else {
            *slot = Cell::default();
            s.in_flight += e.d_loads;
            s.divider += e.d_divider as i32;
            if e.waiting.is_change() {
                s.oldest_waiting = e.waiting.component();
                s.waits_on_load = e.waiting.on_load();
            }
            if e.dispatch_stall.is_change() {
                s.dispatch_stall = e.dispatch_stall.component();
            }
            if e.fp_waiting.is_change() {
                s.fp_waiting = e.fp_waiting.idle_cause();
            }
        }
        let run = Cycles {
            cycles: n,
            uops_executed: Lanes::ops(e.counts),
            fused_issued: Lanes::issued(e.counts),
            fp_issued: Lanes::fp(e.counts),
            in_flight: LoadsInFlight(s.in_flight as u64),
            divider_busy: s.divider > 0,
            oldest_waiting: s.oldest_waiting,
            waits_on_load: s.waits_on_load,
            dispatch_stall: s.dispatch_stall,
            fp_waiting: s.fp_waiting,
        };
        uops.count(&run, k, &mut counts.topdown);
        issue.count(&run, k, &mut s.issue_carry, &mut counts.cpi);
        idle.count(&run, k, &mut s.fp_carry, &mut counts.flops);
        c += n;
    }
    issue.flush(&mut counts.cpi);
    idle.flush(&mut counts.flops);
    uops.flush(&mut counts.topdown);
    *st = s;
}
