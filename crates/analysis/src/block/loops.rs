//! The loops of static code (an ELF function, a `gcc -S` file, a snippet):
//! the natural loops of its control-flow graph, found with the same back-edge
//! rule as the loops of dynamic runs ([`bottlenose_attribution::natural_loops`]),
//! each analyzed on its own, and a static estimate of which one is hottest.
//!
//! The graph comes from the decoded instructions: a block ends at every
//! branch and starts at every direct branch target inside the code; a
//! conditional branch goes to its target and falls through, a direct jump
//! only goes to its target, a return or an indirect jump leaves (a jump table
//! is not followed), a call falls through (the callee is other code).
//!
//! Each loop is timed on its *own* instructions: its blocks minus those of
//! the loops nested in it, every block once per iteration (both arms of an
//! `if` inside the loop count). An outer loop's figure is then what one of its
//! iterations costs around its inner loops.

use super::{analyze_block, StaticOptions};
use crate::AnalysisError;
use bottlenose_attribution::{natural_loops, NaturalLoop};
use bottlenose_decode::{BranchKind, DecodedInst};
use bottlenose_machine::Machine;
use std::collections::{BTreeSet, HashMap};
pub use bottlenose_report_model::block::{LoopAnalysis, ASSUMED_ITERATIONS_PER_ENTRY};

/// One loop of a static block.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticLoop {
    /// Address of the header, where the back edges go.
    pub head: u64,
    /// Address of the back-edge instruction (the last one, when there are several).
    pub back_edge: u64,
    /// `[start, end)`: the lowest and highest address of the loop's blocks (inner loops included).
    pub start: u64,
    pub end: u64,
    /// How many loops of the block contain this one (0 = outermost).
    pub depth: u32,
    /// Instructions of the loop, inner loops included.
    pub instructions: usize,
    /// Indices (into the block's instructions, ascending) of the loop's own
    /// instructions: those of no loop nested in it.
    pub own: Vec<usize>,
}

/// The loops of `insts` (one contiguous block of code), in header address order.
pub fn find_static_loops(insts: &[DecodedInst]) -> Vec<StaticLoop> {
    if insts.is_empty() {
        return Vec::new();
    }
    let index_of: HashMap<u64, usize> = insts.iter().enumerate().map(|(i, d)| (d.address, i)).collect();
    let direct_target = |d: &DecodedInst| match d.branch {
        BranchKind::Conditional | BranchKind::DirectJump => d.branch_target.and_then(|t| index_of.get(&t).copied()),
        _ => None,
    };
    // Leaders: the first instruction, direct branch targets, whatever follows a branch.
    let mut leader = vec![false; insts.len()];
    leader[0] = true;
    for (i, d) in insts.iter().enumerate() {
        if let Some(t) = direct_target(d) {
            leader[t] = true;
        }
        if d.branch != BranchKind::None && i + 1 < insts.len() {
            leader[i + 1] = true;
        }
    }
    let starts: Vec<usize> = (0..insts.len()).filter(|&i| leader[i]).collect();
    let block_of_first: HashMap<usize, usize> = starts.iter().enumerate().map(|(b, &i)| (i, b)).collect();
    let last_of = |b: usize| starts.get(b + 1).map_or(insts.len(), |&n| n) - 1;
    let n = starts.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, out) in succ.iter_mut().enumerate() {
        let last = &insts[last_of(b)];
        if let Some(t) = direct_target(last) {
            out.push(block_of_first[&t]);
        }
        let falls_through = !matches!(last.branch, BranchKind::DirectJump | BranchKind::IndirectJump | BranchKind::Return);
        if falls_through && b + 1 < n && !out.contains(&(b + 1)) {
            out.push(b + 1);
        }
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(b);
        }
    }
    let loops = natural_loops(&succ, &pred, vec![0]);
    let block_range = |b: usize| starts[b]..=last_of(b);
    loops
        .iter()
        .map(|l| {
            let inner: BTreeSet<usize> = loops
                .iter()
                .filter(|o| o.header != l.header && l.blocks.contains(&o.header))
                .flat_map(|o| o.blocks.iter().copied())
                .collect();
            let own: Vec<usize> = l.blocks.iter().filter(|b| !inner.contains(b)).flat_map(|&b| block_range(b)).collect();
            let all = || l.blocks.iter().flat_map(|&b| block_range(b));
            let NaturalLoop { header, back_edge_sources, depth, .. } = l;
            let tail = *back_edge_sources.last().expect("a loop has a back edge");
            StaticLoop {
                head: insts[starts[*header]].address,
                back_edge: insts[last_of(tail)].address,
                start: all().map(|i| insts[i].address).min().unwrap_or(0),
                end: all().map(|i| insts[i].address + insts[i].len as u64).max().unwrap_or(0),
                depth: *depth,
                instructions: all().count(),
                own,
            }
        })
        .collect()
}

/// What the caller knows about an address: its function and `file:line`.
pub type Locate<'a> = &'a dyn Fn(u64) -> (Option<String>, Option<String>);

/// Analyzes each loop of `insts`, or returns `None` when the block is better
/// analyzed whole: it has no loop, or one loop made of every instruction (a
/// loop body, as `analyze` has always taken a snippet to be).
pub fn analyze_loops(
    machine: &Machine,
    name: &str,
    insts: &[DecodedInst],
    opts: &StaticOptions,
    locate: Locate<'_>,
) -> Result<Option<Vec<LoopAnalysis>>, AnalysisError> {
    let loops = find_static_loops(insts);
    if loops.is_empty() || (loops.len() == 1 && loops[0].own.len() == insts.len()) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(loops.len());
    for (k, l) in loops.iter().enumerate() {
        let (function, source) = locate(l.head);
        let label = format!(
            "{name}: loop {} at {:#x}{}",
            k + 1,
            l.head,
            source.as_deref().map(|s| format!(" ({s})")).unwrap_or_default()
        );
        let body: Vec<DecodedInst> = l.own.iter().map(|&i| insts[i].clone()).collect();
        let report = analyze_block(machine, &label, &body, opts)?;
        out.push(LoopAnalysis {
            number: k + 1,
            head: format!("{:x}", l.head),
            back_edge: format!("{:x}", l.back_edge),
            start: format!("{:x}", l.start),
            end: format!("{:x}", l.end),
            function,
            source,
            depth: l.depth,
            instructions: l.instructions,
            own_instructions: l.own.len(),
            cycles_per_iteration: report.cycles_per_iteration,
            estimated_share: 0.0,
            hottest: false,
            report,
        });
    }
    let weight = |a: &LoopAnalysis| a.cycles_per_iteration * ASSUMED_ITERATIONS_PER_ENTRY.powi(a.depth as i32 + 1);
    let total: f64 = out.iter().map(weight).sum();
    for a in &mut out {
        a.estimated_share = if total > 0.0 { weight(a) / total } else { 0.0 };
    }
    // ties: the deeper loop, then the first
    let hottest = (0..out.len())
        .max_by(|&i, &j| {
            weight(&out[i]).total_cmp(&weight(&out[j])).then(out[i].depth.cmp(&out[j].depth)).then(j.cmp(&i))
        })
        .expect("at least one loop");
    out[hottest].hottest = true;
    Ok(Some(out))
}
