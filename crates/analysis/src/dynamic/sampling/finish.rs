//! The end of a sampled run: the timing variants' units turned into estimated
//! totals, the executions the timing model did not see added back, and the
//! report's `sampling` section.

use super::estimator::{Design, Interval, Series, Stratum, Subsample};
use super::estimator::Z_99_7;
use super::report::{summarize, Inputs, Measured, SamplingSummary, StratumReport};
use super::code_mix::CodeMix;
use super::unit_costs::UnitCosts;
use super::{Sampler, SamplingOptions, WARM_UP_BATCHES};
use crate::dynamic::engine::VariantOutcome;
use bottlenose_views::{InstructionCost, WindowTally};
use std::collections::BTreeMap;
use std::time::Duration;

/// A sampled run's design, kept for its summary.
pub struct SampledRun {
    opts: SamplingOptions,
    design: Design,
    /// The units the variants timed.
    subsample: Subsample,
    strata: Vec<StratumReport>,
    elapsed: Duration,
    batch_instructions: u64,
    /// The total cycles from the code-mix estimator, with their interval, and its classes of code.
    cycles: Option<Interval>,
    /// The code-mix estimate the cycles are from (its fit gives the functions' and loops' intervals).
    mix: Option<CodeMix>,
    /// Its factor on each unit's weight, for the views ([`CodeMix::unit_calibration`]).
    unit_calibration: Vec<f64>,
}

/// The cycles of the exact prefix: all the variant timed if no window followed it.
fn prefix_cycles(o: &VariantOutcome) -> f64 {
    o.prefix_cycles.unwrap_or(o.cycles)
}

/// A variant's ratio to the baseline over the exact prefix, from their paired
/// units of the prefix's sub-sample (`variant` and `base`, each timed from the
/// same cold pipeline after the same warm-up), and the ratio's variance: the
/// sub-sample is a design of one stratum, `n` units of the prefix's `N`
/// batches, and the ratio its [`Design::ratio_interval`] (variance
/// `(1 - n/N) s_d² / (n b̄²)`, `d = v - q b`; 0 for a single unit). `None`
/// without units to pair.
fn prefix_ratio(variant: &[f64], base: &[f64], batches: u64) -> Option<(f64, f64)> {
    let n = variant.len();
    if n == 0 || n != base.len() || base.iter().sum::<f64>() <= 0.0 {
        return None;
    }
    let units = n.max(batches as usize) as u64;
    let sub = Design { unit_instructions: 1, prefix_instructions: 0, strata: vec![Stratum { instructions: units, first_unit: 0, units: n }] };
    let q = sub.ratio_interval(Series { prefix: 0.0, units: variant }, Series { prefix: 0.0, units: base }, 1.0);
    Some((q.value, if q.known() { q.half_width * q.half_width } else { 0.0 }))
}

/// After [`estimate`]: `cycles` the estimate, `prefix_cycles` set.
fn measured(o: &VariantOutcome) -> Measured<'_> {
    Measured { prefix: prefix_cycles(o), prefix_variance: o.prefix_variance, units: &o.units, total: o.cycles, priced: o.priced }
}

/// A run whose sampled part measured no unit (it ended first, or the period
/// is longer than the run): the sampled instructions at the CPI of what the
/// model timed after the prefix (warm-ups, a unit cut off by the end), or
/// else of the prefix. Cold pipelines make that CPI high: the report gives it
/// no interval and says so.
fn total_without_units(design: &Design, o: &VariantOutcome) -> f64 {
    let prefix = prefix_cycles(o);
    let sampled: u64 = design.strata.iter().map(|s| s.instructions).sum();
    let timed = o.instructions.saturating_sub(design.prefix_instructions);
    let cpi = if timed > 0 {
        (o.cycles - prefix) / timed as f64
    } else if design.prefix_instructions > 0 {
        prefix / design.prefix_instructions as f64
    } else {
        0.0
    };
    prefix + cpi * sampled as f64
}

