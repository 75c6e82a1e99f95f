//! HTML output: the report's JSON plus what makes the page self-contained
//! (the source files of the hotspots, the machine summary), rendered once.

use anyhow::{Context, Result};
use bottlenose_machine::Machine;
use serde_json::Value;
use std::path::Path;

/// Adds `sources` (file → text, for files named by hotspots that exist here) and
/// `machine_summary`, then renders and writes atomically.
pub fn write_html(path: &Path, mut report: Value, title: &str) -> Result<()> {
    enrich(&mut report);
    let html = bottlenose_report::render_html(&report, title);
    crate::output::write_atomic(path, &html).with_context(|| format!("cannot write {}", path.display()))
}

fn enrich(report: &mut Value) {
    if report.get("machine_summary").is_none() {
        if let Some(m) = report["machine"].as_str().and_then(|n| Machine::resolve(n).ok()) {
            report["machine_summary"] = Value::String(bottlenose_report::render_machine(&m));
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
    let value: Value = serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{} is not a bottlenose JSON report: {e}", a.input.display()))?;
    if !value.is_object() {
        anyhow::bail!("{} is not a bottlenose JSON report (expected an object)", a.input.display());
    }
    let title = format!("bottlenose: {}", a.input.display());
    write_html(&a.output, value, &title)?;
    Ok(0)
}
