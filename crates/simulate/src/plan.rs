//! The plan of a simulation, one for `analyze` and `run`: the weights, the knob
//! sets a sensitivity sweep accelerates, the baseline's own accelerations, and
//! the idealizations timed beside it; and from them the timing variants.

use crate::knob::{check_weight, core_knobs, knob_sets, Knob};
use crate::ideal::{IdealStream, IdealizeLevel};
use crate::PlanError;
use bottlenose_machine::Machine;
use bottlenose_timing::{Acceleration, CoreConfig, CoreKnob, InstrTiming};

/// What the user asked for, from either command's flags.
#[derive(Debug, Clone, Copy)]
pub struct PlanRequest<'a> {
    pub weights: &'a [f64],
    /// Resources to accelerate one at a time; `None`: the source's defaults.
    pub resources: Option<&'a [String]>,
    /// Sets of resources accelerated together.
    pub combine: &'a [Vec<String>],
    /// Whether to time the sensitivity variants at all.
    pub sensitivity: bool,
    /// Accelerations of the baseline itself (`run --accelerate`).
    pub baseline: &'a [(String, f64)],
    /// The idealizations: with any level but `Off`, the 1-cycle ALU is a timing
    /// variant of the baseline; the masked streams of the functional ones
    /// ([`Plan::ideal_streams`]) are for sources with a functional layer (traces).
    pub idealize: IdealizeLevel,
}

/// The knobs a sweep tries when the user names none, by source.
#[derive(Debug, Clone, Copy)]
pub enum DefaultKnobs<'a> {
    /// A loop: every group its instructions use (directly or as a superset), and
    /// the core knobs (static code has no caches or predictors to scale).
    Loop(&'a [InstrTiming]),
    /// A trace: every group, the core and memory knobs, and the sets that co-limit most often.
    Trace,
}

/// One named acceleration of the baseline, as reports list it.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedWeight {
    pub resource: String,
    pub weight: f64,
}

/// A checked plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub weights: Vec<f64>,
    /// The knob sets of the sweep (each swept over every weight).
    pub sets: Vec<Vec<Knob>>,
    pub sensitivity: bool,
    /// The baseline's acceleration and how the user named it.
    pub baseline: Acceleration,
    pub applied: Vec<NamedWeight>,
    pub idealize: IdealizeLevel,
}

/// The timing variants of a plan, in the engine's order.
#[derive(Debug, Clone)]
pub struct Variants {
    /// The baseline core, then one core per knob set and weight, then the 1-cycle ALU if planned.
    pub configs: Vec<CoreConfig>,
    /// Each sensitivity variant's resources and weight (`configs[1..]`, in order).
    pub labels: Vec<(Vec<String>, f64)>,
    /// The index in `configs` of the 1-cycle ALU variant.
    pub alu1: Option<usize>,
}

impl Plan {
    /// Checks the weights, the resource names and the baseline's accelerations.
    pub fn new(machine: &Machine, req: &PlanRequest<'_>, defaults: DefaultKnobs<'_>) -> Result<Plan, PlanError> {
        for &w in req.weights {
            check_weight(w)?;
        }
        let sets = knob_sets(machine, req.resources, req.combine, || default_sets(machine, defaults))?;
        let mut baseline = Acceleration::nominal(machine);
        let mut applied: Vec<NamedWeight> = Vec::new();
        for (name, w) in req.baseline {
            check_weight(*w)?;
            let k = Knob::parse_or_error(machine, name)?;
            let resource = k.name(machine);
            if applied.iter().any(|a| a.resource == resource) {
                return Err(PlanError::RepeatedAcceleration(resource));
            }
            k.apply(&mut baseline, *w);
            applied.push(NamedWeight { resource, weight: *w });
        }
        Ok(Plan { weights: req.weights.to_vec(), sets, sensitivity: req.sensitivity, baseline, applied, idealize: req.idealize })
    }

    /// Whether the plan sweeps anything.
    pub fn sweeps(&self) -> bool {
        self.sensitivity && !self.weights.is_empty() && !self.sets.is_empty()
    }

    /// The baseline's core.
    pub fn baseline_config(&self, machine: &Machine) -> CoreConfig {
        CoreConfig::new(machine, &self.baseline)
    }

    /// The baseline with each of `sets` scaled by each weight, and their labels.
    pub fn sweep(&self, machine: &Machine, sets: &[Vec<Knob>]) -> (Vec<CoreConfig>, Vec<(Vec<String>, f64)>) {
        let mut configs = Vec::new();
        let mut labels = Vec::new();
        for set in sets {
            for &w in &self.weights {
                let mut acc = self.baseline.clone();
                for k in set {
                    k.apply(&mut acc, w);
                }
                configs.push(CoreConfig::new(machine, &acc));
                labels.push((set.iter().map(|k| k.name(machine)).collect::<Vec<_>>(), w));
            }
        }
        (configs, labels)
    }

    /// Every variant: the baseline, the sweep (if any), the 1-cycle ALU (if planned).
    pub fn variants(&self, machine: &Machine) -> Variants {
        let mut configs = vec![self.baseline_config(machine)];
        let mut labels = Vec::new();
        if self.sensitivity {
            let (c, l) = self.sweep(machine, &self.sets);
            configs.extend(c);
            labels = l;
        }
        let alu1 = (self.idealize != IdealizeLevel::Off).then(|| {
            let mut c = configs[0].clone();
            c.unit_alu_latency = true;
            configs.push(c);
            configs.len() - 1
        });
        Variants { configs, labels, alu1 }
    }
}

