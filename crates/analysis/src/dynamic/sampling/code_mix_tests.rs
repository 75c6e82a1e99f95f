//! The code-mix estimator by hand, and on a synthetic phased program against
//! plain expansion: unbiased, intervals that cover, and far narrower when
//! phases differ in CPI.

use super::*;
use crate::dynamic::sampling::estimator::{Series, Stratum, Z_99_7};
use crate::dynamic::sampling::schedule::{WindowSchedule, WindowStep};
use crate::dynamic::sampling::synthetic_tests::noise;

fn entry(index: u32, count: u32, cycles: f64) -> UnitEntry {
    UnitEntry { index, count, cycles: cycles as f32 }
}

#[test]
fn the_signature_is_the_first_of_the_most_executed_instructions() {
    let sig = |e: &[(u32, u32)]| signature(e.iter().copied());
    assert_eq!(sig(&[(7, 3), (2, 5), (4, 5)]), Some(2));
    // a loop body 4-6 cut mid-iteration: 4 ran once less than 5 and 6, still the first
    assert_eq!(sig(&[(5, 683), (6, 683), (4, 682), (9, 1)]), Some(4));
    assert_eq!(sig(&[(5, 683), (6, 683), (4, 681)]), Some(5));
    assert_eq!(sig(&[]), None);
}

/// Two phases: A (static 0, CPI 1) ran 900 times, B (static 1, CPI 100) 100
/// times, in 250 units of 4. The sample over-represents B: 10 units of each.
/// Expansion: 250 · (4 + 400) / 2 = 50 500 cycles. The run's mix is known:
/// 900 · 1 + 100 · 100 = 10 900, and with every unit of a class at its ratio
/// nothing is left to vary.
#[test]
fn the_runs_mix_corrects_the_samples() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 1000, first_unit: 0, units: 20 }] };
    let units: Vec<Vec<UnitEntry>> = (0..20).map(|k| if k % 2 == 0 { vec![entry(0, 4, 4.0)] } else { vec![entry(1, 4, 400.0)] }).collect();
    let plain: Vec<f64> = units.iter().map(|u| u[0].cycles as f64).collect();
    assert_eq!(design.total(Series { prefix: 0.0, units: &plain }), 50_500.0);
    let m = estimate(&design, &units, &[900, 100], ColdCode::default(), Z_99_7).unwrap();
    assert_eq!(m.classes, 2);
    assert!((m.total.value - 10_900.0).abs() < 1e-6, "{:?}", m.total);
    assert!(m.total.half_width < 1e-6, "{:?}", m.total);
    // per instruction: the class totals
    assert!((m.by_instruction[0] - 900.0).abs() < 1e-6 && (m.by_instruction[1] - 10_000.0).abs() < 1e-6, "{:?}", m.by_instruction);
}

/// As above, B's units alternating 380 and 420 cycles: R_B = 100 still, the
/// residuals g_B (y - 400) with g_B = X_B / X̂_B = 100 / (12.5 · 40) = 0.2
/// are ±4 on B's units, 0 on A's: s² = 10 · 16 / 19, and
/// Var = M² (1 - n/M) s² / n · (n-1)/(n-1-p) = 250² · 0.92 · (160/19) / 20 · 19/17.
#[test]
fn the_variance_is_the_residuals_total_with_its_fitted_ratios() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 1000, first_unit: 0, units: 20 }] };
    let units: Vec<Vec<UnitEntry>> =
        (0..20).map(|k| if k % 2 == 0 { vec![entry(0, 4, 4.0)] } else { vec![entry(1, 4, if k % 4 == 1 { 380.0 } else { 420.0 })] }).collect();
    let m = estimate(&design, &units, &[900, 100], ColdCode::default(), 1.0).unwrap();
    assert!((m.total.value - 10_900.0).abs() < 1e-6, "{:?}", m.total);
    let var = 250.0f64.powi(2) * 0.92 * (160.0 / 19.0) / 20.0 * 19.0 / 17.0;
    assert!((m.total.half_width - var.sqrt()).abs() < 1e-6, "{} vs {}", m.total.half_width, var.sqrt());
}

