//! A sampled run's section: the design, the estimates and their intervals.

use super::{esc, num};
use serde_json::Value;
use std::fmt::Write;

/// `value ± half-width`; a half-width of `null` could not be estimated (fewer than two units).
fn interval(v: &Value, scale: f64, digits: usize) -> String {
    match v["half_width"].as_f64() {
        Some(hw) => format!("{:.*} ± {:.*}", digits, num(&v["value"]) * scale, digits, hw * scale),
        None => format!("{:.*} (no interval)", digits, num(&v["value"]) * scale),
    }
}

fn share_rows(o: &mut String, title: &str, rows: &Value) {
    let Some(rows) = rows.as_array().filter(|r| !r.is_empty()) else { return };
    let _ = write!(o, "<tr><th colspan=\"2\">{}</th></tr>", esc(title));
    for r in rows {
        let _ = write!(o, "<tr><td>{}</td><td class=\"num\">{} %</td></tr>", esc(r["name"].as_str().unwrap_or("")), interval(&r["share"], 100.0, 1));
    }
}

pub(super) fn sampling(o: &mut String, r: &Value) {
    let s = &r["sampling"];
    if !s.is_object() {
        return;
    }
    let conf = num(&s["confidence"]) * 100.0;
    let _ = write!(o, "<section id=\"sampling\"><h2>Sampling</h2><p>{} ({conf:.1} % confidence intervals): {} instructions timed exactly first, then {} measured units of {} instructions, each after a detailed warm-up of {}.</p>",
        esc(s["method"].as_str().unwrap_or("")), s["exact_instructions"], s["units"], s["unit_instructions"], s["warm_up_instructions"]);
    if let Some(k) = s["code_classes"].as_u64() {
        let _ = write!(o, "<p>The cycles come from the run's exact instruction mix: {k} classes of code, each its executions times its cycles per execution measured on the units.</p>");
    }
    if let (Some(p), Some(c)) = (s["priced_cycles"].as_f64().filter(|&p| p > 0.0), s["cycles"]["value"].as_f64()) {
        let _ = write!(o, "<p>Priced, not measured: {p:.0} cycles ({:.2} % of the estimate), code no unit measured (start-up, the exit) at the cycles per execution of the cold code the exact prefix and the units timed; the interval holds all of it.</p>", 100.0 * p / c.max(1.0));
    }
    let has_variants = [&s["sensitivity"], &s["idealization"]].iter().any(|v| v.as_array().is_some_and(|a| !a.is_empty()));
    if has_variants && s["variant_units"].as_u64() < s["units"].as_u64() {
        let every: Vec<String> = s["strata"].as_array().map(|a| a.iter().map(|x| format!("1 in {} ({} units)", x["variants_every"], x["variant_units"])).collect()).unwrap_or_default();
        let _ = write!(o, "<p>The sensitivity variants and idealizations timed a sub-sample of {} units (by stratum: {}); their intervals are paired ratios to the baseline over it.</p>", s["variant_units"], esc(&every.join("; ")));
    }
    if has_variants && s["exact_instructions"].as_u64().is_some_and(|n| n > 0) {
        let how = crate::sampling_text::prefix_for_variants(s["prefix_idealized"] == Value::Bool(true), s["prefix_variant_units"].as_u64().unwrap_or(0));
        let _ = write!(o, "<p>The exact prefix for the variants: {}.</p>", esc(&how));
    }
    let t = &s["target"];
    let status = if t["reached"] == Value::Bool(true) {
        format!("target ±{:.1} % reached", num(&t["relative_half_width"]) * 100.0)
    } else {
        format!("target ±{:.1} % <b>not reached</b>: {}", num(&t["relative_half_width"]) * 100.0, esc(t["advice"].as_str().unwrap_or("")))
    };
    let relative = match s["cycles"]["half_width"].as_f64() {
        Some(hw) => format!(" (±{:.2} %)", 100.0 * hw / num(&s["cycles"]["value"]).max(1e-9)),
        None => String::new(),
    };
    let _ = write!(o, "<p>cycles {}{relative}, CPI {}; {status}</p>", interval(&s["cycles"], 1.0, 0), interval(&s["cpi"], 1.0, 4));
    if let Some(w) = s["warning"].as_str() {
        let _ = write!(o, "<p class=\"muted\">warning: {}</p>", esc(w));
    }
    o.push_str("<table><tbody>");
    if let Some(v) = s["sensitivity"].as_array().filter(|v| !v.is_empty()) {
        o.push_str("<tr><th colspan=\"2\">Speedups</th></tr>");
        for x in v {
            let names: Vec<&str> = x["resources"].as_array().map(|a| a.iter().filter_map(|n| n.as_str()).collect()).unwrap_or_default();
            let _ = write!(o, "<tr><td>{} ×{}</td><td class=\"num\">{} %</td></tr>", esc(&names.join("+")), x["weight"], interval(&x["speedup"], 100.0, 2));
        }
    }
    if let Some(v) = s["idealization"].as_array().filter(|v| !v.is_empty()) {
        o.push_str("<tr><th colspan=\"2\">Idealizations (CPI reduction)</th></tr>");
        for x in v {
            let _ = write!(o, "<tr><td>{}</td><td class=\"num\">{}</td></tr>", esc(x["what"].as_str().unwrap_or("")), interval(&x["cpi_reduction"], 1.0, 4));
        }
    }
    share_rows(o, "Top-Down level 1 (share of slots)", &s["topdown_level1"]);
    for stage in ["dispatch", "issue", "commit"] {
        share_rows(o, &format!("CPI stack at {stage} (share of cycles)"), &s["cpi_stacks"][stage]);
    }
    if let Some(v) = s["flops_stack"].as_array().filter(|v| !v.is_empty()) {
        o.push_str("<tr><th colspan=\"2\">FLOPS stack (flops per cycle)</th></tr>");
        for x in v {
            let _ = write!(o, "<tr><td>{}</td><td class=\"num\">{}</td></tr>", esc(x["name"].as_str().unwrap_or("")), interval(&x["flops_per_cycle"], 1.0, 3));
        }
    }
    share_rows(o, "Functions (share of cycles)", &s["functions"]);
    share_rows(o, "Loops by head address (share of cycles, inner loops included)", &s["loops"]);
    o.push_str("</tbody></table></section>\n");
}
