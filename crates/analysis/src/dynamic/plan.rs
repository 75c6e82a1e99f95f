//! The variants a dynamic run times beside its baseline: the sensitivity
//! knob sets and the idealized streams, from the plan (crates/simulate).

use bottlenose_simulate::engine::{Batch, VariantEngine};
use super::options::DynamicOptions;
use bottlenose_trace_source::IdealStream;
use crate::accounting::Ideal;
use bottlenose_machine::Machine;
use super::report::{AppliedAcceleration, DynamicError};
use bottlenose_simulate::{DefaultKnobs, Plan, PlanRequest};
use bottlenose_timing::CoreConfig;

/// The timing variants of a run's baseline stream.
pub(crate) struct Variants {
    /// The baseline core (with the run's own accelerations), then one core per
    /// knob set and weight, then the 1-cycle ALU if idealizations run.
    pub(crate) configs: Vec<CoreConfig>,
    /// Each sensitivity variant's resources and weight (`configs[1..]`, in order).
    pub(crate) labels: Vec<(Vec<String>, f64)>,
    /// What the baseline itself accelerates (`run --accelerate`).
    pub(crate) acceleration: Vec<AppliedAcceleration>,
    /// The index in `configs` of the 1-cycle ALU variant.
    pub(crate) alu1_variant: Option<usize>,
    /// The idealized streams, each with its engine on the baseline core.
    pub(crate) ideal: Vec<IdealStream>,
}

/// Plans the variants: checks the weights and the baseline's accelerations.
pub(crate) fn variants(machine: &Machine, opts: &DynamicOptions) -> Result<Variants, DynamicError> {
    let request = PlanRequest {
        weights: &opts.weights,
        resources: opts.resources.as_deref(),
        combine: &opts.combine,
        sensitivity: opts.sensitivity,
        baseline: &opts.baseline,
        idealize: opts.idealize,
    };
    let plan = Plan::new(machine, &request, DefaultKnobs::Trace)?;
    let v = plan.variants(machine);
    let ideal = ideal_streams(&plan, &v.configs[0]);
    let acceleration = plan.applied.into_iter().map(|a| AppliedAcceleration { resource: a.resource, weight: a.weight }).collect();
    Ok(Variants { configs: v.configs, labels: v.labels, acceleration, alu1_variant: v.alu1, ideal })
}

/// The idealized streams of a run, each with its timing engine: the baseline core
/// (the 1-cycle ALU on top for a variant whose set has it).
fn ideal_streams(plan: &Plan, base: &CoreConfig) -> Vec<IdealStream> {
    plan.ideal_streams()
        .into_iter()
        .map(|s| {
            let configs = s
                .variants
                .iter()
                .map(|set| {
                    let mut c = base.clone();
                    c.unit_alu_latency = set.contains(&Ideal::Alu1);
                    c
                })
                .collect();
            IdealStream { masks: s.masks, sets: s.variants, engine: VariantEngine::new(configs, (), 1), batch: Batch::default() }
        })
        .collect()
}
