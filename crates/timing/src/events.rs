//! What the timing model tells its listeners about each instruction.

use bottlenose_machine::GroupId;
use serde::Serialize;

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

/// Stage times of one executed instruction, in cycles (integral unless a
/// latency or capacity is scaled by a fractional weight).
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

impl StageTimes {
    pub fn zero() -> Self {
        Self {
            dispatch: 0.0,
            issue: 0.0,
            ready: 0.0,
            complete: 0.0,
            commit: 0.0,
            dispatch_cause: DispatchCause::Width,
            issue_cause: IssueCause::Dispatch,
            commit_cause: CommitCause::Complete,
            mispredicted: false,
        }
    }
}

/// Dynamic facts of one execution of an instruction (from the functional layer).
/// Static analysis passes the default: L1 hits, correct predictions, no aliasing.
#[derive(Debug, Clone, Copy, Default)]
pub struct DynInfo {
    /// Extra load latency beyond an L1 hit that is not a cache fill (TLB misses), cycles.
    pub load_extra_latency: f64,
    /// Level that served the load: 0 = L1 (hit), 1 = L2, 2 = L3, 3 = DRAM.
    pub load_level: u8,
    /// Level that held the stored line (write-allocate fills it before the store drains).
    pub store_level: u8,
    /// Load and store address (8-byte granule dependencies through shadow memory).
    pub load_addr: Option<u64>,
    pub store_addr: Option<u64>,
    pub mispredicted: bool,
    /// Cycles the frontend delivers this instruction late (icache/ITLB miss,
    /// BTB-miss resteer of a taken branch).
    pub fetch_stall: f64,
}

/// A consumer of the per-instruction stream (accounting views).
pub trait Listener {
    fn on_instruction(&mut self, index: usize, times: &StageTimes);
}

impl Listener for () {
    #[inline]
    fn on_instruction(&mut self, _: usize, _: &StageTimes) {}
}

impl<A: Listener, B: Listener> Listener for (A, B) {
    #[inline]
    fn on_instruction(&mut self, i: usize, t: &StageTimes) {
        self.0.on_instruction(i, t);
        self.1.on_instruction(i, t);
    }
}
