//! Runs the standard calibration set on this host against the built-in `zen4` machine and
//! prints base vs measured.
//!
//! ```text
//! cargo run --release -p bottlenose-calibrate --example calibrate_host [-- --machine NAME] [--forms "KEY;KEY"] [--conflicts] [--only windows,latency,...] [--json]
//! ```
//!
//! Cache sizes come from /sys/devices/system/cpu/cpu0/cache (the CLI passes CPUID's).

use bottlenose_calibrate::{calibrate, CacheGeometry, Plan};
use std::io::Write;
use std::sync::atomic::AtomicBool;

/// Size of the cache of this level and type (`Data`, `Instruction`; a `Unified` one matches both).
fn sysfs_cache(level: u32, kind: &str) -> Option<u64> {
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok().map(|s| s.trim().to_string());
        let (Some(l), Some(t), Some(size)) = (read("level"), read("type"), read("size")) else { continue };
        if l == level.to_string() && (t == "Unified" || t == kind) {
            let (n, mult) = if let Some(k) = size.strip_suffix('K') { (k, 1024) } else if let Some(m) = size.strip_suffix('M') { (m, 1 << 20) } else { (size.as_str(), 1) };
            return n.parse::<u64>().ok().map(|n| n * mult);
        }
    }
    None
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let machine_name = arg("--machine").unwrap_or_else(|| "zen4".into());
    let base = bottlenose_machine::load_builtin(&machine_name).expect("built-in machine").expect("valid machine");
    let geometry = CacheGeometry {
        l1d_bytes: sysfs_cache(1, "Data"),
        l1i_bytes: sysfs_cache(1, "Instruction"),
        l2_bytes: sysfs_cache(2, "Data"),
        l3_bytes: sysfs_cache(3, "Data"),
    };
    eprintln!("cache geometry (sysfs): {geometry:?}");
    let mut plan = Plan::standard(geometry);
    if let Some(f) = arg("--forms") {
        plan.forms = f.split(';').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    }
    plan.conflicts = args.iter().any(|a| a == "--conflicts");
    if let Some(only) = arg("--only") {
        plan.only = only.split(',').map(str::to_string).collect();
        plan.builtin_forms = false;
    }
    let stop = AtomicBool::new(false);
    let mut last = String::new();
    let mut progress = |step: &str, done: usize, total: usize| {
        if step != last {
            eprintln!();
            last = step.to_string();
        }
        eprint!("\r{step}: {done}/{total}   ");
        let _ = std::io::stderr().flush();
    };
    let cal = match calibrate(&plan, &base, &mut progress, &stop) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("\n{e}");
            std::process::exit(1);
        }
    };
    eprintln!();
    if args.iter().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&cal).unwrap());
        return;
    }
    let c = &cal.clock;
    println!(
        "clock: TSC {:.3} GHz, core {:.3} GHz, ticks/cycle add {:.4} imul {:.4} ({:+.2} %), drift {:+.2} %",
        c.tsc_ghz,
        c.core_ghz,
        c.ticks_per_cycle_add,
        c.ticks_per_cycle_imul,
        (c.ticks_per_cycle_imul / c.ticks_per_cycle_add - 1.0) * 100.0,
        c.drift_pct
    );
    println!("\n{:<34} {:>9} {:>9} {:>7}  method", "key", "base", "measured", "spread");
    for e in &cal.entries {
        let base = e.base.map_or("-".to_string(), |b| format!("{b:.2}"));
        println!("{:<34} {:>9} {:>9.2} {:>6.1}%{} {}", e.key, base, e.value, e.spread_pct, if e.unstable { " UNSTABLE" } else { "" }, e.method);
    }
    println!("\n{:<34} {:>7} {:>7} {:>7} {:>7}", "form", "lat", "base", "rtp", "base");
    let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    for m in &cal.forms {
        println!(
            "{:<34} {:>7} {:>7} {:>7} {:>7}{}  {}",
            m.form,
            f(m.latency),
            f(m.base_latency),
            f(m.rthroughput),
            f(m.base_rthroughput),
            if m.unstable { " UNSTABLE" } else { "" },
            m.method
        );
    }
    if !cal.conflicts.is_empty() {
        println!("\nport conflicts (0 disjoint .. 1 shared):");
        for (a, b, c) in &cal.conflicts {
            if *c > 0.2 {
                println!("  {a:<30} {b:<30} {c:.2}");
            }
        }
    }
    for n in &cal.notes {
        println!("note: {n}");
    }
    println!("\n{:.1} s", cal.seconds);
}
