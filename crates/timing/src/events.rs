//! What the timing model tells its listeners about each instruction.

use crate::strings::StringWork;
use bottlenose_machine::GroupId;
use serde::Serialize;
use std::num::NonZeroU64;

/// Why an instruction could not dispatch earlier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DispatchCause {
    /// Dispatched in its turn: only the dispatch width held it back.
    Width,
    Rob,
    Scheduler,
    LoadBuffer,
    StoreBuffer,
    /// The frontend delivered it late (instruction cache / TLB miss, taken-branch bubble).
    Fetch,
    /// Waiting for the frontend to resteer after a mispredicted branch.
    Mispredict,
    /// The frontend was sequencing an older microcoded instruction (a string
    /// instruction) until it completed.
    Microcode,
}

/// Why an instruction's critical uop could not start earlier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueCause {
    /// Started in the cycle it was dispatched.
    Dispatch,
    /// Waited for a register operand.
    Register,
    /// Waited for its load (an L1 hit).
    Load,
    /// Waited for a load that missed L1 (data coming from L2, L3 or DRAM).
    CacheMiss,
    /// Waited for a store to the same address (memory dependency).
    Memory,
    /// Waited for a free port in this group.
    Port(GroupId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitCause {
    /// Retired as soon as it completed.
    Complete,
    /// Waited for an older instruction to retire.
    InOrder,
    /// Waited for retirement bandwidth.
    Width,
}

/// What an instruction's result (or a wait for it) is late because of, as the
/// accounting views classify it (Eyerman's Dcache / ALU-latency / dependence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum LatencyClass {
    /// A single-cycle operation (or none): waiting for it is plain dependence.
    #[default]
    Short,
    /// A multi-cycle non-load operation (divide, FP, multiply).
    Long,
    /// A load served by L1.
    L1,
    /// A load that missed L1 and was served by L2, L3 or DRAM.
    L2,
    L3,
    Dram,
    /// A load that waited for an older store's data (store-to-load forwarding).
    Forward,
}

/// Stage times of one executed instruction, in cycles (integral unless a
/// latency or capacity is scaled by a fractional weight), and the binding
/// cause of each. Every step of the model produces these; what only the
/// accounting views need is in [`StageDetails`].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StageTimes {
    pub dispatch: f64,
    /// Start of the first uop (the critical one for `issue_cause`).
    pub issue: f64,
    /// When the result is available to dependants.
    pub ready: f64,
    /// Last execution cycle + 1 of every uop (stores included).
    pub complete: f64,
    pub commit: f64,
    pub dispatch_cause: DispatchCause,
    pub issue_cause: IssueCause,
    pub commit_cause: CommitCause,
    /// This instruction was a mispredicted branch (dynamic runs).
    pub mispredicted: bool,
}

/// What the accounting views (crates/views) need beyond [`StageTimes`] to
/// rebuild the per-cycle picture of an instruction-driven model: the
/// fractional dispatch and commit slot times (lost slots between consecutive
/// instructions are the gaps between them), the parts of a dispatch delay
/// (resteer after a mispredict, frontend stall, BTB part of it), the load's
/// execution window and the latency class of what the critical uop waited
/// for. Only the detailed step ([`crate::Core::step`]) produces it.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct StageDetails {
    /// Dispatch slot time of the first uop: slot k of cycle c is c + k/W. The
    /// uops take the slots `slot, slot + 1/W, ...`; the instruction's
    /// `dispatch` is the cycle of the last one.
    pub slot: f64,
    /// Slot time after waiting for the frontend to resteer (a mispredicted
    /// older branch), before any fetch stall: `slot >= resteer + fetch_stall`.
    /// Equals the previous instruction's slot end when there was no resteer.
    pub resteer: f64,
    /// Cycles the frontend delivered it late (icache/ITLB misses, BTB-miss
    /// resteers, the fetch-block limit and taken-branch bubbles); the branch part
    /// of that (BTB misses, fetch-block limit, bubbles); the fetch-block part alone.
    pub fetch_stall: f32,
    pub btb_stall: f32,
    pub fetch_block_stall: f32,
    /// Level that served its load (0 = L1 .. 3 = DRAM; 0 without a load).
    pub load_level: u8,
    /// Latency class of this instruction's own result.
    pub self_class: LatencyClass,
    /// Latency class of what the critical uop waited for (a producer's result or its own load).
    pub wait_class: LatencyClass,
    /// Start and data return of the load part (both `dispatch` without a load).
    pub load_start: f64,
    pub load_done: f64,
    /// When the critical uop's operands were ready (`issue - operands` is a port wait).
    pub operands: f64,
    /// From when the wait for the operands is due to `wait_class`'s penalty
    /// (a miss beyond an L1 hit, a latency beyond one cycle); before it, plain dependence.
    pub wait_from: f64,
    /// From when this instruction is late because of its own penalty
    /// (`self_class`): until `load_done` for a miss, until `ready` for a long operation.
    pub penalty_from: f64,
    /// Commit slot time of the first uop (slot k of cycle c is c + k/commit width).
    pub commit_slot: f64,
    /// After a resteer: cycles from the previous slot end in which the wrong
    /// path dispatched, as far as the ROB had room (0 otherwise).
    pub wrong_path: f64,
}

