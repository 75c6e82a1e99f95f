//! Terminal view of a dynamic run: summary, bottlenecks, stall causes, caches
//! and branches, hottest instructions.

use crate::table::Table;
use bottlenose_analysis::dynamic::DynamicReport;
use std::fmt::Write;

pub fn render_dynamic(r: &DynamicReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Run of {} on {} ({}{})", r.program, r.machine, r.exit, if r.complete { "" } else { ", partial" });
    let _ = writeln!(
        o,
        "  region: {} — {} instructions simulated of {} executed, {} static",
        r.roi.description, r.instructions_simulated, r.instructions_executed, r.static_instructions
    );
    let _ = writeln!(o, "  cycles {:.0}   IPC {:.2}   prefetcher {}", r.cycles, r.ipc, r.prefetcher);
    if !r.acceleration.is_empty() {
        let what: Vec<String> = r.acceleration.iter().map(|a| format!("{} x{}", a.resource, a.weight)).collect();
        let _ = writeln!(o, "  what-if core: {} (every figure below is for this core, not {} as described)", what.join(", "), r.machine);
    }
    let b = &r.functional.branches;
    let _ = writeln!(o, "  branches {} (mispredicted {}), {}", b.branches, b.mispredicts, cache_line(r));
    o.push('\n');
    o.push_str(&crate::verdict_text::render_verdict(&r.verdict));

    o.push_str("Bottlenecks (speedup if only this resource were faster):\n");
    if let Some(sm) = &r.sensitivity_sampling {
        let _ = writeln!(o, "  (sampled: variants timed on one window of {} instructions in every {})", sm.window_instructions, sm.every);
    }
    if r.bottlenecks.is_empty() {
        o.push_str(if r.sensitivity.is_empty() { "  (sensitivity analysis not run)\n" } else { "  none found at this weight\n" });
    }
    for b in r.bottlenecks.iter().take(10) {
        let _ = writeln!(o, "  {:<24} {:+6.1}% at +{:.0}%", b.resources.join("+"), b.speedup * 100.0, (b.weight - 1.0) * 100.0);
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

    o.push_str(&crate::accounting_text::render_accounting(&r.accounting));

    if !r.hotspots.is_empty() {
        let mut t = Table::new(&["function", "source", "cycles", "share"]).left(0).left(1);
        for h in r.hotspots.iter().take(10) {
            let src = match (&h.file, h.line) {
                (Some(f), Some(l)) => format!("{}:{l}", f.rsplit('/').next().unwrap_or(f)),
                _ => "-".into(),
            };
            t.row(vec![h.function.clone(), src, format!("{:.0}", h.cycles), format!("{:.1}%", h.share * 100.0)]);
        }
        o.push_str("Hotspots (source lines):\n");
        for l in t.render().lines() {
            let _ = writeln!(o, "  {l}");
        }
        o.push('\n');
    }
    let hottest = r.loops.iter().find(|l| Some(&l.head) == r.hottest_loop_head.as_ref());
    if let (Some(l), false) = (hottest, r.hottest_loop.is_empty()) {
        let _ = writeln!(
            o,
            "Hottest loop at {} in {} ({} iterations, {:.1}% of cycles): resource usage per instruction",
            l.head,
            l.function.as_deref().unwrap_or("?"),
            l.iterations,
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
        let mut header = vec!["address", "instruction", "uops", "lat"];
        header.extend(cols.iter().map(|c| c.0.as_str()));
        let mut t = Table::new(&header).left(0).left(1);
        for row in &r.hottest_loop {
            let mut cells = vec![row.address.clone(), row.asm.clone(), row.uops.to_string(), format!("{}", row.latency)];
            for (g, _) in &cols {
                cells.push(row.usage.get(g).map(|u| format!("{:.0}%", u * 100.0)).unwrap_or_else(|| "-".into()));
            }
            t.row(cells);
        }
        let mut total = vec![String::new(), "total".to_string(), String::new(), String::new()];
        total.extend(cols.iter().map(|c| format!("{:.0}%", c.1 * 100.0)));
        t.row(total);
        for line in t.render().lines() {
            let _ = writeln!(o, "  {line}");
        }
        o.push('\n');
    }

    let mut t = Table::new(&["address", "instruction", "executions", "cycles", "share", "mispredicts"]).left(0).left(1);
    for h in r.hot_instructions.iter().take(15) {
        t.row(vec![
            h.address.clone(),
            h.asm.clone(),
            h.executions.to_string(),
            format!("{:.0}", h.cycles),
            format!("{:.1}%", h.share * 100.0),
            h.mispredicts.to_string(),
        ]);
    }
    o.push_str("Hottest instructions (cycles charged at retirement):\n");
    for l in t.render().lines() {
        let _ = writeln!(o, "  {l}");
    }
    o
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
