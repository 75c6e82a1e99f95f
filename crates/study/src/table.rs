//! The study table: one row per job, read from the stored reports.

use crate::expand::Job;
use crate::spec::JobKind;
use crate::store::Store;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Done,
    Failed,
    /// Not run yet.
    Missing,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Missing => "missing",
        }
    }
}

/// One job's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub program: String,
    pub machine: String,
    pub variant: String,
    pub kind: JobKind,
    pub status: Status,
    /// A run's cycles in its region of interest; an analysis's cycles per iteration.
    pub cycles: Option<f64>,
    pub ipc: Option<f64>,
    /// The verdict's first-ranked cause.
    pub top_cause: Option<String>,
    /// The first bottleneck of the sensitivity analysis (resources accelerated together joined by `+`).
    pub bottleneck: Option<String>,
    /// Its speedup at `weight`: cycles before over cycles after, minus 1.
    pub speedup: Option<f64>,
    pub weight: Option<f64>,
    pub error: Option<String>,
    pub hash: String,
    pub bottlenose_version: Option<String>,
}

impl Row {
    /// What `cycles` counts for a job of this kind.
    pub fn cycles_unit(&self) -> &'static str {
        match self.kind {
            JobKind::Run => "cycles",
            JobKind::Analyze => "cycles/iteration",
        }
    }

    /// The key rows of two studies are matched on.
    pub fn key(&self) -> (&str, &str, &str) {
        (&self.program, &self.machine, &self.variant)
    }
}

/// The rows of `jobs`, in their order.
pub fn rows(jobs: &[Job], store: &Store) -> Result<Vec<Row>> {
    let mut rows = Vec::with_capacity(jobs.len());
    for job in jobs {
        let mut row = Row {
            program: job.program.clone(),
            machine: job.machine.clone(),
            variant: job.variant.clone(),
            kind: job.kind,
            status: Status::Missing,
            cycles: None,
            ipc: None,
            top_cause: None,
            bottleneck: None,
            speedup: None,
            weight: None,
            error: None,
            hash: job.hash.clone(),
            bottlenose_version: None,
        };
        if let Some(stored) = store.get(&job.hash)? {
            row.status = Status::Done;
            row.bottlenose_version = Some(stored.bottlenose_version);
            fill(&mut row, &stored.report);
        } else if let Some(e) = store.last_failure(&job.hash)? {
            row.status = Status::Failed;
            row.error = Some(e);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Reads the figures from a `run` or `analyze` JSON report.
fn fill(row: &mut Row, report: &Value) {
    // analyze writes an array when its input has several regions: the first one speaks for it
    let r = report.as_array().and_then(|a| a.first()).unwrap_or(report);
    row.cycles = match row.kind {
        JobKind::Run => r.get("cycles"),
        JobKind::Analyze => r.get("cycles_per_iteration"),
    }
    .and_then(Value::as_f64);
    row.ipc = r.get("ipc").and_then(Value::as_f64);
    row.top_cause = r.pointer("/verdict/causes/0/title").and_then(Value::as_str).map(str::to_string);
    if let Some(b) = r.pointer("/bottlenecks/0") {
        let names: Vec<&str> = b.get("resources").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        row.bottleneck = (!names.is_empty()).then(|| names.join("+"));
        row.speedup = b.get("speedup").and_then(Value::as_f64);
        row.weight = b.get("weight").and_then(Value::as_f64);
    }
}
