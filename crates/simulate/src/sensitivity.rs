//! Sensitivity analysis (Gus §3.3): accelerate a resource by a weight w and
//! measure the speedup s = f(c) / f(w·c) − 1 of the estimated time f.

use crate::anomaly::{explain, SlowerWhenFaster};
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
    /// Slower although faster (than the baseline or a smaller weight): why (the
    /// smallest such weight of each resource set only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anomaly: Option<SlowerWhenFaster>,
}

/// A variant this much slower than the baseline or than a smaller weight of the
/// same resources is explained (below: noise of whole-cycle steady states).
const SLOWER: f64 = -0.005;

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
    let mut points: Vec<SensitivityPoint> = jobs
        .par_iter()
        .map(|&(i, w)| {
            let cfg = CoreConfig::new(machine, &accelerate(machine, &sets[i], w));
            let run = run_block(block, cfg, iterations, &mut ());
            let f = run.cycles_per_iteration();
            SensitivityPoint {
                resources: sets[i].iter().map(|k| k.name(machine)).collect(),
                weight: w,
                cycles_per_iteration: f,
                speedup: if f > 0.0 { baseline / f - 1.0 } else { 0.0 },
                anomaly: None,
            }
        })
        .collect();
    // a faster resource that slows the block down, or more acceleration that buys
    // less than a smaller one did: say why, once per resource set
    for (i, set) in sets.iter().enumerate() {
        let mut mine: Vec<usize> = (0..jobs.len()).filter(|&j| jobs[j].0 == i).collect();
        mine.sort_by(|&a, &b| points[a].weight.total_cmp(&points[b].weight));
        let (mut best_weight, mut best) = (1.0, 0.0);
        for j in mine {
            if points[j].speedup < best + SLOWER {
                let before = CoreConfig::new(machine, &accelerate(machine, set, best_weight));
                let after = CoreConfig::new(machine, &accelerate(machine, set, points[j].weight));
                points[j].anomaly = explain(machine, block, before, after, iterations).map(|mut a| {
                    a.compared_with_weight = best_weight;
                    a
                });
                break;
            }
            if points[j].speedup > best {
                (best_weight, best) = (points[j].weight, points[j].speedup);
            }
        }
    }
    points
}
