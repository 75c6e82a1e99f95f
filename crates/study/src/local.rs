//! The local backend: a pool of worker threads on this machine, each running one
//! job's process at a time.

use crate::driver::{Event, Round};
use crate::exec::execute;
use crate::expand::Job;
use crate::store::Store;
use anyhow::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `jobs` on `workers` processes at once; returns the ones that failed.
pub fn run_round<'j>(round: &Round, store: &Store, jobs: &[&'j Job], workers: usize, events: &mut dyn FnMut(Event)) -> Result<Vec<(&'j Job, String)>> {
    let next = AtomicUsize::new(0);
    let results_dir = store.results_dir();
    let mut failed = Vec::new();
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::channel::<usize>();
        for _ in 0..workers.clamp(1, jobs.len().max(1)) {
            let tx = tx.clone();
            let (next, results_dir) = (&next, &results_dir);
            s.spawn(move || loop {
                if round.interrupted() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                // the outcome is in the files the store takes in
                let _ = execute(&round.exe, job, results_dir);
                if tx.send(i).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for i in rx {
            let job = jobs[i];
            match store.take_in(job)? {
                Some(crate::store::Outcome::Done) => events(Event::Done(job)),
                Some(crate::store::Outcome::Failed(e)) => {
                    events(Event::Failed(job, &e));
                    failed.push((job, e));
                }
                None => {
                    let e = format!("{}: the job left no result", job.label());
                    store.record_failure(&job.hash, &e)?;
                    events(Event::Failed(job, &e));
                    failed.push((job, e));
                }
            }
        }
        Ok(())
    })?;
    Ok(failed)
}
