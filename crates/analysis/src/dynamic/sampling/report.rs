//! What a sampled run's report says about its sample: the estimates with their
//! intervals (cycles, CPI, each sensitivity speedup, each idealization's gain,
//! the CPI-stack components and Top-Down level 1), the design, and whether
//! the target was reached (and, if not, what would reach it).

use super::estimator::{Design, Interval, Series, Stratum, CONFIDENCE, MIN_UNITS_FOR_CLT, Z_99_7};
use bottlenose_views::{WindowTally, CPI_COMPONENTS};
use serde::Serialize;

/// Functions given an interval: as many as the text report's function table shows.
pub const FUNCTIONS_SHOWN: usize = 10;

#[derive(Debug, Clone, Serialize)]
pub struct StratumReport {
    pub instructions: u64,
    /// One window (warm-up and unit) every `period` batches.
    pub period: u64,
    pub units: usize,
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
    /// Instructions the timing model ran (exact prefix, warm-ups and units).
    pub detailed_instructions: u64,
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
    pub topdown_level1: Vec<ShareInterval>,
    /// The report's functions (the first of its table), each its share of the cycles.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<ShareInterval>,
}

/// A variant's per-unit cycles and its exact prefix.
pub struct Measured<'a> {
    pub prefix: f64,
    pub units: &'a [f64],
}

impl<'a> Measured<'a> {
    pub fn new(prefix: f64, units: &'a [f64]) -> Self {
        Measured { prefix, units }
    }

    pub(super) fn series(&self) -> Series<'a> {
        Series { prefix: self.prefix, units: self.units }
    }
}

