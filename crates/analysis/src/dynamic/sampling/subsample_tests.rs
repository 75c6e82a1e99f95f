//! The variants' sub-sample on synthetic paired streams: a speedup estimated
//! over the windows the variants timed (a fraction of the baseline's units) is
//! unbiased and its 99.7 % interval covers the population's speedup as often as
//! it says, with strata sub-sampled at different rates; and the sub-sampling
//! rate the sampler picks keeps the variants' cost within its share.

use super::controller::{variants_every, VariantLoad, CORE_COST, MIN_VARIANT_UNITS, VARIANT_COST_SHARE};
use super::estimator::{Design, Interval, Subsample, Z_99_7};
use super::report::{summarize, Inputs, Measured};
use super::synthetic_tests::salted_noise as noise;
use super::schedule::{WindowSchedule, WindowStep};
use super::{Sampler, SamplingOptions, Warming, UNIT_BATCHES, WARM_UP_BATCHES};
use bottlenose_simulate::engine::VariantsTime;
use bottlenose_timing::BatchPart;

const BATCH: u64 = 4096;

/// One sampled run: a unit every `period` batches, the variant timing one
/// window in `every`, stratum by stratum (`strata`: from which batch on, its
/// period and its `every`). Returns the design, the sub-sample, the
/// baseline's cycles on every unit and the variant's on the sub-sample.
fn run(base: &dyn Fn(u64) -> f64, variant: &dyn Fn(u64) -> f64, batches: u64, strata: &[(u64, u64, u64)], seed: u64) -> (Design, Subsample, Vec<f64>, Vec<f64>) {
    let (_, period, every) = strata[0];
    let mut s = WindowSchedule::new(1, 1, period, seed, BATCH, 0).with_variants_every(every);
    let (mut base_units, mut variant_units) = (Vec::new(), Vec::new());
    let mut next = 1;
    for b in 0..batches {
        if next < strata.len() && b >= strata[next].0 && s.at_last_batch() {
            s.set_stratum(strata[next].1, strata[next].2);
            next += 1;
        }
        let step = s.next();
        if step == WindowStep::Unit {
            base_units.push(base(b));
            if s.variants_step() == WindowStep::Unit {
                variant_units.push(variant(b));
            }
        }
        s.record(BATCH, step == WindowStep::Unit);
    }
    let (design, sub) = s.into_parts();
    (design, sub, base_units, variant_units)
}

/// The speedup `T_base / T_variant - 1` and the idealization's CPI reduction as
/// the report gives them (the variant once as a sensitivity variant, once as an idealization).
fn report(design: &Design, sub: &Subsample, base_units: &[f64], variant_units: &[f64], batches: u64) -> (Interval, Interval) {
    let base_total = design.total(super::estimator::Series { prefix: 0.0, units: base_units });
    let base = Measured::new(0.0, base_units, base_total);
    let ratio = sub.variant_ratio(design, base.series(), super::estimator::Series { prefix: 0.0, units: variant_units }, 1.0).value;
    let variant = || Measured::new(0.0, variant_units, base_total * ratio);
    let s = summarize(Inputs {
        design,
        subsample: sub,
        strata: Vec::new(),
        instructions: batches * BATCH,
        batch_instructions: BATCH,
        warm_up_batches: 1,
        base,
        cycles: None,
        code_classes: None,
        variants: vec![(vec!["x".into()], 1.15, variant())],
        ideals: vec![("x".into(), variant())],
        prefix_variant_units: 0,
        prefix_idealized: false,
        windows: &[],
        flops: None,
        target: 0.03,
        budget_seconds: None,
        elapsed_seconds: 0.0,
    });
    assert_eq!(s.variant_units, variant_units.len());
    (s.sensitivity[0].speedup, s.idealization[0].cpi_reduction)
}

/// Over `seeds` runs: the speedups' mean error, how often the interval covered
/// the truth, the mean half-width, and the mean share of units sub-sampled.
fn trials(base: &dyn Fn(u64) -> f64, variant: &dyn Fn(u64) -> f64, batches: u64, strata: &[(u64, u64, u64)], seeds: u64) -> (f64, u64, f64, f64) {
    let (tb, tv): (f64, f64) = (0..batches).map(|b| (base(b), variant(b))).fold((0.0, 0.0), |a, x| (a.0 + x.0, a.1 + x.1));
    let truth = tb / tv - 1.0;
    let cpi_truth = (tb - tv) / (batches * BATCH) as f64;
    let (mut err, mut covered, mut width, mut share, mut cpi_err) = (0.0, 0, 0.0, 0.0, 0.0);
    for seed in 0..seeds {
        let (design, sub, bu, vu) = run(base, variant, batches, strata, seed);
        let (speedup, cpi) = report(&design, &sub, &bu, &vu, batches);
        err += speedup.value - truth;
        covered += speedup.contains(truth) as u64;
        width += speedup.half_width;
        share += vu.len() as f64 / bu.len() as f64;
        // the idealization's row is the same ratio, as a CPI reduction (its interval
        // leaves out the baseline's own error: checked in the mean below)
        cpi_err += (cpi.value - cpi_truth) / cpi_truth;
    }
    let n = seeds as f64;
    assert!((cpi_err / n).abs() < 0.01, "CPI reductions {} off on average", cpi_err / n);
    (err / n, covered, width / n, share / n)
}

