//! Hotspot tables: cycles aggregated per function and per source line.

use std::collections::HashMap;

use serde::Serialize;

use crate::{function_label, share, InsnStat, Symbolize};

/// One row of a hotspot table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hotspot {
    /// Function: `dso!symbol` in a run (`libc.so.6!memcpy`), `dso+0xSTART`
    /// for code no symbol covers, `[jit]` for anonymous memory; the bare
    /// symbol for one program analyzed statically; `[unknown]` when nothing
    /// is known.
    pub function: String,
    /// Source file: for a function row, where the function starts; for a line
    /// row, the line's file. `None` when unknown.
    pub file: Option<String>,
    /// Source line (function rows: the function's declaration line, see
    /// [`crate::Program::function_line`]).
    pub line: Option<u32>,
    /// Cycles attributed to the row.
    pub cycles: f64,
    /// `cycles` as a fraction of the run's total cycles.
    pub share: f64,
    /// Executed (dynamic) instructions.
    pub instructions: u64,
    /// Extra counters summed over the row.
    pub counters: [f64; 4],
}

#[derive(Default)]
struct Acc {
    cycles: f64,
    executions: u64,
    counters: [f64; 4],
}

impl Acc {
    fn add(&mut self, i: &InsnStat) {
        self.cycles += i.cycles;
        self.executions = self.executions.saturating_add(i.executions);
        for (a, c) in self.counters.iter_mut().zip(i.counters) {
            *a += c;
        }
    }

    /// The hotspot row of this accumulation.
    fn row(self, name: &str, loc: Option<(String, u32)>, total_cycles: f64) -> Hotspot {
        let (file, line) = loc.map_or((None, None), |(f, l)| (Some(f), Some(l)));
        Hotspot {
            function: name.to_string(),
            file,
            line,
            cycles: self.cycles,
            share: share(self.cycles, total_cycles),
            instructions: self.executions,
            counters: self.counters,
        }
    }
}

fn sort(rows: &mut [Hotspot]) {
    rows.sort_by(|a, b| {
        b.cycles
            .total_cmp(&a.cycles)
            .then_with(|| a.function.cmp(&b.function))
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.line.cmp(&b.line))
    });
}

/// Cycles per function, sorted by cycles descending.
pub fn by_function(
    insns: &[InsnStat],
    symbols: Option<&dyn Symbolize>,
    total_cycles: f64,
) -> Vec<Hotspot> {
    // label -> (an address in it, accumulation)
    let mut accs: HashMap<String, (u64, Acc)> = HashMap::new();
    for i in insns {
        accs.entry(function_label(symbols, i.vaddr))
            .or_insert_with(|| (i.vaddr, Acc::default()))
            .1
            .add(i);
    }
    let mut rows: Vec<Hotspot> = accs
        .into_iter()
        .map(|(name, (addr, a))| {
            let loc = symbols.and_then(|s| s.function_line(addr));
            a.row(&name, loc, total_cycles)
        })
        .collect();
    sort(&mut rows);
    rows
}

/// Cycles per (function, file, line), sorted by cycles descending.
/// Instructions without line information are gathered in one row per function
/// with `file` and `line` `None`, so the rows always add up to the total.
pub fn by_line(insns: &[InsnStat], symbols: Option<&dyn Symbolize>, total_cycles: f64) -> Vec<Hotspot> {
    type Key = (String, Option<(String, u32)>);
    let mut accs: HashMap<Key, Acc> = HashMap::new();
    for i in insns {
        let loc = symbols.and_then(|p| p.line_at(i.vaddr));
        accs.entry((function_label(symbols, i.vaddr), loc))
            .or_default()
            .add(i);
    }
    let mut rows: Vec<Hotspot> = accs
        .into_iter()
        .map(|((name, loc), a)| a.row(&name, loc, total_cycles))
        .collect();
    sort(&mut rows);
    rows
}
