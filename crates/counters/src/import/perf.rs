//! `perf stat -x,` CSV and `perf stat -j` JSON.
//!
//! CSV fields (perf-stat(1), "CSV FORMAT"): optional interval timestamp,
//! optional aggregation id (`CPU0` with `-A`, `S0-D0-C0` with `--per-core`) and
//! its CPU count, the counter value (`<not counted>`, `<not supported>`), its
//! unit, the event name, the variance with `-r` (`3.77%`), the counter's run
//! time, the percentage of time it was running, and optional metric value and
//! unit. The value field is found as the first one followed by a non-numeric
//! unit and a non-empty event name. A header row of column names
//! (`Timestamp;Location;Value;Unit;Event;Run-Time;Enabled;;`, which toplev's
//! `--perf-output` writes above perf's lines) is skipped. JSON: one object per line with
//! `counter-value`, `unit`, `event`, `event-runtime`, `pcnt-running`, and
//! `interval` / `cpu` / `core` / `socket` when present; lines without `event`
//! (metric-only) are skipped. perf prints counts already scaled for
//! multiplexing.

use super::{RawRow, RawValue};

fn is_num(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s.parse::<f64>().is_ok()
}

fn value(s: &str) -> Option<RawValue> {
    let s = s.trim();
    match s {
        "<not counted>" => Some(RawValue::NotCounted),
        "<not supported>" => Some(RawValue::NotSupported),
        _ => s.parse().ok().map(RawValue::Num),
    }
}

/// Parses `perf stat -x SEP` output (SEP `,` or `;`, detected).
pub fn parse_csv(text: &str) -> Result<Vec<RawRow>, (usize, String)> {
    // perf -x SEP: ';' when the first counter line has at least 4 of them (event names may hold commas).
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    let sep = if first.matches(';').count() >= 4 { ';' } else { ',' };
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let f = join_pmu_terms(l.split(sep).map(str::trim).collect(), sep);
        if is_header(&f) {
            continue;
        }
        let at = (0..f.len().min(5)).find(|&i| {
            value(&f[i]).is_some() && f.len() > i + 2 && !is_num(&f[i + 1]) && !f[i + 2].is_empty() && !is_num(&f[i + 2])
        });
        let Some(i) = at else {
            return Err((n + 1, format!("not a perf stat -x{sep} line: '{}'", truncate(l))));
        };
        let mut time = None;
        let mut prefix = None;
        for p in &f[..i] {
            if p.contains('.') && is_num(p) && time.is_none() && prefix.is_none() {
                time = p.parse().ok();
            } else if !is_num(p) {
                prefix = Some(p.to_string());
            }
        }
        let mut rest = f[i + 3..].iter().map(String::as_str);
        let mut next = rest.next();
        if next.is_some_and(|v| v.ends_with('%')) {
            next = rest.next(); // -r variance
        }
        let _runtime = next;
        let pct = rest.next().and_then(|p| p.parse().ok());
        rows.push(RawRow { line: n + 1, time, label: None, prefix, event: f[i + 2].clone(), value: value(&f[i]).unwrap_or(RawValue::NotCounted), pct });
    }
    Ok(rows)
}

/// Column names a header row may hold (toplev's perf output; perf's own names).
const COLUMNS: &[&str] = &["timestamp", "time", "location", "num-cpus", "cpus", "value", "counts", "counter-value", "unit", "event", "events", "run-time", "enabled", "pcnt-running"];

/// A row of column names only, naming at least the value and the event.
fn is_header(fields: &[String]) -> bool {
    let names: Vec<String> = fields.iter().filter(|f| !f.is_empty()).map(|f| f.to_ascii_lowercase()).collect();
    let has = |any: &[&str]| names.iter().any(|n| any.contains(&n.as_str()));
    names.iter().all(|n| COLUMNS.contains(&n.as_str())) && has(&["value", "counts", "counter-value"]) && has(&["event", "events"])
}

/// perf does not quote: `cpu/event=0x0e,umask=0x01/` splits at its commas; rejoin it.
fn join_pmu_terms(f: Vec<&str>, sep: char) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(f.len());
    let mut open = false;
    for x in f {
        if let (true, Some(last)) = (open, out.last_mut()) {
            last.push(sep);
            last.push_str(x);
            open = last.matches('/').count() == 1;
        } else {
            open = x.matches('/').count() == 1 && !x.starts_with('/') && x.split('/').next().is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            out.push(x.to_string());
        }
    }
    out
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

fn as_f64(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Parses `perf stat -j` output.
pub fn parse_json(text: &str) -> Result<Vec<RawRow>, (usize, String)> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || !l.starts_with('{') {
            continue;
        }
        let o: serde_json::Value = serde_json::from_str(l).map_err(|e| (n + 1, format!("bad JSON: {e}")))?;
        let Some(event) = o.get("event").and_then(|e| e.as_str()) else { continue };
        let cv = o.get("counter-value").ok_or((n + 1, format!("event {event} has no counter-value")))?;
        let value = match cv.as_str().map(str::trim) {
            Some("<not counted>") => RawValue::NotCounted,
            Some("<not supported>") => RawValue::NotSupported,
            _ => RawValue::Num(as_f64(cv).ok_or((n + 1, format!("event {event}: counter-value {cv} is not a number")))?),
        };
        let prefix = ["cpu", "core", "die", "socket", "node", "thread", "cgroup"]
            .iter()
            .find_map(|k| o.get(*k).map(|v| format!("{k}{}", v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))));
        rows.push(RawRow {
            line: n + 1,
            time: o.get("interval").and_then(as_f64),
            label: None,
            prefix,
            event: event.to_string(),
            value,
            pct: o.get("pcnt-running").and_then(as_f64),
        });
    }
    Ok(rows)
}
