//! `--format csv`: the main table of a report as CSV (the JSON has everything).

use anyhow::Result;
use serde_json::Value;

/// Per-instruction rows of a block report: address, asm, uops, latency, one usage column per resource.
pub fn instructions(report: &Value) -> Result<String> {
    let rows = report["instructions"].as_array().cloned().unwrap_or_default();
    let mut cols: Vec<String> = Vec::new();
    for r in &rows {
        if let Some(u) = r["usage"].as_object() {
            for k in u.keys() {
                if !cols.contains(k) {
                    cols.push(k.clone());
                }
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["block".to_string(), "address".into(), "asm".into(), "uops".into(), "latency".into()];
    header.extend(cols.iter().map(|c| format!("usage_{c}")));
    w.write_record(&header)?;
    for r in &rows {
        let mut rec = vec![
            report["block"].as_str().unwrap_or("").to_string(),
            r["address"].as_str().unwrap_or("").to_string(),
            r["asm"].as_str().unwrap_or("").to_string(),
            r["uops"].to_string(),
            r["latency"].to_string(),
        ];
        rec.extend(cols.iter().map(|c| r["usage"][c].as_f64().map(|v| format!("{v:.4}")).unwrap_or_default()));
        w.write_record(&rec)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Hotspot rows of a run: the process they are in (pid and program: a run
/// that started others details the one with the most cycles), function,
/// file, line, cycles, share.
pub fn hotspots(report: &Value) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["pid", "program", "function", "file", "line", "cycles", "share"])?;
    let detailed = report["processes"].as_array().and_then(|ps| ps.iter().find(|p| p["detailed"] == Value::Bool(true)));
    let pid = detailed.and_then(|p| p["pid"].as_u64()).map(|p| p.to_string()).unwrap_or_default();
    let program = detailed.and_then(|p| p["program"].as_str()).or(report["program"].as_str()).unwrap_or("");
    for h in report["hotspots"].as_array().into_iter().flatten() {
        w.write_record([
            pid.as_str(),
            program,
            h["function"].as_str().unwrap_or(""),
            h["file"].as_str().unwrap_or(""),
            &h["line"].as_u64().map(|l| l.to_string()).unwrap_or_default(),
            &format!("{:.0}", h["cycles"].as_f64().unwrap_or(0.0)),
            &format!("{:.6}", h["share"].as_f64().unwrap_or(0.0)),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}