/// Dynamic facts of one execution of an instruction (from the functional layer).
/// Static analysis passes the default: L1 hits, correct predictions, no aliasing.
///
/// Kept small (64 bytes, one cache line): the producer fills one per executed
/// instruction and the timing workers unpack one per record (most records travel
/// packed in 16 bytes, the rest whole: `bottlenose_simulate::Records`). The delays
/// are `f32` (whole or half cycles, exact), the addresses have no separate `Some` tag.
#[derive(Debug, Clone, Copy, Default)]
pub struct DynInfo {
    /// Load and store address (8-byte granule dependencies through shadow
    /// memory). Address 0 (never mapped) cannot be tracked and reads as `None`.
    pub load_addr: Option<NonZeroU64>,
    pub store_addr: Option<NonZeroU64>,
    /// Extra load latency beyond an L1 hit that is not a cache fill (TLB misses), cycles.
    pub load_extra_latency: f32,
    /// Cycles the frontend delivers this instruction late (icache/ITLB miss,
    /// BTB-miss resteer of a taken branch).
    pub fetch_stall: f32,
    /// The part of `fetch_stall` due to a BTB miss (a branch-prediction effect, not an icache one).
    pub btb_stall: f32,
    /// Cycles the fetch unit loses before this instruction's block (the bubble of the
    /// correctly predicted taken branch that led here: return stack, indirect target).
    pub fetch_bubble: f32,
    /// A line the prefetcher started bringing into L1 on this instruction's
    /// access (line address), and the level it comes from (1 = L2 .. 3 = DRAM;
    /// 0 = none): its transfer takes fill bandwidth, and a load of the line
    /// before it arrives waits for it.
    pub prefetch_line: Option<NonZeroU64>,
    pub prefetch_level: u8,
    /// A second prefetched line, this many lines after `prefetch_line` (0 =
    /// none; a ramping stream starts two lines per access), from the same level.
    pub prefetch_next_lines: i8,
    /// Level that served the load: 0 = L1 (hit), 1 = L2, 2 = L3, 3 = DRAM.
    pub load_level: u8,
    /// Level that held the stored line (write-allocate fills it before the store drains).
    pub store_level: u8,
    pub mispredicted: bool,
    /// The instruction starts a new fetch block: the previous one was a taken branch, or
    /// it lies in another aligned fetch window (machine `fetch_block_bytes`).
    pub new_fetch_block: bool,
    /// Its icache miss continues a sequential run of missing lines, which the fetch unit
    /// streams with `icache_misses_in_flight` misses outstanding instead of one at a time.
    pub fetch_stream: bool,
    /// Which of its accesses spanned two cache lines, and the dirty lines they (and their
    /// prefetches) pushed out of a cache.
    pub lines: LineEvents,
    /// What a string instruction did in this execution (all zero for other instructions).
    pub string: StringWork,
}

// one cache line per execution filled and per record unpacked
const _: () = assert!(std::mem::size_of::<DynInfo>() <= 64);

/// What one execution's data accesses did to cache lines, in one byte (so that `DynInfo`
/// stays within a cache line): the dirty lines written back over each link, into L2
/// (link 0), into L3 (1) and into DRAM (2), two bits each, so at most 3 per link are
/// counted (an access, its line-crossing half and two prefetches could evict four:
/// rare); and whether its loads, its stores spanned two lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineEvents(u8);

impl LineEvents {
    const WRITEBACKS: u8 = 0b0011_1111;
    const LOAD_SPLIT: u8 = 1 << 6;
    const STORE_SPLIT: u8 = 1 << 7;

    /// Sets the write-backs per link (each saturating at 3).
    #[inline]
    pub fn set_writebacks(&mut self, counts: [u8; 3]) {
        // set once per executed instruction by the producer, from another crate
        let bits = counts[0].min(3) | counts[1].min(3) << 2 | counts[2].min(3) << 4;
        self.0 = (self.0 & !Self::WRITEBACKS) | bits;
    }

    /// Write-backs over `link` (0: into L2, 1: into L3, 2: into DRAM).
    #[inline]
    pub fn writebacks(self, link: usize) -> u8 {
        (self.0 >> (2 * link)) & 3
    }

    #[inline]
    pub fn has_writebacks(self) -> bool {
        self.0 & Self::WRITEBACKS != 0
    }

    #[inline]
    pub fn set_load_split(&mut self) {
        self.0 |= Self::LOAD_SPLIT;
    }

    #[inline]
    pub fn set_store_split(&mut self) {
        self.0 |= Self::STORE_SPLIT;
    }

    /// A load spanned two lines.
    #[inline]
    pub fn load_split(self) -> bool {
        self.0 & Self::LOAD_SPLIT != 0
    }

    /// A store spanned two lines.
    #[inline]
    pub fn store_split(self) -> bool {
        self.0 & Self::STORE_SPLIT != 0
    }
}

