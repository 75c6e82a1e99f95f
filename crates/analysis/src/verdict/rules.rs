//! The rules of the verdict in one table: for each cause, the sensitivity
//! knobs, Top-Down nodes, CPI-stack components and idealization that speak of
//! it, and the thresholds at which a view supports a cause.

use super::{CacheLevel, Cause};
use crate::accounting::Ideal;
use bottlenose_timing::CoreKnob;

/// A view supports a cause when it puts at least this fraction of the cycles on it;
/// a cause is ranked when its gain is at least this.
pub const SIGNIFICANT: f64 = 0.03;

/// Usage from which a port group counts as saturated (as for automatic combinations).
pub use crate::block::SATURATED;

/// Sets of knobs accelerated together speak for a cause only up to this size:
/// beyond it (every port at once) the set says nothing about one cause.
pub const MAX_SET: usize = 3;

/// One row of the table.
pub(crate) struct Rule {
    /// Sensitivity knobs (single) that change the cause.
    pub knobs: Vec<String>,
    /// Why no knob speaks of the cause, when none does.
    pub no_knob: Option<&'static str>,
    /// Top-Down nodes, the first one the tree has is used.
    pub topdown: &'static [&'static str],
    /// CPI-stack components, summed.
    pub stack: &'static [&'static str],
    /// Fraction of the cycles from which the stack components support the cause.
    pub stack_threshold: f64,
    pub ideal: Option<Ideal>,
    /// Whether, with nothing measured, the accounting views' share may stand
    /// for the gain (not for the width: the base component is useful work).
    pub accounting_gain: bool,
}

/// What some rows depend on.
pub(crate) struct RuleInputs {
    /// For `l1_miss_rate`, `l2_miss_rate`, `l3_miss_rate`: the level, among
    /// those beyond L1, L2, L3, with the most miss stall cycles. Fewer misses
    /// at a level serve loads from it instead of from every level beyond it,
    /// so the knob speaks for the one that costs most (and `miss_latency`,
    /// which scales every level, goes with `l1_miss_rate`).
    pub rate_level: [CacheLevel; 3],
    /// Port groups that divisions occupy (at least half of their uops).
    pub divider_groups: Vec<String>,
}

/// The CLI names of core knobs (the sensitivity rows are named so).
fn names(v: &[CoreKnob]) -> Vec<String> {
    v.iter().map(|k| k.name().to_string()).collect()
}

pub(crate) fn rule(cause: &Cause, inputs: &RuleInputs) -> Rule {
    let row = |knobs: Vec<String>, topdown: &'static [&'static str], stack: &'static [&'static str], ideal: Option<Ideal>| Rule {
        knobs,
        no_knob: None,
        topdown,
        stack,
        stack_threshold: SIGNIFICANT,
        ideal,
        accounting_gain: true,
    };
    match cause {
        Cause::DependencyChain => row(names(&[CoreKnob::Latency]), &["Ports_Utilized_0", "Core_Bound"], &["alu_latency", "dependence"], Some(Ideal::Alu1)),
        Cause::PortPressure { ports } => row(vec![ports.clone()], &["Ports_Utilization", "Core_Bound"], &["structural"], None),
        Cause::Divider => Rule {
            no_knob: Some("no port group is mostly divisions"),
            ..row(inputs.divider_groups.clone(), &["Divider"], &[], None)
        },
        // base is useful work: only a stack (nearly) all base says the width binds
        Cause::PipelineWidth => Rule {
            stack_threshold: SATURATED,
            accounting_gain: false,
            ..row(names(&[CoreKnob::Frontend, CoreKnob::Commit]), &["Retiring"], &["base"], None)
        },
        Cause::InstructionWindow => row(names(&[CoreKnob::Window, CoreKnob::Scheduler, CoreKnob::LoadBuffer]), &[], &[], None),
        Cause::Frontend => Rule {
            no_knob: Some("no sensitivity knob speeds instruction fetch up (`frontend` is the dispatch width)"),
            ..row(vec![], &["Fetch_Latency", "Frontend_Bound"], &["icache"], Some(Ideal::Icache))
        },
        Cause::BranchMispredictions => row(
            names(&[CoreKnob::MispredictRate, CoreKnob::MispredictPenalty]),
            &["Branch_Mispredicts", "Bad_Speculation"],
            &["bpred"],
            Some(Ideal::Branch),
        ),
        Cause::CacheMisses { level } => {
            let (bandwidth, node, component): (CoreKnob, &'static [&'static str], &'static [&'static str]) = match level {
                CacheLevel::L2 => (CoreKnob::L2Bandwidth, &["L2_Bound"], &["dcache_l2"]),
                CacheLevel::L3 => (CoreKnob::L3Bandwidth, &["L3_Bound"], &["dcache_l3"]),
                CacheLevel::Dram => (CoreKnob::DramBandwidth, &["Ext_Memory_Bound"], &["dcache_dram"]),
            };
            let mut knobs = names(&[bandwidth]);
            for (rate, l) in [CoreKnob::L1MissRate, CoreKnob::L2MissRate, CoreKnob::L3MissRate].iter().zip(inputs.rate_level) {
                if l == *level {
                    knobs.push(rate.name().to_string());
                }
            }
            if inputs.rate_level[0] == *level {
                knobs.push(CoreKnob::MissLatency.name().into());
            }
            row(knobs, node, component, Some(Ideal::Dcache))
        }
        Cause::TlbMisses => row(names(&[CoreKnob::TlbMissRate]), &[], &[], None),
        Cause::StoreBuffer => row(names(&[CoreKnob::StoreBuffer, CoreKnob::StoreDrain]), &["Stores_Bound"], &["dcache_stores"], None),
    }
}

/// The causes a scope is judged on: the core's always, the memory side's in
/// dynamic runs (static code has no misses or mispredictions), and one port
/// pressure per port group named.
pub(crate) fn candidates(dynamic: bool, port_groups: &[String]) -> Vec<Cause> {
    let mut v = vec![Cause::DependencyChain, Cause::Divider, Cause::PipelineWidth, Cause::InstructionWindow, Cause::StoreBuffer];
    v.extend(port_groups.iter().map(|g| Cause::PortPressure { ports: g.clone() }));
    if dynamic {
        v.extend([Cause::Frontend, Cause::BranchMispredictions, Cause::TlbMisses]);
        v.extend(CacheLevel::ALL.iter().map(|&level| Cause::CacheMisses { level }));
    }
    v
}

/// Time saved by a speedup `s`: `s / (1 + s)` (negative speedups save nothing).
pub(crate) fn saved(speedup: f64) -> f64 {
    let s = speedup.max(0.0);
    s / (1.0 + s)
}
