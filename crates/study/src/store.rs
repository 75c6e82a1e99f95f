//! The result store: a directory with one SQLite database of finished jobs,
//! keyed by the job's input hash.
//!
//! Jobs never write the database: each one leaves its report as
//! `results/HASH.json` (or its error as `results/HASH.failed`), renamed into
//! place when complete, and the one `study run` process moves them into the
//! database. A cluster's shared file system then sees whole files only, and
//! SQLite sees one writer (its locking is not to be trusted over NFS). A job
//! finished while its driver was killed is picked up by the next run.

use crate::expand::Job;
use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};

pub struct Store {
    dir: PathBuf,
    db: Connection,
}

/// What happened to a job whose files were taken in.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Done,
    Failed(String),
}

/// A finished job's row.
#[derive(Debug, Clone)]
pub struct Stored {
    pub report: serde_json::Value,
    pub finished_at: i64,
    pub bottlenose_version: String,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS results (
    hash TEXT PRIMARY KEY,
    program TEXT NOT NULL,
    machine TEXT NOT NULL,
    variant TEXT NOT NULL,
    kind TEXT NOT NULL,
    command TEXT NOT NULL,
    bottlenose_version TEXT NOT NULL,
    finished_at INTEGER NOT NULL,
    report TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS failures (
    hash TEXT NOT NULL,
    at INTEGER NOT NULL,
    error TEXT NOT NULL
);";

impl Store {
    /// Opens the store in `dir`, creating it if needed.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir.join("results")).with_context(|| format!("cannot create the result store {}", dir.display()))?;
        let dir = std::path::absolute(dir)?;
        let path = dir.join("results.sqlite");
        let db = Connection::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        // a report run beside a study run waits for its write instead of failing
        db.busy_timeout(std::time::Duration::from_secs(30))?;
        db.execute_batch(SCHEMA).with_context(|| format!("{} is not a bottlenose result store", path.display()))?;
        Ok(Store { dir, db })
    }

    /// Opens an existing store only (for reports).
    pub fn open_existing(dir: &Path) -> Result<Store> {
        if !dir.join("results.sqlite").is_file() {
            anyhow::bail!("no result store at {} (run `bottlenose study run` first, or name it with --store)", dir.display());
        }
        Store::open(dir)
    }

    /// Takes the store for one `study run`: a second one is refused while the
    /// first runs (the lock goes with the process, however it ends).
    pub fn lock_for_run(&self) -> Result<std::fs::File> {
        use std::os::fd::AsRawFd;
        let path = self.dir.join("run.lock");
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).with_context(|| format!("cannot create {}", path.display()))?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            anyhow::bail!("another `bottlenose study run` is using the store {}", self.dir.display());
        }
        Ok(file)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where jobs leave their reports for [`Store::take_in`].
    pub fn results_dir(&self) -> PathBuf {
        self.dir.join("results")
    }

    pub fn is_done(&self, hash: &str) -> Result<bool> {
        Ok(self.db.query_row("SELECT 1 FROM results WHERE hash = ?1", [hash], |_| Ok(())).optional()?.is_some())
    }

