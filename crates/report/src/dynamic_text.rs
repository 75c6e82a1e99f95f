//! Terminal view of a dynamic run, in the order a reader asks: what is slow
//! and why (the verdict), where (functions, source lines, the hottest loop),
//! then the views the verdict rests on and the hottest instructions.

use crate::numbers::{count, cycles};
use crate::table::Table;
use bottlenose_report_model::DynamicReport;
use bottlenose_report_model::verdict::HotspotKind;
use std::fmt::Write;

/// Rows of the function and source-line tables and of the hottest loop's table
/// below this share of their total are hidden (a line says how many).
pub const MIN_ROW_SHARE: f64 = 0.005;

/// What the function table says when a function's verdict found no cause.
pub const NO_CAUSE: &str = "no cause found";

/// Rows of the function and source-line tables at most.
const MAX_ROWS: usize = 10;

pub fn render_dynamic(r: &DynamicReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Run of {} on {} ({}{})", r.program, r.machine, r.exit, if r.complete { "" } else { ", partial" });
    let _ = writeln!(
        o,
        "  region: {} — {} instructions simulated of {} executed, {} static",
        r.roi.description,
        count(r.instructions_simulated),
        count(r.instructions_executed),
        count(r.static_instructions as u64)
    );
    match &r.sampling {
        Some(sm) if sm.cycles.known() => {
            let _ = writeln!(
                o,
                "  cycles {} ±{:.2} % (sampled, {:.1} % confidence)   IPC {:.2}   prefetcher {}",
                cycles(r.cycles),
                sm.cycles.relative() * 100.0,
                sm.confidence * 100.0,
                r.ipc,
                r.prefetcher
            );
        }
        Some(sm) => {
            let _ = writeln!(o, "  cycles {} (sampled, no interval: {} units measured)   IPC {:.2}   prefetcher {}", cycles(r.cycles), sm.units, r.ipc, r.prefetcher);
        }
        None => {
            let _ = writeln!(o, "  cycles {}   IPC {:.2}   prefetcher {}", cycles(r.cycles), r.ipc, r.prefetcher);
        }
    }
    if !r.acceleration.is_empty() {
        let what: Vec<String> = r.acceleration.iter().map(|a| format!("{} x{}", a.resource, a.weight)).collect();
        let _ = writeln!(o, "  what-if core: {} (every figure below is for this core, not {} as described)", what.join(", "), r.machine);
    }
    let b = &r.functional.branches;
    let _ = writeln!(o, "  branches {} (mispredicted {}), {}", count(b.branches), count(b.mispredicts), cache_line(r));
    o.push('\n');
    if let Some(sm) = &r.sampling {
        o.push_str(&crate::sampling_text::render_sampling(sm));
    }
    o.push_str(&crate::verdict_text::render_verdict(&r.verdict));
    functions(&mut o, r);
    source_lines(&mut o, r);
    hottest_loop(&mut o, r);

    o.push_str("Bottlenecks (speedup if only this resource were faster):\n");
    if let Some(sm) = &r.sensitivity_sampling {
        let _ = writeln!(o, "  (sampled: variants timed on one window of {} instructions in every {})", count(sm.window_instructions), sm.every);
    }
    if r.bottlenecks.is_empty() {
        o.push_str(if r.sensitivity.is_empty() { "  (sensitivity analysis not run)\n" } else { "  none found at this weight\n" });
    }
    for b in r.bottlenecks.iter().take(10) {
        // a sampled run's interval on the speedup
        let interval = r
            .sampling
            .as_ref()
            .and_then(|sm| sm.sensitivity.iter().find(|x| x.resources == b.resources && x.weight == b.weight))
            .filter(|x| x.speedup.known())
            .map(|x| format!(" ±{:.1}", x.speedup.half_width * 100.0))
            .unwrap_or_default();
        let _ = writeln!(o, "  {:<24} {:+6.1}%{interval} at +{:.0}%", b.resources.join("+"), b.speedup * 100.0, (b.weight - 1.0) * 100.0);
    }
    o.push('\n');

    o.push_str("Binding constraints (instructions):\n");
    for (stage, map) in [("dispatch", &r.stall_causes.dispatch), ("issue", &r.stall_causes.issue), ("commit", &r.stall_causes.commit)] {
        let total: u64 = map.values().sum::<u64>().max(1);
        let mut v: Vec<_> = map.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1));
        let parts: Vec<String> = v.iter().take(5).map(|(k, n)| format!("{k} {:.0}%", **n as f64 * 100.0 / total as f64)).collect();
        let _ = writeln!(o, "  {stage:<9} {}", parts.join(", "));
    }
    o.push('\n');

    o.push_str(&crate::accounting_text::render_accounting_sampled(&r.accounting, r.sampling.as_ref()));

    let mut t = Table::new(&["file", "address", "instruction", "executions", "cycles", "share", "mispredicts"]).left(0).left(1).left(2);
    for h in r.hot_instructions.iter().take(15) {
        t.row(vec![
            file_of(h.dso.as_deref()).to_string(),
            h.address.clone(),
            h.asm.clone(),
            count(h.executions),
            cycles(h.cycles),
            format!("{:.1}%", h.share * 100.0),
            count(h.mispredicts),
        ]);
    }
    o.push_str("Hottest instructions (cycles charged at retirement):\n");
    indent(&mut o, &t.render());
    o
}

