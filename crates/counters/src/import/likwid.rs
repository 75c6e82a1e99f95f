//! likwid-perfctr CSV output (`-O` / `-o out.csv`), as written by likwid's
//! `printOutput`: an `STRUCT,Info,3` block (`CPU name:`, `CPU type:`,
//! `CPU clock:`), then per group `TABLE,Group N Raw,GROUP,COUNT` (or
//! `TABLE,Region R,Group N Raw,...` with the marker API) followed by
//! `Event,Counter,HWThread 0,HWThread 1,...` and one row per event
//! (`Runtime (RDTSC) [s],TSC,...` for groups without metrics), `... Raw STAT`
//! tables (`Event,Counter,Sum,Min,Max,Avg`, ignored: the threads are summed
//! here), and `... Metric` tables (`Metric,HWThread 0,...`) whose values are
//! kept as the tool's own metrics. Lines are padded with commas.

use super::{RawRow, RawValue, ToolMetric};

/// What a likwid file holds.
pub struct LikwidFile {
    /// Event rows (summed over hardware threads), labelled by region.
    pub rows: Vec<RawRow>,
    /// The `CPU type:` line.
    pub cpu_type: Option<String>,
    /// Runtime per region label (`Runtime (RDTSC) [s]`, max over threads).
    pub runtime: Vec<(Option<String>, f64)>,
    /// The Metric tables.
    pub metrics: Vec<ToolMetric>,
}

#[derive(PartialEq)]
enum Section {
    None,
    Raw,
    Metric,
    Skip,
}

fn cells(line: &str) -> Vec<&str> {
    let mut c: Vec<&str> = line.split(',').map(str::trim).collect();
    while c.last().is_some_and(|s| s.is_empty()) {
        c.pop();
    }
    c
}

/// The uarch for likwid's `CPU type:` names (`Intel Core Haswell processor`).
pub fn uarch_for_cpu_type(t: &str) -> Option<&'static str> {
    let l = t.to_ascii_lowercase().replace(' ', "");
    let table: &[(&str, &str)] = &[
        ("ivybridgeen", ""),
        ("ivybridge", "ivb"),
        ("haswellen", ""),
        ("haswell", "hsw"),
        ("skylakesp", "skx"),
        ("skylake", "skl"),
        ("kabylake", "skl"),
        ("coffeelake", "skl"),
        ("cometlake", "skl"),
        ("icelakesp", ""),
        ("icelake", "icl"),
        ("sapphirerapids", "spr"),
        ("(zen3)", "zen3"),
        ("(zen4)", "zen4"),
        ("(zen5)", "zen5"),
    ];
    table.iter().find(|(k, _)| l.contains(k)).and_then(|(_, u)| (!u.is_empty()).then_some(*u))
}

/// Parses likwid-perfctr CSV.
pub fn parse(text: &str) -> Result<LikwidFile, (usize, String)> {
    let mut out = LikwidFile { rows: Vec::new(), cpu_type: None, runtime: Vec::new(), metrics: Vec::new() };
    let mut section = Section::None;
    let mut region: Option<String> = None;
    let mut threads: Vec<String> = Vec::new();
    let mut saw_table = false;
    for (n, line) in text.lines().enumerate() {
        let c = cells(line);
        let Some(first) = c.first().copied() else { continue };
        if first == "STRUCT" {
            section = Section::None;
            continue;
        }
        if first == "TABLE" {
            saw_table = true;
            region = c.get(1).and_then(|r| r.strip_prefix("Region ")).map(str::to_string);
            let kind = c.iter().find(|x| x.starts_with("Group ")).copied().unwrap_or("");
            section = if kind.ends_with("Raw") {
                Section::Raw
            } else if kind.ends_with("Metric") {
                Section::Metric
            } else {
                Section::Skip
            };
            threads.clear();
            continue;
        }
        if first == "CPU type:" {
            out.cpu_type = c.get(1).map(|s| s.to_string());
            continue;
        }
        match section {
            Section::Raw | Section::Metric if threads.is_empty() => {
                let want = if section == Section::Raw { "Event" } else { "Metric" };
                if first == want {
                    let skip = if section == Section::Raw { 2 } else { 1 };
                    threads = c.iter().skip(skip).map(|s| s.to_string()).collect();
                } else if first.starts_with("RDTSC Runtime") {
                    // The marker API's region info (`Region Info,HWThread 0` / `RDTSC Runtime [s],...` / `call count,...`).
                    let vals: Vec<f64> = c.iter().skip(1).filter_map(|v| v.parse().ok()).collect();
                    out.runtime.push((region.clone(), vals.iter().copied().fold(0.0, f64::max)));
                }
            }
            Section::Raw => {
                let vals: Vec<f64> = c.iter().skip(2).filter_map(|v| v.parse().ok()).collect();
                if first.starts_with("Runtime (RDTSC)") {
                    out.runtime.push((region.clone(), vals.iter().copied().fold(0.0, f64::max)));
                    continue;
                }
                let value = if vals.is_empty() { RawValue::NotCounted } else { RawValue::Num(vals.iter().sum()) };
                out.rows.push(RawRow { line: n + 1, time: None, label: region.clone(), prefix: None, event: first.to_string(), value, pct: None });
            }
            Section::Metric => {
                let vals: Vec<f64> = c.iter().skip(1).filter_map(|v| v.parse().ok()).collect();
                if first.starts_with("Runtime (RDTSC)") && !out.runtime.iter().any(|(r, _)| *r == region) {
                    out.runtime.push((region.clone(), vals.iter().copied().fold(0.0, f64::max)));
                }
                out.metrics.push(ToolMetric { label: region.clone(), name: first.to_string(), per_thread: vals });
            }
            _ => {}
        }
    }
    if !saw_table {
        return Err((0, "no likwid TABLE section found".into()));
    }
    if out.rows.is_empty() {
        return Err((0, "no event rows in the likwid tables (expected 'Event,Counter,HWThread 0,...')".into()));
    }
    Ok(out)
}
