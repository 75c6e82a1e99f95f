//! Terminal view of the loops found in static code: one row per loop, the
//! hottest by static estimate marked, then each loop's own report.

use crate::table::Table;
use bottlenose_report_model::{LoopAnalysis, ASSUMED_ITERATIONS_PER_ENTRY};
use std::fmt::Write;

pub fn render_loops(name: &str, loops: &[LoopAnalysis]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{name}: {} loop(s), each timed on its own instructions (inner loops excluded); `--whole` times everything as one loop body",
        loops.len()
    );
    o.push('\n');
    // the verdict first: the hottest loop's (the JSON's top-level verdict)
    let hottest = loops.iter().find(|l| l.hottest);
    if let Some(l) = hottest {
        o.push_str(&crate::verdict_text::render_verdict(&l.report.verdict));
    }
    let mut t = Table::new(&["#", "function", "source", "est. share", "cycles/iter", "IPC", "top bottleneck (verdict)", "head", "depth", "instr", "own", ""])
        .left(1)
        .left(2)
        .left(6)
        .left(11);
    for l in loops {
        t.row(vec![
            l.number.to_string(),
            l.function.clone().unwrap_or_else(|| "-".into()),
            l.source.as_deref().map(|s| s.rsplit('/').next().unwrap_or(s).to_string()).unwrap_or_else(|| "-".into()),
            format!("{:.1}%", l.estimated_share * 100.0),
            format!("{:.2}", l.cycles_per_iteration),
            format!("{:.2}", l.report.ipc),
            l.report.verdict.causes.first().map_or_else(|| "-".to_string(), |c| c.title.clone()),
            format!("0x{}", l.head),
            l.depth.to_string(),
            l.instructions.to_string(),
            l.own_instructions.to_string(),
            if l.hottest { "<- hottest".into() } else { String::new() },
        ]);
    }
    o.push_str("Loops (by function):\n");
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
        o.push_str(&crate::block_text::render_block_parts(&l.report, !l.hottest));
        o.push('\n');
    }
    o
}
