//! Tables: the per-instruction resource table coloured like Gus Table 1, the
//! hottest loop, the hotspots with annotated source.

use super::{esc, heat_bg, num, PAGE_ROWS};

/// Rows rendered per table at most; the page stays light for any run size.
const MAX_ROWS: usize = 5000;
use serde_json::Value;
use std::fmt::Write;

pub fn instructions(o: &mut String, r: &Value) {
    if let Some(rows) = r["instructions"].as_array().filter(|a| !a.is_empty()) {
        o.push_str("<section id=\"instructions\"><h2>Per-instruction resource usage</h2><p class=\"muted\">Share of each resource's capacity used by each instruction in steady state (Gus Table 1). The top bottleneck's column is outlined.</p>");
        usage_table(o, rows, r, &[("uops", "uops"), ("latency", "lat")]);
        o.push_str("</section>\n");
    }
    if let Some(rows) = r["hot_instructions"].as_array().filter(|a| !a.is_empty()) {
        let _ = write!(o, "<section id=\"hot-instructions\"><h2>Hottest instructions</h2><table data-page=\"{PAGE_ROWS}\"><thead><tr><th class=\"l\">address</th><th class=\"l\">instruction</th><th>executions</th><th>cycles</th><th>share</th><th>mispredicts</th></tr></thead><tbody>");
        for h in rows.iter().take(MAX_ROWS) {
            let _ = write!(
                o,
                "<tr><td class=\"l\">{}</td><td class=\"asm\">{}</td><td>{}</td><td>{:.0}</td><td style=\"background:{}\">{:.1}%</td><td>{}</td></tr>",
                esc(h["address"].as_str().unwrap_or("")),
                esc(h["asm"].as_str().unwrap_or("")),
                h["executions"],
                num(&h["cycles"]),
                heat_bg(num(&h["share"]) * 2.0),
                num(&h["share"]) * 100.0,
                h["mispredicts"]
            );
        }
        o.push_str("</tbody></table></section>\n");
    }
}

pub fn hottest_loop(o: &mut String, r: &Value) {
    let Some(rows) = r["hottest_loop"].as_array().filter(|a| !a.is_empty()) else { return };
    let head = r["hottest_loop_head"].as_str().unwrap_or("?");
    let _ = write!(o, "<section id=\"hottest-loop\"><h2>Hottest loop (head {})</h2>", esc(head));
    usage_table(o, rows, r, &[("executions", "executions"), ("uops", "uops"), ("latency", "lat")]);
    o.push_str("</section>\n");
}

/// The loops found in static code (`analyze` of a function or file): one row
/// each, the hottest by static estimate marked; the page's other sections are
/// the hottest loop's.
pub fn static_loops(o: &mut String, r: &Value) {
    let Some(loops) = r["loops"].as_array().filter(|a| a.first().is_some_and(|l| l.get("estimated_share").is_some())) else { return };
    let _ = write!(
        o,
        "<section id=\"loops\"><h2>Loops of {}</h2><p class=\"muted\">Each loop timed on its own instructions (inner loops excluded). Estimated share: {}. The sections below are the hottest loop's.</p>",
        esc(r["input"].as_str().unwrap_or("the input")),
        esc(r["loop_estimate"].as_str().unwrap_or(""))
    );
    o.push_str("<table><thead><tr><th>#</th><th class=\"l\">head</th><th class=\"l\">range</th><th class=\"l\">function</th><th class=\"l\">source</th><th>depth</th><th>instructions</th><th>own</th><th>cycles/iteration</th><th>estimated share</th></tr></thead><tbody>");
    for l in loops {
        let text = |k: &str| esc(l[k].as_str().unwrap_or("-"));
        let _ = write!(
            o,
            "<tr{}><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}-{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td style=\"background:{}\">{:.1}%{}</td></tr>",
            if l["hottest"] == Value::Bool(true) { " class=\"hottest\"" } else { "" },
            l["number"],
            text("head"),
            text("start"),
            text("end"),
            text("function"),
            text("source"),
            l["depth"],
            l["instructions"],
            l["own_instructions"],
            num(&l["cycles_per_iteration"]),
            heat_bg(num(&l["estimated_share"])),
            num(&l["estimated_share"]) * 100.0,
            if l["hottest"] == Value::Bool(true) { " (hottest)" } else { "" }
        );
    }
    o.push_str("</tbody></table></section>\n");
}

