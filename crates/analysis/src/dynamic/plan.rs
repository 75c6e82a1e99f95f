//! The variants a dynamic run times beside its baseline: the sensitivity
//! knob sets and the idealized streams.

use bottlenose_simulate::engine::{Batch, VariantEngine};
use super::front::Front;
use super::options::{DynamicOptions, IdealizeLevel};
use super::pipeline::IdealStream;
use crate::accounting::Ideal;
use bottlenose_machine::Machine;
use super::report::{AppliedAcceleration, DynamicError};
use bottlenose_simulate::{DefaultKnobs, Plan, PlanRequest};
use bottlenose_timing::CoreConfig;

/// The timing variants of a run's baseline stream.
pub(super) struct Variants {
    /// The baseline core (with the run's own accelerations), then one core per
    /// knob set and weight, then the 1-cycle ALU if idealizations run.
    pub(super) configs: Vec<CoreConfig>,
    /// Each sensitivity variant's resources and weight (`configs[1..]`, in order).
    pub(super) labels: Vec<(Vec<String>, f64)>,
    /// What the baseline itself accelerates (`run --accelerate`).
    pub(super) acceleration: Vec<AppliedAcceleration>,
    /// The index in `configs` of the 1-cycle ALU variant.
    pub(super) alu1_variant: Option<usize>,
}

/// Plans the variants: checks the weights and the baseline's accelerations.
pub(super) fn variants(machine: &Machine, opts: &DynamicOptions) -> Result<Variants, DynamicError> {
    let request = PlanRequest {
        weights: &opts.weights,
        resources: opts.resources.as_deref(),
        combine: &opts.combine,
        sensitivity: opts.sensitivity,
        baseline: &opts.baseline,
        // the 1-cycle ALU is a timing variant of the baseline stream
        alu1: opts.idealize != IdealizeLevel::Off,
    };
    let plan = Plan::new(machine, &request, DefaultKnobs::Trace)?;
    let v = plan.variants(machine);
    let acceleration = plan.applied.into_iter().map(|a| AppliedAcceleration { resource: a.resource, weight: a.weight }).collect();
    Ok(Variants { configs: v.configs, labels: v.labels, acceleration, alu1_variant: v.alu1 })
}

/// The idealized streams of a run: one functional layer (and timing engine) per
/// idealization of the functional layer; with pairs, each single also times the
/// 1-cycle ALU on top, and the three pairs of functional idealizations get their own.
pub(super) fn ideal_streams(machine: &Machine, opts: &DynamicOptions, base: &CoreConfig) -> Vec<IdealStream> {
    let functional: &[&[Ideal]] = match opts.idealize {
        IdealizeLevel::Off => &[],
        IdealizeLevel::Singles => &[&[Ideal::Icache], &[Ideal::Dcache], &[Ideal::Branch]],
        IdealizeLevel::Pairs => &[
            &[Ideal::Icache],
            &[Ideal::Dcache],
            &[Ideal::Branch],
            &[Ideal::Icache, Ideal::Dcache],
            &[Ideal::Icache, Ideal::Branch],
            &[Ideal::Dcache, Ideal::Branch],
        ],
    };
    functional
        .iter()
        .map(|set| {
            let mut id = opts.idealization;
            for i in *set {
                match i {
                    Ideal::Icache => id.perfect_icache = true,
                    Ideal::Dcache => id.perfect_dcache = true,
                    Ideal::Branch => id.perfect_branch = true,
                    Ideal::Alu1 => {}
                }
            }
            let mut configs = vec![base.clone()];
            let mut sets = vec![set.to_vec()];
            if opts.idealize == IdealizeLevel::Pairs && set.len() == 1 {
                let mut c = base.clone();
                c.unit_alu_latency = true;
                configs.push(c);
                let mut s = set.to_vec();
                s.push(Ideal::Alu1);
                sets.push(s);
            }
            IdealStream { sets, front: Front::new(machine, id, opts.prefetcher), engine: VariantEngine::new(configs, (), 1), batch: Batch::default() }
        })
        .collect()
}