/// Two phases (CPI 0.2 and 2.0, 2500 batches each, not aligned with any period);
/// a variant 15 % faster on average with a 5 % per-batch spread of its own.
#[test]
fn a_constant_speedup_is_recovered_from_one_unit_in_eight() {
    let base = |b: u64| if (b / 2500) % 2 == 0 { 800.0 } else { 8000.0 } * (1.0 + 0.1 * noise(b, 1));
    let variant = |b: u64| base(b) / 1.15 * (1.0 + 0.05 * noise(b, 2));
    let (bias, covered, width, share) = trials(&base, &variant, 40_000, &[(0, 8, 8)], 100);
    assert!((share - 1.0 / 8.0).abs() < 0.01, "sub-sampled share {share}");
    // 100 runs: the mean error's own spread is a tenth of one run's (hw / z); 4 of it
    assert!(bias.abs() < 0.4 * width / Z_99_7, "mean error {bias}, half-width {width}");
    // a 99.7 % interval misses about 0.3 times in 100
    assert!(covered >= 97, "covered {covered} of 100");
    // the paired ratio is narrow: residuals of 5 %/1.15 uniform noise (sd 2.5 %) weighted by
    // the slow phase (E[b²]/mean(b)² = 1.67) over 625 of 5000 units give
    // 2.97 · 0.025 · sqrt(1.67 / 625 · 0.875) · 1.15² = 0.5 points of speedup
    assert!(width > 0.003 && width < 0.007, "half-width {width}");
}

/// Strata sub-sampled at different rates (one unit in 8, in 128, in 128 of the
/// batches) over a run whose first stretch is all one phase (a 40 % speedup)
/// and the rest alternates with a 5 % one: the estimate weighs each stratum by
/// its instructions, where pooling the sub-sample would overweight the first.
#[test]
fn strata_sub_sampled_at_different_rates_are_weighted() {
    let fast = |b: u64| b < 12_500 || (b / 2500) % 2 == 0;
    let base = |b: u64| if fast(b) { 1000.0 } else { 6000.0 } * (1.0 + 0.1 * noise(b, 3));
    let variant = |b: u64| base(b) / if fast(b) { 1.4 } else { 1.05 } * (1.0 + 0.05 * noise(b, 4));
    let strata = [(0, 8, 1), (10_000, 16, 8), (20_000, 32, 4)];
    let batches = 40_000;
    let (bias, covered, width, _) = trials(&base, &variant, batches, &strata, 100);
    assert!(bias.abs() < 0.4 * width / Z_99_7, "mean error {bias}, half-width {width}");
    assert!(covered >= 97, "covered {covered} of 100");
    // pooled without the strata's weights, the same sub-samples are far off
    let (tb, tv): (f64, f64) = (0..batches).map(|b| (base(b), variant(b))).fold((0.0, 0.0), |a, x| (a.0 + x.0, a.1 + x.1));
    let (design, sub, bu, vu) = run(&base, &variant, batches, &strata, 0);
    let pooled = sub.gather(&bu).iter().sum::<f64>() / vu.iter().sum::<f64>() - 1.0;
    // (by the phases' shares: 25.8 % against 11.7 %)
    assert!((pooled - (tb / tv - 1.0)).abs() > 5.0 * width, "pooled {pooled} against {}", tb / tv - 1.0);
    assert_eq!(design.strata.len(), 3);
}