/// A Gus Table 1 style table: one column per resource, cells shaded by usage.
fn usage_table(o: &mut String, rows: &[Value], r: &Value, extra: &[(&str, &str)]) {
    let mut cols: Vec<(String, f64)> = Vec::new();
    for row in rows {
        if let Some(u) = row["usage"].as_object() {
            for (k, v) in u {
                match cols.iter_mut().find(|c| &c.0 == k) {
                    Some(c) => c.1 += num(v),
                    None => cols.push((k.clone(), num(v))),
                }
            }
        }
    }
    cols.sort_by(|a, b| b.1.total_cmp(&a.1));
    let top: Vec<String> = r["bottlenecks"][0]["resources"].as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default();
    if rows.len() > MAX_ROWS {
        let _ = write!(o, "<p class=\"muted\">Showing the first {MAX_ROWS} of {} rows (the JSON report has all of them).</p>", rows.len());
    }
    let rows = &rows[..rows.len().min(MAX_ROWS)];
    let _ = write!(o, "<table class=\"usage\" data-page=\"{PAGE_ROWS}\"><thead><tr><th class=\"l\">address</th><th class=\"l\">instruction</th>");
    for (_, label) in extra {
        let _ = write!(o, "<th>{label}</th>");
    }
    for (c, _) in &cols {
        let _ = write!(o, "<th{}>{}</th>", if top.contains(c) { " class=\"bottleneck\"" } else { "" }, esc(c));
    }
    o.push_str("</tr></thead><tbody>");
    for row in rows {
        let _ = write!(o, "<tr><td class=\"l\">{}</td><td class=\"asm\">{}</td>", esc(row["address"].as_str().unwrap_or("")), esc(row["asm"].as_str().unwrap_or("")));
        for (k, _) in extra {
            let v = &row[*k];
            let _ = write!(o, "<td>{}</td>", if v.is_null() { String::new() } else { v.to_string() });
        }
        for (c, _) in &cols {
            let u = num(&row["usage"][c]);
            let class = if top.contains(c) { " class=\"bottleneck\"" } else { "" };
            if u > 0.0 {
                let _ = write!(o, "<td{class} style=\"background:{}\">{:.0}%</td>", heat_bg(u * 3.0), u * 100.0);
            } else {
                let _ = write!(o, "<td{class}></td>");
            }
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>");
}

/// Hotspots by source line, linked to the annotated source when it is embedded
/// (`sources`: file → text, added by the caller).
pub fn hotspots(o: &mut String, r: &Value) {
    let Some(rows) = r["hotspots"].as_array().filter(|a| !a.is_empty()) else { return };
    o.push_str("<section id=\"hotspots\"><h2>Hotspots</h2><table class=\"hotspots\"><thead><tr><th class=\"l\">function</th><th class=\"l\">source</th><th>cycles</th><th>share</th></tr></thead><tbody>");
    for h in rows {
        let file = h["file"].as_str();
        let line = h["line"].as_u64();
        let src = match (file, line) {
            (Some(f), Some(l)) => {
                let short = f.rsplit('/').next().unwrap_or(f);
                if r["sources"][f].is_string() {
                    format!("<a href=\"#{}\">{}:{l}</a>", anchor(f, l), esc(short))
                } else {
                    format!("{}:{l}", esc(short))
                }
            }
            _ => "-".into(),
        };
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{src}</td><td>{:.0}</td><td style=\"background:{}\">{:.1}%</td></tr>",
            esc(h["function"].as_str().unwrap_or("?")),
            num(&h["cycles"]),
            heat_bg(num(&h["share"]) * 2.0),
            num(&h["share"]) * 100.0
        );
    }
    o.push_str("</tbody></table>");
    if let Some(sources) = r["sources"].as_object() {
        for (file, text) in sources {
            let Some(text) = text.as_str() else { continue };
            let _ = write!(o, "<h3>{}</h3><pre class=\"src\">", esc(file));
            for (i, l) in text.lines().enumerate() {
                let n = i as u64 + 1;
                let share: f64 = rows
                    .iter()
                    .filter(|h| h["file"].as_str() == Some(file) && h["line"].as_u64() == Some(n))
                    .map(|h| num(&h["share"]))
                    .sum();
                let bg = if share > 0.0 { format!(" style=\"background:{}\"", heat_bg(share * 2.0)) } else { String::new() };
                let note = if share > 0.0 { format!("  // {:.1}% of cycles", share * 100.0) } else { String::new() };
                let _ = writeln!(o, "<span id=\"{}\" class=\"hot\"{bg}>{n:5}  {}{}</span>", anchor(file, n), esc(l), esc(&note));
            }
            o.push_str("</pre>");
        }
    }
    o.push_str("</section>\n");
}

fn anchor(file: &str, line: u64) -> String {
    let f: String = file.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("src{f}-{line}")
}
