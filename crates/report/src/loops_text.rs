//! Terminal view of the loops found in static code: one row per loop, the
//! hottest by static estimate marked, then each loop's own report.

use crate::table::Table;
use bottlenose_analysis::{LoopAnalysis, ASSUMED_ITERATIONS_PER_ENTRY};
use std::fmt::Write;

pub fn render_loops(name: &str, loops: &[LoopAnalysis]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{name}: {} loop(s), each timed on its own instructions (inner loops excluded); `--whole` times everything as one loop body",
        loops.len()
    );
    let mut t = Table::new(&["#", "head", "range", "function", "source", "depth", "instr", "own", "cycles/iter", "est. share", ""])
        .left(3)
        .left(4)
        .left(10);
    for l in loops {
        t.row(vec![
            l.number.to_string(),
            format!("0x{}", l.head),
            format!("0x{}-0x{}", l.start, l.end),
            l.function.clone().unwrap_or_else(|| "-".into()),
            l.source.as_deref().map(|s| s.rsplit('/').next().unwrap_or(s).to_string()).unwrap_or_else(|| "-".into()),
            l.depth.to_string(),
            l.instructions.to_string(),
            l.own_instructions.to_string(),
            format!("{:.2}", l.cycles_per_iteration),
            format!("{:.1}%", l.estimated_share * 100.0),
            if l.hottest { "<- hottest".into() } else { String::new() },
        ]);
    }
    for line in t.render().lines() {
        let _ = writeln!(o, "  {line}");
    }
    let _ = writeln!(
        o,
        "  est. share: cycles/iteration x {ASSUMED_ITERATIONS_PER_ENTRY}^(depth+1), as if each loop ran {ASSUMED_ITERATIONS_PER_ENTRY} iterations per entry (a static guess, not a measurement: `bottlenose run` measures)"
    );
    o.push('\n');
    // the hottest first, then the others in address order
    for l in loops.iter().filter(|l| l.hottest).chain(loops.iter().filter(|l| !l.hottest)) {
        o.push_str(&crate::render_block(&l.report));
        o.push('\n');
    }
    o
}
