//! The adaptive choice of the sampling period.
//!
//! A run's length is not known while it runs, so the controller decides at
//! doubling points: each time the instructions seen so far have doubled since
//! the last decision, a new stratum starts and its period is chosen as if the
//! run would end at twice its current length (the stretch to come as long as
//! the one behind). For that stretch it asks for as many units as bring the
//! interval on the total cycles down to the target, given the variance the
//! units have shown so far and the variance the strata behind already carry:
//!
//! `n = M_rest² s² / (V* - V_done)`, with `V* = (ε T̂ / z)²`,
//!
//! `M_rest` the units in the stretch, `s²` the per-unit variance, `T̂` the
//! projected total. The variance is of cycles within the code the units ran
//! ([`super::signatures`]): the total is estimated from the run's exact
//! instruction mix ([`super::code_mix`]), so phases that differ in CPI add no
//! error once each is measured. Whether each is measured is the other bound:
//! the period stays between [`MIN_PERIOD`] and what leaves the stretch
//! [`MIN_UNITS_PER_STRATUM`] units. A time budget caps the rate over both: the
//! stretch may spend half of the time left (the other half is kept for the
//! run's unknown rest), its fast-forwarding first.

use super::estimator::Running;
use std::time::Duration;

/// The densest schedule: a window (warm-up and unit) in every 4 batches.
pub const MIN_PERIOD: u64 = 4;

/// Each stratum gets at least this many units: code that runs 1 % of its
/// instructions lands in about 10 of them. The code-mix estimate needs every
/// costly phase measured; one that no unit saw counts at the CPI of the rest
/// (a pointer chase at 0.6 % of the instructions and half the cycles of
/// `bench/programs/long.c`, missed at 82 units, made an estimate 15 % low).
pub const MIN_UNITS_PER_STRATUM: f64 = 1000.0;

/// What the user asked for.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Relative half-width of the interval on the total cycles (0.03: ±3 %).
    pub relative_half_width: f64,
    /// The confidence quantile (`z`).
    pub z: f64,
    /// Wall time the whole run may take.
    pub budget: Option<Duration>,
}

/// What the run knows at a decision point.
#[derive(Debug, Clone, Copy)]
pub struct State {
    /// Instructions timed so far (exact prefix and sampled part).
    pub instructions: u64,
    /// Estimated cycles so far, and the variance of that estimate.
    pub cycles: f64,
    pub variance: f64,
    /// Cycles per batch-sized unit seen so far (units, or the exact prefix's batches).
    pub units: Running,
    pub unit_instructions: u64,
    /// Wall time so far; seconds per fast-forwarded instruction and per window.
    pub elapsed: Duration,
    pub fast_forward_seconds_per_instruction: f64,
    pub window_seconds: f64,
    pub window_batches: u64,
}

/// The period (in batches) for the stretch from `state.instructions` to twice that.
pub fn choose_period(target: &Target, state: &State) -> u64 {
    let rest_units = state.instructions as f64 / state.unit_instructions.max(1) as f64;
    let max_period = ((rest_units / MIN_UNITS_PER_STRATUM).floor() as u64).max(MIN_PERIOD);
    let cpi_unit = state.units.mean();
    if state.instructions == 0 || cpi_unit <= 0.0 {
        return MIN_PERIOD;
    }
    let projected = state.cycles + rest_units * cpi_unit;
    // strata behind that already carry more than the target allows at twice the length put
    // it out of this stretch's reach: it is planned for a quarter of it instead of densely
    // (the allowance grows as the square of the run's length, and the next stretch gets room)
    let target_variance = (target.relative_half_width * projected / target.z).powi(2);
    let allowed = (target_variance - state.variance).max(target_variance / 4.0);
    let s2 = state.units.variance();
    let wanted = rest_units * rest_units * s2 / allowed;
    let period = if wanted >= rest_units / MIN_PERIOD as f64 { MIN_PERIOD } else { (rest_units / wanted.max(1.0)).floor() as u64 };
    let period = period.clamp(MIN_PERIOD.max(state.window_batches), max_period.max(state.window_batches));
    match target.budget {
        Some(budget) => {
            let left = budget.saturating_sub(state.elapsed).as_secs_f64() * 0.5;
            let forwarding = state.instructions as f64 * state.fast_forward_seconds_per_instruction;
            let windows = ((left - forwarding) / state.window_seconds.max(1e-9)).max(1.0);
            period.max((rest_units / windows).ceil() as u64)
        }
        None => period,
    }
}

/// The variants' detailed work may cost at most this share of the baseline's
/// sampled run (the model alone), as the cost model below counts it. Measured,
/// they cost about 1.4 times what it counts (each variant's thread takes its
/// batches and its static instructions apart from the baseline's), and the views
/// add about a sixth: 1.4 · 0.2 + 0.17 keeps the full default analysis within 1.5x
/// of the model alone (bench/notes/sampling.md: 0.5 gave 1.7-1.9x; 0.3 gave
/// 1.26-1.42x, then 1.55-1.65x once the model alone had become faster). Halving
/// the share widens the variants' intervals by sqrt(2).
pub const VARIANT_COST_SHARE: f64 = 0.2;
/// A timing core's cost per instruction relative to the functional layer's
/// (caches, TLBs, predictors): on `bench/programs/speed.c`, the sampled model
/// timing half its batches took 5.9 CPU s against 3.5 for the functional layer
/// alone, 2.4 s for 33 M instructions timed against 3.5 s for 66 M warmed.
pub const CORE_COST: f64 = 1.4;
/// The variants' sub-sample aims at this many units over the run at least
/// (the central-limit bound the intervals assume, [`super::estimator::MIN_UNITS_FOR_CLT`]).
pub const MIN_VARIANT_UNITS: f64 = 30.0;
/// Once the sub-sample has its [`MIN_VARIANT_UNITS`], a stratum the budget
/// would leave sparser still gets this many units (a stratum's own spread
/// enters the interval, so it needs a few).
pub const MIN_STRATUM_VARIANT_UNITS: f64 = 4.0;

