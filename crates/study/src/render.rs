//! The study table as CSV, JSON and HTML, and the diff of two studies.

use crate::table::{Row, Status};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The schema id of a study report's JSON.
pub const SCHEMA: &str = "bottlenose/study/v1";

/// A study report as saved in JSON (the input of a later diff).
#[derive(Debug, Serialize, Deserialize)]
pub struct StudyReport {
    pub schema: String,
    pub study: String,
    pub rows: Vec<Row>,
}

impl StudyReport {
    pub fn new(study: &str, rows: Vec<Row>) -> StudyReport {
        StudyReport { schema: SCHEMA.into(), study: study.into(), rows }
    }

    pub fn parse(text: &str, file: &str) -> Result<StudyReport> {
        let r: StudyReport = serde_json::from_str(text).with_context(|| format!("{file} is not a study report (bottlenose study report --format json)"))?;
        if r.schema != SCHEMA {
            bail!("{file} is a '{}' report, not '{SCHEMA}'", r.schema);
        }
        Ok(r)
    }
}

const COLUMNS: &[&str] =
    &["program", "machine", "variant", "kind", "status", "cycles", "cycles_unit", "ipc", "top_cause", "bottleneck", "speedup", "weight", "error", "hash"];

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

/// The study as a plain-text table, one row per job.
pub fn text(name: &str, rows: &[Row]) -> String {
    let done = rows.iter().filter(|r| r.status == Status::Done).count();
    let mut o = format!("study {name}: {done} of {} jobs done\n", rows.len());
    o.push_str(&format!("{:<16} {:<14} {:<18} {:>12} {:>6}  {:<20} {:>8}  {}\n", "program", "machine", "variant", "cycles", "IPC", "bottleneck", "speedup", "top cause"));
    for r in rows {
        let num = |v: Option<f64>, d: usize| v.map(|x| format!("{x:.d$}")).unwrap_or_else(|| "-".into());
        let cause = match r.status {
            Status::Done => r.top_cause.clone().unwrap_or_default(),
            Status::Failed => format!("FAILED: {}", r.error.as_deref().unwrap_or("")),
            Status::Missing => "not run yet".into(),
        };
        o.push_str(&format!(
            "{:<16} {:<14} {:<18} {:>12} {:>6}  {:<20} {:>8}  {cause}\n",
            r.program,
            r.machine,
            r.variant,
            num(r.cycles, 1),
            num(r.ipc, 2),
            r.bottleneck.as_deref().unwrap_or("-"),
            r.speedup.map(|s| format!("{:.1}%", s * 100.0)).unwrap_or_else(|| "-".into()),
        ));
    }
    o
}

pub fn csv(rows: &[Row]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS)?;
    for r in rows {
        w.write_record([
            r.program.as_str(),
            &r.machine,
            &r.variant,
            r.kind.command(),
            r.status.as_str(),
            &num(r.cycles),
            r.cycles_unit(),
            &num(r.ipc),
            r.top_cause.as_deref().unwrap_or(""),
            r.bottleneck.as_deref().unwrap_or(""),
            &num(r.speedup),
            &num(r.weight),
            r.error.as_deref().unwrap_or(""),
            &r.hash,
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}")).unwrap_or_else(|| "–".into())
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.1} %", x * 100.0)).unwrap_or_else(|| "–".into())
}

/// One HTML table of `rows`, its first columns named by `keys`.
fn html_table(o: &mut String, keys: [(&str, fn(&Row) -> &str); 2], rows: &[&Row]) {
    let _ = write!(o, "<table><tr><th>{}</th><th>{}</th><th>cycles</th><th>IPC</th><th>top cause (verdict)</th><th>top bottleneck</th><th>its speedup</th></tr>", keys[0].0, keys[1].0);
    for r in rows {
        let status = if r.status == Status::Done { String::new() } else { format!(" class=\"{}\"", r.status.as_str()) };
        let cause = match r.status {
            Status::Done => esc(r.top_cause.as_deref().unwrap_or("–")),
            Status::Failed => format!("failed: {}", esc(r.error.as_deref().unwrap_or(""))),
            Status::Missing => "not run yet".into(),
        };
        let _ = write!(
            o,
            "<tr{status}><td>{}</td><td>{}</td><td class=n>{} <small>{}</small></td><td class=n>{}</td><td>{cause}</td><td>{}</td><td class=n>{}{}</td></tr>",
            esc(keys[0].1(r)),
            esc(keys[1].1(r)),
            fmt(r.cycles, 1),
            r.cycles_unit(),
            fmt(r.ipc, 2),
            esc(r.bottleneck.as_deref().unwrap_or("–")),
            pct(r.speedup),
            r.weight.map(|w| format!(" <small>at ×{w}</small>")).unwrap_or_default(),
        );
    }
    o.push_str("</table>\n");
}

