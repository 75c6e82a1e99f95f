//! Imported counts: `perf stat -x,` CSV, `perf stat -j` JSON and
//! likwid-perfctr CSV, detected from the content.
//!
//! Two steps: [`parse`] reads the rows (and the CPU the file names, if any);
//! [`Parsed::counts`] maps event names to keys ([`names::Namer`]) and sums
//! them per sample: one sample per interval timestamp (`-I`), per likwid
//! region, or one for the whole file; per-CPU rows (`-A`, `--per-core`) and
//! likwid hardware threads are summed. `<not counted>` / `<not supported>`
//! rows and running percentages below 100 % become warnings.

pub mod likwid;
pub mod names;
pub mod perf;

use crate::errors::CountersError;
use crate::report::EventOut;
use bottlenose_metrics::Counts;
use names::{Mapped, Namer};
use std::collections::BTreeMap;

/// The file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `perf stat -x,`.
    PerfCsv,
    /// `perf stat -j`.
    PerfJson,
    /// likwid-perfctr CSV.
    Likwid,
}

impl Format {
    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Format::PerfCsv => "perf stat CSV",
            Format::PerfJson => "perf stat JSON",
            Format::Likwid => "likwid-perfctr CSV",
        }
    }
}

/// A counter value as printed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RawValue {
    /// A count (already scaled by the tool).
    Num(f64),
    /// `<not counted>`.
    NotCounted,
    /// `<not supported>`.
    NotSupported,
}

/// One printed counter.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRow {
    /// Line number (1-based).
    pub line: usize,
    /// Interval timestamp (seconds).
    pub time: Option<f64>,
    /// Sample label (likwid region).
    pub label: Option<String>,
    /// Aggregation id (`CPU0`, `S0-C0`, `cpu1`).
    pub prefix: Option<String>,
    /// Event name as printed.
    pub event: String,
    /// Value.
    pub value: RawValue,
    /// Percentage of the time it was running.
    pub pct: Option<f64>,
}

/// A metric the tool computed itself (likwid's Metric tables).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolMetric {
    /// Region.
    pub label: Option<String>,
    /// Metric name (`Front End [%]`).
    pub name: String,
    /// Per hardware thread.
    pub per_thread: Vec<f64>,
}

/// A parsed file, before name mapping.
pub struct Parsed {
    /// The format.
    pub format: Format,
    /// The rows.
    pub rows: Vec<RawRow>,
    /// The uarch the file names (likwid `CPU type:`).
    pub cpu: Option<String>,
    /// The tool's CPU description, when it gives one.
    pub cpu_text: Option<String>,
    /// Runtime per label.
    pub runtime: Vec<(Option<String>, f64)>,
    /// The tool's own metrics.
    pub tool_metrics: Vec<ToolMetric>,
}

/// Detects the format and parses `text` (`file` names it in errors).
pub fn parse(text: &str, file: &str) -> Result<Parsed, CountersError> {
    let err = |(line, msg): (usize, String)| CountersError::Import { file: file.into(), line, msg };
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    if first.is_empty() {
        return Err(CountersError::Import { file: file.into(), line: 0, msg: "no counter lines".into() });
    }
    if first.starts_with('{') {
        let rows = perf::parse_json(text).map_err(err)?;
        return Ok(Parsed { format: Format::PerfJson, rows, cpu: None, cpu_text: None, runtime: vec![], tool_metrics: vec![] });
    }
    if text.lines().any(|l| l.starts_with("STRUCT,") || l.starts_with("TABLE,")) {
        let f = likwid::parse(text).map_err(err)?;
        return Ok(Parsed {
            format: Format::Likwid,
            cpu: f.cpu_type.as_deref().and_then(likwid::uarch_for_cpu_type).map(str::to_string),
            cpu_text: f.cpu_type,
            rows: f.rows,
            runtime: f.runtime,
            tool_metrics: f.metrics,
        });
    }
    let rows = perf::parse_csv(text).map_err(err)?;
    Ok(Parsed { format: Format::PerfCsv, rows, cpu: None, cpu_text: None, runtime: vec![], tool_metrics: vec![] })
}

/// Reads and parses a file.
pub fn parse_file(path: &std::path::Path) -> Result<Parsed, CountersError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| CountersError::Io(format!("cannot read {name}: {e}")))?;
    parse(&text, &name)
}

/// One sample of imported counts.
#[derive(Clone, Debug)]
pub struct ImportSample {
    /// Interval timestamp.
    pub time: Option<f64>,
    /// Label (likwid region).
    pub label: Option<String>,
    /// Counts for the engine (constants included).
    pub counts: Counts,
    /// The events as printed, summed.
    pub events: Vec<EventOut>,
}

/// Imported counts.
#[derive(Clone, Debug)]
pub struct Imported {
    /// Per interval or region (one entry when the file has neither).
    pub samples: Vec<ImportSample>,
    /// All samples summed (for interval files), else the single sample.
    pub total: ImportSample,
    /// Not counted / not supported / multiplexed / unknown events.
    pub warnings: Vec<String>,
}

type SampleKey = (Option<u64>, Option<String>);

#[derive(Default)]
struct Acc {
    time: Option<f64>,
    label: Option<String>,
    keys: BTreeMap<String, f64>,
    events: BTreeMap<String, (f64, Option<f64>, bool, String)>,
    consts: BTreeMap<String, f64>,
}