/// What a stratum's sub-sampling is chosen from.
#[derive(Debug, Clone, Copy)]
pub struct VariantLoad {
    /// Timing cores beside the baseline's (sensitivity variants, the 1-cycle
    /// ALU, the idealized streams' cores).
    pub cores: usize,
    pub period: u64,
    pub window_batches: u64,
    /// Batches per period the functional layer runs on (all of them under
    /// functional warming; the warm-up and the window under fast-forward).
    pub functional_batches: f64,
    /// The variants' units before the stratum, and the units it is planned to hold.
    pub variant_units_before: f64,
    pub units_planned: f64,
}

/// One window in how many periods the variants time in a stratum: as few as
/// keep their cost within [`VARIANT_COST_SHARE`] of the baseline's,
/// `cores · w · c / k <= share · (f + w · c)` per period (`w` window batches at
/// core cost `c`, `f` functional batches); but no sparser than leaves the run
/// [`MIN_VARIANT_UNITS`] sub-sampled units by the stratum's planned end, and
/// the stratum [`MIN_STRATUM_VARIANT_UNITS`] of its own. The floor counts the
/// units the variants already have: asking every stratum for 30 over the run so
/// far added about 15 per stratum, 2.5 times the budget on a short sampled run.
pub fn variants_every(l: &VariantLoad) -> u64 {
    if l.cores == 0 {
        return 1;
    }
    let window = l.window_batches as f64 * CORE_COST;
    let for_cost = (l.cores as f64 * window / (VARIANT_COST_SHARE * (l.functional_batches + window))).ceil();
    let needed = (MIN_VARIANT_UNITS - l.variant_units_before).max(MIN_STRATUM_VARIANT_UNITS);
    let for_floor = (l.units_planned / needed).floor();
    for_cost.min(for_floor).max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(values: &[f64]) -> Running {
        let mut r = Running::default();
        values.iter().for_each(|&v| r.push(v));
        r
    }

    fn state(instructions: u64, spread: &[f64]) -> State {
        let u = units(spread);
        State {
            instructions,
            cycles: instructions as f64 / 4096.0 * u.mean(),
            variance: 0.0,
            units: u,
            unit_instructions: 4096,
            elapsed: Duration::ZERO,
            fast_forward_seconds_per_instruction: 0.0,
            window_seconds: 0.0,
            window_batches: 2,
        }
    }

    const TARGET: Target = Target { relative_half_width: 0.03, z: 3.0, budget: None };

    #[test]
    fn uniform_code_is_sampled_sparsely() {
        // per-unit cycles with a 1 % spread: n = M² s² / (ε T / z)², T = 2 M mean
        // = (3 · 0.01 / (0.03 · 2))² = 0.25 units: the floor of 1000 units per stratum rules
        let s = state(4096 * 30_000, &[99.0, 101.0, 99.0, 101.0]);
        assert_eq!(choose_period(&TARGET, &s), 30);
    }

    #[test]
    fn erratic_code_is_sampled_densely() {
        // mean 1.05, s² = 1.483: n = s² z² / (2 ε mean)² = 1.483 · 9 / 0.063² = 3363 units,
        // more than a quarter of the 10 000 in the stretch: the densest period
        let s = state(4096 * 10_000, &[0.1, 1.0, 3.0, 0.1, 0.1, 2.0]);
        assert_eq!(choose_period(&TARGET, &s), MIN_PERIOD);
    }

    #[test]
    fn the_period_follows_the_variance() {
        // cv = 1.15 (values 0, 2): s² = 4 · 1² / 3 = 1.333, n = s² z² / (2 ε mean)² = 1.333 · 9 / 0.06²
        // = 3333.3 units of 1 000 000: a period of 300 (299 or 300 by rounding), inside the floor's 1000
        let s = state(4096 * 1_000_000, &[0.0, 2.0, 0.0, 2.0]);
        let p = choose_period(&TARGET, &s);
        assert!((299..=300).contains(&p), "{p}");
    }

    #[test]
    fn a_budget_caps_the_rate() {
        // unbudgeted: 3363 units of 100 000 (period 29); a 10 s budget, half of it for this
        // stretch, at 0.01 s per window affords 500 windows: a period of 200 (past the
        // floor's 100: the budget is the user's word)
        let mut s = state(4096 * 100_000, &[0.1, 1.0, 3.0, 0.1, 0.1, 2.0]);
        s.window_seconds = 0.01;
        let t = Target { budget: Some(Duration::from_secs(10)), ..TARGET };
        assert_eq!(choose_period(&t, &s), 200);
    }
}
