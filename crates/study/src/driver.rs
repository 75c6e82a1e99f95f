//! Running a study: what the store already has is skipped, the rest goes to a
//! backend in rounds, and the jobs that failed go again, up to the retry count.

use crate::expand::Job;
use crate::store::Store;
use anyhow::Result;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where the jobs run.
#[derive(Debug, Clone)]
pub enum Backend {
    /// A process pool of this many workers on this machine.
    Local { workers: usize },
    Slurm(crate::slurm::SlurmConfig),
}

/// What a round of a backend needs besides its jobs.
pub struct Round {
    /// The bottlenose executable each job runs.
    pub exe: PathBuf,
    pub study: String,
    /// 1 for the first submission, 2 for the first retry...
    pub attempt: u32,
    pub interrupt: Arc<AtomicBool>,
}

impl Round {
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }
}

/// Progress, for the caller to print.
pub enum Event<'a> {
    /// Before anything runs: the study's jobs, how many distinct inputs they are
    /// (a machine under two names is one job), and how many of those the store has.
    Planned { jobs: usize, distinct: usize, skipped: usize },
    Attempt { attempt: u32, jobs: usize },
    Done(&'a Job),
    Failed(&'a Job, &'a str),
    /// A line from the backend (the Slurm job id, queue states).
    Note(String),
}

pub struct Summary {
    pub total: usize,
    /// Distinct jobs (by input hash); the counts below are of these.
    pub distinct: usize,
    pub skipped: usize,
    /// Jobs that finished in this run.
    pub ran: usize,
    /// Jobs that still failed after the last attempt, with their last error.
    pub failed: Vec<(Job, String)>,
    pub interrupted: bool,
}

pub struct RunOptions {
    pub backend: Backend,
    pub exe: PathBuf,
    pub study: String,
    /// Times a failed job is tried again.
    pub retries: u32,
    pub interrupt: Arc<AtomicBool>,
}

pub fn run(jobs: &[Job], store: &Store, opts: &RunOptions, events: &mut dyn FnMut(Event)) -> Result<Summary> {
    // the same inputs twice (a machine under two names) are one job
    let mut seen = std::collections::HashSet::new();
    let unique: Vec<&Job> = jobs.iter().filter(|j| seen.insert(j.hash.as_str())).collect();
    let mut pending = Vec::new();
    for &job in &unique {
        // a job that finished while an earlier driver was killed left its files
        store.take_in(job)?;
        if !store.is_done(&job.hash)? {
            pending.push(job);
        }
    }
    let skipped = unique.len() - pending.len();
    events(Event::Planned { jobs: jobs.len(), distinct: unique.len(), skipped });
    let mut ran = 0;
    let mut failed: Vec<(&Job, String)> = Vec::new();
    for attempt in 1..=opts.retries + 1 {
        if pending.is_empty() || opts.interrupt.load(Ordering::Relaxed) {
            break;
        }
        events(Event::Attempt { attempt, jobs: pending.len() });
        let round = Round { exe: opts.exe.clone(), study: opts.study.clone(), attempt, interrupt: opts.interrupt.clone() };
        failed = match &opts.backend {
            Backend::Local { workers } => crate::local::run_round(&round, store, &pending, *workers, events)?,
            Backend::Slurm(cfg) => crate::slurm::run_round(&round, store, &pending, cfg, events)?,
        };
        let mut still = Vec::new();
        for job in pending {
            if store.is_done(&job.hash)? {
                ran += 1;
            } else {
                still.push(job);
            }
        }
        pending = still;
    }
    // jobs never started because of an interrupt have no error of their own
    let interrupted = opts.interrupt.load(Ordering::Relaxed);
    let failed = pending
        .iter()
        .map(|j| {
            let e = failed.iter().find(|(f, _)| f.hash == j.hash).map(|(_, e)| e.clone()).unwrap_or_else(|| "not run (interrupted)".into());
            ((*j).clone(), e)
        })
        .collect();
    Ok(Summary { total: jobs.len(), distinct: unique.len(), skipped, ran, failed, interrupted })
}
