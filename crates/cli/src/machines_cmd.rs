//! `bottlenose machines [show NAME]`

use anyhow::Result;
use bottlenose_machine::{builtin_names, load_builtin, Machine};
use clap::{Args, Subcommand};

#[derive(Args)]
#[command(after_help = "Examples:\n  bottlenose machines\n  bottlenose machines show skylake\n  bottlenose machines show spr          # aliases work everywhere\n  bottlenose machines show ./my-core.toml\n  bottlenose machines host              # which model --machine host picks here, and why\n  bottlenose machines host --format json")]
pub struct MachinesArgs {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Subcommand)]
enum Action {
    /// Print one machine: widths, windows, caches, predictors, ports and where the numbers come from.
    Show {
        /// Built-in name or alias, `host`, or path to a machine or calibration TOML file.
        name: String,
    },
    /// Identify this CPU and say which model `--machine host` uses, why, and with which calibration.
    Host {
        #[arg(long, value_enum, default_value = "text")]
        format: HostFormat,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum HostFormat {
    Text,
    Json,
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
            let m = crate::machine_choice::choose(&name)?.machine;
            print!("{}", bottlenose_report::render_machine(&m));
        }
        Some(Action::Host { format }) => host(format)?,
    }
    Ok(())
}

/// `machines host`: detection, the chosen model and the calibration in use.
fn host(format: HostFormat) -> Result<()> {
    let cpu = crate::machine_choice::host_cpu()?;
    let id = bottlenose_host::identify(&cpu);
    let choice = crate::machine_choice::choose("host")?;
    let m = &choice.machine;
    let cal_path = crate::machine_choice::calibration_path(&cpu);
    match format {
        HostFormat::Json => {
            let v = serde_json::json!({
                "cpu": cpu.describe(),
                "signature": cpu.signature(),
                "vendor": cpu.vendor,
                "family": cpu.family,
                "model": cpu.model,
                "stepping": cpu.stepping,
                "features": cpu.features.names(),
                "machine": m.name,
                "how": id.how.as_str(),
                "reason": id.reason,
                "calibration": choice.host.calibration.as_ref().and(cal_path.as_ref()).map(|p| p.display().to_string()),
                "calibration_file": cal_path.as_ref().map(|p| p.display().to_string()),
                "llvm_mcpu": m.peers.llvm_mcpu,
                "osaca_arch": m.peers.osaca_arch,
                "topdown_table": m.peers.topdown_table,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        HostFormat::Text => {
            println!("CPU:         {}", cpu.describe());
            println!("features:    {}", cpu.features.names().join(" "));
            println!("model:       {} ({}: {})", m.name, id.how.as_str(), id.reason);
            match (&choice.host.calibration, &cal_path) {
                (Some(c), _) => println!("calibration: {c}"),
                (None, Some(p)) => println!("calibration: none (`bottlenose calibrate` writes {})", p.display()),
                (None, None) => println!("calibration: none"),
            }
            let peers = [("llvm-mca-19 -mcpu", &m.peers.llvm_mcpu), ("osaca --arch", &m.peers.osaca_arch), ("topdown --cpu", &m.peers.topdown_table)];
            for (what, v) in peers {
                if let Some(v) = v {
                    println!("{what:<18} {v}");
                }
            }
        }
    }
    Ok(())
}
