//! A timing variant: the machine's capacities, each scaled by a weight.
//!
//! Sensitivity analysis and idealization run many variants over one stream;
//! each variant is a [`CoreConfig`] built from the machine plus [`Acceleration`].

use bottlenose_machine::Machine;
use serde::Serialize;

/// Weights applied to the machine's resources (1.0 = nominal).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceleration {
    /// Per port unit: scales the unit and therefore every group containing it.
    pub units: Vec<f64>,
    /// Per resource group: scales that group's capacity only (Gus semantics: `p23`
    /// accelerates the combined throughput of ports 2 and 3, nothing else).
    pub groups: Vec<f64>,
    pub dispatch_width: f64,
    pub commit_width: f64,
    pub rob: f64,
    pub scheduler: f64,
    pub load_buffer: f64,
    pub store_buffer: f64,
    /// Divides every execution latency, L1 load-to-use included (Gus's INST LAT resource).
    pub latency: f64,
    /// Rate at which retired stores drain from the store buffer into L1.
    pub store_drain: f64,
    /// Divides the extra latency of every access that misses L1.
    pub miss_latency: f64,
    /// Fill bandwidth into L1 from L2, into L2 from L3, into L3 from DRAM.
    pub l2_bandwidth: f64,
    pub l3_bandwidth: f64,
    pub dram_bandwidth: f64,
    /// Divides the branch mispredict penalty.
    pub mispredict_penalty: f64,
    /// Divide the rate of an event ([`crate::RateEvent`] order: mispredictions,
    /// L1, L2, L3 misses, TLB misses): the variant times that share of them as
    /// not happening (see `thinning.rs`).
    pub rates: [f64; crate::RATE_EVENTS],
}

impl Acceleration {
    pub fn nominal(machine: &Machine) -> Self {
        Self {
            units: vec![1.0; machine.units.len()],
            groups: vec![1.0; machine.groups.len()],
            dispatch_width: 1.0,
            commit_width: 1.0,
            rob: 1.0,
            scheduler: 1.0,
            load_buffer: 1.0,
            store_buffer: 1.0,
            latency: 1.0,
            store_drain: 1.0,
            miss_latency: 1.0,
            l2_bandwidth: 1.0,
            l3_bandwidth: 1.0,
            dram_bandwidth: 1.0,
            mispredict_penalty: 1.0,
            rates: [1.0; crate::RATE_EVENTS],
        }
    }
}

/// Everything the core needs, resolved to numbers.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    pub group_capacity: Vec<f64>,
    pub dispatch_gap: f64,
    pub commit_gap: f64,
    pub rob: u32,
    pub scheduler: u32,
    pub load_buffer: u32,
    pub store_buffer: u32,
    pub latency_scale: f64,
    /// Cycles between two stores draining into L1.
    pub store_drain_gap: f64,
    pub mispredict_penalty: f64,
    pub store_forward_latency: f64,
    /// Memory renaming: forwarding latency when load and store name the same address
    /// expression (`None`: the machine does not rename memory).
    pub renamed_forward_latency: Option<f64>,
    /// Cycles between two fetch blocks (0: no limit) and how far fetch may run ahead of dispatch.
    pub fetch_block_gap: f64,
    pub fetch_runahead: f64,
    /// Fetch bubbles of a return and of a predicted indirect branch (the branch
    /// predictor's `return_bubble` / `indirect_bubble`): a static block that calls
    /// out pays them when the callee returns (dynamic runs charge them as they occur).
    pub return_bubble: f64,
    pub indirect_bubble: f64,
    /// Fraction of an icache miss's latency charged to each further line of a sequential miss stream.
    pub icache_stream_share: f64,
    /// Extra latency over an L1 hit of a load served by L1, L2, L3, DRAM.
    pub level_extra_latency: [f64; 4],
    /// Lines per cycle that can be filled into level k from level k+1 (index 1 = L2→L1,
    /// 2 = L3→L2, 3 = DRAM→L3; index 0 unused).
    pub fill_lines_per_cycle: [f64; 4],
    /// log2 of the L1D line size (prefetched lines are tracked by line).
    pub line_shift: u32,
    /// Idealization "1-cycle ALU" (Eyerman §IV): every non-load operation
    /// with a latency above one cycle completes in one cycle (loads, store
    /// forwarding and throughput are unchanged). Off in every normal variant.
    pub unit_alu_latency: bool,
    /// Rate weights of [`Acceleration::rates`] (1.0 = every event happens).
    pub rate_weights: [f64; crate::RATE_EVENTS],
}