/// Code no unit saw (it ran only while fast-forwarding) is counted at the
/// ratio of all units: 50 executions at (4 + 400) / 8 = 50.5 cycles.
#[test]
fn code_no_unit_saw_counts_at_the_overall_ratio() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 1000, first_unit: 0, units: 20 }] };
    let units: Vec<Vec<UnitEntry>> = (0..20).map(|k| if k % 2 == 0 { vec![entry(0, 4, 4.0)] } else { vec![entry(1, 4, 400.0)] }).collect();
    let m = estimate(&design, &units, &[900, 100, 50], ColdCode::default(), 1.0).unwrap();
    assert!((m.total.value - (10_900.0 + 50.0 * 50.5)).abs() < 1e-6, "{:?}", m.total);
    assert!((m.by_instruction[2] - 50.0 * 50.5).abs() < 1e-6);
}

const UNIT: u64 = 4096;

/// A phased program, instruction by instruction: rounds of a hash loop (statics
/// 0-4, CPI 0.3), a pointer chase (statics 10-13, CPI 60: a miss a step) and a
/// branchy loop (statics 20-29, CPI 0.9), phase lengths not multiples of a unit
/// (units straddle phases), each unit's cycles with a ±10 % noise of its own.
/// Returns the units (population) and every static instruction's executions.
fn population(rounds: u64) -> (Vec<Vec<UnitEntry>>, Vec<u64>) {
    let phases: [(u32, u32, f64, u64); 3] = [(0, 5, 0.3, 3_000_777), (10, 4, 60.0, 81_931), (20, 10, 0.9, 1_200_333)];
    let round: u64 = phases.iter().map(|p| p.3).sum();
    let total = rounds * round;
    let mut units = Vec::new();
    let mut executions = vec![0u64; 32];
    let mut at = 0u64;
    while at + UNIT <= total {
        let mut u: Vec<UnitEntry> = Vec::new();
        let noise = 1.0 + 0.1 * noise(at / UNIT);
        let mut left = UNIT;
        let mut pos = at;
        while left > 0 {
            // the phase at `pos` and how much of it is left
            let mut off = pos % round;
            let mut k = 0;
            while off >= phases[k].3 {
                off -= phases[k].3;
                k += 1;
            }
            let take = (phases[k].3 - off).min(left);
            let (first, len, cpi, _) = phases[k];
            for s in 0..len {
                // instructions of the loop body in turn
                let count = (take + (len - 1 - s) as u64) / len as u64;
                if count > 0 {
                    u.push(entry(first + s, count as u32, count as f64 * cpi * noise));
                    executions[(first + s) as usize] += count;
                }
            }
            left -= take;
            pos += take;
        }
        units.push(u);
        at += UNIT;
    }
    (units, executions)
}

/// One unit in every `period`, at a random place in each (the run's schedule),
/// as the code-mix estimate and as expansion.
fn sampled(pop: &[Vec<UnitEntry>], executions: &[u64], period: u64, seed: u64) -> (Interval, Interval) {
    let mut s = WindowSchedule::new(0, 1, period, seed, UNIT, 0);
    let mut units = Vec::new();
    for u in pop {
        let step = s.next();
        if step == WindowStep::Unit {
            units.push(u.clone());
        }
        s.record(UNIT, step == WindowStep::Unit);
    }
    let design = s.design();
    let plain: Vec<f64> = units.iter().map(|u| u.iter().map(|e| e.cycles as f64).sum()).collect();
    let expansion = design.total_interval(Series { prefix: 0.0, units: &plain }, Z_99_7);
    (estimate(&design, &units, executions, ColdCode::default(), Z_99_7).unwrap().total, expansion)
}

