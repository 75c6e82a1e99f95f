//! The Slurm backend: one job array per round (`sbatch --array=0-K%N`), whose
//! task I runs job I of a list written to the store directory through
//! `bottlenose study exec-task`; `squeue` (then `sacct`, once the controller
//! has forgotten the job) for the tasks' states. Scheduling, throttling, time
//! limits and placement are Slurm's; only the retry of failed tasks is a new
//! array of those tasks.

use crate::driver::{Event, Round};
use crate::expand::Job;
use crate::store::{Outcome, Store};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[derive(Debug, Clone, Default)]
pub struct SlurmConfig {
    pub partition: Option<String>,
    pub time_limit: Option<String>,
    pub throttle: Option<u32>,
    pub cpus_per_task: Option<u32>,
    /// Jobs per array task (short jobs amortize the scheduling of a task).
    pub chunk: usize,
    /// How often the queue is read.
    pub poll: Duration,
}

/// The job list the array tasks read: task I runs jobs I x chunk .. (I + 1) x chunk.
#[derive(Serialize, Deserialize)]
pub struct TaskList {
    pub results_dir: PathBuf,
    pub chunk: usize,
    pub jobs: Vec<Job>,
}

impl TaskList {
    pub fn load(path: &Path) -> Result<TaskList> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read the task list {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not a study task list", path.display()))
    }

    /// The jobs of array task `task`.
    pub fn task(&self, task: usize) -> &[Job] {
        let start = task.saturating_mul(self.chunk).min(self.jobs.len());
        &self.jobs[start..(start + self.chunk).min(self.jobs.len())]
    }

    pub fn tasks(&self) -> usize {
        self.jobs.len().div_ceil(self.chunk)
    }
}

/// Slurm's terminal job states (squeue --states, sacct): a task in one of them is over.
const TERMINAL: &[&str] = &[
    "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED",
];

