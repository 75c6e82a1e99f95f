//! `bottlenose run -- ./prog args`: dynamic analysis of a real program under QEMU.

use anyhow::{anyhow, bail, Context, Result};
use bottlenose_analysis::dynamic::{run_program, DynamicOptions, IdealizeLevel, Roi};
use bottlenose_functional::{Idealization, Prefetcher};
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// `run --warming`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
pub enum WarmingArg {
    Window,
    Full,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Text,
    Json,
    /// The hotspot table.
    Csv,
}

/// The examples `run --help` shows: the arguments after `bottlenose run`, and a
/// comment. `tests/run_channels.rs` runs every one of them as shown.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("-- ./prog arg1 arg2", "whole program on the host's model; report on stderr"),
    ("--machine zen4 --roi function:kernel -- ./prog", ""),
    ("--roi markers -- ./prog", "between xchg rbx,rbx and xchg rcx,rcx"),
    ("--roi range:0x401000:0x401200 --cold -- ./prog", ""),
    ("--weights 1.05,1.15,2 --format json -o result.json -- ./prog", "prog's stdout stays its own"),
    ("--format csv -o hotspots.csv --html report.html -- ./prog", "hotspot table and a page"),
    ("--format json -o - -- ./prog > result.json", "report on stdout: only for a quiet prog"),
    ("--max-instructions 1000000 -- ./long_running", "partial report after 1 M instructions"),
    ("--no-sensitivity -- sh -c './prog x | sort'", "children traced; quick: no sweep"),
    ("--no-inherit -- sh -c './prog x | sort'", "the first process only"),
    ("--sample --target-error 1 -- ./long_running", "sampled from the start, ±1 %"),
    ("--exact -- ./long_running", "every instruction timed, however long"),
];

fn after_help() -> String {
    let mut s = String::from("Examples:\n");
    for (args, comment) in EXAMPLES {
        let line = format!("  bottlenose run {args}");
        if comment.is_empty() {
            s += &format!("{line}\n");
        } else {
            s += &format!("{line:<66} # {comment}\n");
        }
    }
    s + "
The program owns stdin, stdout and stderr, and its exit status is passed on. The
report goes to -o FILE, or to stderr (as perf stat's), so that it never mixes with
what the program prints; `-o -` puts it on stdout. Ctrl-C, SIGTERM and SIGHUP stop
the program and write the report of what was simulated so far. Processes the program\nforks or execs are traced too, each on its own model (--no-inherit: not)."
}

#[derive(Args)]
#[command(after_help = after_help())]
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
    /// Skip the idealization experiments (each costs one more timing core).
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
    /// Time every instruction of the run (no sampling, however long it runs).
    #[arg(long, conflicts_with_all = ["sample", "target_error", "time_budget", "sample_period"])]
    pub exact: bool,
    /// Past this many instructions, switch to sampled simulation (SMARTS: every
    /// instruction warms caches and predictors; the timing model runs on periodic
    /// windows; every result gets a 99.7 % confidence interval).
    #[arg(long, value_name = "N", default_value_t = bottlenose_analysis::dynamic::sampling::DEFAULT_EXACT_BELOW)]
    pub exact_below: u64,
    /// Sample from the first instruction (as --exact-below 0). For long runs: on a program of a few
    /// million instructions the start-up code no window measures is priced low (the default's exact
    /// prefix times it).
    #[arg(long, conflicts_with = "exact_below")]
    pub sample: bool,
    /// Wanted half-width of the 99.7 % interval on the cycles, in percent: the
    /// sampling rate is chosen from the observed variance to reach it.
    #[arg(long, value_name = "PERCENT", default_value_t = 3.0)]
    pub target_error: f64,
    /// Wall time the run may take, in seconds: caps the sampling rate (the report
    /// says when the target was not reached and what would reach it).
    #[arg(long, value_name = "SECONDS")]
    pub time_budget: Option<f64>,
    /// A fixed sampling period: one window (a warm-up and a measured unit of 4 Ki
    /// instructions each) in every N batches of 4 Ki instructions (N >= 2), instead of the adaptive rate.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..))]
    pub sample_period: Option<u64>,
    /// What keeps caches, TLBs and predictors warm between sampling windows: `window`
    /// (QEMU fast-forwards between windows, counting instructions only, and the
    /// functional layer warms on the --warm-up instructions before each window: near
    /// QEMU's own speed) or `full` (every instruction through the functional layer:
    /// slower, more accurate for large working sets). `window` needs --roi whole
    /// (with another region of interest, warming is full).
    #[arg(long, value_enum, default_value = "window")]
    pub warming: WarmingArg,
    /// Instructions of functional warm-up before each sampling window with --warming window
    /// (raise it for programs whose working set takes long to load into the caches).
    #[arg(long, value_name = "N", default_value_t = bottlenose_analysis::dynamic::sampling::DEFAULT_WINDOW_WARMING)]
    pub warm_up: u64,
    /// Seed of the sampling windows' random offsets (runs repeat with the same seed).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub sample_seed: u64,
    /// Count the accounting views on every instruction of the run (slower on long runs).
    #[arg(long, conflicts_with_all = ["no_views", "sample_views"])]
    pub exact_views: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Also write a self-contained HTML report to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Write the report to this file (atomically) instead of stderr; `-` is stdout
    /// (which the program shares).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Accelerate a resource in the baseline itself (what-if run), e.g. `--accelerate p23=1.15`
    /// (weights from 0.1 to 100; below 1 slows it down); repeatable. The report states it.
    #[arg(long)]
    pub accelerate: Vec<String>,
    /// Stay with the program: do not trace the processes it forks or execs
    /// (traced by default, each reported on its own and in the total, as perf stat counts them).
    #[arg(long)]
    pub no_inherit: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// The program and its arguments (after `--`).
    #[arg(trailing_var_arg = true, required = true, num_args = 1..)]
    pub command: Vec<OsString>,
}

