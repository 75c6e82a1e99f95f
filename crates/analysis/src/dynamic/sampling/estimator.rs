//! Estimates of whole-run totals from measured units (SMARTS), with confidence
//! intervals from the per-unit variance.
//!
//! The sampled part of a run is cut into *strata*: consecutive stretches timed
//! at one sampling period each (the adaptive controller changes the period only
//! from one stratum to the next). Stratum h holds `N_h` instructions, that is
//! `M_h = N_h / U` units of `U` instructions, of which `n_h` were measured.
//! Its total is estimated by expansion, `M_h · ȳ_h`, unbiased under the
//! schedule's random placement of the unit within each period; its variance by
//! `M_h² (1 - n_h / M_h) s_h² / n_h` (the finite-population correction: a
//! stratum measured unit by unit has no sampling error). An exact prefix (the
//! part of the run simulated in full before sampling started) adds its cycles
//! and no variance. By the central limit theorem over units the estimate is
//! normal, and the interval is `± z·σ` with `z` the two-sided quantile of the
//! confidence level.
//!
//! Ratios of two totals measured on the same units (a variant's speedup, an
//! idealization's gain, a component's share of the cycles) use the linearized
//! ratio estimator: the variance of `R = T_a / T_b` is that of the total of
//! the per-unit residuals `a_i - R b_i`, over `T_b²`. The pairing is what makes
//! these intervals narrow: a unit that is slow for the baseline is slow for the
//! variant too.

pub use bottlenose_report_model::sampling::Interval;

/// Two-sided 99.7 % quantile of the standard normal: Φ⁻¹(0.9985) = 2.9677
/// (the "three sigma" level SMARTS reports at).
pub const Z_99_7: f64 = 2.9677;

/// The confidence level [`Z_99_7`] stands for.
pub const CONFIDENCE: f64 = 0.997;

/// Fewer measured units than this and the normal approximation is not trusted:
/// the report says so.
pub const MIN_UNITS_FOR_CLT: usize = 30;

/// One stretch of the sampled run at a constant period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stratum {
    /// Every instruction of the stretch (fast-forwarded, warmed and measured).
    pub instructions: u64,
    /// Its measured units: `first_unit..first_unit + units` in every series.
    pub first_unit: usize,
    pub units: usize,
}

/// The design of a sampled run: unit size, strata, and the exact prefix's length.
#[derive(Debug, Clone, Default)]
pub struct Design {
    pub unit_instructions: u64,
    pub prefix_instructions: u64,
    pub strata: Vec<Stratum>,
}

/// One quantity's per-unit values (e.g. the baseline's cycles per unit), and its
/// exact prefix.
#[derive(Debug, Clone, Copy)]
pub struct Series<'a> {
    pub prefix: f64,
    pub units: &'a [f64],
}

impl Design {
    pub fn measured_units(&self) -> usize {
        self.strata.iter().map(|s| s.units).sum()
    }

    /// The units stratum `s` holds (measured or not).
    pub(super) fn population(&self, s: &Stratum) -> f64 {
        s.instructions as f64 / self.unit_instructions.max(1) as f64
    }