#[test]
fn on_a_phased_program_it_is_unbiased_covers_and_needs_far_fewer_units() {
    let (pop, executions) = population(30);
    let truth: f64 = pop.iter().flatten().map(|e| e.cycles as f64).sum();
    let (mut err, mut covered, mut width, mut plain_width) = (0.0, 0, 0.0, 0.0);
    for seed in 0..100 {
        let (mix, plain) = sampled(&pop, &executions, 40, seed);
        err += (mix.value - truth) / truth;
        covered += mix.contains(truth) as u32;
        width += mix.relative();
        plain_width += plain.relative();
    }
    let (bias, width, plain_width) = (err / 100.0, width / 100.0, plain_width / 100.0);
    assert!(bias.abs() < 0.002, "mean error {bias}");
    assert!(covered >= 97, "covered {covered} of 100");
    // the chase is 2 % of the instructions and 70 % of the cycles: where a unit
    // lands decides the expansion, not the code-mix estimate
    assert!(width * 4.0 < plain_width, "code mix ±{width}, expansion ±{plain_width}");
}

/// A loop (static 0: 1 cycle an execution, 1000 units of 4) and cold code at
/// the end no unit measured (statics 5-7, once each): the loop's units give
/// 4000 exact; the cold code is priced at the prefix's cold code, 600 cycles
/// over 20 executions = 30 an execution: 90 cycles, and that part's half-width
/// is its whole value. At the loop's ratio it was 3 cycles with no half-width.
#[test]
fn cold_code_no_unit_measured_is_priced_at_the_prefixs_cold_code() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 4003, first_unit: 0, units: 10 }] };
    let units: Vec<Vec<UnitEntry>> = (0..10).map(|_| vec![entry(0, 4, 4.0)]).collect();
    let executions = [4000, 0, 0, 0, 0, 1, 1, 1];
    let prior = ColdCode { cycles: 600.0, executions: 20.0 };
    let m = estimate(&design, &units, &executions, prior, Z_99_7).unwrap();
    assert!((m.total.value - 4090.0).abs() < 1e-9, "{:?}", m.total);
    assert!((m.total.half_width - 90.0).abs() < 1e-9, "{:?}", m.total);
    assert!((m.by_instruction[5] - 30.0).abs() < 1e-9, "{:?}", m.by_instruction);
    // without a prefix: the loop's ratio, still not measured: its value as half-width
    let m = estimate(&design, &units, &executions, ColdCode::default(), Z_99_7).unwrap();
    assert!((m.total.value - 4003.0).abs() < 1e-9 && (m.total.half_width - 3.0).abs() < 1e-9, "{:?}", m.total);
}

/// Cold code one unit measured (a loop unit ending in the exit: 2 cold
/// executions of 40 cycles each, weight 100) is priced, not expanded: pooled
/// with the prefix's (600 over 20), (600 + 80) / 22 an execution, on the
/// run's 2 cold executions; expanded at the unit's weight it stood for 100 exits.
#[test]
fn cold_code_in_too_few_units_is_pooled_not_expanded() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 4002, first_unit: 0, units: 10 }] };
    let mut units: Vec<Vec<UnitEntry>> = (0..10).map(|_| vec![entry(0, 4, 4.0)]).collect();
    units[9] = vec![entry(0, 2, 2.0), entry(5, 1, 40.0), entry(6, 1, 40.0)];
    let executions = [4000, 0, 0, 0, 0, 1, 1];
    let m = estimate(&design, &units, &executions, ColdCode { cycles: 600.0, executions: 20.0 }, Z_99_7).unwrap();
    let cold = 2.0 * 680.0 / 22.0;
    assert!((m.total.value - (4000.0 + cold)).abs() < 1e-6, "{:?}", m.total);
    assert!(m.total.half_width >= cold - 1e-9 && m.total.half_width < cold + 1.0, "{:?}", m.total);
}

/// Cold code in three units or more is a class with a ratio of its own:
/// 3 units each with one cold execution of 50 cycles (weight 10 each: an
/// estimated 30 cold executions for the run's 3), ratio 50, whatever the prefix says.
#[test]
fn cold_code_in_enough_units_is_a_class() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 400, first_unit: 0, units: 10 }] };
    let mut units: Vec<Vec<UnitEntry>> = (0..10).map(|_| vec![entry(0, 4, 4.0)]).collect();
    for (k, u) in units.iter_mut().take(3).enumerate() {
        *u = vec![entry(0, 3, 3.0), entry(5 + k as u32, 1, 50.0)];
    }
    let executions = [397, 0, 0, 0, 0, 1, 1, 1];
    let m = estimate(&design, &units, &executions, ColdCode { cycles: 600.0, executions: 20.0 }, Z_99_7).unwrap();
    assert!((m.total.value - (397.0 + 150.0)).abs() < 1e-6, "{:?}", m.total);
}

