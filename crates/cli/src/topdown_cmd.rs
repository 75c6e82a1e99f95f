//! `bottlenose topdown`: Top-Down analysis from hardware counters
//! (`perf_event_open`) or from imported `perf stat` / likwid-perfctr output.

use anyhow::{anyhow, bail, Result};
use bottlenose_counters::collect::{collect, CollectOptions, Domain, What};
use bottlenose_counters::import::{self, names::Namer};
use bottlenose_counters::perf::PerfEventBackend;
use bottlenose_counters::plan::{self, Method, Selection};
use bottlenose_counters::report::{EventOut, Report, View};
use bottlenose_counters::{cpu, CounterBackend, CountersError};
use bottlenose_metrics::MetricEngine;
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum MethodArg {
    /// The TMA tree of the CPU's table.
    Tma,
    /// Levinthal's cycle accounting (Core 2 events).
    CycleAccounting,
    /// The 5-event level-1 recipe (likwid TOPDOWN, perf --topdown on Haswell-class cores).
    #[value(name = "5-event")]
    FiveEvent,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Toggle {
    Auto,
    On,
    Off,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum DomainArg {
    Auto,
    User,
    Kernel,
    All,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bottlenose topdown -- ./prog args              # level 1 of the detected CPU's tree
  bottlenose topdown -l 3 --repeat -- ./prog     # down to level 3, one run per counter group
  bottlenose topdown --nodes Memory_Bound -I 500 -- ./prog
  bottlenose topdown -a --duration 5             # system-wide for 5 s (needs perf_event_paranoid <= 0)
  bottlenose topdown --print-events --cpu skl -l 2
  bottlenose topdown --import stat.csv --cpu skl # perf stat -x, / -j output, or likwid-perfctr CSV
  bottlenose topdown --import stat.csv --cpu hsw --method 5-event --format json

Without hardware counters (many VMs) collection fails with one line; `bottlenose run`
gives simulated Top-Down from the model instead. The command's exit status passes through.")]
pub struct TopdownArgs {
    /// Deepest tree level to measure and show (default 1 when counting, every level of an import).
    #[arg(short = 'l', long)]
    pub level: Option<u32>,
    /// Also measure and show these nodes (names or labels, comma separated) and their ancestors.
    #[arg(long, value_delimiter = ',')]
    pub nodes: Vec<String>,
    /// Show the children of unflagged nodes, and nodes without values.
    #[arg(long)]
    pub all: bool,
    /// Print a tree (CSV block, JSON line) every MS milliseconds.
    #[arg(short = 'I', long = "interval", value_name = "MS")]
    pub interval: Option<u64>,
    /// Count every CPU (system-wide), while the command runs or until Ctrl-C / --duration.
    #[arg(short = 'a', long = "all-cpus")]
    pub all_cpus: bool,
    /// Attach to a running process until it exits, Ctrl-C or --duration.
    #[arg(short = 'p', long)]
    pub pid: Option<i32>,
    /// Stop -p / -a without a command after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Import perf stat -x, or -j output, or likwid-perfctr CSV, instead of counting.
    #[arg(long, value_name = "FILE")]
    pub import: Option<PathBuf>,
    /// The CPU's table instead of detection (skl, skx, icl, spr, adl, hsw, ivb, zen3, zen4, zen5, neoverse-n1, neoverse-v2; yasin2014).
    #[arg(long, value_name = "NAME")]
    pub cpu: Option<String>,
    /// How the breakdown is computed.
    #[arg(long, value_enum, default_value = "tma")]
    pub method: MethodArg,
    /// Run the command once per counter group instead of multiplexing.
    #[arg(long)]
    pub repeat: bool,
    /// Print the groups and raw encodings that would be programmed, and exit (no PMU needed).
    #[arg(long)]
    pub print_events: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Also write a self-contained HTML report (the last sample's tree) to this file.
    #[arg(long)]
    pub html: Option<std::path::PathBuf>,
    /// SMT (hyper-threading) for the formulas: auto (this machine's; off for imports), on, off.
    #[arg(long, value_enum, default_value = "auto")]
    pub smt: Toggle,
    /// Privilege levels counted (auto: kernel too when perf_event_paranoid allows it).
    #[arg(long, value_enum, default_value = "auto")]
    pub domain: DomainArg,
    /// The command to run and count (after --).
    #[arg(trailing_var_arg = true, num_args = 0..)]
    pub command: Vec<OsString>,
}

fn method(m: MethodArg) -> Method {
    match m {
        MethodArg::Tma => Method::Tma,
        MethodArg::CycleAccounting => Method::CycleAccounting,
        MethodArg::FiveEvent => Method::FiveEvent,
    }
}

fn smt_active() -> bool {
    std::fs::read_to_string("/sys/devices/system/cpu/smt/active").map(|s| s.trim() == "1").unwrap_or(false)
}

/// Prints one report per sample in the chosen format.
fn print_reports(reports: &[Report], format: Format, view: View) {
    for (i, r) in reports.iter().enumerate() {
        match format {
            Format::Text => {
                if i > 0 {
                    println!();
                }
                print!("{}", crate::color::paint(&r.text(view)));
            }
            Format::Json => {
                let mut v = r.json(view);
                if let Some(o) = v.as_object_mut() {
                    o.insert("schema".into(), serde_json::Value::String("bottlenose/topdown/v1".into()));
                }
                println!("{}", if reports.len() > 1 { v.to_string() } else { serde_json::to_string_pretty(&v).unwrap_or_default() })
            }
            Format::Csv => print!("{}", r.csv(view, i == 0)),
        }
    }
    if format != Format::Json {
        if let Some(r) = reports.last() {
            for w in &r.warnings {
                eprintln!("warning: {w}");
            }
        }
    }
}

pub fn run(a: TopdownArgs) -> Result<i32> {
    let m = method(a.method);
    if let Some(file) = &a.import {
        return import_file(&a, file, m);
    }
    let smt = match a.smt {
        Toggle::On => true,
        Toggle::Off => false,
        Toggle::Auto => smt_active(),
    };
    let what = match (a.pid, a.all_cpus, a.command.is_empty()) {
        (Some(_), true, _) => bail!("give either -p PID or -a, not both"),
        (Some(_), _, false) => bail!("give either -p PID or a command, not both"),
        (Some(p), false, true) => Some(What::Pid(p)),
        (None, true, empty) => Some(What::SystemWide((!empty).then(|| a.command.clone()))),
        (None, false, false) => Some(What::Command(a.command.clone())),
        (None, false, true) => None,
    };
    if what.is_none() && !a.print_events {
        bail!("nothing to count: give a command after --, -p PID or -a (or --import FILE, or --print-events)");
    }
    let mut backend = PerfEventBackend::new();
    let sys = backend.sys_info();
    if !a.print_events && !sys.has_core_pmu() {
        return Err(CountersError::NoPmu.into());
    }
    let hw = match &a.cpu {
        Some(c) => table_for(c),
        None => {
            let info = cpu::detect(&sys)?;
            if !info.hybrid.is_empty() {
                eprintln!("note: {}: counting the P-core PMU (cpu_core); threads on E-cores are not counted", info.describe());
            }
            info.table()?.to_string()
        }
    };
    let sel = Selection { level: Some(a.level.unwrap_or(1)), nodes: a.nodes.clone() };
    let plan = plan::plan(&hw, m, &sel, smt)?;
    if a.print_events {
        print!("{}", plan.describe());
        return Ok(0);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let opts = CollectOptions {
        what: what.ok_or_else(|| anyhow!("nothing to count"))?,
        interval: a.interval.map(Duration::from_millis),
        repeat: a.repeat,
        domain: match a.domain {
            DomainArg::Auto => Domain::Auto,
            DomainArg::User => Domain::User,
            DomainArg::Kernel => Domain::Kernel,
            DomainArg::All => Domain::All,
        },
        stop: Some(stop),
        duration: a.duration.map(Duration::from_secs_f64),
        cpus: None,
    };
    let run = collect(&mut backend, &plan, &opts)?;
    let mut warnings: Vec<String> = plan.skipped.iter().map(|s| format!("not counted: {} ({})", s.name, s.reason)).collect();
    warnings.extend(plan.notes.iter().cloned());
    warnings.extend(run.warnings.iter().cloned());
    let samples = if run.intervals.is_empty() { vec![(None, &run.total)] } else { run.intervals.iter().map(|s| (Some(s.time), s)).collect() };
    let reports: Vec<Report> = samples
        .into_iter()
        .map(|(time, s)| {
            let mut r = Report::new(&plan.engine, m, &s.counts, &plan.selection);
            r.uarch = plan.hw.clone();
            r.time = time;
            r.events = s.values.iter().map(|v| EventOut { name: v.name.clone(), key: v.key.clone(), value: v.value, running: Some(v.running) }).collect();
            r.warnings = warnings.clone();
            r
        })
        .collect();
    print_reports(&reports, a.format, View { all: a.all, hide_missing: false });
    write_html(&a, &reports, View { all: a.all, hide_missing: false })?;
    Ok(run.exit_status.unwrap_or(0))
}

fn import_file(a: &TopdownArgs, file: &std::path::Path, m: Method) -> Result<i32> {
    if a.interval.is_some() || a.repeat || a.pid.is_some() || a.all_cpus || !a.command.is_empty() {
        bail!("--import reads counts from a file: -I, --repeat, -p, -a and a command do not apply (interval files are detected)");
    }
    let smt = a.smt == Toggle::On;
    let parsed = import::parse_file(file)?;
    let hw = match (&a.cpu, &parsed.cpu) {
        (Some(c), _) => table_for(c),
        (None, Some(c)) => c.clone(),
        (None, None) => bail!(
            "{} does not name its CPU{}: pass --cpu NAME (one of {})",
            file.display(),
            parsed.cpu_text.as_deref().map(|t| format!(" in a way bottlenose knows ('{t}')")).unwrap_or_default(),
            cpu::supported_uarchs().join(", ")
        ),
    };
    let engine = m.engine(&hw, smt)?;
    let hw_engine = MetricEngine::for_uarch(if hw == "zen5" { "zen4" } else { &hw }).map_err(|e| anyhow!("{e}"))?;
    let namer = Namer::new(Some(&hw_engine), &engine, smt);
    let imported = parsed.counts(&namer, &plan::constants(smt));
    let sel = Selection { level: a.level, nodes: a.nodes.clone() };
    sel.metrics(&engine)?;
    let many = imported.samples.len() > 1;
    let samples: Vec<&import::ImportSample> = if many { imported.samples.iter().collect() } else { vec![&imported.total] };
    let reports: Vec<Report> = samples
        .into_iter()
        .map(|s| {
            let mut r = Report::new(&engine, m, &s.counts, &sel);
            r.uarch = hw.clone();
            r.time = s.time;
            r.label = s.label.as_ref().map(|l| format!("region {l}"));
            r.events = s.events.clone();
            r.warnings = imported.warnings.clone();
            r
        })
        .collect();
    if reports.iter().all(|r| r.tree.walk().iter().all(|(_, n)| n.value.is_none())) {
        bail!("no Top-Down node of the {} tree could be computed from {} ({}): it lacks the events the formulas need (see --print-events --cpu {hw})", engine.uarch(), file.display(), parsed.format.name());
    }
    print_reports(&reports, a.format, View { all: a.all, hide_missing: true });
    write_html(a, &reports, View { all: a.all, hide_missing: true })?;
    Ok(0)
}

/// `--html`: the last report's JSON rendered as a page (all nodes, flagged ones open).
fn write_html(a: &TopdownArgs, reports: &[Report], view: View) -> Result<()> {
    let (Some(path), Some(last)) = (&a.html, reports.last()) else { return Ok(()) };
    let value = last.json(View { all: true, ..view });
    crate::html_out::write_html(path, value, "bottlenose topdown", None)
}

/// `--cpu NAME`: an event table name (`skl`, `spr`), or any machine name or alias
/// (`skylake`, `sapphirerapids`, `znver4`), which selects that machine's table:
/// `--machine` and `--cpu` take the same names.
fn table_for(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if MetricEngine::available().contains(&lower.as_str()) {
        return lower;
    }
    bottlenose_machine::canonical_name(&lower)
        .and_then(|m| bottlenose_machine::load_builtin(m))
        .and_then(|m| m.ok())
        .and_then(|m| m.peers.topdown_table)
        .unwrap_or(lower)
}
