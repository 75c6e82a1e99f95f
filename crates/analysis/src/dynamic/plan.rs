//! The variants a dynamic run times beside its baseline: the sensitivity
//! knob sets and the idealized streams.

use super::engine::{Batch, VariantEngine};
use super::front::Front;
use super::options::{DynamicOptions, IdealizeLevel};
use super::pipeline::IdealStream;
use crate::accounting::Ideal;
use crate::knobs::Knob;
use bottlenose_machine::Machine;
use super::report::{AppliedAcceleration, DynamicError};
use bottlenose_timing::{Acceleration, CoreConfig, CoreKnob};

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
    let sets = if opts.sensitivity { knob_sets(machine, opts)? } else { vec![] };
    for &w in &opts.weights {
        crate::knobs::check_weight(w)?;
    }
    let mut baseline = Acceleration::nominal(machine);
    let mut acceleration: Vec<AppliedAcceleration> = Vec::new();
    for (name, w) in &opts.baseline {
        crate::knobs::check_weight(*w)?;
        let k = Knob::parse_or_error(machine, name)?;
        let resource = k.name(machine);
        if acceleration.iter().any(|a| a.resource == resource) {
            return Err(crate::AnalysisError::RepeatedAcceleration(resource).into());
        }
        k.apply(&mut baseline, *w);
        acceleration.push(AppliedAcceleration { resource, weight: *w });
    }
    let mut configs = vec![CoreConfig::new(machine, &baseline)];
    let mut labels = Vec::new();
    for set in &sets {
        for &w in &opts.weights {
            let mut acc = baseline.clone();
            for k in set {
                k.apply(&mut acc, w);
            }
            configs.push(CoreConfig::new(machine, &acc));
            labels.push((set.iter().map(|k| k.name(machine)).collect::<Vec<_>>(), w));
        }
    }
    // the 1-cycle ALU is a timing variant of the baseline stream
    let alu1_variant = (opts.idealize != IdealizeLevel::Off).then(|| {
        let mut c = configs[0].clone();
        c.unit_alu_latency = true;
        configs.push(c);
        configs.len() - 1
    });
    Ok(Variants { configs, labels, acceleration, alu1_variant })
}

/// The knob sets of a dynamic run: the user's list, or every group and core/memory knob.
pub(super) fn knob_sets(machine: &Machine, opts: &DynamicOptions) -> Result<Vec<Vec<Knob>>, crate::AnalysisError> {
    crate::knobs::knob_sets(machine, opts.resources.as_deref(), &opts.combine, || {
        let mut v: Vec<Vec<Knob>> = (0..machine.groups.len() as u16).map(|g| vec![Knob::of_group(machine, g)]).collect();
        v.extend(crate::knobs::core_knobs(true).map(|k| vec![k]));
        // Balanced code speeds up only when co-limiting resources grow together. Static
        // analysis picks the saturated set from the block's usage; a dynamic run must fix
        // its variants before the stream starts, so it tries the sets that co-limit most
        // often: the in-order width (dispatch and retire) and the execution ports, each
        // also with latency (a recurrence as long as the throughput bound hides behind it).
        let width = vec![Knob::Core(CoreKnob::Frontend), Knob::Core(CoreKnob::Commit)];
        let ports: Vec<Knob> = (0..machine.units.len() as u16).map(Knob::Unit).collect();
        for set in [width, ports] {
            let mut with_latency = set.clone();
            with_latency.push(Knob::Core(CoreKnob::Latency));
            v.push(set);
            v.push(with_latency);
        }
        v
    })
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
