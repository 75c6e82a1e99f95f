//! Sensitivity analysis (Gus §3.3): accelerate a resource by a weight w and
//! measure the speedup s = f(c) / f(w·c) − 1 of the estimated time f.

use crate::anomaly::explain;
use crate::knob::{accelerate, Knob};
use bottlenose_machine::Machine;
use bottlenose_timing::{CoreConfig, InstrTiming};
pub use bottlenose_report_model::sensitivity::SensitivityPoint;

/// Default weights: 1 %, 2 %, … 15 % faster, and twice as fast.
pub fn default_weights() -> Vec<f64> {
    let mut w: Vec<f64> = (1..=15).map(|p| 1.0 + p as f64 / 100.0).collect();
    w.push(2.0);
    w
}

/// The points of a sweep: each variant's label and time `f` against the baseline's.
pub fn points<'a>(labels: &'a [(Vec<String>, f64)], times: impl IntoIterator<Item = f64> + 'a, baseline: f64) -> Vec<SensitivityPoint> {
    labels
        .iter()
        .zip(times)
        .map(|((resources, w), f)| SensitivityPoint {
            resources: resources.clone(),
            weight: *w,
            cycles_per_iteration: f,
            speedup: if f > 0.0 { baseline / f - 1.0 } else { 0.0 },
            anomaly: None,
        })
        .collect()
}

/// A variant this much slower than the baseline or than a smaller weight of the
/// same resources is explained (below: noise of whole-cycle steady states).
const SLOWER: f64 = -0.005;

/// A loop's sweep over `sets` x `weights` (`points` in that order): a faster
/// resource that slows the block down, or more acceleration that buys less than
/// a smaller one did, is explained, once per resource set. (A dynamic run is not
/// repeatable per instruction as a block is: its points are not explained.)
pub fn explain_slower(machine: &Machine, block: &[InstrTiming], iterations: u32, sets: &[Vec<Knob>], weights: &[f64], points: &mut [SensitivityPoint]) {
    assert_eq!(points.len(), sets.len() * weights.len(), "one point per set and weight");
    for (i, set) in sets.iter().enumerate() {
        let mut mine: Vec<usize> = (i * weights.len()..(i + 1) * weights.len()).collect();
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
}
