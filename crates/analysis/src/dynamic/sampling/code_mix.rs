//! The code-mix estimator of a sampled run's cycles: cycles per execution of
//! each part of the code, from the units, times how often that code ran in the
//! whole run, which is known exactly.
//!
//! Plain expansion (`M_h · ȳ_h`, [`super::estimator`]) treats every unit as
//! a draw from one population: a program whose phases differ in CPI by 100x
//! (a pointer chase between integer loops) needs thousands of units before
//! their mix matches the run's. But the run's mix is not unknown: every
//! instruction is counted (the functional layer counts what it warms, the
//! plugin's skip mode counts each block it fast-forwards), so only the cycles
//! per execution need estimating, and within one loop they barely vary. This
//! is the survey statistician's calibrated (GREG) ratio estimator, with the
//! code as the auxiliary variable:
//!
//! * each unit gets a *signature* ([`signature`]), its most executed static
//!   instruction (the loop it spends its time in); each static instruction belongs to the
//!   signature it ran under most: its *class* (one per phase or loop). Classes
//!   seen in fewer than [`MIN_CLASS_UNITS`] units are pooled into one rest class;
//! * per class c, `R̂_c = Ŷ_c / X̂_c`: cycles over executions, both
//!   Horvitz-Thompson totals over the units (weight `M_h / n_h` in stratum h);
//! * the total is `Σ_c X_c R̂_c`, with `X_c` the class's exact executions;
//! * its variance (linearized) is that of the Horvitz-Thompson total of the
//!   residuals `e_i = Σ_c g_c (y_ic - R̂_c x_ic)`, `g_c = X_c / X̂_c`, through
//!   the same stratified formula as every other total, times `(n-1)/(n-1-p)`
//!   for the `p` ratios fitted to the same units (capped at 2).
//!
//! Cold code is apart: instructions that ran at most [`COLD_EXECUTIONS`]
//! times in the sampled part (start-up, error paths, the program's output and
//! exit) miss in every cache and run at ten or more times a loop's CPI, but a
//! unit rarely holds them. Two classes of it:
//!
//! * cold code some unit measured: seen in at least [`MIN_CLASS_UNITS`] units,
//!   a ratio of its own like any class; seen in fewer, priced as below;
//! * cold code no unit measured: always priced. A ratio from the cold code the
//!   units caught says nothing of it: on a phased program sampled every 2
//!   batches, the units caught 70 cheap executions of phase changes (1.7
//!   cycles each) and the class's ratio priced the 5884 executions no unit
//!   saw (the exit: 13.7 in the prefix's cold code) with them: the estimate
//!   came out 4.5 % low with a ±0.2 % interval.
//!
//! Priced code costs the cycles per execution of the cold code the exact
//! prefix timed and the units measured (pooled), and that part of the
//! estimate is given a half-width of its whole value: nothing measured says
//! how far it is off ([`CodeMix::unmeasured`]). Left in the loops' classes, a
//! program's cold exit that no unit measured counted at the loops' CPI: the
//! estimate came out 2 % low on a 14 M-instruction program with a ±0.3 % interval.
//!
//! When the units are all one class the estimate is the ratio estimator
//! `X · Σy / Σx`; when units mix phases in proportion to the run it is close
//! to the expansion; when they do not, it corrects their mix to the run's.

use super::estimator::{Design, Interval};
use std::collections::HashMap;

/// One static instruction's part of a measured unit: how often it ran in the
/// unit and the cycles its commits took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitEntry {
    pub index: u32,
    pub count: u32,
    pub cycles: f32,
}

/// A class (a signature) needs this many units to get a ratio of its own (the
/// degrees of freedom its ratio takes are charged to the variance).
pub const MIN_CLASS_UNITS: usize = 3;

/// An instruction that ran at most this many times in the sampled part is cold code.
pub const COLD_EXECUTIONS: u64 = 16;

/// What the exact prefix says cold code costs: the cycles and executions of
/// its instructions that ran at most [`COLD_EXECUTIONS`] times in it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ColdCode {
    pub cycles: f64,
    pub executions: f64,
}