/// Replaces each outcome's cycles by the estimate from its units (its units stay),
/// adds the fast-forwarded executions (`untimed`, by static index) to `cost`, and
/// brings its cycles to the baseline's estimate. The baseline (the first
/// outcome, measured on every unit) is estimated from the run's exact
/// instruction mix ([`super::code_mix`], from `unit_costs`), or by expansion
/// of its units if that cannot be had; the others (variants) on the
/// sub-sample: each is its prefix plus the baseline's estimate past the prefix
/// times its ratio to the baseline over the sub-sample
/// ([`Subsample::variant_ratio`]). Its prefix: as it timed it after the
/// windows, or the baseline's times its ratio over the prefix's sub-sample
/// ([`prefix_ratio`], with that estimate's variance), or, in a run too long to
/// have kept the prefix, the baseline's at the windows' ratio. The part of the
/// baseline's estimate priced, not measured (cold code no unit measured:
/// [`super::code_mix::CodeMix::unmeasured`]), a variant that timed the whole
/// prefix takes at its own ratio to the baseline over the prefix's cold code,
/// not the windows' ratio: cold code is where a perfect icache saves most, and
/// the windows, in the program's loops, say nothing of it. `None` (and
/// nothing changed): the run ended in its exact prefix.
pub fn estimate<'a>(
    sampler: Sampler,
    outcomes: impl IntoIterator<Item = &'a mut VariantOutcome>,
    cost: &mut InstructionCost,
    unit_costs: &mut UnitCosts,
    untimed: &[(u64, u64)],
) -> Option<SampledRun> {
    let batch_instructions = sampler.batch_instructions;
    let opts = sampler.opts.clone();
    let (design, subsample, strata, elapsed) = sampler.finish()?;
    let mut outcomes = outcomes.into_iter();
    let baseline = outcomes.next()?;
    let mix = unit_costs.code_mix(&design, untimed, Z_99_7);
    let base = match &mix {
        Some(m) => prefix_cycles(baseline) + m.total.value,
        None if design.measured_units() > 0 => design.total(measured(baseline).series()),
        None => total_without_units(&design, baseline),
    };
    baseline.prefix_cycles = Some(prefix_cycles(baseline));
    baseline.cycles = base;
    let unmeasured = mix.as_ref().map(|m| m.unmeasured);
    baseline.priced = unmeasured;
    let base_cold = unit_costs.prefix_cold().cycles;
    // the variants waited through the exact prefix and timed it, or a sub-sample of
    // it, after the windows; a run too long for the producer to keep the prefix that
    // long takes it at their ratio over the windows
    let base_prefix = prefix_cycles(baseline);
    let base_units = Series { prefix: 0.0, units: &baseline.units };
    let prefix_batches = design.prefix_instructions.div_ceil(batch_instructions.max(1));
    let base_prefix_units = std::mem::take(&mut baseline.prefix_units);
    for o in outcomes {
        let ratio = if subsample.units.is_empty() { None } else { Some(subsample.variant_ratio(&design, base_units, Series { prefix: 0.0, units: &o.units }, 1.0).value) };
        // no window of the variants: nothing says how they differ (the report gives
        // their speedups no interval)
        let r = ratio.unwrap_or(1.0);
        let (prefix, variance) = match o.exact_prefix {
            Some(p) => (p, 0.0),
            None => match prefix_ratio(&o.prefix_units, &base_prefix_units, prefix_batches) {
                Some((q, q_variance)) => (base_prefix * q, base_prefix * base_prefix * q_variance),
                None => (base_prefix * r, 0.0),
            },
        };
        o.prefix_cycles = Some(prefix);
        o.prefix_variance = variance;
        // the variant's own price of cold code, where it timed the prefix's
        let cold_ratio = (!o.exact_prefix_by_instruction.is_empty() && base_cold > 0.0).then(|| unit_costs.prefix_cold_on(&o.exact_prefix_by_instruction).cycles / base_cold);
        match (unmeasured, cold_ratio) {
            (Some(u), Some(rho)) => {
                o.priced = Some(u * rho);
                o.cycles = prefix + (base - base_prefix - u) * r + u * rho;
            }
            _ => o.cycles = prefix + (base - base_prefix) * r,
        }
    }
    for (i, &(n, m)) in untimed.iter().enumerate().filter(|(_, u)| u.0 > 0) {
        cost.add_untimed(i, n, m);
    }
    // each instruction's cycles: its prefix's, and its part of the code-mix estimate
    if let Some(m) = &mix {
        cost.replace_cycles(|i| unit_costs.prefix_cycles(i) + m.by_instruction.get(i).copied().unwrap_or(0.0));
    }
    let weighted = cost.total_cycles();
    if weighted > 0.0 {
        cost.scale_cycles(base / weighted);
    }
    let cycles = mix.as_ref().map(|m| Interval { value: base, half_width: m.total.half_width });
    let unit_calibration = mix.as_ref().map(|m| m.unit_calibration(unit_costs.measured_units(&design))).unwrap_or_default();
    Some(SampledRun { opts, design, subsample, strata, elapsed, batch_instructions, cycles, mix, unit_calibration })
}

