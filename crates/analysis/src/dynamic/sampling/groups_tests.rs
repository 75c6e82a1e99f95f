//! The groups' shares from the code-mix fit: no wider than their own code's
//! spread, covering on repeated samples of a synthetic population, and
//! carrying their priced code whole.

use super::*;
use crate::dynamic::sampling::code_mix::tests::an_exit_no_unit_measured;
use crate::dynamic::sampling::code_mix::{estimate, ColdCode};
use crate::dynamic::sampling::estimator::{Series, Stratum, Z_99_7};
use crate::dynamic::sampling::synthetic_tests::noise;

fn entry(index: u32, count: u32, cycles: f64) -> UnitEntry {
    UnitEntry { index, count, cycles: cycles as f32 }
}

fn members(groups: &[&[usize]]) -> Vec<Option<Vec<usize>>> {
    groups.iter().map(|g| Some(g.to_vec())).collect()
}

/// f (static 0) is a loop at 1 cycle an execution in all ten units; unit 9
/// also holds g (static 7: 20 executions, 400 cycles, its own code). f's
/// cycles are f's class's units exactly: its share has no sampling error,
/// 160 of 560; g's, in one unit, has no spread to go by. The windows' ratio of f's unit cycles to all of them charges
/// unit 9's 400 cycles to f's interval.
#[test]
fn a_slow_unit_of_other_code_does_not_widen_a_groups_share() {
    let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 160, first_unit: 0, units: 10 }] };
    let mut units: Vec<Vec<UnitEntry>> = (0..10).map(|_| vec![entry(0, 4, 4.0)]).collect();
    units[9].push(entry(7, 20, 400.0));
    let executions = [160, 0, 0, 0, 0, 0, 0, 20];
    let m = estimate(&design, &units, &executions, ColdCode::default(), Z_99_7).unwrap();
    let total = m.total.value;
    assert!((total - 560.0).abs() < 1e-6, "{:?}", m.total);
    let mut of: Vec<Option<Vec<usize>>> = vec![None; 8];
    of[0] = Some(vec![0]);
    of[7] = Some(vec![1]);
    let s = mix_shares(&design, &m, &units, &of, &[0.0, 0.0], total, Z_99_7);
    assert!((s[0].value - 160.0 / 560.0).abs() < 1e-9 && (s[1].value - 400.0 / 560.0).abs() < 1e-9, "{s:?}");
    assert!(s[0].half_width < 1e-9, "{:?}", s[0]);
    // g's code is in one unit: no spread to go by, its whole share is its half-width
    assert!((s[1].half_width - 400.0 / 560.0).abs() < 1e-9, "{:?}", s[1]);
    // the windows' ratio: unit 9's residual 4 - r · 404 against the others' 4 - r · 4
    let f: Vec<f64> = units.iter().map(|u| u[0].cycles as f64).collect();
    let all: Vec<f64> = units.iter().map(|u| u.iter().map(|e| e.cycles as f64).sum()).collect();
    let ratio = design.ratio_interval(Series { prefix: 0.0, units: &f }, Series { prefix: 0.0, units: &all }, Z_99_7);
    assert!(ratio.half_width > 0.2, "{ratio:?}");
}