pub fn run(a: RunArgs) -> Result<i32> {
    let program = PathBuf::from(&a.command[0]);
    // an AArch64 program runs under qemu-aarch64 on an AArch64 model
    let (choice, _) = crate::input::choose_for_input(&a.machine, Some(&program), None)?;
    let machine = choice.machine;
    let host = choice.host;
    let args: Vec<OsString> = a.command[1..].to_vec();
    let (roi, roi_placement) = if a.roi == "whole" {
        (Roi::Whole, None)
    } else {
        crate::roi_arg::parse_roi(&a.roi, &crate::roi_arg::resolve_program(&program))?
    };
    crate::input::check_weights(a.weights.as_deref())?;
    let prefetcher: Prefetcher = a.prefetcher.parse().map_err(|e| anyhow!("bad --prefetcher: {e}"))?;
    let (interrupt, stop_signal) = stop_on_signals()?;
    if !(a.target_error > 0.0 && a.target_error < 100.0) {
        bail!("bad --target-error {}: a percentage above 0 and below 100", a.target_error);
    }
    if let Some(b) = a.time_budget {
        if !(b > 0.0 && b.is_finite()) {
            bail!("bad --time-budget {b}: a number of seconds above 0");
        }
    }
    // `--sample-every` samples the sensitivity variants of an otherwise exact run (older scheme)
    let sampled = !a.exact && (a.sample_every.is_none() || a.sample || a.sample_period.is_some() || a.time_budget.is_some());
    let sampling = sampled.then(|| bottlenose_analysis::dynamic::sampling::SamplingOptions {
        warming: match a.warming {
            WarmingArg::Full => bottlenose_analysis::dynamic::sampling::Warming::Full,
            WarmingArg::Window => bottlenose_analysis::dynamic::sampling::Warming::Window { instructions: a.warm_up },
        },
        exact_below: if a.sample { 0 } else { a.exact_below },
        target: a.target_error / 100.0,
        budget: a.time_budget.map(std::time::Duration::from_secs_f64),
        period: a.sample_period,
        seed: a.sample_seed,
    });
    let bar = progress_bar(a.quiet, a.max_instructions);
    let bounded = a.max_instructions.is_some();
    let bar2 = bar.clone();
    let bar3 = bar.clone();
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
                    b.set_message(format!("{} simulated", bottlenose_report::numbers::count(simulated)));
                }
            }
        })),
        roi_placement,
        baseline: a.accelerate.iter().map(|s| bottlenose_analysis::parse_acceleration(s)).collect::<Result<Vec<_>, _>>()?,
        sample_every: a.sample_every,
        accounting_views: !a.no_views,
        sample_views: (!a.exact_views).then_some(a.sample_views),
        follow_children: !a.no_inherit,
        sampling,
        on_estimate: Some(Box::new(move |_simulated, e| {
            if let Some(b) = &bar3 {
                let eta = match e.eta_to_target {
                    None => "target reached".to_string(),
                    Some(s) => format!("target in ~{}", indicatif::HumanDuration(std::time::Duration::from_secs_f64(s.clamp(0.0, 1e7)))),
                };
                b.set_message(format!(
                    "sampled: CPI {:.3} ±{:.1} % ({} units, 1 window per {} batches), {eta}",
                    e.cpi,
                    e.relative_half_width * 100.0,
                    e.units,
                    e.period
                ));
            }
        })),
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
    if let Some(s) = report.sampling.as_ref().filter(|s| s.detailed_instructions == 0 && s.exact_instructions == 0) {
        // no cycle was timed: every figure of the report would be 0 or 0/0; the
        // sampling summary's own warning says so and what to do
        anyhow::bail!("{}", s.warning.as_deref().unwrap_or("nothing was timed; run --exact"));
    }
    crate::input::warn_unsupported(&machine, &report.unsupported_instructions.forms, true);
    if !report.complete {
        eprintln!(
            "warning: partial report, {} instructions simulated: {}",
            report.instructions_simulated,
            report.stop_reason.as_deref().unwrap_or("incomplete")
        );
    }
    let channel = Channel::of(a.output.as_deref());
    let text = match a.format {
        Format::Json => bottlenose_report::to_json(&crate::output::stamped_on(&report, "run", &host)?) + "\n",
        Format::Csv => crate::csv_out::hotspots(&crate::output::stamped_on(&report, "run", &host)?)?,
        Format::Text => format!(
            "{}\n{}{}",
            host.line(&machine.name),
            process_table(&report),
            crate::color::paint_on(&bottlenose_report::render_dynamic(&report), channel.is_terminal())
        ),
    };
    channel.write(&text)?;
    if let Some(path) = &a.html {
        let title = format!("bottlenose run: {}", report.program);
        crate::html_out::write_html(path, crate::output::stamped_on(&report, "run", &host)?, &title, Some(&machine))?;
    }
    // the signal that stopped us, as a shell reports it; else the program's exit status
    let stopped_by = stop_signal.load(Ordering::Relaxed) as i32;
    Ok(match (report.exit_code, report.signal) {
        _ if stopped_by != 0 => 128 + stopped_by,
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        _ => 0,
    })
}

