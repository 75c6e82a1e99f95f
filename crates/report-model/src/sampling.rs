//! What a sampled run's report says about its sample: the estimates with
//! their confidence intervals, the design, and whether the target was reached
//! (built by `bottlenose_analysis::dynamic::sampling`).

use serde::Serialize;

/// A value and the half-width of its confidence interval (same unit). A
/// half-width that cannot be estimated (fewer than two units measured) is NaN,
/// `null` in JSON: see [`Interval::unknown`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Interval {
    pub value: f64,
    pub half_width: f64,
}

impl Interval {
    pub fn exact(value: f64) -> Self {
        Interval { value, half_width: 0.0 }
    }

    /// A value without an interval: the sample has no spread to estimate it from.
    pub fn unknown(value: f64) -> Self {
        Interval { value, half_width: f64::NAN }
    }

    /// Whether the half-width could be estimated.
    pub fn known(&self) -> bool {
        self.half_width.is_finite()
    }

    /// The half-width relative to the value (0 for a zero value).
    pub fn relative(&self) -> f64 {
        if self.value != 0.0 {
            self.half_width / self.value.abs()
        } else {
            0.0
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        (x - self.value).abs() <= self.half_width
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct StratumReport {
    pub instructions: u64,
    /// One window (warm-up and unit) every `period` batches.
    pub period: u64,
    pub units: usize,
    /// The variants (sensitivity, idealizations) time one window in
    /// `variants_every` periods: `variant_units` of the stratum's units.
    pub variants_every: u64,
    pub variant_units: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetReport {
    /// Relative half-width wanted on the cycles, and the one reached.
    pub relative_half_width: f64,
    pub achieved: f64,
    pub reached: bool,
    /// When not reached: the units the same spread would need, and how to ask for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units_needed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpeedupInterval {
    pub resources: Vec<String>,
    pub weight: f64,
    pub speedup: Interval,
}

#[derive(Debug, Clone, Serialize)]
pub struct IdealizationInterval {
    pub what: String,
    /// Baseline CPI minus the idealized CPI.
    pub cpi_reduction: Interval,
}

/// A component's share of the cycles (0..1) with its interval.
#[derive(Debug, Clone, Serialize)]
pub struct ShareInterval {
    pub name: String,
    pub share: Interval,
}

/// A FLOPS-stack component (flops per cycle) with its interval.
#[derive(Debug, Clone, Serialize)]
pub struct FlopsInterval {
    pub name: String,
    pub flops_per_cycle: Interval,
}

/// How a Top-Down node's interval follows from the sample (the derivations are
/// in `bottlenose_analysis::dynamic::sampling::topdown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TopDownDerivation {
    /// A share of the windows' dispatch gaps, fitted into what the retired
    /// slots (exact) leave of the estimated cycles: Frontend, Bad Speculation
    /// and Backend Bound and their gap-counted children.
    DispatchGapShare,
    /// A count of cycles over the windows' cycles (ratio estimator): the
    /// memory, core and port nodes.
    CycleShare,
    /// A count over every execution (exact) divided by the estimated cycles:
    /// the cycles' relative interval (Retiring and its children).
    ExactOverCycles,
    /// Zero by construction (the model has no machine clears): no error.
    Exact,
}

/// A node of the simulated Top-Down tree (the report's `topdown`) with its interval.
#[derive(Debug, Clone, Serialize)]
pub struct TopDownInterval {
    /// The labels from level 1 down, joined by `.`: `Backend_Bound.Memory_Bound.L1_Bound`.
    pub path: String,
    pub level: u32,
    /// The tree's value (a fraction of the node's unit) and its half-width.
    pub value: Interval,
    pub derivation: TopDownDerivation,
}

#[derive(Debug, Clone, Serialize)]
pub struct StackIntervals {
    pub dispatch: Vec<ShareInterval>,
    pub issue: Vec<ShareInterval>,
    pub commit: Vec<ShareInterval>,
}

/// `run`'s `sampling` section.
#[derive(Debug, Clone, Serialize)]
pub struct SamplingSummary {
    pub method: &'static str,
    pub confidence: f64,
    /// Instructions timed in full before sampling began.
    pub exact_instructions: u64,
    pub unit_instructions: u64,
    pub warm_up_instructions: u64,
    pub units: usize,
    /// Units the timing variants timed (a sub-sample of `units`; their speedups
    /// and the idealizations' gains are ratios estimated over it).
    pub variant_units: usize,
    /// Units of the exact prefix's sub-sample that the variants which did not
    /// time it whole (the sensitivity variants; past 10 times the prefix, the
    /// idealizations too) timed after the windows (each after the batch before it, paired with
    /// the baseline's configuration timed the same way): their prefix is
    /// estimated from them, its error in their intervals. 0: no prefix, or a
    /// run 100 times its prefix or longer, where each variant's prefix is the
    /// baseline's at its ratio over the windows.
    pub prefix_variant_units: usize,
    /// Whether the idealizations timed the whole exact prefix after the
    /// windows (a run at most 10 times its prefix); else they had what the
    /// sensitivity variants had.
    pub prefix_idealized: bool,
    /// Instructions the timing model ran (exact prefix, warm-ups and units).
    pub detailed_instructions: u64,
    /// Classes of code the total cycles were estimated over: the run's exact
    /// executions of each times its cycles per execution measured on the units
    /// (the code-mix estimate). `None`: the expansion of the units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_classes: Option<usize>,
    /// The part of `cycles` priced, not measured: code no unit measured (cold
    /// code: start-up, the exit) at the cycles per execution of the cold code
    /// the exact prefix and the units timed; its whole value is in the
    /// half-width. `None` with the expansion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priced_cycles: Option<f64>,
    pub strata: Vec<StratumReport>,
    pub cycles: Interval,
    pub cpi: Interval,
    pub target: TargetReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_seconds: Option<f64>,
    pub elapsed_seconds: f64,
    /// Why the intervals are less trustworthy than they say (too few units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    pub sensitivity: Vec<SpeedupInterval>,
    pub idealization: Vec<IdealizationInterval>,
    /// The views' shares of the cycles, from their counted windows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpi_stacks: Option<StackIntervals>,
    /// The level-1 nodes of `topdown` (their values, shares of the slots).
    pub topdown_level1: Vec<ShareInterval>,
    /// Every node of the simulated Top-Down tree that has a value, depth first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topdown: Vec<TopDownInterval>,
    /// The FLOPS stack's components (the report's values) with their intervals.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flops_stack: Vec<FlopsInterval>,
    /// The report's functions (the first of its table), each its share of the cycles.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<ShareInterval>,
    /// The report's loops (its table, named by head), each its share of the cycles
    /// (an outer loop's share includes its inner loops').
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<ShareInterval>,
}