impl Parsed {
    /// Maps the rows to counts with `namer`; `base` holds constants (SMT ...).
    pub fn counts(&self, namer: &Namer, base: &Counts) -> Imported {
        // Samples in file order.
        let mut order: std::collections::HashMap<SampleKey, usize> = Default::default();
        let mut samples: Vec<Acc> = Vec::new();
        let mut seen_row: std::collections::HashSet<(SampleKey, Option<String>, String)> = Default::default();
        let (mut not_counted, mut not_supported, mut unknown, mut ignored) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut low_pct: BTreeMap<String, f64> = BTreeMap::new();
        let push = |v: &mut Vec<String>, s: &str| {
            if !v.iter().any(|x| x == s) {
                v.push(s.to_string())
            }
        };
        for r in &self.rows {
            let sk: SampleKey = (r.time.map(f64::to_bits), r.label.clone());
            let idx = *order.entry(sk.clone()).or_insert_with(|| {
                samples.push(Acc { time: r.time, label: r.label.clone(), ..Acc::default() });
                samples.len() - 1
            });
            let acc = &mut samples[idx];
            if !seen_row.insert((sk, r.prefix.clone(), r.event.clone())) {
                continue; // the same counter printed twice
            }
            let mapped = namer.map(&r.event);
            let first_key = match &mapped {
                Mapped::Keys(k) => k.first().map(|(k, _)| k.clone()).unwrap_or_default(),
                Mapped::Unknown(k) => k.clone(),
                Mapped::Const(c) => c.clone(),
                Mapped::Ignore(_) => String::new(),
            };
            let ev = acc.events.entry(r.event.clone()).or_insert((0.0, None, false, first_key));
            match r.value {
                RawValue::Num(v) => {
                    ev.0 += v;
                    ev.2 = true;
                }
                RawValue::NotCounted => push(&mut not_counted, &r.event),
                RawValue::NotSupported => push(&mut not_supported, &r.event),
            }
            if let Some(p) = r.pct.filter(|p| *p < 99.995 && matches!(r.value, RawValue::Num(_))) {
                ev.1 = Some(ev.1.map_or(p, |q: f64| q.min(p)));
                let e = low_pct.entry(r.event.clone()).or_insert(p);
                *e = e.min(p);
            }
            let RawValue::Num(v) = r.value else { continue };
            match mapped {
                Mapped::Keys(keys) => {
                    for (k, f) in keys {
                        *acc.keys.entry(k).or_insert(0.0) += v * f;
                    }
                }
                Mapped::Const(c) => {
                    // duration_time is printed in ns.
                    acc.consts.insert(c, v / 1e9);
                }
                Mapped::Ignore(Some(why)) => push(&mut ignored, &why),
                Mapped::Ignore(None) => {}
                Mapped::Unknown(k) => {
                    push(&mut unknown, &r.event);
                    *acc.keys.entry(k).or_insert(0.0) += v;
                }
            }
        }
        let mut warnings = Vec::new();
        if !not_counted.is_empty() {
            warnings.push(format!("not counted: {} (their nodes have no value)", not_counted.join(", ")));
        }
        if !not_supported.is_empty() {
            warnings.push(format!("not supported by that machine: {}", not_supported.join(", ")));
        }
        if !low_pct.is_empty() {
            let list: Vec<String> = low_pct.iter().map(|(e, p)| format!("{e} {p:.1}%")).collect();
            warnings.push(format!("multiplexed: counters ran less than 100% of the time ({}); perf scaled the counts", list.join(", ")));
        }
        if !unknown.is_empty() {
            warnings.push(format!("events no table describes: {}", unknown.join(", ")));
        }
        warnings.extend(ignored.into_iter().map(|w| format!("ignored {w}")));
        let interval = samples.iter().any(|a| a.time.is_some());
        let mut prev_t = 0.0;
        let mut out: Vec<ImportSample> = Vec::new();
        for acc in &samples {
            let mut counts = base.clone();
            for (k, v) in &acc.keys {
                counts.set(k, *v);
            }
            for (c, v) in &acc.consts {
                counts.set_const(c, *v);
            }
            if let Some((_, rt)) = self.runtime.iter().find(|(l, _)| *l == acc.label) {
                counts.set_const("duration_time", *rt);
            }
            if let (Some(t), None) = (acc.time, counts.constant("duration_time")) {
                counts.set_const("duration_time", t - prev_t);
                prev_t = t;
            }
            let events = acc.events.iter().map(|(n, (v, p, any, k))| EventOut { name: n.clone(), key: k.clone(), value: any.then_some(*v), running: p.map(|p| p / 100.0) }).collect();
            out.push(ImportSample { time: acc.time, label: acc.label.clone(), counts, events });
        }
        let total = if interval && out.len() > 1 {
            let mut sum: BTreeMap<String, f64> = BTreeMap::new();
            let mut ev: BTreeMap<String, (f64, String)> = BTreeMap::new();
            for acc in &samples {
                acc.keys.iter().for_each(|(k, v)| *sum.entry(k.clone()).or_insert(0.0) += v);
                acc.events.iter().filter(|(_, e)| e.2).for_each(|(k, e)| ev.entry(k.clone()).or_insert((0.0, e.3.clone())).0 += e.0);
            }
            let mut counts = base.clone();
            sum.iter().for_each(|(k, v)| {
                counts.set(k, *v);
            });
            if let Some(t) = out.last().and_then(|s| s.time) {
                counts.set_const("duration_time", t);
            }
            ImportSample { time: None, label: None, counts, events: ev.into_iter().map(|(n, (v, k))| EventOut { name: n, key: k, value: Some(v), running: None }).collect() }
        } else {
            out.first().cloned().unwrap_or(ImportSample { time: None, label: None, counts: base.clone(), events: vec![] })
        };
        Imported { samples: out, total, warnings }
    }
}
