//! Machine parameters the views need.

use bottlenose_machine::Machine;
use bottlenose_timing::CoreConfig;

#[derive(Clone, Debug)]
pub struct ViewParams {
    /// Dispatch slots per cycle (W of every stack and of Top-Down's TotalSlots).
    pub width: f64,
    pub dispatch_gap: f64,
    pub commit_gap: f64,
    pub mispredict_penalty: f64,
    /// Extra latency over an L1 hit of a load served by L1, L2, L3, DRAM.
    pub level_extra_latency: [f64; 4],
    /// Vector FP units, widest vector (bits), FMA support (FLOPS stack).
    pub fp_units: f64,
    pub max_bits: f64,
    pub fma: bool,
    /// Yasin's FEW (cycles with at most this many uops executed are execution stalls)
    /// and the memory-bandwidth occupancy threshold of ExtMemOutstanding.
    pub few_ops: u32,
    pub mem_bw_occupancy: u32,
}

impl ViewParams {
    pub fn new(machine: &Machine, cfg: &CoreConfig) -> Self {
        let v = &machine.params.vector;
        ViewParams {
            width: 1.0 / cfg.dispatch_gap,
            dispatch_gap: cfg.dispatch_gap,
            commit_gap: cfg.commit_gap,
            mispredict_penalty: cfg.mispredict_penalty,
            level_extra_latency: cfg.level_extra_latency,
            fp_units: v.fp_units.max(1) as f64,
            max_bits: v.max_bits.max(64) as f64,
            fma: v.fma,
            few_ops: 2,
            mem_bw_occupancy: 28,
        }
    }
}
