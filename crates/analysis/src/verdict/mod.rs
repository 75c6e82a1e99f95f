//! One verdict instead of several answers: the ranked causes of a block's or a
//! run's time, each with the evidence of every view, whether the views agree
//! (and why not when they do not), and what to try.
//!
//! # Views
//!
//! * **sensitivity** — the speedup when one knob (or a set of knobs) is
//!   accelerated, at the reference weight (+15 %) and the largest (×2);
//! * **Top-Down** — the simulated tree's node for the cause: raw value, unit, and
//!   normalized share of all slots;
//! * **CPI stacks** — the matching components at dispatch, issue and commit, as
//!   fractions of the cycles;
//! * **idealization** — the CPI reduction of removing the cause entirely
//!   (perfect caches or branch prediction, 1-cycle ALU);
//! * **resource usage** — the busiest port groups of the loop (Gus Table 1);
//! * **counters** (per hotspot of a run) — mispredictions and loads served
//!   beyond L1 by the hotspot's own instructions, times their penalty.
//!
//! # Rules (the table is [`rules::rule`])
//!
//! | cause | knobs | Top-Down node | stack components | idealization |
//! | --- | --- | --- | --- | --- |
//! | dependency chain | `latency` | Ports_Utilized_0 | alu_latency + dependence | alu_1cycle |
//! | port pressure (group) | the group | Ports_Utilization | structural | — |
//! | divider | the groups divides occupy | Divider | — | — |
//! | pipeline width | `frontend`, `commit` | Retiring | base | — |
//! | instruction window | `window`, `scheduler`, `load_buffer` | — | — | — |
//! | frontend (fetch) | — | Fetch_Latency | icache | perfect_icache |
//! | branch mispredictions | `mispredict_rate`, `mispredict_penalty` | Branch_Mispredicts | bpred | perfect_branch |
//! | cache misses served by L2 / L3 / DRAM | `l2_`/`l3_`/`dram_bw`, the miss-rate knobs and `miss_latency`¹ | L2_Bound / L3_Bound / Ext_Memory_Bound | dcache_l2 / l3 / dram | perfect_dcache² |
//! | TLB misses | `tlb_miss_rate` | — | — | — |
//! | store buffer | `store_buffer`, `store_drain` | Stores_Bound | dcache_stores | — |
//!
//! ¹ `lN_miss_rate` turns misses at level N into hits there, so it speeds up
//! the loads of every level beyond N, and `miss_latency` scales every level
//! beyond L1: each is evidence for the level beyond N (beyond L1) with the
//! most stall cycles (largest stack component), not for all of them. ² A perfect dcache removes the misses
//! of every level: its gain is split between the levels in proportion to their
//! stack components (largest stage of each).
//!
//! A knob the run does not have (the miss-rate knobs are newer than some
//! reports) is simply absent from the evidence.
//!
//! * A view **supports** a cause when it puts at least [`SIGNIFICANT`] of the
//!   cycles on it: the idealization's CPI reduction over the CPI, the time a ×2
//!   knob saves (`s / (1 + s)` for a speedup `s`; or a speedup of at least
//!   [`crate::THRESHOLD`] at the reference weight), the largest of the three
//!   stack components, the Top-Down node's normalized share; resource usage
//!   supports port pressure from [`SATURATED`].
//! * The **gain** is the best-supported number: the largest *measured* one —
//!   the idealization's reduction or the ×2 knob's saving (a set of knobs
//!   accelerated together only when no single knob of the cause helps: the
//!   cause is then co-limited) —; else the counters' estimate (mispredictions
//!   × penalty); with nothing measured or counted, and only when every
//!   accounting view supports the cause, the largest stack component (an upper
//!   bound), else the Top-Down share (never for the pipeline width: its stack
//!   component is useful work).
//!   The gain says which it is ([`GainSource`]).
//! * The views **agree** when every view present supports the cause, or none
//!   does; otherwise they disagree and the verdict says why, from the pattern
//!   of the disagreement (co-limitation, overlap with a larger cause, a knob that
//!   changes a penalty but not the event's rate, a chain through loads the
//!   1-cycle ALU does not shorten...).
//! * Causes are ranked by gain (ties: the one more views support). A cause is
//!   kept when its gain is at least [`SIGNIFICANT`], or when every accounting
//!   view (Top-Down, stacks) supports it while the experiments measure no gain
//!   (a refuted cause: shown with why); the others are dropped.
//!
//! Gains of different causes overlap: they do not add up.

mod actions;
mod body;
mod build;
mod hotspots;
mod judge;
mod rules;

pub use body::{Body, BodyInst, Recurrence};
pub use actions::BranchSite;
pub use build::{of_block, of_run, RunContext};
pub use rules::{SATURATED, SIGNIFICANT};

pub use bottlenose_report_model::verdict::{
    Agreement, CacheLevel, Cause, CountedEvent, CounterEvidence, Evidence, Finding, Gain, GainSource, HotspotKind, HotspotVerdict, IdealizationEvidence,
    SensitivityEvidence, StackEvidence, TopDownEvidence, UsageEvidence, Verdict, View,
};
