//! Converts the Intel perfmon and Linux AMD pmu-events data into the
//! `bottlenose-metrics` table format (one JSON file per uarch plus `cpuid.json`).
//!
//! Source choice for Intel: formulas, tree and thresholds come from the
//! per-uarch metrics JSON (`BaseFormula` keeps metric references, `Level` and
//! `ParentCategory` give a complete tree, `Threshold` gives every node's
//! condition). `TMA_Metrics-full.csv` is used where there is no metrics JSON
//! (Ivy Bridge: its `IVB` column, with inheritance and auxiliaries resolved)
//! and to cross-check the JSON trees against the spreadsheet column.

pub mod amd;
pub mod canon;
pub mod cpuid_map;
pub mod intel_csv;
pub mod intel_events;
pub mod intel_json;
pub mod util;

use anyhow::{bail, Context, Result};
use bottlenose_metrics::table::{MetricDef, Provenance, SourceFile, UarchTable, SCHEMA};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Where a uarch's data comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// `intel-perfmon/<dir>`; `column` is its `TMA_Metrics-full.csv` column.
    Intel { dir: &'static str, column: &'static str, linux: &'static str, width: f64 },
    /// `linux-pmu-events/<dir>`.
    Amd { dir: &'static str, width: f64 },
}

/// One output table.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub id: &'static str,
    pub name: &'static str,
    pub source: Source,
}

/// Every uarch the converter knows.
pub const SPECS: &[Spec] = &[
    Spec { id: "skl", name: "Skylake client (also Kaby/Coffee/Comet Lake)", source: Source::Intel { dir: "SKL", column: "SKL/KBL", linux: "skylake", width: 4.0 } },
    Spec { id: "skx", name: "Skylake-SP (Xeon Scalable 1st gen)", source: Source::Intel { dir: "SKX", column: "SKX", linux: "skylakex", width: 4.0 } },
    Spec { id: "icl", name: "Ice Lake client (Sunny Cove)", source: Source::Intel { dir: "ICL", column: "ICL", linux: "icelake", width: 5.0 } },
    Spec { id: "spr", name: "Sapphire Rapids (Golden Cove server)", source: Source::Intel { dir: "SPR", column: "SPR", linux: "sapphirerapids", width: 6.0 } },
    Spec { id: "adl", name: "Alder Lake P-core (Golden Cove)", source: Source::Intel { dir: "ADL", column: "ADL/RPL", linux: "alderlake", width: 6.0 } },
    Spec { id: "hsw", name: "Haswell client", source: Source::Intel { dir: "HSW", column: "HSW", linux: "haswell", width: 4.0 } },
    Spec { id: "ivb", name: "Ivy Bridge client", source: Source::Intel { dir: "IVB", column: "IVB", linux: "ivybridge", width: 4.0 } },
    Spec { id: "zen3", name: "AMD Zen 3 (family 19h)", source: Source::Amd { dir: "amdzen3", width: 6.0 } },
    Spec { id: "zen4", name: "AMD Zen 4 (family 19h)", source: Source::Amd { dir: "amdzen4", width: 6.0 } },
    Spec { id: "zen5", name: "AMD Zen 5 (family 1Ah)", source: Source::Amd { dir: "amdzen5", width: 8.0 } },
];

/// Counts for the report.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub uarch: String,
    pub events: usize,
    pub metrics: usize,
    pub tma_nodes: usize,
    pub levels: u32,
    pub notes: usize,
}

/// Removes metrics that reference a metric in `dropped` (transitively) and
/// thresholds that reference a missing metric.
pub fn drop_dependents(metrics: &mut Vec<MetricDef>, mut dropped: HashSet<String>, notes: &mut Vec<String>) {
    loop {
        let before = metrics.len();
        metrics.retain(|m| {
            let e = bottlenose_metrics::expr::parse(&m.expr).expect("converted formulas parse");
            let mut bad = None;
            e.visit_names(&mut |n| {
                if n.is_plain() && dropped.contains(&n.key) {
                    bad = Some(n.key.clone());
                }
            });
            match bad {
                Some(b) => {
                    notes.push(format!("dropped {}: needs dropped metric {b}", m.name));
                    dropped.insert(m.name.clone());
                    false
                }
                None => true,
            }
        });
        if metrics.len() == before {
            break;
        }
    }
    let names: HashSet<String> = metrics.iter().map(|m| m.name.to_ascii_lowercase()).collect();
    for m in metrics.iter_mut() {
        let Some(t) = &m.threshold else { continue };
        let e = bottlenose_metrics::expr::parse(t).expect("converted thresholds parse");
        let mut missing = false;
        e.visit_names(&mut |n| missing |= n.key.starts_with("tma_") && !names.contains(&n.key));
        if missing {
            notes.push(format!("threshold of {} dropped: references a missing metric", m.name));
            m.threshold = None;
        }
    }
}