impl Plan {
    /// The idealized streams timed beside the baseline stream (a trace's).
    pub fn ideal_streams(&self) -> Vec<IdealStream> {
        crate::ideal::ideal_streams(self.idealize)
    }
}

fn default_sets(machine: &Machine, defaults: DefaultKnobs<'_>) -> Vec<Vec<Knob>> {
    match defaults {
        DefaultKnobs::Loop(block) => {
            let mut used: Vec<u16> = block.iter().flat_map(|t| t.all_uses()).flat_map(|u| u.targets.iter().copied()).collect();
            used.sort_unstable();
            used.dedup();
            let mut sets: Vec<Vec<Knob>> = used.into_iter().map(|g| vec![Knob::of_group(machine, g)]).collect();
            sets.extend(core_knobs(false).map(|k| vec![k]));
            sets
        }
        DefaultKnobs::Trace => {
            let mut v: Vec<Vec<Knob>> = (0..machine.groups.len() as u16).map(|g| vec![Knob::of_group(machine, g)]).collect();
            v.extend(core_knobs(true).map(|k| vec![k]));
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_timing::{resolve_block, KNOBS};

    fn request<'a>(weights: &'a [f64], resources: Option<&'a [String]>, baseline: &'a [(String, f64)]) -> PlanRequest<'a> {
        PlanRequest { weights, resources, combine: &[], sensitivity: true, baseline, idealize: IdealizeLevel::Singles }
    }

    #[test]
    fn bad_names_and_weights_are_refused() {
        let m = Machine::resolve("skylake").unwrap();
        let bogus = ["p99".to_string()];
        match Plan::new(&m, &request(&[1.1], Some(&bogus), &[]), DefaultKnobs::Trace) {
            Err(PlanError::UnknownResource { name, known, .. }) => {
                assert_eq!(name, "p99");
                // the memory knobs are known too, marked as needing a run
                assert!(known.contains("l2_bw (run)") && known.contains("p0") && known.contains("window"), "{known}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(Plan::new(&m, &request(&[0.0], None, &[]), DefaultKnobs::Trace), Err(PlanError::BadWeight(w)) if w == 0.0));
        assert!(matches!(Plan::new(&m, &request(&[f64::NAN], None, &[]), DefaultKnobs::Trace), Err(PlanError::BadWeight(_))));
        let twice = [("latency".to_string(), 1.1), ("LATENCY".to_string(), 1.2)];
        assert!(matches!(Plan::new(&m, &request(&[1.1], None, &twice), DefaultKnobs::Trace), Err(PlanError::RepeatedAcceleration(r)) if r == "latency"));
        let bad_baseline = [("latency".to_string(), 500.0)];
        assert!(matches!(Plan::new(&m, &request(&[1.1], None, &bad_baseline), DefaultKnobs::Trace), Err(PlanError::BadWeight(_))));
    }

    #[test]
    fn variants_are_baseline_sweep_then_alu1() {
        let m = Machine::resolve("skylake").unwrap();
        let names = ["p0".to_string(), "window".to_string()];
        let baseline = [("latency".to_string(), 2.0)];
        let plan = Plan::new(&m, &request(&[1.1, 2.0], Some(&names), &baseline), DefaultKnobs::Trace).unwrap();
        let v = plan.variants(&m);
        // 1 baseline + 2 sets x 2 weights + the 1-cycle ALU
        assert_eq!(v.configs.len(), 6);
        assert_eq!(v.alu1, Some(5));
        assert!(v.configs[5].unit_alu_latency && !v.configs[0].unit_alu_latency);
        let labels: Vec<(String, f64)> = v.labels.iter().map(|(r, w)| (r.join("+"), *w)).collect();
        assert_eq!(labels, [("p0".into(), 1.1), ("p0".into(), 2.0), ("window".into(), 1.1), ("window".into(), 2.0)]);
        // every variant keeps the baseline's own acceleration
        assert_eq!(plan.applied, [NamedWeight { resource: "latency".into(), weight: 2.0 }]);
        let window = |c: &CoreConfig| c.rob as f64;
        assert_eq!(window(&v.configs[4]), window(&v.configs[0]) * 2.0);
    }

    #[test]
    fn a_loop_sweeps_its_own_groups_and_no_memory_knobs() {
        let m = Machine::resolve("skylake").unwrap();
        // imul %rax,%rax: skylake's p1
        let insts = bottlenose_decode::decode_block(&[0x48, 0x0f, 0xaf, 0xc0], 0).unwrap();
        let (block, _) = resolve_block(&m, &insts);
        let plan = Plan::new(&m, &request(&[1.1], None, &[]), DefaultKnobs::Loop(&block)).unwrap();
        let names: Vec<String> = plan.sets.iter().map(|s| s.iter().map(|k| k.name(&m)).collect::<Vec<_>>().join("+")).collect();
        assert_eq!(names[0], "p1");
        let core: Vec<&str> = KNOBS.iter().filter(|k| k.scope == bottlenose_timing::KnobScope::Core).map(|k| k.name).collect();
        assert_eq!(names[names.len() - core.len()..], core[..]);
        assert!(!names.iter().any(|n| n == "l2_bw"));
        let trace = Plan::new(&m, &request(&[1.1], None, &[]), DefaultKnobs::Trace).unwrap();
        let n = m.groups.len() + KNOBS.len();
        // every group, every knob, then frontend+commit and the ports, each also with latency
        assert_eq!(trace.sets.len(), n + 4);
        assert_eq!(trace.sets[n], [Knob::Core(CoreKnob::Frontend), Knob::Core(CoreKnob::Commit)]);
    }
}
