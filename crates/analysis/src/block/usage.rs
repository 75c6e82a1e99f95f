//! Resource usage: how much of each resource's capacity the block consumes,
//! globally and per instruction (the table of Gus Table 1).

use bottlenose_machine::{GroupId, Machine};
use bottlenose_timing::InstrTiming;
pub use bottlenose_report_model::ResourceUsage;

/// Uops each instruction puts on each group (after superset expansion).
pub fn per_instruction_load(machine: &Machine, it: &InstrTiming) -> Vec<(GroupId, f64)> {
    let mut acc: Vec<(GroupId, f64)> = Vec::new();
    for u in it.all_uses() {
        for &g in &u.targets {
            match acc.iter_mut().find(|(x, _)| *x == g) {
                Some(e) => e.1 += u.count,
                None => acc.push((g, u.count)),
            }
        }
    }
    acc.sort_by_key(|e| e.0);
    let _ = machine;
    acc
}

/// Global usage of every group any instruction touches, plus the frontend.
pub fn global_usage(machine: &Machine, block: &[InstrTiming], cycles_per_iteration: f64) -> Vec<ResourceUsage> {
    let mut per_group = vec![0.0f64; machine.groups.len()];
    for it in block {
        for (g, n) in per_instruction_load(machine, it) {
            per_group[g as usize] += n;
        }
    }
    let cpi = cycles_per_iteration.max(1e-9);
    let mut out: Vec<ResourceUsage> = per_group
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0.0)
        .map(|(g, &n)| {
            let cap = machine.group_capacity(g as GroupId);
            ResourceUsage { name: machine.groups[g].name.clone(), capacity: cap, uops_per_iteration: n, usage: n / (cap * cpi) }
        })
        .collect();
    let fused: f64 = block.iter().map(|i| i.fused_uops as f64).sum();
    let w = machine.params.core.dispatch_width;
    out.push(ResourceUsage { name: bottlenose_timing::CoreKnob::Frontend.name().into(), capacity: w, uops_per_iteration: fused, usage: fused / (w * cpi) });
    let c = machine.params.core.commit_width;
    out.push(ResourceUsage { name: bottlenose_timing::CoreKnob::Commit.name().into(), capacity: c, uops_per_iteration: fused, usage: fused / (c * cpi) });
    let stores = block.iter().filter(|i| i.stores).count() as f64;
    if stores > 0.0 {
        let r = machine.params.memory.stores_per_cycle;
        out.push(ResourceUsage { name: bottlenose_timing::CoreKnob::StoreDrain.name().into(), capacity: r, uops_per_iteration: stores, usage: stores / (r * cpi) });
    }
    out
}