pub struct Inputs<'a> {
    pub design: &'a Design,
    pub strata: Vec<StratumReport>,
    pub instructions: u64,
    pub batch_instructions: u64,
    pub warm_up_batches: u64,
    pub base: Measured<'a>,
    pub variants: Vec<(Vec<String>, f64, Measured<'a>)>,
    pub ideals: Vec<(String, Measured<'a>)>,
    pub windows: &'a [WindowTally],
    pub target: f64,
    pub budget_seconds: Option<f64>,
    pub elapsed_seconds: f64,
}

pub fn summarize(i: Inputs<'_>) -> SamplingSummary {
    let z = Z_99_7;
    let d = i.design;
    let n = i.instructions.max(1) as f64;
    let cycles = d.total_interval(i.base.series(), z);
    let cpi = Interval { value: cycles.value / n, half_width: cycles.half_width / n };
    let achieved = cycles.relative();
    let reached = achieved <= i.target;
    let units_needed = (!reached).then(|| d.units_for_target(i.base.series(), z, i.target)).flatten();
    let advice = units_needed.map(|need| {
        let have = d.measured_units().max(1) as f64;
        let period = d.strata.last().zip(i.strata.last()).map_or(1, |(_, r)| r.period);
        let wanted = (period as f64 * have / need as f64).floor() as u64;
        let how = if wanted >= 2 {
            format!("sample about {:.1}x more densely (e.g. --sample-period {wanted}{}), or run --exact", need as f64 / have, if i.budget_seconds.is_some() { ", and a larger --time-budget" } else { "" })
        } else {
            // more units than one window in every 2 batches gives: only the exact run will do
            "more than the densest sampling (--sample-period 2) measures: run --exact".to_string()
        };
        format!("{need} units would reach ±{:.1} % ({} measured): {how}", i.target * 100.0, d.measured_units())
    });
    let sensitivity = i
        .variants
        .iter()
        .map(|(resources, weight, m)| {
            let r = d.ratio_interval(i.base.series(), m.series(), z);
            SpeedupInterval { resources: resources.clone(), weight: *weight, speedup: Interval { value: r.value - 1.0, half_width: r.half_width } }
        })
        .collect();
    let idealization = i
        .ideals
        .iter()
        .map(|(what, m)| {
            // CPI reduction = (T_b - T_i) / N = T_b / N · (1 - T_i / T_b)
            let q = d.ratio_interval(m.series(), i.base.series(), z);
            let scale = cycles.value / n;
            IdealizationInterval { what: what.clone(), cpi_reduction: Interval { value: scale * (1.0 - q.value), half_width: scale * q.half_width } }
        })
        .collect();
    let (cpi_stacks, topdown_level1) = view_shares(i.windows, z);
    let units = d.measured_units();
    let warning = (units < MIN_UNITS_FOR_CLT).then(|| {
        format!("only {units} units measured: the intervals assume at least {MIN_UNITS_FOR_CLT} (central limit theorem) and may be too narrow")
    });
    SamplingSummary {
        method: "SMARTS systematic sampling",
        confidence: CONFIDENCE,
        exact_instructions: d.prefix_instructions,
        unit_instructions: d.unit_instructions,
        warm_up_instructions: i.warm_up_batches * i.batch_instructions,
        units,
        detailed_instructions: d.prefix_instructions + units as u64 * (d.unit_instructions + i.warm_up_batches * i.batch_instructions),
        strata: i.strata,
        cycles,
        cpi,
        target: TargetReport { relative_half_width: i.target, achieved, reached, units_needed, advice },
        budget_seconds: i.budget_seconds,
        elapsed_seconds: i.elapsed_seconds,
        warning,
        sensitivity,
        idealization,
        cpi_stacks,
        topdown_level1,
        functions: Vec::new(),
    }
}

/// The views' component shares with their intervals: ratio estimates over the
/// counted windows, which form one stratum per weight (a sampled run's units
/// and the views' own windows stand for different stretches of the run).
fn view_shares(windows: &[WindowTally], z: f64) -> (Option<StackIntervals>, Vec<ShareInterval>) {
    if windows.len() < 2 {
        return (None, Vec::new());
    }
    let mut order: Vec<usize> = (0..windows.len()).collect();
    order.sort_by(|&a, &b| windows[a].weight.total_cmp(&windows[b].weight));
    let sorted: Vec<&WindowTally> = order.iter().map(|&k| &windows[k]).collect();
    let mut strata = Vec::new();
    let mut k = 0;
    while k < sorted.len() {
        let w = sorted[k].weight;
        let n = sorted[k..].iter().take_while(|t| t.weight == w).count();
        // a window of weight w stands for w windows' worth of the run; the
        // population is taken as unbounded (no finite-population correction)
        strata.push(Stratum { instructions: (w * n as f64 * 1e9) as u64, first_unit: k, units: n });
        k += n;
    }
    let design = Design { unit_instructions: 1, prefix_instructions: 0, strata };
    let cycles: Vec<f64> = sorted.iter().map(|t| t.cycles).collect();
    let share = |values: Vec<f64>| {
        design.ratio_interval(Series { prefix: 0.0, units: &values }, Series { prefix: 0.0, units: &cycles }, z)
    };
    let stage = |s: usize| -> Vec<ShareInterval> {
        (1..CPI_COMPONENTS.len())
            .filter(|&c| sorted.iter().any(|t| t.cpi[s][c] != 0.0))
            .map(|c| ShareInterval { name: CPI_COMPONENTS[c].to_string(), share: share(sorted.iter().map(|t| t.cpi[s][c]).collect()) })
            .collect()
    };
    let stacks = StackIntervals { dispatch: stage(0), issue: stage(1), commit: stage(2) };
    // level 1 from the dispatch gaps: what the gaps leave is retiring
    let gap = |g: usize| sorted.iter().map(|t| t.gaps[g]).collect::<Vec<f64>>();
    let bad: Vec<f64> = sorted.iter().map(|t| t.gaps[0] + t.gaps[1]).collect();
    // (not clipped per window: the shares then add up to 1)
    let retiring: Vec<f64> = sorted.iter().map(|t| t.cycles - t.gaps.iter().sum::<f64>()).collect();
    let level1 = vec![
        ShareInterval { name: "Frontend_Bound".into(), share: share(gap(2)) },
        ShareInterval { name: "Bad_Speculation".into(), share: share(bad) },
        ShareInterval { name: "Backend_Bound".into(), share: share(gap(3)) },
        ShareInterval { name: "Retiring".into(), share: share(retiring) },
    ];
    (Some(stacks), level1)
}
