//! A timing variant: the machine's capacities, each scaled by a weight.
//!
//! Sensitivity analysis and idealization run many variants over one stream;
//! each variant is a [`CoreConfig`] built from the machine plus [`Acceleration`].

use crate::knob::CoreKnob;
use bottlenose_machine::Machine;
use serde::Serialize;

/// Weights applied to the machine's resources (1.0 = nominal).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceleration {
    /// Per port unit: scales the unit and therefore every group containing it.
    units: Vec<f64>,
    /// Per resource group: scales that group's capacity only (Gus semantics: `p23`
    /// accelerates the combined throughput of ports 2 and 3, nothing else).
    groups: Vec<f64>,
    /// Per core knob, in [`CoreKnob`] order (see [`crate::knob::KNOBS`]).
    core: [f64; CoreKnob::COUNT],
}

impl Acceleration {
    pub fn nominal(machine: &Machine) -> Self {
        Self { units: vec![1.0; machine.units.len()], groups: vec![1.0; machine.groups.len()], core: [1.0; CoreKnob::COUNT] }
    }

    /// Multiplies the weight of a port unit by `w`.
    pub fn scale_unit(&mut self, unit: usize, w: f64) {
        self.units[unit] *= w;
    }

    /// Multiplies the weight of a port group by `w`.
    pub fn scale_group(&mut self, group: usize, w: f64) {
        self.groups[group] *= w;
    }

    /// Multiplies the weight of a core knob by `w`.
    pub fn scale(&mut self, knob: CoreKnob, w: f64) {
        self.core[knob as usize] *= w;
    }

    pub fn weight(&self, knob: CoreKnob) -> f64 {
        self.core[knob as usize]
    }

    /// The rate knobs' weights in [`crate::RateEvent`] order.
    fn rate_weights(&self) -> [f64; crate::RATE_EVENTS] {
        let mut r = [1.0; crate::RATE_EVENTS];
        for k in CoreKnob::all() {
            if let Some(e) = k.rate_event() {
                r[e as usize] = self.weight(k);
            }
        }
        r
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
    /// Extra load-pipe slots of a load that spans two cache lines (0: none).
    pub split_load_extra: f64,
    /// Extra store-pipe slots (and L1 writes) of a store that spans two lines (0: none).
    pub split_store_extra: f64,
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
    /// Dirty lines per cycle over each write-back link (into L2, into L3) when it has a
    /// path of its own (`None`: write-backs take the fill link's bandwidth). Write-backs
    /// into DRAM always share its bandwidth with the fills.
    pub writeback_lines_per_cycle: [Option<f64>; 2],
    /// log2 of the L1D line size (prefetched lines are tracked by line).
    pub line_shift: u32,
    /// Idealization "1-cycle ALU" (Eyerman §IV): every non-load operation
    /// with a latency above one cycle completes in one cycle (loads, store
    /// forwarding and throughput are unchanged). Off in every normal variant.
    pub unit_alu_latency: bool,
    /// Rate weights of the rate knobs, in [`crate::RateEvent`] order (1.0 = every event happens).
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
            dispatch_gap: 1.0 / (c.dispatch_width * acc.weight(CoreKnob::Frontend)),
            commit_gap: 1.0 / (c.commit_width * acc.weight(CoreKnob::Commit)),
            rob: size(c.rob, acc.weight(CoreKnob::Window)),
            scheduler: size(c.scheduler, acc.weight(CoreKnob::Scheduler)),
            load_buffer: size(c.load_buffer, acc.weight(CoreKnob::LoadBuffer)),
            store_buffer: size(c.store_buffer, acc.weight(CoreKnob::StoreBuffer)),
            latency_scale: 1.0 / acc.weight(CoreKnob::Latency),
            store_drain_gap: 1.0 / (machine.params.memory.stores_per_cycle * acc.weight(CoreKnob::StoreDrain)),
            mispredict_penalty: machine.params.branch.mispredict_penalty / acc.weight(CoreKnob::MispredictPenalty),
            store_forward_latency: machine.params.memory.store_forward_latency,
            split_load_extra: (machine.params.memory.split_load_slots - 1.0).max(0.0),
            split_store_extra: (machine.params.memory.split_store_slots - 1.0).max(0.0),
            renamed_forward_latency: machine.params.memory.memory_renaming.then_some(machine.params.memory.renamed_forward_latency),
            fetch_block_gap: if c.fetch_blocks_per_cycle > 0.0 { 1.0 / (c.fetch_blocks_per_cycle * acc.weight(CoreKnob::Frontend)) } else { 0.0 },
            fetch_runahead: c.fetch_runahead_cycles,
            return_bubble: machine.params.branch.return_bubble,
            indirect_bubble: machine.params.branch.indirect_bubble,
            icache_stream_share: 1.0 / c.icache_misses_in_flight.max(1.0),
            level_extra_latency: level_extra_latency(machine, acc.weight(CoreKnob::MissLatency)),
            fill_lines_per_cycle: fill_rates(machine, acc),
            writeback_lines_per_cycle: writeback_rates(machine, acc),
            line_shift: data_levels(machine).first().map(|c| c.line_bytes.max(1).trailing_zeros()).unwrap_or(6),
            unit_alu_latency: false,
            rate_weights: acc.rate_weights(),
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

fn writeback_rates(machine: &Machine, acc: &Acceleration) -> [Option<f64>; 2] {
    let levels = data_levels(machine);
    let line = levels.first().map(|c| c.line_bytes as f64).unwrap_or(64.0);
    let rate = |i: usize, w: f64| levels.get(i).and_then(|c| c.writeback_bytes_per_cycle).map(|b| b / line * w);
    [rate(1, acc.weight(CoreKnob::L2Bandwidth)), rate(2, acc.weight(CoreKnob::L3Bandwidth))]
}

fn fill_rates(machine: &Machine, acc: &Acceleration) -> [f64; 4] {
    let levels = data_levels(machine);
    let line = levels.first().map(|c| c.line_bytes as f64).unwrap_or(64.0);
    // a level's bytes_per_cycle is what it delivers towards the core
    let rate = |i: usize, w: f64| levels.get(i).map(|c| c.bytes_per_cycle / line * w).unwrap_or(f64::INFINITY);
    [
        f64::INFINITY,
        rate(1, acc.weight(CoreKnob::L2Bandwidth)),
        rate(2, acc.weight(CoreKnob::L3Bandwidth)),
        machine.params.memory.dram_bytes_per_cycle / line * acc.weight(CoreKnob::DramBandwidth),
    ]
}
