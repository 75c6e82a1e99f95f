//! The core's scalable capacities, in one table.
//!
//! Every capacity that a what-if run (`--accelerate`) or a sensitivity sweep can
//! scale, other than a port unit or a port group, is a [`CoreKnob`]: its CLI name,
//! whether it needs the functional layer (caches and predictors, i.e. a dynamic run),
//! the machine-file value it scales and what a weight above 1 means all come from
//! [`KNOBS`]. [`crate::Acceleration`] holds one weight per knob in the same order, so
//! a new knob is one enum variant, one table row and its use in `CoreConfig::new`.

use crate::RateEvent;

/// A capacity of the core or of its memory side, scaled by a weight (1.15 = 15 % more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CoreKnob {
    /// Dispatch width (and the fetch-block rate with it): Gus's FRONTEND.
    Frontend,
    Commit,
    /// ROB size: Gus's INST WINDOW.
    Window,
    Scheduler,
    LoadBuffer,
    StoreBuffer,
    /// Every execution latency, L1 load-to-use included: Gus's INST LAT.
    Latency,
    StoreDrain,
    MissLatency,
    L2Bandwidth,
    L3Bandwidth,
    DramBandwidth,
    MispredictPenalty,
    MispredictRate,
    L1MissRate,
    L2MissRate,
    L3MissRate,
    TlbMissRate,
}

/// Where a knob matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnobScope {
    /// The out-of-order core: static blocks and dynamic runs alike.
    Core,
    /// Caches, TLBs and the branch predictor: only when the functional layer runs.
    Memory,
}

/// One row of [`KNOBS`].
#[derive(Debug)]
pub struct KnobInfo {
    pub knob: CoreKnob,
    /// The name on the command line and in reports.
    pub name: &'static str,
    pub scope: KnobScope,
    /// The machine-file value the weight scales (or divides), if it is one.
    pub scales: &'static str,
    /// What a weight `w` does.
    pub what: &'static str,
}

const fn row(knob: CoreKnob, name: &'static str, scope: KnobScope, scales: &'static str, what: &'static str) -> KnobInfo {
    KnobInfo { knob, name, scope, scales, what }
}

use CoreKnob::*;
use KnobScope::{Core as C, Memory as M};

/// Every core knob, in [`CoreKnob`] order.
pub const KNOBS: [KnobInfo; CoreKnob::COUNT] = [
    row(Frontend, "frontend", C, "core.dispatch_width", "dispatch width (and fetch blocks per cycle) x w"),
    row(Commit, "commit", C, "core.commit_width", "retire width x w"),
    row(Window, "window", C, "core.rob", "ROB entries x w"),
    row(Scheduler, "scheduler", C, "core.scheduler", "scheduler entries x w"),
    row(LoadBuffer, "load_buffer", C, "core.load_buffer", "load buffer entries x w"),
    row(StoreBuffer, "store_buffer", C, "core.store_buffer", "store buffer entries x w"),
    row(Latency, "latency", C, "forms' latencies", "every execution latency, L1 load-to-use included, / w"),
    row(StoreDrain, "store_drain", C, "memory.stores_per_cycle", "retired stores written to L1 per cycle x w"),
    row(MissLatency, "miss_latency", M, "cache.*.latency, memory.dram_latency", "extra latency of every access beyond L1 / w"),
    row(L2Bandwidth, "l2_bw", M, "cache.L2.bytes_per_cycle", "L2 -> L1 fill bandwidth x w"),
    row(L3Bandwidth, "l3_bw", M, "cache.L3.bytes_per_cycle", "L3 -> L2 fill bandwidth x w"),
    row(DramBandwidth, "dram_bw", M, "memory.dram_bytes_per_cycle", "DRAM -> L3 fill bandwidth x w"),
    row(MispredictPenalty, "mispredict_penalty", M, "branch.mispredict_penalty", "mispredict penalty / w"),
    row(MispredictRate, "mispredict_rate", M, "(predictor outcome)", "mispredictions / w (the rest timed as predicted)"),
    row(L1MissRate, "l1_miss_rate", M, "(cache outcome)", "L1 misses / w (the rest timed as L1 hits)"),
    row(L2MissRate, "l2_miss_rate", M, "(cache outcome)", "L2 misses / w (the rest timed as L2 hits)"),
    row(L3MissRate, "l3_miss_rate", M, "(cache outcome)", "accesses served by DRAM / w (the rest timed as L3 hits)"),
    row(TlbMissRate, "tlb_miss_rate", M, "(TLB outcome)", "loads' TLB misses / w (the rest timed as TLB hits)"),
];

// the table is indexed by the enum: a row out of order is a build error
const _: () = {
    let mut i = 0;
    while i < KNOBS.len() {
        assert!(KNOBS[i].knob as usize == i, "KNOBS rows must follow CoreKnob's order");
        i += 1;
    }
};

impl CoreKnob {
    pub const COUNT: usize = 18;

    pub fn info(self) -> &'static KnobInfo {
        &KNOBS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn scope(self) -> KnobScope {
        self.info().scope
    }

    /// The knob of a CLI name (case-insensitive).
    pub fn parse(name: &str) -> Option<CoreKnob> {
        KNOBS.iter().find(|k| k.name.eq_ignore_ascii_case(name)).map(|k| k.knob)
    }

    pub fn all() -> impl Iterator<Item = CoreKnob> {
        KNOBS.iter().map(|k| k.knob)
    }

    /// The event whose rate this knob divides, for the rate knobs.
    pub fn rate_event(self) -> Option<RateEvent> {
        match self {
            MispredictRate => Some(RateEvent::Mispredict),
            L1MissRate => Some(RateEvent::L1Miss),
            L2MissRate => Some(RateEvent::L2Miss),
            L3MissRate => Some(RateEvent::L3Miss),
            TlbMissRate => Some(RateEvent::TlbMiss),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        for k in CoreKnob::all() {
            assert_eq!(CoreKnob::parse(k.name()), Some(k));
            assert_eq!(CoreKnob::parse(&k.name().to_ascii_uppercase()), Some(k), "case-insensitive");
        }
        assert_eq!(CoreKnob::parse("p23"), None);
    }

    #[test]
    fn every_rate_event_has_one_knob() {
        let mut seen = [0; crate::RATE_EVENTS];
        for k in CoreKnob::all() {
            if let Some(e) = k.rate_event() {
                seen[e as usize] += 1;
                assert_eq!(k.scope(), KnobScope::Memory, "{} needs the functional layer", k.name());
            }
        }
        assert_eq!(seen, [1; crate::RATE_EVENTS]);
    }
}
