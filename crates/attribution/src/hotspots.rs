//! Hotspot tables: cycles aggregated per function and per source line.

use std::collections::HashMap;

use serde::Serialize;

use crate::symbols::{Program, SHARED, UNKNOWN};
use crate::{function_label, share, InsnStat};

/// One row of a hotspot table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hotspot {
    /// Function symbol, `[shared]` outside the main executable, `[unknown]`
    /// inside it without a covering symbol or when no program is known.
    pub function: String,
    /// Source file: for a function row, where the function starts; for a line
    /// row, the line's file. `None` when unknown.
    pub file: Option<String>,
    /// Source line (function rows: the function's declaration line, see
    /// [`Program::function_line`]).
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
    program: Option<&Program>,
    total_cycles: f64,
) -> Vec<Hotspot> {
    let mut accs: HashMap<&str, Acc> = HashMap::new();
    for i in insns {
        accs.entry(function_label(program, i.vaddr))
            .or_default()
            .add(i);
    }
    let mut rows: Vec<Hotspot> = accs
        .into_iter()
        .map(|(name, a)| {
            let loc = match program {
                Some(p) if name != SHARED && name != UNKNOWN => p.function_line(name),
                _ => None,
            };
            a.row(name, loc, total_cycles)
        })
        .collect();
    sort(&mut rows);
    rows
}

/// Cycles per (function, file, line), sorted by cycles descending.
/// Instructions without line information are gathered in one row per function
/// with `file` and `line` `None`, so the rows always add up to the total.
pub fn by_line(insns: &[InsnStat], program: Option<&Program>, total_cycles: f64) -> Vec<Hotspot> {
    type Key<'a> = (&'a str, Option<(String, u32)>);
    let mut accs: HashMap<Key<'_>, Acc> = HashMap::new();
    for i in insns {
        let loc = program.and_then(|p| p.line_at(i.vaddr));
        accs.entry((function_label(program, i.vaddr), loc))
            .or_default()
            .add(i);
    }
    let mut rows: Vec<Hotspot> = accs
        .into_iter()
        .map(|((name, loc), a)| a.row(name, loc, total_cycles))
        .collect();
    sort(&mut rows);
    rows
}
