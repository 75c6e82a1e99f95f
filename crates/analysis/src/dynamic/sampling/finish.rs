//! The end of a sampled run: the timing variants' units turned into estimated
//! totals, the executions the timing model did not see added back, and the
//! report's `sampling` section.

use super::estimator::{Design, Series};
use super::estimator::Z_99_7;
use super::report::{summarize, Inputs, Measured, SamplingSummary, StratumReport};
use super::unit_costs::UnitCosts;
use super::{Sampler, SamplingOptions, WARM_UP_BATCHES};
use std::collections::HashMap;
use crate::dynamic::engine::VariantOutcome;
use bottlenose_views::{InstructionCost, WindowTally};
use std::time::Duration;

/// A sampled run's design, kept for its summary.
pub struct SampledRun {
    opts: SamplingOptions,
    design: Design,
    strata: Vec<StratumReport>,
    elapsed: Duration,
    batch_instructions: u64,
}

fn measured(o: &VariantOutcome) -> Measured<'_> {
    Measured { prefix: o.prefix_cycles.unwrap_or(0.0), units: &o.units }
}

/// Replaces each outcome's cycles by the estimate from its units (its units stay),
/// adds the fast-forwarded executions (`untimed`, by static index) to `cost`, and
/// brings its weighted cycles to the baseline's estimate. `None` (and nothing
/// changed): the run ended in its exact prefix.
pub fn estimate<'a>(
    sampler: Sampler,
    outcomes: impl IntoIterator<Item = &'a mut VariantOutcome>,
    cost: &mut InstructionCost,
    untimed: &[(u64, u64)],
) -> Option<SampledRun> {
    let batch_instructions = sampler.batch_instructions;
    let opts = sampler.opts.clone();
    let (design, strata, elapsed) = sampler.finish()?;
    let mut outcomes = outcomes.into_iter();
    let total = |o: &mut VariantOutcome| {
        o.cycles = design.total(Series { prefix: o.prefix_cycles.unwrap_or(0.0), units: &o.units });
        o.cycles
    };
    let base = total(outcomes.next()?);
    outcomes.for_each(|o| {
        total(o);
    });
    for (i, &(n, m)) in untimed.iter().enumerate().filter(|(_, u)| u.0 > 0) {
        cost.add_untimed(i, n, m);
    }
    let weighted = cost.total_cycles();
    if weighted > 0.0 {
        cost.scale_cycles(base / weighted);
    }
    Some(SampledRun { opts, design, strata, elapsed, batch_instructions })
}

impl SampledRun {
    /// The `sampling` section: `outcomes[0]` the baseline, `outcomes[1..]` the
    /// sensitivity variants (`labels`), `ideals` the idealizations by name;
    /// `functions` the functions the report shows, each static instruction's
    /// function named by `function_of` (by static index), their cycles per unit
    /// in `unit_costs`.
    #[allow(clippy::too_many_arguments)]
    pub fn summary(
        self,
        labels: &[(Vec<String>, f64)],
        outcomes: &[VariantOutcome],
        ideals: &[(String, &VariantOutcome)],
        windows: &[WindowTally],
        instructions: u64,
        unit_costs: UnitCosts,
        function_of: impl Fn(usize) -> String,
        functions: &[String],
    ) -> SamplingSummary {
        let shown: HashMap<&str, usize> = functions.iter().enumerate().map(|(g, f)| (f.as_str(), g)).collect();
        // static index -> shown function, looked up once per static instruction
        let mut group: Vec<Option<Option<usize>>> = Vec::new();
        let mut group_of = |i: usize| {
            if i >= group.len() {
                group.resize(i + 1, None);
            }
            *group[i].get_or_insert_with(|| shown.get(function_of(i).as_str()).copied())
        };
        let function_shares = unit_costs.group_shares(&self.design, measured(&outcomes[0]).series(), Z_99_7, &mut group_of, functions);
        let mut summary = summarize(Inputs {
            design: &self.design,
            strata: self.strata,
            instructions,
            batch_instructions: self.batch_instructions,
            warm_up_batches: WARM_UP_BATCHES,
            base: measured(&outcomes[0]),
            variants: labels.iter().zip(&outcomes[1..]).map(|((r, w), o)| (r.clone(), *w, measured(o))).collect(),
            ideals: ideals.iter().map(|(n, o)| (n.clone(), measured(o))).collect(),
            windows,
            target: self.opts.target,
            budget_seconds: self.opts.budget.map(|b| b.as_secs_f64()),
            elapsed_seconds: self.elapsed.as_secs_f64(),
        });
        summary.functions = function_shares;
        summary
    }
}
