//! AMD Zen event/metric JSON from Linux `tools/perf/pmu-events/arch/x86/amdzenN`:
//! events (`EventName`, `EventCode`, `UMask`, `Unit`) and metrics
//! (`MetricName`, `MetricExpr`, `MetricGroup`, `ScaleUnit`). The pipeline
//! utilization tree comes from the `PipelineL1` / `PipelineL2` groups, the
//! parent from the `<parent>_group` group. The files carry no thresholds; the
//! nodes get the Intel TMA thresholds of their analogues (noted in provenance).

use crate::canon::constant;
use crate::util::{parse_ctx, read_json, s, short_desc, simplify};
use anyhow::Result;
use bottlenose_metrics::expr::Expr;
use bottlenose_metrics::table::{EventDef, MetricDef, SourceFile};
use bottlenose_metrics::{NameRef, Unit};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What one `amdzenN` directory holds.
pub struct Converted {
    pub events: Vec<EventDef>,
    pub metrics: Vec<MetricDef>,
    pub sources: Vec<SourceFile>,
    pub notes: Vec<String>,
    /// Dispatch width from `total_dispatch_slots`, when present.
    pub width: Option<f64>,
}

/// Intel-analogue threshold for a pipeline node (by name keywords).
fn default_threshold(name: &str, level: u32) -> Option<&'static str> {
    let has = |k: &str| name.contains(k);
    Some(match level {
        1 if has("frontend") => "> 0.15",
        1 if has("speculation") => "> 0.15",
        1 if has("backend") => "> 0.2",
        1 if has("retiring") => "> 0.7",
        1 if has("smt") => "> 0.1",
        2 if has("latency") => "> 0.1",
        2 if has("bandwidth") => "> 0.2",
        2 if has("mispredict") => "> 0.1",
        2 if has("restart") => "> 0.1",
        2 if has("memory") => "> 0.2",
        2 if has("cpu") => "> 0.1",
        2 if has("fastpath") => "> 0.6",
        2 if has("microcode") => "> 0.05",
        _ => return None,
    })
}

fn area(root: &str, name: &str) -> String {
    let top = if root.contains("frontend") {
        "FE"
    } else if root.contains("speculation") {
        "BAD"
    } else if root.contains("backend") {
        "BE"
    } else if root.contains("retiring") {
        "RET"
    } else {
        "SMT"
    };
    match (top, name) {
        ("BE", n) if n.contains("memory") => "BE/Mem".into(),
        ("BE", n) if n.contains("cpu") => "BE/Core".into(),
        (t, _) => t.into(),
    }
}

/// Converts every `*.json` in `dir` (sorted by name); `rel` is its path for provenance.
pub fn convert(dir: &Path, rel: &str) -> Result<Converted> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    let mut events = Vec::new();
    let mut raw_metrics: Vec<serde_json::Value> = Vec::new();
    let mut sources = Vec::new();
    let mut notes = Vec::new();
    let mut seen_ev = HashSet::new();
    let mut seen_m = HashSet::new();
    for f in &files {
        let fname = f.file_name().unwrap().to_string_lossy().to_string();
        sources.push(SourceFile {
            path: format!("{rel}/{fname}"),
            version: None,
            date: None,
            license: Some("Linux kernel tools/perf pmu-events (GPL-2.0); facts and formulas re-expressed".into()),
        });
        let v = read_json(f)?;
        for x in v.as_array().into_iter().flatten() {
            if let Some(name) = s(x, "EventName") {
                if !seen_ev.insert(name.to_ascii_lowercase()) {
                    continue;
                }
                events.push(EventDef {
                    name,
                    pmu: s(x, "Unit").map(|u| u.to_ascii_lowercase()),
                    code: s(x, "EventCode"),
                    umask: s(x, "UMask"),
                    desc: s(x, "BriefDescription").and_then(|d| short_desc(&d)),
                    ..EventDef::default()
                });
            } else if let Some(name) = s(x, "MetricName") {
                if seen_m.insert(name.to_ascii_lowercase()) {
                    raw_metrics.push(x.clone());
                } else {
                    notes.push(format!("duplicate metric {name} in {fname} ignored"));
                }
            }
        }
    }
    let names: HashSet<String> = raw_metrics.iter().filter_map(|m| s(m, "MetricName")).map(|n| n.to_ascii_lowercase()).collect();
    let groups = |m: &serde_json::Value| -> Vec<String> {
        s(m, "MetricGroup").map(|g| g.split(';').filter(|x| !x.is_empty()).map(str::to_string).collect()).unwrap_or_default()
    };
    // Tree structure.
    let mut parent: HashMap<String, String> = HashMap::new();
    let mut level: HashMap<String, u32> = HashMap::new();
    for m in &raw_metrics {
        let n = s(m, "MetricName").unwrap().to_ascii_lowercase();
        let g = groups(m);
        if g.iter().any(|x| x == "PipelineL1") {
            level.insert(n.clone(), 1);
        }
        if g.iter().any(|x| x == "PipelineL2") {
            level.insert(n.clone(), 2);
            if let Some(p) = g.iter().find_map(|x| x.strip_suffix("_group")).filter(|p| names.contains(*p)) {
                parent.insert(n.clone(), p.to_string());
            }
        }
    }
    let mut metrics = Vec::new();
    let mut width = None;
    let mut defaulted = 0;
    for m in &raw_metrics {
        let name = s(m, "MetricName").unwrap().to_ascii_lowercase();
        let src = s(m, "MetricExpr").unwrap_or_default();
        let expr = match parse_ctx(&src, "MetricExpr") {
            Ok(e) => simplify(e.map_names(&mut |n: NameRef| {
                if n.is_plain() && !names.contains(&n.key) {
                    if let Some(c) = constant(&n.key).filter(|_| n.key != "threads") {
                        return c;
                    }
                }
                Expr::Name(n)
            })),
            Err(e) => {
                notes.push(format!("skipped {name}: {e}"));
                continue;
            }
        };
        if name == "total_dispatch_slots" {
            if let Expr::Binary(_, a, _) = &expr {
                if let Expr::Num(w) = **a {
                    width = Some(w);
                }
            }
        }
        let lvl = level.get(&name).copied();
        let threshold = match (s(m, "MetricThreshold"), lvl) {
            (Some(t), _) => parse_ctx(&t, "MetricThreshold").ok().map(|e| simplify(e).to_string()),
            (None, Some(l)) => default_threshold(&name, l).map(|t| {
                defaulted += 1;
                format!("{name} {t}")
            }),
            _ => None,
        };
        let root = parent.get(&name).cloned().unwrap_or_else(|| name.clone());
        metrics.push(MetricDef {
            label: Some(name.clone()),
            expr: expr.to_string(),
            unit: s(m, "ScaleUnit"),
            // every pipeline metric is a ratio over total_dispatch_slots (or a level-1 node times one)
            domain: lvl.map(|_| Unit::Slots),
            desc: s(m, "BriefDescription").and_then(|d| short_desc(&d)),
            groups: groups(m),
            tma: lvl.is_some(),
            level: lvl,
            parent: parent.get(&name).cloned(),
            area: lvl.map(|_| area(&root, &name)),
            threshold,
            name,
        });
    }
    if events.is_empty() {
        notes.push("no event definitions in the source data: metrics only, events without encodings".into());
    }
    if defaulted > 0 {
        notes.push(format!(
            "{defaulted} pipeline-node thresholds are converter defaults taken from the Intel TMA analogues (the AMD files define none)"
        ));
    }
    Ok(Converted { events, metrics, sources, notes, width })
}
