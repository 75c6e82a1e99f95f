//! The verdict: the ranked causes of a block's or a run's time, each with
//! every view's evidence (the rules are `bottlenose_analysis::verdict`'s).

use bottlenose_metrics::Unit;
use serde::Serialize;

/// A cause of lost time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// A loop-carried chain of dependent instructions: latency bound.
    DependencyChain,
    /// A port group that runs at capacity.
    PortPressure { ports: String },
    /// Divisions occupying the divider.
    Divider,
    /// The core's dispatch/retire width: the code issues at full width.
    PipelineWidth,
    /// The reorder window (ROB, scheduler, load buffer) fills.
    InstructionWindow,
    /// Instruction fetch: icache/ITLB misses, BTB resteers.
    Frontend,
    BranchMispredictions,
    /// Loads served beyond L1: by `level`.
    CacheMisses { level: CacheLevel },
    TlbMisses,
    /// Stores leave the store buffer slower than they come.
    StoreBuffer,
}

/// The level that serves a load that missed the level before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheLevel {
    L2,
    L3,
    Dram,
}

impl CacheLevel {
    pub const ALL: [CacheLevel; 3] = [CacheLevel::L2, CacheLevel::L3, CacheLevel::Dram];

    pub fn name(self) -> &'static str {
        match self {
            CacheLevel::L2 => "L2",
            CacheLevel::L3 => "L3",
            CacheLevel::Dram => "DRAM",
        }
    }

    /// The level whose misses this one serves.
    pub fn above(self) -> &'static str {
        match self {
            CacheLevel::L2 => "L1",
            CacheLevel::L3 => "L2",
            CacheLevel::Dram => "L3",
        }
    }
}

impl Cause {
    /// A short human title: "dependency chain", "port pressure on p5".
    pub fn title(&self) -> String {
        match self {
            Cause::DependencyChain => "dependency chain (latency)".into(),
            Cause::PortPressure { ports } => format!("port pressure on {ports}"),
            Cause::Divider => "divider".into(),
            Cause::PipelineWidth => "pipeline width".into(),
            Cause::InstructionWindow => "instruction window".into(),
            Cause::Frontend => "frontend (instruction fetch)".into(),
            Cause::BranchMispredictions => "branch mispredictions".into(),
            Cause::CacheMisses { level } => format!("cache misses served by {}", level.name()),
            Cause::TlbMisses => "TLB misses".into(),
            Cause::StoreBuffer => "store buffer".into(),
        }
    }
}

/// Which view a piece of evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    Sensitivity,
    TopDown,
    CpiStacks,
    Idealization,
    ResourceUsage,
    Counters,
}

impl View {
    pub fn name(self) -> &'static str {
        match self {
            View::Sensitivity => "sensitivity",
            View::TopDown => "Top-Down",
            View::CpiStacks => "CPI stacks",
            View::Idealization => "idealization",
            View::ResourceUsage => "resource usage",
            View::Counters => "counters",
        }
    }

    /// Experiments measure a change; the other views account for cycles.
    pub fn measured(self) -> bool {
        matches!(self, View::Sensitivity | View::Idealization)
    }
}

/// Where the gain of a cause comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GainSource {
    /// The idealization's CPI reduction (the cause removed entirely).
    Idealization,
    /// The time a single knob at the largest weight saves.
    Sensitivity,
    /// The time a set of knobs accelerated together saves (co-limited).
    SensitivitySet,
    /// The largest of the three CPI stack components (nothing measured: an upper bound).
    CpiStacks,
    /// The Top-Down node's normalized share (nothing measured).
    TopDown,
    /// Per hotspot: events × penalty, or the hotspot's time beyond its static estimate.
    Counters,
    /// Per loop: the static analysis of the loop body, scaled to the loop's measured time.
    StaticLoop,
}

/// The estimated gain of removing a cause.
#[derive(Debug, Clone, Serialize)]
pub struct Gain {
    /// Fraction of the scope's cycles it would save.
    pub share: f64,
    /// The same as a speedup: 1 / (1 - share) - 1.
    pub speedup: f64,
    pub source: GainSource,
    /// How the number was obtained, in words.
    pub basis: String,
}