    /// Every measured unit's index, stratum after stratum.
    fn measured(&self) -> impl Iterator<Item = usize> + '_ {
        self.strata.iter().flat_map(|s| s.first_unit..s.first_unit + s.units)
    }

    /// Whether the sample has a spread to estimate intervals from: two units
    /// at least, or every unit of the sampled part measured (no sampling error).
    pub fn spread_known(&self) -> bool {
        self.measured_units() >= 2 || self.strata.iter().all(|s| self.population(s) <= s.units as f64)
    }

    /// The estimated total of a quantity: exact prefix plus every stratum's
    /// expansion. A stratum that ended before its first unit (the run stopped,
    /// or the period had just grown) borrows the mean of all units: without it,
    /// its instructions would count for nothing.
    pub fn total(&self, x: Series<'_>) -> f64 {
        let n = self.measured_units();
        let pooled = if n > 0 { self.measured().map(|i| x.units[i]).sum::<f64>() / n as f64 } else { 0.0 };
        x.prefix
            + self
                .strata
                .iter()
                .map(|s| self.population(s) * if s.units > 0 { mean(&x.units[s.first_unit..s.first_unit + s.units]) } else { pooled })
                .sum::<f64>()
    }

    /// Variance of the estimated total of the per-unit values `residual(i)`
    /// (a quantity, or a ratio's residuals). A stratum with fewer than two units
    /// borrows the variance pooled over all units; one without units, the
    /// variance of the pooled mean.
    pub(super) fn variance_of(&self, residual: impl Fn(usize) -> f64) -> f64 {
        let all: Vec<f64> = self.measured().map(&residual).collect();
        let pooled = variance(&all);
        self.strata
            .iter()
            .map(|s| {
                let m = self.population(s);
                if s.units == 0 {
                    return if all.is_empty() { 0.0 } else { m * m * pooled / all.len() as f64 };
                }
                let n = s.units as f64;
                let values: Vec<f64> = (s.first_unit..s.first_unit + s.units).map(&residual).collect();
                let s2 = if s.units >= 2 { variance(&values) } else { pooled };
                let fpc = (1.0 - n / m).max(0.0);
                m * m * fpc * s2 / n
            })
            .sum()
    }

    /// The total of `x` with its interval at `z` (unknown without a spread).
    pub fn total_interval(&self, x: Series<'_>, z: f64) -> Interval {
        let value = self.total(x);
        if !self.spread_known() {
            return Interval::unknown(value);
        }
        Interval { value, half_width: z * self.variance_of(|i| x.units[i]).sqrt() }
    }

    /// `T_a / T_b` with its interval at `z` (linearized ratio estimator; unknown without a spread).
    pub fn ratio_interval(&self, a: Series<'_>, b: Series<'_>, z: f64) -> Interval {
        let (ta, tb) = (self.total(a), self.total(b));
        if tb == 0.0 {
            return Interval::default();
        }
        let r = ta / tb;
        if !self.spread_known() {
            return Interval::unknown(r);
        }
        let var = self.variance_of(|i| a.units[i] - r * b.units[i]) / (tb * tb);
        Interval { value: r, half_width: z * var.sqrt() }
    }

    /// How many units the sampled part would need, at the same spread, for the
    /// total of `x` to reach the relative half-width `target` (ignoring the
    /// finite-population correction, which only helps): `n · (hw / target)²`.
    pub fn units_for_target(&self, x: Series<'_>, z: f64, target: f64) -> Option<u64> {
        let iv = self.total_interval(x, z);
        let n = self.measured_units() as f64;
        if iv.value <= 0.0 || target <= 0.0 || n == 0.0 || !iv.known() {
            return None;
        }
        Some((n * (iv.relative() / target).powi(2)).ceil() as u64)
    }
}

/// The units a run's timing variants timed: a sub-sample of the measured
/// units (see `schedule`), one period in `every_by_stratum[h]` of stratum h.
#[derive(Debug, Clone, Default)]
pub struct Subsample {
    /// Indices of the sub-sampled units among the measured ones, increasing.
    pub units: Vec<usize>,
    pub every_by_stratum: Vec<u64>,
}

impl Subsample {
    /// The sub-sample as a design of its own: the same strata (same
    /// instructions) with their sub-sampled units only, numbered in sub-sample order.
    pub fn design(&self, full: &Design) -> Design {
        let mut k = 0;
        let strata = full
            .strata
            .iter()
            .map(|s| {
                let first_unit = k;
                while k < self.units.len() && self.units[k] < s.first_unit + s.units {
                    k += 1;
                }
                Stratum { instructions: s.instructions, first_unit, units: k - first_unit }
            })
            .collect();
        Design { unit_instructions: full.unit_instructions, prefix_instructions: full.prefix_instructions, strata }
    }

    /// The values of `all` (one per measured unit) at the sub-sampled units.
    pub fn gather(&self, all: &[f64]) -> Vec<f64> {
        self.units.iter().map(|&i| all[i]).collect()
    }

    /// A variant measured on the sub-sample against the baseline measured on
    /// every unit (two-phase sampling with a ratio estimator): the ratio of the
    /// variant's total to the baseline's, `T_v / T_b`, both estimated over the
    /// sub-sample (stratum by stratum), with its interval at `z` from the paired
    /// residuals `v_i - R b_i`. The variant's total is then the baseline's
    /// full-sample estimate times this ratio: a unit slow for the baseline is
    /// slow for the variant too, so the ratio needs far fewer units than the total.
    pub fn variant_ratio(&self, full: &Design, base: Series<'_>, variant: Series<'_>, z: f64) -> Interval {
        let base_units = self.gather(base.units);
        let sub = self.design(full);
        sub.ratio_interval(variant, Series { prefix: base.prefix, units: &base_units }, z)
    }
}

pub fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x.iter().sum::<f64>() / x.len() as f64
    }
}

/// Sample variance (n - 1 in the denominator); 0 for fewer than two values.
pub fn variance(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return 0.0;
    }
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64
}

/// Running mean and variance of the units measured so far (Welford), for the
/// controller and the progress line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Running {
    pub n: u64,
    mean: f64,
    m2: f64,
}

