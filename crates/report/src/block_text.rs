//! Terminal view of a static block analysis: summary, bottlenecks, sensitivity,
//! resource usage and the per-instruction resource table (Gus Table 1).

use crate::table::Table;
use bottlenose_report_model::BlockReport;
use std::fmt::Write;

pub fn render_block(r: &BlockReport) -> String {
    render_block_parts(r, true)
}

/// The block's report; without its verdict when the reader has just seen it
/// (the hottest loop's, at the top of `analyze` of a function).
pub(crate) fn render_block_parts(r: &BlockReport, with_verdict: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Block {} on {} ({} instructions, {} iterations)", r.block, r.machine, r.instructions_per_iteration, crate::numbers::count(r.iterations as u64));
    let _ = writeln!(
        o,
        "  cycles/iteration {:.2}   IPC {:.2}   total cycles {}",
        r.cycles_per_iteration, r.ipc, crate::numbers::cycles(r.total_cycles)
    );
    if r.unsupported_instructions.count > 0 {
        let _ = writeln!(
            o,
            "  warning: {} instruction(s) not in the {} table, timed with the default form: {}",
            r.unsupported_instructions.count,
            r.machine,
            r.unsupported_instructions.forms.iter().map(|f| f.form.as_str()).collect::<Vec<_>>().join("; ")
        );
    }
    for a in &r.assumptions {
        let _ = writeln!(o, "  assumed: {} at {}: {}", a.asm, a.address, a.assumption);
    }
    o.push('\n');
    if with_verdict {
        o.push_str(&crate::verdict_text::render_verdict(&r.verdict));
    } else {
        o.push_str("Verdict: above.\n\n");
    }

    o.push_str("Bottlenecks (speedup if only this resource were faster):\n");
    if r.bottlenecks.is_empty() {
        if r.sensitivity.is_empty() {
            o.push_str("  (sensitivity analysis not run)\n");
        } else {
            o.push_str("  none: no single resource or set speeds this block up (balanced or fully dependent on its inputs)\n");
        }
    }
    for b in &r.bottlenecks {
        let _ = writeln!(
            o,
            "  {:<24} {:+6.1}% at +{:.0}%   {:+6.1}% at x{}",
            b.resources.join("+"),
            b.speedup * 100.0,
            (b.weight - 1.0) * 100.0,
            b.max_speedup * 100.0,
            trim(b.max_weight)
        );
    }
    o.push('\n');

    if !r.sensitivity.is_empty() {
        let mut weights: Vec<f64> = r.sensitivity.iter().map(|p| p.weight).collect();
        weights.sort_by(f64::total_cmp);
        weights.dedup();
        let shown: Vec<f64> = pick_weights(&weights);
        let mut header = vec!["resource".to_string()];
        header.extend(shown.iter().map(|w| if *w < 1.5 { format!("+{:.0}%", (w - 1.0) * 100.0) } else { format!("x{}", trim(*w)) }));
        let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut t = Table::new(&hdr).left(0);
        let mut sets: Vec<&Vec<String>> = Vec::new();
        for p in &r.sensitivity {
            if !sets.contains(&&p.resources) {
                sets.push(&p.resources);
            }
        }
        for s in sets {
            let mut row = vec![s.join("+")];
            for w in &shown {
                let sp = r.sensitivity.iter().find(|p| &p.resources == s && (p.weight - w).abs() < 1e-9).map(|p| p.speedup);
                row.push(sp.map(|v| format!("{:.1}%", if v.abs() < 5e-4 { 0.0 } else { v * 100.0 })).unwrap_or_default());
            }
            t.row(row);
        }
        o.push_str("Sensitivity (speedup when the resource is accelerated by the weight):\n");
        o.push_str(&indent(&t.render()));
        for p in r.sensitivity.iter().filter(|p| p.anomaly.is_some()) {
            let a = p.anomaly.as_ref().unwrap();
            let asm = r.instructions.get(a.delayed).map_or("?", |i| i.asm.as_str());
            let than = if a.compared_with_weight == 1.0 { "the baseline".to_string() } else { format!("at x{}", trim(a.compared_with_weight)) };
            let before = match a.port_waits_before {
                b if b < 0.005 => "which did not wait for a port".to_string(),
                b => format!("which waited for a port in {:.0}% of iterations", b * 100.0),
            };
            let _ = writeln!(
                o,
                "  note: {} at x{} ({:+.1}%) is slower than {than}: a scheduling anomaly of the model's greedy, in-order \
                 port booking. Uops made faster take {} earlier, and `{asm}` (instruction {}), {before}, now waits for {} \
                 in {:.0}% of iterations. A real scheduler issues the oldest ready uop first and shows this less.",
                p.resources.join("+"),
                trim(p.weight),
                p.speedup * 100.0,
                a.port_group,
                a.delayed,
                a.port_group,
                a.port_waits_after * 100.0
            );
        }
        o.push('\n');
    }

    o.push_str(&crate::accounting_text::render_accounting(&r.accounting));

    let mut t = Table::new(&["resource", "units", "uops/iter", "usage"]).left(0);
    let mut res = r.resources.clone();
    res.sort_by(|a, b| b.usage.total_cmp(&a.usage));
    for u in &res {
        t.row(vec![u.name.clone(), trim(u.capacity), format!("{:.2}", u.uops_per_iteration), format!("{:.0}%", u.usage * 100.0)]);
    }
    o.push_str("Resource usage (steady state):\n");
    o.push_str(&indent(&t.render()));
    o.push('\n');

    // Gus Table 1: per-instruction usage of the busiest resources
    let cols: Vec<String> = res.iter().filter(|u| u.name != "frontend" && u.usage > 0.0).take(8).map(|u| u.name.clone()).collect();
    let mut header = vec!["address", "instruction", "uops", "lat"];
    header.extend(cols.iter().map(String::as_str));
    header.push("ports");
    let mut t = Table::new(&header).left(0).left(1).left(header.len() - 1);
    for row in &r.instructions {
        let mut cells = vec![row.address.clone(), row.asm.clone(), row.uops.to_string(), trim(row.latency)];
        for c in &cols {
            cells.push(row.usage.get(c).map(|u| format!("{:.0}%", u * 100.0)).unwrap_or_else(|| "-".into()));
        }
        cells.push(if row.unknown_form { format!("{} (unknown form)", row.ports) } else { row.ports.clone() });
        t.row(cells);
    }
    o.push_str("Per-instruction resource usage (share of each resource's capacity):\n");
    o.push_str(&indent(&t.render()));
    o
}

fn pick_weights(all: &[f64]) -> Vec<f64> {
    let wanted = [1.01, 1.05, 1.10, 1.15, 2.0];
    let picked: Vec<f64> = all.iter().copied().filter(|w| wanted.iter().any(|x| (x - w).abs() < 1e-9)).collect();
    if picked.is_empty() || all.len() <= 6 {
        all.to_vec()
    } else {
        picked
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