impl Gain {
    pub fn new(share: f64, source: GainSource, basis: String) -> Gain {
        let share = share.clamp(0.0, 0.999);
        Gain { share, speedup: 1.0 / (1.0 - share) - 1.0, source, basis }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    Agree,
    Disagree,
}

#[derive(Debug, Clone, Serialize)]
pub struct SensitivityEvidence {
    /// The knob, or the knobs accelerated together.
    pub resources: Vec<String>,
    pub weight: f64,
    pub speedup: f64,
    pub max_weight: f64,
    pub max_speedup: f64,
    pub supports: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TopDownEvidence {
    pub node: String,
    /// The formula's value, a fraction of `unit`.
    pub value: Option<f64>,
    pub unit: Option<Unit>,
    /// Share of all slots, fitted inside the parent.
    pub normalized: Option<f64>,
    pub flagged: bool,
    pub supports: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct StackEvidence {
    pub components: Vec<String>,
    /// Fractions of the cycles at each stage.
    pub dispatch: f64,
    pub issue: f64,
    pub commit: f64,
    pub supports: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct IdealizationEvidence {
    pub what: String,
    pub cpi_reduction: f64,
    /// The reduction as a fraction of the cycles (after `apportioned`).
    pub share: f64,
    /// The part of the experiment's gain given to this cause when it removes
    /// several (a perfect dcache removes every level's misses); 1 otherwise.
    pub apportioned: f64,
    pub supports: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct UsageEvidence {
    pub resource: String,
    /// Fraction of the resource's capacity the loop uses.
    pub usage: f64,
    pub supports: bool,
}

/// An event counted per instruction over a whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CountedEvent {
    Mispredictions,
}

impl CountedEvent {
    pub fn name(self) -> &'static str {
        match self {
            CountedEvent::Mispredictions => "mispredictions",
        }
    }
}

/// Events of a scope's own instructions and what they cost.
#[derive(Debug, Clone, Serialize)]
pub struct CounterEvidence {
    pub event: CountedEvent,
    pub count: u64,
    /// Cycles per event assumed.
    pub penalty: f64,
    /// Fraction of the hotspot's cycles: count × penalty (an upper bound: no overlap).
    pub share: f64,
    pub supports: bool,
}

/// The views' evidence for one cause. An absent view says why in `missing`.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Evidence {
    pub sensitivity: Vec<SensitivityEvidence>,
    pub topdown: Option<TopDownEvidence>,
    pub stacks: Option<StackEvidence>,
    pub idealization: Option<IdealizationEvidence>,
    pub usage: Option<UsageEvidence>,
    pub counters: Vec<CounterEvidence>,
    /// For a dependency chain: the longest register recurrence of the loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recurrence: Option<Recurrence>,
    /// Views with nothing to say about this cause, and why.
    pub missing: Vec<String>,
}

/// One ranked cause.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// 1 for the largest gain.
    pub rank: usize,
    pub cause: Cause,
    pub title: String,
    pub gain: Gain,
    pub agreement: Agreement,
    /// Why the views disagree (or a note on what is missing when they agree).
    pub reason: Option<String>,
    /// What to try, naming the loop, line or instruction where known.
    pub action: String,
    pub evidence: Evidence,
}

/// The verdict on one scope (a block, a run, a function, a loop).
#[derive(Debug, Clone, Serialize, Default)]
pub struct Verdict {
    pub scope: String,
    pub causes: Vec<Finding>,
    /// The views this verdict could read.
    pub views: Vec<View>,
    /// What the verdict could not see, and assumptions it made.
    pub notes: Vec<String>,
    /// Runs: the same verdict for the top functions and loops.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hotspots: Vec<HotspotVerdict>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HotspotKind {
    Function,
    Loop,
}

/// The verdict on one of a run's hottest functions or loops.
#[derive(Debug, Clone, Serialize)]
pub struct HotspotVerdict {
    pub kind: HotspotKind,
    /// Function name, or `loop 0x401020 in kernel`.
    pub name: String,
    /// `file:line` where known.
    pub source: Option<String>,
    pub cycles: f64,
    /// Fraction of the run's cycles.
    pub share: f64,
    pub verdict: Verdict,
}

/// The longest chain of dependent instructions from a register back to
/// itself in one iteration: a lower bound on the cycles per iteration.
#[derive(Debug, Clone, Serialize)]
pub struct Recurrence {
    pub register: String,
    /// Latency of one trip around the chain: cycles per iteration it imposes.
    pub cycles: f64,
    /// The instructions on the chain, in order: `address: asm (latency)`.
    pub steps: Vec<String>,
    /// The chain goes through a load's address (pointer chasing) or data.
    pub through_load: bool,
}
