//! Tables: the per-instruction resource table coloured like Gus Table 1, the
//! hottest loop, the hotspots with annotated source.

use super::{esc, heat_bg, num, PAGE_ROWS};

/// Rows rendered per table at most; the page stays light for any run size.
const MAX_ROWS: usize = 5000;

/// Rows of the function and source-line tables: the first ones from
/// [`MIN_ROW_SHARE`] of the cycles (the text report's rule).
const MAX_SUMMARY_ROWS: usize = 20;
use crate::dynamic_text::MIN_ROW_SHARE;
use serde_json::Value;
use std::fmt::Write;

pub fn instructions(o: &mut String, r: &Value) {
    if let Some(rows) = r["instructions"].as_array().filter(|a| !a.is_empty()) {
        o.push_str("<section id=\"instructions\"><h2>Per-instruction resource usage</h2><p class=\"muted\">Share of each resource's capacity used by each instruction in steady state (Gus Table 1). The top bottleneck's column is outlined.</p>");
        usage_table(o, rows, r, &[("uops", "uops"), ("latency", "lat")]);
        o.push_str("</section>\n");
    }
    if let Some(rows) = r["hot_instructions"].as_array().filter(|a| !a.is_empty()) {
        let _ = write!(o, "<section id=\"hot-instructions\"><h2>Hottest instructions</h2><table data-page=\"{PAGE_ROWS}\"><thead><tr><th class=\"l\">file</th><th class=\"l\">address</th><th class=\"l\">instruction</th><th>executions</th><th>cycles</th><th>share</th><th>mispredicts</th></tr></thead><tbody>");
        for h in rows.iter().take(MAX_ROWS) {
            let _ = write!(
                o,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"asm\">{}</td><td>{}</td><td>{}</td><td style=\"background:{}\">{:.1}%</td><td>{}</td></tr>",
                esc(crate::dynamic_text::file_of(h["dso"].as_str())),
                esc(h["address"].as_str().unwrap_or("")),
                esc(h["asm"].as_str().unwrap_or("")),
                crate::numbers::cycles(num(&h["executions"])),
                crate::numbers::cycles(num(&h["cycles"])),
                heat_bg(num(&h["share"]) * 2.0),
                num(&h["share"]) * 100.0,
                h["mispredicts"]
            );
        }
        o.push_str("</tbody></table></section>\n");
    }
}

/// The hottest loop's Gus Table 1, the rows that matter only: as in the text
/// report, at least [`MIN_ROW_SHARE`] of the loop's cycles or of a resource
/// (reports without per-row cycles show every row).
pub fn hottest_loop(o: &mut String, r: &Value) {
    let Some(rows) = r["hottest_loop"].as_array().filter(|a| !a.is_empty()) else { return };
    let head = r["hottest_loop_head"].as_str().unwrap_or("?");
    // the file the loop is in (its row of the loops); a static block's loop has none
    let place = match r["loops"].as_array().and_then(|ls| ls.iter().find(|l| l["head"].as_str() == Some(head) && l.get("dso").is_some())) {
        Some(l) => format!("0x{head} in {}", crate::dynamic_text::file_of(l["dso"].as_str())),
        None => head.to_string(),
    };
    let _ = write!(o, "<section id=\"hottest-loop\"><h2>Hottest loop (head {})</h2>", esc(&place));
    let matters = |row: &Value| {
        !row["share"].is_number()
            || num(&row["share"]) >= MIN_ROW_SHARE
            || row["usage"].as_object().is_some_and(|u| u.values().any(|x| num(x) >= MIN_ROW_SHARE))
    };
    let shown: Vec<Value> = rows.iter().filter(|row| matters(row)).cloned().collect();
    usage_table(o, &shown, r, &[("executions", "executions"), ("share", "cycles"), ("uops", "uops"), ("latency", "lat")]);
    if shown.len() < rows.len() {
        let _ = write!(
            o,
            "<p class=\"muted\" id=\"hidden-loop-rows\">{} of the loop's {} instructions hidden: each takes less than {:.1}% of the loop's cycles and of every resource (the JSON report has them).</p>",
            rows.len() - shown.len(),
            rows.len(),
            MIN_ROW_SHARE * 100.0
        );
    }
    o.push_str("</section>\n");
}

