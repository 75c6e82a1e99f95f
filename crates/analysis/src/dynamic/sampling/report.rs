//! What a sampled run's report says about its sample: the estimates with their
//! intervals (cycles, CPI, each sensitivity speedup, each idealization's gain,
//! the CPI-stack components and the FLOPS stack), the design, and whether
//! the target was reached (and, if not, what would reach it).

use super::estimator::{Design, Interval, Series, Stratum, Subsample, CONFIDENCE, MIN_UNITS_FOR_CLT, Z_99_7};
use super::topdown::cycle_share_half_width;
use bottlenose_views::{IdleFp, WindowTally, CPI_COMPONENTS};
use std::collections::BTreeMap;
pub use bottlenose_report_model::sampling::{FlopsInterval, IdealizationInterval, SamplingSummary, ShareInterval, SpeedupInterval, StackIntervals, StratumReport, TargetReport};

/// Functions given an interval: as many as the text report's function table shows.
pub const FUNCTIONS_SHOWN: usize = 10;

/// A variant's per-unit cycles, its exact prefix, and its estimated total.
pub struct Measured<'a> {
    pub prefix: f64,
    /// The variance of `prefix` when it is estimated (a sensitivity variant's,
    /// from the prefix's sub-sample); 0 when timed.
    pub prefix_variance: f64,
    pub units: &'a [f64],
    /// The estimate of the run's cycles (without units, not the units' expansion).
    pub total: f64,
    /// The part of `total` priced, not measured (cold code no unit measured),
    /// when estimated apart: its error is unknown.
    pub priced: Option<f64>,
}

impl<'a> Measured<'a> {
    pub fn new(prefix: f64, units: &'a [f64], total: f64) -> Self {
        Measured { prefix, prefix_variance: 0.0, units, total, priced: None }
    }

    pub(super) fn series(&self) -> Series<'a> {
        Series { prefix: self.prefix, units: self.units }
    }
}