fn dir_files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

fn rel(data: &Path, p: &Path) -> String {
    p.strip_prefix(data).unwrap_or(p).to_string_lossy().into_owned()
}

/// Converts one uarch; `None` when its data directory is absent.
pub fn convert_one(data: &Path, spec: &Spec, csv: Option<&intel_csv::Csv>) -> Result<Option<UarchTable>> {
    let mut notes = Vec::new();
    let mut sources = Vec::new();
    let mut constants = BTreeMap::new();
    let (vendor, events, metrics, tma_version) = match spec.source {
        Source::Intel { dir, column, width, .. } => {
            let base = data.join("intel-perfmon").join(dir);
            if !base.is_dir() {
                return Ok(None);
            }
            let mut events = Vec::new();
            let mut seen = HashSet::new();
            for f in dir_files(&base.join("events"), "_core.json") {
                let fname = f.file_name().unwrap().to_string_lossy().to_string();
                let pmu = if fname.contains("gracemont") {
                    Some("cpu_atom")
                } else if fname.contains("goldencove") {
                    Some("cpu_core")
                } else {
                    None
                };
                sources.push(intel_events::read(&f, &rel(data, &f), pmu, &mut events, &mut seen)?);
            }
            if events.iter().any(|e| e.pmu.as_deref() == Some("cpu_atom")) {
                notes.push("includes the E-core (Gracemont) events with pmu cpu_atom; the metrics are the P-core's".into());
            } else if dir == "ADL" {
                notes.push("no E-core (Gracemont) events file in the source data: P-core events only".into());
            }
            let canon = canon::Canon::new(&events);
            let col = csv.map(|c| c.column(column)).transpose().ok().flatten();
            let json_files: Vec<PathBuf> = dir_files(&base.join("metrics"), ".json").into_iter().filter(|p| !p.to_string_lossy().contains("gracemont")).collect();
            let (metrics, tma_version) = if let Some(f) = json_files.first() {
                let c = intel_json::convert(f, &rel(data, f), &canon)?;
                sources.push(c.source);
                notes.push("formulas from BaseFormula; tree from Level/ParentCategory; thresholds from Threshold.BaseFormula (own condition; ancestors' conditions are applied by the tree)".into());
                notes.extend(c.notes);
                if let (Some(csv), Some(col)) = (csv, col) {
                    let csv_nodes = csv.node_names(col);
                    let json_nodes: std::collections::BTreeSet<String> = c.metrics.iter().filter(|m| m.tma).map(|m| m.name.clone()).collect();
                    let only_json: Vec<_> = json_nodes.difference(&csv_nodes).cloned().collect();
                    let only_csv: Vec<_> = csv_nodes.difference(&json_nodes).cloned().collect();
                    notes.push(format!(
                        "cross-check vs TMA_Metrics-full.csv column {column}: {} JSON nodes, {} CSV nodes; only in JSON: [{}]; only in CSV: [{}]",
                        json_nodes.len(),
                        csv_nodes.len(),
                        only_json.join(", "),
                        only_csv.join(", ")
                    ));
                }
                (c.metrics, c.tma_version)
            } else {
                let (Some(csv), Some(col)) = (csv, col) else {
                    bail!("{}: no metrics JSON and no TMA_Metrics-full.csv column {column}", spec.id);
                };
                sources.push(SourceFile {
                    path: "intel-perfmon/TMA_Metrics-full.csv".into(),
                    version: Some(csv.version.clone()),
                    date: None,
                    license: Some("BSD-3-Clause (intel-perfmon LICENSE)".into()),
                });
                notes.push(format!("no metrics JSON: formulas, tree and thresholds from TMA_Metrics-full.csv column {column} (empty cells inherit from the right, #NA = absent, auxiliaries inlined)"));
                let mut m = csv.convert(col, &canon, &mut notes)?;
                drop_dependents(&mut m, HashSet::new(), &mut notes);
                (m, Some(format!("{} (TMA_Metrics-full.csv)", csv.version)))
            };
            constants.insert("pipeline_width".to_string(), width);
            ("intel", events, metrics, tma_version)
        }
        Source::Amd { dir, width } => {
            let base = data.join("linux-pmu-events").join(dir);
            if !base.is_dir() {
                return Ok(None);
            }
            let mut c = amd::convert(&base, &format!("linux-pmu-events/{dir}"))?;
            // The mapfile carries the version of the directory's data.
            let version = std::fs::read_to_string(data.join("linux-pmu-events/mapfile.csv"))
                .ok()
                .and_then(|t| util::parse_csv(&t).into_iter().find(|r| r.get(2).map(String::as_str) == Some(dir)))
                .and_then(|r| r.get(1).cloned());
            match &version {
                Some(v) => c.sources.iter_mut().for_each(|s| s.version = Some(v.clone())),
                None => notes.push(format!("{dir} is not in linux-pmu-events/mapfile.csv: no version string")),
            }
            sources.extend(c.sources);
            notes.extend(c.notes);
            if !c.metrics.iter().any(|m| m.tma) {
                notes.push("no PipelineL1/PipelineL2 metrics in the source data: no Top-Down tree".into());
            }
            if c.width.is_none() {
                notes.push(format!("dispatch width {width} is a converter default (no total_dispatch_slots metric)"));
            }
            constants.insert("pipeline_width".to_string(), c.width.unwrap_or(width));
            ("amd", c.events, c.metrics, None)
        }
    };
    constants.insert("slots".to_string(), constants["pipeline_width"]);
    let table = UarchTable {
        schema: SCHEMA,
        uarch: spec.id.into(),
        name: spec.name.into(),
        vendor: vendor.into(),
        provenance: Provenance {
            generator: format!("convert-perfmon {}", env!("CARGO_PKG_VERSION")),
            sources,
            tma_version,
            notes,
        },
        constants,
        events,
        metrics,
    };
    // Everything must load in the engine.
    bottlenose_metrics::MetricEngine::from_table(table.clone()).with_context(|| format!("{}: converted table does not load", spec.id))?;
    Ok(Some(table))
}

