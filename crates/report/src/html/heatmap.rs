//! The sensitivity heat-map of Gus Fig. 11: one bar per resource, one cell per
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
    let (cw, ch, left, top) = (44.0, 14.0, 60.0, 10.0);
    let width = left + cw * resources.len() as f64 + 20.0;
    let height = top + ch * weights.len() as f64 + 90.0;
    let _ = write!(o, "<section id=\"sensitivity\"><h2>Sensitivity</h2><p class=\"muted\">Predicted speedup when one resource (or set) is accelerated by the weight on the left. Darker = larger speedup (scale: {:.1}% = darkest).</p>", scale * 100.0);
    let _ = write!(o, "<svg class=\"heatmap\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">");
    for (j, w) in weights.iter().enumerate() {
        let y = top + ch * (weights.len() - 1 - j) as f64;
        let _ = write!(o, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", left - 6.0, y + 11.0, weight_label(*w));
    }
    for (i, res) in resources.iter().enumerate() {
        let x = left + cw * i as f64;
        let _ = write!(o, "<g class=\"hm-bar\" data-resource=\"{}\">", esc(res));
        for (j, w) in weights.iter().enumerate() {
            let y = top + ch * (weights.len() - 1 - j) as f64;
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
        let ly = top + ch * weights.len() as f64 + 8.0;
        let _ = write!(o, "<text transform=\"translate({},{}) rotate(55)\">{}</text></g>", x + cw / 2.0 - 4.0, ly, esc(res));
    }
    o.push_str("</svg></section>\n");
}

fn weight_label(w: f64) -> String {
    if w < 1.5 {
        format!("+{:.0}%", (w - 1.0) * 100.0)
    } else {
        format!("x{w}")
    }
}