/// SIGINT, SIGTERM and SIGHUP set the returned flag (the run then stops the
/// program and reports what it simulated) and record which signal came; a
/// second one ends bottlenose at once. Ctrl-C reaches QEMU too (same process
/// group); `kill -TERM` reaches bottlenose alone, and the run stops QEMU.
fn stop_on_signals() -> Result<(Arc<AtomicBool>, Arc<AtomicUsize>)> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let flag = Arc::new(AtomicBool::new(false));
    let which = Arc::new(AtomicUsize::new(0));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        // registered first, so that it sees the flag as the signal before set it
        signal_hook::flag::register_conditional_default(sig, flag.clone()).context("cannot handle signals")?;
        signal_hook::flag::register_usize(sig, which.clone(), sig as usize).context("cannot handle signals")?;
        signal_hook::flag::register(sig, flag.clone()).context("cannot handle signals")?;
    }
    Ok((flag, which))
}

/// The processes of a run that started others, and what was not traced; empty
/// for a run of one process with nothing left out.
fn process_table(report: &bottlenose_analysis::dynamic::DynamicReport) -> String {
    let mut s = String::new();
    if report.processes.len() > 1 {
        s += &format!(
            "Processes: {} traced, {} instructions, {:.0} cycles in total (IPC {:.2}); the report below is the one marked *\n",
            report.total.processes, report.total.instructions_simulated, report.total.cycles, report.total.ipc
        );
        s += &format!("  {:>8} {:>8} {:<6} {:<28} {:>14} {:>14} {:>6}  exit\n", "pid", "parent", "how", "program", "instructions", "cycles", "IPC");
        for p in &report.processes {
            let parent = p.parent.map_or("-".to_string(), |x| x.to_string());
            let mut program = p.program.clone();
            if program.chars().count() > 28 {
                program = format!("...{}", program.chars().rev().take(25).collect::<Vec<_>>().into_iter().rev().collect::<String>());
            }
            s += &format!(
                "{} {:>8} {:>8} {:<6} {:<28} {:>14} {:>14.0} {:>6.2}  {}\n",
                if p.detailed { "*" } else { " " },
                p.pid, parent, p.origin, program, p.instructions_simulated, p.cycles, p.ipc, p.exit
            );
        }
    }
    for u in &report.untraced {
        s += &format!("not traced: {u}\n");
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// Where the report goes. The program owns stdout and stderr, as under `perf
/// stat`: the report goes to a file, or to stderr, where it follows what the
/// program wrote there instead of landing in the middle of its output.
enum Channel<'a> {
    Stderr,
    /// `-o -`: asked for explicitly (the program's own stdout is then shared).
    Stdout,
    File(&'a std::path::Path),
}

impl<'a> Channel<'a> {
    fn of(output: Option<&'a std::path::Path>) -> Self {
        match output {
            None => Channel::Stderr,
            Some(p) if p.as_os_str() == "-" => Channel::Stdout,
            Some(p) => Channel::File(p),
        }
    }

    /// Colour goes only to a terminal.
    fn is_terminal(&self) -> bool {
        match self {
            Channel::Stderr => std::io::stderr().is_terminal(),
            Channel::Stdout => std::io::stdout().is_terminal(),
            Channel::File(_) => false,
        }
    }

    fn write(&self, text: &str) -> Result<()> {
        use std::io::Write;
        match self {
            Channel::Stderr => std::io::stderr().write_all(text.as_bytes()).context("cannot write the report to stderr"),
            Channel::Stdout => std::io::stdout().write_all(text.as_bytes()).context("cannot write the report to stdout"),
            Channel::File(path) => crate::output::write_atomic(path, text),
        }
    }
}

/// A spinner with the rate, or, when the instruction budget is known, a bar with an ETA.
/// Drawn on stderr only when it is a terminal; updated about every million instructions.
fn progress_bar(quiet: bool, limit: Option<u64>) -> Option<indicatif::ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    // `{per_sec}` would print "2,291,988.2705/s": the rate is three digits and a prefix instead
    let rate = |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&bottlenose_report::numbers::rate(state.per_sec(), "instr"));
    };
    if let Some(n) = limit {
        let b = indicatif::ProgressBar::new(n);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {human_pos}/{human_len} instructions ({rate}, ETA {eta}) {msg}")
                .map(|s| s.with_key("rate", rate))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        return Some(b);
    }
    let b = indicatif::ProgressBar::new_spinner();
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {human_pos} instructions executed ({rate}), {msg} [{elapsed}]")
            .map(|s| s.with_key("rate", rate))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    b.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(b)
}
