//! The accounting views of one timing run: simulated Top-Down events (Yasin
//! §4 Table 1), CPI stacks at dispatch, issue and commit (Eyerman Table II),
//! the FLOPS stack (Eyerman Table III) and Levinthal's cycle accounting.
//!
//! They share one reconstruction of the per-cycle picture of the
//! instruction-driven model, which is why they are one listener. Dynamic runs
//! may count them on samples of the run ([`sampled`]); the per-cycle sweep is in
//! [`sweep`]. The work is
//! per instruction wherever the stage is in order, and per *event cycle*
//! otherwise:
//!
//! * **In-order stages are intervals.** Dispatch and commit are in order with
//!   fractional slot times (`StageTimes::slot`, `commit_slot`; slot k of cycle
//!   c is c + k/W). The lost slots between consecutive instructions are exactly
//!   the gap between one instruction's last slot and the next one's first. At
//!   dispatch the model tells why: before `resteer` it waited for a
//!   mispredicted branch, then `fetch_stall` (with its BTB part) is the
//!   frontend, the rest is the backend constraint (`dispatch_cause`). At
//!   commit the instruction after the gap was the ROB head all along: the ROB
//!   was empty until it dispatched (charged to its own dispatch delay), then it
//!   waited for its own result.
//! * **The ROB head over time** is kept as a list of (time, blame)
//!   change-points appended in commit order. A backend dispatch gap (full ROB,
//!   scheduler, load buffer) is charged to the head in the middle of the gap:
//!   a gap behind a full ROB ends when the head commits, so one head holds it
//!   nearly always, and the middle tells which part of that head's wait
//!   (dependence before its penalty, the penalty itself) the gap lies in.
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
//! reports that span, `StageTimes::wrong_path`; after it dispatch waits behind
//! the ROB head, a backend stall), and from
//! resolution until the resteer (the mispredict penalty) as recovery bubbles
//! (DESIGN.md). Wrong-path uops do not execute in
//! the model, so they use no ports and Levinthal's Non_Retired is 0.

use crate::cpi_stack::{CpiStacks, COMPONENTS, NCOMP};
use crate::cycle_accounting::{CycleAccounting, LevinthalCounters};
use crate::facts::{FpKind, SharedFacts, StaticFacts};
use crate::flops_stack::{FlopsCounters, FlopsStack, IdleFp};
use crate::instruction_cost::InstructionCost;
use crate::topdown::TopDownCounters;
use sampled::{Phase, Sample};
use sweep::{sweep, Sweep, SweepAcc, SweepParams};
use bottlenose_machine::Machine;
use bottlenose_timing::{BatchPart, CoreConfig, Details, DispatchCause, LatencyClass, Listener, StageTimes};

mod sampled;
mod sweep;

pub use sampled::{ViewsSampling, WindowTally};

const EPS: f64 = 1e-9;

// Blame labels = indices into `COMPONENTS` (0, base, is never a label: it means "none").
pub(crate) const NONE: u8 = 0;
pub(crate) const ICACHE: u8 = 1;
pub(crate) const BPRED: u8 = 2;
pub(crate) const L2: u8 = 3;
pub(crate) const L3: u8 = 4;
pub(crate) const DRAM: u8 = 5;
pub(crate) const STORES: u8 = 6;
pub(crate) const ALU: u8 = 7;
pub(crate) const DEPEND: u8 = 8;
pub(crate) const STRUCTURAL: u8 = 10;
pub(crate) const OTHER: u8 = 11;
/// The CPI stacks' remainder: cycles minus every attributed component.
pub(crate) const UNATTRIBUTED: u8 = 12;

// FLOPS-stack labels of idle FP-unit cycles (ring cells hold them as u8)
pub(super) const V_NO_FP: u8 = IdleFp::NonFp as u8;
const V_NON_VFP: u8 = IdleFp::NonVfp as u8;
const V_MEMORY: u8 = IdleFp::Memory as u8;
const V_DEPEND: u8 = IdleFp::Dependence as u8;

/// A change-point marker in a ring cell: the label holds from this cycle on (0: no change).
const SET: u8 = 0x80;
/// In an `rs` change-point: the oldest waiting instruction waits for a load's
/// data (Top-Down's load stalls; the label alone says dependence for an L1 hit).
const ON_LOAD: u8 = 0x40;

