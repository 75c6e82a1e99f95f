//! Running one job: the bottlenose executable with the job's arguments, its JSON
//! report checked and left in the store's `results/` directory. The local pool
//! and every Slurm array task run jobs through this.

use crate::expand::{Job, BOTTLENOSE_VERSION};
use crate::spec::JobKind;
use anyhow::{anyhow, Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The stop reason (crates/analysis, `program.rs`) of a run that used up its `max_instructions`: a complete
/// result for the budget the study asked for.
const BUDGET_STOP: &str = "instruction limit";

/// Runs `job` with `exe` and leaves `results/HASH.json` (or `HASH.failed`, whose
/// one line is also the error returned) in `results_dir`. The job's standard
/// error goes to `logs/HASH.log` beside it.
pub fn execute(exe: &Path, job: &Job, results_dir: &Path) -> Result<(), String> {
    let outcome = attempt(exe, job, results_dir);
    if let Err(e) = &outcome {
        let line = format!("{e:#}").replace('\n', " ");
        let _ = write_atomic(&results_dir.join(format!("{}.failed", job.hash)), &line);
        return Err(line);
    }
    Ok(())
}

fn attempt(exe: &Path, job: &Job, results_dir: &Path) -> Result<()> {
    let logs = results_dir.parent().unwrap_or(results_dir).join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let log_path = logs.join(format!("{}.log", job.hash));
    let log = std::fs::File::create(&log_path).with_context(|| format!("cannot create {}", log_path.display()))?;
    let out = tempfile::NamedTempFile::new_in(results_dir).with_context(|| format!("cannot write in {}", results_dir.display()))?;
    // the output options go before `--`, after the subcommand
    let (command, rest) = job.argv.split_first().ok_or_else(|| anyhow!("job {} has no command", job.hash))?;
    let mut cmd = Command::new(exe);
    cmd.arg(command).args(["--format", "json"]);
    match job.kind {
        JobKind::Run => {
            cmd.arg("--quiet").arg("--output").arg(out.path()).stdout(Stdio::null());
        }
        JobKind::Analyze => {
            cmd.stdout(out.reopen().context("cannot reopen the output file")?);
        }
    }
    cmd.args(rest).stdin(Stdio::null()).stderr(log.try_clone()?);
    let started = std::time::Instant::now();
    let status = cmd.status().with_context(|| format!("cannot start {}", exe.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(out.path()).unwrap_or_default();
    let mut report: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(_) => {
            let why = last_line(&log_path).unwrap_or_else(|| format!("no report ({status})"));
            return Err(anyhow!("{}: {why}", job.label()));
        }
    };
    if report.get("complete").and_then(|c| c.as_bool()) == Some(false) {
        let stop = report.get("stop_reason").and_then(|s| s.as_str()).unwrap_or("incomplete");
        if stop != BUDGET_STOP {
            return Err(anyhow!("{}: partial report ({stop})", job.label()));
        }
    }
    if let Some(o) = report.as_object_mut() {
        o.insert(
            "study".into(),
            serde_json::json!({
                "bottlenose_version": BOTTLENOSE_VERSION,
                "seconds": seconds,
                "node": hostname(),
                "exit_status": status.code(),
            }),
        );
    }
    write_atomic(&results_dir.join(format!("{}.json", job.hash)), &report.to_string())
}

/// The last non-empty line the job printed on standard error.
fn last_line(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default()
}

pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