/// Groups of static instructions the report gives shares of (functions, loops):
/// their names, and `of(i, groups)` putting static index `i`'s groups into `groups`.
pub struct Groups<F> {
    pub names: Vec<String>,
    pub of: F,
}

impl SampledRun {
    /// The factor on each unit's weight the views take (empty without a code-mix estimate).
    pub fn unit_calibration(&self) -> &[f64] {
        &self.unit_calibration
    }

    /// The `sampling` section: `outcomes[0]` the baseline, `outcomes[1..]` the
    /// sensitivity variants (`labels`), `ideals` the idealizations by name;
    /// `functions` and `loops` the ones the report shows, their cycles per
    /// unit in `unit_costs`; `flops` the report's FLOPS stack and the machine's FP units.
    #[allow(clippy::too_many_arguments)]
    pub fn summary(
        self,
        labels: &[(Vec<String>, f64)],
        outcomes: &[VariantOutcome],
        ideals: &[(String, &VariantOutcome)],
        windows: &[WindowTally],
        flops: Option<(&BTreeMap<String, f64>, f64)>,
        instructions: u64,
        mut unit_costs: UnitCosts,
        functions: Groups<impl FnMut(usize, &mut Vec<usize>)>,
        loops: Groups<impl FnMut(usize, &mut Vec<usize>)>,
    ) -> SamplingSummary {
        // (without units there is nothing to estimate a group's share from but the prefix)
        let none = self.design.measured_units() == 0;
        let base = measured(&outcomes[0]).series();
        // the groups' shares of the code-mix estimate, as the report's tables give them
        let mix = self.mix.as_ref().zip(self.cycles.map(|c| c.value));
        let function_shares = if none { Vec::new() } else { unit_costs.group_shares(&self.design, base, Z_99_7, functions.of, &functions.names, mix) };
        let loop_shares = if none { Vec::new() } else { unit_costs.group_shares(&self.design, base, Z_99_7, loops.of, &loops.names, mix) };
        let mut summary = summarize(Inputs {
            design: &self.design,
            subsample: &self.subsample,
            strata: self.strata,
            instructions,
            batch_instructions: self.batch_instructions,
            warm_up_batches: WARM_UP_BATCHES,
            base: measured(&outcomes[0]),
            cycles: self.cycles,
            code_classes: self.mix.as_ref().map(|m| m.classes),
            variants: labels.iter().zip(&outcomes[1..]).map(|((r, w), o)| (r.clone(), *w, measured(o))).collect(),
            ideals: ideals.iter().map(|(n, o)| (n.clone(), measured(o))).collect(),
            // (every variant that did not time it whole had the same sub-sample)
            prefix_variant_units: outcomes[1..].iter().chain(ideals.iter().map(|(_, o)| *o)).find(|o| o.exact_prefix.is_none()).map_or(0, |o| o.prefix_units.len()),
            prefix_idealized: ideals.first().is_some_and(|(_, o)| o.exact_prefix.is_some()),
            windows,
            flops,
            target: self.opts.target,
            budget_seconds: self.opts.budget.map(|b| b.as_secs_f64()),
            elapsed_seconds: self.elapsed.as_secs_f64(),
        });
        summary.functions = function_shares;
        summary.loops = loop_shares;
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_timing::{BatchPart, Listener};

    const BATCH: u64 = 4096;

    /// A run of `batches` batches at `cycles_per_batch(b)` driven through the
    /// sampler as the pipeline and one engine drive it: the baseline's outcome
    /// and the sampler at the end.
    fn drive(opts: SamplingOptions, batches: u64, cycles_per_batch: impl Fn(u64) -> f64) -> (Sampler, VariantOutcome) {
        let mut s = Sampler::new(opts, BATCH);
        let mut o = VariantOutcome::default();
        let mut part = s.next_batch(0);
        for b in 0..batches {
            if let Some(p) = part {
                let c = cycles_per_batch(b);
                if p != BatchPart::Whole && o.prefix_cycles.is_none() {
                    o.prefix_cycles = Some(o.cycles);
                }
                o.cycles += c;
                o.instructions += BATCH;
                if matches!(p, BatchPart::Unit { .. }) {
                    o.units.push(c);
                }
                if p != BatchPart::WarmUp {
                    s.note_batch(p, &[crate::dynamic::engine::DynRecord { id: 0, info: Default::default() }].into_iter().collect());
                    s.on_cycles(p, c);
                }
            }
            s.end_batch(BATCH, part);
            part = s.next_batch((b + 1) * BATCH);
        }
        (s, o)
    }

    fn summarized(s: Sampler, mut o: VariantOutcome, instructions: u64) -> SamplingSummary {
        let mut cost = InstructionCost::new();
        let mut unit_costs = UnitCosts::new(true);
        let run = estimate(s, std::iter::once(&mut o), &mut cost, &mut unit_costs, &[]).expect("sampled");
        let none = |_: usize, _: &mut Vec<usize>| {};
        let groups = || Groups { names: Vec::new(), of: none };
        run.summary(&[], std::slice::from_ref(&o), &[], &[], None, instructions, unit_costs, groups(), groups())
    }

    /// A period longer than the run: no unit. At a constant CPI of 1 the
    /// estimate is the run's instructions whatever was timed (the prefix, a
    /// warm-up), not the prefix's cycles alone; and it comes without an interval.
    #[test]
    fn a_run_without_units_is_estimated_at_the_cpi_it_timed_and_says_so() {
        for (exact_batches, seed) in [(3, 0), (3, 1), (0, 2), (0, 5)] {
            let opts = SamplingOptions { exact_below: exact_batches * BATCH, period: Some(100_000), seed, ..Default::default() };
            let (s, o) = drive(opts, 10, |_| BATCH as f64);
            assert!(o.units.is_empty());
            let timed = o.instructions > 0;
            let sm = summarized(s, o, 10 * BATCH);
            assert_eq!(sm.units, 0);
            assert!(!sm.cycles.known() && !sm.cpi.known() && !sm.target.reached);
            let w = sm.warning.as_deref().unwrap();
            assert!(w.contains("--exact") && w.contains("--sample-period"), "{w}");
            if timed {
                assert_eq!(sm.cycles.value, (10 * BATCH) as f64, "prefix of {exact_batches} batches, seed {seed}");
                assert!(w.contains("no unit was measured"), "{w}");
            } else {
                assert!(w.contains("nothing was timed"), "{w}");
            }
        }
        // the prefix at CPI 2, nothing after it timed: the rest at CPI 2 too
        let opts = SamplingOptions { exact_below: 3 * BATCH, period: Some(100_000), seed: 0, ..Default::default() };
        let (s, o) = drive(opts, 10, |b| if b < 3 { 2.0 * BATCH as f64 } else { 7.0 * BATCH as f64 });
        if o.instructions == 3 * BATCH {
            assert_eq!(summarized(s, o, 10 * BATCH).cycles.value, (20 * BATCH) as f64);
        }
    }

    /// A variant that timed the exact prefix after the windows (an idealization)
    /// has that prefix in its total, and its ratio over the windows only for the
    /// rest; one that did not (a sensitivity variant) takes the ratio for both.
    #[test]
    fn a_variant_that_timed_the_prefix_late_keeps_its_own_prefix() {
        // 8 batches of start-up at 3 cycles per instruction, then 56 at 1
        let opts = SamplingOptions { exact_below: 8 * BATCH, period: Some(4), seed: 3, ..Default::default() };
        let (s, mut base) = drive(opts, 64, |b| if b < 8 { 3.0 * BATCH as f64 } else { BATCH as f64 });
        assert!(base.units.len() >= 10, "{} units", base.units.len());
        let base_prefix = base.prefix_cycles.expect("a prefix");
        assert_eq!(base_prefix, (24 * BATCH) as f64);
        // three units of the prefix's sub-sample, timed on the baseline's configuration
        base.prefix_units = vec![100.0, 300.0, 200.0];
        // the variants: 0.5 of the baseline on every unit; the start-up 0.9 of it, timed or
        // not, and a third that sub-sampled it at 0.8 of the baseline's configuration
        let variant = |exact_prefix| VariantOutcome { units: base.units.iter().map(|u| 0.5 * u).collect(), exact_prefix, prefix_units: Vec::new(), ..base.clone() };
        let (mut timed, mut untimed) = (variant(Some(0.9 * base_prefix)), variant(None));
        let mut sub_sampled = VariantOutcome { prefix_units: vec![80.0, 240.0, 160.0], ..variant(None) };
        let mut cost = InstructionCost::new();
        let mut unit_costs = UnitCosts::new(true);
        estimate(s, [&mut base, &mut timed, &mut untimed, &mut sub_sampled], &mut cost, &mut unit_costs, &[]).expect("sampled");
        assert_eq!(sub_sampled.prefix_cycles, Some(0.8 * base_prefix));
        assert_eq!(sub_sampled.prefix_variance, 0.0, "a constant ratio has no error");
        assert!((sub_sampled.cycles - (0.8 * 24.0 + 0.5 * 56.0) * BATCH as f64).abs() < 1e-6, "{}", sub_sampled.cycles);
        // the baseline's estimate: the prefix, and 56 batches at 1 (every unit says so)
        assert!((base.cycles - (80 * BATCH) as f64).abs() < 1e-6, "{}", base.cycles);
        assert_eq!(timed.prefix_cycles, Some(0.9 * base_prefix));
        assert!((timed.cycles - (0.9 * 24.0 + 0.5 * 56.0) * BATCH as f64).abs() < 1e-6, "{}", timed.cycles);
        assert_eq!(untimed.prefix_cycles, Some(0.5 * base_prefix));
        assert!((untimed.cycles - 0.5 * 80.0 * BATCH as f64).abs() < 1e-6, "{}", untimed.cycles);
    }

    /// Cold code no unit measured (static 9, 10 executions where the windows
    /// were not: the exit), priced at the prefix's cold code (static 1: 2
    /// executions, 100 cycles): 500 cycles of the baseline's estimate. A
    /// variant at 0.5 of the baseline on every unit that timed the whole prefix,
    /// its cold code there at 10 cycles (0.1 of the baseline's), takes those 500
    /// at 0.1, not 0.5; one that did not time it, at 0.5.
    #[test]
    fn a_variant_prices_cold_code_no_unit_measured_at_its_prefixs_cold_code() {
        let opts = SamplingOptions { exact_below: 8 * BATCH, period: Some(4), seed: 3, ..Default::default() };
        let (s, mut base) = drive(opts, 64, |b| if b < 8 { 3.0 * BATCH as f64 } else { BATCH as f64 });
        // what the baseline's listener saw: the prefix (static 0 at 3 cycles, static 1
        // twice at 50), then each unit (static 0 at 1 cycle an execution)
        let mut unit_costs = UnitCosts::new(true);
        let mut t = -1.0;
        unit_costs.begin_part(1, BatchPart::Whole);
        for k in 0..8 * BATCH {
            t += if k < 2 { 50.0 } else { 3.0 };
            unit_costs.record(if k < 2 { 1 } else { 0 }, t);
        }
        let measured = base.units.len() as u64;
        for _ in 0..measured {
            unit_costs.begin_part(1, BatchPart::Unit { weight: 4.0 });
            for _ in 0..BATCH {
                t += 1.0;
                unit_costs.record(0, t);
            }
        }
        unit_costs.begin_part(1, BatchPart::WarmUp);
        let mut untimed = vec![(0, 0); 10];
        untimed[0] = (56 * BATCH - measured * BATCH - 10, 0);
        untimed[9] = (10, 0);
        let mut by_instruction = vec![0.0; 2];
        by_instruction[1] = 10.0;
        let variant = |exact_prefix: Option<f64>, by_instruction: Vec<f64>| VariantOutcome {
            units: base.units.iter().map(|u| 0.5 * u).collect(),
            exact_prefix,
            exact_prefix_by_instruction: by_instruction,
            prefix_units: Vec::new(),
            ..base.clone()
        };
        let base_prefix = base.prefix_cycles.unwrap();
        let mut timed = variant(Some(0.9 * base_prefix), by_instruction);
        let mut untimed_prefix = variant(None, Vec::new());
        let mut cost = InstructionCost::new();
        let run = estimate(s, [&mut base, &mut timed, &mut untimed_prefix], &mut cost, &mut unit_costs, &untimed).expect("sampled");
        let sampled = base.cycles - base_prefix;
        // the loop's 56 batches at 1 cycle an instruction but the exit's 10, and the exit at 50 each
        assert!((sampled - (56.0 * BATCH as f64 - 10.0 + 500.0)).abs() < 1e-6, "{sampled}");
        assert_eq!(base.priced, Some(500.0));
        assert!((timed.priced.unwrap() - 50.0).abs() < 1e-9, "{:?}", timed.priced);
        assert!((timed.cycles - (0.9 * base_prefix + 0.5 * (sampled - 500.0) + 50.0)).abs() < 1e-6, "{}", timed.cycles);
        assert_eq!(untimed_prefix.priced, None);
        assert!((untimed_prefix.cycles - 0.5 * base.cycles).abs() < 1e-6, "{}", untimed_prefix.cycles);
        // the report says how much of the baseline's estimate is priced
        let none = |_: usize, _: &mut Vec<usize>| {};
        let groups = || Groups { names: Vec::new(), of: none };
        let sm = run.summary(&[], std::slice::from_ref(&base), &[], &[], None, 64 * BATCH, unit_costs, groups(), groups());
        assert_eq!(sm.priced_cycles, Some(500.0));
        assert!(serde_json::to_value(&sm).unwrap()["priced_cycles"] == 500.0);
    }

    /// The ratio estimator over the prefix's units, by hand: base 1, 2, 3 and
    /// variant 2, 4, 7 give q = 13/6, residuals -1/6, -2/6, 3/6 (sample variance
    /// 7/36), b̄ = 2; 3 units of 12 batches: (1 - 3/12) · (7/36) / (3 · 4).
    #[test]
    fn the_prefix_ratio_is_the_ratio_estimator() {
        let (q, v) = prefix_ratio(&[2.0, 4.0, 7.0], &[1.0, 2.0, 3.0], 12).unwrap();
        assert!((q - 13.0 / 6.0).abs() < 1e-12, "{q}");
        assert!((v - 0.75 * (7.0 / 36.0) / 12.0).abs() < 1e-12, "{v}");
        // every batch timed: no sampling error; nothing to pair: no estimate
        assert_eq!(prefix_ratio(&[2.0, 4.0, 7.0], &[1.0, 2.0, 3.0], 3).unwrap().1, 0.0);
        assert!(prefix_ratio(&[], &[], 12).is_none() && prefix_ratio(&[1.0], &[1.0, 2.0], 12).is_none());
    }

    /// One unit: the expansion of its cycles, no interval (one value has no spread).
    #[test]
    fn a_run_with_one_unit_gives_its_estimate_without_an_interval() {
        // period 16 over 20 batches: one window in the first period, the second cut short or not reached
        let found = (0..50).find_map(|seed| {
            let opts = SamplingOptions { exact_below: 0, period: Some(16), seed, ..Default::default() };
            let (s, o) = drive(opts, 20, |_| 3.0 * BATCH as f64);
            (s.schedule.as_ref().unwrap().units() == 1).then_some((s, o))
        });
        let (s, o) = found.expect("a seed with one unit");
        let sm = summarized(s, o, 20 * BATCH);
        assert_eq!(sm.units, 1);
        // 20 batches at 3 cycles per instruction
        assert_eq!(sm.cycles.value, (60 * BATCH) as f64);
        assert!(!sm.cycles.known());
        assert!(sm.warning.as_deref().unwrap().contains("only 1 unit"), "{:?}", sm.warning);
        let json = serde_json::to_value(&sm).unwrap();
        assert!(json["cycles"]["half_width"].is_null() && json["cpi"]["half_width"].is_null(), "{json}");
    }
}
