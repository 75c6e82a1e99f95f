//! Named resources that sensitivity analysis can accelerate.
//!
//! A knob name is a port unit (`p1`: scales that port, so every group that
//! contains it grows too), a port group (`p23`: scales the group's combined
//! throughput only, as Gus does), or one of the core's other capacities.

use bottlenose_machine::{GroupId, Machine};
use bottlenose_timing::{Acceleration, RateEvent};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    Unit(u16),
    Group(GroupId),
    /// Dispatch width: Gus's FRONTEND.
    Frontend,
    Commit,
    /// ROB size: Gus's INST WINDOW.
    Window,
    Scheduler,
    LoadBuffer,
    StoreBuffer,
    /// Every execution latency: Gus's INST LAT.
    Latency,
    /// L1 store bandwidth: how fast retired stores leave the store buffer.
    StoreDrain,
    /// Latency of every access that misses L1 (dynamic runs).
    MissLatency,
    L2Bandwidth,
    L3Bandwidth,
    DramBandwidth,
    /// Branch mispredict penalty (dynamic runs).
    MispredictPenalty,
    /// The rate of an event (mispredictions, misses at a cache level, TLB
    /// misses), divided by the weight: what idealization removes entirely
    /// (dynamic runs; see the timing crate's `thinning.rs`).
    Rate(RateEvent),
}

pub const CORE_KNOBS: &[(&str, Knob)] = &[
    ("frontend", Knob::Frontend),
    ("commit", Knob::Commit),
    ("window", Knob::Window),
    ("scheduler", Knob::Scheduler),
    ("load_buffer", Knob::LoadBuffer),
    ("store_buffer", Knob::StoreBuffer),
    ("latency", Knob::Latency),
    ("store_drain", Knob::StoreDrain),
];

/// Knobs that only matter when the functional layer runs (caches, predictors).
pub const MEMORY_KNOBS: &[(&str, Knob)] = &[
    ("miss_latency", Knob::MissLatency),
    ("l2_bw", Knob::L2Bandwidth),
    ("l3_bw", Knob::L3Bandwidth),
    ("dram_bw", Knob::DramBandwidth),
    ("mispredict_penalty", Knob::MispredictPenalty),
    ("mispredict_rate", Knob::Rate(RateEvent::Mispredict)),
    ("l1_miss_rate", Knob::Rate(RateEvent::L1Miss)),
    ("l2_miss_rate", Knob::Rate(RateEvent::L2Miss)),
    ("l3_miss_rate", Knob::Rate(RateEvent::L3Miss)),
    ("tlb_miss_rate", Knob::Rate(RateEvent::TlbMiss)),
];

impl Knob {
    pub fn parse(machine: &Machine, name: &str) -> Option<Knob> {
        let lower = name.to_ascii_lowercase();
        if let Some((_, k)) = CORE_KNOBS.iter().chain(MEMORY_KNOBS).find(|(n, _)| *n == lower) {
            return Some(*k);
        }
        let g = machine.group_id(name)?;
        if (g as usize) < machine.units.len() {
            Some(Knob::Unit(g))
        } else {
            Some(Knob::Group(g))
        }
    }

    pub fn name(&self, machine: &Machine) -> String {
        match self {
            Knob::Unit(u) => machine.units[*u as usize].clone(),
            Knob::Group(g) => machine.groups[*g as usize].name.clone(),
            _ => CORE_KNOBS.iter().chain(MEMORY_KNOBS).find(|(_, k)| k == self).map(|(n, _)| n.to_string()).unwrap_or_default(),
        }
    }

    /// Multiplies this knob's weight into `acc`.
    pub fn apply(&self, acc: &mut Acceleration, w: f64) {
        match self {
            Knob::Unit(u) => acc.units[*u as usize] *= w,
            Knob::Group(g) => acc.groups[*g as usize] *= w,
            Knob::Frontend => acc.dispatch_width *= w,
            Knob::Commit => acc.commit_width *= w,
            Knob::Window => acc.rob *= w,
            Knob::Scheduler => acc.scheduler *= w,
            Knob::LoadBuffer => acc.load_buffer *= w,
            Knob::StoreBuffer => acc.store_buffer *= w,
            Knob::Latency => acc.latency *= w,
            Knob::StoreDrain => acc.store_drain *= w,
            Knob::MissLatency => acc.miss_latency *= w,
            Knob::L2Bandwidth => acc.l2_bandwidth *= w,
            Knob::L3Bandwidth => acc.l3_bandwidth *= w,
            Knob::DramBandwidth => acc.dram_bandwidth *= w,
            Knob::MispredictPenalty => acc.mispredict_penalty *= w,
            Knob::Rate(e) => acc.rates[*e as usize] *= w,
        }
    }
}

/// Acceleration with every knob of `set` scaled by `w`.
pub fn accelerate(machine: &Machine, set: &[Knob], w: f64) -> Acceleration {
    let mut acc = Acceleration::nominal(machine);
    for k in set {
        k.apply(&mut acc, w);
    }
    acc
}

/// Weights a knob may be multiplied by, in sensitivity sweeps and what-if runs
/// alike: from ten times slower to a hundred times faster. Zero or a negative
/// weight would be a resource with no (or negative) capacity, on which the
/// model waits forever; beyond ×100 a window knob (ROB, buffers) grows to
/// millions of entries and the model is far outside anything it was built for.
pub const WEIGHT_RANGE: std::ops::RangeInclusive<f64> = 0.1..=100.0;

/// Checks one weight against [`WEIGHT_RANGE`] (NaN and infinities fail).
pub fn check_weight(w: f64) -> Result<(), crate::AnalysisError> {
    if WEIGHT_RANGE.contains(&w) {
        Ok(())
    } else {
        Err(crate::AnalysisError::BadWeight(w))
    }
}

/// Parses one `RESOURCE=WEIGHT` acceleration of a what-if run (the resource
/// name is checked against the machine later, the weight here).
pub fn parse_acceleration(spec: &str) -> Result<(String, f64), crate::AnalysisError> {
    let bad = |why: &str| crate::AnalysisError::BadAcceleration { spec: spec.to_string(), why: why.to_string() };
    let (name, w) = spec.split_once('=').ok_or_else(|| bad("expected RESOURCE=WEIGHT, e.g. p23=1.15"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(bad("no resource before '='"));
    }
    let w: f64 = w.trim().parse().map_err(|_| bad("the weight is not a number"))?;
    check_weight(w).map_err(|e| bad(&e.to_string()))?;
    Ok((name.to_string(), w))
}
