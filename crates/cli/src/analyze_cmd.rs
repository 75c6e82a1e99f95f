//! `bottlenose analyze`: static analysis of a block or loop body.

use crate::input::{load, InputSpec};
use anyhow::{Context, Result};
use bottlenose_analysis::{analyze_block, default_weights, StaticOptions};
use bottlenose_decode::decode_block;
use bottlenose_sources::AsmSyntax;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Text,
    Json,
    /// The per-instruction table.
    Csv,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Syntax {
    Auto,
    Att,
    Intel,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bottlenose analyze examples/jacobi.s                      # whole file as one loop body, skylake
  bottlenose analyze kernel.s --machine zen4 --format json  # llvm-mca style # LLVM-MCA-BEGIN/END regions supported
  bottlenose analyze --hex 'c5 fb 58 c1 ff c9 75 f8'         # raw bytes
  bottlenose analyze ./prog --function dot                  # a function of an ELF binary
  bottlenose analyze k.s --weights 1.05,1.1,2 --combine p23,frontend
  bottlenose analyze k.s --iterations 1 --resources p1,p6   # one pass, chosen resources")]
pub struct AnalyzeArgs {
    /// Assembly file (AT&T or Intel, assembled with GNU as), or an ELF file with --function/--range; `-` reads stdin.
    pub file: Option<PathBuf>,
    /// Raw instruction bytes in hex instead of a file (`-` reads them from stdin).
    #[arg(long, conflicts_with = "file")]
    pub hex: Option<String>,
    /// ELF input: analyze this function.
    #[arg(long)]
    pub function: Option<String>,
    /// ELF input: analyze this address range START:END.
    #[arg(long)]
    pub range: Option<String>,
    /// Assembly syntax of the file.
    #[arg(long, value_enum, default_value = "auto")]
    pub syntax: Syntax,
    /// Machine: `host` (the closest model to this CPU, calibrated if `bottlenose calibrate` ran), a built-in name or alias (see `bottlenose machines`), or a machine or calibration TOML file.
    #[arg(long, short, default_value = "host", env = "BOTTLENOSE_MACHINE")]
    pub machine: String,
    /// Iterations of the block (default: enough for a steady state, >= 50,000 instructions).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Option<u32>,
    /// Acceleration weights for sensitivity, comma separated (default 1.01,...,1.15,2).
    #[arg(long, value_delimiter = ',')]
    pub weights: Option<Vec<f64>>,
    /// Resources to accelerate one by one (default: every resource the block uses and the core's windows, widths and latency).
    #[arg(long, value_delimiter = ',')]
    pub resources: Option<Vec<String>>,
    /// A set of resources to accelerate together, comma separated; repeat for more sets.
    #[arg(long)]
    pub combine: Vec<String>,
    /// Skip the sensitivity sweep.
    #[arg(long)]
    pub no_sensitivity: bool,
    /// Also write a self-contained HTML report to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(a: AnalyzeArgs) -> Result<()> {
    let choice = crate::machine_choice::choose(&a.machine)?;
    let machine = choice.machine;
    let host = choice.host;
    let syntax = match a.syntax {
        Syntax::Auto => AsmSyntax::Auto,
        Syntax::Att => AsmSyntax::Att,
        Syntax::Intel => AsmSyntax::Intel,
    };
    let blocks = load(&InputSpec {
        file: a.file.as_deref(),
        hex: a.hex.as_deref(),
        function: a.function.as_deref(),
        range: a.range.as_deref(),
        syntax,
    })?;
    crate::input::check_weights(a.weights.as_deref())?;
    let opts = StaticOptions {
        iterations: a.iterations.and_then(std::num::NonZeroU32::new),
        weights: a.weights.clone().unwrap_or_else(default_weights),
        resources: a.resources.clone(),
        combine: a.combine.iter().map(|c| c.split(',').map(|s| s.trim().to_string()).collect()).collect(),
        sensitivity: !a.no_sensitivity,
    };
    let mut reports = Vec::new();
    for b in &blocks {
        let insts = decode_block(&b.bytes, b.address).with_context(|| format!("cannot decode {}", b.name))?;
        crate::input::check_isa(&machine, &b.name, &insts)?;
        let r = analyze_block(&machine, &b.name, &insts, &opts)?;
        if r.unsupported_instructions.count > 0 {
            eprintln!(
                "warning: {} instruction form(s) of {} are not in the {} table; timed as the default form ({} uop, latency {}): {}",
                r.unsupported_instructions.count,
                b.name,
                machine.name,
                machine.default_form.uops,
                machine.default_form.latency,
                r.unsupported_instructions.forms.iter().map(|f| f.form.as_str()).collect::<Vec<_>>().join("; ")
            );
        }
        reports.push(r);
    }
    if let Some(path) = &a.html {
        let value = if reports.len() == 1 { crate::output::stamped_on(&reports[0], "analyze", &host)? } else { serde_json::json!({ "regions": reports }) };
        let title = format!("bottlenose analyze: {}", reports.iter().map(|r| r.block.as_str()).collect::<Vec<_>>().join(", "));
        crate::html_out::write_html(path, value, &title)?;
    }
    match a.format {
        Format::Json if reports.len() == 1 => println!("{}", bottlenose_report::to_json(&crate::output::stamped_on(&reports[0], "analyze", &host)?)),
        Format::Json => {
            let all = reports.iter().map(|r| crate::output::stamped_on(r, "analyze", &host)).collect::<Result<Vec<_>>>()?;
            println!("{}", bottlenose_report::to_json(&all))
        }
        Format::Csv => {
            for (i, r) in reports.iter().enumerate() {
                let text = crate::csv_out::instructions(&crate::output::stamped_on(r, "analyze", &host)?)?;
                // one header for all regions
                print!("{}", if i == 0 { text.as_str() } else { text.split_once('\n').map(|x| x.1).unwrap_or("") });
            }
        }
        Format::Text => {
            println!("{}", host.line(&machine.name));
            for (i, r) in reports.iter().enumerate() {
                if i > 0 {
                    println!();
                }
                print!("{}", crate::color::paint(&bottlenose_report::render_block(r)));
            }
        }
    }
    Ok(())
}
