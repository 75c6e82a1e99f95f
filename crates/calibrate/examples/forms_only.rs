//! Latency and throughput of instruction forms read from a file (one key a line) on this
//! host, against a built-in machine's table: the `--for` path of `bottlenose calibrate`.
//!
//! ```text
//! cargo run --release -p bottlenose-calibrate --example forms_only -- KEYS.txt [MACHINE]
//! ```

use bottlenose_calibrate::{calibrate, Plan};
use std::sync::atomic::AtomicBool;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keys: Vec<String> = std::fs::read_to_string(&args[0]).expect("keys file").lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    let base = bottlenose_machine::load_builtin(args.get(1).map_or("zen4", String::as_str)).unwrap().unwrap();
    let stop = AtomicBool::new(false);
    let cal = calibrate(&Plan::forms_only(keys), &base, &mut |_, _, _| {}, &stop).unwrap();
    let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let (mut measured, mut skipped) = (0, 0);
    for m in &cal.forms {
        if m.rthroughput.is_some() {
            measured += 1;
        } else {
            skipped += 1;
        }
        println!("{:<40} {:>7} {:>7} {:>7} {:>7}{}  {}", m.form, f(m.latency), f(m.base_latency), f(m.rthroughput), f(m.base_rthroughput), if m.unstable { " UNSTABLE" } else { "" }, m.method);
    }
    println!("{measured} measured, {skipped} skipped, {:.1} s", cal.seconds);
}