/// The estimate of the sampled part's cycles (the exact prefix not included).
#[derive(Debug, Clone)]
pub struct CodeMix {
    pub total: Interval,
    /// Estimated cycles of the sampled part by static index: a class's total
    /// spread over its instructions as their unit cycles are.
    pub by_instruction: Vec<f64>,
    /// Classes with a ratio of their own (the rest class not counted).
    pub classes: usize,
    /// The part of `total` priced, not measured: cold code no class's units
    /// measured, at the price of cold code (its half-width is this whole value).
    pub unmeasured: f64,
    /// That part by static index (zero where an instruction's cycles are measured):
    /// a function's or loop's share carries its own part's whole value as half-width.
    pub unmeasured_by_instruction: Vec<f64>,
    /// The fit, for the functions' and loops' intervals ([`super::groups`]).
    pub fit: Fit,
}

/// What the functions' and loops' intervals need of the fit: a group's
/// estimate is its instructions' part of each class's calibrated units, and
/// its residuals are the total's, restricted to it ([`super::groups::mix_shares`]).
#[derive(Debug, Clone, Default)]
pub struct Fit {
    /// Each static instruction's class, by static index (`None`: it did not run in the sampled part).
    pub class: Vec<Option<u32>>,
    /// The class whose unit entries the fit leaves out: cold code the units
    /// measured too seldom, priced with the code no unit measured; and its
    /// exact executions over the units' estimate of them.
    pub left_out: Option<u32>,
    pub left_out_calibration: f64,
    /// Each measured unit's Horvitz-Thompson weight.
    pub weight: Vec<f64>,
    /// Per class: its estimated executions from the units (`X̂_c`), and its exact
    /// executions over that (`g_c`).
    pub executions_ht: Vec<f64>,
    pub calibration: Vec<f64>,
    /// The total's linearized residual per unit.
    pub residuals: Vec<f64>,
    /// The variance's factor for the ratios fitted to the same units.
    pub dof: f64,
}

impl Fit {
    /// The class static index `index` counts in, if the fit counted its unit entries.
    pub fn counted_class(&self, index: u32) -> Option<usize> {
        self.class.get(index as usize).copied().flatten().filter(|&c| Some(c) != self.left_out).map(|c| c as usize)
    }

    /// The calibration of static index `index`'s class (the left-out class's too).
    fn calibration_of(&self, index: u32) -> Option<f64> {
        let c = self.class.get(index as usize).copied().flatten()?;
        Some(if Some(c) == self.left_out { self.left_out_calibration } else { self.calibration[c as usize] })
    }
}

impl CodeMix {
    /// Per measured unit, the factor its weight takes when its cycles are
    /// weighed as the estimate weighs them: `Σ_c g_c y_uc / y_u`, each class's
    /// cycles in the unit by the class's calibration (its exact executions over
    /// the units' estimate of them), over all of the unit's cycles. One-off code
    /// (an exit a unit caught, run once where the unit stands for four) gets
    /// `1 / w` of it, priced or not. The views weigh their windows by it
    /// (`bottlenose_views::AccountingViews::finish`).
    pub fn unit_calibration(&self, units: &[Vec<UnitEntry>]) -> Vec<f64> {
        let fit = &self.fit;
        units
            .iter()
            .map(|u| {
                let all: f64 = u.iter().map(|e| e.cycles as f64).sum();
                let weighed: f64 = u.iter().filter_map(|e| Some(fit.calibration_of(e.index)? * e.cycles as f64)).sum();
                if all > 0.0 { weighed / all } else { 1.0 }
            })
            .collect()
    }
}

/// A unit's signature: the first in static order of its most executed static
/// instructions, counting as most executed every one within one execution of
/// the maximum. A loop's body instructions differ by one where the unit cuts
/// an iteration, at either end: every unit of one loop gets the same signature
/// wherever its iterations begin.
pub fn signature(counts: impl Iterator<Item = (u32, u32)> + Clone) -> Option<u32> {
    let max = counts.clone().map(|(_, c)| c).max()?;
    counts.filter(|&(_, c)| c + 1 >= max).map(|(i, _)| i).min()
}

fn signature_of(entries: &[UnitEntry]) -> Option<u32> {
    signature(entries.iter().map(|e| (e.index, e.count)))
}

