//! The `bottlenose` command line.

mod analyze_cmd;
mod calibrate_cmd;
mod color;
mod csv_out;
mod html_out;
mod input;
mod machine_choice;
mod machines_cmd;
mod output;
mod roi_arg;
mod run_cmd;
mod study_cmd;
mod topdown_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "bottlenose",
    version,
    about = "Find why a loop or program is slow on an out-of-order CPU, and how much each fix would buy.",
    after_help = "Examples:\n  bottlenose analyze examples/jacobi.s --machine skylake\n  bottlenose analyze --hex '48 01 d8 48 ff c9 75 f8' --format json\n  bottlenose machines show zen4"
)]
struct Cli {
    /// No colour in terminal output (also: NO_COLOR set, or output not a terminal).
    #[arg(long, global = true)]
    no_color: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Static analysis of a block or loop body: cycles per iteration, resource usage, sensitivity, bottlenecks.
    Analyze(analyze_cmd::AnalyzeArgs),
    /// Dynamic analysis of a real program under QEMU: caches, branch prediction, hotspots, sensitivity.
    Run(run_cmd::RunArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Example:\n  bottlenose completions bash > /etc/bash_completion.d/bottlenose")]
    Completions {
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), generated from this command line definition.
    #[command(after_help = "Example:\n  bottlenose man > bottlenose.1 && man ./bottlenose.1")]
    Man,
    /// Render a JSON report as one self-contained HTML page.
    Report(html_out::ReportArgs),
    /// List the machine descriptions, or show one.
    Machines(machines_cmd::MachinesArgs),
    /// Measure this host natively (no PMU needed) and write a calibration overlay that `--machine host` uses.
    Calibrate(calibrate_cmd::CalibrateArgs),
    /// Top-Down analysis from hardware counters (perf_event_open) or imported perf stat / likwid output.
    Topdown(topdown_cmd::TopdownArgs),
    /// Studies: programs x machines x variants as jobs on this machine or a Slurm cluster, a result store, tables and diffs.
    Study(study_cmd::StudyArgs),
}

fn main() -> ExitCode {
    // `bottlenose ... | head` should stop quietly, not report a broken pipe
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::parse();
    if cli.no_color {
        color::disable();
    }
    let result = match cli.command {
        Command::Analyze(a) => analyze_cmd::run(a).map(|()| 0),
        Command::Run(r) => run_cmd::run(r),
        Command::Machines(m) => machines_cmd::run(m).map(|()| 0),
        Command::Report(r) => html_out::run(r),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "bottlenose", &mut std::io::stdout());
            Ok(0)
        }
        Command::Man => clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
            .render(&mut std::io::stdout())
            .map(|()| 0)
            .map_err(Into::into),
        Command::Topdown(t) => topdown_cmd::run(t),
        Command::Calibrate(c) => calibrate_cmd::run(c),
        Command::Study(s) => study_cmd::run(s),
    };
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line. Many of our errors already print their
/// cause (`cannot start qemu: No such file`); a cause whose text the line holds
/// already is not repeated.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string().replace('\n', " ");
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    /// An error that prints its cause, as QemuError::Io does.
    #[derive(Debug)]
    struct WithCause {
        source: std::io::Error,
    }
    impl std::fmt::Display for WithCause {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "trace hub: {}", self.source)
        }
    }
    impl std::error::Error for WithCause {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    #[test]
    fn a_cause_already_printed_is_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "broken pipe");
        let e = anyhow::Error::new(WithCause { source: io }).context("bottlenose run");
        assert_eq!(super::one_line(&e), "bottlenose run: trace hub: broken pipe");
        let plain = anyhow::anyhow!("root").context("outer");
        assert_eq!(super::one_line(&plain), "outer: root");
    }
}
