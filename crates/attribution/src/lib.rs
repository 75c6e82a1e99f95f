//! Aggregation of per-instruction statistics of a run to basic blocks, loops,
//! functions and source lines, and the hotspot tables built from them.
//!
//! Input comes from the dynamic driver as one [`InsnStat`] per static
//! instruction that executed; the main executable is described by a
//! [`Program`] (ELF symbols, DWARF line table, load bias — see
//! [`detect_bias`] for PIE programs under QEMU user mode). [`attribute`] does
//! the rest.
//!
//! ```no_run
//! use bottlenose_attribution::{attribute, detect_bias, InsnStat, Program};
//! # fn stats() -> Vec<InsnStat> { vec![] }
//! # fn seen() -> Vec<(u64, Vec<u8>)> { vec![] }
//! let mut program = Program::open("a.out".as_ref())?;
//! let seen = seen();
//! if let Some(bias) = detect_bias(&program, seen.iter().map(|(a, b)| (*a, b.as_slice()))) {
//!     program.set_load_bias(bias);
//! }
//! let report = attribute(&stats(), Some(&program));
//! println!("{:?}", report.functions.first());
//! # Ok::<(), bottlenose_attribution::AttributionError>(())
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub mod bias;
pub mod blocks;
pub mod hotspots;
mod lines;
pub mod loops;
pub mod symbols;

pub use bias::detect_bias;
pub use blocks::{basic_blocks, BlockInfo};
pub use hotspots::{by_function, by_line, Hotspot};
pub use loops::{find_loops, natural_loops, LoopInfo, NaturalLoop};
pub use symbols::{Program, SHARED, UNKNOWN};

/// Errors opening a program.
#[derive(Debug, thiserror::Error)]
pub enum AttributionError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not an ELF file.
    #[error("{}: not an ELF file ({detail})", path.display())]
    NotElf { path: PathBuf, detail: String },
    /// The file looks like ELF but could not be parsed.
    #[error("{}: malformed ELF: {message}", path.display())]
    Parse { path: PathBuf, message: String },
}

/// Statistics of one static instruction that executed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InsnStat {
    /// Guest virtual (runtime) address.
    pub vaddr: u64,
    /// Length in bytes.
    pub len: u8,
    /// How many times it executed.
    pub executions: u64,
    /// Cycles attributed to it over the run.
    pub cycles: f64,
    /// Extra counters (cache misses, mispredicts…), meaning fixed by the driver.
    pub counters: [f64; 4],
    /// Whether it is a branch (jumps, calls, returns).
    pub is_branch: bool,
    /// Distinct taken targets observed (at most 4).
    pub taken_targets: Vec<u64>,
}

impl InsnStat {
    /// Address just past the instruction.
    pub fn end(&self) -> u64 {
        self.vaddr.wrapping_add(u64::from(self.len.max(1)))
    }
}

/// Everything [`attribute`] works out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    /// Per-function hotspots, by cycles descending.
    pub functions: Vec<Hotspot>,
    /// Per-source-line hotspots, by cycles descending.
    pub lines: Vec<Hotspot>,
    /// Basic blocks, by cycles descending.
    pub blocks: Vec<BlockInfo>,
    /// Loops, by cycles descending (`loops[0]` is the hottest).
    pub loops: Vec<LoopInfo>,
    /// Sum of all instructions' cycles.
    pub total_cycles: f64,
}

/// Sorts statistics by address and merges entries for the same address
/// (executions, cycles and counters summed, targets united, `len` and
/// `is_branch` from the first entry / any entry).
pub fn normalize(stats: &[InsnStat]) -> Vec<InsnStat> {
    let mut v: Vec<InsnStat> = stats.to_vec();
    v.sort_by_key(|i| i.vaddr);
    let mut out: Vec<InsnStat> = Vec::with_capacity(v.len());
    for i in v {
        match out.last_mut() {
            Some(last) if last.vaddr == i.vaddr => {
                last.executions = last.executions.saturating_add(i.executions);
                last.cycles += i.cycles;
                for (a, c) in last.counters.iter_mut().zip(i.counters) {
                    *a += c;
                }
                last.is_branch |= i.is_branch;
                for t in i.taken_targets {
                    if !last.taken_targets.contains(&t) {
                        last.taken_targets.push(t);
                    }
                }
            }
            _ => out.push(i),
        }
    }
    out
}

/// The function name used for `addr` in every table: the covering symbol,
/// [`SHARED`] outside the main executable, [`UNKNOWN`] inside it without a
/// symbol or when no program is given.
pub fn function_label(program: Option<&Program>, addr: u64) -> &str {
    match program {
        None => UNKNOWN,
        Some(p) => match p.function_at(addr) {
            Some(name) => name,
            None if p.contains(addr) => UNKNOWN,
            None => SHARED,
        },
    }
}

pub(crate) fn share(cycles: f64, total: f64) -> f64 {
    if total > 0.0 {
        cycles / total
    } else {
        0.0
    }
}

/// Aggregates a run's per-instruction statistics. `program` (with its load
/// bias already set) names functions and lines; without it every function is
/// [`UNKNOWN`] and lines are `None`.
pub fn attribute(stats: &[InsnStat], program: Option<&Program>) -> Attribution {
    let insns = normalize(stats);
    let total_cycles: f64 = insns.iter().map(|i| i.cycles).sum();
    let mut blocks = basic_blocks(&insns);
    blocks.sort_by(|a, b| b.cycles.total_cmp(&a.cycles).then(a.start.cmp(&b.start)));
    Attribution {
        functions: by_function(&insns, program, total_cycles),
        lines: by_line(&insns, program, total_cycles),
        blocks,
        loops: find_loops(&insns, program, total_cycles),
        total_cycles,
    }
}