pub struct Inputs<'a> {
    pub design: &'a Design,
    /// The units the variants and idealizations timed.
    pub subsample: &'a Subsample,
    pub strata: Vec<StratumReport>,
    pub instructions: u64,
    pub batch_instructions: u64,
    pub warm_up_batches: u64,
    pub base: Measured<'a>,
    /// The total cycles with their interval when the code-mix estimator gave
    /// them (`None`: the expansion of the baseline's units).
    pub cycles: Option<Interval>,
    /// The code-mix estimate's classes of code (with `cycles`).
    pub code_classes: Option<usize>,
    pub variants: Vec<(Vec<String>, f64, Measured<'a>)>,
    pub ideals: Vec<(String, Measured<'a>)>,
    /// Units of the prefix's sub-sample the sensitivity variants timed, and
    /// whether the idealizations timed the whole prefix.
    pub prefix_variant_units: usize,
    pub prefix_idealized: bool,
    pub windows: &'a [WindowTally],
    /// The report's FLOPS stack (component → flops per cycle) and the machine's FP units.
    pub flops: Option<(&'a BTreeMap<String, f64>, f64)>,
    pub target: f64,
    pub budget_seconds: Option<f64>,
    pub elapsed_seconds: f64,
}

/// `T_a / T_b` with its interval; without units, the ratio of the estimates and no interval.
/// An estimated prefix adds its variance, independent of the windows': that of
/// `T_a - r T_b` grows by `var(P_a) + r² var(P_b)`.
fn ratio(d: &Design, a: &Measured<'_>, b: &Measured<'_>, z: f64) -> Interval {
    if d.measured_units() == 0 {
        return Interval::unknown(if b.total != 0.0 { a.total / b.total } else { 0.0 });
    }
    let iv = d.ratio_interval(a.series(), b.series(), z);
    let tb = d.total(b.series());
    if !iv.known() || tb == 0.0 || (a.prefix_variance == 0.0 && b.prefix_variance == 0.0) {
        return iv;
    }
    let r = iv.value;
    let extra = (a.prefix_variance + r * r * b.prefix_variance) / (tb * tb);
    Interval { value: r, half_width: (iv.half_width * iv.half_width + z * z * extra).sqrt() }
}

/// `a`'s ratio to `b` (`q`, from their units) where both priced code no unit
/// measured: centred on their totals (the report's figures, which price that
/// code each at its own cost), and wider by the difference of the priced
/// parts, whose error nothing measured bounds: its whole value (as the
/// baseline's cycles take the priced part's whole value).
fn with_priced(q: Interval, a: &Measured<'_>, b: &Measured<'_>) -> Interval {
    match (a.priced, b.priced) {
        (Some(pa), Some(pb)) if q.known() && b.total > 0.0 => Interval { value: a.total / b.total, half_width: q.half_width.hypot((pb - pa).abs() / b.total) },
        _ => q,
    }
}

/// What the report says when the sample has no spread to give intervals from.
/// `timed`: whether the model timed anything (a prefix, a warm-up) to estimate from.
fn no_interval(units: usize, timed: bool) -> String {
    let what = match (units, timed) {
        (0, false) => "nothing was timed (the run ended before its first window): no estimate and no interval can be given".to_string(),
        (0, true) => "no unit was measured (the run ended first): the estimates come from the CPI of the warm-ups or the exact prefix, without an interval".to_string(),
        (n, _) => format!("only {n} unit was measured: no interval can be given, and the estimates are rough"),
    };
    format!("{what}; run --exact, or sample more densely (a shorter --sample-period)")
}

pub fn summarize(i: Inputs<'_>) -> SamplingSummary {
    let z = Z_99_7;
    let d = i.design;
    let n = i.instructions.max(1) as f64;
    let cycles = match i.cycles {
        Some(c) => c,
        None if d.measured_units() > 0 => d.total_interval(i.base.series(), z),
        None => Interval::unknown(i.base.total),
    };
    let cpi = Interval { value: cycles.value / n, half_width: cycles.half_width / n };
    let achieved = cycles.relative();
    let reached = cycles.known() && achieved <= i.target;
    // the half-width shrinks as 1/sqrt(units) at the same spread
    let units_needed = (!reached && cycles.known() && cycles.value > 0.0 && i.target > 0.0 && d.measured_units() > 0)
        .then(|| (d.measured_units() as f64 * (cycles.relative() / i.target).powi(2)).ceil() as u64);
    let advice = if !cycles.known() {
        Some(no_interval(d.measured_units(), i.base.total > 0.0))
    } else { units_needed.map(|need| {
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
    }) };
    // the variants are paired with the baseline on their sub-sample
    let sub = i.subsample.design(d);
    let base_units = i.subsample.gather(i.base.units);
    let base_sub = Measured { units: &base_units, ..i.base };
    let sensitivity = i
        .variants
        .iter()
        .map(|(resources, weight, m)| {
            let r = ratio(&sub, &base_sub, m, z);
            SpeedupInterval { resources: resources.clone(), weight: *weight, speedup: Interval { value: r.value - 1.0, half_width: r.half_width } }
        })
        .collect();
    let idealization = i
        .ideals
        .iter()
        .map(|(what, m)| {
            // CPI reduction = (T_b - T_i) / N = T_b / N · (1 - T_i / T_b)
            let q = with_priced(ratio(&sub, m, &base_sub, z), m, &base_sub);
            let scale = cycles.value / n;
            IdealizationInterval { what: what.clone(), cpi_reduction: Interval { value: scale * (1.0 - q.value), half_width: scale * q.half_width } }
        })
        .collect();
    let unmeasured = super::topdown::unmeasured_share(i.base.priced, &cycles);
    let (cpi_stacks, flops_stack) = view_shares(i.windows, z, i.flops, &cycles, unmeasured);
    let units = d.measured_units();
    let variant_units = sub.measured_units();
    let has_variants = !i.variants.is_empty() || !i.ideals.is_empty();
    let warning = if !cycles.known() {
        Some(no_interval(units, i.base.total > 0.0))
    } else if units < MIN_UNITS_FOR_CLT {
        Some(format!("only {units} units measured: the intervals assume at least {MIN_UNITS_FOR_CLT} (central limit theorem) and may be too narrow"))
    } else if has_variants && variant_units < MIN_UNITS_FOR_CLT.min(units) {
        Some(format!(
            "the sensitivity variants and idealizations timed only {variant_units} of the {units} units: their intervals assume at least {MIN_UNITS_FOR_CLT} and may be too narrow"
        ))
    } else {
        None
    };
    SamplingSummary {
        method: "SMARTS systematic sampling",
        confidence: CONFIDENCE,
        exact_instructions: d.prefix_instructions,
        unit_instructions: d.unit_instructions,
        warm_up_instructions: i.warm_up_batches * i.batch_instructions,
        units,
        variant_units,
        prefix_variant_units: i.prefix_variant_units,
        prefix_idealized: i.prefix_idealized,
        detailed_instructions: d.prefix_instructions + units as u64 * (d.unit_instructions + i.warm_up_batches * i.batch_instructions),
        code_classes: i.code_classes,
        priced_cycles: i.base.priced,
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
        // (the tree's, which the views' report holds: `super::topdown::add_topdown`)
        topdown_level1: Vec::new(),
        topdown: Vec::new(),
        flops_stack,
        functions: Vec::new(),
        loops: Vec::new(),
    }
}

/// The counted windows as a design (one stratum per weight: a sampled run's
/// units and the views' own windows stand for different stretches of the run),
/// and the windows in its order. Its totals are the weighted sums of the
/// windows, as the views scale them to the run.
pub(super) fn window_design(windows: &[WindowTally]) -> (Design, Vec<&WindowTally>) {
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
    (Design { unit_instructions: 1, prefix_instructions: 0, strata }, sorted)
}

/// The views' component shares with their intervals: ratio estimates over the
/// counted windows ([`window_design`]), widened by what priced code could hold
/// (`unmeasured`, its share of the cycles: `super::topdown::unmeasured_half_width`).
/// With the FLOPS stack (`flops`), its components' intervals: see
/// [`flops_intervals`]. (Top-Down's are the tree's: see `super::topdown`.)
fn view_shares(windows: &[WindowTally], z: f64, flops: Option<(&BTreeMap<String, f64>, f64)>, cycles: &Interval, unmeasured: f64) -> (Option<StackIntervals>, Vec<FlopsInterval>) {
    if windows.len() < 2 {
        return (None, Vec::new());
    }
    let (design, sorted) = window_design(windows);
    let cycles_by_window: Vec<f64> = sorted.iter().map(|t| t.cycles).collect();
    let share = |values: Vec<f64>| {
        let r = design.ratio_interval(Series { prefix: 0.0, units: &values }, Series { prefix: 0.0, units: &cycles_by_window }, z);
        Interval { half_width: r.half_width + super::topdown::unmeasured_half_width(r.value, unmeasured), ..r }
    };
    let stage = |s: usize| -> Vec<ShareInterval> {
        (1..CPI_COMPONENTS.len())
            .filter(|&c| sorted.iter().any(|t| t.cpi[s][c] != 0.0))
            .map(|c| ShareInterval { name: CPI_COMPONENTS[c].to_string(), share: share(sorted.iter().map(|t| t.cpi[s][c]).collect()) })
            .collect()
    };
    let stacks = StackIntervals { dispatch: stage(0), issue: stage(1), commit: stage(2) };
    let flops = flops.map(|(stack, fp_units)| flops_intervals(stack, fp_units, cycles, |c| share(sorted.iter().map(|t| t.fp_idle[c as usize]).collect()))).unwrap_or_default();
    (Some(stacks), flops)
}

/// The FLOPS stack's intervals. Its components sum to the peak, `P` flops per
/// cycle over `U` FP units. The idle causes measured on the windows are
/// `P/U · idle_c / cycles`: the interval of that ratio over the windows
/// (`idle_share(c)`), with the part of the views' exact prefix (a share of the
/// cycles: `super::topdown::cycle_share_half_width`), times `P/U`. The FP instructions' own components (`base`,
/// `non_fma`, `narrow`) count every execution exactly over the estimated
/// cycles: the relative interval of the cycles. `non_fp` is what the others
/// leave of the peak: their half-widths added in quadrature (as if independent).
fn flops_intervals(stack: &BTreeMap<String, f64>, fp_units: f64, cycles: &Interval, mut idle_share: impl FnMut(IdleFp) -> Interval) -> Vec<FlopsInterval> {
    let peak: f64 = stack.values().sum();
    let per_unit = if fp_units > 0.0 { peak / fp_units } else { 0.0 };
    let mut out: Vec<FlopsInterval> = stack
        .iter()
        .map(|(name, &value)| {
            let windowed = IdleFp::ALL.into_iter().find(|c| *c != IdleFp::NonFp && c.component() == name);
            let half_width = match windowed {
                // (the report's value holds the views' exact prefix: see `super::topdown`)
                Some(c) if per_unit > 0.0 => per_unit * cycle_share_half_width(value / per_unit, idle_share(c), cycles.relative()),
                Some(_) => 0.0,
                None => value * cycles.relative(),
            };
            FlopsInterval { name: name.clone(), flops_per_cycle: Interval { value, half_width } }
        })
        .collect();
    let others = out.iter().filter(|f| f.name != IdleFp::NonFp.component()).map(|f| f.flops_per_cycle.half_width.powi(2)).sum::<f64>().sqrt();
    if let Some(f) = out.iter_mut().find(|f| f.name == IdleFp::NonFp.component()) {
        f.flops_per_cycle.half_width = others;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::sampling::estimator::Stratum;

    /// An estimated prefix widens a ratio's interval by its own variance, in
    /// quadrature with the windows': `z² (var(P_a) + r² var(P_b)) / T_b²`. Four
    /// units of 10 instructions in 40 (every unit measured: no windows' error);
    /// base 10 each after a prefix of 60 (T = 100), the variant 5 each after 40
    /// (T = 60, r = 0.6).
    #[test]
    fn an_estimated_prefix_widens_the_ratio() {
        let d = Design { unit_instructions: 10, prefix_instructions: 0, strata: vec![Stratum { instructions: 40, first_unit: 0, units: 4 }] };
        let base_units = [10.0; 4];
        let variant_units = [5.0; 4];
        let base = Measured::new(60.0, &base_units, 100.0);
        let timed = Measured::new(40.0, &variant_units, 60.0);
        let sampled = Measured { prefix_variance: 16.0, ..timed };
        let without = ratio(&d, &timed, &base, 3.0);
        assert!((without.value - 0.6).abs() < 1e-12 && without.half_width == 0.0, "{without:?}");
        let with = ratio(&d, &sampled, &base, 3.0);
        // z · sqrt(16) / 100 = 0.12
        assert!((with.value - 0.6).abs() < 1e-12 && (with.half_width - 0.12).abs() < 1e-12, "{with:?}");
        // in the denominator (a speedup, base / variant: r = 5/3, T_b = 60): z · r · 4 / 60 = 1/3
        let speedup = ratio(&d, &base, &sampled, 3.0);
        assert!((speedup.value - 100.0 / 60.0).abs() < 1e-12 && (speedup.half_width - 1.0 / 3.0).abs() < 1e-12, "{speedup:?}");
    }

    /// An idealization that priced the cold code no unit measured at its own
    /// cost: its ratio is its total over the baseline's (the report's cycles,
    /// not the units' expansion), and the difference of the priced parts joins
    /// the half-width whole. Base: 100 cycles, 30 of them priced; the
    /// idealization 64 (the units' expansion 70: 0.7 of the baseline), 3 of
    /// them priced: 0.64, ±|30 - 3| / 100 = 0.27 in quadrature with the units' 0.
    #[test]
    fn a_ratio_of_priced_totals_is_centred_on_them_and_wider_by_the_priced_difference() {
        let d = Design { unit_instructions: 10, prefix_instructions: 0, strata: vec![Stratum { instructions: 40, first_unit: 0, units: 4 }] };
        let (base_units, ideal_units) = ([10.0; 4], [7.0; 4]);
        let base = Measured { priced: Some(30.0), ..Measured::new(60.0, &base_units, 100.0) };
        let ideal = Measured { priced: Some(3.0), ..Measured::new(42.0, &ideal_units, 64.0) };
        let q = ratio(&d, &ideal, &base, 3.0);
        assert!((q.value - 0.7).abs() < 1e-12 && q.half_width == 0.0, "{q:?}");
        let priced = with_priced(q, &ideal, &base);
        assert!((priced.value - 0.64).abs() < 1e-12 && (priced.half_width - 0.27).abs() < 1e-12, "{priced:?}");
        // a variant that priced nothing apart keeps the units' ratio
        let plain = Measured { priced: None, ..ideal };
        assert_eq!(with_priced(q, &plain, &base), q);
    }

    /// A peak of 8 flops per cycle on 2 FP units: an idle cause's interval is
    /// 8/2 = 4 flops per cycle per unit of its share of the windows' cycles
    /// (the windows' shares here as the report's: no prefix part);
    /// the instructions' own components take the cycles' relative interval
    /// (±5 %); non_fp the others in quadrature.
    #[test]
    fn flops_components_get_their_intervals() {
        let stack: BTreeMap<String, f64> =
            [("base", 1.0), ("non_fma", 1.0), ("narrow", 0.0), ("non_fp", 2.0), ("icache", 0.0), ("bpred", 0.0), ("non_vfp", 0.0), ("memory", 2.0), ("dependence", 2.0)]
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect();
        let cycles = Interval { value: 100.0, half_width: 5.0 };
        let idle = |c: IdleFp| Interval {
            value: stack[c.component()] / 4.0,
            half_width: match c {
                IdleFp::Memory => 0.01,
                IdleFp::Dependence => 0.02,
                _ => 0.0,
            },
        };
        let f = flops_intervals(&stack, 2.0, &cycles, idle);
        let hw = |n: &str| f.iter().find(|x| x.name == n).unwrap().flops_per_cycle.half_width;
        assert_eq!(f.len(), 9);
        assert!((hw("base") - 0.05).abs() < 1e-12 && (hw("non_fma") - 0.05).abs() < 1e-12 && hw("narrow") == 0.0);
        assert!((hw("memory") - 0.04).abs() < 1e-12 && (hw("dependence") - 0.08).abs() < 1e-12 && hw("icache") == 0.0);
        // sqrt(0.05² + 0.05² + 0.04² + 0.08²) = sqrt(0.013)
        assert!((hw("non_fp") - 0.013f64.sqrt()).abs() < 1e-12, "{}", hw("non_fp"));
        // the values are the report's
        assert!(f.iter().all(|x| x.flops_per_cycle.value == stack[&x.name]));
        // memory stalls the windows never saw (the views' exact prefix did): the report's
        // 2 flops per cycle, the windows' share 0 ± 0; the prefix's part moves with the
        // cycles (±5 %): 4 · |2/4 − 0| · 0.05 = 0.1
        let prefix_only = |c: IdleFp| if c == IdleFp::Memory { Interval::default() } else { idle(c) };
        let f = flops_intervals(&stack, 2.0, &cycles, prefix_only);
        let memory = f.iter().find(|x| x.name == "memory").unwrap().flops_per_cycle;
        assert!((memory.half_width - 0.1).abs() < 1e-12, "{memory:?}");
    }
}