/// Serializes a table with one event / metric per line.
pub fn to_json(t: &UarchTable) -> Result<String> {
    let mut out = String::from("{\n");
    let field = |k: &str, v: String| format!("  \"{k}\": {v}");
    let mut parts = vec![
        field("schema", serde_json::to_string(&t.schema)?),
        field("uarch", serde_json::to_string(&t.uarch)?),
        field("name", serde_json::to_string(&t.name)?),
        field("vendor", serde_json::to_string(&t.vendor)?),
        field("provenance", serde_json::to_string_pretty(&t.provenance)?.replace('\n', "\n  ")),
        field("constants", serde_json::to_string(&t.constants)?),
    ];
    let list = |items: Vec<String>| if items.is_empty() { "[]".to_string() } else { format!("[\n    {}\n  ]", items.join(",\n    ")) };
    parts.push(field("events", list(t.events.iter().map(serde_json::to_string).collect::<Result<_, _>>()?)));
    parts.push(field("metrics", list(t.metrics.iter().map(serde_json::to_string).collect::<Result<_, _>>()?)));
    out.push_str(&parts.join(",\n"));
    out.push_str("\n}\n");
    Ok(out)
}

/// Summary counts of a table.
pub fn summarize(t: &UarchTable) -> Summary {
    Summary {
        uarch: t.uarch.clone(),
        events: t.events.len(),
        metrics: t.metrics.len(),
        tma_nodes: t.metrics.iter().filter(|m| m.tma).count(),
        levels: t.metrics.iter().filter(|m| m.tma).filter_map(|m| m.level).max().unwrap_or(0),
        notes: t.provenance.notes.len(),
    }
}