/// The file an address of the report is in, as its tables name it: code
/// outside every file (anonymous memory) is JIT code, at its guest address.
pub fn file_of(dso: Option<&str>) -> &str {
    dso.unwrap_or(bottlenose_attribution::JIT)
}

/// The first cause the verdict gives for a function: its own hotspot verdict,
/// else that of its hottest loop that has one ("no cause found" when the
/// verdict found none; `None` when there is no verdict: under 5 % of the cycles).
pub fn top_cause<'a>(r: &'a DynamicReport, function: &str) -> Option<&'a str> {
    let first = |v: &'a bottlenose_report_model::verdict::Verdict| Some(v.causes.first().map_or(NO_CAUSE, |c| c.title.as_str()));
    let own = r.verdict.hotspots.iter().find(|h| h.kind == HotspotKind::Function && h.name == function);
    own.and_then(|h| first(&h.verdict)).or_else(|| {
        r.loops.iter().filter(|l| l.function.as_deref() == Some(function)).find_map(|l| {
            let name = format!("loop 0x{} ", l.head);
            r.verdict.hotspots.iter().find(|h| h.kind == HotspotKind::Loop && h.name.starts_with(&name)).and_then(|h| first(&h.verdict))
        })
    })
}

fn functions(o: &mut String, r: &DynamicReport) {
    if r.functions.is_empty() {
        return;
    }
    let mut t = Table::new(&["function", "share", "cycles", "instructions", "IPC", "top bottleneck (verdict)"]).left(0).left(5);
    let shown: Vec<_> = r.functions.iter().filter(|f| f.share >= MIN_ROW_SHARE).take(MAX_ROWS).collect();
    for f in &shown {
        t.row(vec![
            f.function.clone(),
            format!("{:.1}%", f.share * 100.0),
            cycles(f.cycles),
            count(f.instructions),
            if f.cycles > 0.0 { format!("{:.2}", f.instructions as f64 / f.cycles) } else { "-".into() },
            top_cause(r, &f.function).unwrap_or("-").to_string(),
        ]);
    }
    o.push_str("Functions (by cycles):\n");
    indent(o, &t.render());
    hidden(o, shown.len() < r.functions.len(), 1.0 - shown.iter().map(|f| f.share).sum::<f64>(), "functions");
    // where the cycles are by file, and how much of a file has no symbol to name it
    let files: Vec<String> = r
        .files
        .iter()
        .filter(|f| f.share >= MIN_ROW_SHARE)
        .map(|f| {
            let unnamed = f.share - f.named_share;
            let note = if f.dso.is_some() && unnamed >= MIN_ROW_SHARE { format!(" ({:.1}% without a symbol, named file+0xSTART)", unnamed * 100.0) } else { String::new() };
            format!("{} {:.1}%{note}", file_of(f.dso.as_deref()), f.share * 100.0)
        })
        .collect();
    if !files.is_empty() {
        let _ = writeln!(o, "  by file: {}", files.join(", "));
    }
    o.push('\n');
}

fn source_lines(o: &mut String, r: &DynamicReport) {
    let shown: Vec<_> = r.hotspots.iter().filter(|h| h.share >= MIN_ROW_SHARE).take(MAX_ROWS).collect();
    if shown.is_empty() {
        return;
    }
    let mut t = Table::new(&["source", "function", "share", "cycles"]).left(0).left(1);
    for h in &shown {
        let src = match (&h.file, h.line) {
            (Some(f), Some(l)) => format!("{}:{l}", f.rsplit('/').next().unwrap_or(f)),
            _ => "-".into(),
        };
        t.row(vec![src, h.function.clone(), format!("{:.1}%", h.share * 100.0), cycles(h.cycles)]);
    }
    o.push_str("Source lines (by cycles):\n");
    indent(o, &t.render());
    hidden(o, shown.len() < r.hotspots.len(), 1.0 - shown.iter().map(|h| h.share).sum::<f64>(), "lines");
    o.push('\n');
}

