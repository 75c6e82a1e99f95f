//! Loops of the executed code: natural loops of the observed control-flow
//! graph.
//!
//! The graph is built from what ran: basic blocks (see
//! [`crate::basic_blocks`]) joined by fall-through edges and by the observed
//! taken targets. With a [`Program`] its bytes tell calls (whose fall-through
//! is the return site; the callee is another function), returns (no
//! successor inside the function) and unconditional jumps (no fall-through)
//! apart; edges never cross functions. Without bytes (no program, or code
//! outside it) a one-byte branch is taken for a `ret` and every other branch
//! is assumed to fall through as well.
//!
//! A back edge is an edge `u → h` whose target `h` dominates `u` (every path
//! from the function's entries to `u` passes through `h`). For the loops
//! compilers emit this is the branch jumping back to a lower address — the
//! classic "taken target ≤ own address" rule — but dominance also gets right
//! the rotated loops of `gcc -O1`, whose header is entered sideways and whose
//! exits often jump backwards to a shared return block (which the address
//! rule would report as a loop). All back edges to one header form one loop:
//! the header plus every block that reaches a back-edge source without
//! passing through the header.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::blocks::block_bounds;
use crate::symbols::{branch_kind, BranchKind};
use crate::{function_label, share, InsnStat, Symbolize};

/// One loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoopInfo {
    /// Loop header: start of the block the back edge(s) go to.
    pub head: u64,
    /// Back-edge source: the last instruction of the highest-addressed block
    /// with a back edge to `head` (a branch, or an instruction falling through
    /// into the header).
    pub tail: u64,
    /// Function of the header (`None` without a [`Symbolize`]).
    pub function: Option<String>,
    /// Address range `[lowest block start, highest block end)` of the loop's
    /// blocks. The header need not be at the lowest address (rotated loops).
    pub body: (u64, u64),
    /// How many times the back edge(s) were followed — see [`find_loops`].
    pub iterations: u64,
    /// Cycles of the loop's instructions (nested loops included).
    pub cycles: f64,
    /// `cycles` as a fraction of the run's total cycles.
    pub share: f64,
    /// Addresses of the executed instructions in the loop, ascending.
    pub instructions: Vec<u64>,
    /// Extra counters summed over the loop's instructions.
    pub counters: [f64; 4],
    /// Nesting depth: how many other loops strictly contain this one
    /// (0 = outermost).
    pub depth: u32,
}

/// A basic block of the control-flow graph, as instruction indices.
struct Node {
    first: usize,
    last: usize,
}

