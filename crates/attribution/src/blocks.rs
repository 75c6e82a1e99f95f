//! Basic blocks of the executed code.

use std::collections::HashSet;

use serde::Serialize;

use crate::InsnStat;

/// A straight-line run of executed instructions, `[start, end)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockInfo {
    /// Address of the first instruction.
    pub start: u64,
    /// Address just past the last instruction.
    pub end: u64,
    /// Executions of the block (of its first instruction).
    pub executions: u64,
    /// Sum of the cycles of its instructions.
    pub cycles: f64,
    /// Sum of the extra counters of its instructions.
    pub counters: [f64; 4],
}

/// Splits executed instructions (sorted by address, one entry per address —
/// see [`crate::normalize`]) into basic blocks, in address order.
///
/// A new block starts at the first instruction, at every observed taken
/// target, after every branch, after a gap in the addresses, and where the
/// execution count changes (which reveals an entry or exit that was not
/// observed as a taken target, e.g. an indirect branch beyond the recorded
/// targets, a signal, or a `rep`-prefixed instruction repeating itself).
pub fn basic_blocks(insns: &[InsnStat]) -> Vec<BlockInfo> {
    block_bounds(insns)
        .into_iter()
        .map(|(first, last)| {
            let body = &insns[first..=last];
            let mut counters = [0.0; 4];
            for i in body {
                for (acc, c) in counters.iter_mut().zip(i.counters) {
                    *acc += c;
                }
            }
            BlockInfo {
                start: insns[first].vaddr,
                end: insns[last].end(),
                executions: insns[first].executions,
                cycles: body.iter().map(|i| i.cycles).sum(),
                counters,
            }
        })
        .collect()
}

/// Index ranges `[first, last]` (inclusive) of the blocks of [`basic_blocks`].
pub(crate) fn block_bounds(insns: &[InsnStat]) -> Vec<(usize, usize)> {
    let targets: HashSet<u64> = insns
        .iter()
        .filter(|i| i.is_branch)
        .flat_map(|i| i.taken_targets.iter().copied())
        .collect();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, insn) in insns.iter().enumerate() {
        let leader = match k.checked_sub(1).map(|j| &insns[j]) {
            None => true,
            Some(p) => {
                p.is_branch
                    || targets.contains(&insn.vaddr)
                    || p.end() != insn.vaddr
                    || p.executions != insn.executions
            }
        };
        if leader {
            out.push((k, k));
        } else if let Some(b) = out.last_mut() {
            b.1 = k;
        }
    }
    out
}
