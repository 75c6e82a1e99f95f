//! `bottlenose run -- ./prog args`: dynamic analysis of a real program under QEMU.

use anyhow::{anyhow, Result};
use bottlenose_analysis::dynamic::{run_program, DynamicOptions, IdealizeLevel, Roi};
use bottlenose_functional::{Idealization, Prefetcher};
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Text,
    Json,
    /// The hotspot table.
    Csv,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bottlenose run -- ./prog arg1 arg2                    # whole program on skylake
  bottlenose run --machine zen4 --roi function:kernel -- ./prog
  bottlenose run --roi markers -- ./prog                # between xchg rbx,rbx and xchg rcx,rcx
  bottlenose run --roi range:0x401000:0x401200 --cold -- ./prog
  bottlenose run --weights 1.05,1.15,2 --format json -- ./prog > result.json
  bottlenose run --max-instructions 100000000 -- ./long_running

The program's stdin, stdout, stderr and exit status pass through. Ctrl-C stops the
program and prints the report of what was simulated so far.")]
pub struct RunArgs {
    /// Machine: `host` (the closest model to this CPU, calibrated if `bottlenose calibrate` ran), a built-in name or alias, or a machine or calibration TOML file.
    #[arg(long, short, default_value = "host", env = "BOTTLENOSE_MACHINE")]
    pub machine: String,
    /// Region of interest: whole, function:NAME (in the program or the one library that has it),
    /// function:LIBRARY!NAME (e.g. function:libc.so.6!strlen), range:START:END (the program's
    /// addresses as objdump shows them), markers.
    #[arg(long, default_value = "whole")]
    pub roi: String,
    /// Caches, TLBs and predictors stay warm outside the region of interest: the
    /// code before the region trains them as it does the real core (the default;
    /// the flag is kept for scripts).
    #[arg(long, conflicts_with = "cold")]
    pub warm: bool,
    /// Start the region of interest with empty caches, TLBs and predictors.
    #[arg(long)]
    pub cold: bool,
    /// Acceleration weights (default 1.15 for runs; 1.01,...,1.15,2 is the static default).
    #[arg(long, value_delimiter = ',')]
    pub weights: Option<Vec<f64>>,
    /// Resources to accelerate one at a time (default: every port group, core and memory knob).
    #[arg(long, value_delimiter = ',')]
    pub resources: Option<Vec<String>>,
    /// A set of resources to accelerate together (comma separated); repeatable.
    #[arg(long)]
    pub combine: Vec<String>,
    #[arg(long)]
    pub no_sensitivity: bool,
    /// Also simulate the six pairs of idealizations (perfect icache, dcache, branch
    /// prediction, 1-cycle ALU); the four singles run by default.
    #[arg(long, conflicts_with = "no_idealize")]
    pub idealize: bool,
    /// Skip the idealization experiments (each costs one more functional layer or timing core).
    #[arg(long)]
    pub no_idealize: bool,
    /// Stop after simulating this many instructions (partial report).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_instructions: Option<u64>,
    /// Hardware data prefetchers: machine (the default: what the machine file's
    /// [prefetch] section says the core has), none, next-line, stride.
    #[arg(long, default_value = "machine")]
    pub prefetcher: String,
    /// Worker threads for the sensitivity variants (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Time the sensitivity variants on one window of 64 Ki instructions in every N
    /// (N >= 2), forked from the baseline's state, instead of on the whole run: about
    /// N times cheaper, approximate (the baseline and its views stay exact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    pub sample_every: Option<u32>,
    /// Skip the accounting views (Top-Down, CPI and FLOPS stacks, cycle accounting)
    /// and the idealizations that are read against them: the timing model alone,
    /// fastest; cycles, hotspots and sensitivity are unchanged.
    #[arg(long, conflicts_with = "idealize")]
    pub no_views: bool,
    /// After the first 1 Mi instructions, count the accounting views on one batch
    /// of 4 Ki instructions in every N (N >= 3), each after a warm-up on the 1 Ki instructions before it;
    /// the other batches are timed by the model's cheaper step. The counts that
    /// follow from executions stay exact, the rest are scaled from the windows (the
    /// report says so under `views_sampling`). Cycles and hotspots are unchanged.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(3..))]
    pub sample_views: u32,
    /// Count the accounting views on every instruction of the run (slower on long runs).
    #[arg(long, conflicts_with_all = ["no_views", "sample_views"])]
    pub exact_views: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Also write a self-contained HTML report to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Write the report to this file (atomically) instead of stdout, which the program uses.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Accelerate a resource in the baseline itself (what-if run), e.g. `--accelerate p23=1.15`
    /// (weights from 0.1 to 100; below 1 slows it down); repeatable. The report states it.
    #[arg(long)]
    pub accelerate: Vec<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// The program and its arguments (after `--`).
    #[arg(trailing_var_arg = true, required = true, num_args = 1..)]
    pub command: Vec<OsString>,
}

