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
            mispredict_penalty: machine.params.branch.mispredict_penalty,
            store_forward_latency: machine.params.memory.store_forward_latency,
        }
    }
}
