//! `bottlenose study`: run a study (programs x machines x variants) on this
//! machine or on Slurm, report it, diff two studies.

use anyhow::{anyhow, bail, Context, Result};
use bottlenose_study::driver::{Backend, Event, RunOptions};
use bottlenose_study::render::{self, StudyReport};
use bottlenose_study::slurm::{SlurmConfig, TaskList};
use bottlenose_study::{expand, table, Job, Store, Study};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct StudyArgs {
    #[command(subcommand)]
    command: StudyCommand,
}

#[derive(Subcommand)]
enum StudyCommand {
    /// Run the jobs of a study file that its result store does not have yet.
    #[command(after_help = "Examples:
  bottlenose study run examples/study.toml                 # a process pool, one job per core
  bottlenose study run examples/study.toml --local 4 --store /tmp/s
  bottlenose study run examples/study.toml --slurm --partition debug --throttle 8")]
    Run(RunArgs),
    /// The study's results as a table (per machine and per program in HTML).
    #[command(after_help = "Examples:
  bottlenose study report examples/study.toml
  bottlenose study report examples/study.toml --format html -o study.html
  bottlenose study report examples/study.toml --format json -o before.json")]
    Report(ReportArgs),
    /// Compare two studies job by job (study files, or saved `study report --format json` files).
    #[command(after_help = "Examples:
  bottlenose study diff before.json examples/study.toml
  bottlenose study diff o2.toml o3.toml --format csv")]
    Diff(DiffArgs),
    /// Run job INDEX of a Slurm task list (the generated batch script calls this).
    #[command(hide = true)]
    ExecTask {
        list: PathBuf,
        #[arg(env = "SLURM_ARRAY_TASK_ID")]
        index: usize,
    },
}

#[derive(Args)]
struct RunArgs {
    /// The study file (TOML).
    file: PathBuf,
    /// Run on this machine with N processes at once (the default, N = the number of cores).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "0", conflicts_with = "slurm")]
    local: Option<usize>,
    /// Submit the jobs as one Slurm job array (sbatch) and follow it (squeue, sacct).
    #[arg(long)]
    slurm: bool,
    /// The result store directory (default: the study file's `store`, else FILE's name with .store beside it).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Slurm partition (default: the study's [slurm] partition, else Slurm's default).
    #[arg(long, requires = "slurm")]
    partition: Option<String>,
    /// Slurm time limit of each task, e.g. 00:10:00.
    #[arg(long, requires = "slurm")]
    time_limit: Option<String>,
    /// At most N array tasks at once (sbatch --array=...%N).
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    throttle: Option<u32>,
    /// CPUs of each Slurm task.
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    cpus_per_task: Option<u32>,
    /// Jobs per Slurm array task (default: the study's [slurm] chunk, else 1).
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    chunk: Option<u32>,
    /// Times a failed job is run again (default: the study's `retries`, else 1).
    #[arg(long, value_name = "N")]
    retries: Option<u32>,
    /// Seconds between two reads of the Slurm queue.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, requires = "slurm")]
    poll: f64,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Csv,
    Json,
    Html,
}

#[derive(Args)]
struct ReportArgs {
    file: PathBuf,
    #[arg(long)]
    store: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
    /// Write to this file instead of stdout.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    Text,
    Csv,
    Json,
}

#[derive(Args)]
struct DiffArgs {
    /// A study file (its results from its store) or a saved study report (JSON).
    a: PathBuf,
    b: PathBuf,
    /// The store of A when A is a study file.
    #[arg(long)]
    store_a: Option<PathBuf>,
    #[arg(long)]
    store_b: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: DiffFormat,
}

pub fn run(a: StudyArgs) -> Result<i32> {
    match a.command {
        StudyCommand::Run(r) => run_study(r),
        StudyCommand::Report(r) => report(r).map(|()| 0),
        StudyCommand::Diff(d) => diff(d).map(|()| 0),
        StudyCommand::ExecTask { list, index } => exec_task(&list, index),
    }
}

/// The study, its jobs and its store directory.
fn load(file: &Path, store: Option<&Path>) -> Result<(Study, Vec<Job>, PathBuf)> {
    let study = Study::load(file)?;
    let jobs = expand(&study, &crate::machine_choice::for_study).map_err(|e| anyhow!("{}: {e:#}", file.display()))?;
    let dir = match (store, &study.store) {
        (Some(s), _) => s.to_path_buf(),
        (None, Some(s)) => study.path(s),
        (None, None) => study.dir.join(format!("{}.store", file.file_stem().and_then(|s| s.to_str()).unwrap_or("study"))),
    };
    Ok((study, jobs, dir))
}

