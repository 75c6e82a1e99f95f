//! Named resources that sensitivity analysis can accelerate.
//!
//! A knob name is a port unit (`p1`: scales that port, so every group that
//! contains it grows too), a port group (`p23`: scales the group's combined
//! throughput only, as Gus does), or one of the core's other capacities.

use bottlenose_machine::{GroupId, Machine};
use bottlenose_timing::{Acceleration, CoreKnob, KnobScope, KNOBS};

/// A resource a what-if run or a sensitivity sweep can scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knob {
    Unit(u16),
    Group(GroupId),
    /// A core or memory-side capacity of the timing crate's knob table.
    Core(CoreKnob),
}

impl Knob {
    pub fn parse(machine: &Machine, name: &str) -> Option<Knob> {
        if let Some(k) = CoreKnob::parse(name) {
            return Some(Knob::Core(k));
        }
        let g = machine.group_id(name)?;
        Some(Knob::of_group(machine, g))
    }

    /// A port unit's own knob when `g` is a unit, else the group's.
    pub fn of_group(machine: &Machine, g: GroupId) -> Knob {
        if (g as usize) < machine.units.len() {
            Knob::Unit(g)
        } else {
            Knob::Group(g)
        }
    }

    /// Like [`Knob::parse`], with the error that lists every name this machine knows.
    pub fn parse_or_error(machine: &Machine, name: &str) -> Result<Knob, crate::PlanError> {
        Knob::parse(machine, name).ok_or_else(|| crate::PlanError::UnknownResource {
            name: name.to_string(),
            machine: machine.name.clone(),
            known: known_names(machine),
        })
    }

    pub fn name(&self, machine: &Machine) -> String {
        match self {
            Knob::Unit(u) => machine.units[*u as usize].clone(),
            Knob::Group(g) => machine.groups[*g as usize].name.clone(),
            Knob::Core(k) => k.name().to_string(),
        }
    }

    /// Multiplies this knob's weight into `acc`.
    pub fn apply(&self, acc: &mut Acceleration, w: f64) {
        match self {
            Knob::Unit(u) => acc.scale_unit(*u as usize, w),
            Knob::Group(g) => acc.scale_group(*g as usize, w),
            Knob::Core(k) => acc.scale(*k, w),
        }
    }
}

/// The core knobs of a scope, in table order: `Core` for static blocks, both for dynamic runs.
pub fn core_knobs(with_memory: bool) -> impl Iterator<Item = Knob> {
    KNOBS.iter().filter(move |k| with_memory || k.scope == KnobScope::Core).map(|k| Knob::Core(k.knob))
}

/// Every resource name a machine accepts: its port units and groups, then the core
/// knobs (those that need a dynamic run marked).
pub fn known_names(machine: &Machine) -> String {
    let mut v: Vec<String> = machine.groups.iter().map(|g| g.name.clone()).collect();
    v.extend(KNOBS.iter().map(|k| match k.scope {
        KnobScope::Core => k.name.to_string(),
        KnobScope::Memory => format!("{} (run)", k.name),
    }));
    v.join(", ")
}

/// Acceleration with every knob of `set` scaled by `w`.
pub fn accelerate(machine: &Machine, set: &[Knob], w: f64) -> Acceleration {
    let mut acc = Acceleration::nominal(machine);
    for k in set {
        k.apply(&mut acc, w);
    }
    acc
}

/// Weights a knob may be multiplied by, in sensitivity sweeps and what-if runs
/// alike: from ten times slower to a hundred times faster. Zero or a negative
/// weight would be a resource with no (or negative) capacity, on which the
/// model waits forever; beyond ×100 a window knob (ROB, buffers) grows to
/// millions of entries and the model is far outside anything it was built for.
pub const WEIGHT_RANGE: std::ops::RangeInclusive<f64> = 0.1..=100.0;

/// Checks one weight against [`WEIGHT_RANGE`] (NaN and infinities fail).
pub fn check_weight(w: f64) -> Result<(), crate::PlanError> {
    if WEIGHT_RANGE.contains(&w) {
        Ok(())
    } else {
        Err(crate::PlanError::BadWeight(w))
    }
}

/// Parses one `RESOURCE=WEIGHT` acceleration of a what-if run (the resource
/// name is checked against the machine later, the weight here).
pub fn parse_acceleration(spec: &str) -> Result<(String, f64), crate::PlanError> {
    let bad = |why: &str| crate::PlanError::BadAcceleration { spec: spec.to_string(), why: why.to_string() };
    let (name, w) = spec.split_once('=').ok_or_else(|| bad("expected RESOURCE=WEIGHT, e.g. p23=1.15"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(bad("no resource before '='"));
    }
    let w: f64 = w.trim().parse().map_err(|_| bad("the weight is not a number"))?;
    check_weight(w).map_err(|e| bad(&e.to_string()))?;
    Ok((name.to_string(), w))
}

/// The resource sets a sensitivity sweep accelerates, for static blocks and dynamic
/// runs alike: the user's `resources` (each alone) or `defaults`, then the user's
/// combinations. Names are checked against the machine.
pub fn knob_sets(
    machine: &Machine,
    resources: Option<&[String]>,
    combine: &[Vec<String>],
    defaults: impl FnOnce() -> Vec<Vec<Knob>>,
) -> Result<Vec<Vec<Knob>>, crate::PlanError> {
    let mut sets: Vec<Vec<Knob>> = match resources {
        Some(list) => list.iter().map(|n| Knob::parse_or_error(machine, n).map(|k| vec![k])).collect::<Result<_, _>>()?,
        None => defaults(),
    };
    for combo in combine {
        sets.push(combo.iter().map(|n| Knob::parse_or_error(machine, n)).collect::<Result<_, _>>()?);
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_timing::CoreKnob;

    #[test]
    fn every_knob_round_trips_through_its_name() {
        for name in ["skylake", "zen4", "neoverse-v2"] {
            let m = Machine::resolve(name).unwrap();
            let mut all: Vec<Knob> = (0..m.groups.len() as u16).map(|g| Knob::of_group(&m, g)).collect();
            all.extend(CoreKnob::all().map(Knob::Core));
            assert!(all.iter().any(|k| matches!(k, Knob::Unit(_))) && all.iter().any(|k| matches!(k, Knob::Group(_))));
            let known = known_names(&m);
            for k in all {
                let n = k.name(&m);
                assert_eq!(Knob::parse(&m, &n), Some(k), "{name}: {n}");
                assert!(known.split(", ").any(|x| x == n || x == format!("{n} (run)")), "{name}: {n} missing from {known}");
            }
        }
    }

    #[test]
    fn a_knob_scales_its_own_weight_only() {
        let m = Machine::resolve("skylake").unwrap();
        for k in CoreKnob::all() {
            let acc = accelerate(&m, &[Knob::Core(k)], 1.25);
            for other in CoreKnob::all() {
                assert_eq!(acc.weight(other), if other == k { 1.25 } else { 1.0 }, "{} scaled, {} read", k.name(), other.name());
            }
        }
    }

    #[test]
    fn acceleration_specs_parse_or_say_why_not() {
        assert_eq!(parse_acceleration(" p23 = 1.15").unwrap(), ("p23".to_string(), 1.15));
        for (spec, why) in [("p23", "expected RESOURCE=WEIGHT"), ("=2", "no resource"), ("p0=x", "not a number"), ("p0=1000", "bad weight")] {
            let e = parse_acceleration(spec).unwrap_err().to_string();
            assert!(e.contains(why), "{spec}: {e}");
        }
    }
}