/// Finds the loops among executed instructions (sorted by address, one entry
/// per address — see [`crate::normalize`]); sorted by cycles descending (ties:
/// deeper first, then by head), so `loops[0]` is the hottest loop. Nested loops
/// are separate entries, and an outer loop's cycles include its inner loops'.
///
/// `iterations` counts how often the back edges were followed. Taken counts
/// are not recorded per branch, so each back edge's count is worked out from
/// execution counts: a block with a single successor passes on all its
/// executions; for a two-way branch, the taken count is its executions minus
/// those of the other successor when only this block leads there, else the
/// header's executions minus those of its other, single-successor
/// predecessors; failing both, the branch's executions (an upper bound by one
/// per loop entry).
pub fn find_loops(
    insns: &[InsnStat],
    program: Option<&dyn Symbolize>,
    total_cycles: f64,
) -> Vec<LoopInfo> {
    let nodes: Vec<Node> = block_bounds(insns)
        .into_iter()
        .map(|(first, last)| Node { first, last })
        .collect();
    let n = nodes.len();
    if n == 0 {
        return Vec::new();
    }
    let start_of = |b: usize| insns[nodes[b].first].vaddr;
    let exec_of = |b: usize| insns[nodes[b].first].executions;
    let by_start: HashMap<u64, usize> = (0..n).map(|b| (start_of(b), b)).collect();
    let region: Vec<String> = (0..n)
        .map(|b| function_label(program, start_of(b)))
        .collect();

    // Edges.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for b in 0..n {
        let last = &insns[nodes[b].last];
        let kind = if !last.is_branch {
            BranchKind::Other
        } else if let Some(bytes) = program.and_then(|p| p.bytes_at(last.vaddr, 15)) {
            branch_kind(bytes)
        } else if last.len == 1 {
            // The only one-byte x86 branches are `ret` and `retf`.
            BranchKind::Ret
        } else {
            BranchKind::Other
        };
        let add = |to: usize, succ: &mut Vec<Vec<usize>>| {
            if region[to] == region[b] && !succ[b].contains(&to) {
                succ[b].push(to);
            }
        };
        if last.is_branch && !matches!(kind, BranchKind::Call | BranchKind::Ret) {
            for t in &last.taken_targets {
                if let Some(&to) = by_start.get(t) {
                    add(to, &mut succ);
                }
            }
        }
        let falls_through = !last.is_branch || matches!(kind, BranchKind::Call | BranchKind::Other);
        if falls_through && b + 1 < n && start_of(b + 1) == last.end() {
            add(b + 1, &mut succ);
        }
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(b);
        }
    }

    // Entries: blocks that their observed predecessors cannot account for,
    // and the blocks at function symbols' starts.
    let roots: Vec<usize> = (0..n)
        .filter(|&b| {
            let fed: u64 = pred[b]
                .iter()
                .map(|&p| exec_of(p))
                .fold(0u64, u64::saturating_add);
            let at_symbol = program.is_some_and(|p| p.symbol_start(start_of(b)) == Some(start_of(b)));
            pred[b].is_empty() || exec_of(b) > fed || at_symbol
        })
        .collect();
    let loops = natural_loops(&succ, &pred, roots);

    // Estimated count of the edge u → h.
    let edge_count = |u: usize, h: usize| -> u64 {
        let eu = exec_of(u);
        if succ[u].len() <= 1 {
            return eu;
        }
        if succ[u].len() == 2 {
            let other = if succ[u][0] == h {
                succ[u][1]
            } else {
                succ[u][0]
            };
            if pred[other] == [u] {
                return eu.saturating_sub(exec_of(other));
            }
        }
        let others = pred[h].iter().filter(|&&p| p != u);
        if others.clone().all(|&p| succ[p].len() == 1) {
            let fed: u64 = others.map(|&p| exec_of(p)).sum();
            return exec_of(h).saturating_sub(fed).min(eu);
        }
        eu
    };

    let mut out: Vec<LoopInfo> = loops
        .into_iter()
        .map(|NaturalLoop { header: h, blocks, back_edge_sources: sources, depth }| {
            let tail_block = *sources.iter().max().expect("a loop has a back edge");
            let idx: Vec<usize> = blocks
                .iter()
                .flat_map(|&b| nodes[b].first..=nodes[b].last)
                .collect();
            let cycles: f64 = idx.iter().map(|&i| insns[i].cycles).sum();
            let mut counters = [0.0; 4];
            for &i in &idx {
                for (acc, c) in counters.iter_mut().zip(insns[i].counters) {
                    *acc += c;
                }
            }
            let lo = blocks.iter().map(|&b| start_of(b)).min().unwrap_or(0);
            let hi = blocks
                .iter()
                .map(|&b| insns[nodes[b].last].end())
                .max()
                .unwrap_or(0);
            LoopInfo {
                head: start_of(h),
                tail: insns[nodes[tail_block].last].vaddr,
                function: program.map(|_| region[h].clone()),
                body: (lo, hi),
                iterations: sources
                    .iter()
                    .map(|&u| edge_count(u, h))
                    .fold(0u64, u64::saturating_add),
                cycles,
                share: share(cycles, total_cycles),
                instructions: idx.iter().map(|&i| insns[i].vaddr).collect(),
                counters,
                depth,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.cycles
            .total_cmp(&a.cycles)
            .then(b.depth.cmp(&a.depth))
            .then(a.head.cmp(&b.head))
    });
    out
}

/// A natural loop of a control-flow graph whose nodes are numbered `0..n`.
#[derive(Debug, Clone, PartialEq)]
pub struct NaturalLoop {
    /// The node the back edges go to.
    pub header: usize,
    /// The header and every node that reaches a back-edge source without
    /// passing through the header.
    pub blocks: BTreeSet<usize>,
    /// Sources of the back edges to `header`, ascending.
    pub back_edge_sources: Vec<usize>,
    /// How many other loops strictly contain this one (0 = outermost).
    pub depth: u32,
}

