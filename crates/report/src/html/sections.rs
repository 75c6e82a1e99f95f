//! Summary, Top-Down tree and machine sections.

use super::{esc, num};
use serde_json::Value;
use std::fmt::Write;

pub fn summary(o: &mut String, r: &Value) {
    let mut kv: Vec<(&str, String)> = Vec::new();
    let s = |v: &Value| v.as_str().map(str::to_string);
    if let Some(m) = s(&r["machine"]).or_else(|| s(&r["uarch"])) {
        kv.push(("machine", m));
    }
    if let Some(b) = s(&r["block"]) {
        kv.push(("block", b));
    }
    if let Some(p) = s(&r["program"]) {
        kv.push(("program", p));
    }
    if let Some(x) = s(&r["exit"]) {
        kv.push(("exit", x));
    }
    if let Some(d) = s(&r["roi"]["description"]) {
        kv.push(("region", d));
    }
    if let Some(acc) = r["acceleration"].as_array().filter(|a| !a.is_empty()) {
        let what: Vec<String> = acc.iter().map(|a| format!("{} x{}", a["resource"].as_str().unwrap_or("?"), num(&a["weight"]))).collect();
        kv.push(("what-if core", what.join(", ")));
    }
    for (k, label) in [("cycles_per_iteration", "cycles / iteration"), ("cycles", "cycles"), ("total_cycles", "total cycles"), ("ipc", "IPC")] {
        if let Some(v) = r[k].as_f64() {
            kv.push((label, if v.fract() == 0.0 || v >= 1000.0 { crate::numbers::cycles(v) } else { format!("{v:.2}") }));
        }
    }
    for (k, label) in [("instructions_simulated", "instructions simulated"), ("iterations", "iterations"), ("method", "method")] {
        match &r[k] {
            Value::Number(n) => kv.push((label, n.as_u64().map_or_else(|| n.to_string(), crate::numbers::count))),
            Value::String(t) => kv.push((label, t.clone())),
            _ => {}
        }
    }
    o.push_str("<section id=\"summary\"><h2>Summary</h2><div class=\"kv\">");
    for (k, v) in kv {
        let _ = write!(o, "<div><span class=\"muted\">{}</span><b>{}</b></div>", esc(k), esc(&v));
    }
    o.push_str("</div>");
    // one answer: the verdict's first cause where there is a verdict (the
    // sensitivity's top resource alone can contradict it)
    if let Some(c) = r["verdict"]["causes"].as_array().and_then(|c| c.first()) {
        let _ = write!(
            o,
            "<p id=\"top-cause\">First cause: <b>{}</b> — {:.1}% of the cycles ({}); <a href=\"#verdict\">verdict</a>.</p>",
            esc(c["title"].as_str().unwrap_or("")),
            num(&c["gain"]["share"]) * 100.0,
            esc(c["gain"]["basis"].as_str().unwrap_or(""))
        );
    } else if let Some(b) = r["bottlenecks"].as_array().and_then(|b| b.first()) {
        let names: Vec<&str> = b["resources"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let _ = write!(
            o,
            "<p id=\"top-bottleneck\">Top bottleneck: <b>{}</b> — {:+.1}% if {:.0}% faster.</p>",
            esc(&names.join(" + ")),
            num(&b["speedup"]) * 100.0,
            (num(&b["weight"]) - 1.0) * 100.0
        );
    }
    if r["complete"] == Value::Bool(false) {
        let _ = write!(o, "<p><b>Partial report</b>: {}</p>", esc(r["stop_reason"].as_str().unwrap_or("the run did not finish")));
    }
    o.push_str("</section>\n");
}

/// The Top-Down tree (`topdown` of simulated runs, `tree` of counter runs):
/// collapsible, flagged nodes open, the bottleneck path marked.
pub fn topdown(o: &mut String, r: &Value) {
    let root = if !r["topdown"].is_null() { &r["topdown"] } else { &r["tree"] };
    let nodes: Vec<&Value> = match root {
        Value::Array(a) => a.iter().collect(),
        // a synthetic root (no value, or the whole tree's name) only groups level 1
        Value::Object(_) if root["children"].is_array() && (root["value"].is_null() || root["name"] == "Top-Down") => {
            root["children"].as_array().unwrap().iter().collect()
        }
        Value::Object(_) => vec![root],
        _ => return,
    };
    if nodes.is_empty() {
        return;
    }
    o.push_str("<section id=\"topdown\"><h2>Top-Down</h2><div class=\"tree\">");
    let path = bottleneck_path(&nodes);
    // a sampled run's intervals, by node path (`Backend_Bound.Memory_Bound`)
    let intervals: Vec<(&str, f64)> = r["sampling"]["topdown"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| Some((i["path"].as_str()?, i["value"]["half_width"].as_f64()?))).collect())
        .unwrap_or_default();
    for n in &nodes {
        let name = n["label"].as_str().or_else(|| n["name"].as_str()).unwrap_or("?");
        node(o, n, &path, name, &intervals);
    }
    o.push_str("<p class=\"muted\">Each node: its value as the formula gives it, a fraction of its unit (% Slots, % Clocks ...: a child in cycles may exceed a parent in slots); the bar and the share after it are the normalized value, the share of all slots fitted inside the parent. Hierarchical safety: a node is flagged when it is above its threshold and its parent is flagged; flagged nodes are open.</p>");
    if !intervals.is_empty() {
        let _ = write!(
            o,
            "<p class=\"muted\">± : half-width of the value's {:.1} % confidence interval (points of its unit), from the sampled windows, the cycles' interval and what priced code could hold (see Sampling).</p>",
            num(&r["sampling"]["confidence"]) * 100.0
        );
    }
    let s = &r["views_sampling"];
    if s.is_object() {
        let _ = write!(
            o,
            "<p class=\"muted\">Views sampled: the first {} instructions counted exactly, then {} windows (one batch in {}: {} instructions); what follows from executions is exact, the rest is scaled to the run.</p>",
            s["exact_instructions"], s["windows"], s["period"], s["counted_instructions"]
        );
    }
    o.push_str("</div></section>\n");
}

