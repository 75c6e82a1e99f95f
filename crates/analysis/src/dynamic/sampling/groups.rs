//! The functions' and loops' shares of a sampled run's cycles, with their intervals.
//!
//! The report's tables give each group (function, loop) its cycles from the
//! code-mix estimate ([`super::code_mix`]): each class of code priced on the
//! run's exact instruction mix, the cold code no unit measured priced apart.
//! [`mix_shares`] gives that share `S_G = (P_G + Y_G) / C` (the group's exact
//! prefix and code-mix cycles over the estimated total) the interval of the
//! same estimator: the residuals that make the total's variance, restricted to
//! the group's code, `e_uG = Σ_c g_c (y_uGc - R_Gc x_uc)`, less `S_G` times the
//! total's own (a linearized ratio), and the whole of the priced code's value
//! in the group and in the total. A group whose code fewer than
//! [`MIN_CLASS_UNITS`] units held has no spread to go by: its whole estimate
//! is its half-width, as for cold code (sampled from the first instruction,
//! the loader's `_dl_map_object_from_fd`, in one unit, came out 0.0096 ± 0.0032
//! of `dot`'s cycles where it took 0.0065).
//!
//! The windows' plain ratio of the group's unit cycles to all of them (what a
//! run without a code-mix estimate falls back on, `UnitCosts::group_shares`)
//! weighs every unit's cycles against the group's: one unit holding the exit,
//! a `printf` 50 times slower per instruction than the loop, gave the example's
//! `dot` 82.1 % ± 17.7 where the cycles were ± 2.8 %. That interval is centred
//! on the report's share by [`centre_group_shares`], and widened by the share's
//! part of the cycles' relative half-width.

use super::code_mix::{CodeMix, UnitEntry, MIN_CLASS_UNITS};
use super::estimator::{Design, Interval};
use bottlenose_report_model::sampling::ShareInterval;

/// Each group's share of the estimated total `total` (the exact prefix's cycles
/// and the code mix's) with its interval at `z`: `members[i]` the groups static
/// index `i` belongs to (none where `None` or past the end), `prefix[g]` group
/// g's cycles in the exact prefix, `units` the measured units the mix was fitted on.
pub fn mix_shares(design: &Design, mix: &CodeMix, units: &[Vec<UnitEntry>], members: &[Option<Vec<usize>>], prefix: &[f64], total: f64, z: f64) -> Vec<Interval> {
    let groups = prefix.len();
    let fit = &mix.fit;
    let classes = fit.calibration.len();
    let of = |i: usize| members.get(i).and_then(|m| m.as_deref()).unwrap_or(&[]);
    let (mut estimate, mut priced) = (vec![0.0; groups], vec![0.0; groups]);
    for (i, (&y, &p)) in mix.by_instruction.iter().zip(&mix.unmeasured_by_instruction).enumerate().filter(|(_, (&y, _))| y != 0.0) {
        for &g in of(i) {
            estimate[g] += y;
            priced[g] += p;
        }
    }
    if total <= 0.0 || units.len() != fit.residuals.len() {
        return (0..groups).map(|_| Interval::default()).collect();
    }
    let share: Vec<f64> = (0..groups).map(|g| (prefix[g] + estimate[g]) / total).collect();
    // R_Gc: the group's Horvitz-Thompson cycles in class c over the class's executions
    let mut ratio = vec![0.0; groups * classes];
    for (u, &w) in units.iter().zip(&fit.weight) {
        for e in u {
            let Some(c) = fit.counted_class(e.index) else { continue };
            for &g in of(e.index as usize) {
                ratio[g * classes + c] += w * e.cycles as f64;
            }
        }
    }
    for (k, r) in ratio.iter_mut().enumerate() {
        let x = fit.executions_ht[k % classes];
        *r = if x > 0.0 { *r / x } else { 0.0 };
    }
    // each unit's residual of each group's share, and the units that hold the group's code
    let mut residual = vec![vec![0.0; units.len()]; groups];
    let mut holding = vec![0usize; groups];
    let (mut y, mut x) = (vec![0.0; groups * classes], vec![0.0; classes]);
    for (u, unit) in units.iter().enumerate() {
        y.fill(0.0);
        x.fill(0.0);
        for e in unit {
            let Some(c) = fit.counted_class(e.index) else { continue };
            x[c] += e.count as f64;
            for &g in of(e.index as usize) {
                y[g * classes + c] += e.cycles as f64;
            }
        }
        for g in 0..groups {
            holding[g] += (0..classes).any(|c| y[g * classes + c] != 0.0) as usize;
            let own: f64 = (0..classes).map(|c| fit.calibration[c] * (y[g * classes + c] - ratio[g * classes + c] * x[c])).sum();
            residual[g][u] = (own - share[g] * fit.residuals[u]) / total;
        }
    }
    (0..groups)
        .map(|g| {
            if !design.spread_known() {
                return Interval::unknown(share[g]);
            }
            let sampled = z * (design.variance_of(|u| residual[g][u]) * fit.dof).sqrt();
            // priced code: the group's own, and the total's through the denominator,
            // whole; so is a group's code that too few units held for a spread (the
            // loader's functions, in a run sampled from its first instruction)
            let own = if holding[g] < MIN_CLASS_UNITS { estimate[g] } else { priced[g] };
            let unmeasured = (own + share[g] * mix.unmeasured) / total;
            Interval { value: share[g], half_width: sampled.hypot(unmeasured) }
        })
        .collect()
}

/// Re-centres `shares` on the report's share of each group (`report`, by
/// name), widening each by its share of the cycles' relative half-width
/// `widen` (the windows' ratio leaves the total's error out; [`mix_shares`]
/// has it, and is given 0).
pub fn centre_group_shares(shares: &mut [ShareInterval], report: impl Fn(&str) -> Option<f64>, widen: f64) {
    for s in shares {
        if let Some(v) = report(&s.name) {
            s.share = Interval { value: v, half_width: s.share.half_width + v * widen };
        }
    }
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;