pub fn run(a: RunArgs) -> Result<i32> {
    let choice = crate::machine_choice::choose(&a.machine)?;
    let machine = choice.machine;
    let host = choice.host;
    let program = PathBuf::from(&a.command[0]);
    let args: Vec<OsString> = a.command[1..].to_vec();
    let (roi, roi_placement) = if a.roi == "whole" {
        (Roi::Whole, None)
    } else {
        crate::roi_arg::parse_roi(&a.roi, &crate::roi_arg::resolve_program(&program))?
    };
    crate::input::check_weights(a.weights.as_deref())?;
    let prefetcher: Prefetcher = a.prefetcher.parse().map_err(|e| anyhow!("bad --prefetcher: {e}"))?;
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // Ctrl-C reaches QEMU too (same process group); we keep running to report.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let bar = progress_bar(a.quiet, a.max_instructions);
    let bounded = a.max_instructions.is_some();
    let bar2 = bar.clone();
    let opts = DynamicOptions {
        program,
        args,
        roi,
        warm: !a.cold,
        weights: a.weights.clone().unwrap_or_else(|| vec![1.15]),
        resources: a.resources.clone(),
        combine: a.combine.iter().map(|c| c.split(',').map(|s| s.trim().to_string()).collect()).collect(),
        sensitivity: !a.no_sensitivity,
        max_instructions: a.max_instructions.and_then(std::num::NonZeroU64::new),
        threads: a.threads.map_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1), |n| n as usize),
        prefetcher,
        idealization: Idealization::default(),
        interrupt: Some(interrupt.clone()),
        progress: Some(Box::new(move |executed, simulated| {
            if let Some(b) = &bar2 {
                if bounded {
                    b.set_position(simulated);
                } else {
                    b.set_position(executed);
                    b.set_message(format!("{simulated} simulated"));
                }
            }
        })),
        roi_placement,
        baseline: a.accelerate.iter().map(|s| bottlenose_analysis::parse_acceleration(s)).collect::<Result<Vec<_>, _>>()?,
        sample_every: a.sample_every,
        accounting_views: !a.no_views,
        sample_views: (!a.exact_views).then_some(a.sample_views),
        idealize: if a.no_idealize || a.no_views {
            IdealizeLevel::Off
        } else if a.idealize {
            IdealizeLevel::Pairs
        } else {
            IdealizeLevel::Singles
        },
    };
    let report = run_program(&machine, opts)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if report.unsupported_instructions.count > 0 {
        eprintln!(
            "warning: {} executed instruction form(s) are not in the {} table; timed as the default form",
            report.unsupported_instructions.count, machine.name
        );
    }
    if !report.complete {
        eprintln!(
            "warning: partial report ({}): {} instructions simulated",
            report.stop_reason.as_deref().unwrap_or("incomplete"),
            report.instructions_simulated
        );
    }
    let text = match a.format {
        Format::Json => bottlenose_report::to_json(&crate::output::stamped_on(&report, "run", &host)?) + "\n",
        Format::Csv => crate::csv_out::hotspots(&crate::output::stamped_on(&report, "run", &host)?)?,
        // colour only when the text goes to the terminal
        Format::Text if a.output.is_none() => format!("{}\n{}", host.line(&machine.name), crate::color::paint(&bottlenose_report::render_dynamic(&report))),
        Format::Text => format!("{}\n{}", host.line(&machine.name), bottlenose_report::render_dynamic(&report)),
    };
    match &a.output {
        Some(path) => crate::output::write_atomic(path, &text)?,
        None => print!("{text}"),
    }
    if let Some(path) = &a.html {
        let title = format!("bottlenose run: {}", report.program);
        crate::html_out::write_html(path, crate::output::stamped_on(&report, "run", &host)?, &title)?;
    }
    // pass the program's exit status on
    Ok(match (report.exit_code, report.signal) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        _ if report.interrupted => 130,
        _ => 0,
    })
}

/// A spinner with the rate, or, when the instruction budget is known, a bar with an ETA.
/// Drawn on stderr only when it is a terminal; updated about every million instructions.
fn progress_bar(quiet: bool, limit: Option<u64>) -> Option<indicatif::ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    if let Some(n) = limit {
        let b = indicatif::ProgressBar::new(n);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {human_pos}/{human_len} instructions ({per_sec}, ETA {eta})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        return Some(b);
    }
    let b = indicatif::ProgressBar::new_spinner();
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {human_pos} instructions executed ({per_sec}), {msg} [{elapsed}]")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    b.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(b)
}
