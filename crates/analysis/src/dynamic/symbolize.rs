//! After a run, the attribution of every static instruction's cycles to
//! `dso!symbol`, source lines and loops, from the guest's mappings.

use super::report::{HotspotRow, LoopReport, LoopTableRow, StaticInstruction};
use bottlenose_attribution::{attribute, AddressSpace, InsnStat, LoopInfo, Symbolize};
use bottlenose_views::InstructionCost;
use bottlenose_machine::Machine;
pub use bottlenose_report_model::run::FileShare;

/// The address objdump shows for `addr` in its file (hex digits, as objdump
/// and `analyze` print them), or the guest address for code outside every
/// file (JIT).
pub(crate) fn objdump_address(space: &AddressSpace, addr: u64) -> String {
    format!("{:x}", space.dso_address(addr).map_or(addr, |(_, a)| a))
}

/// The instruction's text as objdump would show it: decoded again at its
/// file address, so that branch targets are file addresses too.
pub(crate) fn objdump_asm(space: &AddressSpace, inst: &bottlenose_decode::DecodedInst, isa: bottlenose_decode::Isa) -> String {
    match space.dso_address(inst.address) {
        Some((_, at)) => bottlenose_decode::decode_one_for(isa, &inst.bytes, at).map_or_else(|_| inst.asm.clone(), |d| d.asm),
        None => inst.asm.clone(),
    }
}

/// The file holding `addr` (`None` for JIT and unmapped code).
pub(crate) fn dso_name(space: &AddressSpace, addr: u64) -> Option<String> {
    space.dso_address(addr).map(|(d, _)| d.to_string())
}

/// Every executed instruction's cycles by the file it is in, most first.
pub(crate) fn cycles_by_file(space: &AddressSpace, statics: &[StaticInstruction], cost: &InstructionCost) -> Vec<FileShare> {
    let mut files: Vec<FileShare> = Vec::new();
    for (i, s) in statics.iter().enumerate() {
        let c = cost.get(i);
        if c.executions == 0 {
            continue;
        }
        let dso = dso_name(space, s.inst.address);
        let named = if space.symbol_start(s.inst.address).is_some() { c.cycles } else { 0.0 };
        match files.iter_mut().find(|f| f.dso == dso) {
            Some(f) => {
                f.cycles += c.cycles;
                f.named_share += named;
            }
            None => files.push(FileShare { dso, cycles: c.cycles, share: 0.0, named_share: named }),
        }
    }
    let total = files.iter().map(|f| f.cycles).sum::<f64>().max(1e-9);
    for f in &mut files {
        f.share = f.cycles / total;
        f.named_share /= total;
    }
    files.sort_by(|a, b| b.cycles.total_cmp(&a.cycles));
    files
}

/// Hotspots, functions, loops, the hottest loop's table, its head (as shown)
/// and its guest address.
pub(crate) type Attributed = (Vec<HotspotRow>, Vec<HotspotRow>, Vec<LoopReport>, Vec<LoopTableRow>, Option<String>, Option<u64>);

/// Aggregates per-instruction cycles to lines, functions and loops, named by
/// the run's address space (every file the guest mapped).
pub(crate) fn attribute_run(machine: &Machine, space: &AddressSpace, statics: &[StaticInstruction], cost: &InstructionCost) -> (Attributed, Vec<LoopInfo>) {
    let stats: Vec<InsnStat> = statics
        .iter()
        .enumerate()
        .map(|(i, s)| (cost.get(i), s))
        .filter(|(c, _)| c.executions > 0)
        .map(|(c, s)| InsnStat {
            vaddr: s.inst.address,
            len: s.inst.len,
            executions: c.executions,
            cycles: c.cycles,
            counters: [c.mispredicts as f64, 0.0, 0.0, 0.0],
            is_branch: s.inst.is_branch(),
            taken_targets: s.inst.branch_target.into_iter().collect(),
        })
        .collect();
    let a = attribute(&stats, Some(space as &dyn Symbolize));
    let hotspots = a.lines.iter().take(50).cloned().collect();
    let functions = a.functions.iter().take(50).cloned().collect();
    let loops = a
        .loops
        .iter()
        .take(20)
        .map(|l| LoopReport {
            head: objdump_address(space, l.head),
            dso: dso_name(space, l.head),
            function: l.function.clone(),
            iterations: l.iterations,
            cycles: l.cycles,
            share: l.share,
            depth: l.depth,
        })
        .collect();
    // the hottest loop of Gus Table 1 is an inner loop: the deepest one that
    // still holds at least half the cycles of the hottest (outermost) loop
    let top = a.loops.first().map(|l| l.cycles).unwrap_or(0.0);
    let hottest = a.loops.iter().filter(|l| l.cycles >= 0.5 * top).max_by(|x, y| x.depth.cmp(&y.depth).then(x.cycles.total_cmp(&y.cycles)));
    let mut table = Vec::new();
    if let Some(l) = hottest {
        // QEMU may translate an address several times: each translation is its own
        // static instruction, so executions are summed over all of them
        let mut by_addr: std::collections::HashMap<u64, (usize, u64, f64)> = std::collections::HashMap::new();
        for (i, s) in statics.iter().enumerate() {
            let e = by_addr.entry(s.inst.address).or_insert((i, 0, 0.0));
            e.1 += cost.get(i).executions;
            e.2 += cost.get(i).cycles;
        }
        let cycles = l.cycles.max(1e-9);
        for addr in &l.instructions {
            let Some(&(i, n, own_cycles)) = by_addr.get(addr) else { continue };
            let s = &statics[i];
            let usage = crate::block::usage::per_instruction_load(machine, &s.timing)
                .into_iter()
                .map(|(g, u)| (machine.groups[g as usize].name.clone(), u * n as f64 / (machine.group_capacity(g) * cycles)))
                .collect();
            table.push(LoopTableRow {
                address: objdump_address(space, *addr),
                asm: objdump_asm(space, &s.inst, machine.isa),
                executions: n,
                cycles: own_cycles,
                share: own_cycles / cycles,
                uops: s.timing.unfused_uops,
                latency: s.timing.latency,
                usage,
            });
        }
    }
    let head = hottest.map(|l| objdump_address(space, l.head));
    ((hotspots, functions, loops, table, head, hottest.map(|l| l.head)), a.loops)
}
