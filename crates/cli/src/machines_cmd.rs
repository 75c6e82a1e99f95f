//! `bottlenose machines [show NAME]`

use anyhow::Result;
use bottlenose_machine::{builtin_names, load_builtin, Machine};
use clap::{Args, Subcommand};

#[derive(Args)]
#[command(after_help = "Examples:\n  bottlenose machines\n  bottlenose machines show skylake\n  bottlenose machines show ./my-core.toml")]
pub struct MachinesArgs {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Subcommand)]
enum Action {
    /// Print one machine: widths, windows, caches, predictors, ports and where the numbers come from.
    Show {
        /// Built-in name or path to a machine TOML file.
        name: String,
    },
}

pub fn run(args: MachinesArgs) -> Result<()> {
    match args.action {
        None => {
            let list: Vec<(String, Result<Machine, String>)> = builtin_names()
                .into_iter()
                .map(|n| (n.to_string(), load_builtin(n).expect("listed").map_err(|e| e.to_string())))
                .collect();
            print!("{}", bottlenose_report::render_machine_list(&list));
        }
        Some(Action::Show { name }) => {
            let m = Machine::resolve(&name)?;
            print!("{}", bottlenose_report::render_machine(&m));
        }
    }
    Ok(())
}