/// Each static instruction's signature: the one it ran under most (ties: the
/// lowest); cold code has none (it is a class of its own).
fn home_signatures(units: &[Vec<UnitEntry>], is_cold: &impl Fn(u32) -> bool) -> HashMap<u32, u32> {
    let mut under: HashMap<(u32, u32), u64> = HashMap::new();
    for u in units {
        let Some(sig) = signature_of(u) else { continue };
        for e in u.iter().filter(|e| !is_cold(e.index)) {
            *under.entry((e.index, sig)).or_default() += e.count as u64;
        }
    }
    let mut home: HashMap<u32, (u32, u64)> = HashMap::new();
    for (&(index, sig), &count) in &under {
        let best = home.entry(index).or_insert((sig, count));
        if count > best.1 || (count == best.1 && sig < best.0) {
            *best = (sig, count);
        }
    }
    home.into_iter().map(|(index, (sig, _))| (index, sig)).collect()
}

/// The classes (signatures) seen in at least [`MIN_CLASS_UNITS`] units, in order.
fn own_classes(units: &[Vec<UnitEntry>], home: &HashMap<u32, u32>) -> Vec<u32> {
    let mut units_of: HashMap<u32, usize> = HashMap::new();
    let mut seen: Vec<u32> = Vec::new();
    for u in units {
        seen.clear();
        seen.extend(u.iter().filter_map(|e| home.get(&e.index).copied()));
        seen.sort_unstable();
        seen.dedup();
        seen.iter().for_each(|&c| *units_of.entry(c).or_default() += 1);
    }
    let mut own: Vec<u32> = units_of.into_iter().filter(|&(_, k)| k >= MIN_CLASS_UNITS).map(|(c, _)| c).collect();
    own.sort_unstable();
    own
}