pub fn run_round<'j>(round: &Round, store: &Store, jobs: &[&'j Job], cfg: &SlurmConfig, events: &mut dyn FnMut(Event)) -> Result<Vec<(&'j Job, String)>> {
    check_reachable()?;
    let dir = store.dir().join("slurm").join(format!("{}-attempt{}", crate::store::now(), round.attempt));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let list_path = dir.join("jobs.json");
    let list = TaskList { results_dir: store.results_dir(), chunk: cfg.chunk.max(1), jobs: jobs.iter().map(|j| (*j).clone()).collect() };
    let tasks = list.tasks();
    let task_of = |job: usize| job / list.chunk;
    crate::exec::write_atomic(&list_path, &serde_json::to_string_pretty(&list)?)?;
    let script = dir.join("task.sh");
    crate::exec::write_atomic(&script, &batch_script(&round.exe, &list_path))?;

    let mut array = format!("0-{}", tasks - 1);
    if let Some(n) = cfg.throttle {
        array.push_str(&format!("%{n}"));
    }
    let mut sbatch = Command::new("sbatch");
    sbatch
        .args(["--parsable", "--array", &array, "--job-name", &format!("bottlenose-{}", round.study)])
        .arg(format!("--output={}", dir.join("task-%a.log").display()))
        .arg(format!("--chdir={}", dir.display()));
    if let Some(p) = &cfg.partition {
        sbatch.arg(format!("--partition={p}"));
    }
    if let Some(t) = &cfg.time_limit {
        sbatch.arg(format!("--time={t}"));
    }
    if let Some(c) = cfg.cpus_per_task {
        sbatch.arg(format!("--cpus-per-task={c}"));
    }
    sbatch.arg(&script);
    let out = run_tool(&mut sbatch, "sbatch")?;
    let job_id = out.trim().split(';').next().unwrap_or_default().trim().to_string();
    if job_id.is_empty() || !job_id.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch did not print a job id (it printed '{}')", out.trim());
    }
    events(Event::Note(format!("submitted Slurm job array {job_id} ({} jobs in {tasks} tasks, array {array}); task logs in {}", jobs.len(), dir.display())));

    let mut taken = vec![false; jobs.len()];
    let mut failed = Vec::new();
    let mut last_line = String::new();
    let states = loop {
        let states = task_states(&job_id)?;
        for (i, job) in jobs.iter().enumerate() {
            if taken[i] {
                continue;
            }
            match store.take_in(job)? {
                Some(Outcome::Done) => events(Event::Done(job)),
                Some(Outcome::Failed(e)) => {
                    events(Event::Failed(job, &e));
                    failed.push((*job, e));
                }
                None => continue,
            }
            taken[i] = true;
        }
        let over = match &states {
            // the controller no longer knows the job: it is over
            None => true,
            Some(s) => (0..tasks).all(|t| s.get(&t).is_some_and(|st| TERMINAL.contains(&st.as_str()))),
        };
        if let Some(s) = &states {
            let line = queue_line(&job_id, s);
            if line != last_line {
                events(Event::Note(line.clone()));
                last_line = line;
            }
        }
        if over {
            break states.or_else(|| accounting_states(&job_id));
        }
        if round.interrupted() {
            let _ = Command::new("scancel").arg(&job_id).status();
            events(Event::Note(format!("interrupted: cancelled Slurm job {job_id}")));
            break states;
        }
        std::thread::sleep(cfg.poll);
    };
    // a task Slurm ended before it could write anything (time limit, memory, node)
    for (i, job) in jobs.iter().enumerate() {
        if taken[i] {
            continue;
        }
        let e = match store.take_in(job)? {
            Some(Outcome::Done) => {
                events(Event::Done(job));
                continue;
            }
            Some(Outcome::Failed(e)) => e,
            None => {
                let t = task_of(i);
                let state = states.as_ref().and_then(|s| s.get(&t)).map(String::as_str).unwrap_or("in an unknown state");
                let e = format!("{}: Slurm task {job_id}_{t} ended {state} without a result", job.label());
                store.record_failure(&job.hash, &e)?;
                e
            }
        };
        events(Event::Failed(job, &e));
        failed.push((job, e));
    }
    Ok(failed)
}