/// The functions of a run by cycles, with their IPC and the verdict's first
/// cause for them (their own hotspot verdict, else their hottest loop's, as
/// the text report's `top_cause`).
pub fn functions(o: &mut String, r: &Value) {
    let Some(rows) = r["functions"].as_array().filter(|a| !a.is_empty()) else { return };
    let hotspots = r["verdict"]["hotspots"].as_array().map(|a| a.as_slice()).unwrap_or(&[]);
    let first_cause = |h: &Value| Some(h["verdict"]["causes"][0]["title"].as_str().unwrap_or(crate::dynamic_text::NO_CAUSE).to_string());
    let top_cause = |f: &str| -> Option<String> {
        hotspots.iter().find(|h| h["kind"] == "function" && h["name"] == f).and_then(first_cause).or_else(|| {
            r["loops"].as_array()?.iter().filter(|l| l["function"] == f).find_map(|l| {
                let name = format!("loop 0x{} ", l["head"].as_str()?);
                hotspots.iter().find(|h| h["kind"] == "loop" && h["name"].as_str().is_some_and(|n| n.starts_with(&name))).and_then(first_cause)
            })
        })
    };
    o.push_str("<section id=\"functions\"><h2>Functions</h2><table class=\"functions\"><thead><tr><th class=\"l\">function</th><th>share</th><th>cycles</th><th>instructions</th><th>IPC</th><th class=\"l\">top bottleneck (verdict)</th></tr></thead><tbody>");
    let shown: Vec<&Value> = rows.iter().filter(|f| num(&f["share"]) >= MIN_ROW_SHARE).take(MAX_SUMMARY_ROWS).collect();
    for f in &shown {
        let name = f["function"].as_str().unwrap_or("?");
        let cycles = num(&f["cycles"]);
        let instructions = num(&f["instructions"]);
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td style=\"background:{}\">{:.1}%</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(name),
            heat_bg(num(&f["share"]) * 2.0),
            num(&f["share"]) * 100.0,
            crate::numbers::cycles(cycles),
            crate::numbers::cycles(instructions),
            if cycles > 0.0 { format!("{:.2}", instructions / cycles) } else { "-".into() },
            esc(&top_cause(name).unwrap_or_else(|| "-".into()))
        );
    }
    o.push_str("</tbody></table>");
    if shown.len() < rows.len() {
        let rest = 1.0 - shown.iter().map(|f| num(&f["share"])).sum::<f64>();
        let _ = write!(o, "<p class=\"muted\">Other functions (each below {:.1}% or after the first {MAX_SUMMARY_ROWS}): {:.1}% of the cycles together.</p>", MIN_ROW_SHARE * 100.0, rest.max(0.0) * 100.0);
    }
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
    o.push_str("<table><thead><tr><th>#</th><th class=\"l\">head</th><th class=\"l\">range</th><th class=\"l\">function</th><th class=\"l\">source</th><th>depth</th><th>instructions</th><th>own</th><th>cycles/iteration</th><th>IPC</th><th class=\"l\">top bottleneck (verdict)</th><th>estimated share</th></tr></thead><tbody>");
    for l in loops {
        let text = |k: &str| esc(l[k].as_str().unwrap_or("-"));
        let _ = write!(
            o,
            "<tr{}><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}-{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td class=\"l\">{}</td><td style=\"background:{}\">{:.1}%{}</td></tr>",
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
            num(&l["report"]["ipc"]),
            esc(l["report"]["verdict"]["causes"][0]["title"].as_str().unwrap_or("-")),
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
            let text = match (*k, v) {
                (_, Value::Null) => String::new(),
                ("share", v) => format!("{:.1}%", num(v) * 100.0),
                (_, Value::Number(n)) if n.is_u64() => crate::numbers::count(n.as_u64().unwrap_or(0)),
                (_, v) => v.to_string(),
            };
            let _ = write!(o, "<td>{text}</td>");
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

/// Lines of context shown around each hot source line.
const CONTEXT_LINES: u64 = 3;

/// Hotspots by source line (the rows from [`MIN_ROW_SHARE`] of the cycles),
/// linked to the annotated source when it is embedded (`sources`: file → text,
/// added by the caller). Only the lines that matter are shown: those with
/// cycles and [`CONTEXT_LINES`] around them, the gaps collapsed to one line,
/// so that a C++ report does not carry whole headers.
pub fn hotspots(o: &mut String, r: &Value) {
    let Some(rows) = r["hotspots"].as_array().filter(|a| !a.is_empty()) else { return };
    o.push_str("<section id=\"hotspots\"><h2>Source lines</h2><table class=\"hotspots\"><thead><tr><th class=\"l\">source</th><th class=\"l\">function</th><th>share</th><th>cycles</th></tr></thead><tbody>");
    let shown: Vec<&Value> = rows.iter().filter(|h| num(&h["share"]) >= MIN_ROW_SHARE).take(MAX_SUMMARY_ROWS).collect();
    for h in &shown {
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
            "<tr><td class=\"l\">{src}</td><td class=\"l\">{}</td><td style=\"background:{}\">{:.1}%</td><td>{}</td></tr>",
            esc(h["function"].as_str().unwrap_or("?")),
            heat_bg(num(&h["share"]) * 2.0),
            num(&h["share"]) * 100.0,
            crate::numbers::cycles(num(&h["cycles"]))
        );
    }
    o.push_str("</tbody></table>");
    if shown.len() < rows.len() {
        let rest = 1.0 - shown.iter().map(|h| num(&h["share"])).sum::<f64>();
        let _ = write!(o, "<p class=\"muted\">Other lines (each below {:.1}% or after the first {MAX_SUMMARY_ROWS}): {:.1}% of the cycles together.</p>", MIN_ROW_SHARE * 100.0, rest.max(0.0) * 100.0);
    }
    if let Some(sources) = r["sources"].as_object() {
        for (file, text) in sources {
            let Some(text) = text.as_str() else { continue };
            source_excerpt(o, file, text, rows);
        }
    }
    o.push_str("</section>\n");
}

/// One source file: its lines with cycles and their context; each gap is one
/// `⋯ N lines` row. Nothing when no line of the file has cycles.
fn source_excerpt(o: &mut String, file: &str, text: &str, rows: &[Value]) {
    let mut share_of_line: std::collections::BTreeMap<u64, f64> = std::collections::BTreeMap::new();
    for h in rows.iter().filter(|h| h["file"].as_str() == Some(file) && num(&h["cycles"]) > 0.0) {
        if let Some(n) = h["line"].as_u64() {
            *share_of_line.entry(n).or_default() += num(&h["share"]);
        }
    }
    if share_of_line.is_empty() {
        return;
    }
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len() as u64;
    let shown = |n: u64| share_of_line.range(n.saturating_sub(CONTEXT_LINES)..=n + CONTEXT_LINES).next().is_some();
    let _ = write!(o, "<h3>{}</h3><pre class=\"src\">", esc(file));
    let mut gap = 0u64;
    for n in 1..=last {
        if !shown(n) {
            gap += 1;
            continue;
        }
        if gap > 0 {
            let _ = writeln!(o, "<span class=\"gap\">      ⋯ {gap} line{}</span>", if gap == 1 { "" } else { "s" });
            gap = 0;
        }
        let share = share_of_line.get(&n).copied().unwrap_or(0.0);
        let bg = if share > 0.0 { format!(" style=\"background:{}\"", heat_bg(share * 2.0)) } else { String::new() };
        let note = if share > 0.0 { format!("  // {:.1}% of cycles", share * 100.0) } else { String::new() };
        let _ = writeln!(o, "<span id=\"{}\" class=\"hot\"{bg}>{n:5}  {}{}</span>", anchor(file, n), esc(lines[n as usize - 1]), esc(&note));
    }
    if gap > 0 {
        let _ = writeln!(o, "<span class=\"gap\">      ⋯ {gap} line{}</span>", if gap == 1 { "" } else { "s" });
    }
    o.push_str("</pre>");
}

fn anchor(file: &str, line: u64) -> String {
    let f: String = file.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("src{f}-{line}")
}
