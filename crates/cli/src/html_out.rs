//! HTML output: the report's JSON plus what makes the page self-contained
//! (the source files of the hotspots, the machine summary), rendered once.

use anyhow::{Context, Result};
use bottlenose_machine::Machine;
use serde_json::Value;
use std::path::Path;

/// Adds `sources` (file → text, for files named by hotspots that exist here) and
/// `machine_summary` to each report the value holds, then renders and writes atomically.
/// `machine` is the model the reports were computed on, as resolved (a `--machine
/// custom.toml` has no name to look up again); without it (`report` of a saved JSON,
/// `topdown`), a built-in machine of the report's `machine` name is summarized.
pub fn write_html(path: &Path, mut report: Value, title: &str, machine: Option<&Machine>) -> Result<()> {
    let summary = machine.map(bottlenose_report::render_machine);
    match &mut report {
        Value::Array(regions) => regions.iter_mut().for_each(|r| enrich(r, summary.as_deref())),
        one => enrich(one, summary.as_deref()),
    }
    let html = bottlenose_report::render_html(&report, title);
    crate::output::write_atomic(path, &html).with_context(|| format!("cannot write {}", path.display()))
}

fn enrich(report: &mut Value, machine_summary: Option<&str>) {
    if !report.is_object() {
        return;
    }
    if report.get("machine_summary").is_none() {
        let summary = match machine_summary {
            Some(text) => Some(text.to_string()),
            None => report["machine"].as_str().and_then(|n| Machine::resolve(n).ok()).map(|m| bottlenose_report::render_machine(&m)),
        };
        if let Some(text) = summary {
            report["machine_summary"] = Value::String(text);
        }
    }
    if report.get("sources").is_none() {
        let mut sources = serde_json::Map::new();
        if let Some(rows) = report["hotspots"].as_array() {
            for f in rows.iter().filter_map(|h| h["file"].as_str()).take(200) {
                if sources.len() >= 8 || sources.contains_key(f) {
                    continue;
                }
                if let Ok(text) = std::fs::read_to_string(f) {
                    if text.len() < 2_000_000 {
                        sources.insert(f.to_string(), Value::String(text));
                    }
                }
            }
        }
        if !sources.is_empty() {
            report["sources"] = Value::Object(sources);
        }
    }
}

/// `bottlenose report RESULT.json -o FILE.html`
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  bottlenose run --format json -o run.json -- ./prog && bottlenose report run.json -o run.html\n  bottlenose analyze k.s --format json > k.json && bottlenose report k.json -o k.html")]
pub struct ReportArgs {
    /// A JSON report written by `analyze`, `run` or `topdown` with --format json.
    pub input: std::path::PathBuf,
    /// The HTML file to write.
    #[arg(long, short)]
    pub output: std::path::PathBuf,
}

pub fn run(a: ReportArgs) -> Result<i32> {
    let text = std::fs::read_to_string(&a.input).with_context(|| format!("cannot read {}", a.input.display()))?;
    let value = parse_reports(&text).map_err(|e| anyhow::anyhow!("{} is not a bottlenose JSON report: {e}", a.input.display()))?;
    let title = format!("bottlenose: {}", a.input.display());
    write_html(&a.output, value, &title, None)?;
    Ok(0)
}

/// Every JSON the tool writes as a report: one object (`analyze`, `run`,
/// `topdown`), an array of them (`analyze` of several regions), or one object
/// per line (`topdown --interval`). Several reports come back as an array.
fn parse_reports(text: &str) -> Result<Value, String> {
    let mut values = Vec::new();
    for v in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        values.push(v.map_err(|e| e.to_string())?);
    }
    let value = match values.len() {
        0 => return Err("the file is empty".into()),
        1 => values.pop().unwrap_or_default(),
        _ => Value::Array(values),
    };
    let reports: Vec<&Value> = match &value {
        Value::Array(a) => a.iter().collect(),
        one => vec![one],
    };
    if reports.is_empty() {
        return Err("an empty list".into());
    }
    for (i, r) in reports.iter().enumerate() {
        let Some(o) = r.as_object() else { return Err(format!("item {} is not a JSON object", i + 1)) };
        match o.get("schema").and_then(Value::as_str) {
            Some(s) if !["bottlenose/analyze/", "bottlenose/run/", "bottlenose/topdown/"].iter().any(|k| s.starts_with(k)) => {
                return Err(format!("{s} is not a report of analyze, run or topdown"));
            }
            _ => {}
        }
    }
    Ok(value)
}
