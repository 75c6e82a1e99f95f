//! `convert-perfmon [DATA] [--out DIR] [--uarch skl,zen4] [--compare-csv hsw]`
//!
//! Reads the shared perfmon / pmu-events data (default `../shared/data`
//! relative to the repository root) and writes `crates/metrics/data/*.json`.

use anyhow::Result;
use clap::Parser;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Convert Intel perfmon and Linux AMD pmu-events data into bottlenose-metrics tables")]
struct Args {
    /// Data directory holding intel-perfmon/ and linux-pmu-events/.
    data: Option<PathBuf>,
    /// Output directory (default: crates/metrics/data in this repository).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only these uarches (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    uarch: Vec<String>,
    /// Instead of converting, compare the JSON and spreadsheet conversions of an Intel uarch.
    #[arg(long)]
    compare_csv: Option<String>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = args.data.unwrap_or_else(|| root.join("../shared/data"));
    if let Some(id) = args.compare_csv {
        let (n, same, diff) = convert_perfmon::compare_csv(&data, &id)?;
        println!("{id}: {same}/{n} Top-Down node values agree between metrics JSON and TMA_Metrics-full.csv");
        for d in diff {
            println!("  differs: {d}");
        }
        return Ok(());
    }
    let out = args.out.unwrap_or_else(|| root.join("crates/metrics/data"));
    let summaries = convert_perfmon::run(&data, &out, &args.uarch)?;
    println!("{:<6} {:>7} {:>8} {:>9} {:>7} {:>6}", "uarch", "events", "metrics", "tma-nodes", "levels", "notes");
    for s in summaries {
        println!("{:<6} {:>7} {:>8} {:>9} {:>7} {:>6}", s.uarch, s.events, s.metrics, s.tma_nodes, s.levels, s.notes);
    }
    println!("wrote {}", out.display());
    Ok(())
}
