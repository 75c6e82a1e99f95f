//! Self-contained HTML reports: one file, no network, no external scripts or
//! fonts. Rendered from the JSON form of any report (static block analysis,
//! dynamic run, Top-Down from counters), so `bottlenose report result.json`
//! and `--html` produce the same page. Sections appear when their data exists.

mod heatmap;
mod processes;
mod sampling;
mod sections;
mod stacks;
mod tables;
mod verdict;

use serde_json::Value;
use std::fmt::Write;

/// Rows shown per page in large tables (the page stays fast with 100,000 rows).
pub const PAGE_ROWS: usize = 200;

/// The page of one report, or of several (`analyze` of a file with several
/// regions writes a JSON array; `topdown -I` writes one JSON object per line):
/// one section per region, with a table of contents.
pub fn render_html(report: &Value, title: &str) -> String {
    let regions = regions(report);
    let mut body = String::new();
    match regions.as_slice() {
        [one] => {
            region_body(&mut body, one);
            sections::machine(&mut body, one);
        }
        many => {
            let _ = write!(body, "<section id=\"regions\"><h2>{} regions</h2><table><thead><tr><th>#</th><th class=\"l\">region</th><th class=\"l\">first cause</th></tr></thead><tbody>", many.len());
            for (i, r) in many.iter().enumerate() {
                let _ = write!(
                    body,
                    "<tr><td>{}</td><td class=\"l\"><a href=\"#region-{}\">{}</a></td><td class=\"l\">{}</td></tr>",
                    i + 1,
                    i + 1,
                    esc(&region_name(r, i)),
                    esc(r["verdict"]["causes"][0]["title"].as_str().unwrap_or("-"))
                );
            }
            body.push_str("</tbody></table></section>\n");
            for (i, r) in many.iter().enumerate() {
                let mut section = String::new();
                region_body(&mut section, r);
                let _ = writeln!(body, "<section class=\"region\" id=\"region-{}\"><h2 class=\"region-title\">Region {}: {}</h2>", i + 1, i + 1, esc(&region_name(r, i)));
                // every region has the same sections: their ids and links get the region's prefix
                body.push_str(&section.replace(" id=\"", &format!(" id=\"r{}-", i + 1)).replace(" href=\"#", &format!(" href=\"#r{}-", i + 1)));
                body.push_str("</section>\n");
            }
            // the regions of one file share the machine
            if let Some(first) = many.first() {
                sections::machine(&mut body, first);
            }
        }
    }
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

/// The reports a JSON value holds: the elements of an array, the `regions` of
/// an object that has them, else the value itself.
pub fn regions(report: &Value) -> Vec<&Value> {
    match report {
        Value::Array(a) => a.iter().collect(),
        _ => match report["regions"].as_array() {
            Some(a) => a.iter().collect(),
            None => vec![report],
        },
    }
}

/// What a region is called: its block or input, a counter sample's time, else its number.
fn region_name(r: &Value, i: usize) -> String {
    let s = |k: &str| r[k].as_str().map(str::to_string);
    s("input")
        .or_else(|| s("block"))
        .or_else(|| s("program"))
        .or_else(|| s("label"))
        .or_else(|| r["time"].as_f64().map(|t| format!("t = {t:.3} s")))
        .unwrap_or_else(|| format!("report {}", i + 1))
}

/// Every section of one report but the machine model.
fn region_body(body: &mut String, report: &Value) {
    // what is slow and why, then where, then the views the verdict rests on
    sections::summary(body, report);
    processes::processes(body, report);
    sampling::sampling(body, report);
    verdict::verdict(body, report);
    tables::static_loops(body, report);
    tables::functions(body, report);
    tables::hotspots(body, report);
    tables::hottest_loop(body, report);
    sections::topdown(body, report);
    heatmap::sensitivity(body, report);
    stacks::cpi_and_flops(body, report);
    tables::instructions(body, report);
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