/// Whether a row of the hottest loop's table is shown: it takes at least
/// [`MIN_ROW_SHARE`] of the loop's cycles (charged at retirement: mostly to the
/// instruction the others wait for) or of some resource's capacity (the work
/// the others do).
pub fn loop_row_matters(row: &bottlenose_report_model::LoopTableRow) -> bool {
    row.share >= MIN_ROW_SHARE || row.usage.values().any(|u| *u >= MIN_ROW_SHARE)
}

/// Gus Table 1 of the hottest loop: the instructions that matter
/// ([`loop_row_matters`]); the totals count every instruction.
fn hottest_loop(o: &mut String, r: &DynamicReport) {
    let Some(l) = r.loops.iter().find(|l| Some(&l.head) == r.hottest_loop_head.as_ref()) else { return };
    if r.hottest_loop.is_empty() {
        return;
    }
    let file = file_of(l.dso.as_deref());
    let _ = writeln!(
        o,
        "Hottest loop at 0x{} in {file}, function {} ({} iterations, {:.1}% of cycles): resource usage per instruction",
        l.head,
        l.function.as_deref().unwrap_or("?"),
        count(l.iterations),
        l.share * 100.0
    );
    let mut cols: Vec<(String, f64)> = Vec::new();
    for row in &r.hottest_loop {
        for (g, u) in &row.usage {
            match cols.iter_mut().find(|c| &c.0 == g) {
                Some(c) => c.1 += u,
                None => cols.push((g.clone(), *u)),
            }
        }
    }
    cols.sort_by(|a, b| b.1.total_cmp(&a.1));
    cols.truncate(8);
    // a loop is in one file: the column's title names it
    let address = format!("address in {file}");
    let mut header = vec![address.as_str(), "instruction", "cycles", "uops", "lat"];
    header.extend(cols.iter().map(|c| c.0.as_str()));
    let mut t = Table::new(&header).left(0).left(1);
    let shown: Vec<_> = r.hottest_loop.iter().filter(|row| loop_row_matters(row)).collect();
    for row in &shown {
        let mut cells = vec![row.address.clone(), row.asm.clone(), format!("{:.1}%", row.share * 100.0), row.uops.to_string(), format!("{}", row.latency)];
        for (g, _) in &cols {
            cells.push(row.usage.get(g).map(|u| format!("{:.0}%", u * 100.0)).unwrap_or_else(|| "-".into()));
        }
        t.row(cells);
    }
    let mut total = vec![String::new(), "total (all instructions)".to_string(), String::new(), String::new(), String::new()];
    total.extend(cols.iter().map(|c| format!("{:.0}%", c.1 * 100.0)));
    t.row(total);
    indent(o, &t.render());
    let rest = r.hottest_loop.len() - shown.len();
    if rest > 0 {
        let _ = writeln!(
            o,
            "  ({rest} of its {} instructions hidden: each below {:.1}% of the loop's cycles and of every resource; the JSON report has them)",
            r.hottest_loop.len(),
            MIN_ROW_SHARE * 100.0
        );
    }
    o.push('\n');
}

/// The line under a table cut at [`MIN_ROW_SHARE`] or [`MAX_ROWS`]: what the other rows hold.
fn hidden(o: &mut String, cut: bool, rest: f64, what: &str) {
    if cut {
        let _ = writeln!(o, "  (other {what}, each below {:.1}% or after the first {MAX_ROWS}: {:.1}% of the cycles together)", MIN_ROW_SHARE * 100.0, rest.max(0.0) * 100.0);
    }
}

fn indent(o: &mut String, text: &str) {
    for l in text.lines() {
        let _ = writeln!(o, "  {l}");
    }
}

fn cache_line(r: &DynamicReport) -> String {
    let parts: Vec<String> = r
        .functional
        .caches
        .levels
        .iter()
        .map(|l| format!("{} {:.1}% miss", l.name, if l.accesses > 0 { l.misses as f64 * 100.0 / l.accesses as f64 } else { 0.0 }))
        .collect();
    parts.join(", ")
}
