//! `bottlenose analyze`: static analysis of a block or loop body.

use crate::input::{load, InputSpec};
use anyhow::{Context, Result};
use bottlenose_analysis::{analyze_block, analyze_loops, default_weights, BlockReport, LoopAnalysis, StaticOptions, ASSUMED_ITERATIONS_PER_ENTRY};
use bottlenose_decode::{decode_block_vl, BranchKind, Isa};
use bottlenose_inputs::{AsmSyntax, CodeBlock};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Text,
    Json,
    /// The per-instruction table.
    Csv,
}

/// `--isa`: the instruction set of assembly and hex input.
#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum IsaArg {
    #[value(name = "x86-64", alias = "x86_64")]
    X86_64,
    #[value(alias = "arm64")]
    Aarch64,
}

impl IsaArg {
    pub fn isa(self) -> Isa {
        match self {
            IsaArg::X86_64 => Isa::X86_64,
            IsaArg::Aarch64 => Isa::Aarch64,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Syntax {
    Auto,
    Att,
    Intel,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bottlenose analyze examples/jacobi.s                      # a loop body (a file that is one loop), skylake
  bottlenose analyze kernel.s --machine zen4 --format json  # llvm-mca style; LLVM-MCA-BEGIN/END regions supported
  bottlenose analyze --hex 'c5 fb 58 c1 ff c9 75 f8'         # raw bytes
  bottlenose analyze ./prog --function dot                  # each loop of a function of an ELF binary
  bottlenose analyze kernel.s                               # gcc -S output: each loop, the hottest marked
  bottlenose analyze ./prog --function dot --whole          # the whole function as one loop body
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
    /// Instruction set of assembly or hex input (default: the machine's; an ELF file says its own).
    /// AArch64 assembly goes through aarch64-linux-gnu-as.
    #[arg(long, value_enum)]
    pub isa: Option<IsaArg>,
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
    /// Time the whole input as one loop body. Without it, code with loops (a
    /// function, a gcc -S file) is split into its loops (back edges), each
    /// analyzed on its own instructions, the hottest by static estimate marked.
    #[arg(long, visible_alias = "whole-function")]
    pub whole: bool,
    /// Also write a self-contained HTML report to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(a: AnalyzeArgs) -> Result<()> {
    let (choice, isa) = crate::input::choose_for_input(&a.machine, a.file.as_deref(), a.isa.map(IsaArg::isa))?;
    let machine = choice.machine;
    let host = choice.host;
    let syntax = match a.syntax {
        Syntax::Auto => AsmSyntax::Auto,
        Syntax::Att => AsmSyntax::Att,
        Syntax::Intel => AsmSyntax::Intel,
    };
    let loaded = load(&InputSpec {
        file: a.file.as_deref(),
        hex: a.hex.as_deref(),
        function: a.function.as_deref(),
        range: a.range.as_deref(),
        syntax,
        isa,
    })?;
    crate::input::check_weights(a.weights.as_deref())?;
    let opts = StaticOptions {
        iterations: a.iterations.and_then(std::num::NonZeroU32::new),
        weights: a.weights.clone().unwrap_or_else(default_weights),
        resources: a.resources.clone(),
        combine: a.combine.iter().map(|c| c.split(',').map(|s| s.trim().to_string()).collect()).collect(),
        sensitivity: !a.no_sensitivity,
    };
    let mut analyses = Vec::new();
    for b in &loaded.blocks {
        let insts = decode_block_vl(b.isa, &b.bytes, b.address, machine.sve_decode_bits()).with_context(|| format!("cannot decode {}", b.name))?;
        crate::input::check_isa(&machine, &b.name, &insts)?;
        let loops = if a.whole { None } else { analyze_loops(&machine, &b.name, &insts, &opts, &|addr| locate(b, loaded.program.as_ref(), addr))? };
        let analysis = match loops {
            Some(loops) => Analysis::Loops { name: b.name.clone(), loops },
            None => {
                if insts.iter().any(|i| i.branch == BranchKind::Return) && !a.whole {
                    eprintln!("note: no loop in {}: analyzed as one loop body", b.name);
                }
                Analysis::Block(Box::new(analyze_block(&machine, &b.name, &insts, &opts)?))
            }
        };
        analyses.push(analysis);
    }
    // once for the whole input, each form named once
    crate::input::warn_unsupported(&machine, analyses.iter().flat_map(Analysis::reports).flat_map(|r| &r.unsupported_instructions.forms), false);
    let json = |x: &Analysis| x.to_json(&host);
    if let Some(path) = &a.html {
        // the same value as --format json prints, so that `report` of that JSON gives this page
        let value = if analyses.len() == 1 { json(&analyses[0])? } else { serde_json::Value::Array(analyses.iter().map(json).collect::<Result<Vec<_>>>()?) };
        let title = format!("bottlenose analyze: {}", analyses.iter().map(Analysis::name).collect::<Vec<_>>().join(", "));
        crate::html_out::write_html(path, value, &title, Some(&machine))?;
    }
    match a.format {
        Format::Json if analyses.len() == 1 => println!("{}", bottlenose_report::to_json(&json(&analyses[0])?)),
        Format::Json => println!("{}", bottlenose_report::to_json(&analyses.iter().map(json).collect::<Result<Vec<_>>>()?)),
        Format::Csv => {
            let reports: Vec<&BlockReport> = analyses.iter().flat_map(Analysis::reports).collect();
            for (i, r) in reports.iter().enumerate() {
                let text = crate::csv_out::instructions(&crate::output::stamped_on(r, "analyze", &host)?)?;
                // one header for all regions and loops
                print!("{}", if i == 0 { text.as_str() } else { text.split_once('\n').map(|x| x.1).unwrap_or("") });
            }
        }
        Format::Text => {
            println!("{}", host.line(&machine.name));
            for (i, x) in analyses.iter().enumerate() {
                if i > 0 {
                    println!();
                }
                let text = match x {
                    Analysis::Block(r) => bottlenose_report::render_block(r),
                    Analysis::Loops { name, loops } => bottlenose_report::render_loops(name, loops),
                };
                print!("{}", crate::color::paint(&text));
            }
        }
    }
    Ok(())
}

/// What `analyze` found in one input block: one loop body, or its loops.
enum Analysis {
    Block(Box<BlockReport>),
    Loops { name: String, loops: Vec<LoopAnalysis> },
}

impl Analysis {
    fn name(&self) -> &str {
        match self {
            Analysis::Block(r) => &r.block,
            Analysis::Loops { name, .. } => name,
        }
    }

    fn reports(&self) -> Vec<&BlockReport> {
        match self {
            Analysis::Block(r) => vec![r],
            Analysis::Loops { loops, .. } => loops.iter().map(|l| &l.report).collect(),
        }
    }

    /// The JSON report (`schemas/analyze.v2.json`): a block's, or for loops the
    /// hottest loop's at the top level (so that a reader of single-block
    /// reports gets the loop that matters) with every loop under `loops`.
    fn to_json(&self, host: &crate::machine_choice::HostNote) -> Result<serde_json::Value> {
        match self {
            Analysis::Block(r) => crate::output::stamped_on(r, "analyze", host),
            Analysis::Loops { name, loops } => {
                let hottest = loops.iter().find(|l| l.hottest).expect("a hottest loop");
                let mut v = crate::output::stamped_on(&hottest.report, "analyze", host)?;
                v["input"] = serde_json::Value::String(name.clone());
                v["loops"] = serde_json::to_value(loops)?;
                v["loop_estimate"] = serde_json::Value::String(format!(
                    "each loop is timed on its own instructions (inner loops excluded); estimated_share = cycles_per_iteration x {n}^(depth+1) over the sum for all loops, as if every loop ran {n} iterations per entry",
                    n = ASSUMED_ITERATIONS_PER_ENTRY
                ));
                Ok(v)
            }
        }
    }
}

/// The function and source line of `addr` in `block`: from the ELF program's
/// symbols and DWARF, else from the assembly file's function symbols and lines.
fn locate(block: &CodeBlock, program: Option<&bottlenose_attribution::Program>, addr: u64) -> (Option<String>, Option<String>) {
    if let Some(p) = program {
        return (p.function_at(addr).map(str::to_string), p.line_at(addr).map(|(file, line)| format!("{file}:{line}")));
    }
    let offset = addr.wrapping_sub(block.address);
    let function = block.functions.iter().take_while(|(o, _)| *o <= offset).last().map(|(_, f)| f.clone());
    let line = block.source_lines.iter().find(|l| l.offset == offset).map(|l| format!("{}:{}", block.name, l.line));
    (function, line)
}
