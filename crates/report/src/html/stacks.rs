//! CPI stacks at dispatch, issue and commit and the FLOPS stack as stacked
//! bars side by side, with the idealization experiments marked on them.

use super::{esc, num};
use serde_json::{Map, Value};
use std::fmt::Write;

const COLORS: &[&str] = &[
    "#4a90d9", "#e67e22", "#27ae60", "#c0392b", "#8e44ad", "#16a085", "#d35400", "#7f8c8d", "#f1c40f", "#2c3e50", "#e84393", "#00b894",
];

pub fn cpi_and_flops(o: &mut String, r: &Value) {
    let stacks = &r["cpi_stacks"];
    let stages: Vec<(&str, &Map<String, Value>)> =
        ["dispatch", "issue", "commit"].iter().filter_map(|s| stacks[*s].as_object().map(|m| (*s, m))).collect();
    let flops = r["flops_stack"].as_object().or_else(|| r["flops_stack"]["components"].as_object());
    if stages.is_empty() && flops.is_none() {
        return;
    }
    o.push_str("<section id=\"stacks\"><h2>CPI stacks and FLOPS stack</h2>");
    if !stages.is_empty() {
        let mut comps: Vec<String> = Vec::new();
        for (_, m) in &stages {
            for k in m.keys() {
                if !comps.contains(k) {
                    comps.push(k.clone());
                }
            }
        }
        let total = stages.iter().map(|(_, m)| m.values().map(num).sum::<f64>()).fold(1e-9, f64::max);
        let ideal: Vec<(String, f64)> = r["idealization"]
            .as_array()
            .map(|a| a.iter().filter(|i| num(&i["cycles"]) > 0.0).map(|i| (i["what"].as_str().unwrap_or("?").to_string(), num(&i["cycles"]))).collect())
            .unwrap_or_default();
        bars(o, "cpi", &stages.iter().map(|(s, m)| (s.to_string(), *m)).collect::<Vec<_>>(), &comps, total, "cycles", &ideal, total);
    }
    if let Some(f) = flops {
        let comps: Vec<String> = f.keys().cloned().collect();
        let total = f.values().map(num).sum::<f64>().max(1e-9);
        bars(o, "flops", &[("FLOPS".to_string(), f)], &comps, total, "flops/cycle", &[], total);
    }
    if let Some(ideal) = r["idealization"].as_array().filter(|a| !a.is_empty()) {
        o.push_str("<table id=\"idealization\"><thead><tr><th class=\"l\">idealization</th><th>cycles</th><th>CPI reduction</th><th>dispatch component</th><th>issue component</th><th>commit component</th><th>within bounds</th></tr></thead><tbody>");
        for i in ideal {
            let c = &i["components"];
            let _ = write!(
                o,
                "<tr><td class=\"l\">{}</td><td>{:.0}</td><td>{:.4}</td><td>{:.4}</td><td>{:.4}</td><td>{:.4}</td><td>{}</td></tr>",
                esc(i["what"].as_str().unwrap_or("?")),
                num(&i["cycles"]),
                num(&i["cpi_reduction"]),
                num(&c["dispatch"]),
                num(&c["issue"]),
                num(&c["commit"]),
                if i["within_bounds"] == Value::Bool(true) { "yes" } else { "no" }
            );
        }
        o.push_str("</tbody></table>");
    }
    o.push_str("</section>\n");
}

/// Width of a character at the charts' 11 px font, a wide one (sans-serif averages 0.5 em).
const TEXT_CHAR_PX: f64 = 6.6;

/// Vertical distance between two idealization labels (their font is 11 px).
const MARK_LABEL_PX: f64 = 14.0;

/// Vertical stacked bars; `marks` are (label, level) lines: where an idealized run's total lands.
#[allow(clippy::too_many_arguments)]
fn bars(o: &mut String, id: &str, bars: &[(String, &Map<String, Value>)], comps: &[String], total: f64, unit: &str, marks: &[(String, f64)], full: f64) {
    let (bw, gap, h, top, left) = (90.0, 40.0, 320.0, 20.0, 50.0);
    // the legend starts after the longest idealization label, and the picture ends after the longest component name
    let chars = |names: &mut dyn Iterator<Item = usize>| names.max().unwrap_or(0) as f64 * TEXT_CHAR_PX;
    let legend = (chars(&mut marks.iter().map(|m| m.0.chars().count())) + 20.0).max(130.0);
    let width = left + (bw + gap) * bars.len() as f64 + legend + 16.0 + chars(&mut comps.iter().map(|c| c.chars().count())) + 10.0;
    // each idealization label beside its line, pushed down just enough not to overlap the one above
    let mut labels: Vec<(f64, f64, &str)> = marks.iter().map(|(label, cut)| (top + h - cut.clamp(0.0, full) / total * h, 0.0, label.as_str())).collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut next_free = f64::MIN;
    for l in &mut labels {
        l.1 = (l.0 + 4.0).max(next_free);
        next_free = l.1 + MARK_LABEL_PX;
    }
    let height = (h + top + 40.0).max(next_free);
    let _ = write!(o, "<svg class=\"stack-chart\" id=\"{id}-chart\" width=\"{width}\" height=\"{height}\" role=\"img\">");
    let _ = write!(o, "<text x=\"4\" y=\"{}\">{}</text>", top - 8.0, esc(unit));
    for (i, (name, m)) in bars.iter().enumerate() {
        let x = left + (bw + gap) * i as f64;
        let mut y = top + h;
        for (ci, c) in comps.iter().enumerate() {
            let v = m.get(c).map(num).unwrap_or(0.0);
            if v <= 0.0 {
                continue;
            }
            let hh = v / total * h;
            y -= hh;
            let _ = write!(
                o,
                "<rect class=\"stack-seg\" data-stack=\"{}\" data-component=\"{}\" x=\"{x}\" y=\"{y:.1}\" width=\"{bw}\" height=\"{hh:.1}\" fill=\"{}\"><title>{}: {} {:.4} ({:.1}%)</title></rect>",
                esc(name),
                esc(c),
                COLORS[ci % COLORS.len()],
                esc(name),
                esc(c),
                v,
                v / total * 100.0
            );
        }
        let _ = write!(o, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x + bw / 2.0, top + h + 16.0, esc(name));
    }
    let right = left + (bw + gap) * bars.len() as f64;
    for (y, text_y, label) in labels {
        let _ = write!(
            o,
            "<line class=\"ideal-mark\" x1=\"{left}\" x2=\"{right}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#333\" stroke-dasharray=\"4 3\"/><text class=\"mark-label\" x=\"{}\" y=\"{text_y:.1}\">{}</text>",
            right + 4.0,
            esc(label)
        );
    }
    for (ci, c) in comps.iter().enumerate() {
        let _ = write!(o, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>", right + legend, top + 14.0 * ci as f64, COLORS[ci % COLORS.len()], right + legend + 16.0, top + 9.0 + 14.0 * ci as f64, esc(c));
    }
    o.push_str("</svg>");
}
