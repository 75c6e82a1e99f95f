//! Hand-written stage-time streams for the views' unit tests: a few
//! instructions whose times are chosen so that every view's result can be
//! derived by hand (the derivations are in the tests).

use crate::facts::{FpKind, StaticFacts};
use crate::instruction_cost::InstructionCost;
use crate::params::ViewParams;
use crate::views::{AccountingResult, AccountingViews};
use bottlenose_timing::{CommitCause, DispatchCause, IssueCause, LatencyClass, Listener, StageDetails, StageTimes};

/// A 2-wide machine (dispatch and commit), 2 FP units of 256 bits with FMA,
/// a 4-cycle mispredict penalty.
pub(crate) fn params() -> ViewParams {
    ViewParams {
        width: 2.0,
        dispatch_gap: 0.5,
        commit_gap: 0.5,
        mispredict_penalty: 4.0,
        level_extra_latency: [0.0, 10.0, 30.0, 100.0],
        fp_units: 2.0,
        max_bits: 256.0,
        fma: true,
        few_ops: 2,
        mem_bw_occupancy: 28,
    }
}

/// One fused uop executed on a port.
pub(crate) fn plain() -> StaticFacts {
    StaticFacts { fused: 1, compute_uops: 1, ..Default::default() }
}

/// A scalar double-precision FP add (a quarter of a 256-bit vector, 1 flop).
pub(crate) fn scalar_fp_add() -> StaticFacts {
    StaticFacts { fused: 1, compute_uops: 1, fp: FpKind::Scalar, flops: 1, width: 0.25, op_latency: 3.0, ..Default::default() }
}

/// A load alone (no compute part).
pub(crate) fn load() -> StaticFacts {
    StaticFacts { fused: 1, load_uops: 1, ..Default::default() }
}

/// An instruction of one uop whose dispatch slot is `slot` (after the previous
/// slot end `previous_end`, with no resteer), issued at `issue` with its
/// operands ready then, result at `ready`, committed at `commit` in commit slot `commit_slot`.
pub(crate) fn step(previous_end: f64, slot: f64, issue: f64, ready: f64, commit: f64, commit_slot: f64) -> (StageTimes, StageDetails) {
    let times = StageTimes {
        dispatch: slot.floor(),
        issue,
        ready,
        complete: ready,
        commit,
        dispatch_cause: DispatchCause::Width,
        issue_cause: IssueCause::Dispatch,
        commit_cause: CommitCause::Complete,
        mispredicted: false,
    };
    let details = StageDetails {
        slot,
        resteer: previous_end,
        load_start: slot.floor(),
        load_done: slot.floor(),
        operands: issue,
        wait_from: issue,
        penalty_from: ready,
        commit_slot,
        self_class: LatencyClass::Short,
        wait_class: LatencyClass::Short,
        ..Default::default()
    };
    (times, details)
}

/// Runs the accounting views over `stream` (static instruction index, times)
/// and closes the run at `clocks` cycles.
pub(crate) fn run(facts: Vec<StaticFacts>, stream: &[(usize, StageTimes, StageDetails)], clocks: f64) -> AccountingResult {
    let mut views = AccountingViews::new(params(), facts);
    let mut cost = InstructionCost::new();
    for (i, t, d) in stream {
        cost.on_instruction(*i, t);
        views.on_detailed(*i, t, d);
    }
    views.finish(clocks, &cost, &[])
}

/// The first stream: a plain instruction, then a scalar FP add that the
/// frontend delivers 2 cycles late (an instruction-cache miss) and that waits
/// a cycle for a port; the run ends at cycle 5.
///
/// * i0: slot 0 (cycle 0), issues at 0, result at 1, commits at 1 (commit slot 1.0).
/// * i1: the previous slot ends at 0.5; a 2-cycle fetch stall puts its slot at
///   2.5 (cycle 2). Operands ready at 2, it issues at 3 (a port wait), result
///   at 4, commits at 4 (commit slot 4.0).
pub(crate) fn frontend_stall() -> (Vec<StaticFacts>, Vec<(usize, StageTimes, StageDetails)>, f64) {
    let (t0, d0) = step(0.0, 0.0, 0.0, 1.0, 1.0, 1.0);
    let (t1, mut d1) = step(0.5, 2.5, 3.0, 4.0, 4.0, 4.0);
    d1.fetch_stall = 2.0;
    d1.operands = 2.0;
    d1.wait_from = 2.0;
    (vec![plain(), scalar_fp_add()], vec![(0, t0, d0), (1, t1, d1)], 5.0)
}

/// The second stream: a mispredicted branch, then the instruction after it.
///
/// * i0: slot 0, issues at 0, resolves at 1, commits at 1; mispredicted.
/// * i1: the frontend resteers at 1 + 4 (the penalty) = 5: its slot is 5.0.
///   From the previous slot end (0.5) to the resolution (1) the wrong path
///   dispatched (0.5 cycles, the ROB had room). Issues at 5, result at 6,
///   commits at 6. The run ends at cycle 7.
pub(crate) fn mispredict() -> (Vec<StaticFacts>, Vec<(usize, StageTimes, StageDetails)>, f64) {
    let (mut t0, d0) = step(0.0, 0.0, 0.0, 1.0, 1.0, 1.0);
    t0.mispredicted = true;
    let (mut t1, mut d1) = step(0.5, 5.0, 5.0, 6.0, 6.0, 6.0);
    t1.dispatch_cause = DispatchCause::Mispredict;
    d1.resteer = 5.0;
    d1.wrong_path = 0.5;
    let branch = StaticFacts { branch: true, ..plain() };
    (vec![branch, plain()], vec![(0, t0, d0), (1, t1, d1)], 7.0)
}

/// The third stream: one load that misses to DRAM.
///
/// * i0: slot 0; the load starts at 0 and its data returns at 10 (served by
///   DRAM; an L1 hit would have returned at 4, so its penalty runs from 4 to
///   10); result at 10, commits at 10 (commit slot 10.0). The run ends at cycle 11.
pub(crate) fn dram_load() -> (Vec<StaticFacts>, Vec<(usize, StageTimes, StageDetails)>, f64) {
    let (t0, mut d0) = step(0.0, 0.0, 0.0, 10.0, 10.0, 10.0);
    d0.load_start = 0.0;
    d0.load_done = 10.0;
    d0.load_level = 3;
    d0.self_class = LatencyClass::Dram;
    d0.penalty_from = 4.0;
    (vec![load()], vec![(0, t0, d0)], 11.0)
}

/// `a` and `b` agree to rounding.
pub(crate) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}