/// The rate follows the cost model: 30 cores on a window of 2 batches in 4
/// under functional warming: `30 · 2 · 1.4 / (0.2 · (4 + 2 · 1.4))` = 61.8, so
/// one window in 62; under fast-forward with 2 Mi instructions of warming
/// (514 functional batches) at a period of 4096: 84 / (0.2 · 516.8) = 0.81, every window.
#[test]
fn the_rate_keeps_the_variants_within_their_share() {
    let load = |cores, period, functional, planned| VariantLoad { cores, period, window_batches: 2, functional_batches: functional, variant_units_before: 0.0, units_planned: planned };
    assert_eq!(CORE_COST, 1.4);
    assert_eq!(VARIANT_COST_SHARE, 0.2);
    assert_eq!(variants_every(&load(30, 4, 4.0, 1e6)), 62);
    assert_eq!(variants_every(&load(30, 4096, 514.0, 1e6)), 1);
    assert_eq!(variants_every(&load(0, 4, 4.0, 1e6)), 1);
    // a short stratum: no sparser than leaves 30 units (300 planned: 1 in 10)
    assert_eq!(variants_every(&load(30, 4, 4.0, 300.0)), 10);
    // the floor counts the units the variants have: 10 before leave 20 to find in 300 (1 in 15);
    // with 30 or more, the stratum needs only its own 4 (1 in 75), and the budget's 1 in 62 rules
    let after = |before, planned| variants_every(&VariantLoad { variant_units_before: before, ..load(30, 4, 4.0, planned) });
    assert_eq!(after(10.0, 300.0), 15);
    assert_eq!(after(32.0, 300.0), 62);
    assert_eq!(after(32.0, 200.0), 50);
    for cores in [1, 4, 27, 30, 60] {
        for period in [4u64, 8, 64, 1024] {
            let l = load(cores, period, period as f64, 1e9);
            let k = variants_every(&l) as f64;
            let cost = |k: f64| cores as f64 * 2.0 * CORE_COST / k;
            let baseline = period as f64 + 2.0 * CORE_COST;
            assert!(cost(k) <= VARIANT_COST_SHARE * baseline + 1e-9, "{cores} cores, period {period}: 1 in {k}");
            // and no sparser than that needs
            assert!(k == 1.0 || cost(k - 1.0) > VARIANT_COST_SHARE * baseline, "{cores} cores, period {period}: 1 in {k}");
        }
    }
}

/// The sampler end to end at the densest period under functional warming: over
/// a long run the variants' windows cost at most their share of the baseline's
/// (functional layer on every batch, the core on the windows), the first strata
/// give the sub-sample its floor of units, and every sub-sampled unit's warm-up
/// is timed by the variants too.
#[test]
fn the_sampler_sub_samples_within_the_budget() {
    let cores = 30;
    let opts = SamplingOptions { warming: Warming::Full, exact_below: 0, period: Some(4), seed: 3, ..Default::default() };
    let mut s = Sampler::new(opts, BATCH).with_variant_cores(cores);
    let batches = 200_000;
    let (mut timed, mut variant_timed) = (0u64, 0u64);
    let mut previous = VariantsTime::Skip;
    let mut part = s.next_batch(0);
    for b in 0..batches {
        let variants = s.variants_time();
        if part.is_some() {
            timed += 1;
            variant_timed += (variants != VariantsTime::Skip) as u64;
        } else {
            assert_eq!(variants, VariantsTime::Skip, "batch {b}: fast-forward");
        }
        if let (Some(BatchPart::Unit { .. }), VariantsTime::Same) = (part, variants) {
            assert_ne!(previous, VariantsTime::Skip, "batch {b}: a sub-sampled unit without its warm-up");
        }
        previous = variants;
        s.end_batch(BATCH, part);
        part = s.next_batch((b + 1) * BATCH);
    }
    let (design, sub, strata, _) = s.finish().unwrap();
    let variants_cost = cores as f64 * CORE_COST * variant_timed as f64;
    let baseline_cost = batches as f64 + CORE_COST * timed as f64;
    let share = variants_cost / baseline_cost;
    // the floor's denser first strata add a little over a run of 50 000 units (about 0.013
    // of the baseline whatever the share: the first stratum's 32 units at 1 in 8)
    assert!(share <= VARIANT_COST_SHARE * 1.1, "variants cost {share} of the baseline");
    assert!(share >= VARIANT_COST_SHARE * 0.8, "variants cost {share} of the baseline: sparser than the budget needs");
    assert!(sub.units.len() as f64 >= MIN_VARIANT_UNITS);
    // (the last window may be cut off by the end)
    let windows = (WARM_UP_BATCHES + UNIT_BATCHES) * sub.units.len() as u64;
    // (a unit of the baseline's may be the warm-up of the next period's: then fewer)
    assert!(variant_timed <= windows + 2 && variant_timed > sub.units.len() as u64, "{variant_timed} batches for {} units", sub.units.len());
    // the first stratum (1024 batches, 256 units) is sub-sampled for the floor: 1 in 8
    assert_eq!(strata[0].variants_every, 8);
    assert_eq!(strata.iter().map(|s| s.variant_units).sum::<usize>(), sub.units.len());
    // then the budget: 1 in 62 (the_rate_keeps_the_variants_within_their_share)
    assert!(strata.last().unwrap().variants_every == 62, "{:?}", strata.iter().map(|s| s.variants_every).collect::<Vec<_>>());
    assert_eq!(design.measured_units(), strata.iter().map(|s| s.units).sum::<usize>());
}