    pub fn get(&self, hash: &str) -> Result<Option<Stored>> {
        let row = self
            .db
            .query_row("SELECT report, finished_at, bottlenose_version FROM results WHERE hash = ?1", [hash], |r| {
                Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        row.map(|(text, finished_at, bottlenose_version)| {
            let report = serde_json::from_str(&text).with_context(|| format!("the stored report of job {hash} is not JSON"))?;
            Ok(Stored { report, finished_at, bottlenose_version })
        })
        .transpose()
    }

    /// The last recorded error of a job, if it failed.
    pub fn last_failure(&self, hash: &str) -> Result<Option<String>> {
        Ok(self.db.query_row("SELECT error FROM failures WHERE hash = ?1 ORDER BY rowid DESC LIMIT 1", [hash], |r| r.get(0)).optional()?)
    }

    /// Records a failure the job could not write itself (a task killed by Slurm).
    pub fn record_failure(&self, hash: &str, error: &str) -> Result<()> {
        self.db.execute("INSERT INTO failures (hash, at, error) VALUES (?1, ?2, ?3)", params![hash, now(), error])?;
        Ok(())
    }

    /// Moves the result files of `job` into the database; `None` when it left none yet.
    pub fn take_in(&self, job: &Job) -> Result<Option<Outcome>> {
        let json = self.results_dir().join(format!("{}.json", job.hash));
        let failed = self.results_dir().join(format!("{}.failed", job.hash));
        if let Ok(report) = std::fs::read_to_string(&json) {
            // checked by the job before the rename: a complete report
            let version = serde_json::from_str::<serde_json::Value>(&report)
                .ok()
                .and_then(|v| v.pointer("/study/bottlenose_version").and_then(|s| s.as_str().map(str::to_string)))
                .unwrap_or_else(|| crate::expand::BOTTLENOSE_VERSION.to_string());
            self.db.execute(
                "INSERT OR REPLACE INTO results (hash, program, machine, variant, kind, command, bottlenose_version, finished_at, report)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![job.hash, job.program, job.machine, job.variant, job.kind.command(), serde_json::to_string(&job.argv)?, version, now(), report],
            )?;
            std::fs::remove_file(&json).with_context(|| format!("cannot remove {}", json.display()))?;
            let _ = std::fs::remove_file(&failed);
            return Ok(Some(Outcome::Done));
        }
        if let Ok(error) = std::fs::read_to_string(&failed) {
            let error = error.trim().to_string();
            self.record_failure(&job.hash, &error)?;
            std::fs::remove_file(&failed).with_context(|| format!("cannot remove {}", failed.display()))?;
            return Ok(Some(Outcome::Failed(error)));
        }
        Ok(None)
    }

    /// How many finished results the store holds.
    pub fn count(&self) -> Result<i64> {
        Ok(self.db.query_row("SELECT COUNT(*) FROM results", [], |r| r.get(0))?)
    }
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::JobKind;

    fn job(hash: &str) -> Job {
        Job { hash: hash.into(), program: "p".into(), machine: "m".into(), variant: "v".into(), kind: JobKind::Analyze, argv: vec!["analyze".into()] }
    }

    #[test]
    fn result_files_move_into_the_database_and_survive_a_reopen() {
        let d = tempfile::tempdir().unwrap();
        let store = Store::open(d.path()).unwrap();
        let (a, b, c) = (job("aa"), job("bb"), job("cc"));
        std::fs::write(store.results_dir().join("aa.json"), r#"{"cycles": 5, "study": {"bottlenose_version": "9.9"}}"#).unwrap();
        std::fs::write(store.results_dir().join("bb.failed"), "bb: partial report\n").unwrap();
        assert_eq!(store.take_in(&a).unwrap(), Some(Outcome::Done));
        assert_eq!(store.take_in(&b).unwrap(), Some(Outcome::Failed("bb: partial report".into())));
        assert_eq!(store.take_in(&c).unwrap(), None);
        // the files are gone: taken in once
        assert_eq!(std::fs::read_dir(store.results_dir()).unwrap().count(), 0);
        assert_eq!(store.take_in(&a).unwrap(), None);
        drop(store);
        let store = Store::open_existing(d.path()).unwrap();
        assert!(store.is_done("aa").unwrap() && !store.is_done("bb").unwrap());
        let got = store.get("aa").unwrap().unwrap();
        assert_eq!(got.report["cycles"], 5);
        assert_eq!(got.bottlenose_version, "9.9");
        assert_eq!(store.last_failure("bb").unwrap().as_deref(), Some("bb: partial report"));
        assert_eq!(store.count().unwrap(), 1);
    }
}

#[cfg(test)]
mod lock_tests {
    #[test]
    fn a_second_run_on_a_store_is_refused_while_the_first_holds_it() {
        let d = tempfile::tempdir().unwrap();
        let a = super::Store::open(d.path()).unwrap();
        let held = a.lock_for_run().unwrap();
        let b = super::Store::open(d.path()).unwrap();
        let e = b.lock_for_run().unwrap_err().to_string();
        assert!(e.starts_with("another `bottlenose study run` is using the store"), "{e}");
        drop(held);
        b.lock_for_run().unwrap();
    }
}
