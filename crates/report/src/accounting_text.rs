//! Terminal view of the accounting views: the Top-Down tree (children of
//! unflagged nodes hidden, per hierarchical safety), the three CPI stacks side
//! by side, the FLOPS stack, Levinthal's cycle accounting and the
//! idealization experiments.

use crate::table::Table;
use bottlenose_report_model::sampling::TopDownInterval;
use bottlenose_report_model::{AccountingReport, SamplingSummary, TopDownNode, CPI_COMPONENTS, FLOPS_COMPONENTS};
use std::fmt::Write;

pub fn render_accounting(a: &AccountingReport) -> String {
    render_accounting_sampled(a, None)
}

/// The accounting views of a run; a sampled run's (`sampling`) with the
/// interval of every Top-Down node beside its value.
pub fn render_accounting_sampled(a: &AccountingReport, sampling: Option<&SamplingSummary>) -> String {
    let intervals: &[TopDownInterval] = sampling.map_or(&[], |s| &s.topdown);
    let mut o = String::new();
    if let Some(s) = &a.views_sampling {
        let _ = writeln!(
            o,
            "Views sampled: the first {} instructions counted exactly, then {} windows (1 batch in {}, each after a warm-up: {} instructions, {:.0} cycles); what follows from executions is exact, the rest is scaled to the run (--exact-views counts all).\n",
            s.exact_instructions, s.windows, s.period, s.counted_instructions, s.counted_cycles
        );
    }
    if !a.topdown.is_empty() {
        o.push_str("Top-Down (simulated counters through the yasin2014 metrics; <== flagged, children of unflagged nodes hidden):\n");
        if intervals.is_empty() {
            let _ = writeln!(o, "  {:<28} {:>6} {:<9} {:>10}", "", "value", "unit", "normalized");
        } else {
            let _ = writeln!(o, "  {:<28} {:>6} {:>6} {:<9} {:>10}", "", "value", "±", "unit", "normalized");
        }
        for n in &a.topdown {
            node(&mut o, n, 1, &n.name, intervals);
        }
        o.push_str("  value: the formula's, a fraction of its unit; normalized: the share of all slots, fitted inside the parent; bars draw it (20 # = 100 %)\n");
        if let Some(s) = sampling.filter(|_| !intervals.is_empty()) {
            let _ = writeln!(
                o,
                "  ±: half-width of the value's {:.1} % confidence interval (points of its unit), from the sampled windows, the cycles' interval and what priced code could hold; none: not estimable (fewer than two windows)",
                s.confidence * 100.0
            );
        }
        o.push('\n');
    }
    if let Some(v) = &a.vendor_topdown {
        let _ = writeln!(o, "Top-Down as the {} PMU reports it (the same simulated counters through the vendor's published metrics):", v.table);
        for n in &v.topdown {
            node(&mut o, n, 1, &n.name, &[]);
        }
        if v.topdown.iter().any(|n| n.value.is_some_and(|x| x < 0.0)) {
            o.push_str("  negative: Arm's formulas move 4 slot-cycles per mispredicted branch from Frontend and Backend Bound to Bad Speculation, more than this run lost there\n");
        }
        o.push('\n');
    }
    if let Some(st) = &a.cpi_stacks {
        let n = st.instructions.max(1) as f64;
        let _ = writeln!(o, "CPI stacks (cycles per instruction; each column sums to CPI {:.3}, W = {}):", st.cycles / n, trim(st.width));
        let mut t = Table::new(&["component", "dispatch", "issue", "commit", "dispatch%", "issue%", "commit%"]).left(0);
        for &c in CPI_COMPONENTS.iter() {
            let v = [st.dispatch[c], st.issue[c], st.commit[c]];
            if v.iter().all(|x| x.abs() < 5e-4 * st.cycles.max(1.0)) && c != "base" {
                continue;
            }
            let mut row = vec![c.to_string()];
            row.extend(v.iter().map(|x| format!("{:.3}", x / n)));
            row.extend(v.iter().map(|x| format!("{:.1}%", x * 100.0 / st.cycles.max(1e-9))));
            t.row(row);
        }
        o.push_str(&indent(&t.render()));
        o.push('\n');
    }
    if let (Some(f), Some(info)) = (&a.flops_stack, &a.flops) {
        let _ = writeln!(
            o,
            "FLOPS stack (double-precision flops per cycle, sums to the peak {}; achieved {:.2} flops/cycle over {} FP instructions):",
            trim(info.peak_flops_per_cycle),
            info.flops_per_cycle,
            info.fp_instructions
        );
        let parts: Vec<String> = FLOPS_COMPONENTS
            .iter()
            .filter_map(|k| f.get(*k).map(|v| (k, v)))
            .map(|(k, v)| format!("{k} {:.2} ({:.0}%)", v, v * 100.0 / info.peak_flops_per_cycle.max(1e-9)))
            .collect();
        let _ = writeln!(o, "  {}", parts.join(", "));
        o.push('\n');
    }
    if let Some(c) = &a.cycle_accounting {
        let pct = |x: f64| x * 100.0 / c.cycles.max(1e-9);
        let _ = writeln!(
            o,
            "Cycle accounting (Levinthal): cycles {:.0} = retired {:.0} ({:.1}%) + non-retired {:.0} + stalls {:.0} ({:.1}%)",
            c.cycles,
            c.retired,
            pct(c.retired),
            c.non_retired,
            c.stalls,
            pct(c.stalls)
        );
        let parts: Vec<String> = c
            .penalties
            .iter()
            .filter(|p| p.count > 0)
            .map(|p| format!("{} {} x {:.1} = {:.0}", p.event, p.count, p.penalty, p.cycles))
            .collect();
        let _ = writeln!(
            o,
            "  naive penalty sum: {} → {:.0} counted, unaccounted {:.0} ({:+.1}% of cycles)",
            if parts.is_empty() { "no penalty events".to_string() } else { parts.join(", ") },
            c.counted_stall_cycles,
            c.unaccounted,
            pct(c.unaccounted)
        );
        o.push('\n');
    }
    if !a.idealization.is_empty() {
        o.push_str("Idealization (actual CPI reduction vs. the matching component of each stack):\n");
        let mut t = Table::new(&["idealization", "cycles", "CPI reduction", "dispatch", "issue", "commit", "in bounds", "vs. sum of singles"]).left(0);
        for i in &a.idealization {
            t.row(vec![
                i.what.clone(),
                format!("{:.0}", i.cycles),
                format!("{:.3}", i.cpi_reduction),
                format!("{:.3}", i.components.dispatch),
                format!("{:.3}", i.components.issue),
                format!("{:.3}", i.components.commit),
                if i.within_bounds { "yes" } else { "no" }.to_string(),
                match (i.sum_of_singles, i.interaction) {
                    (Some(s), Some(d)) => format!("{s:.3} ({d:+.3})"),
                    _ => String::new(),
                },
            ]);
        }
        o.push_str(&indent(&t.render()));
        o.push('\n');
    }
    o
}