/// A self-contained page: the table per machine, then per program.
pub fn html(study: &str, rows: &[Row]) -> String {
    let mut o = String::new();
    let done = rows.iter().filter(|r| r.status == Status::Done).count();
    let _ = write!(
        o,
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>bottlenose study: {s}</title><style>\
         body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:0 0 1.5em}}\
         td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}td.n{{text-align:right}}\
         tr.failed{{background:#fdd}}tr.missing{{color:#888}}small{{color:#666}}</style></head><body>\
         <h1>Study {s}</h1><p>{done} of {} jobs done.</p>\n",
        rows.len(),
        s = esc(study)
    );
    // in the study file's order
    let group = |key: fn(&Row) -> &str| {
        let mut groups: Vec<(&str, Vec<&Row>)> = Vec::new();
        for r in rows {
            match groups.iter_mut().find(|(k, _)| *k == key(r)) {
                Some((_, g)) => g.push(r),
                None => groups.push((key(r), vec![r])),
            }
        }
        groups
    };
    let (by_machine, by_program) = (group(|r| &r.machine), group(|r| &r.program));
    o.push_str("<h2>Per machine</h2>\n");
    for (m, rs) in &by_machine {
        let _ = write!(o, "<h3>{}</h3>", esc(m));
        html_table(&mut o, [("program", |r| &r.program), ("variant", |r| &r.variant)], rs);
    }
    o.push_str("<h2>Per program</h2>\n");
    for (p, rs) in &by_program {
        let _ = write!(o, "<h3>{}</h3>", esc(p));
        html_table(&mut o, [("machine", |r| &r.machine), ("variant", |r| &r.variant)], rs);
    }
    o.push_str("</body></html>\n");
    o
}

/// One job of two studies side by side.
#[derive(Debug, Serialize)]
pub struct DiffRow {
    pub program: String,
    pub machine: String,
    pub variant: String,
    pub cycles_a: Option<f64>,
    pub cycles_b: Option<f64>,
    /// (B - A) / A.
    pub cycles_change: Option<f64>,
    pub ipc_a: Option<f64>,
    pub ipc_b: Option<f64>,
    pub top_cause_a: Option<String>,
    pub top_cause_b: Option<String>,
    pub bottleneck_a: Option<String>,
    pub bottleneck_b: Option<String>,
}

/// The rows of A matched with B's by program, machine and variant; a row that
/// only one side has comes with empty figures on the other.
pub fn diff(a: &[Row], b: &[Row]) -> Vec<DiffRow> {
    let done = |r: &Row| r.status == Status::Done;
    let mut out = Vec::new();
    let mut row = |ra: Option<&Row>, rb: Option<&Row>| {
        let any = ra.or(rb).expect("one side");
        let ra = ra.filter(|r| done(r));
        let rb = rb.filter(|r| done(r));
        let (ca, cb) = (ra.and_then(|r| r.cycles), rb.and_then(|r| r.cycles));
        out.push(DiffRow {
            program: any.program.clone(),
            machine: any.machine.clone(),
            variant: any.variant.clone(),
            cycles_a: ca,
            cycles_b: cb,
            cycles_change: ca.zip(cb).filter(|(a, _)| *a > 0.0).map(|(a, b)| (b - a) / a),
            ipc_a: ra.and_then(|r| r.ipc),
            ipc_b: rb.and_then(|r| r.ipc),
            top_cause_a: ra.and_then(|r| r.top_cause.clone()),
            top_cause_b: rb.and_then(|r| r.top_cause.clone()),
            bottleneck_a: ra.and_then(|r| r.bottleneck.clone()),
            bottleneck_b: rb.and_then(|r| r.bottleneck.clone()),
        });
    };
    for ra in a {
        row(Some(ra), b.iter().find(|rb| rb.key() == ra.key()));
    }
    for rb in b.iter().filter(|rb| !a.iter().any(|ra| ra.key() == rb.key())) {
        row(None, Some(rb));
    }
    out
}

/// The diff as an aligned text table.
pub fn diff_text(a_name: &str, b_name: &str, rows: &[DiffRow]) -> String {
    let mut o = format!("A: {a_name}\nB: {b_name}\n");
    let _ = writeln!(o, "{:<16} {:<14} {:<14} {:>12} {:>12} {:>8}  {:<20} {:<20}", "program", "machine", "variant", "cycles A", "cycles B", "change", "bottleneck A", "bottleneck B");
    for r in rows {
        let change = r.cycles_change.map(|c| format!("{:+.1}%", c * 100.0)).unwrap_or_else(|| "–".into());
        let _ = writeln!(
            o,
            "{:<16} {:<14} {:<14} {:>12} {:>12} {:>8}  {:<20} {:<20}",
            r.program,
            r.machine,
            r.variant,
            fmt(r.cycles_a, 1),
            fmt(r.cycles_b, 1),
            change,
            r.bottleneck_a.as_deref().unwrap_or("–"),
            r.bottleneck_b.as_deref().unwrap_or("–")
        );
    }
    o
}