#[inline(always)]
fn class_label(c: LatencyClass) -> u8 {
    match c {
        LatencyClass::Long => ALU,
        LatencyClass::L2 => L2,
        LatencyClass::L3 => L3,
        LatencyClass::Dram => DRAM,
        _ => DEPEND,
    }
}

#[inline(always)]
fn is_miss(c: LatencyClass) -> bool {
    matches!(c, LatencyClass::L2 | LatencyClass::L3 | LatencyClass::Dram)
}

/// Loads in flight are counted in four 16-bit lanes of one integer: any, missed
/// L1, missed L2, missed L3. A load served by level k adds `LANES[k]`.
const LANES: [i64; 5] = [0x1, 0x1_0001, 0x1_0001_0001, 0x1_0001_0001_0001, 0];

/// `floor` of a time (non-negative, finite): the cycle it falls in. One
/// truncating conversion: `as i64` saturates, which costs a handful of
/// instructions on each of the several calls per instruction. Truncation is
/// floor for the non-negative times of the model; anything else maps to 0.
#[inline(always)]
fn floor_i(x: f64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86_64; cvttsd2si is defined for every input
    // (a NaN or an out-of-range value gives i64::MIN).
    let i = unsafe { std::arch::x86_64::_mm_cvttsd_si64(std::arch::x86_64::_mm_set_sd(x)) };
    #[cfg(not(target_arch = "x86_64"))]
    let i = x as i64;
    i.max(0)
}

/// max and min of two times. Times are never NaN, so without the NaN handling
/// of `f64::max` / `f64::clamp` (a few instructions each, several per instruction).
#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn fmin(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// `x` within `[lo, hi]` (`lo <= hi`).
#[inline(always)]
fn fclamp(x: f64, lo: f64, hi: f64) -> f64 {
    fmin(fmax(x, lo), hi)
}

/// `ceil` for non-negative times without a libm call.
#[inline(always)]
fn ceil_i(x: f64) -> i64 {
    let i = floor_i(x);
    i + ((i as f64) < x) as i64
}

/// One future cycle: what was booked into it. 16 bytes; all zero = nothing.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
struct Cell {
    /// Difference array of the loads in flight (packed lanes, see [`LANES`]).
    d_mem: i64,
    /// Counts packed so that one add books an instruction's issue (see
    /// [`Lanes`]): uops executed (started on a port), FP instructions issued,
    /// fused uops issued (the slot unit of the issue stack).
    counts: u32,
    /// Change-points (`label | SET`): oldest waiting instruction in the
    /// scheduler, dispatch-stall reason, oldest waiting FP instruction.
    rs: u8,
    fe: u8,
    vfp: u8,
    /// Difference array: divides keeping their unit busy.
    d_div: i8,
}

/// The lanes of [`Cell::counts`]. Uops executed per cycle are bounded by the
/// ports (each started uop holds one in that cycle), far below 256, so the
/// byte lanes never carry into each other; fused uops issued (a microcoded
/// instruction issues all of its own in one cycle) get 16 bits.
struct Lanes;

impl Lanes {
    const OPS: u32 = 1;
    const FP: u32 = 1 << 8;
    const ISSUED: u32 = 1 << 16;

    #[inline(always)]
    fn ops(c: u32) -> u8 {
        c as u8
    }
    #[inline(always)]
    fn fp(c: u32) -> u8 {
        (c >> 8) as u8
    }
    #[inline(always)]
    fn issued(c: u32) -> u32 {
        c >> 16
    }
}

impl Cell {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        let rest = self.counts as u64 | (u32::from_le_bytes([self.rs, self.fe, self.vfp, self.d_div as u8]) as u64) << 32;
        (self.d_mem as u64 | rest) == 0
    }
}

/// What booking one execution of a static instruction needs: one small record
/// per instruction, so that an execution touches one cache line of them.
#[derive(Clone, Copy, Default)]
struct Booking {
    /// Added to the issue cycle's [`Cell::counts`].
    issue_counts: u32,
    fused: u16,
    divider_cycles: u16,
    load_uops: u8,
    store_uops: u8,
    is_divide: bool,
    is_fp: bool,
}

