//! The verdict section: the ranked causes, each with its gain, one row per
//! view of evidence, why the views disagree and what to try; for runs, the
//! same for the hottest functions and loops (collapsed).

use super::{esc, num};
use serde_json::Value;
use std::fmt::Write;

pub fn verdict(o: &mut String, r: &Value) {
    let v = &r["verdict"];
    if !v.is_object() {
        return;
    }
    let _ = write!(
        o,
        "<section id=\"verdict\"><h2>Verdict</h2><p class=\"muted\">{}: causes ranked by the share of the cycles each fix would save (the gains overlap: they do not add up).</p>",
        esc(v["scope"].as_str().unwrap_or(""))
    );
    causes(o, v);
    if let Some(hs) = v["hotspots"].as_array().filter(|h| !h.is_empty()) {
        o.push_str("<h3>Per hotspot</h3>");
        for h in hs {
            let kind = h["kind"].as_str().unwrap_or("");
            let name = h["name"].as_str().unwrap_or("?");
            let label = if kind == "function" { format!("function {name}") } else { name.to_string() };
            let first = h["verdict"]["causes"][0]["title"].as_str().unwrap_or("no cause found");
            let _ = write!(
                o,
                "<details class=\"hotspot\" data-hotspot=\"{}\"><summary><b>{}</b>{} — {:.1} % of the cycles — {}</summary>",
                esc(&label),
                esc(&label),
                h["source"].as_str().map(|s| format!(" ({})", esc(s.rsplit('/').next().unwrap_or(s)))).unwrap_or_default(),
                num(&h["share"]) * 100.0,
                esc(first)
            );
            causes(o, &h["verdict"]);
            o.push_str("</details>");
        }
    }
    o.push_str("</section>\n");
}

fn causes(o: &mut String, v: &Value) {
    let list = v["causes"].as_array().map(|a| a.as_slice()).unwrap_or(&[]);
    if list.is_empty() {
        o.push_str("<p>No cause found.</p>");
    }
    o.push_str("<ol class=\"verdict\">");
    for c in list {
        let agree = c["agreement"] == "agree";
        let kind = c["cause"]["kind"].as_str().unwrap_or("");
        let _ = write!(
            o,
            "<li class=\"cause\" data-cause=\"{}\"><div class=\"head\"><b>{}</b> <span class=\"gain\">{:.1} % of the cycles</span> <span class=\"muted\">({})</span> <span class=\"{}\">{}</span></div>",
            esc(kind),
            esc(c["title"].as_str().unwrap_or("")),
            num(&c["gain"]["share"]) * 100.0,
            esc(c["gain"]["basis"].as_str().unwrap_or("")),
            if agree { "agree" } else { "disagree" },
            if agree { "views agree" } else { "views disagree" }
        );
        evidence(o, &c["evidence"]);
        if let Some(why) = c["reason"].as_str() {
            let _ = write!(o, "<p class=\"why\"><b>{}:</b> {}</p>", if agree { "Note" } else { "Why" }, esc(why));
        }
        let _ = write!(o, "<p class=\"try\"><b>Try:</b> {}</p></li>", esc(c["action"].as_str().unwrap_or("")));
    }
    o.push_str("</ol>");
    for n in v["notes"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        let _ = write!(o, "<p class=\"muted\">Note: {}</p>", esc(n));
    }
}

fn pct(v: &Value) -> String {
    format!("{:.1} %", num(v) * 100.0)
}

fn weight(w: f64) -> String {
    if w < 1.5 {
        format!("+{:.0} %", (w - 1.0) * 100.0)
    } else {
        format!("x{}", if w.fract() == 0.0 { format!("{w:.0}") } else { format!("{w:.2}") })
    }
}

/// One row per view with something to say, marked when it supports the cause.
fn evidence(o: &mut String, e: &Value) {
    let mut rows: Vec<(&str, String, bool)> = Vec::new();
    for s in e["sensitivity"].as_array().into_iter().flatten() {
        let names: Vec<&str> = s["resources"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let mut t = format!("{} {:+.1} % at {}", names.join("+"), num(&s["speedup"]) * 100.0, weight(num(&s["weight"])));
        if s["max_weight"] != s["weight"] {
            let _ = write!(t, ", {:+.1} % at {}", num(&s["max_speedup"]) * 100.0, weight(num(&s["max_weight"])));
        }
        rows.push(("sensitivity", t, s["supports"] == true));
    }
    let t = &e["topdown"];
    if t.is_object() {
        let value = if t["value"].is_number() { format!("{:.1}", num(&t["value"]) * 100.0) } else { "n/a".into() };
        let unit = t["unit"].as_str().map(|u| format!(" % {u}")).unwrap_or_else(|| " %".into());
        let norm = if t["normalized"].is_number() { format!(" (normalized {})", pct(&t["normalized"])) } else { String::new() };
        let flag = if t["flagged"] == true { ", flagged" } else { "" };
        rows.push(("Top-Down", format!("{} {value}{unit}{norm}{flag}", t["node"].as_str().unwrap_or("?")), t["supports"] == true));
    }
    let s = &e["stacks"];
    if s.is_object() {
        let comps: Vec<&str> = s["components"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        rows.push((
            "CPI stacks",
            format!("{}: dispatch {}, issue {}, commit {} of the cycles", comps.join(" + "), pct(&s["dispatch"]), pct(&s["issue"]), pct(&s["commit"])),
            s["supports"] == true,
        ));
    }
    let i = &e["idealization"];
    if i.is_object() {
        let part = if num(&i["apportioned"]) < 1.0 { format!(" ({:.0} % of its gain, by the stacks' share of this level)", num(&i["apportioned"]) * 100.0) } else { String::new() };
        rows.push(("idealization", format!("{}: {} fewer cycles{part}", i["what"].as_str().unwrap_or("?"), pct(&i["share"])), i["supports"] == true));
    }
    let u = &e["usage"];
    if u.is_object() {
        rows.push(("resource usage", format!("{} {} busy", u["resource"].as_str().unwrap_or("?"), pct(&u["usage"])), u["supports"] == true));
    }
    for c in e["counters"].as_array().into_iter().flatten() {
        rows.push((
            "counters",
            format!("{} {} x {:.0} cycles = {} of its cycles", c["count"], c["event"].as_str().unwrap_or(""), num(&c["penalty"]), pct(&c["share"])),
            c["supports"] == true,
        ));
    }
    if rows.is_empty() {
        return;
    }
    o.push_str("<table class=\"evidence\"><tr><th class=\"l\">view</th><th class=\"l\">evidence</th><th>supports</th></tr>");
    for (view, text, supports) in rows {
        let _ = write!(o, "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td></tr>", esc(view), esc(&text), if supports { "yes" } else { "no" });
    }
    o.push_str("</table>");
}