impl CoreConfig {
    pub fn new(machine: &Machine, acc: &Acceleration) -> Self {
        let c = &machine.params.core;
        let group_capacity = machine
            .groups
            .iter()
            .enumerate()
            .map(|(g, grp)| {
                let units: f64 = (0..machine.units.len())
                    .filter(|u| grp.members & (1 << u) != 0)
                    .map(|u| acc.units[u])
                    .sum();
                units * acc.groups[g]
            })
            .collect();
        let size = |n: u32, w: f64| ((n as f64 * w).floor() as u32).max(1);
        Self {
            group_capacity,
            dispatch_gap: 1.0 / (c.dispatch_width * acc.dispatch_width),
            commit_gap: 1.0 / (c.commit_width * acc.commit_width),
            rob: size(c.rob, acc.rob),
            scheduler: size(c.scheduler, acc.scheduler),
            load_buffer: size(c.load_buffer, acc.load_buffer),
            store_buffer: size(c.store_buffer, acc.store_buffer),
            latency_scale: 1.0 / acc.latency,
            store_drain_gap: 1.0 / (machine.params.memory.stores_per_cycle * acc.store_drain),
            mispredict_penalty: machine.params.branch.mispredict_penalty / acc.mispredict_penalty,
            store_forward_latency: machine.params.memory.store_forward_latency,
            renamed_forward_latency: machine.params.memory.memory_renaming.then_some(machine.params.memory.renamed_forward_latency),
            fetch_block_gap: if c.fetch_blocks_per_cycle > 0.0 { 1.0 / (c.fetch_blocks_per_cycle * acc.dispatch_width) } else { 0.0 },
            fetch_runahead: c.fetch_runahead_cycles,
            return_bubble: machine.params.branch.return_bubble,
            indirect_bubble: machine.params.branch.indirect_bubble,
            icache_stream_share: 1.0 / c.icache_misses_in_flight.max(1.0),
            level_extra_latency: level_extra_latency(machine, acc.miss_latency),
            fill_lines_per_cycle: fill_rates(machine, acc),
            line_shift: data_levels(machine).first().map(|c| c.line_bytes.max(1).trailing_zeros()).unwrap_or(6),
            unit_alu_latency: false,
            rate_weights: acc.rates,
        }
    }
}

/// Data-side cache levels, nearest first (L1D, L2, L3): the level's latency and fill bandwidth.
fn data_levels(machine: &Machine) -> Vec<&bottlenose_machine::CacheParams> {
    use bottlenose_machine::CacheKind;
    let mut v: Vec<_> = machine.params.caches.iter().filter(|c| c.kind != CacheKind::Instruction).collect();
    v.sort_by_key(|c| c.level);
    v
}

fn level_extra_latency(machine: &Machine, w: f64) -> [f64; 4] {
    let levels = data_levels(machine);
    let l1 = levels.first().map(|c| c.latency).unwrap_or(machine.params.memory.load_latency);
    let lat = |i: usize| levels.get(i).map(|c| c.latency).unwrap_or(machine.params.memory.dram_latency);
    let dram = machine.params.memory.dram_latency;
    [0.0, (lat(1) - l1).max(0.0) / w, (lat(2) - l1).max(0.0) / w, (dram - l1).max(0.0) / w]
}

fn fill_rates(machine: &Machine, acc: &Acceleration) -> [f64; 4] {
    let levels = data_levels(machine);
    let line = levels.first().map(|c| c.line_bytes as f64).unwrap_or(64.0);
    // a level's bytes_per_cycle is what it delivers towards the core
    let rate = |i: usize, w: f64| levels.get(i).map(|c| c.bytes_per_cycle / line * w).unwrap_or(f64::INFINITY);
    [
        f64::INFINITY,
        rate(1, acc.l2_bandwidth),
        rate(2, acc.l3_bandwidth),
        machine.params.memory.dram_bytes_per_cycle / line * acc.dram_bandwidth,
    ]
}