/// The script every array task runs: the study's own executable, so that a task
/// runs the bottlenose version that expanded the study.
fn batch_script(exe: &Path, list: &Path) -> String {
    format!(
        "#!/bin/sh\n# written by `bottlenose study run --slurm`: array task I runs the jobs of chunk I of {list}\nexec {} study exec-task {} \"$SLURM_ARRAY_TASK_ID\"\n",
        shell_quote(&exe.display().to_string()),
        shell_quote(&list.display().to_string()),
        list = list.display(),
    )
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `scontrol ping` answers at once, where sbatch would retry an absent
/// controller for many seconds before failing.
pub fn check_reachable() -> Result<()> {
    let out = Command::new("scontrol").arg("ping").output().map_err(|e| anyhow!("cannot run scontrol ({e}): is Slurm installed here?"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() && text.contains("is UP") {
        return Ok(());
    }
    let why = text
        .lines()
        .map(str::trim)
        .find(|l| l.contains("DOWN") || l.contains("fatal"))
        .or_else(|| text.lines().map(str::trim).rfind(|l| !l.is_empty()))
        .unwrap_or("no answer");
    bail!("Slurm is unreachable: `scontrol ping` says: {why}")
}

/// Runs a Slurm command; its last error line on failure.
fn run_tool(cmd: &mut Command, name: &str) -> Result<String> {
    let out = cmd.output().map_err(|e| anyhow!("cannot run {name} ({e}): is Slurm installed here?"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("no message");
        bail!("{name} failed: {line}");
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The state of each task of array `job_id` from `squeue`, finished ones
/// included (the controller keeps them for MinJobAge); `None` once it has
/// forgotten the job.
fn task_states(job_id: &str) -> Result<Option<BTreeMap<usize, String>>> {
    let out = Command::new("squeue")
        .args(["--noheader", "--array", "--states=all", "--jobs", job_id, "--format=%i|%T"])
        .output()
        .map_err(|e| anyhow!("cannot run squeue ({e})"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("Invalid job id") {
            return Ok(None);
        }
        bail!("squeue failed: {}", err.trim());
    }
    Ok(Some(parse_states(job_id, &String::from_utf8_lossy(&out.stdout))))
}

/// Task states from accounting, when the controller has purged the job (and
/// accounting is enabled: without slurmdbd `sacct` has no array tasks).
fn accounting_states(job_id: &str) -> Option<BTreeMap<usize, String>> {
    let out = Command::new("sacct").args(["--noheader", "--parsable2", "--allocations", "--jobs", job_id, "--format=JobID,State"]).output().ok()?;
    out.status.success().then(|| parse_states(job_id, &String::from_utf8_lossy(&out.stdout)))
}

/// `ID_TASK|STATE` lines; a pending throttled range (`ID_[3-9%2]`) is pending for each of its tasks.
fn parse_states(job_id: &str, text: &str) -> BTreeMap<usize, String> {
    let mut states = BTreeMap::new();
    for line in text.lines() {
        let Some((id, state)) = line.trim().split_once('|') else { continue };
        // sacct writes "CANCELLED by 0"
        let state = state.split_whitespace().next().unwrap_or_default().to_string();
        let Some(task) = id.strip_prefix(job_id).and_then(|t| t.strip_prefix('_')) else { continue };
        if let Ok(i) = task.parse::<usize>() {
            states.insert(i, state);
        } else if let Some(range) = task.strip_prefix('[').and_then(|t| t.split(['%', ']']).next()) {
            for part in range.split(',') {
                let (a, b) = part.split_once('-').unwrap_or((part, part));
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    for i in a..=b {
                        states.insert(i, state.clone());
                    }
                }
            }
        }
    }
    states
}

fn queue_line(job_id: &str, states: &BTreeMap<usize, String>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in states.values() {
        *counts.entry(s.as_str()).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {}", s.to_lowercase())).collect();
    format!("Slurm job {job_id}: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_lines_give_one_state_per_task() {
        // squeue --array prints one line per task, and a throttled pending rest as a range
        let s = parse_states("41", "41_0|COMPLETED\n41_1|RUNNING\n41_[2-4,7%2]|PENDING\n42_0|RUNNING\n");
        let want: BTreeMap<usize, String> =
            [(0, "COMPLETED"), (1, "RUNNING"), (2, "PENDING"), (3, "PENDING"), (4, "PENDING"), (7, "PENDING")].into_iter().map(|(i, s)| (i, s.to_string())).collect();
        assert_eq!(s, want);
        // sacct's "CANCELLED by UID"
        assert_eq!(parse_states("9", "9_3|CANCELLED by 0\n")[&3], "CANCELLED");
    }

    #[test]
    fn a_task_runs_its_chunk_of_the_list() {
        let job = |i: usize| Job { hash: format!("{i}"), program: "p".into(), machine: "m".into(), variant: "v".into(), kind: crate::spec::JobKind::Run, argv: vec![] };
        let list = TaskList { results_dir: "/r".into(), chunk: 4, jobs: (0..10).map(job).collect() };
        assert_eq!(list.tasks(), 3);
        let hashes = |t: usize| list.task(t).iter().map(|j| j.hash.clone()).collect::<Vec<_>>().join(",");
        assert_eq!(hashes(0), "0,1,2,3");
        assert_eq!(hashes(2), "8,9");
        assert_eq!(hashes(3), "");
    }

    #[test]
    fn the_batch_script_quotes_its_paths() {
        let s = batch_script(Path::new("/opt/it's/bottlenose"), Path::new("/s/jobs.json"));
        assert!(s.contains("exec '/opt/it'\\''s/bottlenose' study exec-task '/s/jobs.json' \"$SLURM_ARRAY_TASK_ID\""), "{s}");
    }
}
