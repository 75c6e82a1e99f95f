//! Self-contained HTML reports: one file, no network, no external scripts or
//! fonts. Rendered from the JSON form of any report (static block analysis,
//! dynamic run, Top-Down from counters), so `bottlenose report result.json`
//! and `--html` produce the same page. Sections appear when their data exists.

mod heatmap;
mod sections;
mod stacks;
mod tables;
mod verdict;

use serde_json::Value;
use std::fmt::Write;

/// Rows shown per page in large tables (the page stays fast with 100,000 rows).
pub const PAGE_ROWS: usize = 200;

pub fn render_html(report: &Value, title: &str) -> String {
    let mut body = String::new();
    sections::summary(&mut body, report);
    verdict::verdict(&mut body, report);
    tables::static_loops(&mut body, report);
    sections::topdown(&mut body, report);
    heatmap::sensitivity(&mut body, report);
    stacks::cpi_and_flops(&mut body, report);
    tables::instructions(&mut body, report);
    tables::hottest_loop(&mut body, report);
    tables::hotspots(&mut body, report);
    sections::machine(&mut body, report);
    let mut o = String::with_capacity(body.len() + 8192);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n{}\n<script>{}</script></body></html>\n",
        esc(title),
        include_str!("style.css"),
        esc(title),
        body,
        include_str!("script.js")
    );
    o
}

/// HTML-escapes text.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

pub(crate) fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// Background shade for table cells and source lines: stays light enough for dark text.
pub(crate) fn heat_bg(x: f64) -> String {
    heat(x.clamp(0.0, 1.0) * 0.55)
}

/// White → orange → dark red for a value in [0, 1].
pub(crate) fn heat(x: f64) -> String {
    let x = x.clamp(0.0, 1.0);
    let (r, g, b) = if x < 0.5 {
        let t = x / 0.5;
        (255.0, 255.0 - 90.0 * t, 255.0 - 200.0 * t)
    } else {
        let t = (x - 0.5) / 0.5;
        (255.0 - 115.0 * t, 165.0 - 145.0 * t, 55.0 - 35.0 * t)
    };
    format!("rgb({},{},{})", r as u8, g as u8, b as u8)
}
