//! The CPI stacks' intervals centred on the report's stacks.
//!
//! The sampling section first gives each stall component the windows' ratio
//! estimate `R` of its share of the cycles (`super::report`). The stacks the
//! report shows are the views' exact prefix plus the windows scaled to the rest
//! of the run, over the estimated cycles: per-cycle counts, as Top-Down's cycle
//! shares, so each component's value `V` gets `V ± (h_R + |V − R| · h_C / C)`
//! (`super::topdown`'s docs: `V − R` comes from the prefix, which has no
//! sampling error but moves with the cycles). The commit stack's components
//! are then scaled by one factor (a commit stage wider than dispatch spreads
//! its excess slots over them; 1 when they are as wide): the interval takes
//! that factor as exact, its part of `V − R` widening it by `|f − 1| R · h_C / C`.

use super::topdown::cycle_share_half_width;
use bottlenose_report_model::sampling::{Interval, SamplingSummary, StackIntervals};
use bottlenose_report_model::CpiStacks;

/// Re-centres the sampling section's CPI-stack intervals on `stacks`, the report's.
pub fn centre_cpi_stacks(summary: &mut SamplingSummary, stacks: &CpiStacks) {
    let cycles = summary.cycles;
    if let Some(st) = summary.cpi_stacks.as_mut() {
        centre(st, stacks, &cycles);
    }
}

/// The stacks' intervals `st` (the windows' estimates) centred on `stacks`, with the run's `cycles`.
fn centre(st: &mut StackIntervals, stacks: &CpiStacks, cycles: &Interval) {
    let relative_cycles = if cycles.value > 0.0 { cycles.half_width / cycles.value } else { f64::NAN };
    if stacks.cycles <= 0.0 {
        return;
    }
    for (stage, shares) in [("dispatch", &mut st.dispatch), ("issue", &mut st.issue), ("commit", &mut st.commit)] {
        let Some(table) = stacks.stage(stage) else { continue };
        for s in shares.iter_mut() {
            if let Some(&v) = table.get(&s.name) {
                let value = v / stacks.cycles;
                s.share = Interval { value, half_width: cycle_share_half_width(value, s.share, relative_cycles) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_report_model::sampling::ShareInterval;
    use std::collections::BTreeMap;

    /// The windows gave dcache_dram 0.1 % ± 0.3 of the cycles, bpred 10 % ± 1.5;
    /// the report's stacks (the prefix's start-up misses in them) 0.9 % and 10.4 %
    /// of 1000 cycles, estimated ± 10 %: dcache_dram 0.009 ± (0.003 + 0.008 · 0.1)
    /// = ± 0.0038, bpred 0.104 ± (0.015 + 0.004 · 0.1) = ± 0.0154.
    #[test]
    fn shares_are_centred_on_the_report_with_the_prefix_part() {
        let share = |name: &str, value, half_width| ShareInterval { name: name.into(), share: Interval { value, half_width } };
        let stage = || vec![share("bpred", 0.10, 0.015), share("dcache_dram", 0.001, 0.003)];
        let mut st = StackIntervals { dispatch: stage(), issue: stage(), commit: stage() };
        let table: BTreeMap<String, f64> = [("base".to_string(), 500.0), ("bpred".into(), 104.0), ("dcache_dram".into(), 9.0)].into_iter().collect();
        let stacks = CpiStacks { cycles: 1000.0, instructions: 100, width: 4.0, dispatch: table.clone(), issue: table.clone(), commit: table };
        centre(&mut st, &stacks, &Interval { value: 1000.0, half_width: 100.0 });
        for stage in [&st.dispatch, &st.issue, &st.commit] {
            let (b, d) = (stage[0].share, stage[1].share);
            assert!((b.value - 0.104).abs() < 1e-12 && (b.half_width - 0.0154).abs() < 1e-12, "{b:?}");
            assert!((d.value - 0.009).abs() < 1e-12 && (d.half_width - 0.0038).abs() < 1e-12, "{d:?}");
        }
    }
}