fn bottleneck_path<'a>(nodes: &[&'a Value]) -> Vec<*const Value> {
    let mut path = Vec::new();
    let mut level: Vec<&Value> = nodes.to_vec();
    loop {
        let share = |n: &Value| if n["normalized"].is_number() { num(&n["normalized"]) } else { num(&n["value"]) };
        let best = level.iter().filter(|n| n["flagged"] == Value::Bool(true)).max_by(|a, b| share(a).total_cmp(&share(b)));
        let Some(b) = best else { break };
        path.push(*b as *const Value);
        level = b["children"].as_array().map(|c| c.iter().collect()).unwrap_or_default();
    }
    path
}

/// One node: its value in its unit (`45.0 % Slots`), a bar of its normalized
/// share of all slots (reports before units: of its value), the label, and
/// why there is no value.
/// `at`: the node's labels from level 1 joined by `.`, as `intervals` name them.
fn node(o: &mut String, n: &Value, path: &[*const Value], at: &str, intervals: &[(&str, f64)]) {
    let flagged = n["flagged"] == Value::Bool(true);
    let on_path = path.contains(&(n as *const Value));
    let v = num(&n["value"]);
    let share = if n["normalized"].is_number() { num(&n["normalized"]) } else { v };
    let name = n["label"].as_str().or_else(|| n["name"].as_str()).unwrap_or("?");
    let children = n["children"].as_array().map(|c| c.as_slice()).unwrap_or(&[]);
    let class = match (flagged, on_path) {
        (_, true) => "node flagged path",
        (true, _) => "node flagged",
        _ => "node",
    };
    let unit = n["unit"].as_str().map(|u| format!(" % {}", u.replace("_Estimated", "_est").replace("_Calculated", "_calc"))).unwrap_or_else(|| "%".into());
    let value = match intervals.iter().find(|(p, _)| *p == at) {
        _ if n["value"].is_null() => "n/a".to_string(),
        Some((_, hw)) => format!("{:.1} ± {:.1}{unit}", v * 100.0, hw * 100.0),
        None => format!("{:.1}{unit}", v * 100.0),
    };
    let norm = if n["normalized"].is_number() { format!("{:.1}% of slots", share * 100.0) } else { String::new() };
    let why = n["reason"].as_str().map(|r| format!(" <span class=\"muted\">({})</span>", esc(r))).unwrap_or_default();
    let _ = write!(
        o,
        "<details class=\"{class}\" data-node=\"{}\"{}><summary><span class=\"v\">{}</span><span class=\"bar\" style=\"width:{}px\" title=\"normalized: {}\"></span><span class=\"n\">{}</span>{}{why}</summary>",
        esc(name),
        if flagged { " open" } else { "" },
        esc(&value),
        (share.clamp(0.0, 1.0) * 200.0) as u32,
        esc(&norm),
        esc(&norm),
        esc(name)
    );
    for c in children {
        let name = c["label"].as_str().or_else(|| c["name"].as_str()).unwrap_or("?");
        node(o, c, path, &format!("{at}.{name}"), intervals);
    }
    o.push_str("</details>");
}

pub fn machine(o: &mut String, r: &Value) {
    if let Some(text) = r["machine_summary"].as_str() {
        let _ = write!(o, "<section id=\"machine\"><h2>Machine model</h2><pre>{}</pre></section>\n", esc(text));
    }
}
