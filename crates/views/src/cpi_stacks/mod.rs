//! CPI stacks at dispatch, issue and commit (Eyerman et al., Table II), in
//! cycles; each stack sums to the run's cycles and `base` = fused uops / W is
//! the same in all three (W = dispatch width; a wider stage carries its excess
//! to the next cycle, as the paper proposes).
//!
//! Per-stage rules on the instruction-driven model (`crate::picture` rebuilds
//! the per-cycle picture; [`counts`] applies these rules to it):
//!
//! * **dispatch** — the lost slots between consecutive instructions: waiting
//!   for a mispredicted branch to resolve and the frontend to resteer → `bpred`;
//!   a BTB-miss resteer → `bpred`; an icache/ITLB miss → `icache`; a full
//!   store buffer → `dcache_stores`; a full ROB, scheduler or load buffer → the
//!   ROB head in the middle of the gap, classified as at commit (below). The
//!   drain after the last dispatch is charged to the ROB head too.
//! * **issue** — per cycle, the slots not used by fused uops starting
//!   execution: the oldest instruction waiting in the scheduler names the cause:
//!   while it waits for a port → `structural`; for an operand, the producer's
//!   penalty (a load that missed L1 → `dcache_l2/l3/dram` for the cycles beyond
//!   an L1 hit, a multi-cycle operation → `alu_latency` for the cycles beyond
//!   one) and plain `dependence` otherwise (L1 hits, single-cycle producers,
//!   store forwarding). An empty scheduler is charged to why dispatch stalled
//!   in that cycle (frontend, store buffer, or the ROB head behind a full
//!   backend), else `other`.
//! * **commit** — per cycle, the slots not used by retiring uops: the ROB head
//!   (the oldest uncommitted instruction) names the cause — its own miss beyond
//!   an L1 hit → `dcache_*`, its latency beyond one cycle → `alu_latency`, the
//!   rest of its wait → `dependence`; an empty ROB → the reason the head was
//!   dispatched late (`bpred`, `icache`, `dcache_stores`), else `other`. Commit
//!   is instruction-driven like dispatch: the lost slots before an instruction
//!   commits are the gap in commit-slot time. A commit stage wider than W
//!   commits faster than W after a stall; that excess (Eyerman's carry) is
//!   taken from the commit stack's stall components in proportion, so that
//!   base is the same as at dispatch.
//!
//! `microcode` is always 0: the model has no microcode-sequencer decode stall
//! (microcoded uops dispatch at full width; Top-Down's MicroSequencer node
//! reports their slots). `other` collects lost slots with no recorded reason
//! (pipeline fill, the cycle a full ROB frees). `unattributed` is the run's
//! cycles minus every other component: what the rules above did not account
//! for (rounding of the carries; with sampled views, the windows' estimate
//! against the whole run). It is reported, not folded into a component, and
//! the tests hold it under 2 % of the cycles.


mod counts;

pub(crate) use counts::{CpiCounts, IssueCarry, IssueSweep};
pub use bottlenose_report_model::views::{CpiStacks, COMPONENTS, NCOMP};

/// A component of the CPI stacks (Eyerman Table II), in report order. Also
/// what the per-cycle picture blames a lost slot on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Component {
    Base,
    Icache,
    Bpred,
    DcacheL2,
    DcacheL3,
    DcacheDram,
    DcacheStores,
    AluLatency,
    Dependence,
    Microcode,
    Structural,
    Other,
    /// The run's cycles minus every other component.
    Unattributed,
}

impl Component {
    /// Every component, indexed by its discriminant.
    pub const ALL: [Component; NCOMP] = [
        Component::Base,
        Component::Icache,
        Component::Bpred,
        Component::DcacheL2,
        Component::DcacheL3,
        Component::DcacheDram,
        Component::DcacheStores,
        Component::AluLatency,
        Component::Dependence,
        Component::Microcode,
        Component::Structural,
        Component::Other,
        Component::Unattributed,
    ];

    pub fn name(self) -> &'static str {
        COMPONENTS[self as usize]
    }

    /// What waiting for a result of latency class `c` is, beyond plain dependence.
    #[inline(always)]
    pub(crate) fn of_latency(c: bottlenose_timing::LatencyClass) -> Component {
        use bottlenose_timing::LatencyClass;
        match c {
            LatencyClass::Long => Component::AluLatency,
            LatencyClass::L2 => Component::DcacheL2,
            LatencyClass::L3 => Component::DcacheL3,
            LatencyClass::Dram => Component::DcacheDram,
            _ => Component::Dependence,
        }
    }
}

#[cfg(test)]
mod tests;