/// The run of the test below (also the groups' tests, `groups_tests.rs`): a loop
/// (static 0) in ten units of a 100-unit run, three of them with a cheap cold
/// execution each (statics 5-7), and statics 8 and 9 run 10 times where no
/// unit was; the prefix's cold code 600 cycles over 20 executions.
pub(in crate::dynamic::sampling) fn an_exit_no_unit_measured() -> (Design, Vec<Vec<UnitEntry>>, CodeMix) {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 400, first_unit: 0, units: 10 }] };
    let mut units: Vec<Vec<UnitEntry>> = (0..10).map(|_| vec![entry(0, 4, 4.0)]).collect();
    for (k, u) in units.iter_mut().take(3).enumerate() {
        *u = vec![entry(0, 3, 3.0), entry(5 + k as u32, 1, 2.0)];
    }
    let executions = [377, 0, 0, 0, 0, 1, 1, 1, 10, 10];
    let m = estimate(&design, &units, &executions, ColdCode { cycles: 600.0, executions: 20.0 }, Z_99_7).unwrap();
    (design, units, m)
}

/// Cold code the units measured says nothing of cold code none measured: 3
/// units each caught one cheap cold execution (statics 5-7, a phase change,
/// 2 cycles: a class, ratio 2), and statics 8 and 9 ran 10 times each where no
/// unit was (the exit). Those 20 are priced at the pooled cold code, the
/// prefix's 600 cycles over 20 executions and the units' 6 over 3: 20 · 606 /
/// 23, and that part's half-width is its whole value (the measured classes
/// have no spread). In one class with the cheap code they were 2 cycles each,
/// 40, with no half-width.
#[test]
fn cold_code_no_unit_measured_is_priced_beside_cold_code_that_is_a_class() {
    let (_, _, m) = an_exit_no_unit_measured();
    let priced = 20.0 * 606.0 / 23.0;
    assert!((m.total.value - (377.0 + 3.0 * 2.0 + priced)).abs() < 1e-6, "{:?}", m.total);
    assert!((m.unmeasured - priced).abs() < 1e-9, "{}", m.unmeasured);
    assert!((m.total.half_width - priced).abs() < 1e-6, "{:?}", m.total);
    assert!((m.by_instruction[8] - 10.0 * 606.0 / 23.0).abs() < 1e-9 && (m.by_instruction[5] - 2.0).abs() < 1e-9, "{:?}", m.by_instruction);
    // by instruction, the priced part is statics 8 and 9's, 10 · 606 / 23 each; the measured code's none
    let u = &m.unmeasured_by_instruction;
    assert!(u[..8].iter().all(|&p| p == 0.0) && (u[8] - 10.0 * 606.0 / 23.0).abs() < 1e-9 && (u[9] - u[8]).abs() < 1e-12, "{u:?}");
}

/// The factor on each unit's weight: in the priced-exit run the loop's class
/// is calibrated by its 377 executions over the units' estimate, 10 · 37; the
/// cold phase change (3 executions, one in each of units 0-2, which stand for
/// 10 each) by 3 / 30. Units 0-2 hold 3 cycles of loop and 2 of cold code:
/// (377 / 370 · 3 + 0.1 · 2) / 5; the others, loop alone, 377 / 370.
#[test]
fn a_units_calibration_weighs_one_off_code_by_its_executions() {
    let (design, units, m) = an_exit_no_unit_measured();
    assert_eq!(design.measured_units(), units.len());
    let f = m.unit_calibration(&units);
    let loop_g = 377.0 / 370.0;
    assert_eq!(f.len(), 10);
    for (u, &fu) in f.iter().enumerate() {
        let want = if u < 3 { (loop_g * 3.0 + 0.1 * 2.0) / 5.0 } else { loop_g };
        assert!((fu - want).abs() < 1e-9, "unit {u}: {fu} against {want}");
    }
}