/// Converts the requested uarches (all when empty) from `data` into `out`.
pub fn run(data: &Path, out: &Path, only: &[String]) -> Result<Vec<Summary>> {
    if !data.is_dir() {
        bail!("data directory {} not found", data.display());
    }
    std::fs::create_dir_all(out)?;
    let csv_path = data.join("intel-perfmon/TMA_Metrics-full.csv");
    let csv = if csv_path.is_file() { Some(intel_csv::Csv::load(&csv_path)?) } else { None };
    let specs: Vec<&Spec> = SPECS.iter().filter(|s| only.is_empty() || only.iter().any(|o| o == s.id)).collect();
    if specs.is_empty() {
        bail!("no known uarch in {only:?}");
    }
    let mut summaries = Vec::new();
    let mut shipped = Vec::new();
    for spec in &specs {
        match convert_one(data, spec, csv.as_ref())? {
            Some(t) => {
                std::fs::write(out.join(format!("{}.json", spec.id)), to_json(&t)?)?;
                summaries.push(summarize(&t));
                shipped.push(**spec);
            }
            None => eprintln!("convert-perfmon: {}: no source data, skipped", spec.id),
        }
    }
    let dirs: Vec<(&str, &str, &str)> = shipped
        .iter()
        .map(|s| match s.source {
            Source::Intel { dir, linux, .. } => (dir, linux, s.id),
            Source::Amd { dir, .. } => (dir, dir, s.id),
        })
        .collect();
    let map = cpuid_map::build(data, &dirs)?;
    std::fs::write(out.join("cpuid.json"), serde_json::to_string_pretty(&map)? + "\n")?;
    let lic = data.join("intel-perfmon/LICENSE");
    if lic.is_file() {
        std::fs::copy(&lic, out.join("LICENSE.intel-perfmon"))?;
    }
    Ok(summaries)
}

/// Converts `id` both from its metrics JSON and from its spreadsheet column and
/// compares the Top-Down node values on synthetic counts: (nodes compared, equal within 1e-9, list of differing nodes).
pub fn compare_csv(data: &Path, id: &str) -> Result<(usize, usize, Vec<String>)> {
    let spec = SPECS.iter().find(|s| s.id == id).context("unknown uarch")?;
    let Source::Intel { column, .. } = spec.source else { bail!("{id} is not an Intel uarch") };
    let csv = intel_csv::Csv::load(&data.join("intel-perfmon/TMA_Metrics-full.csv"))?;
    let json_table = convert_one(data, spec, Some(&csv))?.context("no data")?;
    let canon = canon::Canon::new(&json_table.events);
    let mut notes = Vec::new();
    let mut csv_metrics = csv.convert(csv.column(column)?, &canon, &mut notes)?;
    drop_dependents(&mut csv_metrics, HashSet::new(), &mut notes);
    let csv_table = UarchTable { metrics: csv_metrics, ..json_table.clone() };
    let a = bottlenose_metrics::MetricEngine::from_table(json_table)?;
    let b = bottlenose_metrics::MetricEngine::from_table(csv_table)?;
    let counts = synthetic_counts(&[&a, &b]);
    let (ea, eb) = (a.evaluate(&counts)?, b.evaluate(&counts)?);
    let (mut n, mut same, mut diff) = (0, 0, Vec::new());
    for m in a.metrics().iter().filter(|m| m.tma) {
        let (Some(x), Some(y)) = (ea.get(&m.name), eb.get(&m.name)) else { continue };
        n += 1;
        if (x - y).abs() <= 1e-9 * x.abs().max(1.0) {
            same += 1;
        } else {
            diff.push(format!("{} json={x:.6} csv={y:.6}", m.name));
        }
    }
    Ok((n, same, diff))
}

/// Deterministic synthetic counts for every event the engines reference:
/// 1000 × a hash-derived factor in [1, 2), cycles-like events 1e6.
pub fn synthetic_counts(engines: &[&bottlenose_metrics::MetricEngine]) -> bottlenose_metrics::Counts {
    let mut c = bottlenose_metrics::Counts::new().with_duration(1.0).with_const("num_cpus", 8.0).with_const("socket_count", 1.0);
    for e in engines {
        let names: Vec<&str> = e.metrics().iter().map(|m| m.name.as_str()).collect();
        for spec in e.events_needed(&names) {
            let h = spec.key.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
            let lower = spec.key.to_ascii_lowercase();
            let v = if lower.contains("clk") || lower.contains("cycles") || lower.contains("slots") || lower == "tsc" {
                1e6
            } else {
                1000.0 * (1.0 + (h % 1000) as f64 / 1000.0)
            };
            c.set(&spec.key, v);
        }
    }
    c
}
