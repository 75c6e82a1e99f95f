//! The FLOPS stack (Eyerman et al., Table III) at the issue stage, in flops
//! per cycle; it sums to the machine's peak, `fp_units × (max_bits / 64) × 2`
//! (double precision, ×2 for FMA when the machine has it).
//!
//! Accounting unit: one FP unit for one cycle. Each FP arithmetic instruction
//! that issues takes one unit-cycle, split into `base` (the flops it does:
//! FMA factor × share of the widest vector it fills), `non_fma` (what an FMA
//! of the same width would have added) and `mask` (the unused width: scalar
//! ops, narrower vectors; a masked AVX-512 operation counts as full, the mask
//! value is not known). Issue slots of the FP units left idle in a cycle are
//! charged, per Table III, to the oldest FP instruction waiting in the
//! scheduler: waiting for a port (taken by something else) → `non_vfp`, for a
//! load (its own memory operand or a producer load) → `memory`, for another
//! operand → `dependence`; no FP instruction waiting → `frontend` (too few FP
//! instructions delivered, whatever the reason). More FP instructions issuing
//! in a cycle than there are FP units (a port layout wider than `fp_units`)
//! carry over to the next cycle.
//!
//! Flops are counted in double-precision equivalents: a single-precision lane
//! is half a double lane of the peak.

use crate::accounting::ViewParams;
use crate::facts::StaticFacts;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub(crate) struct FlopsCounters {
    pub issued: u64,
    pub flops: u64,
    pub base: f64,
    pub non_fma: f64,
    pub mask: f64,
    /// Idle unit-cycles: frontend, non-VFP, memory, dependence.
    pub idle: [f64; 4],
}

#[derive(Debug, Clone, Serialize)]
pub struct FlopsStack {
    /// Peak flops per cycle (double precision).
    pub peak_flops_per_cycle: f64,
    /// Flops per cycle actually executed (as counted: single-precision lanes count 1).
    pub flops_per_cycle: f64,
    pub fp_instructions: u64,
    /// Component → flops per cycle; sums to the peak (reported separately as `flops_stack`).
    #[serde(skip)]
    pub components: BTreeMap<String, f64>,
}

impl FlopsCounters {
    /// `n` issues of an FP instruction with facts `f`.
    #[inline]
    pub(crate) fn issue(&mut self, p: &ViewParams, f: &StaticFacts, n: u64) {
        let fmax = if p.fma { 2.0 } else { 1.0 };
        let a = if f.fma && p.fma { 2.0 } else { 1.0 };
        let w = f.width as f64;
        let k = n as f64;
        self.issued += n;
        self.flops += n * f.flops as u64;
        self.base += k * (a * w / fmax);
        self.non_fma += k * ((fmax - a) * w / fmax);
        self.mask += k * (1.0 - w);
    }

    pub(crate) fn finish(&self, p: &ViewParams, clocks: f64) -> FlopsStack {
        let fmax = if p.fma { 2.0 } else { 1.0 };
        let peak = p.fp_units * (p.max_bits / 64.0) * fmax;
        let total = p.fp_units * clocks;
        // cycles before the first FP instruction were not finalized as FP-idle:
        // whatever is not accounted for had no FP instruction to issue
        let known = self.base + self.non_fma + self.mask + self.idle[1] + self.idle[2] + self.idle[3];
        let frontend = (total - known).max(0.0);
        let sum = (known + frontend).max(1e-12);
        let scale = peak / sum;
        let comps = [
            ("base", self.base),
            ("non_fma", self.non_fma),
            ("mask", self.mask),
            ("frontend", frontend),
            ("non_vfp", self.idle[1]),
            ("memory", self.idle[2]),
            ("dependence", self.idle[3]),
        ];
        FlopsStack {
            peak_flops_per_cycle: peak,
            flops_per_cycle: if clocks > 0.0 { self.flops as f64 / clocks } else { 0.0 },
            fp_instructions: self.issued,
            components: comps.iter().map(|(n, v)| (n.to_string(), v * scale)).collect(),
        }
    }
}