impl Running {
    /// `n` values of mean `mean` and sample variance `variance`.
    pub fn from_moments(n: u64, mean: f64, variance: f64) -> Self {
        Running { n, mean, m2: variance * n.saturating_sub(1) as f64 }
    }

    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    pub fn mean(&self) -> f64 {
        self.mean
    }

    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }

    /// Coefficient of variation of the unit values.
    pub fn cv(&self) -> f64 {
        if self.mean > 0.0 {
            self.variance().sqrt() / self.mean
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_measured_has_no_error() {
        // a stratum measured entirely: the finite-population correction is 0
        let d = Design { unit_instructions: 10, prefix_instructions: 0, strata: vec![Stratum { instructions: 40, first_unit: 0, units: 4 }] };
        let units = [10.0, 30.0, 20.0, 40.0];
        let iv = d.total_interval(Series { prefix: 5.0, units: &units }, Z_99_7);
        assert_eq!(iv.value, 105.0);
        assert_eq!(iv.half_width, 0.0);
    }

    #[test]
    fn variance_follows_the_textbook_formula() {
        // 2 of 10 units measured, values 1 and 3: mean 2, s² = 2,
        // Var(T) = M² (1 - n/M) s²/n = 100 · 0.8 · 2 / 2 = 80
        let d = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: 10, first_unit: 0, units: 2 }] };
        let iv = d.total_interval(Series { prefix: 0.0, units: &[1.0, 3.0] }, 1.0);
        assert!((iv.value - 20.0).abs() < 1e-12);
        assert!((iv.half_width - 80f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn a_constant_ratio_has_no_error() {
        // a variant exactly 20 % faster on every unit: the ratio is known exactly
        let d = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: 100, first_unit: 0, units: 3 }] };
        let base = [10.0, 50.0, 30.0];
        let var: Vec<f64> = base.iter().map(|b| b / 1.2).collect();
        let r = d.ratio_interval(Series { prefix: 0.0, units: &base }, Series { prefix: 0.0, units: &var }, Z_99_7);
        assert!((r.value - 1.2).abs() < 1e-12);
        assert!(r.half_width < 1e-12);
    }

    #[test]
    fn units_for_target_scales_with_the_square() {
        let d = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: 1_000_000, first_unit: 0, units: 4 }] };
        let units = [1.0, 2.0, 3.0, 4.0];
        let x = Series { prefix: 0.0, units: &units };
        let hw = d.total_interval(x, 1.0).relative();
        // halving the half-width takes four times the units
        assert_eq!(d.units_for_target(x, 1.0, hw / 2.0), Some(16));
    }

    /// A stratum the run ended in before its first unit: its 30 units' worth of
    /// instructions at the mean of the units measured elsewhere (2), not at 0.
    #[test]
    fn a_stratum_without_units_borrows_the_pooled_mean() {
        let d = Design {
            unit_instructions: 1,
            prefix_instructions: 0,
            strata: vec![Stratum { instructions: 10, first_unit: 0, units: 2 }, Stratum { instructions: 30, first_unit: 2, units: 0 }],
        };
        let x = Series { prefix: 0.0, units: &[1.0, 3.0] };
        let iv = d.total_interval(x, 1.0);
        // 10 · 2 + 30 · 2
        assert!((iv.value - 80.0).abs() < 1e-12, "{iv:?}");
        // 80 (the first stratum, as in the textbook test) + 30² · s² / n = 900 · 2 / 2
        assert!((iv.half_width - 980f64.sqrt()).abs() < 1e-9, "{iv:?}");
    }

    /// One unit has no spread: the estimate stands, its interval is unknown (NaN, null in JSON).
    #[test]
    fn one_unit_gives_no_interval() {
        let d = Design { unit_instructions: 1, prefix_instructions: 5, strata: vec![Stratum { instructions: 10, first_unit: 0, units: 1 }] };
        let x = Series { prefix: 7.0, units: &[4.0] };
        let iv = d.total_interval(x, Z_99_7);
        assert_eq!(iv.value, 47.0);
        assert!(!iv.known());
        assert_eq!(serde_json::to_string(&iv).unwrap(), r#"{"value":47.0,"half_width":null}"#);
        assert!(!d.ratio_interval(x, x, Z_99_7).known());
        assert_eq!(d.units_for_target(x, Z_99_7, 0.03), None);
        // unless the one unit was all there was to measure
        let all = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: 1, first_unit: 0, units: 1 }] };
        assert_eq!(all.total_interval(x, Z_99_7), Interval { value: 11.0, half_width: 0.0 });
    }

    #[test]
    fn running_matches_the_two_pass_variance() {
        let x = [3.0, 7.0, 7.0, 19.0];
        let mut r = Running::default();
        x.iter().for_each(|&v| r.push(v));
        assert!((r.mean() - 9.0).abs() < 1e-12);
        assert!((r.variance() - variance(&x)).abs() < 1e-12);
        // (36 + 4 + 4 + 100) / 3 = 48
        assert!((r.variance() - 48.0).abs() < 1e-12);
    }
}
