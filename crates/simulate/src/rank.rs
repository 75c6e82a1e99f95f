//! Ranking bottlenecks from sensitivity: a resource is a bottleneck when
//! accelerating it alone speeds the block up (Gus §3.3); the higher the speedup,
//! the more it matters. Sets of resources are ranked separately: a balanced
//! block may only speed up when several resources grow together.

use crate::sensitivity::SensitivityPoint;
pub use bottlenose_report_model::sensitivity::Bottleneck;

/// Speedup below this (at the reference weight) is noise, not a bottleneck.
pub const THRESHOLD: f64 = 0.005;

pub fn reference_weight(weights: &[f64]) -> Option<f64> {
    let near = weights.iter().copied().filter(|&w| w <= 1.15 + 1e-9).fold(None, |a: Option<f64>, w| Some(a.map_or(w, |x| x.max(w))));
    near.or_else(|| weights.iter().copied().fold(None, |a: Option<f64>, w| Some(a.map_or(w, |x| x.max(w)))))
}

pub fn rank(points: &[SensitivityPoint], weights: &[f64]) -> Vec<Bottleneck> {
    let Some(wref) = reference_weight(weights) else { return vec![] };
    let wmax = weights.iter().copied().fold(f64::MIN, f64::max);
    let mut out: Vec<Bottleneck> = points
        .iter()
        .filter(|p| (p.weight - wref).abs() < 1e-9 && p.speedup >= THRESHOLD)
        .map(|p| {
            let max_speedup = points
                .iter()
                .filter(|q| q.resources == p.resources && (q.weight - wmax).abs() < 1e-9)
                .map(|q| q.speedup)
                .next()
                .unwrap_or(p.speedup);
            Bottleneck { resources: p.resources.clone(), weight: wref, speedup: p.speedup, max_weight: wmax, max_speedup }
        })
        .collect();
    // single resources first by speedup, then sets
    out.sort_by(|a, b| {
        (a.resources.len() > 1)
            .cmp(&(b.resources.len() > 1))
            .then(b.speedup.total_cmp(&a.speedup))
            .then(b.max_speedup.total_cmp(&a.max_speedup))
    });
    out
}