impl Booking {
    fn new(f: &StaticFacts) -> Self {
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

/// Machine parameters the views need.
#[derive(Clone, Debug)]
pub struct ViewParams {
    /// Dispatch slots per cycle (W of every stack and of Top-Down's TotalSlots).
    pub width: f64,
    pub dispatch_gap: f64,
    pub commit_gap: f64,
    pub mispredict_penalty: f64,
    /// Extra latency over an L1 hit of a load served by L1, L2, L3, DRAM.
    pub level_extra_latency: [f64; 4],
    /// Vector FP units, widest vector (bits), FMA support (FLOPS stack).
    pub fp_units: f64,
    pub max_bits: f64,
    pub fma: bool,
    /// Yasin's FEW (cycles with at most this many uops executed are execution stalls)
    /// and the memory-bandwidth occupancy threshold of ExtMemOutstanding.
    pub few_ops: u32,
    pub mem_bw_occupancy: u32,
}

impl ViewParams {
    pub fn new(machine: &Machine, cfg: &CoreConfig) -> Self {
        let v = &machine.params.vector;
        ViewParams {
            width: 1.0 / cfg.dispatch_gap,
            dispatch_gap: cfg.dispatch_gap,
            commit_gap: cfg.commit_gap,
            mispredict_penalty: cfg.mispredict_penalty,
            level_extra_latency: cfg.level_extra_latency,
            fp_units: v.fp_units.max(1) as f64,
            max_bits: v.max_bits.max(64) as f64,
            fma: v.fma,
            few_ops: 2,
            mem_bw_occupancy: 28,
        }
    }
}

/// Everything the views computed, at the end of a run.
#[derive(Debug, Clone)]
pub struct AccountingResult {
    pub topdown: TopDownCounters,
    pub cpi_stacks: CpiStacks,
    pub flops_stack: FlopsStack,
    pub cycle_accounting: CycleAccounting,
    /// Set when the views were counted on samples of the run ([`AccountingViews::sampled`]).
    pub sampling: Option<ViewsSampling>,
    /// What each counted window of sampled views measured (empty when exact).
    pub windows: Vec<WindowTally>,
}

/// The dispatch delay of the instruction being processed, split at its causes.
#[derive(Clone, Copy, Default)]
struct DispatchDelay {
    /// Previous slot end, resteer, end of the BTB part, end of the fetch stall, slot.
    t0: f64,
    t1: f64,
    b: f64,
    t2: f64,
    t3: f64,
    store_buffer: bool,
}

/// What booking and sweeping count: the sweep's sums, the Top-Down counters
/// (those filled at the end as well) and Levinthal's event counts.
#[derive(Clone, Debug)]
struct Tallies {
    acc: SweepAcc,
    td: TopDownCounters,
    lev: LevinthalCounters,
}

impl Tallies {
    fn new(width: f64) -> Self {
        Tallies { acc: SweepAcc::default(), td: TopDownCounters { width, ..Default::default() }, lev: LevinthalCounters::default() }
    }

    /// Adds what booking and sweeping count (the rest is filled in at the end).
    fn add(&mut self, o: &Tallies) {
        self.acc.add(&o.acc);
        let (a, b) = (&mut self.td, &o.td);
        a.wrong_path_cycles += b.wrong_path_cycles;
        a.recovery_cycles += b.recovery_cycles;
        a.fetch_cycles += b.fetch_cycles;
        a.fetch_full_cycles += b.fetch_full_cycles;
        a.backend_cycles += b.backend_cycles;
        let (a, b) = (&mut self.lev, &o.lev);
        a.loads.iter_mut().zip(&b.loads).for_each(|(x, y)| *x += y);
        a.icache_events += b.icache_events;
        a.icache_cycles += b.icache_cycles;
        a.btb_events += b.btb_events;
        a.btb_cycles += b.btb_cycles;
    }
}

/// The listener: Top-Down events, CPI stacks, FLOPS stack, cycle accounting.
pub struct AccountingViews {
    p: ViewParams,
    sp: SweepParams,
    facts: Vec<StaticFacts>,
    /// Per static instruction, what booking needs. Whatever follows from the
    /// static facts alone (slots, uops, FP and divide counts) is summed at the
    /// end from the executions that [`InstructionCost`] counted.
    bookings: Vec<Booking>,
    shared: Option<SharedFacts>,
    ring: Vec<Cell>,
    mask: usize,
    /// First cycle not swept yet.
    fin: i64,
    prev_slot_end: f64,
    commit_end: f64,
    /// The ROB head over time: (from, blame) in time order, from `heads_start` on.
    heads: Vec<(f64, u8)>,
    heads_start: usize,
    /// First cycle not yet owned by an older waiting instruction (scheduler / FP).
    rs_next: i64,
    vfp_next: i64,
    sweep: Sweep,
    /// What booking and sweeping count (sampled views swap it with scratch tallies).
    tally: Tallies,
    instructions: u64,
    flops: FlopsCounters,
    /// Ignore every instruction (benchmarks measure the views' cost this way).
    off: bool,
    /// Sampled views: which batch is counted, and what the windows measured.
    sample: Option<Sample>,
    /// In a batch that sampled views skip (they look at none of its instructions,
    /// or not yet: the head of a warm-up batch, `ignore`).
    skipping: bool,
    /// The next booked instruction starts a warm-up after a skipped stretch.
    resync_pending: bool,
    /// Instructions still to pass unseen before a warm-up (the head of its batch).
    ignore: usize,
    /// Instructions booked (sampled views count the windows' share with it).
    booked: u64,
}

impl AccountingViews {
    /// Views over a block whose facts are known (static analysis).
    pub fn new(p: ViewParams, facts: Vec<StaticFacts>) -> Self {
        let len = 1024;
        let mut heads = Vec::with_capacity(1024);
        heads.push((0.0, OTHER));
        AccountingViews {
            tally: Tallies::new(p.width),
            flops: FlopsCounters::default(),
            sp: SweepParams { width: p.width, inv_w: 1.0 / p.width, few: p.few_ops as u8, bw: p.mem_bw_occupancy as u64, fp_units: p.fp_units },
            bookings: facts.iter().map(Booking::new).collect(),
            p,
            facts,
            shared: None,
            ring: vec![Cell::default(); len],
            mask: len - 1,
            fin: 0,
            prev_slot_end: 0.0,
            commit_end: 0.0,
            heads,
            heads_start: 0,
            rs_next: 0,
            vfp_next: 0,
            sweep: Sweep::default(),
            instructions: 0,
            off: false,
            sample: None,
            skipping: false,
            resync_pending: false,
            ignore: 0,
            booked: 0,
        }
    }

    /// Views that ignore every instruction: what a run costs without them
    /// (their results are then empty: every cycle is "other").
    pub fn disabled(mut self) -> Self {
        self.off = true;
        self
    }

    /// Views of a dynamic run: facts arrive through `shared` as instructions are discovered.
    pub fn with_shared(p: ViewParams, shared: SharedFacts) -> Self {
        let mut v = Self::new(p, Vec::new());
        v.shared = Some(shared);
        v
    }

    #[cold]
    fn refresh(&mut self, index: usize) {
        if let Some(s) = &self.shared {
            s.copy_new(&mut self.facts);
        }
        if index >= self.facts.len() {
            // unknown instruction (should not happen): account it as one plain uop
            self.facts.resize(index + 1, StaticFacts { fused: 1, compute_uops: 1, ..Default::default() });
        }
        let known = self.bookings.len();
        self.bookings.extend(self.facts[known..].iter().map(Booking::new));
    }

    #[inline(always)]
    fn cell(&mut self, c: i64) -> &mut Cell {
        let k = c as usize & self.mask;
        debug_assert_eq!(self.ring.len(), self.mask + 1);
        // SAFETY: the ring's length is always `mask + 1` (a power of two; `new`
        // and `grow` keep them together), so `k <= mask` is in bounds. Several
        // bookings per instruction: the bounds checks showed.
        unsafe { self.ring.get_unchecked_mut(k) }
    }

    /// Makes room for cycles up to `c`.
    #[inline(always)]
    fn reserve(&mut self, c: i64) {
        if c - self.fin >= self.ring.len() as i64 {
            self.grow(c);
        }
    }

    #[cold]
    fn grow(&mut self, c: i64) {
        let new_len = (((c - self.fin + 1) as usize) * 2).next_power_of_two();
        let mut ring = vec![Cell::default(); new_len];
        for k in self.fin..self.fin + self.ring.len() as i64 {
            ring[k as usize & (new_len - 1)] = self.ring[k as usize & self.mask];
        }
        self.ring = ring;
        self.mask = new_len - 1;
    }

    /// Marks the dispatch-stall reason from cycle `floor(at)` on.
    #[inline]
    fn fe_mark(&mut self, at: f64, label: u8) {
        self.cell(floor_i(at)).fe = label | SET;
    }

    /// Drops the ROB-head history before `t` (keeps the entry in force at `t`).
    #[inline(always)]
    fn drop_heads(&mut self, t: f64) {
        let h = &self.heads;
        let mut k = self.heads_start;
        while k + 1 < h.len() && h[k + 1].0 <= t {
            k += 1;
        }
        self.heads_start = k;
        if k > 1024 && k * 2 > h.len() {
            self.heads.drain(..k);
            self.heads_start = 0;
        }
    }

    /// Charges `[from, to)` to the ROB head in the middle of it (dispatch
    /// stack; for the issue stack, the dispatch-stall reason of those cycles).
    /// A gap behind a full ROB ends when the head commits, so one head holds
    /// it nearly always; the middle picks the part of its wait the gap is in.
    fn charge_heads(&mut self, from: f64, to: f64) {
        let mid = 0.5 * (from + to);
        self.drop_heads(mid);
        let k = self.heads_start;
        let label = match self.heads.get(k) {
            Some(&(start, label)) if start <= mid => label,
            _ => OTHER,
        };
        self.tally.acc.cpi[0][label as usize & 15] += to - from;
        self.fe_mark(from, label);
    }

    /// The lost dispatch slots between the previous instruction and this one.
    fn dispatch_gap(&mut self, d: &DispatchDelay, wrong: f64) {
        let DispatchDelay { t0, t1, b, t2, t3, store_buffer } = *d;
        if t1 > t0 {
            let resolve = fmax(t1 - self.p.mispredict_penalty, t0);
            self.tally.td.wrong_path_cycles += wrong;
            self.tally.td.recovery_cycles += t1 - resolve;
            self.tally.acc.cpi[0][BPRED as usize] += wrong + (t1 - resolve);
            self.fe_mark(t0, BPRED);
            if resolve > t0 + wrong + EPS {
                // the wrong path filled the ROB: dispatch waited behind its head
                self.tally.td.backend_cycles += resolve - (t0 + wrong);
                self.charge_heads(t0 + wrong, resolve);
                self.fe_mark(resolve, BPRED);
            }
        }
        if t2 > t1 {
            self.tally.acc.cpi[0][BPRED as usize] += b - t1;
            self.tally.acc.cpi[0][ICACHE as usize] += t2 - b;
            self.tally.td.fetch_cycles += t2 - t1;
            self.tally.td.fetch_full_cycles += (floor_i(t2 + EPS) - ceil_i(t1 - EPS)).max(0) as u64;
            if b > t1 {
                self.fe_mark(t1, BPRED);
            }
            if t2 > b {
                self.fe_mark(b, ICACHE);
            }
        }
        if t3 > t2 {
            self.tally.td.backend_cycles += t3 - t2;
            if store_buffer {
                self.tally.acc.cpi[0][STORES as usize] += t3 - t2;
                self.fe_mark(t2, STORES);
            } else {
                self.charge_heads(t2, t3);
            }
        }
        self.cell(floor_i(t3)).fe = NONE | SET;
    }

    /// The lost commit slots before instruction `t` (the ROB head throughout):
    /// commit stack and the ROB-head timeline.
    fn commit_gap(&mut self, g0: f64, g1: f64, t: &StageTimes, d: &DispatchDelay) {
        let c = &mut self.tally.acc.cpi[2];
        // the ROB was empty until the instruction dispatched: its own dispatch delay
        let r = fmin(t.slot, g1);
        if r > g0 {
            let part = |a: f64, b: f64| fmax(fmin(b, r) - fmax(a, g0), 0.0);
            c[BPRED as usize] += part(d.t0, d.t1) + part(d.t1, d.b);
            c[ICACHE as usize] += part(d.b, d.t2);
            c[if d.store_buffer { STORES } else { OTHER } as usize] += part(d.t2, d.t3);
            c[OTHER as usize] += part(f64::MIN, d.t0);
        }
        // then it waited for its own result: dependence, its penalty, dependence
        let s = fmax(r, g0);
        let pf = fclamp(t.penalty_from, s, g1);
        let pe = fclamp(if is_miss(t.self_class) { t.load_done } else { t.ready }, pf, g1);
        let class = class_label(t.self_class);
        c[DEPEND as usize] += (pf - s) + (g1 - pe);
        c[class as usize] += pe - pf;
        if self.heads.len() - self.heads_start > 2048 {
            self.drop_heads(self.prev_slot_end);
        }
        self.heads.extend_from_slice(&[(s, DEPEND), (pf, class), (pe, DEPEND)]);
    }

    /// Sweeps every cycle before `to`.
    #[inline(never)]
    fn finalize_to(&mut self, to: i64) {
        sweep(&mut self.ring, self.mask, self.fin, to, &self.sp, &mut self.sweep, &mut self.tally.acc);
        self.fin = to;
    }

    /// Closes the run at `clocks` cycles and returns every view. `all`: the
    /// executions and mispredictions of every instruction, counted by an
    /// [`InstructionCost`] beside the views on the same stream (the views do not
    /// count them again; sampled views skip batches without looking at them).
    pub fn finish(mut self, clocks: f64, all: &InstructionCost) -> AccountingResult {
        // a sampled run that ended within its exact prefix was counted exactly
        let sample = self.sample.take().filter(|s| s.phase != Phase::Exact).map(|mut s| {
            if s.phase == Phase::Count {
                self.close_window(&mut s);
            }
            self.real_tallies_in(&mut s);
            s
        });
        if sample.is_none() {
            self.close_run(clocks);
        }
        self.add_static_sums(all);
        if let Some(s) = &sample {
            self.scale_windows(s, clocks);
        }
        self.tally.acc.export(&mut self.tally.td, &mut self.flops);
        let w = self.p.width;
        let slots = self.tally.td.slots_retired as f64;
        let base = slots / w;
        let mut cpi = self.tally.acc.cpi;
        cpi[0][0] = base;
        cpi[1][0] = (slots - self.sweep.iss_carry) / w;
        // commit slots are 1/commit width: a wider commit stage's excess goes to
        // the lost slots after it (Eyerman's carry), here spread over them evenly
        let commit_base = slots * self.p.commit_gap;
        let stalls: f64 = cpi[2][1..].iter().sum();
        if stalls > 0.0 && (commit_base - base).abs() > EPS {
            let f = ((stalls + commit_base - base) / stalls).max(0.0);
            cpi[2][1..].iter_mut().for_each(|v| *v *= f);
        }
        cpi[2][0] = base;
        // what no rule attributed (rounding of the carries, the drain at the very
        // end, and for sampled views the windows' error against the whole run)
        // is shown as such, never folded into a component
        for stack in &mut cpi {
            let total: f64 = stack[..UNATTRIBUTED as usize].iter().sum();
            stack[UNATTRIBUTED as usize] = clocks - total;
        }
        self.tally.td.clocks = clocks;
        let cpi: [[f64; NCOMP]; 3] = std::array::from_fn(|s| std::array::from_fn(|i| cpi[s][i]));
        let cpi_stacks = CpiStacks::new(clocks, self.instructions, w, &cpi);
        let flops_stack = self.flops.finish(&self.p, clocks);
        let cycle_accounting = self.tally.lev.finish(&self.p, &self.tally.td, clocks);
        let windows = sample.as_ref().map(|s| s.tallies.clone()).unwrap_or_default();
        AccountingResult { topdown: self.tally.td, cpi_stacks, flops_stack, cycle_accounting, sampling: sample.map(|s| s.report()), windows }
    }

    /// The end of an exactly counted run: the machine drains after the last
    /// dispatch and commit, and every cycle is swept.
    fn close_run(&mut self, clocks: f64) {
        let end = clocks.max(self.prev_slot_end);
        let last = ceil_i(end);
        if self.off {
            self.fin = last; // nothing was booked: no cycles to sweep (nor a ring to grow)
        }
        self.reserve(last + 2);
        // dispatch tail: the machine drains after the last dispatch
        if end > self.prev_slot_end + EPS {
            let t = self.prev_slot_end;
            self.tally.td.backend_cycles += end - t;
            self.charge_heads(t, end);
        }
        // commit tail: the part of the last cycle after the last commit
        if end > self.commit_end {
            self.tally.acc.cpi[2][OTHER as usize] += end - self.commit_end;
        }
        if last > self.fin {
            self.finalize_to(last);
        }
    }

    /// The counts that depend only on each instruction's static facts
    /// (executions × facts), and the mispredictions.
    fn add_static_sums(&mut self, all: &InstructionCost) {
        let seen = all.costs().iter().rposition(|c| c.executions > 0).map_or(0, |i| i + 1);
        if seen > self.facts.len() {
            self.refresh(seen - 1); // instructions that only ran in skipped batches
        }
        let mispredicts: u64 = all.costs().iter().map(|c| c.mispredicts).sum();
        self.tally.td.mispredicts = mispredicts;
        self.tally.lev.mispredicts = mispredicts;
        for (f, c) in self.facts.iter().zip(all.costs()) {
            let n = c.executions;
            if n == 0 {
                continue;
            }
            let fused = f.fused as u64;
            self.instructions += n;
            self.tally.td.slots_retired += n * fused;
            self.tally.td.ms_slots += n * fused * f.microcoded as u64;
            self.tally.td.ops_executed += n * (f.load_uops as u64 + f.compute_uops as u64 + f.store_uops as u64);
            if f.is_divide {
                self.tally.lev.divides += n;
                self.tally.lev.divide_latency += n as f64 * f.op_latency as f64;
            }
            match f.fp {
                FpKind::None => {}
                FpKind::Vector => self.tally.td.fp_vector += n,
                FpKind::Scalar => self.tally.td.fp_scalar += n,
            }
            if f.fp != FpKind::None {
                self.flops.issue(&self.p, f, n);
            }
        }
    }

}

impl Listener for AccountingViews {
    fn wants_details(&self) -> bool {
        !self.off && !self.skipping
    }

    fn begin_batch(&mut self, len: usize) -> Details {
        if self.off {
            return Details::None;
        }
        self.next_batch(len, None)
    }

    /// A sampled run's warm-ups and units are the views' warm-ups and counted
    /// windows; what it times in full, the views sample on their own schedule.
    fn begin_part(&mut self, len: usize, part: BatchPart) -> Details {
        if self.off {
            return Details::None;
        }
        match part {
            BatchPart::Whole => self.next_batch(len, None),
            BatchPart::WarmUp => self.next_batch(len, Some((Phase::Warm, 1.0))),
            BatchPart::Unit { weight } => {
                // a unit stands for `weight` batches, a window of the views' own for their period
                let own = self.sample.as_ref().map_or(1, |s| s.own_period()) as f64;
                self.next_batch(len, Some((Phase::Count, weight / own)))
            }
        }
    }

    fn samples(&self) -> bool {
        self.sample.is_some()
    }

    /// A batch that sampled views skip is not looked at (its executions come
    /// from [`InstructionCost`] at the end); in a warm-up batch, its head is not.
    #[inline(always)]
    fn on_instruction(&mut self, index: usize, t: &StageTimes) {
        if self.skipping {
            if self.ignore > 0 {
                self.ignore -= 1;
                self.skipping = self.ignore > 0;
            }
        } else if !self.off {
            self.book(index, t);
        }
    }
}

impl AccountingViews {
    /// Starts booking again after a skipped stretch: the ring and the timelines
    /// begin at this instruction (the gaps before it are nobody's).
    #[cold]
    fn resync(&mut self, t: &StageTimes) {
        self.resync_pending = false;
        self.ring.iter_mut().for_each(|c| *c = Cell::default());
        self.sweep = Sweep { any_vfp: self.sweep.any_vfp, ..Default::default() };
        let c = floor_i(t.slot);
        self.fin = c;
        self.rs_next = c;
        self.vfp_next = c;
        self.prev_slot_end = t.slot;
        self.commit_end = t.commit_slot;
        self.heads.clear();
        self.heads.push((t.slot, OTHER));
        self.heads_start = 0;
    }

    /// Everything one instruction adds to the views.
    #[inline(never)]
    fn book(&mut self, index: usize, t: &StageTimes) {
        if index >= self.bookings.len() {
            self.refresh(index);
        }
        if self.resync_pending {
            self.resync(t);
        }
        self.booked += 1;
        let f = self.bookings[index];
        let t0 = self.prev_slot_end;
        // sweep in batches: cycles before the dispatch point are final
        let bound = floor_i(t0);
        if bound > self.fin + 64 {
            self.finalize_to(bound);
        }
        let commit_c = floor_i(t.commit);
        let issue_c = floor_i(t.issue);
        let dispatch_c = floor_i(t.dispatch);
        self.reserve(commit_c + 2);
        let fused = f.fused;

        // ---- dispatch: slots (Top-Down) and the dispatch CPI stack ----------
        let slot = t.slot;
        let mut d = DispatchDelay { t0, t1: t0, b: t0, t2: t0, t3: slot, store_buffer: false };
        if slot > t0 + EPS {
            d.t1 = fclamp(t.resteer, t0, slot);
            d.t2 = fmin(d.t1 + t.fetch_stall as f64, slot);
            d.b = fmin(d.t1 + t.btb_stall as f64, d.t2);
            d.store_buffer = t.dispatch_cause == DispatchCause::StoreBuffer;
            self.dispatch_gap(&d, t.wrong_path);
        }
        self.prev_slot_end = slot + fused as f64 * self.p.dispatch_gap;

        // ---- commit: the commit stack and the ROB-head timeline ---------------
        if fused > 0 {
            let g0 = self.commit_end;
            let g1 = t.commit_slot;
            if g1 > g0 + EPS {
                self.commit_gap(g0, g1, t, &d);
            }
            self.commit_end = fmax(g1, g0) + fused as f64 * self.p.commit_gap;
        }

        // ---- execution: uops per cycle, loads in flight, issue slots -----------
        if f.load_uops > 0 {
            let load_c = floor_i(t.load_start);
            let done_c = ceil_i(t.load_done - EPS).max(load_c + 1);
            self.reserve(done_c + 1);
            let lvl = t.load_level.min(3) as usize;
            let e = self.cell(load_c);
            e.counts = e.counts.wrapping_add(f.load_uops as u32 * Lanes::OPS);
            e.d_mem += LANES[lvl];
            self.cell(done_c).d_mem -= LANES[lvl];
            self.tally.lev.loads[lvl] += 1;
        }
        {
            let e = self.cell(issue_c);
            e.counts = e.counts.wrapping_add(f.issue_counts);
        }
        if f.store_uops > 0 {
            let e = self.cell(floor_i(t.complete - 1.0).max(dispatch_c));
            e.counts = e.counts.wrapping_add(f.store_uops as u32 * Lanes::OPS);
        }
        if f.is_divide {
            let end = issue_c + f.divider_cycles as i64;
            self.reserve(end + 1);
            self.cell(issue_c).d_div += 1;
            self.cell(end).d_div -= 1;
        }

        // ---- issue stage: the oldest waiting instruction in the scheduler ------
        // owns [max(dispatch, older issues), issue): dependence until its operand's
        // penalty starts, then the penalty's class, then the port wait
        let a = dispatch_c.max(self.rs_next);
        if issue_c > a {
            let op = floor_i(t.operands).max(a).min(issue_c);
            let wf = floor_i(t.wait_from).max(a).min(op);
            let on_load = if matches!(t.wait_class, LatencyClass::L1 | LatencyClass::L2 | LatencyClass::L3 | LatencyClass::Dram | LatencyClass::Forward) { ON_LOAD } else { 0 };
            self.cell(a).rs = DEPEND | SET | on_load;
            self.cell(wf).rs = class_label(t.wait_class) | SET | on_load;
            self.cell(op).rs = STRUCTURAL | SET;
            self.cell(issue_c).rs = NONE | SET;
            self.rs_next = issue_c;
        }

        // ---- Top-Down odds and ends, Levinthal's event counts ------------------
        if t.fetch_stall > 0.0 {
            let btb = t.btb_stall as f64;
            let ic = t.fetch_stall as f64 - btb;
            if ic > 0.0 {
                self.tally.lev.icache_events += 1;
                self.tally.lev.icache_cycles += ic;
            }
            if btb > 0.0 {
                self.tally.lev.btb_events += 1;
                self.tally.lev.btb_cycles += btb;
            }
        }

        // ---- FLOPS stack -------------------------------------------------------
        if f.is_fp {
            self.sweep.any_vfp = true;
            let a = dispatch_c.max(self.vfp_next);
            if issue_c > a {
                let op = floor_i(t.operands).max(a).min(issue_c);
                let waited = match t.wait_class {
                    LatencyClass::L1 | LatencyClass::L2 | LatencyClass::L3 | LatencyClass::Dram | LatencyClass::Forward => V_MEMORY,
                    _ => V_DEPEND,
                };
                self.cell(a).vfp = waited | SET;
                self.cell(op).vfp = V_NON_VFP | SET;
                self.cell(issue_c).vfp = V_NO_FP | SET;
                self.vfp_next = issue_c;
            }
        }
    }
}

/// Names of the CPI-stack components, in report order.
pub fn cpi_components() -> &'static [&'static str] {
    &COMPONENTS
}