/// Which instructions of a batch a listener wants timed in detail
/// ([`Listener::begin_batch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Details {
    None,
    All,
    /// The batch's instructions from this index on.
    From(usize),
}

impl Details {
    /// What two listeners on the same stream need together.
    pub fn union(self, other: Details) -> Details {
        match (self, other) {
            (Details::All, _) | (_, Details::All) => Details::All,
            (Details::From(a), Details::From(b)) => Details::From(a.min(b)),
            (d @ Details::From(_), Details::None) | (Details::None, d) => d,
        }
    }
}

/// What a batch of a sampled dynamic run is to the timing model (SMARTS): the
/// batches between windows are not timed at all, so listeners never see them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BatchPart {
    /// Part of a stretch timed in full (an exact run, or the exact prefix of a sampled one).
    Whole,
    /// The detailed warm-up of a window, after a stretch the model did not time: not measured.
    WarmUp,
    /// A measured unit, standing for `weight` units of the run (its sampling period).
    Unit { weight: f64 },
}

impl Default for BatchPart {
    fn default() -> Self {
        BatchPart::Whole
    }
}

/// A consumer of the per-instruction stream (accounting views).
pub trait Listener {
    /// Whether the listener reads [`StageDetails`]: drivers then time with
    /// [`crate::Core::step`] and call [`Listener::on_detailed`], else with the
    /// cheaper [`crate::Core::step_fast`] and call [`Listener::on_instruction`].
    const DETAILS: bool = true;

    /// An instruction timed by the cheap step (no details).
    fn on_instruction(&mut self, index: usize, times: &StageTimes);

    /// An instruction timed by the detailed step. A listener that reads only
    /// the stage times need not tell the two apart.
    #[inline]
    fn on_detailed(&mut self, index: usize, times: &StageTimes, details: &StageDetails) {
        let _ = details;
        self.on_instruction(index, times);
    }

    /// A batch of `len` instructions begins (dynamic runs; static analysis has
    /// none): which of them the listener wants timed in detail. A listener that
    /// samples decides here; it still sees every instruction of the batch.
    #[inline]
    fn begin_batch(&mut self, _len: usize) -> Details {
        if self.wants_details() {
            Details::All
        } else {
            Details::None
        }
    }

    /// A batch of a sampled run begins: [`Listener::begin_batch`] for a batch
    /// timed in full; a listener that tells warm-ups from units overrides it.
    #[inline]
    fn begin_part(&mut self, len: usize, part: BatchPart) -> Details {
        let _ = part;
        self.begin_batch(len)
    }

    /// Whether this listener decides batch by batch (in `begin_batch`) which
    /// details it wants. The driver must then ask it on the timing thread: such
    /// a listener never gets a thread of its own.
    #[inline]
    fn samples(&self) -> bool {
        false
    }

    /// [`Listener::DETAILS`] for this listener as configured: one switched off
    /// reads nothing, and its driver can then time with the cheaper step.
    #[inline]
    fn wants_details(&self) -> bool {
        Self::DETAILS
    }
}

impl Listener for () {
    const DETAILS: bool = false;

    #[inline]
    fn on_instruction(&mut self, _: usize, _: &StageTimes) {}
}

impl<A: Listener, B: Listener> Listener for (A, B) {
    const DETAILS: bool = A::DETAILS || B::DETAILS;

    #[inline]
    fn on_instruction(&mut self, i: usize, t: &StageTimes) {
        self.0.on_instruction(i, t);
        self.1.on_instruction(i, t);
    }

    #[inline]
    fn on_detailed(&mut self, i: usize, t: &StageTimes, d: &StageDetails) {
        self.0.on_detailed(i, t, d);
        self.1.on_detailed(i, t, d);
    }

    #[inline]
    fn wants_details(&self) -> bool {
        self.0.wants_details() || self.1.wants_details()
    }

    #[inline]
    fn begin_batch(&mut self, len: usize) -> Details {
        self.0.begin_batch(len).union(self.1.begin_batch(len))
    }

    #[inline]
    fn begin_part(&mut self, len: usize, part: BatchPart) -> Details {
        self.0.begin_part(len, part).union(self.1.begin_part(len, part))
    }

    #[inline]
    fn samples(&self) -> bool {
        self.0.samples() || self.1.samples()
    }
}

#[cfg(test)]
mod tests {
    use super::LineEvents;

    #[test]
    fn line_events_keep_three_links_and_two_split_flags_apart() {
        let mut e = LineEvents::default();
        assert!(!e.has_writebacks() && !e.load_split() && !e.store_split());
        e.set_store_split();
        e.set_writebacks([1, 5, 2]);
        assert_eq!((e.writebacks(0), e.writebacks(1), e.writebacks(2)), (1, 3, 2), "counts saturate at 3");
        assert!(e.store_split() && !e.load_split(), "setting write-backs keeps the flags");
        e.set_load_split();
        e.set_writebacks([0, 0, 0]);
        assert!(!e.has_writebacks() && e.load_split() && e.store_split());
    }
}