/// The natural loops of a graph (`succ[b]`, `pred[b]`: the edges out of and
/// into node `b`), one per header, ordered by header. `roots` are the entry
/// nodes; nodes none of them reaches are entered at the lowest such node.
/// A back edge `u → h` is one whose target dominates its source; both the
/// dynamic runs' observed graph ([`find_loops`]) and static analysis of a
/// function's decoded code use this.
pub fn natural_loops(succ: &[Vec<usize>], pred: &[Vec<usize>], mut roots: Vec<usize>) -> Vec<NaturalLoop> {
    let n = succ.len();
    // Cycles nothing was seen entering: enter at their lowest block.
    let mut reached = vec![false; n];
    mark_reachable(succ, &roots, &mut reached);
    for b in 0..n {
        if !reached[b] {
            roots.push(b);
            mark_reachable(succ, &[b], &mut reached);
        }
    }

    let idom = dominators(succ, pred, &roots, n);
    // Dominator-tree intervals: h dominates u iff u's interval nests in h's.
    let (tin, tout) = tree_intervals(&idom);
    let dominates = |h: usize, u: usize| tin[h] <= tin[u] && tout[u] <= tout[h];

    // Back edges grouped by header, and each header's natural loop.
    let mut loops: BTreeMap<usize, (BTreeSet<usize>, Vec<usize>)> = BTreeMap::new();
    for (u, targets) in succ.iter().enumerate() {
        for &h in targets {
            if dominates(h, u) {
                let entry = loops
                    .entry(h)
                    .or_insert_with(|| (BTreeSet::from([h]), Vec::new()));
                entry.1.push(u);
                let mut stack = vec![u];
                while let Some(x) = stack.pop() {
                    if entry.0.insert(x) {
                        stack.extend(pred[x].iter().copied());
                    }
                }
            }
        }
    }

    // Depth: how many larger loops hold this loop's header. (Natural loops of
    // distinct headers are nested or disjoint.)
    let mut depth_of: HashMap<usize, u32> = HashMap::new();
    for (&h, (blocks, _)) in &loops {
        for &x in blocks {
            if x != h {
                if let Some((inner, _)) = loops.get(&x) {
                    if inner.len() < blocks.len() {
                        *depth_of.entry(x).or_default() += 1;
                    }
                }
            }
        }
    }
    loops
        .into_iter()
        .map(|(header, (blocks, mut back_edge_sources))| {
            back_edge_sources.sort_unstable();
            back_edge_sources.dedup();
            NaturalLoop { header, blocks, back_edge_sources, depth: depth_of.get(&header).copied().unwrap_or(0) }
        })
        .collect()
}

/// Entry and exit times of a depth-first walk of the dominator tree given by
/// `idom` (roots are their own idom).
fn tree_intervals(idom: &[Option<usize>]) -> (Vec<usize>, Vec<usize>) {
    let n = idom.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut tree_roots = Vec::new();
    for (b, d) in idom.iter().enumerate() {
        match *d {
            Some(d) if d != b => children[d].push(b),
            _ => tree_roots.push(b),
        }
    }
    let (mut tin, mut tout) = (vec![0; n], vec![0; n]);
    let mut clock = 0;
    for r in tree_roots {
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        tin[r] = clock;
        clock += 1;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&c) = children[b].get(*k) {
                *k += 1;
                tin[c] = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                tout[b] = clock;
                clock += 1;
                stack.pop();
            }
        }
    }
    (tin, tout)
}

/// Marks the blocks reachable from `roots` in `seen`.
fn mark_reachable(succ: &[Vec<usize>], roots: &[usize], seen: &mut [bool]) {
    let mut stack: Vec<usize> = roots.to_vec();
    while let Some(b) = stack.pop() {
        if !std::mem::replace(&mut seen[b], true) {
            stack.extend(succ[b].iter().copied());
        }
    }
}

/// Immediate dominators (Cooper, Harvey & Kennedy) with a virtual root above
/// `roots`; a root's idom is itself, everything must be reachable.
fn dominators(
    succ: &[Vec<usize>],
    pred: &[Vec<usize>],
    roots: &[usize],
    n: usize,
) -> Vec<Option<usize>> {
    // Reverse postorder from the virtual root `n`.
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    for &r in roots {
        if visited[r] {
            continue;
        }
        visited[r] = true;
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&s) = succ[b].get(*k) {
                *k += 1;
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
    }
    order.reverse();
    let mut rpo = vec![usize::MAX; n + 1];
    for (i, &b) in order.iter().enumerate() {
        rpo[b] = i + 1;
    }
    rpo[n] = 0;
    let is_root: Vec<bool> = {
        let mut v = vec![false; n];
        for &r in roots {
            v[r] = true;
        }
        v
    };

    // idom over n + 1 nodes; index n is the virtual root.
    let mut idom: Vec<Option<usize>> = vec![None; n + 1];
    idom[n] = Some(n);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while rpo[a] > rpo[b] {
                a = idom[a].expect("processed");
            }
            while rpo[b] > rpo[a] {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let preds = pred[b].iter().copied().chain(is_root[b].then_some(n));
            let mut new: Option<usize> = None;
            for p in preds {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    // Map the virtual root back: blocks immediately under it dominate
    // themselves only.
    (0..n)
        .map(|b| match idom[b] {
            Some(d) if d == n => Some(b),
            other => other,
        })
        .collect()
}