fn run_study(a: RunArgs) -> Result<i32> {
    let (study, jobs, dir) = load(&a.file, a.store.as_deref())?;
    if a.slurm {
        // before anything is printed or created: an unreachable cluster is the whole answer
        bottlenose_study::slurm::check_reachable()?;
    }
    let store = Store::open(&dir)?;
    // held until the study ends: two drivers on one store would run the same jobs twice
    let _lock = store.lock_for_run()?;
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let backend = if a.slurm {
        if !(a.poll > 0.0 && a.poll.is_finite()) {
            bail!("--poll must be a positive number of seconds");
        }
        let s = &study.slurm;
        Backend::Slurm(SlurmConfig {
            partition: a.partition.or_else(|| s.partition.clone()),
            time_limit: a.time_limit.or_else(|| s.time_limit.clone()),
            throttle: a.throttle.or(s.throttle),
            cpus_per_task: a.cpus_per_task.or(s.cpus_per_task),
            chunk: a.chunk.or(s.chunk).unwrap_or(1) as usize,
            poll: Duration::from_secs_f64(a.poll),
        })
    } else {
        Backend::Local { workers: a.local.filter(|&n| n > 0).unwrap_or(cores) }
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // Ctrl-C reaches the running jobs too; the driver stops starting new ones
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let exe = std::env::current_exe().context("cannot find the bottlenose executable")?;
    let opts = RunOptions { backend, exe, study: study.name.clone(), retries: a.retries.or(study.retries).unwrap_or(1), interrupt };
    let host = crate::machine_choice::choose("host").map(|c| c.host.cpu).unwrap_or_default();
    eprintln!("study {}: {} jobs, store {}; host: {host}", study.name, jobs.len(), store.dir().display());
    let (mut total, mut finished) = (jobs.len(), 0usize);
    let summary = bottlenose_study::run(&jobs, &store, &opts, &mut |e| match e {
        Event::Planned { jobs, distinct, skipped } => {
            (total, finished) = (distinct, skipped);
            if distinct < jobs {
                eprintln!("{jobs} jobs are {distinct} distinct ones (machines under two names, or a variant that changes nothing)");
            }
            if skipped > 0 {
                eprintln!("{skipped} jobs already in the store: skipped");
            }
        }
        Event::Attempt { attempt, jobs } if attempt > 1 => eprintln!("retry {}: {jobs} failed jobs again", attempt - 1),
        Event::Attempt { .. } => {}
        Event::Done(job) => {
            finished += 1;
            eprintln!("[{finished}/{total}] done: {}", job.label());
        }
        Event::Failed(_, err) => eprintln!("failed: {err}"),
        Event::Note(line) => eprintln!("{line}"),
    })?;
    eprintln!(
        "study {}: {} jobs{}, {} skipped (already done), {} ran, {} failed{}",
        study.name,
        summary.total,
        if summary.distinct < summary.total { format!(" ({} distinct)", summary.distinct) } else { String::new() },
        summary.skipped,
        summary.ran,
        summary.failed.len(),
        if summary.interrupted { "; interrupted: run it again to resume" } else { "" }
    );
    if summary.interrupted {
        return Ok(130);
    }
    if let Some((job, e)) = summary.failed.first() {
        bail!("{} of {} jobs failed, first {}: {e}", summary.failed.len(), summary.distinct, job.label());
    }
    Ok(0)
}

/// Runs the jobs of one array task; fails (so that Slurm says FAILED) when one of them did.
fn exec_task(list: &Path, index: usize) -> Result<i32> {
    let tasks = TaskList::load(list)?;
    if index >= tasks.tasks() {
        bail!("{} has {} tasks, no task {index}", list.display(), tasks.tasks());
    }
    let exe = std::env::current_exe().context("cannot find the bottlenose executable")?;
    let mut failed = 0;
    for job in tasks.task(index) {
        if let Err(e) = bottlenose_study::exec::execute(&exe, job, &tasks.results_dir) {
            eprintln!("failed: {e}");
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {} jobs of task {index} failed", tasks.task(index).len());
    }
    Ok(0)
}

fn report(a: ReportArgs) -> Result<()> {
    let (study, jobs, dir) = load(&a.file, a.store.as_deref())?;
    let rows = table::rows(&jobs, &Store::open_existing(&dir)?)?;
    let text = match a.format {
        ReportFormat::Text => render::text(&study.name, &rows),
        ReportFormat::Csv => render::csv(&rows)?,
        ReportFormat::Json => serde_json::to_string_pretty(&StudyReport::new(&study.name, rows))? + "\n",
        ReportFormat::Html => render::html(&study.name, &rows),
    };
    match &a.output {
        Some(p) => crate::output::write_atomic(p, &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}


/// A side of a diff: a saved report, or a study file read with its store.
fn side(path: &Path, store: Option<&Path>) -> Result<StudyReport> {
    let name = path.display().to_string();
    if path.extension().is_some_and(|e| e == "json") {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
        return StudyReport::parse(&text, &name);
    }
    let (study, jobs, dir) = load(path, store)?;
    Ok(StudyReport::new(&study.name, table::rows(&jobs, &Store::open_existing(&dir)?)?))
}

fn diff(a: DiffArgs) -> Result<()> {
    let ra = side(&a.a, a.store_a.as_deref())?;
    let rb = side(&a.b, a.store_b.as_deref())?;
    let rows = render::diff(&ra.rows, &rb.rows);
    match a.format {
        DiffFormat::Text => print!("{}", render::diff_text(&format!("{} ({})", ra.study, a.a.display()), &format!("{} ({})", rb.study, a.b.display()), &rows)),
        DiffFormat::Json => println!("{}", serde_json::to_string_pretty(&rows)?),
        DiffFormat::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout());
            for r in &rows {
                w.serialize(r)?;
            }
            w.flush()?;
        }
    }
    Ok(())
}