/// The code-mix estimate from the measured `units` (stream order, one per
/// measured unit of `design`) and `executions`, every static instruction's
/// executions in the sampled part (units, warm-ups and fast-forward); `prefix_cold`
/// prices cold code no class measured. `None`: no unit, or units that do not match the design.
pub fn estimate(design: &Design, units: &[Vec<UnitEntry>], executions: &[u64], prefix_cold: ColdCode, z: f64) -> Option<CodeMix> {
    let n = design.measured_units();
    if n == 0 || units.len() != n {
        return None;
    }
    // Horvitz-Thompson weight of each unit: its stratum's units over those measured
    let mut weight = vec![0.0; n];
    for s in &design.strata {
        let w = design.population(s) / s.units.max(1) as f64;
        weight[s.first_unit..s.first_unit + s.units].iter_mut().for_each(|x| *x = w);
    }
    let is_cold = |index: u32| executions.get(index as usize).is_some_and(|&x| x > 0 && x <= COLD_EXECUTIONS);
    let home = home_signatures(units, &is_cold);
    let own = own_classes(units, &home);
    let rest = own.len();
    // cold code some unit measured: a class of its own if enough units did, else
    // priced; cold code no unit measured: priced
    let (cold, unseen) = (rest + 1, rest + 2);
    let mut seen = vec![false; executions.len()];
    for e in units.iter().flatten() {
        if let Some(s) = seen.get_mut(e.index as usize) {
            *s = true;
        }
    }
    let cold_units = units.iter().filter(|u| u.iter().any(|e| is_cold(e.index))).count();
    let priced = cold_units < MIN_CLASS_UNITS;
    let class_of = |index: u32| -> usize {
        if is_cold(index) {
            return if seen.get(index as usize).copied().unwrap_or(false) { cold } else { unseen };
        }
        home.get(&index).and_then(|h| own.binary_search(h).ok()).unwrap_or(rest)
    };
    let classes = unseen + 1;
    // exact executions per class, and Horvitz-Thompson totals of executions and cycles
    let mut exact = vec![0.0; classes];
    for (i, &x) in executions.iter().enumerate().filter(|(_, &x)| x > 0) {
        exact[class_of(i as u32)] += x as f64;
    }
    let (mut x_ht, mut y_ht) = (vec![0.0; classes], vec![0.0; classes]);
    // the price of cold code: the prefix's and what the units measured of it, unweighted
    // (each execution a measurement)
    let (mut cold_cycles, mut cold_executions) = (prefix_cold.cycles, prefix_cold.executions);
    // (priced cold code's executions as the units estimate them: the views weigh it by them)
    let mut left_out_ht = 0.0;
    let mut by_unit: Vec<Vec<(usize, f64, f64)>> = Vec::with_capacity(n);
    for (u, &w) in units.iter().zip(&weight) {
        let mut parts: Vec<(usize, f64, f64)> = Vec::new();
        for e in u {
            let c = class_of(e.index);
            if c == cold {
                cold_cycles += e.cycles as f64;
                cold_executions += e.count as f64;
                if priced {
                    left_out_ht += w * e.count as f64;
                    continue;
                }
            }
            match parts.iter_mut().find(|p| p.0 == c) {
                Some(p) => {
                    p.1 += e.cycles as f64;
                    p.2 += e.count as f64;
                }
                None => parts.push((c, e.cycles as f64, e.count as f64)),
            }
        }
        for &(c, y, x) in &parts {
            y_ht[c] += w * y;
            x_ht[c] += w * x;
        }
        by_unit.push(parts);
    }
    let all_ratio = if x_ht.iter().sum::<f64>() > 0.0 { y_ht.iter().sum::<f64>() / x_ht.iter().sum::<f64>() } else { 0.0 };
    let mut ratio: Vec<f64> = (0..classes).map(|c| if x_ht[c] > 0.0 { y_ht[c] / x_ht[c] } else { all_ratio }).collect();
    if cold_executions > 0.0 {
        let price = cold_cycles / cold_executions;
        ratio[unseen] = price;
        if priced {
            ratio[cold] = price;
        }
    }
    let calibration: Vec<f64> = (0..classes).map(|c| if x_ht[c] > 0.0 { exact[c] / x_ht[c] } else { 0.0 }).collect();
    let value: f64 = (0..classes).map(|c| exact[c] * ratio[c]).sum();
    let residuals: Vec<f64> = by_unit.iter().map(|parts| parts.iter().map(|&(c, y, x)| calibration[c] * (y - ratio[c] * x)).sum()).collect();
    // priced cold code: no spread measured, its whole value is the half-width
    let unmeasured = exact[unseen] * ratio[unseen] + if priced { exact[cold] * ratio[cold] } else { 0.0 };
    let fitted = (0..classes).filter(|&c| x_ht[c] > 0.0).count() as f64;
    let free = n as f64 - 1.0;
    let dof = if free > 0.0 { free / (free - fitted).max(free / 2.0) } else { 1.0 };
    let total = if design.spread_known() {
        let sampled = z * (design.variance_of(|i| residuals[i]) * dof).sqrt();
        Interval { value, half_width: sampled.hypot(unmeasured) }
    } else {
        Interval::unknown(value)
    };
    // per instruction: its unit cycles calibrated as its class's; a class no unit saw
    // at the overall ratio; priced cold code at its price
    let mut by_instruction = vec![0.0; executions.len()];
    for (u, &w) in units.iter().zip(&weight) {
        for e in u {
            let i = e.index as usize;
            let c = class_of(e.index);
            if priced && c == cold {
                continue;
            }
            if i >= by_instruction.len() {
                by_instruction.resize(i + 1, 0.0);
            }
            by_instruction[i] += w * e.cycles as f64 * calibration[c];
        }
    }
    let mut unmeasured_by_instruction = vec![0.0; executions.len()];
    for (i, &x) in executions.iter().enumerate().filter(|(_, &x)| x > 0) {
        let c = class_of(i as u32);
        if x_ht[c] == 0.0 {
            by_instruction[i] += x as f64 * ratio[c];
        }
        if c == unseen || (priced && c == cold) {
            unmeasured_by_instruction[i] = x as f64 * ratio[c];
        }
    }
    let fit = Fit {
        class: executions.iter().enumerate().map(|(i, &x)| (x > 0).then(|| class_of(i as u32) as u32)).collect(),
        left_out: priced.then_some(cold as u32),
        left_out_calibration: if left_out_ht > 0.0 { exact[cold] / left_out_ht } else { 0.0 },
        weight,
        executions_ht: x_ht,
        calibration,
        residuals,
        dof,
    };
    Some(CodeMix { total, by_instruction, classes: rest, unmeasured, unmeasured_by_instruction, fit })
}

#[cfg(test)]
#[path = "code_mix_tests.rs"]
pub(super) mod tests;