/// One node and, when flagged, its children; `path`: its labels from level 1
/// joined by `.`, as `intervals` (a sampled run's) name the nodes.
fn node(o: &mut String, n: &TopDownNode, depth: usize, path: &str, intervals: &[TopDownInterval]) {
    let v = n.value.map(|v| format!("{:6.1}", v * 100.0)).unwrap_or_else(|| "   n/a".into());
    let v = if intervals.is_empty() {
        v
    } else {
        match intervals.iter().find(|i| i.path == path).filter(|i| i.value.known()) {
            Some(i) => format!("{v} ±{:5.1}", i.value.half_width * 100.0),
            None => format!("{v}       "),
        }
    };
    let unit = n.unit.map(|u| u.to_string()).unwrap_or_else(|| "%".into());
    let norm = n.normalized.map(|v| format!("{:9.1}%", v * 100.0)).unwrap_or_default();
    let bar = n.normalized.map(|v| "#".repeat((v.clamp(0.0, 1.0) * 20.0).round() as usize)).unwrap_or_default();
    let line = format!(
        "{:indent$}{:<width$} {v} {unit:<9} {norm:>10}  {bar:<20}{}",
        "",
        n.name,
        if n.flagged { "  <==" } else { "" },
        indent = depth * 2,
        width = 30usize.saturating_sub(depth * 2).max(8)
    );
    let why = n.reason.as_deref().filter(|_| n.value.is_none()).map(|r| format!("  ({r})")).unwrap_or_default();
    let _ = writeln!(o, "{}{why}", line.trim_end());
    if n.flagged {
        for c in &n.children {
            node(o, c, depth + 1, &format!("{path}.{}", c.name), intervals);
        }
    }
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
