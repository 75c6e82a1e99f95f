//! Sensitivity (Gus §3.3): the points of a sweep and the bottlenecks ranked
//! from them (computed by crate `bottlenose-simulate`).

use serde::Serialize;

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

/// A variant that is slower than the baseline (or than a smaller acceleration of
/// the same resources) although a resource was made faster.
#[derive(Debug, Clone, Serialize)]
pub struct SlowerWhenFaster {
    /// The weight it is slower than: 1 (the baseline) or a smaller acceleration.
    pub compared_with_weight: f64,
    /// Index in the block of the instruction that waits for a port in more
    /// iterations than in the baseline (the share of iterations it waits, before
    /// and after), and the port group it waits for.
    pub delayed: usize,
    pub port_waits_before: f64,
    pub port_waits_after: f64,
    pub port_group: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Bottleneck {
    pub resources: Vec<String>,
    /// The weight the ranking uses (1.15 by default, Gus's largest).
    pub weight: f64,
    pub speedup: f64,
    /// Speedup at the largest weight swept (e.g. 2x): the upper bound of the fix.
    pub max_weight: f64,
    pub max_speedup: f64,
}