/// A population of 400 units of one loop, f (static 0) and g (static 1) two
/// executions each per unit at cycles that vary from unit to unit (f 2-6, g
/// 4-12), sampled one unit in 20 from each of the 20 starts: every start's
/// interval on f's share covers the population's share, and the intervals'
/// half-widths agree with the spread of the estimates over the starts (the
/// mean estimated standard error within a factor of two of the observed).
#[test]
fn the_shares_intervals_cover_over_the_starts_of_a_systematic_sample() {
    let (n, k) = (400usize, 20usize);
    let population: Vec<[f64; 2]> = (0..n as u64).map(|u| [4.0 + 2.0 * noise(2 * u), 8.0 + 4.0 * noise(2 * u + 1)]).collect();
    let truth = population.iter().map(|c| c[0]).sum::<f64>() / population.iter().map(|c| c[0] + c[1]).sum::<f64>();
    let executions = [2 * n as u64, 2 * n as u64];
    let of = members(&[&[0], &[1]]);
    let (mut estimates, mut errors) = (Vec::new(), Vec::new());
    for start in 0..k {
        let units: Vec<Vec<UnitEntry>> = (start..n).step_by(k).map(|u| vec![entry(0, 2, population[u][0]), entry(1, 2, population[u][1])]).collect();
        let design = Design { unit_instructions: 4, prefix_instructions: 0, strata: vec![Stratum { instructions: 4 * n as u64, first_unit: 0, units: units.len() }] };
        let m = estimate(&design, &units, &executions, ColdCode::default(), Z_99_7).unwrap();
        let s = mix_shares(&design, &m, &units, &of, &[0.0, 0.0], m.total.value, Z_99_7);
        assert!((s[0].value - truth).abs() <= s[0].half_width, "start {start}: {:?} against {truth}", s[0]);
        assert!((s[0].value + s[1].value - 1.0).abs() < 1e-9, "{s:?}");
        estimates.push(s[0].value);
        errors.push(s[0].half_width / Z_99_7);
    }
    let mean = estimates.iter().sum::<f64>() / k as f64;
    let observed = (estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt();
    let estimated = errors.iter().sum::<f64>() / k as f64;
    assert!(observed > 0.0 && (0.5..2.0).contains(&(estimated / observed)), "estimated {estimated}, observed {observed}");
}

/// Priced code counts whole: as in code_mix's test, statics 8 and 9 ran 10
/// times each where no unit was, priced at 20 · 606 / 23 cycles of the total.
/// Group p (statics 8 and 9) is all priced: its half-width is at least that
/// part's share of the total. Group l (the loop, static 0) has no spread of its
/// own; it carries the priced part's weight in the total, its share times P / C.
#[test]
fn priced_code_widens_its_groups_share_by_its_whole_value() {
    let (design, units, m) = an_exit_no_unit_measured();
    let priced = 20.0 * 606.0 / 23.0;
    let total = m.total.value;
    let mut of: Vec<Option<Vec<usize>>> = vec![None; 10];
    of[0] = Some(vec![1]);
    of[8] = Some(vec![0]);
    of[9] = Some(vec![0]);
    let s = mix_shares(&design, &m, &units, &of, &[0.0, 0.0], total, Z_99_7);
    let p = priced / total;
    assert!((s[0].value - p).abs() < 1e-9, "{:?}", s[0]);
    assert!(s[0].half_width >= p + p * p - 1e-9, "{:?}", s[0]);
    assert!((s[1].value - 377.0 / total).abs() < 1e-9, "{:?}", s[1]);
    assert!((s[1].half_width - s[1].value * p).abs() < 1e-9, "{:?}", s[1]);
}

/// main: the windows say 0.931 ± 0.005, the report 0.915, the cycles ± 2 %:
/// 0.915 ± (0.005 + 0.915 · 0.02); a group the report does not show keeps its interval.
#[test]
fn shares_are_centred_on_the_report_with_the_cycles_part() {
    let mut shares = vec![
        ShareInterval { name: "main".into(), share: Interval { value: 0.931, half_width: 0.005 } },
        ShareInterval { name: "other".into(), share: Interval { value: 0.02, half_width: 0.001 } },
    ];
    centre_group_shares(&mut shares, |n| (n == "main").then_some(0.915), 0.02);
    assert_eq!(shares[0].share.value, 0.915);
    assert!((shares[0].share.half_width - (0.005 + 0.915 * 0.02)).abs() < 1e-12, "{:?}", shares[0]);
    assert_eq!((shares[1].share.value, shares[1].share.half_width), (0.02, 0.001));
}
