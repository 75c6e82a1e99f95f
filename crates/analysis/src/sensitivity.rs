//! Sensitivity analysis (Gus §3.3): accelerate a resource by a weight w and
//! measure the speedup s = f(c) / f(w·c) − 1 of the estimated time f.

use crate::knobs::{accelerate, Knob};
use crate::simulate::run_block;
use bottlenose_machine::Machine;
use bottlenose_timing::{CoreConfig, InstrTiming};
use rayon::prelude::*;
use serde::Serialize;

/// Default weights: 1 %, 2 %, … 15 % faster, and twice as fast.
pub fn default_weights() -> Vec<f64> {
    let mut w: Vec<f64> = (1..=15).map(|p| 1.0 + p as f64 / 100.0).collect();
    w.push(2.0);
    w
}

#[derive(Debug, Clone, Serialize)]
pub struct SensitivityPoint {
    /// Names of the resources accelerated together.
    pub resources: Vec<String>,
    pub weight: f64,
    pub cycles_per_iteration: f64,
    pub speedup: f64,
}

/// Runs every (resource set, weight) variant of `block`, in parallel threads.
pub fn sweep(
    machine: &Machine,
    block: &[InstrTiming],
    iterations: u32,
    baseline: f64,
    sets: &[Vec<Knob>],
    weights: &[f64],
) -> Vec<SensitivityPoint> {
    let jobs: Vec<(usize, f64)> = sets.iter().enumerate().flat_map(|(i, _)| weights.iter().map(move |&w| (i, w))).collect();
    jobs.par_iter()
        .map(|&(i, w)| {
            let cfg = CoreConfig::new(machine, &accelerate(machine, &sets[i], w));
            let run = run_block(block, cfg, iterations, &mut ());
            let f = run.cycles_per_iteration();
            SensitivityPoint {
                resources: sets[i].iter().map(|k| k.name(machine)).collect(),
                weight: w,
                cycles_per_iteration: f,
                speedup: if f > 0.0 { baseline / f - 1.0 } else { 0.0 },
            }
        })
        .collect()
}
