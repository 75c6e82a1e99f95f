//! The sensitivity heat-map of Gus Fig. 11, turned sideways so that the
//! resources' names read horizontally: one row per resource, one cell per
//! acceleration, coloured by the predicted speedup.

use super::{esc, heat, num};
use serde_json::Value;
use std::fmt::Write;

pub fn sensitivity(o: &mut String, r: &Value) {
    let Some(points) = r["sensitivity"].as_array().filter(|p| !p.is_empty()) else { return };
    let label = |p: &Value| p["resources"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("+")).unwrap_or_default();
    let mut resources: Vec<String> = Vec::new();
    let mut weights: Vec<f64> = Vec::new();
    for p in points {
        let l = label(p);
        if !resources.contains(&l) {
            resources.push(l);
        }
        let w = num(&p["weight"]);
        if !weights.iter().any(|x| (x - w).abs() < 1e-9) {
            weights.push(w);
        }
    }
    weights.sort_by(f64::total_cmp);
    let speed = |res: &str, w: f64| points.iter().find(|p| label(p) == res && (num(&p["weight"]) - w).abs() < 1e-9).map(|p| num(&p["speedup"]));
    // order bars by their speedup at the largest weight, as a ranking
    let wmax = *weights.last().unwrap_or(&1.0);
    resources.sort_by(|a, b| speed(b, wmax).unwrap_or(0.0).total_cmp(&speed(a, wmax).unwrap_or(0.0)));
    let scale = points.iter().map(|p| num(&p["speedup"])).fold(0.01f64, f64::max);
    // One row per resource, its name on the left: horizontal labels one row
    // apart never overlap, however many resources and however long their names
    // (a set of every port is cut to LABEL_CHARS, its full name in the tooltip).
    let label_w = resources.iter().map(|r| short_label(r).chars().count()).max().unwrap_or(4) as f64 * LABEL_CHAR_PX + 12.0;
    let (cw, ch, top) = (52.0, ROW_PX, 22.0);
    let width = label_w + cw * weights.len() as f64 + 10.0;
    let height = top + ch * resources.len() as f64 + 6.0;
    let _ = write!(o, "<section id=\"sensitivity\"><h2>Sensitivity</h2><p class=\"muted\">Predicted speedup when one resource (or set) is accelerated by the weight on top, one row per resource, the largest speedups first. Darker = larger speedup (scale: {:.1}% = darkest).</p>", scale * 100.0);
    let _ = write!(o, "<svg class=\"heatmap\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">");
    for (j, w) in weights.iter().enumerate() {
        let x = label_w + cw * j as f64;
        let _ = write!(o, "<text class=\"hm-weight\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x + (cw - 2.0) / 2.0, top - 8.0, weight_label(*w));
    }
    for (i, res) in resources.iter().enumerate() {
        let y = top + ch * i as f64;
        let _ = write!(o, "<g class=\"hm-bar\" data-resource=\"{}\">", esc(res));
        let _ = write!(o, "<text class=\"hm-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\"><title>{}</title>{}</text>", label_w - 6.0, y + ch - 4.0, esc(res), esc(&short_label(res)));
        for (j, w) in weights.iter().enumerate() {
            let x = label_w + cw * j as f64;
            let s = speed(res, *w);
            let fill = s.map(|s| heat(s / scale)).unwrap_or_else(|| "#eee".into());
            let _ = write!(
                o,
                "<rect class=\"hm-cell\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"#ccc\" stroke-width=\"0.5\"><title>{} at {}: {}</title></rect>",
                cw - 2.0,
                ch - 1.0,
                esc(res),
                weight_label(*w),
                s.map(|s| format!("{:+.2}%", s * 100.0)).unwrap_or_else(|| "not run".into())
            );
        }
        o.push_str("</g>");
    }
    o.push_str("</svg></section>\n");
}

/// Height of a row of the heat map; above the labels' 11 px font.
const ROW_PX: f64 = 16.0;
/// Width of a label character (the labels are set in a monospace font of 11 px: 0.6 em).
const LABEL_CHAR_PX: f64 = 6.6;
/// Characters of a resource set's name shown at most.
const LABEL_CHARS: usize = 40;

/// The name, or its start and end around `…` (sets of every port differ at the end: `+latency`).
fn short_label(r: &str) -> String {
    let chars: Vec<char> = r.chars().collect();
    if chars.len() <= LABEL_CHARS {
        return r.to_string();
    }
    let head = (LABEL_CHARS - 1) / 2;
    let tail = LABEL_CHARS - 1 - head;
    format!("{}…{}", chars[..head].iter().collect::<String>(), chars[chars.len() - tail..].iter().collect::<String>())
}

fn weight_label(w: f64) -> String {
    if w < 1.5 {
        format!("+{:.0}%", (w - 1.0) * 100.0)
    } else {
        format!("x{w}")
    }
}
