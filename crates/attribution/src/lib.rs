//! Aggregation of per-instruction statistics of a run to basic blocks, loops,
//! functions and source lines, and the hotspot tables built from them.
//!
//! Input comes from a program run (analysis's `program.rs`) as one [`InsnStat`] per static
//! instruction that executed. Names, lines and bytes come from a
//! [`Symbolize`]: the [`AddressSpace`] of a run (every file the guest mapped,
//! see [`GuestMapping`]) or one [`Program`] (an ELF file analyzed statically).
//! [`attribute`] does the rest.
//!
//! ```no_run
//! use bottlenose_attribution::{attribute, InsnStat, Program};
//! # fn stats() -> Vec<InsnStat> { vec![] }
//! let program = Program::open("a.out".as_ref())?;
//! let report = attribute(&stats(), Some(&program));
//! println!("{:?}", report.functions.first());
//! # Ok::<(), bottlenose_attribution::AttributionError>(())
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub mod blocks;
mod debugfile;
pub mod hotspots;
mod lines;
pub mod loops;
pub mod space;
pub mod symbols;
mod symtab;

pub use blocks::{basic_blocks, BlockInfo};
pub use hotspots::{by_function, by_line, Hotspot};
pub use loops::{find_loops, natural_loops, LoopInfo, NaturalLoop};
pub use space::{AddressSpace, GuestMapping, JIT, UNMAPPED};
pub use symbols::{Located, Program, SHARED, UNKNOWN};
pub use symtab::{demangle, NamedFunction};

/// Names, source lines and bytes of executed code, by runtime address.
pub trait Symbolize {
    /// The function (or code region) holding `addr`, as tables name it.
    fn label(&self, addr: u64) -> String;
    /// Start of the function symbol covering `addr` (`None` for code no
    /// symbol covers).
    fn symbol_start(&self, addr: u64) -> Option<u64>;
    /// Source `(file, line)` of `addr`.
    fn line_at(&self, addr: u64) -> Option<(String, u32)>;
    /// Where the function covering `addr` is declared (see
    /// [`Program::function_line`]).
    fn function_line(&self, addr: u64) -> Option<(String, u32)>;
    /// Up to `max_len` bytes of code at `addr`.
    fn bytes_at(&self, addr: u64, max_len: usize) -> Option<&[u8]>;
    /// The file holding `addr` and the address objdump shows for it there.
    fn dso_address(&self, addr: u64) -> Option<(&str, u64)>;
}

impl Symbolize for Program {
    /// The symbol, `FILE+0xSTART` for stripped code, [`SHARED`] outside the file.
    fn label(&self, addr: u64) -> String {
        self.label_at(addr).unwrap_or_else(|| SHARED.to_string())
    }

    fn symbol_start(&self, addr: u64) -> Option<u64> {
        self.locate(addr).filter(|l| l.name.is_some()).map(|l| l.start)
    }

    fn line_at(&self, addr: u64) -> Option<(String, u32)> {
        Program::line_at(self, addr)
    }

    fn function_line(&self, addr: u64) -> Option<(String, u32)> {
        let name = self.locate(addr)?.name?;
        Program::function_line(self, name)
    }

    fn bytes_at(&self, addr: u64, max_len: usize) -> Option<&[u8]> {
        Program::bytes_at(self, addr, max_len)
    }

    fn dso_address(&self, addr: u64) -> Option<(&str, u64)> {
        self.contains(addr).then(|| (self.name(), self.file_address(addr)))
    }
}

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

/// The function name used for `addr` in every table: the symbolizer's label,
/// [`UNKNOWN`] without one.
pub fn function_label(symbols: Option<&dyn Symbolize>, addr: u64) -> String {
    symbols.map_or_else(|| UNKNOWN.to_string(), |s| s.label(addr))
}

pub(crate) fn share(cycles: f64, total: f64) -> f64 {
    if total > 0.0 {
        cycles / total
    } else {
        0.0
    }
}

/// Aggregates a run's per-instruction statistics. `symbols` names functions
/// and lines; without it every function is [`UNKNOWN`] and lines are `None`.
pub fn attribute(stats: &[InsnStat], symbols: Option<&dyn Symbolize>) -> Attribution {
    let program = symbols;
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
